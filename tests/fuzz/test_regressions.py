"""Every failure the fuzzers found, as a test of the input that showed it."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

import trtlog
from tests.fuzz import harness
from trtlog.buildlog import Build
from trtlog.cli.main import main
from trtlog.errors import InputError

ENV = "[01/10/2024-21:52:52] [V] [TRT] "
BIG = "9" * 5000  # past Python's 4,300-digit limit for int()


@pytest.mark.parametrize(
    "message",
    [
        f"Memory Bus Width: {BIG} bits (ECC disabled)",  # bus width
        f"TensorRT version: {BIG}",
        f"Average on {BIG} runs - GPU latency: 0.0389 ms - Host latency: 0.0389 ms",
        f"Tactic: 0x{'f' * 40} Time: 0.1",  # a tactic id past 64 bits
        f"Original: {'9' * 30} layers",  # a count past 64 bits
        f"Deserialization required {BIG} microseconds.",
        "Engine Layer Information:\nLayer(CaskConvolution): a, Tactic: 0x1, "
        "x [Half(786432,0xZZ,512,1)] -> y",
        "Average on 10 runs - GPU latency: 0.0.389 ms - Host latency: 0.0389 ms (enqueue x ms)",
    ],
)
def test_values_that_are_none_make_the_line_unrecognized(message: str) -> None:
    text = ENV + message + "\n"
    build = harness.check_log_text(text)
    assert build is not None and build.to_text() == text


def test_an_integer_past_64_bits_in_a_frame_is_missing() -> None:
    """OverflowError from pandas: a value past int64 in a nullable column is <NA>."""
    from trtlog.frames.schema import frame_from_records

    row = {"line": 1, "run": None, "stage": "s", "kind": "memory_change", "metric": "cpu"}
    rows = [{**row, "layer": None, "bytes": b, "mib": 1.0} for b in (2**64, 5)]
    frame = frame_from_records("memory", rows)
    assert frame["bytes"].isna().tolist() == [True, False]
    # where the parser meets one, the line does not parse
    text = f"{ENV}[MemUsageChange] Init CUDA: CPU +{'9' * 30}, GPU +0, now: CPU 2, GPU 3 (MiB)\n"
    assert [e.kind for e in trtlog.parse_text(text).events] == ["unrecognized"]


def test_nan_and_inf_sizes_have_no_byte_count() -> None:
    for value in ("nan", "inf"):
        frame = trtlog.parse_text(f"{ENV}Created engine with size: {value} MiB\n").memory_frame()
        assert frame["bytes"].isna().all()


def test_nan_survives_the_json_round_trip() -> None:
    text = (
        "[07/07/2026-02:11:43] [I] Average on 10 runs - GPU latency: 0.0389 ms - Host latency: "
        "0.0389 ms (enqueue -nan ms)\n"
    )
    build = trtlog.parse_text(text)
    values = [v for e in build.events for v in e.__dict__.values() if isinstance(v, float)]
    assert any(math.isnan(v) for v in values)
    assert Build.model_validate_json(build.model_dump_json()) == build


def test_lone_surrogates_survive_the_json_round_trip() -> None:
    text = (
        "[I] [TRT] Original: 5 layers\n[I] === Build Options ===\n"
        "[I] Pre\udcffcision: FP16\n[I] \udc80x\n"
    )
    build = trtlog.parse_text(text)
    assert Build.model_validate_json(build.model_dump_json()) == build
    for event in build.events:
        assert type(event).model_validate_json(event.model_dump_json()) == event
    harness.check_views(build)


def test_a_file_holding_only_a_byte_order_mark_is_not_a_log(tmp_path: Path) -> None:
    for bom in (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"):
        path = tmp_path / "empty.log"
        path.write_bytes(bom)
        with pytest.raises(InputError, match="byte-order mark"):
            trtlog.parse(path)
        assert main(["lint", str(path)]) == 2  # an empty capture must not pass a CI gate


def test_dollar_signs_in_names_are_shown_not_read_as_maths() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from trtlog import plots

    path = (
        Path(__file__).parents[2]
        / "fixtures/logs/trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
    )
    text = path.read_text(encoding="utf-8").replace("/model", "$x^2$/mo$\\frac{del")
    build = trtlog.parse_text(text)
    for plot, frame in [
        (plots.plot_layer_counts, build.layer_counts_frame()),
        (plots.plot_tactic_timing, build.tactics_frame()),
        (plots.plot_slowest_tactics, build.tactics_frame()),
        (plots.plot_memory_by_stage, build.memory_frame()),
    ]:
        fig, ax = plt.subplots()
        plot(frame, ax=ax)
        fig.savefig(io.BytesIO(), format="png")  # mathtext raised ValueError here
        labels = [t.get_text() for t in (*ax.get_xticklabels(), *ax.get_yticklabels())]
        assert all("$" not in t.replace("\\$", "") for t in labels), labels
        plt.close(fig)


def test_summary_of_the_last_run_with_builder_rounds() -> None:
    """IndexError: a one-run view asked for its run by the file's index."""
    root = Path(__file__).parents[2] / "fixtures/logs"
    text = (root / "trt8.6-like_orin-dla-fallback_build-verbose.log").read_text(encoding="utf-8")
    text += (root / "trt10.16-like_three-rounds_build-verbose.log").read_text(encoding="utf-8")
    from trtlog.summary import summarize

    build = trtlog.parse_text(text)
    assert len(build.runs) == 2
    assert summarize(build).to_text()


