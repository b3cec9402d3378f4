"""The command line, in process (main(argv)) and once as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.cli import main

YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"


def test_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(YOLO)]) == 0
    out = capsys.readouterr().out
    assert "755 (Original) -> 153" in out
    assert "QuantizeDoubleInputNodes" in out


def test_summary_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(YOLO), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["layer_counts"][0] == {"stage": "Original", "layers": 755, "line": 123}
    assert data["fusions_by_pass"]["QuantizeDoubleInputNodes"] == 6


@pytest.mark.parametrize("fmt", ["table", "json", "jsonl", "csv"])
def test_events_formats(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert main(["events", str(YOLO), "--kind", "fusion", "--format", fmt]) == 0
    out = capsys.readouterr().out
    fusing = YOLO.read_text(encoding="utf-8").count(": Fusing ")
    if fmt == "json":
        assert len(json.loads(out)) == fusing
    elif fmt == "jsonl":
        assert len(out.splitlines()) == fusing
    elif fmt == "csv":
        assert len(out.splitlines()) == fusing + 1
    else:
        assert len(out.splitlines()) == fusing + 2


def test_events_unknown_kind(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", str(YOLO), "--kind", "nonsense"]) == 2
    assert "unknown event kind 'nonsense'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"\x00\x01\x02binary", "binary"), (b'{"Layers": []}', "JSON")],
)
def test_bad_input_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(content)
    assert main(["summary", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "summary" in capsys.readouterr().err


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(YOLO.read_bytes())))
    assert main(["events", "-", "--kind", "layer_count", "--format", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5


def test_entry_point_subprocess() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "trtlog", "summary", str(YOLO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "TensorRT" in result.stdout or "layers" in result.stdout


LAYER_INFO = FIXTURES / "layer_info"
RESNET18 = LAYER_INFO / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json"
RESNET18_PROFILE = LAYER_INFO / "resnet18_synthetic.profile.json"
BERT_LOG = FIXTURES / "logs" / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log"


def test_layers_json_with_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layers", str(RESNET18), "--profile", str(RESNET18_PROFILE)]) == 0
    out = capsys.readouterr().out
    table = out.split("\n\n")[0].splitlines()
    assert table[0].split()[:4] == ["index", "name", "type", "precision"]
    assert len(table) == 2 + 25
    assert "25 layers, 0.472 ms per inference" in out


def test_layers_group_by_precision_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["layers", str(RESNET18), "--profile", str(RESNET18_PROFILE)]
    assert main([*args, "--group-by", "precision", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sum(r["layers"] for r in rows) == 25
    assert sum(r["time_ms"] for r in rows) == pytest.approx(0.472, abs=1e-6)
    assert sum(r["percentage"] for r in rows) == pytest.approx(100)
    assert "INT8" in {r["precision"] for r in rows}


@pytest.mark.parametrize("group_by", ["type", "module"])
def test_layers_group_by_csv(capsys: pytest.CaptureFixture[str], group_by: str) -> None:
    assert main(["layers", str(RESNET18), "--group-by", group_by, "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{group_by},layers,time_ms")
    assert sum(int(x.split(",")[1]) for x in lines[1:]) == 25


def test_layers_from_log_grouped_by_myelin(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layers", str(BERT_LOG), "--group-by", "myelin", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["kernels"] == 88  # the 89th layer is not a Myelin kernel
    assert row["kernel_types"] == "kgen:39, gemm:36, fusion:13"


def test_layers_log_without_dump_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "build.log"
    log.write_text("[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers\n")
    assert main(["layers", str(log)]) == 2
    err = capsys.readouterr().err
    assert "no layer dump" in err and "--exportLayerInfo" in err
    assert "Traceback" not in err


def test_layers_profile_of_another_model_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.profile.json"
    other.write_text(
        '[{"count": 1}, {"name": "x", "timeMs": 1, "averageMs": 1, "percentage": 100}]'
    )
    assert main(["layers", str(RESNET18), "--profile", str(other)]) == 0
    out = capsys.readouterr().out
    assert "note:" in out and "match no layer" in out


def test_explain_overview(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(YOLO)]) == 0
    out = capsys.readouterr().out
    # the two Constant scales of the input quantizer (lines 103-105) are folded: none is
    # unexplained any more
    assert out.startswith(
        "3 final layers (from the log's layer dump); 3 ONNX nodes: 2 folded, 1 fused"
    )
    assert "QConvScaleFusion" in out and "unexplained" not in out


def test_explain_node_and_layer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(YOLO), "--node", "/model/backbone0/bn/BatchNormalization"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "/model/backbone0/bn/BatchNormalization: fused"
    assert "by QConvScaleFusion (line 189)" in out
    layer = "/model/backbone0/conv/_input_quantizer/QuantizeLinear"
    assert main(["explain", str(YOLO), "--layer", layer, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    zero_point = "/model/backbone0/conv/_input_quantizer/Constant_1_output_0"
    assert data["onnx_nodes"] == [layer, zero_point]
    assert data["ops"] == ["QuantizeLinear", "Constant"]
    assert main(["explain", str(YOLO), "--layer", "nope"]) == 2
    assert "no layer named 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".graphml", ".json", ".dot"])
def test_graph_export(tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    out = tmp_path / f"g{suffix}"
    assert main(["graph", str(YOLO), "-o", str(out), "--match", "backbone0/bn"]) == 0
    assert out.stat().st_size > 200
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    assert main(["graph", str(YOLO), "-o", str(tmp_path / "g.png")]) == 2


@pytest.mark.parametrize(
    ("kind", "source"),
    [
        ("layer-counts", YOLO),
        ("fusions", YOLO),
        ("tactics", YOLO),
        ("slowest-tactics", YOLO),
        ("memory", YOLO),
        ("time-by", RESNET18),
        ("modules", RESNET18),
    ],
)
def test_plot_kinds_write_images(tmp_path: Path, kind: str, source: Path) -> None:
    out = tmp_path / f"{kind}.png"
    assert main(["plot", kind, str(source), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_time_by_precision_svg(tmp_path: Path) -> None:
    out = tmp_path / "p.svg"
    args = [
        "plot",
        "time-by",
        str(RESNET18),
        "--profile",
        str(RESNET18_PROFILE),
        "--by",
        "precision",
    ]
    assert main([*args, "-o", str(out)]) == 0
    text = out.read_text()
    assert text.lstrip().startswith("<?xml") and "Time by layer precision" in text


def test_summary_lists_only_the_stages_that_changed_the_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stages = [("Original", 9), ("After dead-layer removal", 9), ("After vertical fusions", 5)]
    stages += [("After tensor merging", 5), ("After reformat layers", 6)]
    log = tmp_path / "stages.log"
    log.write_text(
        "".join(f"[01/10/2024-21:52:52] [V] [TRT] {s}: {n} layers\n" for s, n in stages),
        encoding="utf-8",
    )
    assert main(["summary", str(log)]) == 0
    out = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert "9  Original" in out and "5  vertical fusions" in out and "6  reformat layers" in out
    assert not any(line.endswith("dead-layer removal") for line in out)
    assert "(2 stage(s) that changed nothing not shown)" in out
    assert main(["summary", str(log), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["stage"] for c in data["layer_counts"]][1] == "dead-layer removal"


def test_summary_counts_only_quantization_type_swaps() -> None:
    from trtlog.summary import summarize

    head = "[01/10/2024-21:52:53] [V] [TRT] Swap the layer type of "
    plain = trtlog.parse_text(head + "fc1 + relu from ELEMENTWISE to POINTWISE\n")
    assert summarize(plain).qdq_events == 0
    quant = trtlog.parse_text(plain.to_text() + head + "/q/QuantizeLinear from QUANTIZE to kQDQ\n")
    assert summarize(quant).qdq_events == 1


RUNNING = "&&&& RUNNING TensorRT.trtexec [TensorRT v8203] # trtexec --onnx=model.onnx\n"


def test_summary_of_a_silent_failure_says_how_far_it_got() -> None:
    from trtlog.summary import summarize

    text = RUNNING + (
        "[05/07/2022-06:13:10] [I] Start parsing network model\n"
        "[05/07/2022-06:13:10] [I] Finish parsing network model\n"
        "[05/07/2022-06:13:10] [V] [TRT] Registered plugin creator - ::NMS_TRT version 1\n"
        "&&&& FAILED TensorRT.trtexec [TensorRT v8203] # trtexec --onnx=model.onnx\n"
    )
    summary = summarize(trtlog.parse_text(text))
    assert summary.status == "failed" and summary.errors == 0
    # the last line the run reached, whatever its severity
    assert summary.stopped_after is not None
    assert summary.stopped_after.startswith("line 4: ")
    assert summary.stopped_after.endswith("Registered plugin creator - ::NMS_TRT version 1")
    assert summary.last_line is None
    assert "stopped after" in summary.to_text()


def test_summary_of_a_crash_shows_the_last_line() -> None:
    from trtlog.summary import summarize

    text = RUNNING + (
        "[01/10/2022-05:13:50] [I] [TRT] Local timing cache in use. Profiling results in this "
        "builder pass will not be stored.\n"
        "[01/10/2022-05:13:52] [V] [TRT] --------------- Timing Runner: conv1 (CaskConvolution)\n"
        'trtexec: graph.cpp:1059: host_tensor_const: Assertion `0 && "Unsupported type"\' failed.\n'
    )
    summary = summarize(trtlog.parse_text(text))
    assert summary.status == "no &&&& result line (crashed or cut off)"
    assert summary.stopped_after is not None
    assert summary.stopped_after.startswith("line 3: [01/10/2022-05:13:52] [V] [TRT] ---")
    assert summary.last_line is not None and "Assertion" in summary.last_line
    assert summary.last_line.startswith("line 4: ")
    assert summary.errors == 1  # the assert() on stderr is an error without envelope


def test_summary_of_a_passed_run_has_no_failure_rows() -> None:
    from trtlog.summary import summarize

    passed = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
    summary = summarize(trtlog.parse(passed))
    assert summary.status == "passed"
    assert summary.stopped_after is None and summary.last_line is None
    # the seed is an excerpt: its banner has no result line, and the summary says so
    excerpt = summarize(trtlog.parse(YOLO))
    assert excerpt.status == "no &&&& result line (crashed or cut off)"
    assert excerpt.stopped_after is not None and excerpt.stopped_after.startswith("line 286: ")


def test_summary_of_a_log_without_run_banners_claims_no_failure() -> None:
    from trtlog.summary import summarize

    text = "[TRT] [I] [MemUsageChange] Init CUDA: CPU +2, GPU +0, now: CPU 16, GPU 1234 (MiB)\n"
    summary = summarize(trtlog.parse_text(text))
    assert summary.status is None
    assert summary.stopped_after is None and summary.last_line is None


REPAIRED_LAYERS = """{"Layers": [{"Name": "conv1", "LayerType": "CaskConvolution", "OutMaps": inf,
 "Inputs": [], "Outputs": [], "TacticValue": "0x1"}]}"""


@pytest.mark.parametrize("quiet", [False, True])
def test_library_warnings_show_as_one_trtlog_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quiet: bool
) -> None:
    """A repaired JSON warns as one ``trtlog: warning:`` line, not Python's file:line; -q hides."""
    path = tmp_path / "layers.json"
    path.write_text(REPAIRED_LAYERS, encoding="utf-8")
    assert main([*(["-q"] if quiet else []), "layers", str(path)]) == 0
    err = capsys.readouterr().err
    if quiet:
        assert err == ""
    else:
        assert err.splitlines() == [
            f"trtlog: warning: {path}: read as JSON after repairing what trtexec writes: "
            "1 nan/inf number(s)"
        ]


