"""Builder rounds and runs as one index on Build (trtlog.buildlog.rounds, for_run/for_round)."""

from __future__ import annotations

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus

ROUNDS = FIXTURES / "logs" / "trt10.16-like_three-rounds_build-verbose.log"
MNIST_1016 = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log"
MULTI = CORPUS / "trt7.1_googlenet-resnet50-caffe-int8-jetson_build-multi-iterations.log"
TWO_RUNS = FIXTURES / "logs" / "trt7.1-like_two-runs_perf-block.log"


def _rounds(build: trtlog.Build) -> list[tuple[int, int | None, int, int, str | None, bool]]:
    return [
        (r.number, r.strategy, r.first_line, r.last_line, r.outcome, r.kept) for r in build.rounds
    ]


def test_three_backend_strategies_are_three_rounds() -> None:
    build = trtlog.parse(ROUNDS)
    assert _rounds(build) == [
        (0, 4, 5, 16, "initial", False),
        (1, 3, 17, 25, "chosen", True),
        (2, 2, 26, 37, "skipped", False),
    ]
    assert [r.estimated_time for r in build.rounds] == [0.3344, 0.310688, 0.32816]
    # the lines before the first round (parsing, the network's first counts) and after the
    # last verdict (the engine saved) belong to the run, not to a round
    assert build.round_of(build.events[1]) is None  # line 2, Original: 24 layers
    assert build.round_of(build.events[-1]) is None  # the &&&& PASSED footer
    found = [build.round_of(e) for e in build.events_of("tactics_done")]
    assert [r.strategy if r else None for r in found] == [4, 3, 2]


@needs_corpus
def test_mnist_10_16_rounds_on_the_corpus_log() -> None:
    build = trtlog.parse(MNIST_1016)
    lines = MNIST_1016.read_text(encoding="utf-8").split("\n")
    assert [lines[n - 1].rsplit("] ", 1)[1] for n in (517, 3036, 4460)] == [
        "Building graph using backend strategy 4",
        "Building graph using backend strategy 3",
        "Building graph using backend strategy 2",
    ]
    assert _rounds(build) == [
        (0, 4, 517, 3035, "initial", False),
        (1, 3, 3036, 4459, "chosen", True),
        (2, 2, 4460, 4686, "skipped", False),
    ]
    selection = build.events_of("tactics_done")
    assert [(e.span[0], e.seconds) for e in selection] == [  # type: ignore[union-attr]
        (2984, 14.8108),
        (4424, 7.70415),
        (4648, 0.395312),
    ]
    assert [build.round_of(e).number for e in selection] == [0, 1, 2]  # type: ignore[union-attr]


def test_a_log_without_strategies_is_one_round_per_run() -> None:
    build = trtlog.parse(TWO_RUNS)
    assert [(r.run, r.number, r.first_line, r.last_line) for r in build.rounds] == [
        (run.index, 0, 1 if run.index == 0 else run.first_line, run.last_line) for run in build.runs
    ]
    assert all(r.kept for r in build.rounds)
    empty = trtlog.parse_text("[I] [TRT] hello\n")
    assert [(r.run, r.first_line, r.last_line) for r in empty.rounds] == [(None, 1, 1)]


def test_layer_counts_restart_with_each_round() -> None:
    frame = trtlog.parse(ROUNDS).layer_counts_frame().astype(object)
    frame = frame.where(frame.notna(), None)
    rows = list(zip(frame["stage"], frame["layers"], frame["change"], frame["round"], strict=True))
    assert rows[:3] == [
        ("Original", 24, None, None),
        ("dead-layer removal", 24, 0, None),
        ("adding DebugOutput nodes", 24, 0, 0),
    ]
    first_of_round = [row for row in rows if row[0] == "adding DebugOutput nodes"]
    # each round starts from the network's 24 layers: no "+18 layers added" from round 1's 6
    assert [(row[2], row[3]) for row in first_of_round] == [(0, 0), (0, 1), (0, 2)]
    assert frame["change"].max() == 2  # round 1's reformat layers: 13 -> 15


