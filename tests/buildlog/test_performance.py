"""The performance view (trtlog.buildlog.performance): summary, 7.x block, profile table."""

from __future__ import annotations

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.buildlog.performance import performance, performances

LOGS = FIXTURES / "logs"


def test_performance_of_an_8x_summary_and_profile() -> None:
    build = trtlog.parse(LOGS / "trt10.16-like_run_summary-profile.log")
    perf = performance(build.events)
    assert perf is not None
    assert perf.format == "8.x"
    assert (perf.warmup_queries, perf.warmup_s, perf.queries, perf.trace_s) == (
        4792,
        0.2,
        74692,
        3.00005,
    )
    assert (perf.trace_averages, perf.trace_runs) == (3, 10)
    assert perf.throughput_qps == 24896.9
    assert (perf.host_walltime_s, perf.gpu_compute_s) == (3.00005, 2.89541)
    assert perf.gpu_utilization is not None and round(perf.gpu_utilization, 3) == 0.965
    assert sorted(perf.latency) == [
        "D2H Latency",
        "Enqueue Time",
        "GPU Compute Time",
        "H2D Latency",
        "Latency",
    ]
    latency = perf.latency["Latency"]
    assert (latency.min_ms, latency.median_ms, latency.percentile(99)) == (
        0.0383301,
        0.0388184,
        0.0390625,
    )
    assert [w.warning for w in perf.warnings] == ["enqueue_bound", "unstable"]
    profile = perf.profile
    assert profile is not None
    assert (profile.iterations, profile.layout, len(profile.layers)) == (18362, "8.6", 3)
    assert profile.total is not None and profile.total_ms == 1529.13
    assert [r.layer for r in profile.top(1)] == ["node_conv2d_1_myl3_1"]


def test_7x_blocks_by_run() -> None:
    build = trtlog.parse(LOGS / "trt7.1-like_two-runs_perf-block.log")
    first, second = performances(build.events)
    assert (first.run, second.run) == (0, 1)
    assert first.format == "7.x"
    assert first.throughput_qps == 479.452 and second.throughput_qps == 886.0
    assert (first.host_walltime_s, first.gpu_compute_s) == (3.00343, 2.86978)
    latency = first.latency["Latency"]
    assert (latency.min_ms, latency.max_ms, latency.mean_ms, latency.median_ms) == (
        1.99762,
        3.29492,
        2.06069,
        2.03601,
    )
    assert latency.percentiles == ((99.0, 2.5329),)
    assert first.latency["End-to-End Host Latency"].percentile(99) == 2.59641
    enqueue = first.latency["Enqueue Time"]
    assert (enqueue.min_ms, enqueue.mean_ms, enqueue.median_ms) == (1.9458, None, 1.98887)
    assert first.latency["GPU Compute Time"].percentile(99) == 2.47803
    assert second.latency["GPU Compute Time"].median_ms == 4.45996
    assert first.trace_averages == 2 and second.trace_averages == 1


def test_no_performance_in_a_build_log() -> None:
    assert performance(trtlog.parse(LOGS / "trtexec-like_help-text-T19.log").events) is None


@needs_corpus
def test_corpus_performance() -> None:
    qat = trtlog.parse(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log")
    perf = performance(qat.events)
    assert perf is not None and perf.profile is not None
    assert perf.profile.layout == "8.4"
    assert perf.profile.total_ms == 2689.67
    # the percentages of the rows add up to the Total row's 100%
    assert abs(sum(r.percent for r in perf.profile.layers) - 100) < 1
    old = trtlog.parse(CORPUS / "trt8.2.3_centerpoint-rpn-centerhead-fp16_build-verbose.log")
    perf = performance(old.events)
    assert perf is not None and perf.profile is not None
    assert perf.profile.layout == "7x"
    assert "End-to-End Host Latency" in perf.latency
    runs = performances(
        trtlog.parse(
            CORPUS / "trt7.1_googlenet-resnet50-caffe-int8-jetson_build-multi-iterations.log"
        ).events
    )
    assert len(runs) == 4
    assert all(p.format == "7.x" and p.throughput_qps for p in runs)


def test_times_percentiles_are_trtexecs_in_the_summary_and_the_frame() -> None:
    """With 100 inferences trtexec's percentile(99%) is the largest value (it leaves out
    ``int((1 - 0.99) * 100)`` values computed in single precision: 0); the summary's
    statistics said the 99th value, the frame the 100th."""
    from trtlog.buildlog.performance import times_statistics
    from trtlog.engine import Times, TimingRecord, TimingRun
    from trtlog.frames import times_stats_frame

    records = tuple(TimingRecord(compute_ms=float(v)) for v in range(1, 101))
    times = Times(source="t.json", runs=(TimingRun(keys="8.4", records=records),))
    stats = times_statistics(times).metrics["GPU Compute Time"]
    frame = times_stats_frame(times).set_index("measure")
    assert stats.percentile(99) == 100.0 == frame.loc["GPU Compute Time", "p99_ms"]
    assert stats.percentile(90) == frame.loc["GPU Compute Time", "p90_ms"]
    assert stats.percentile(95) == frame.loc["GPU Compute Time", "p95_ms"]