def test_summary_and_tactics_plot_agree_on_a_5_6_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = FIXTURES / "logs" / "trt6-like_legacy-timing_build-verbose.log"
    from trtlog.summary import summarize

    assert main(["summary", str(log)]) == 0
    assert "6 timed for 2 layer(s)" in capsys.readouterr().out
    # 6 "Tactic <id> time <t>" lines over 2 layers (pool1's only tactic was not timed),
    # 3 "Chose" lines
    summary = summarize(trtlog.parse(log))
    assert (summary.tactics_timed, summary.layers_timed, summary.runners_chosen) == (6, 2, 3)
    import matplotlib.pyplot as plt

    from trtlog.plots import plot_slowest_tactics, plot_tactic_timing

    frame = trtlog.parse(log).tactics_frame()
    ax = plot_tactic_timing(frame)
    assert not any("no tactic timings" in t.get_text() for t in ax.texts)
    assert len(ax.get_xticklabels()) == 2  # pool1 was not timed (only option)
    ax = plot_slowest_tactics(frame)
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "fc1 [runner 5]",
        "conv1 + relu1 [runner 14]",
    ]
    plt.close("all")
    assert main(["plot", "tactics", str(log), "-o", str(tmp_path / "t.png")]) == 0


# -- crashes become one clear line and exit 2 ----------------------------


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("trtlog: error: "), err
    return lines[0]


