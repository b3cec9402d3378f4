"""The runtime family in context: summary sections, multi-line warnings, the profile table."""

from __future__ import annotations

from collections import Counter

import trtlog
from tests.conftest import FIXTURES
from trtlog.events import (
    PerfExplanations,
    PerfScalar,
    PerfStat7x,
    PerfWarning,
    ProfileRow,
    TraceAverage,
)
from trtlog.parser.stream import LogParser

LOGS = FIXTURES / "logs"
SUMMARY = LOGS / "trt10.16-like_run_summary-profile.log"
BLOCK_7X = LOGS / "trt7.1-like_two-runs_perf-block.log"


def test_summary_log_is_fully_recognised() -> None:
    build = trtlog.parse(SUMMARY)
    # the post-footer [MemUsageChange] line belongs to the memory family
    assert [e.span[0] for e in build.unrecognized] in ([], [len(build.lines)])
    kinds = Counter(e.kind for e in build.events)
    assert kinds["perf_stat"] == 5
    assert kinds["perf_warning"] == 2
    assert kinds["perf_explanations"] == 3
    assert kinds["profile_row"] == 4
    assert kinds["trace_average"] == 3


def test_perf_warning_spans_its_continuation_line() -> None:
    build = trtlog.parse(SUMMARY)
    warnings = [e for e in build.events if isinstance(e, PerfWarning)]
    assert [w.warning for w in warnings] == ["enqueue_bound", "unstable"]
    first = warnings[0]
    assert first.span[1] == first.span[0] + 1
    assert first.hint is not None and first.hint.startswith("If not already in use")
    assert warnings[1].coefficient_of_variance == 6.58751


def test_explanations_are_not_summary_values() -> None:
    # T24: "Throughput: ..." is a value in the summary and a sentence in the explanations
    build = trtlog.parse(SUMMARY)
    scalars = [e.name for e in build.events if isinstance(e, PerfScalar)]
    assert scalars == ["Throughput", "Total Host Walltime", "Total GPU Compute Time"]
    explained = [e.metric for e in build.events if isinstance(e, PerfExplanations)]
    assert explained == ["Total Host Walltime", "Throughput", "Latency"]


def test_profile_rows_of_the_86_layout() -> None:
    build = trtlog.parse(SUMMARY)
    rows = [e for e in build.events if isinstance(e, ProfileRow)]
    assert rows[1].layer.startswith("Reformatting CopyNode for Input Tensor 0 to {ForeignNode[")
    assert rows[1].names()["layer"].op == "reformat"  # type: ignore[union-attr]
    assert [r.is_total for r in rows] == [False, False, False, True]
    assert rows[-1].total_ms == 1529.13 and rows[-1].median_ms == 0.0804


def test_profile_rows_of_the_older_layouts() -> None:
    env_82 = "[03/24/2023-12:57:45] [I] "
    env_85 = "[06/28/2024-09:34:40] [I] "
    text = (
        f"{env_82}=== Profile (781 iterations ) ===\n"
        f"{env_82}                  Layer   Time (ms)   Avg. Time (ms)   Time %\n"
        f"{env_82}  onnx::Concat_647 copy       31.93           0.0409      1.6\n"
        f"{env_82}                  Total       31.93           0.0409    100.0\n"
        f"{env_82}\n"
        f"{env_85}=== Profile (7853 iterations ) ===\n"
        f"{env_85}    Layer   Time (ms)   Avg. Time (ms)   Median Time (ms)   Time %\n"
        f"{env_85} /Softmax      139.57           0.0178             0.0143     12.6\n"
    )
    build = trtlog.parse_text(text)
    assert not build.unrecognized
    rows = [e for e in build.events if isinstance(e, ProfileRow)]
    assert [(r.layer, r.median_ms, r.is_total) for r in rows] == [
        ("onnx::Concat_647 copy", None, False),
        ("Total", None, True),
        ("/Softmax", 0.0143, False),
    ]


def test_7x_block_stats_stay_inside_the_block() -> None:
    build = trtlog.parse(BLOCK_7X)
    assert not build.unrecognized
    stats = [e for e in build.events if isinstance(e, PerfStat7x)]
    assert len(stats) == 5 + 3 + 5 + 5 + 2
    # the block ends at "total compute time": a later "min: ..." would be unrecognized
    after = trtlog.parse_text(
        "[02/21/2021-22:49:52] [I] Host Latency\n"
        "[02/21/2021-22:49:52] [I] total compute time: 2.86978 s\n"
        "[02/21/2021-22:49:52] [I] min: 1.9 ms\n"
    )
    assert [e.kind for e in after.events] == ["perf_block_7x", "perf_scalar", "unrecognized"]


def test_trace_averages_take_the_hot_path_and_agree_with_lark() -> None:
    lines = BLOCK_7X.read_text(encoding="utf-8").splitlines(keepends=True)
    fast = list(LogParser().run(lines))
    slow = list(LogParser(compiled=False).run(lines))
    assert fast == slow
    averages = [e for e in fast if isinstance(e, TraceAverage)]
    assert [(a.end_to_end_ms, a.enqueue_ms) for a in averages[:1]] == [(2.12201, 1.98582)]


def test_a_pasted_blank_line_does_not_end_a_perf_warning() -> None:
    # T5: pastes insert blank lines between log lines
    ts = "[08/20/2024-19:31:57]"
    text = (
        f"{ts} [W] * GPU compute time is unstable, with coefficient of variance = 7.7%.\n"
        "\n"
        f"{ts} [W]   If not already in use, locking GPU clock frequency may help.\n"
        "\n"
        f"{ts} [I] Explanations of the performance metrics are printed in the verbose logs.\n"
    )
    build = trtlog.parse_text(text)
    warning = build.events[0]
    assert isinstance(warning, PerfWarning)
    assert warning.span == (1, 3)
    assert warning.hint == "If not already in use, locking GPU clock frequency may help."
    assert [e.kind for e in build.events[1:]] == ["unrecognized", "perf_note"]
