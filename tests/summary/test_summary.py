"""The summary (trtlog.summary): every figure checked against the raw log text."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, corpus_logs, needs_corpus
from trtlog.summary import Summary, summarize

LOGS = FIXTURES / "logs"
YOLO = LOGS / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
RESNET18_QAT = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"


@pytest.fixture(scope="module")
def yolo() -> Summary:
    return summarize(trtlog.parse(YOLO))


def test_removals_count_each_removed_layer_once(yolo: Summary) -> None:
    text = YOLO.read_text(encoding="utf-8")
    removing = text.count("] Removing ")  # 15, two of them confirm a Q/DQ duplicate
    eliminations = len(re.findall(r"\] Eliminating (?:slice|concatenation) ", text))
    assert (removing, eliminations) == (15, 5)
    assert yolo.removals == removing + eliminations == 20


@needs_corpus
def test_resnet18_qat_removals() -> None:
    summary = summarize(trtlog.parse(RESNET18_QAT))
    text = RESNET18_QAT.read_text(encoding="utf-8")
    assert text.count("] Removing ") == 264
    assert len(re.findall(r"\] Eliminating (?:slice|concatenation) ", text)) == 0
    assert summary.removals == 264


def _fusion_rows(text: str) -> list[tuple[int, str]]:
    """The ``fusions`` block of a summary's text: (count, pass) rows under the header row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("fusions "))
    rows = []
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 24):
            break
        count, name = line.split(None, 1)
        rows.append((int(count), name))
    return rows


def test_every_fusing_pass_is_listed(yolo: Summary) -> None:
    text = YOLO.read_text(encoding="utf-8")
    fusing = text.count(": Fusing ") + text.count(": fusing ") + text.count("Merging layers: ")
    assert fusing == sum(yolo.fusions_by_pass.values()) == 25
    assert "PointWiseFusion: Fusing /model/taskhead22/Add_5" in text.splitlines()[186]  # line 187
    assert yolo.fusions_by_pass["PointWiseFusion"] == 1
    rows = _fusion_rows(yolo.to_text())
    assert "fusions               25 in 9 pass(es)" in yolo.to_text()
    assert len(rows) == 9 and sum(n for n, _ in rows) == 25
    assert (1, "PointWiseFusion") in rows and (5, "HorizontalMerge") in rows


def test_summary_fusions_agree_with_the_fusions_frame() -> None:
    build = trtlog.parse(YOLO)
    frame = build.fusions_frame()
    by_pass = frame["pass_name"].fillna("(no pass)").value_counts().to_dict()
    assert summarize(build).fusions_by_pass == by_pass


def test_many_passes_end_with_a_row_that_sums_the_rest() -> None:
    head = "[01/10/2024-21:52:53] [V] [TRT] "
    lines = []
    for i in range(15):
        lines += [
            f"{head}Running: Pass{i:02d} on a{i}",
            f"{head}Pass{i:02d}: Fusing a{i} with b{i}",
        ]
    lines += [f"{head}Pass00: Fusing c with d"]
    summary = summarize(trtlog.parse_text("\n".join(lines) + "\n"))
    rows = _fusion_rows(summary.to_text())
    assert "fusions               16 in 15 pass(es)" in summary.to_text()
    assert len(rows) == 12 and rows[0] == (2, "Pass00")
    assert rows[-1] == (4, "in 4 more pass(es) (--passes lists all)")
    assert sum(n for n, _ in rows) == 16


@needs_corpus
def test_resnet18_qat_fusions_by_pass_add_up() -> None:
    summary = summarize(trtlog.parse(RESNET18_QAT))
    text = RESNET18_QAT.read_text(encoding="utf-8")
    fusing = len(re.findall(r"\] \w+: (?:Fusing|fusing) ", text))
    fusing += text.count("Merging layers: ") + text.count("Fusing convolution weights from ")
    assert fusing == 115
    rows = _fusion_rows(summary.to_text())
    assert "fusions               115 in 11 pass(es)" in summary.to_text()
    assert len(rows) == 11 and sum(n for n, _ in rows) == 115