def test_plot_to_an_unknown_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.xyz"
    assert main(["plot", "fusions", str(YOLO), "-o", str(out)]) == 2
    line = _one_error_line(capsys)
    assert "'.xyz'" in line and ".png" in line and ".svg" in line
    assert main(["plot", "fusions", str(YOLO), "-o", str(tmp_path / "noext")]) == 2
    assert "no extension" in _one_error_line(capsys)
    assert not out.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["plot", "fusions", str(YOLO), "-o", "{d}/missing/x.png"],
        ["graph", str(YOLO), "-o", "{d}/missing/g.graphml"],
    ],
    ids=["plot", "graph"],
)
def test_output_into_a_missing_folder(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.format(d=tmp_path) for a in argv]
    assert main(argv) == 2
    line = _one_error_line(capsys)
    assert f"{tmp_path}/missing" in line and "does not exist" in line


def test_graph_with_a_bad_regex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(YOLO), "-o", str(tmp_path / "g.json"), "--match", "(["]) == 2
    line = _one_error_line(capsys)
    assert "--match '(['" in line and "not a valid regular expression" in line


def test_graph_queries_accept_an_engine_layer() -> None:
    build = trtlog.parse(YOLO)
    assert build.engine is not None
    layer = build.engine.layers[2]
    assert trtlog.provenance(build, layer) == trtlog.provenance(build, layer.name)
    assert trtlog.members(build, layer) == trtlog.members(build, layer.name)
    assert trtlog.fate(build, layer).final_layers == (layer.name,)
    with pytest.raises(TypeError, match=r"a name \(str\) or an EngineLayer, not int"):
        trtlog.fate(build, 5)  # type: ignore[arg-type]