def test_for_run_gives_one_run_with_its_own_options() -> None:
    build = trtlog.parse(TWO_RUNS)
    assert len(build.runs) == 2
    second = build.for_run(1)
    assert second.runs == (build.runs[1],)
    assert all(build.runs[1].first_line <= e.span[0] for e in second.events)
    assert second.options.get("Max batch") == "4" and build.options.get("Max batch") == "1"
    assert build.for_run(-1).runs == (build.runs[1],)
    assert second.text_of(second.events[0]) == build.text_of(second.events[0])  # file lines
    with pytest.raises(IndexError, match="the log has 2 run"):
        build.for_run(2)


@needs_corpus
def test_each_run_of_the_googlenet_resnet50_log_has_its_own_final_layers() -> None:
    """The GPU placement lines list 65 GoogLeNet and 56 ResNet-50 layers (line 55 and 1627)."""
    lines = MULTI.read_text(encoding="utf-8").split("\n")
    listed = [
        [n for n in lines[i].split("[TRT] ", 1)[1].split(", ") if n.strip()] for i in (54, 1626)
    ]
    assert [len(names) for names in listed] == [65, 56]  # each line ends with ", "
    build = trtlog.parse(MULTI)
    assert len(build.merge_graph().final_layers()) == 120  # the two models mixed (prob shared)
    counts = [len(build.for_run(i).merge_graph().final_layers()) for i in range(4)]
    assert counts == [65, 56, 65, 56]
    assert [build.for_run(i).options.model for i in (0, 1)] == [
        "Models/googlenet.prototxt",
        "Models/resnet-50.prototxt",
    ]


def test_for_round_keeps_the_run_but_not_the_other_rounds() -> None:
    build = trtlog.parse(ROUNDS)
    kept = next(r for r in build.rounds if r.kept)
    view = build.for_round(kept.index)
    selection = [e.seconds for e in view.events_of("tactics_done")]  # type: ignore[union-attr]
    assert selection == [7.70415]
    stages = [e.layers for e in view.events_of("layer_count")]  # type: ignore[union-attr]
    assert stages == [24, 24, 24, 5, 6]  # the network's two stages, then round 2's
    assert view.events_of("engine_built")  # the run's tail stays


def test_a_round_of_a_log_without_banners_has_only_its_events() -> None:
    text = ROUNDS.read_text(encoding="utf-8")
    build = trtlog.parse_text("".join(x for x in text.splitlines(True) if "&&&&" not in x))
    assert build.runs == () and [r.run for r in build.rounds] == [None, None, None]
    build.events_of("tactics_done")  # fills the index a copy must not inherit
    view = build.for_round(1)
    selection = [e.seconds for e in view.events_of("tactics_done")]  # type: ignore[union-attr]
    assert selection == [7.70415]


# -- one run index ----------------------------------------------------------------


def test_the_performance_of_a_run_is_numbered_as_the_run() -> None:
    """The second run starts at line 50 (its banner) and prints ``throughput: 886 qps`` (68)."""
    from trtlog.buildlog.performance import performances
    from trtlog.summary import summarize

    build = trtlog.parse(TWO_RUNS)
    assert build.lines[49].startswith("&&&& RUNNING TensorRT.trtexec")
    found = performances(build.events)
    assert [(p.run, p.throughput_qps) for p in found] == [(0, 479.452), (1, 886.0)]
    assert [p.run for p in performances(build.events, build.runs)] == [0, 1]
    summary = summarize(build)  # the last run
    assert summary.run == 1
    assert summary.performance is not None and summary.performance.run == 1
    one = summarize(build, 0)
    assert one.performance is not None and one.performance.run == 0


def test_lines_before_the_first_banner_belong_to_the_first_run() -> None:
    text = (
        "[I] [TRT] Original: 5 layers\n"
        "&&&& RUNNING TensorRT.trtexec # trtexec --batch=1\n"
        "[I] [TRT] Original: 6 layers\n"
        "&&&& RUNNING TensorRT.trtexec # trtexec --batch=2\n"
        "[I] [TRT] Original: 7 layers\n"
    )
    build = trtlog.parse_text(text)
    assert [(r.index, r.first_line) for r in build.runs] == [(0, 2), (1, 4)]
    counts = build.events_of("layer_count")
    assert [build.run_of(e).index for e in counts] == [0, 0, 1]  # type: ignore[union-attr]
    for i in range(len(build.runs)):
        assert build.events_in_run(i) == build.for_run(i).events
    assert build.layer_counts_frame()["run"].tolist() == [0, 0, 1]