# -- item 3: several builder rounds in one build -------------------------------------------

ROUNDS = LOGS / "trt10.16-like_three-rounds_build-verbose.log"
MNIST_1016 = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log"


def _check_three_rounds(summary: Summary) -> None:
    assert [(r.number, r.strategy, r.outcome, r.kept) for r in summary.rounds] == [
        (0, 4, "initial", False),
        (1, 3, "chosen", True),
        (2, 2, "skipped", False),
    ]
    assert [r.tactic_selection_seconds for r in summary.rounds] == [14.8108, 7.70415, 0.395312]
    assert [r.engine_generation_seconds for r in summary.rounds] == [15.4838, 7.75278, 0.43392]
    assert [r.graph_optimization_seconds for r in summary.rounds] == [
        0.0179506,
        0.0154879,
        0.0204001,
    ]
    assert [r.activation_memory_bytes for r in summary.rounds] == [2876416, 2007040, 2007552]
    assert [(r.first_stage.layers, r.last_stage.layers) for r in summary.rounds] == [  # type: ignore[union-attr]
        (24, 15),
        (24, 6),
        (24, 6),
    ]
    # totals say they are totals; the figures of one round are the engine's round's
    assert summary.tactic_selection_seconds == pytest.approx(14.8108 + 7.70415 + 0.395312)
    assert summary.engine_generation_seconds == pytest.approx(15.4838 + 7.75278 + 0.43392)
    assert summary.round == 1
    assert summary.activation_memory_bytes == 2007040
    assert summary.graph_seconds == 0.037093  # graph construction: once, before the rounds
    assert summary.engine_build_seconds == 24.4854
    text = summary.to_text()
    assert "tactic selection      22.9 s in all (3 rounds)" in text
    assert "builder rounds        3 (backend strategies 4, 3, 2); the engine is round 2's" in text
    assert "tactic selection      0.395 s" not in text


def test_three_rounds_are_summarised_per_round() -> None:
    summary = summarize(trtlog.parse(ROUNDS))
    _check_three_rounds(summary)
    assert [[s.layers for s in r.stages] for r in summary.rounds] == [
        [24, 17, 13, 15],
        [24, 5, 6],
        [24, 7, 5, 6],
    ]
    assert [(s.stage, s.layers) for s in summary.layer_counts] == [
        ("Original", 24),
        ("dead-layer removal", 24),
        ("adding DebugOutput nodes", 24),
        ("Myelin optimization", 5),
        ("reformat layers", 6),
    ]
    assert summary.fusions_by_pass == {}  # round 2 printed no fusion in the fixture


@needs_corpus
def test_mnist_10_16_rounds_on_the_corpus_log() -> None:
    lines = MNIST_1016.read_text(encoding="utf-8").split("\n")
    for number, seconds in ((2984, "14.8108"), (4424, "7.70415"), (4648, "0.395312")):
        assert lines[number - 1].endswith(
            f"Formats and tactics selection completed in {seconds} seconds."
        )
    summary = summarize(trtlog.parse(MNIST_1016))
    _check_three_rounds(summary)
    assert summary.layer_counts[-1].line == 4425  # round 2's "After reformat layers: 6 layers"
    assert summary.engine_layers == 6


# -- item 4: several trtexec runs in one file -------------------------------------------------

TWO_RUNS = LOGS / "trt7.1-like_two-runs_perf-block.log"
MULTI = CORPUS / "trt7.1_googlenet-resnet50-caffe-int8-jetson_build-multi-iterations.log"