def _any(value: object) -> Any:
    """A value of the wrong type, past the type checker (the call must refuse it)."""
    return value


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: trtlog.parse(_any(123)), r"trtlog\.parse takes a path"),
        (lambda: list(trtlog.iter_events(_any(5.0))), r"trtlog\.iter_events takes a path"),
        (lambda: trtlog.load_engine(_any(123)), r"load_times take a path to a JSON export"),
        (lambda: trtlog.load_profile(_any(None)), r"load_times take a path to a JSON export"),
        (
            lambda: trtlog.compare(_any(123), YOLO),
            r"trtlog\.compare takes a Build, an Engine or a path",
        ),
        (lambda: trtlog.lint(_any(123)), r"trtlog\.lint takes a Build, an Engine or a path"),
    ],
    ids=["parse", "iter_events", "load_engine", "load_profile", "compare", "lint"],
)
def test_wrong_input_types_name_what_is_accepted(call: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        call()


# -- the JSON load_engine reads, on the command line ----------------------


def _names(out: str) -> list[str]:
    table = out.split("\n\n")[0].splitlines()
    return [row.split()[1] for row in table[2:]]


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "gzip"])
def test_layers_reads_bom_utf16_and_gzip_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    import gzip

    text = RESNET18.read_text(encoding="utf-8")
    path = tmp_path / ("l.json.gz" if encoding == "gzip" else "l.json")
    if encoding == "gzip":
        path.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        path.write_bytes(text.encode(encoding))
    assert main(["layers", str(path)]) == 0
    assert main(["layers", str(RESNET18)]) == 0
    out, reference = capsys.readouterr().out.split("index", 2)[1:]
    assert out == reference and "\n" in out  # the same 25 rows
    assert trtlog.load_engine(path).layers == trtlog.load_engine(RESNET18).layers


def test_diff_and_lint_read_utf16_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "l.json"
    path.write_bytes(RESNET18.read_text(encoding="utf-8").encode("utf-16"))
    assert main(["diff", str(path), str(RESNET18), "--view", "summary"]) == 0
    assert "rows: = 25  ~ 0  - 0  + 0" in capsys.readouterr().out
    assert main(["lint", str(path), "--fail-on", "never"]) == 0


def test_layers_reads_json_on_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    data = RESNET18.read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert main(["layers", "-", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 25 and rows[0]["name"] == trtlog.load_engine(RESNET18).layers[0].name
    log = YOLO.read_bytes()  # a log on stdin is still a log
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(log), encoding="utf-8"))
    assert main(["layers", "-"]) == 0
    assert "CaskConvolution" in capsys.readouterr().out


