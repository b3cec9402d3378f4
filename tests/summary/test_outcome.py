"""The one outcome per build (trtlog.summary.outcome), checked against the raw text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, corpus_logs, needs_corpus
from trtlog.summary import summarize
from trtlog.summary.outcome import OUTCOMES, outcome_of, outcomes, tactic_exceptions

CASES = FIXTURES / "cases"


def _line_of(path: Path, pattern: str) -> int:
    """The 1-based number of the last raw line matching ``pattern``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [i for i, text in enumerate(lines, 1) if re.search(pattern, text)]
    assert found, pattern
    return found[-1]


@pytest.mark.parametrize(
    ("name", "value", "cause", "pattern"),
    [
        ("trt8.6-trtexec_killed-after-engine-generation.log", "killed", "killed", r"^Killed$"),
        ("trt8.5-trtexec_segfault-during-tuning.log", "failed", "crash", "Segmentation fault"),
        (
            "trt10.14-trtexec_cask-pooling-every-tactic_FAILED.log",
            "failed",
            "tactic-exception",
            "Error Code 10",
        ),
        (
            "trt10.3-trtexec_help-then-empty-unknown-options.log",
            "failed",
            "command-line",
            r"Unknown option: ",
        ),
        (
            "trt8.6-one-line_cannot-be-quantized.txt",
            "failed",
            "quantization",
            "cannot be quantized",
        ),
        ("polygraphy_tensor-volume-exceeds.txt", "failed", "tensor-volume", "tensor volume"),
        ("app-logger-tab_no-implementation.txt", "failed", "no-implementation", "Error Code 10"),
        ("trt10.4-trtexec_skip-recovered_PASSED.log", "built", None, "Engine built in"),
        ("trt8.6-trtexec_loadEngine-run.log", "no-build", None, "Loaded engine size"),
        ("trt8.6-trtexec_cut-off-mid-build.log", "incomplete", None, "Tactic Name"),
    ],
)
def test_outcome_and_the_line_that_shows_it(
    name: str, value: str, cause: str | None, pattern: str
) -> None:
    path = CASES / name
    found = outcome_of(trtlog.parse(path))
    assert (found.value, found.cause) == (value, cause)
    if value == "failed" and cause in ("command-line", "tactic-exception", "no-implementation"):
        # the first error quoted: the first raw line of its kind
        lines = path.read_text(encoding="utf-8").splitlines()
        first = next(i for i, t in enumerate(lines, 1) if re.search(pattern, t))
        assert found.line == first
    else:
        assert found.line == _line_of(path, pattern)


def test_tactic_exceptions_judged_by_their_consequence() -> None:
    failed = CASES / "trt10.14-trtexec_cask-pooling-every-tactic_FAILED.log"
    raw = failed.read_text(encoding="utf-8")
    skipped = len(re.findall(r"Skipping tactic 0x[0-9a-f]+ due to exception", raw))
    found = tactic_exceptions(trtlog.parse(failed))
    assert len(found) == skipped == 3
    assert all(t.fatal and t.kind == "kernel" for t in found)
    assert {t.layer for t in found} == {"/backbone/pool1/MaxPool"}
    recovered = tactic_exceptions(trtlog.parse(CASES / "trt10.4-trtexec_skip-recovered_PASSED.log"))
    assert [(t.tactic, t.fatal) for t in recovered] == [("0x3197d5044d71e98e", False)]
    myelin = tactic_exceptions(trtlog.parse(CASES / "trt10-paste_myelin-no-tactics.txt"))
    assert [(t.kind, t.fatal) for t in myelin] == [("myelin", True)]


def test_verbose_is_read_from_the_command_line_and_the_lines() -> None:
    verbose = outcome_of(
        trtlog.parse(CASES / "trt10.3-trtexec_help-then-empty-unknown-options.log")
    )
    assert verbose.verbose  # --verbose on the command line, no [V] line at all
    quiet = outcome_of(trtlog.parse(CASES / "trt8.6-trtexec_killed-after-engine-generation.log"))
    assert not quiet.verbose


def test_summary_shows_the_outcome() -> None:
    s = summarize(trtlog.parse(CASES / "trt8.6-trtexec_killed-after-engine-generation.log"))
    assert s.outcome is not None and s.outcome.value == "killed"
    assert "outcome               killed (killed): line 15: Killed" in s.to_text()


@needs_corpus
def test_every_run_of_a_multi_run_log_has_its_outcome() -> None:
    path = CORPUS / "trt7.1_resnet50-caffe-fp16-jetson_build-multi.log"
    raw = path.read_text(encoding="utf-8")
    build = trtlog.parse(path)
    found = outcomes(build)
    assert len(found) == len(re.findall(r"^&&&& RUNNING", raw, flags=re.M)) == 7
    assert [o.value for o in found] == ["built"] * 7
    # 7.1 prints no engine line: the builder's last line says the engine was made
    ends = [i for i, t in enumerate(raw.splitlines(), 1) if "] Detected 1 inputs and" in t]
    assert [o.line for o in found] == ends
    s = summarize(build)
    assert [r.outcome for r in s.runs_table] == ["built"] * 7