def test_a_file_with_two_runs_has_a_run_table_and_one_run_below() -> None:
    build = trtlog.parse(TWO_RUNS)
    summary = summarize(build)
    assert [(r.index, r.batch, r.throughput_qps) for r in summary.runs_table] == [
        (0, "1", 479.452),
        (1, "4", 886.0),
    ]
    assert [r.latency_median_ms for r in summary.runs_table] == [2.03601, 4.50439]
    assert [r.gpu_compute_median_ms for r in summary.runs_table] == [1.97266, 4.45996]
    assert summary.runs_differ_in == ["Max batch"]  # run 2 prints no "Batch:" option
    assert summary.run == 1 and summary.performance is not None
    assert summary.performance.throughput_qps == 886.0
    first = summarize(build, 0)
    assert first.run == 0 and first.performance is not None
    assert first.performance.throughput_qps == 479.452
    text = summary.to_text()
    assert "* below: run 2 of 2 (lines 50-74); --run N shows another" in text
    with pytest.raises(IndexError):
        summarize(build, 2)


def test_runs_of_a_concatenated_file_are_never_summed() -> None:
    """Three copies of one build log in one file: each figure is one run's, not three times."""
    path = LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
    text = path.read_text(encoding="utf-8")
    one = summarize(trtlog.parse_text(text))
    three = summarize(trtlog.parse_text(text * 3))
    lines = text.count("\n")
    assert three.runs == 3 and len(three.runs_table) == 3
    assert [r.first_line for r in three.runs_table] == [1, lines + 1, 2 * lines + 1]
    assert three.layer_counts == [
        s.model_copy(update={"line": s.line + 2 * lines}) for s in one.layer_counts
    ]
    assert len(three.layer_counts) == 11
    assert three.fusions_by_pass == one.fusions_by_pass
    assert sum(three.fusions_by_pass.values()) == text.count(": Fusing ") == 5
    assert three.engine_layers == one.engine_layers
    assert three.to_text().count("fusions               5 in 3 pass(es)") == 1


@needs_corpus
def test_googlenet_resnet50_runs_are_not_mixed() -> None:
    text = MULTI.read_text(encoding="utf-8")
    qps = [float(q) for q in re.findall(r"\] throughput: (\S+) qps", text)]
    assert len(qps) == 4
    build = trtlog.parse(MULTI)
    summary = summarize(build)
    assert [(r.model, r.batch) for r in summary.runs_table] == [
        ("Models/googlenet.prototxt", "1"),
        ("Models/resnet-50.prototxt", "1"),
        ("Models/googlenet.prototxt", "64"),
        ("Models/resnet-50.prototxt", "64"),
    ]
    assert [r.throughput_qps for r in summary.runs_table] == qps
    assert summary.model == "Models/resnet-50.prototxt"
    assert "Prototxt" in summary.runs_differ_in and "Batch" in summary.runs_differ_in


# -- item 9: loaded engines, crashes, how far a run got, tactics and Q/DQ as the frames say ---

LOAD_RUN = CORPUS / "trt8.4.1_cookbook-mnist-cnn-fp32_run-verbose.log"
CRASH = CORPUS / "trt8.4.10_script-if-myelin-best-orin_build-verbose-CRASH.log"


def test_an_engine_loaded_is_not_an_engine_built() -> None:
    text = (
        "&&&& RUNNING TensorRT.trtexec [TensorRT v8401] # trtexec --loadEngine=m.plan\n"
        "[08/17/2022-07:51:05] [I] Engine loaded in 0.011387 sec.\n"
        "[08/17/2022-07:51:05] [I] Engine deserialized in 0.429032 sec.\n"
    )
    summary = summarize(trtlog.parse_text(text))
    assert summary.engine_build_seconds is None
    assert (summary.engine_load_seconds, summary.engine_deserialize_seconds) == (0.011387, 0.429032)
    assert "engine build" not in summary.to_text()
    assert "engine load           0.0114 s" in summary.to_text()


@needs_corpus
def test_load_engine_run_on_the_corpus() -> None:
    lines = LOAD_RUN.read_text(encoding="utf-8").split("\n")
    assert lines[110].endswith("[I] Engine loaded in 0.011387 sec.")  # line 111
    summary = summarize(trtlog.parse(LOAD_RUN))
    assert summary.engine_load_seconds == 0.011387 and summary.engine_build_seconds is None
    assert summary.loaded_engine == "./model-FP32.plan"