# bench/fuzz.py (lead's campaign, seed 7): a garbled "Parsing node" line leaves a node that
# the ONNX data flow names only as a consumer; the merge graph's inference looked it up
GARBLED_PARSING_NODE = (
    "Input filename:   model.onnx\n"
    "ONNX IR version:  0.0.4\n"
    "Opset version:    9\n"
    "Producer name:    pytorch\n"
    "Producer version: 1.3\n"
    "Domain:           \n"
    "Model version:    0\n"
    "Doc string:       \n"
    "----------------------------------------------------------------\n"
    "[TensorRT] VERBOSE: ModelImporter.cpp:202: Adding ne\rtwork input: input with dtype: float32, dimensions: (1, 3, 224, 224)\n"  # noqa: E501
    "[TensorRT] VERBOSE: ImporterContext.hpp:97: Registering tensor: input for ONNX tensor: input\n"
    "[TensorRT] VERBOSE: ModelImporter.cpp:90: Importing initializer: conv1.weight\n"
    "[TensorRT] VERBOSE: ModelImporter.cpp:107: Pa\x00rsing node: conv1 [Conv]\n"
    "[TensorRT] VERBOSE: ModelImporter.cpp:123: Searching for input: input\n"
    "[TensorRT] VERBOSE: ModelImporter.cpp:123: Searching for input: conv1.weight\n"
    "[TensorRT] VERBOSE: ModelImporter.cpp:129: conv1 [Conv] inputs: [input -> (1, 3, 224, 224)], [conv1.weight -> (64, 3, 7, 7)], \n"  # noqa: E501
    "[TensorRT] VERBOSE: builtin_op_importers.cpp:442: Convolution input dimensions: (1, 3, 224, 224)\n"  # noqa: E501
    "[TensorRT] VERBOSE: ImporterContext\x0b.hpp:116: Registering layer: conv1 \x1ffor ONNX node: conv1\n"  # noqa: E501
    "[TensorRT] VERBOSE: builtin_op_importers.cpp:523: Convolution output dimensions: (1, 64, 112, 112)\n"  # noqa: E501
    "[TensorRT] VERBOSE: ImporterCont"
)


def test_a_consumer_without_its_parsing_node_line_keeps_the_graph_whole() -> None:
    harness.check_log_text(GARBLED_PARSING_NODE)
    build = trtlog.parse_text(GARBLED_PARSING_NODE)
    assert "onnx:conv1" not in build.merge_graph().nodes


def test_a_format_that_is_not_text_takes_the_general_engine_path(tmp_path: Path) -> None:
    """bench/fuzz.py (seed 7): a dict as ``Format/Datatype`` broke the fast path's lookup."""
    tensor = {"Name": "x", "Location": "Device", "Dimensions": [1, 4]}
    path = tmp_path / "e.json"
    layers = [
        {"Name": "a", "LayerType": "Shuffle", "Inputs": [{**tensor, "Format/Datatype": {"N": 1}}]},
        {
            "Name": "b",
            "LayerType": "Shuffle",
            "Inputs": [{**tensor, "Datatype": ["FP16"], "Format": "Row major linear"}],
        },
    ]
    path.write_text(json.dumps({"Layers": layers}), encoding="utf-8")
    harness.check_json(path.read_bytes())
    with pytest.warns(Warning):
        engine = trtlog.load_engine(path)
    assert [layer.name for layer in engine.layers] == ["a", "b"]


