"""Engine builds: a log holds runs, a run holds builds, a build holds rounds.

Each build's figures are checked against the raw text of a real program that calls
``build_serialized_network`` three times (corpus) and of a fixture of the same shape.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.cli.main import main
from trtlog.exports.times import load_times
from trtlog.summary import summarize
from trtlog.summary.outcome import outcome_of, outcomes

THREE = (
    CORPUS / "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-"
    "3builds-profilingverbosity.log"
)
TWO = FIXTURES / "logs" / "trt10-like_python-two-builds_build-verbose.log"
SWEEP = CORPUS / "trt7.1_googlenet-caffe-int8-jetson_build-multi.log"
SWEEP_TIMES = CORPUS / "trt7.1_googlenet-caffe-int8-jetson_times.json"


def _raw(path: Path, pattern: str) -> list[tuple[int, str]]:
    """(line number, first group) of every line of ``path`` that ``pattern`` matches."""
    found = []
    text = path.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.split("\n"), 1):  # as grep -n counts lines
        m = re.search(pattern, line)
        if m:
            found.append((number, m.group(1)))
    return found


def _check_against_raw(path: Path) -> trtlog.Build:
    """Each build's first line, engine line and times equal the raw text's."""
    build = trtlog.parse(path)
    generated = _raw(path, r"Engine generation completed in ([\d.]+) seconds")
    parses = _raw(path, r"\] Input filename: +(\S+)")
    graph = _raw(path, r"Graph construction completed in ([\d.]+) seconds")
    optimization = _raw(path, r"Graph optimization time: ([\d.]+) seconds")
    sizes = _raw(path, r"Loaded engine size: (\d+) MiB")
    builds = build.builds
    assert len(builds) == len(parses) > 1
    # a build starts at its parse block (the dashes line above ``Input filename:``)
    lines = build.lines
    for b, (line, _name) in zip(builds[1:], parses[1:], strict=True):
        assert b.first_line == line - 1
        assert re.search(r"\[I\] -{20,}", lines[line - 2])
    assert builds[0].first_line == 1 and builds[-1].last_line == build.line_count
    for number, b in enumerate(builds):
        summary = summarize(build, engine_build=number)
        assert summary.build == number == b.number
        assert (summary.build_first_line, summary.build_last_line) == (b.first_line, b.last_line)

        def mine(rows: list[tuple[int, str]], b: trtlog.buildlog.EngineBuild = b) -> list[float]:
            return [float(v) for line, v in rows if b.first_line <= line <= b.last_line]

        assert b.engine_line == [line for line, _ in generated if b.contains(line)][-1]
        assert outcome_of(build, b).value == summary.build_outcome == "built"
        assert summary.outcome is not None and summary.outcome.build == number
        assert summary.engine_generation_seconds == pytest.approx(sum(mine(generated)))
        assert summary.graph_seconds == mine(graph)[0]
        # every graph-optimization time of the build, none of another build's
        assert summary.graph_optimization_seconds == pytest.approx(sum(mine(optimization)))
        assert summary.engine_size_mib == mine(sizes)[-1]
        row = summary.builds_table[number]
        assert row.engine_generation_seconds == summary.engine_generation_seconds
        assert row.graph_optimization_seconds == summary.graph_optimization_seconds
    return build


@needs_corpus
def test_three_build_serialized_network_calls_are_three_builds() -> None:
    build = _check_against_raw(THREE)
    # one backend strategy per build: one round each, as long as its build (before, the
    # three were one build's three rounds, and the first graph-optimization time, line 369,
    # sat outside every round while the second, line 1781, was counted in round 1)
    assert [(r.build, r.number, r.first_line, r.last_line) for r in build.rounds] == [
        (b.index, 0, b.first_line, b.last_line) for b in build.builds
    ]
    assert [b.engine_line for b in build.builds] == [1385, 2797, 4209]  # as the MANIFEST says


def test_a_fixture_of_two_builds_the_second_of_two_rounds() -> None:
    build = _check_against_raw(TWO)
    assert [(r.build, r.number, r.strategy, r.outcome, r.kept) for r in build.rounds] == [
        (0, 0, 2, None, True),
        (1, 0, 4, "initial", False),
        (1, 1, 3, "chosen", True),
    ]
    first = summarize(build, engine_build=0)
    assert first.rounds == [] and first.fusions_by_pass == {"ConvReluFusion": 1}
    last = summarize(build)  # the last build by default, its rounds in a table
    assert last.build == 1 and [r.number for r in last.rounds] == [0, 1]
    assert last.round == 1
    with pytest.raises(IndexError, match="2 engine build"):
        summarize(build, engine_build=2)


def test_for_build_is_the_build_s_events_with_its_run_s_header() -> None:
    build = trtlog.parse(TWO)
    for b in build.builds:
        view = build.for_build(b.index)
        assert [e.span for e in view.events] == [
            e.span for e in build.events if b.first_line <= e.span[0] <= b.last_line
        ]
        assert build.for_build(b.index) is view  # made once
        assert all(build.build_of(e) == b for e in view.events)


def test_events_between_is_a_slice_of_the_events_in_file_order() -> None:
    build = trtlog.parse(TWO)
    for first, last in ((1, 1), (3, 12), (20, 60), (52, 60)):
        assert build.events_between(first, last) == [
            e for e in build.events if first <= e.span[0] <= last
        ]


def test_a_trtexec_run_is_one_build_even_with_three_rounds() -> None:
    build = trtlog.parse(FIXTURES / "logs" / "trt10.16-like_three-rounds_build-verbose.log")
    assert [(b.first_line, b.last_line) for b in build.builds] == [(1, build.line_count)]
    assert [o.value for o in outcomes(build)] == ["built"]
    assert len(build.rounds) == 3


def test_summary_and_lint_address_builds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(TWO), "--build", "1"]) == 0
    out = capsys.readouterr().out
    assert "engine builds         2 in the run" in out
    assert "* below: build 1 of 2 (lines 1-24)" in out
    assert "builder rounds" not in out  # build 1 tried one strategy
    assert main(["summary", str(TWO), "--build", "3"]) == 2
    err = capsys.readouterr().err
    assert "--build 3: the run has 2 engine build(s), numbered from 1" in err
    assert main(["lint", str(TWO), "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["layers", str(TWO)]) == 2  # no layer dump in the build picked
    assert "using build 2 (lines 25-51); --build N picks another" in capsys.readouterr().err


@needs_corpus
@pytest.mark.filterwarnings("ignore::trtlog.exports.jsonio.JsonRepairWarning")  # 7 arrays
def test_times_of_a_sweep_pair_with_the_run_shown(capsys: pytest.CaptureFixture[str]) -> None:
    """7 runs and 7 arrays: each run gets its own array, and the text says which."""
    raw = SWEEP_TIMES.read_text(encoding="utf-8")
    # the records of each top-level array, counted in the raw text
    arrays = [chunk.count('"computeMs"') for chunk in re.split(r"\]\s*\[", raw)]
    batches = [int(v) for _line, v in _raw(SWEEP, r"&&&& RUNNING .*--batch=(\d+)")]
    assert len(arrays) == len(batches) == 7
    build = trtlog.parse(SWEEP)
    times = load_times(SWEEP_TIMES)
    for run in (0, 6):
        summary = summarize(build, run, times=times)
        assert summary.times_run == run
        assert summary.times is not None and summary.times.inferences == arrays[run]
    assert main(["summary", str(SWEEP), "--times", str(SWEEP_TIMES)]) == 0
    out = capsys.readouterr().out
    assert f"(its array 7: the run shown): {arrays[6]} inferences" in out
    assert arrays[6] != arrays[0]  # before, run 7 was shown with the first array's


def test_every_command_addresses_a_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """events, diff and report take --build (and --build-a/--build-b) as summary does."""
    build = trtlog.parse(TWO)
    first, second = build.builds
    assert main(["events", str(TWO), "--build", "1", "--format", "jsonl"]) == 0
    lines = [json.loads(x)["span"][0] for x in capsys.readouterr().out.splitlines()]
    assert lines and all(first.contains(n) for n in lines)
    assert main(["events", str(TWO), "--run", "1", "--format", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == build.event_count  # the whole run
    from trtlog.html.inputs import side

    shown = side(TWO, engine_build=0)
    assert shown.run_note is not None and "this page shows build 1 (lines 1-24)" in shown.run_note
    assert shown.build is not None
    assert [e.span for e in shown.build.events] == [e.span for e in build.for_build(0).events]
    last = side(TWO)
    assert last.run_note is not None and f"lines {second.first_line}-{second.last_line}" in (
        last.run_note
    )
    with pytest.raises(ValueError, match="2 engine builds"):
        side(TWO, engine_build=2)
    page = tmp_path / "p.html"
    assert main(["report", str(TWO), "-o", str(page), "--build", "1"]) == 0
    assert "this page shows build 1" in page.read_text(encoding="utf-8")


@needs_corpus
def test_diff_compares_two_builds_of_one_program(capsys: pytest.CaptureFixture[str]) -> None:
    """Build 1 (LAYER_NAMES_ONLY) against build 3 (DETAILED) of the cookbook program."""
    build = trtlog.parse(THREE)
    layers = [len(build.for_build(i).engine.layers) for i in (0, 2)]  # type: ignore[union-attr]
    # the engine listings of each build, counted in the raw text between its engine line
    # and the next build
    text = THREE.read_text(encoding="utf-8").split("\n")
    listed = [
        sum(1 for line in text[b.engine_line : b.last_line] if line.startswith("Layer("))
        for b in (build.builds[0], build.builds[2])
    ]
    assert main(["diff", str(THREE), str(THREE), "--build-a", "1", "--build-b", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    # (the version sits between "log" and the layer count)
    assert " — log (" in out[0] and out[0].endswith(
        f", {layers[0]} layers (builder listing: types and formats), optimizer passes"
    )
    assert f", {layers[1]} layers (detailed)" in out[1]
    assert layers[0] == listed[0]


@needs_corpus
def test_lint_lints_each_build_on_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    """Each finding names its build, and its evidence lies in that build's lines."""
    build = trtlog.parse(THREE)
    assert main(["lint", str(THREE), "--format", "json", "--fail-on", "never"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {f["build"] for f in findings} == {1, 2, 3}  # the reformat finding in each build
    for f in findings:
        scope = build.builds[f["build"] - 1]
        assert f["run"] is None
        assert all(scope.contains(n) for n in f["evidence"]["lines"]), f
    assert main(["lint", str(THREE), "--build", "2", "--format", "json"]) == 0
    only = json.loads(capsys.readouterr().out)["findings"]
    assert [f["rule"] for f in only] == [f["rule"] for f in findings if f["build"] == 2]