@needs_corpus
def test_myelin_assertion_crash_is_an_error_and_stops_at_the_last_line_reached() -> None:
    lines = CRASH.read_text(encoding="utf-8").split("\n")
    assert "Timing Runner: {ForeignNode[18 + (Unnamed Layer* 1)" in lines[346]  # line 347
    assert lines[347].startswith("trtexec: ") and "Assertion `0 && " in lines[347]
    summary = summarize(trtlog.parse(CRASH))
    assert summary.errors == 1
    assert summary.first_errors[0].startswith("trtexec: /root/gpgpu/MachineLearning/myelin/")
    assert summary.stopped_after is not None and summary.stopped_after.startswith("line 347: ")
    assert summary.last_line is not None and summary.last_line.startswith("line 348: trtexec: ")


@needs_corpus
def test_a_silent_failure_stops_where_the_log_stops() -> None:
    path = CORPUS / "trt8.2.3_cookbook-mnist-cnn-fp16_build-verbose-FAILED.log"
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[111].endswith("[I] Finish parsing network model") and "&&&& FAILED" in lines[112]
    summary = summarize(trtlog.parse(path))
    assert summary.status == "failed"
    assert summary.stopped_after == f"line 112: {lines[111]}"


def _verbose_logs() -> list[Path]:
    logs = [YOLO, ROUNDS, LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"]
    return logs + [p for p in corpus_logs() if "verbose" in p.name]


@pytest.mark.parametrize("path", _verbose_logs(), ids=lambda p: p.name)
def test_tactic_and_qdq_figures_are_those_of_the_frames(path: Path) -> None:
    build = trtlog.parse(path)
    summary = summarize(build)
    scope = build.for_run(-1)
    kept = [r for r in scope.rounds if r.kept]
    if len(scope.rounds) > 1:
        scope = scope.for_round(kept[0].index)
    tactics = scope.tactics_frame()
    timed = tactics[~tactics["skipped"]]
    assert summary.layers_timed == timed["layer"].nunique()
    assert summary.tactics_timed == (~timed["cached"]).sum()
    assert summary.tactics_cached == timed["cached"].sum()
    assert summary.tactics_skipped == tactics["skipped"].sum()
    reformat = timed.loc[timed["reformat"], "layer"]
    assert summary.reformat_layers_timed == reformat.nunique()
    qdq = scope.qdq_frame()
    assert summary.qdq_events == len(qdq)
    assert summary.qdq_by_kind == qdq["kind"].value_counts().to_dict()


@needs_corpus
def test_resnet18_qat_tactics_and_qdq() -> None:
    summary = summarize(trtlog.parse(RESNET18_QAT))
    text = RESNET18_QAT.read_text(encoding="utf-8")
    assert summary.tactics_timed == len(re.findall(r"\] Tactic: \S+ Time: ", text)) == 1406
    assert summary.layers_timed == 33  # 19 layers and 14 "Optimizer Reformat(...)" timings
    assert summary.reformat_layers_timed == 14
    assert summary.qdq_by_kind == {
        "fusion_into": 62,
        "layer_swap": text.count("] Swapping ") == 12 and 12,
        "qdq_phase": 8,
        "qdq_dedup": text.count(" which duplicates (Q) "),
        "qdq_swap": text.count(" from QUANTIZE to kQDQ"),
    }
    assert "Q/DQ optimizer        91 steps (qdq_frame rows)" in summary.to_text()


def test_a_float_build_has_no_qdq_steps() -> None:
    head = "[01/10/2024-21:52:53] [V] [TRT] "
    log = head + "Running: EltWiseToPointwiseConversion on add\n"
    log += head + "Swap the layer type of add from ELEMENTWISE to POINTWISE\n"
    summary = summarize(trtlog.parse_text(log))
    assert summary.qdq_events == 0 and "Q/DQ" not in summary.to_text()


# -- item 13: performance results -----------------------------------------------------------

PERF = LOGS / "trt10.16-like_run_summary-profile.log"


def test_the_performance_summary_is_shown() -> None:
    summary = summarize(trtlog.parse(PERF))
    perf = summary.performance
    assert perf is not None and perf.throughput_qps == 24896.9
    text = summary.to_text()
    assert "throughput            24896.9 qps (74692 queries in 3.00005 s)" in text
    latency = "  Latency                 min 0.0383301, mean 0.0387646, median 0.0388184, "
    assert latency + "p90 0.0388489, p95 0.0389404, p99 0.0390625, max 0.0651855 ms" in text
    assert "  GPU Compute Time        min 0.0383301" in text
    assert "  GPU compute total   2.89541 s of 3.00005 s host walltime (96.5% busy)" in text
    assert "  profile table       line 88: 3 layers, 1529.13 ms over 18362 iterations" in text


def test_7x_performance_block_per_run() -> None:
    build = trtlog.parse(TWO_RUNS)
    text = summarize(build, 0).to_text()
    assert "throughput            479.452 qps (1440 queries in 3.00343 s)" in text
    assert "  Latency                 min 1.99762, mean 2.06069, median 2.03601, p99 2.5329" in text
    assert "  End-to-End Host Latency min 2.00641" in text


@needs_corpus
def test_resnet18_qat_performance_matches_the_log() -> None:
    text = RESNET18_QAT.read_text(encoding="utf-8")
    qps = re.search(r"\] Throughput: (\S+) qps", text)
    assert qps is not None and qps.group(1) == "7329.45"
    summary = summarize(trtlog.parse(RESNET18_QAT))
    assert summary.performance is not None
    assert summary.performance.throughput_qps == 7329.45
    gpu = summary.performance.latency["GPU Compute Time"]
    line = re.search(r"\] GPU Compute Time: (.*)", text)
    assert line is not None
    assert f"median = {gpu.median_ms:g} ms" in line.group(1)
    assert f"percentile(99%) = {gpu.percentile(99):g} ms" in line.group(1)


def test_export_times_statistics(tmp_path: Path) -> None:
    values = [0.5, 0.25, 1.0, 0.75, 2.0]  # compute times of five inferences
    records = [
        {
            "startEnqMs": 10.0 * i,
            "endEnqMs": 10.0 * i + 0.1,
            "startH2dMs": 10.0 * i,
            "endH2dMs": 10.0 * i + 0.1,
            "startComputeMs": 10.0 * i + 0.1,
            "endComputeMs": 10.0 * i + 0.1 + v,
            "startD2hMs": 10.0 * i + 0.1 + v,
            "endD2hMs": 10.0 * i + 0.2 + v,
            "h2dMs": 0.1,
            "computeMs": v,
            "d2hMs": 0.1,
            "latencyMs": v + 0.2,
        }
        for i, v in enumerate(values)
    ]
    path = tmp_path / "times.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    times = trtlog.load_times(path)
    summary = summarize(trtlog.parse(PERF), times=times)
    assert summary.times is not None and summary.times.inferences == 5
    gpu = summary.times.metrics["GPU Compute Time"]
    assert (gpu.min_ms, gpu.median_ms, gpu.max_ms) == (0.25, 0.75, 2.0)
    assert gpu.mean_ms == pytest.approx(statistics.mean(values))
    assert gpu.percentiles == ((90.0, 2.0), (95.0, 2.0), (99.0, 2.0))
    assert summary.times.metrics["Enqueue Time"].median_ms == pytest.approx(0.1)
    assert "--exportTimes" in summary.to_text() and "5 inferences" in summary.to_text()


@needs_corpus
def test_export_times_of_the_corpus() -> None:
    path = CORPUS / "trt10.4_mobilenetv2-fp16-rtx3060_times.json"
    times = trtlog.load_times(path)
    stats = summarize(trtlog.parse(PERF), times=times).times
    assert stats is not None
    raw = json.loads(path.read_text(encoding="utf-8"))
    compute = sorted(r["computeMs"] for r in raw)
    assert stats.inferences == len(raw)
    gpu = stats.metrics["GPU Compute Time"]
    assert (gpu.min_ms, gpu.max_ms) == (compute[0], compute[-1])
    assert gpu.median_ms == statistics.median(compute)
    assert gpu.mean_ms == pytest.approx(statistics.fmean(compute))


# -- sharing what the report computes anyway -------------------


def _logs_with_tactics_and_performance() -> list[Path]:
    """Fixture logs plus the corpus logs (the corpus ones when it is present)."""
    return sorted(LOGS.glob("*.log")) + corpus_logs()


@pytest.mark.filterwarnings("ignore")
def test_summarize_counts_a_tactics_frame_given_as_its_own() -> None:
    """``summarize(b, tactics=b.tactics_frame())`` is ``summarize(b)``: the report's shortcut."""
    timed = rounds = 0
    for path in _logs_with_tactics_and_performance():
        build = trtlog.parse(path)
        if len(build.runs) > 1:
            build = build.for_run(len(build.runs) - 1)
        # the frame of what summarize counts: the run, the round kept when there are several
        kept = [r for r in build.rounds if r.kept] if len(build.rounds) > 1 else []
        scope = build.for_round(kept[0].index) if kept else build
        frame = scope.tactics_frame()
        assert summarize(build, tactics=frame) == summarize(build), path.name
        if len(frame):  # flags that are not numpy bools are counted row by row: same figures
            loose = frame.astype({"skipped": object, "cached": object})
            assert summarize(build, tactics=loose) == summarize(build), path.name
        timed += bool(len(frame))
        rounds += bool(kept)
    # logs that time tactics, so the frame was read (most of them are corpus logs)
    assert timed >= (5 if CORPUS.is_dir() else 2)
    assert rounds >= 1  # and one whose builder ran several rounds


def test_summarize_refuses_a_frame_that_is_not_a_tactics_frame() -> None:
    build = trtlog.parse(YOLO)
    with pytest.raises(ValueError, match="tactics_frame"):
        summarize(build, tactics=build.fusions_frame())


def test_performance_events_are_the_ones_performances_reads() -> None:
    """PERFORMANCE_EVENTS lists every event class trtlog.buildlog.performance reads but RunStart."""
    from trtlog.buildlog import performance
    from trtlog.buildlog.performance import PERFORMANCE_EVENTS
    from trtlog.events import EventBase, RunStart

    read = {
        value
        for value in vars(performance).values()
        if isinstance(value, type) and issubclass(value, EventBase) and value is not EventBase
    }
    assert set(PERFORMANCE_EVENTS) == read - {RunStart}


@pytest.mark.filterwarnings("ignore")
def test_performance_from_its_events_alone_is_the_same() -> None:
    """Build.performances() (the performance events alone) equals performances() over every
    event of a log, and its profile is the one profile_from_events reads."""
    from trtlog.buildlog.performance import performances, profile_from_events

    found = 0
    for path in _logs_with_tactics_and_performance():
        lazy = trtlog.parse(path)
        built = trtlog.parse(path)
        every = performances(built.events, built.runs)
        assert lazy.performances() == built.performances() == every, path.name
        assert lazy.dumped_profile() == profile_from_events(built.events, built.source.name)
        found += len(every)
    assert found >= 3  # logs with a trace, a summary or a profile table, so this could fail


def test_qdq_kinds_are_counted_in_words() -> None:
    head = "[01/10/2024-21:52:53] [V] [TRT] "
    one = head + "Swap the layer type of q1 from QUANTIZE to kQDQ\n"
    two = one + head + "Swap the layer type of q2 from QUANTIZE to kQDQ\n"
    assert (
        "1 step (qdq_frame rows): 1 Q/DQ type swap\n" in summarize(trtlog.parse_text(one)).to_text()
    )
    assert (
        "2 steps (qdq_frame rows): 2 Q/DQ type swaps\n"
        in summarize(trtlog.parse_text(two)).to_text()
    )