def test_layers_of_a_profile_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layers", str(RESNET18_PROFILE)]) == 0
    out = capsys.readouterr().out
    assert "per-layer profile (--exportProfile): 25 records, 0.472 ms per inference" in out
    assert main(["layers", str(RESNET18_PROFILE), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 25
    assert sum(r["average_ms"] for r in rows) == pytest.approx(0.472, abs=1e-9)
    assert main(["layers", str(RESNET18_PROFILE), "--group-by", "type"]) == 2
    assert "a profile alone" in _one_error_line(capsys)
    assert main(["plot", "time-by", str(RESNET18_PROFILE), "-o", "/tmp/x.png"]) == 2
    assert "is a per-layer profile, not layers" in _one_error_line(capsys)


TIMES_JSON = CORPUS / "trt10.4_mobilenetv2-fp16-rtx3060_times.json"


@needs_corpus
def test_layers_of_a_timing_trace_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """trt10.4 MobileNetV2 times: 12,852 records (grep -c latencyMs), and by hand over the
    sorted latencyMs values: min 0.221191, median 0.232422, p99 0.241699 (trtexec leaves out
    the int(0.01 * 12852) = 128 largest), max 0.247559."""
    assert main(["layers", str(TIMES_JSON), "--format", "json"]) == 0
    rows = {r["measure"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"Latency", "H2D Latency", "GPU Compute Time", "D2H Latency"}
    latency = rows["Latency"]
    assert latency["count"] == 12852
    assert (latency["min_ms"], latency["median_ms"], latency["p99_ms"], latency["max_ms"]) == (
        0.221191,
        0.232422,
        0.241699,
        0.247559,
    )
    assert main(["layers", str(TIMES_JSON)]) == 0
    assert "timing trace (--exportTimes): 12852 inferences" in capsys.readouterr().out


PLACEMENT_ONLY = """\
[01/10/2024-21:52:53] [I] [TRT] ---------- Layers Running on DLA ----------
[01/10/2024-21:52:53] [I] [TRT] ---------- Layers Running on GPU ----------
[01/10/2024-21:52:53] [I] [TRT] [GpuLayer] COPY: \
/model/backbone0/conv/_input_quantizer/QuantizeLinear
[01/10/2024-21:52:53] [I] [TRT] [GpuLayer] CONVOLUTION: model.model.backbone0.conv.weight + \
/model/backbone0/conv/_weight_quantizer/QuantizeLinear + /model/backbone0/conv/Conv
[01/10/2024-21:52:53] [I] [TRT] [GpuLayer] CONVOLUTION: model.model.backbone1.conv.weight + \
/model/backbone1/conv/_weight_quantizer/QuantizeLinear + /model/backbone1/conv/Conv
"""


def test_layers_of_a_log_with_only_placement_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lines 244-248 of the yolov8 seed: three [GpuLayer] lines and no layer dump."""
    log = tmp_path / "placement.log"
    log.write_text(PLACEMENT_ONLY)
    assert main(["layers", str(log), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == [
        "/model/backbone0/conv/_input_quantizer/QuantizeLinear",
        "model.model.backbone0.conv.weight + /model/backbone0/conv/_weight_quantizer/"
        "QuantizeLinear + /model/backbone0/conv/Conv",
        "model.model.backbone1.conv.weight + /model/backbone1/conv/_weight_quantizer/"
        "QuantizeLinear + /model/backbone1/conv/Conv",
    ]
    assert main(["layers", str(log)]) == 0
    assert "placement lines" in capsys.readouterr().out


def test_quiet_and_verbose_after_the_subcommand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "p.json"
    broken.write_text(
        '[{"count": 1}, {"name": "a", "timeMs": nan, "averageMs": 1, "percentage": 1}]'
    )
    assert main(["layers", str(broken)]) == 0
    assert "trtlog: warning:" in capsys.readouterr().err
    assert main(["layers", str(broken), "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["-q", "layers", str(broken)]) == 0
    assert capsys.readouterr().err == ""
    assert main(["plot", "fusions", str(YOLO), "-o", str(tmp_path / "f.png"), "-q"]) == 0


def test_ctrl_c_exits_130_with_one_line() -> None:
    """Ctrl-C while a command reads its input: ``trtlog: interrupted`` and 130, no traceback
    (a real SIGINT to a real process, blocked reading standard input)."""
    import signal
    import time

    # A command started in the background by a non-interactive shell (``pytest ... &``, nohup)
    # inherits SIGINT ignored, and a Python started so never raises KeyboardInterrupt: the
    # process is started as from a terminal, with SIGINT at its default (a handler of this
    # process becomes the default in the child; an ignored signal stays ignored).
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        done = subprocess.Popen(
            [sys.executable, "-m", "trtlog", "summary", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert done.stdin is not None
        done.stdin.write("[I] [TRT] Original: 5 layers\n")  # and no end of input yet
        done.stdin.flush()
        time.sleep(1.5)  # (its imports done, blocked in the read)
        done.send_signal(signal.SIGINT)
        out, err = done.communicate(timeout=30)
    finally:
        if done.poll() is None:
            done.kill()
    assert done.returncode == 130, err
    assert err.strip().splitlines() == ["trtlog: interrupted"]
    assert "Traceback" not in err and out == ""


def test_an_interrupt_in_process_returns_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import trtlog.inputs

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(trtlog.inputs, "open_input", interrupted)
    assert main(["summary", str(YOLO)]) == 130
    assert capsys.readouterr().err == "\ntrtlog: interrupted\n"