@needs_corpus
@pytest.mark.parametrize("path", corpus_logs(), ids=lambda p: p.name)
def test_corpus_logs_outcomes_agree_with_their_raw_text(path: Path) -> None:
    raw = path.read_text(encoding="utf-8", errors="replace")
    build = trtlog.parse(path)
    found = outcome_of(build)
    assert found.value in OUTCOMES
    footer = re.findall(r"^&&&& (PASSED|FAILED)", raw, flags=re.M)
    if (footer and footer[-1] == "FAILED") or "Assertion `" in raw.splitlines()[-1]:
        assert found.value == "failed"
    elif re.search(r"Engine built in [\d.]+ sec", raw):
        assert found.value == "built"
        # the line shown is an engine line of the raw text
        assert re.search(
            r"Engine built in|Created engine with size|Engine generation completed|"
            r"Engine Layer Information|Layers:|Bindings",
            build.lines_text(found.line or 1),
        )
    elif re.search(r"Engine (?:deserialized|loaded) in", raw) and "--loadEngine" in raw:
        assert found.value == "no-build"
    assert found.value != "failed" or "FAILED" in path.name or "CRASH" in path.name


THREE = (
    CORPUS / "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-"
    "3builds-profilingverbosity.log"
)
SECOND_KILLED = FIXTURES / "logs" / "trt10-like_python-two-builds_second-killed.log"


def _raw_lines(path: Path, pattern: str) -> list[int]:
    """The 1-based numbers of the raw lines matching ``pattern``."""
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    return [i for i, text in enumerate(lines, 1) if re.search(pattern, text)]


@needs_corpus
def test_one_outcome_per_engine_build_of_a_program_that_built_three_times() -> None:
    build = trtlog.parse(THREE)
    found = outcomes(build)
    engines = _raw_lines(THREE, r"Engine generation completed in [\d.]+ seconds")
    parses = _raw_lines(THREE, r"\] Input filename: ")
    # one outcome per build, as many as the raw text's parse blocks and engine lines
    assert len(found) == len(build.builds) == len(parses) == len(engines) == 3
    for o, b, engine in zip(found, build.builds, engines, strict=True):
        assert (o.value, o.run, o.build) == ("built", b.run, b.number)
        assert (o.first_line, o.last_line) == (b.first_line, b.last_line)
        assert b.engine_line == engine and o.line is not None
        assert b.contains(o.line) and o.line >= engine  # the engine line or a later engine fact
        assert outcome_of(build, b) == o
    s = summarize(build)
    assert [r.outcome for r in s.builds_table] == ["built"] * 3
    assert s.outcome == found[-1] and s.build_outcome == "built"


def test_a_killed_second_build_is_the_second_build_s_outcome() -> None:
    build = trtlog.parse(SECOND_KILLED)
    killed = _raw_lines(SECOND_KILLED, r"^Killed$")
    engine = _raw_lines(SECOND_KILLED, r"Engine generation completed")
    parses = _raw_lines(SECOND_KILLED, r"\] Input filename: ")
    assert len(killed) == len(engine) == 1 and len(parses) == 2
    first, second = outcomes(build)
    assert (first.value, first.build, first.line) == ("built", 0, engine[0])
    assert (second.value, second.cause, second.build, second.line) == (
        "killed",
        "killed",
        1,
        killed[0],
    )
    assert second.first_line == parses[1] - 1  # the dashes line that opens its parse block
    # the log's view: its last build; each build's row and summary its own
    assert outcome_of(build) == second
    assert summarize(build).outcome == second
    assert summarize(build, engine_build=0).outcome == first
    assert [r.outcome for r in summarize(build).builds_table] == ["built", "killed"]
    # lint reports the second build, named as such, not the first
    failed = [f for f in trtlog.lint(build) if f.rule == "build-failed"]
    assert len(failed) == 1 and failed[0].evidence.lines == (killed[0],)
    assert failed[0].subject == "build 2"


def test_a_failed_second_build_leaves_the_first_built() -> None:
    text = SECOND_KILLED.read_text(encoding="utf-8").replace(
        "Killed\n",
        "[12/07/2026-05:10:05] [TRT] [E] 10: Could not find any implementation for node conv1.\n",
    )
    build = trtlog.parse_text(text)
    assert [(o.build, o.value, o.cause) for o in outcomes(build)] == [
        (0, "built", None),
        (1, "failed", "no-implementation"),
    ]
    assert outcomes(build)[1].line == text.count("\n")  # the error, the last line
    assert outcomes(build)[1].node == "conv1"


def test_a_tactic_exception_belongs_to_its_own_build_only() -> None:
    """An ``[E]`` tactic-exception line of the first of two builds is not the second's.

    Each engine build takes its own lines' errors (by bisection over their lines); the
    whole file's errors were once read for every build, so build 2 listed build 1's exception.
    """
    lines = (
        (FIXTURES / "logs" / "trt10-like_python-two-builds_build-verbose.log")
        .read_text(encoding="utf-8")
        .splitlines(keepends=True)
    )
    first = trtlog.parse_text("".join(lines)).builds[0]
    lines.insert(
        first.first_line + 5,
        "[12/07/2026-05:10:02] [TRT] [E] 10: Skipping tactic 0x0000000000000000 due to "
        "exception [myelin] no tactics to implement operation\n",
    )
    text = "".join(lines)
    (line,) = [
        n for n, t in enumerate(text.splitlines(), 1) if re.search(r"Skipping tactic \S+ due", t)
    ]
    b = trtlog.parse_text(text)
    assert len(b.builds) == 2 and b.builds[0].first_line <= line <= b.builds[0].last_line
    one, two = outcomes(b)
    assert [t.line for t in one.exceptions] == [line]
    assert two.exceptions == ()
    assert [t.line for t in tactic_exceptions(b)] == [line]  # listed once, not per build
