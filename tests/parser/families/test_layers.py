"""The layers family: multi-line engine layer listings and inspector dumps, list splitting."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from trtlog.events import EVENT_CLASSES, Event
from trtlog.events.layers import EngineLayerInfo, InspectorRecord
from trtlog.names import ComposedName, parse_metadata
from trtlog.parser.families.layers import (
    parse_parameters,
    split_engine_io,
    split_engine_tensors,
    split_inspector_tensors,
)
from trtlog.parser.source import open_lines
from trtlog.parser.stream import LogParser

LOG = FIXTURES / "logs" / "layers_dumps_synthetic.log"


def _events(path: Path, *, compiled: bool = True) -> list[Event]:
    return list(LogParser(compiled=compiled).run(open_lines(path).lines))


def _parse_text(text: str, *, compiled: bool = True) -> list[Event]:
    return list(LogParser(compiled=compiled).run(text.splitlines(keepends=True)))


# -- the fixture log -------------------------------------------------------------------------


def test_fixture_log_kinds_and_spans() -> None:
    events = _events(LOG)
    kinds = [(e.span[0], e.kind) for e in events]
    assert kinds == [
        (1, "engine_generated"),
        (2, "engine_layer_info_header"),
        (3, "engine_layer_info"),
        (4, "engine_layer_info"),
        (5, "engine_layer_info"),
        (6, "memory_snapshot"),  # an enveloped line ends the one-message listing
        (7, "engine_layers_detailed"),
        (8, "inspector_record"),
        (9, "inspector_record"),  # the head of a record a paste wrapped (T7)
        (10, "unrecognized"),  # its tail is not a layer name
        (11, "engine_built"),
        (12, "layer_info_dump"),
        (13, "layer_names_only_notice"),  # a library line between the two headers (§K.2)
        (14, "inspector_layers_header"),
        (15, "inspector_layer_name"),
        (16, "inspector_layer_name"),
        (17, "unrecognized"),  # the blank line before "Bindings:"
        (18, "inspector_bindings_header"),
        (19, "inspector_binding"),
        (20, "inspector_binding"),
        (21, "inference_start"),
        (22, "unrecognized"),  # bare lines after the dump are not bindings
        (23, "run_end"),
    ]


def test_fixture_log_records_inherit_the_header_severity() -> None:
    by_line = {e.span[0]: e for e in _events(LOG)}
    assert by_line[3].severity == "verbose"
    assert by_line[8].severity == "verbose"
    assert by_line[15].severity == "info"


def test_fixture_log_compiled_agrees_with_lark_and_revalidates() -> None:
    fast = _events(LOG)
    slow = _events(LOG, compiled=False)
    assert fast == slow
    for event in fast:
        assert EVENT_CLASSES[event.kind].model_validate(event.model_dump()) == event


def test_fixture_log_layer_values() -> None:
    by_line = {e.span[0]: e for e in _events(LOG)}
    topk = by_line[5]
    assert isinstance(topk, EngineLayerInfo)
    assert topk.tactic == 1001
    assert [t.name for t in topk.outputs] == [
        "(Unnamed Layer* 48) [TopK]_output_1",
        "(Unnamed Layer* 48) [TopK]_output_2",
    ]
    assert [t.dtype for t in topk.outputs] == ["FP32", "INT32"]
    gemm = by_line[8]
    assert isinstance(gemm, InspectorRecord)
    assert gemm.layer_type == "gemm"
    assert gemm.tactic is None
    assert gemm.stream_id == 0
    assert gemm.onnx_layers == ("/encoder/layers.0/mha/output/dense/MatMul",)
    name = gemm.names()["layer"]
    assert isinstance(name, ComposedName)
    assert name.op == "myelin"


# -- continuations ---------------------------------------------------------------------------

_HEADER = "[01/29/2022-15:09:41] [V] [TRT] Engine Layer Information:\n"
_LAYER = "Layer(NoOp): x, Tactic: 0, a[Float(1)] -> b[Float(1)]\n"
_HOT = "[01/29/2022-15:09:41] [V] [TRT] Tactic: 0x0000000000000000 Time: 0.1\n"


@pytest.mark.parametrize("compiled", [True, False])
def test_enveloped_line_ends_the_listing(compiled: bool) -> None:
    # after the listing, a bare "Layer(" line is a pasted layer line (no severity), not a
    # record of the listing; the hot-path line in between must close the continuation
    text = _HEADER + _LAYER + _HOT + _LAYER
    events = _parse_text(text, compiled=compiled)
    assert [e.kind for e in events] == [
        "engine_layer_info_header",
        "engine_layer_info",
        "tactic_timing",
        "engine_layer_info",
    ]
    assert [e.severity for e in events] == ["verbose", "verbose", "verbose", None]


def test_seven_x_listing_has_an_envelope_on_every_line() -> None:
    text = (
        "[TensorRT] VERBOSE: Engine Layer Information:\n"
        "[TensorRT] VERBOSE: Layer(FusedConvActDirect): conv1, Tactic: -1, data[Float(3,32,32)]"
        " -> c1[Float(6,28,28)]\n"
        "[TensorRT] VERBOSE: Layer(PoolingTiled): pool1, Tactic: 5505281, c1[Float(6,28,28)]"
        " -> p1[Float(6,14,14)]\n"
    )
    events = _parse_text(text)
    assert [e.kind for e in events] == ["engine_layer_info_header"] + ["engine_layer_info"] * 2
    assert isinstance(events[1], EngineLayerInfo)
    assert events[1].tactic == (1 << 64) - 1


def test_builder_layers_dump_outside_layer_information() -> None:
    text = (
        "[11/01/2024-10:32:57] [V] [TRT] Layers:\n"
        "Name: /f/Conv, LayerType: CaskConvolution, Inputs: [ { Name: x, Location: Device, "
        "Dimensions: [1,3,224,224], Format/Datatype: Half }], Outputs: [ { Name: y, Location: "
        "Device, Dimensions: [1,64,55,55], Format/Datatype: Half }], TacticValue: "
        "0x280b0ad3c23d8442, StreamId: 0, Metadata: [ONNX Layer: /f/Conv]\n"
    )
    events = _parse_text(text)
    assert [e.kind for e in events] == ["engine_layers_detailed", "inspector_record"]


def test_layer_information_section_ends_at_layers() -> None:
    text = (
        "[08/20/2024-19:31:54] [I] Layer Information:\n"
        "[08/20/2024-19:31:54] [I] Layers:\n"
        "a\n"
        "[08/20/2024-19:31:55] [V] [TRT] Layers:\n"
        "b\n"
    )
    events = _parse_text(text)
    assert [e.kind for e in events] == [
        "layer_info_dump",
        "inspector_layers_header",
        "inspector_layer_name",
        "engine_layers_detailed",
        "inspector_layer_name",
    ]


# -- list splitting --------------------------------------------------------------------------


def test_engine_tensors_with_hostile_names() -> None:
    tensors = split_engine_tensors(
        "PWN(a, b)[Half(1,2)], {ForeignNode[x...y]} (Int8[4,72:32,128,192]), c"
    )
    assert [t.name for t in tensors] == ["PWN(a, b)", "{ForeignNode[x...y]}", "c"]
    assert tensors[1].vector == (1, 32)
    assert tensors[1].vector_width == 32
    assert tensors[1].element_bits == 8
    assert tensors[2].dtype is None  # a truncated paste keeps the name


def test_engine_io_arrow_inside_a_name() -> None:
    inputs, outputs = split_engine_io(" Optimizer Reformat(a -> b)[Float(1)] -> c (Float[])")
    assert [t.name for t in inputs] == ["Optimizer Reformat(a -> b)"]
    assert outputs[0].name == "c"
    assert outputs[0].dims == ()


def test_engine_io_empty_sides() -> None:
    assert split_engine_io("  -> y (Float[1])")[0] == ()
    assert split_engine_io(" -> y[Float(1)]")[0] == ()
    inputs, outputs = split_engine_io(" x[Float(1)] ->")
    assert [t.name for t in inputs] == ["x"]
    assert outputs == ()


def test_inspector_tensors() -> None:
    assert split_inspector_tensors("[]") == ()
    tensors = split_inspector_tensors(
        "[ { Name: a, b }, Location: Device, Dimensions: [1,16,8,8], Format/Datatype: Channel "
        "major FP16 format where channel % 8 == 0 }, { Name: c, Dimensions: [], "
        "Format/Datatype: Bool }]"
    )
    assert [t.name for t in tensors] == ["a, b }", "c"]
    assert tensors[0].location == "Device"
    assert tensors[0].layout == "hwc8"
    assert tensors[0].vector == (1, 8)
    assert tensors[1].dims == ()
    assert tensors[1].location is None
    assert tensors[1].dtype == "BOOL"


def test_inspector_tensor_without_format() -> None:
    (tensor,) = split_inspector_tensors("[ { Name: x, Location: Device, Dimensions: [-1,3] }]")
    assert tensor.dims == (-1, 3)
    assert tensor.format is None
    assert tensor.dtype is None


def test_parameters_split_only_at_top_level() -> None:
    params = parse_parameters(
        'Operations: ["auto a = f(x, y);", "b, Key: c"], Mode: kX, Scale: 0.5, Power: inf, '
        'Nested: {"A": [1, {"B": null}]}, Broken: [1,2'
    )
    assert params == (
        ("Operations", ("auto a = f(x, y);", "b, Key: c")),
        ("Mode", "kX"),
        ("Scale", 0.5),
        ("Power", float("inf")),
        ("Nested", (("A", (1, (("B", None),))),)),
        ("Broken", "[1,2"),
    )


def test_parameters_escaped_quotes() -> None:
    params = parse_parameters('A: ["x\\"], B: 1", "y"], C: 2')
    assert params == (("A", ('x"], B: 1', "y")), ("C", 2))


def test_parameters_without_a_key() -> None:
    assert parse_parameters("oops") == (("", "oops"),)


def test_metadata_separators() -> None:
    names, extras = parse_metadata(
        "[ONNX Layer: a]\x1e[ONNX Layer: b]\x1f[ONNX Layer: c][ONNX Layer: d]\ufffd[ONNX Layer: e]"
    )
    assert names == ("a", "b", "c", "d", "e")
    assert extras == ()


def test_metadata_extras_and_truncation() -> None:
    names, extras = parse_metadata(
        "[ONNX Layer: a | line 1 | line 2 | Local Function: F]\x1e[ONNX Layer: b ... z]"
    )
    assert names == ("a", "b ... z")
    assert extras == ((0, ("line 1", "line 2"), "F"),)
    assert parse_metadata("") == ((), ())


def test_record_parameter_lookup() -> None:
    events = _parse_text(
        "Name: c, LayerType: CaskConvolution, Inputs: [], Outputs: [], ParameterType: "
        'Convolution, Kernel: [3,3], Weights: {"Type": "Int8", "Count": 864}, TacticName: , '
        "TacticValue: 0x00000000000003e8\n"
        "[I] [TRT] anything\n"
    )
    record = events[0]
    assert isinstance(record, InspectorRecord)
    assert record.parameter("Kernel") == (3, 3)
    assert record.parameter("Weights") == (("Type", "Int8"), ("Count", 864))
    assert record.parameter("Missing") is None
    assert record.tactic_name == ""
    assert record.tactic == 1000


# -- a dump pasted into markdown -------------------------------------------

RECORD = (
    "Name: /f/Conv, LayerType: CaskConvolution, Inputs: [ { Name: x, Location: Device, "
    "Dimensions: [1,3,224,224], Format/Datatype: Half }], Outputs: [ { Name: y, Location: "
    "Device, Dimensions: [1,64,55,55], Format/Datatype: Half }], TacticValue: "
    "0x280b0ad3c23d8442, StreamId: 0, Metadata: [ONNX Layer: /f/Conv]"
)

PASTED = f"""\
The build finishes, but the engine is slow. Here is the end of the log:

