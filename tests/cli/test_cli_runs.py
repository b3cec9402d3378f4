"""The command line on files with several trtexec runs or builder rounds, and the passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.cli import main

LOGS = FIXTURES / "logs"
TWO_RUNS = LOGS / "trt7.1-like_two-runs_perf-block.log"
ROUNDS = LOGS / "trt10.16-like_three-rounds_build-verbose.log"
YOLO = LOGS / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
MULTI = CORPUS / "trt7.1_googlenet-resnet50-caffe-int8-jetson_build-multi-iterations.log"
NOTE = (
    "trtlog: note: the log holds 2 trtexec runs; using run 2 (lines 50-74); --run N picks another"
)


def test_summary_of_two_runs_lists_both_and_details_the_last(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["summary", str(TWO_RUNS)]) == 0
    out = capsys.readouterr().out
    assert "runs                  2 trtexec runs; they differ in Max batch" in out
    assert "  1    1-49   built" in out and "  2*   50-74  built" in out
    assert "throughput            886 qps" in out
    assert main(["summary", str(TWO_RUNS), "--run", "1"]) == 0
    out = capsys.readouterr().out
    assert "  1*   1-49   built" in out and "throughput            479.452 qps" in out
    assert main(["summary", str(TWO_RUNS), "--run", "1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run"] == 0 and len(data["runs_table"]) == 2
    assert data["performance"]["throughput_qps"] == 479.452


@pytest.mark.parametrize("command", ["summary", "events", "explain", "graph"])
def test_a_run_that_does_not_exist_is_a_usage_error(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = [command, str(TWO_RUNS), "--run", "3"]
    if command == "graph":
        argv += ["-o", str(tmp_path / "g.graphml")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == "trtlog: error: --run 3: the log has 2 trtexec run(s), numbered from 1\n"


def test_events_of_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["events", str(TWO_RUNS), "--kind", "perf_scalar", "--format", "json"]
    assert main(argv) == 0
    every = json.loads(capsys.readouterr().out)
    assert main([*argv, "--run", "2"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert len(every) == 6  # every line of the file without --run, and no note
    assert [e["value"] for e in second] == [886.0, 3.00497, 2.97017]
    assert all(e["span"][0] >= 50 for e in second)


def test_commands_say_which_run_they_use(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(TWO_RUNS)]) == 0
    assert capsys.readouterr().err == NOTE + "\n"
    assert main(["-q", "explain", str(TWO_RUNS)]) == 0
    assert capsys.readouterr().err == ""
    assert main(["explain", str(TWO_RUNS), "--run", "2"]) == 0
    assert capsys.readouterr().err == ""


@needs_corpus
def test_explain_each_model_of_the_googlenet_resnet50_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """65 GoogLeNet and 56 ResNet-50 layers (GPU placement lines 55 and 1627), never 120."""
    counts = []
    for run in ("1", "2", "3", "4"):
        assert main(["explain", str(MULTI), "--run", run]) == 0
        counts.append(int(capsys.readouterr().out.split(" final layers")[0]))
    assert counts == [65, 56, 65, 56]
    assert main(["explain", str(MULTI)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("56 final layers (from the log's placement lines")
    assert "using run 4 (lines 2843-3019)" in captured.err


def test_plot_layer_counts_of_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "counts.png"
    assert main(["plot", "layer-counts", str(ROUNDS), "--run", "1", "-o", str(out)]) == 0
    assert out.stat().st_size > 0
    assert main(["plot", "layer-counts", str(ROUNDS), "--run", "2", "-o", str(out)]) == 2


def test_summary_of_three_builder_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(ROUNDS)]) == 0
    out = capsys.readouterr().out
    assert "builder rounds        3 (backend strategies 4, 3, 2); the engine is round 2's" in out
    table = [
        line for line in out.splitlines() if line.startswith("  1 ") or line.startswith("  2*")
    ]
    assert table[0].split()[:4] == ["1", "4", "5-16", "24"]
    assert table[1].split()[:4] == ["2*", "3", "17-25", "24"]
    assert "tactic selection      22.9 s in all (3 rounds)" in out
    assert "engine generation     23.7 s in all (3 rounds)" in out


def test_summary_passes_describes_every_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(YOLO), "--passes"]) == 0
    out = capsys.readouterr().out
    assert "passes                " in out
    row = next(line for line in out.splitlines() if line.startswith("  HorizontalMergeQNodes "))
    assert row.split()[1:5] == ["2", "0", "2", "0"]  # runs, fusions, removals, swaps
    assert "Q/DQ: when several QuantizeLinear layers quantize one tensor" in row
    assert "not in trtlog's pass glossary" not in out


def test_summary_with_export_times(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [{"startComputeMs": i, "endComputeMs": i + 0.5, "computeMs": 0.5} for i in range(4)]
    records = [{**r, "h2dMs": 0.0, "d2hMs": 0.0, "latencyMs": 0.5} for r in records]
    path = tmp_path / "times.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    assert (
        main(["summary", str(LOGS / "trt10.16-like_run_summary-profile.log"), "--times", str(path)])
        == 0
    )
    out = capsys.readouterr().out
    assert f"--exportTimes         {path}: 4 inferences" in out
    stats = "min 0.5, mean 0.5, median 0.5, p90 0.5, p95 0.5, p99 0.5, max 0.5 ms"
    assert f"  GPU Compute Time        {stats}" in out


def test_explain_lists_what_each_pass_does(capsys: pytest.CaptureFixture[str]) -> None:
    node = "/model/backbone0/bn/BatchNormalization"
    assert main(["explain", str(YOLO), "--node", node]) == 0
    out = capsys.readouterr().out
    legend = out.split("\npasses:\n")[1].splitlines()
    assert [line.split()[0] for line in legend] == [
        "ScaleActivationFusion",
        "QConvScaleFusion",
        "ConstWeightsFusion",
    ]
    assert "fuses a Scale layer (BatchNormalization) with the activation after it" in legend[0]
    assert main(["explain", str(YOLO), "--node", node, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data["pass_descriptions"]) == data["passes"]
    assert main(["explain", str(YOLO)]) == 0
    assert "\npasses:\n" in capsys.readouterr().out


def test_lint_checks_every_run_of_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failed first run must fail CI even when the last run passed."""
    failed = (LOGS / "trt8.6-like_patternnet-qdq_build-FAILED.log").read_text(encoding="utf-8")
    passed = (LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log").read_text(
        encoding="utf-8"
    )
    path = tmp_path / "two.log"
    path.write_text(failed + passed, encoding="utf-8")
    assert main(["lint", str(path), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    failures = [f for f in data["findings"] if f["rule"] == "build-failed"]
    assert [f["run"] for f in failures] == [1]
    assert {f["run"] for f in data["findings"]} <= {1, 2}
    assert main(["lint", str(path), "--run", "2", "--fail-on", "error"]) == 0
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert "2 trtexec runs, each linted on its own (--run N for one)" in out


def test_diff_two_runs_of_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fp16 = (LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log").read_text(
        encoding="utf-8"
    )
    int8 = (LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log").read_text(
        encoding="utf-8"
    )
    path = tmp_path / "both.log"
    path.write_text(fp16 + int8, encoding="utf-8")
    argv = ["diff", str(path), str(path), "--view", "summary", "--format", "json"]
    assert main([*argv, "--run-a", "1", "--run-b", "1"]) == 0
    same = json.loads(capsys.readouterr().out)
    assert main([*argv, "--run-a", "1", "--run-b", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert same != data
    separate = ["diff", str(LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log")]
    separate += [str(LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log")]
    assert main([*separate, "--view", "summary", "--format", "json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    keys = ("markers", "layers_a", "layers_b", "precision_transitions", "split", "merged")
    assert {k: data[k] for k in keys} == {k: alone[k] for k in keys}
    assert same["markers"] == {"=": 9, "~": 0, "-": 0, "+": 0}
    assert main([*argv, "--run-a", "3"]) == 2