def test_a_vector_width_past_int_s_digit_limit_is_an_unknown_clause(tmp_path: Path) -> None:
    """bench/fuzz.py (seed 42): ``where channel % <4,400 digits> == 0`` in a layer's format
    raised ``ValueError`` from ``int()`` while the engine loaded."""
    from trtlog.tensors import parse_format

    width = "7" * 4400
    text = f"Channel major FP16 format where channel % {width} == 0"
    assert (parse_format(text).dtype, parse_format(text).layout) == ("FP16", None)
    assert parse_format("Channel major FP16 format where channel % 8 == 0").layout == "hwc8"
    tensor = {"Name": "x", "Location": "Device", "Dimensions": [1, 4], "Format/Datatype": text}
    path = tmp_path / "e.json"
    layer = {"Name": "a", "LayerType": "Shuffle", "Inputs": [tensor], "Outputs": []}
    path.write_text(json.dumps({"Layers": [layer]}), encoding="utf-8")
    harness.check_json(path.read_bytes())
    [tensor_read] = trtlog.load_engine(path).layers[0].inputs
    assert (tensor_read.format, tensor_read.dtype, tensor_read.layout) == (text, "FP16", None)


# bench/fuzz.py seed 26 on the merged tree of 2026-11-26, reduced to two lines: a node's
# inputs line without its "Parsing node" line, and a constant registered as a layer
READER_WITHOUT_NODE = (
    "[01/10/2024-21:52:52] [V] [TRT] /q/QuantizeLinear [QuantizeLinear] inputs: "
    "[images -> (1, 3, 640, 960)[FLOAT]], [/q/Constant_2_output_0 -> ()[FLOAT]], "
    "[/q/Constant_1_output_0 -> ()[INT8]], \n"
    "[01/10/2024-21:52:52] [V] [TRT] Registering layer: /q/Constant_1_output_0 "
    "for ONNX node: /q/Constant_1_output_0\n"
)


def test_a_reader_named_only_by_its_inputs_line_keeps_the_graph_whole() -> None:
    harness.check_log_text(READER_WITHOUT_NODE)
    graph = trtlog.parse_text(READER_WITHOUT_NODE).merge_graph()
    assert "onnx:/q/QuantizeLinear" not in graph.nodes
    assert "onnx:/q/Constant_1_output_0" in graph.nodes


def test_a_mangled_format_is_not_a_format() -> None:
    """A stride that is not an integer made a hot reformat row fail when its event was built.

    bench/fuzz.py (seed 41) found ``Float(1:32,\\x11,1)``: the grammar's FORMAT took any text
    in the parentheses, so the scanner kept the line as a hot row and building its event raised
    ``ValueError`` (the line-by-line path makes such a line unrecognized). FORMAT now says what
    a format holds: integers, negative for a dynamic dimension, one of them ``n:width``.
    """
    stars = "*" * 15
    good = f"{ENV}{stars} Autotuning Reformat: Float(1,1,1) -> Float(1:32,-1,1) {stars}\n"
    bad = good.replace("-1,1)", "\x11,1)")
    text = (good * 40) + bad + (good * 40)
    build = harness.check_log_text(text)
    assert build is not None
    kinds = [e.kind for e in build.events]
    assert kinds.count("autotune_reformat") == 80 and kinds[40] == "unrecognized"
    fresh = trtlog.parse_text(text)
    assert fresh.counts() == {"autotune_reformat": 80, "unrecognized": 1}
    assert [e.kind for e in fresh.events] == kinds


def test_a_name_of_hundreds_of_parts_through_every_command() -> None:
    """A layer and ONNX node of 600 ``/``-parts: ``report`` raised RecursionError (the page's
    module tree, nested one level per part, was encoded by recursion)."""
    deep = "".join(f"/m{i}" for i in range(600)) + "/Conv"
    layer = {"Name": deep, "LayerType": "Convolution", "Metadata": f"[ONNX Layer: {deep}]"}
    data = json.dumps({"Layers": [layer], "Bindings": []}).encode()
    assert harness.check_cli(data, suffix=".json")[-1] == 0  # (the report)


def test_a_device_value_past_the_digit_limit() -> None:
    """The 2026-12-07 campaign (seed 3536): a device property of 4,400 digits raised
    ValueError from ``int()``; its number is missing and its text kept."""
    text = (
        "[07/07/2026-02:11:40] [I] === Device Information ===\n"
        "[07/07/2026-02:11:40] [I] Selected Device: NVIDIA H100 PCIe\n"
        f"[07/07/2026-02:11:40] [I] Application Memory Clock Rate: {BIG} GHz\n"
    )
    build = harness.check_log_text(text)
    assert build is not None
    (event,) = [
        e for e in build.events if getattr(e, "key", None) == "Application Memory Clock Rate"
    ]
    assert event.kind == "device_kv"
    assert event.value == f"{BIG} GHz" and event.number is None