```
[11/01/2024-10:32:57] [V] [TRT] Layers:
{RECORD}
{RECORD.replace("/f/Conv", "/g/Conv")}
```

Why are the two convolutions not fused?
Thanks in advance
"""


@pytest.mark.parametrize("compiled", [True, False])
def test_a_pasted_dump_ends_at_the_code_fence(compiled: bool) -> None:
    events = _parse_text(PASTED, compiled=compiled)
    kinds = [(e.span[0], e.kind) for e in events]
    assert kinds == [
        (1, "unrecognized"),
        (2, "unrecognized"),
        (3, "unrecognized"),
        (4, "engine_layers_detailed"),
        (5, "inspector_record"),
        (6, "inspector_record"),
        (7, "unrecognized"),  # the closing fence is not a layer
        (8, "unrecognized"),
        (9, "unrecognized"),  # nor is the prose after it
        (10, "unrecognized"),
    ]


def test_a_pasted_dump_gives_only_its_layers() -> None:
    import trtlog

    engine = trtlog.parse_text(PASTED).engine
    assert engine is not None
    assert [(lay.name, lay.type) for lay in engine.layers] == [
        ("/f/Conv", "CaskConvolution"),
        ("/g/Conv", "CaskConvolution"),
    ]


def test_an_indented_dump_ends_where_the_indentation_does() -> None:
    """A dump of records ends at the first line that is not a record, even without a fence
    (a 4-space code block, T6); a names-only dump ends at a fence."""
    indented = f"    [11/01/2024-10:32:57] [V] [TRT] Layers:\n    {RECORD}\nWhy is it slow?\n"
    assert [e.kind for e in _parse_text(indented)] == [
        "engine_layers_detailed",
        "inspector_record",
        "unrecognized",
    ]
    names = (
        "```\n"
        "[05/04/2024-11:18:46] [I] Layer Information:\n"
        "[05/04/2024-11:18:46] [I] Layers:\n"
        "conv1 + relu1\n"
        "pool1\n"
        "```\n"
        "Bindings are missing from my paste.\n"
    )
    assert [e.kind for e in _parse_text(names)] == [
        "unrecognized",
        "layer_info_dump",
        "inspector_layers_header",
        "inspector_layer_name",
        "inspector_layer_name",
        "unrecognized",
        "unrecognized",
    ]
