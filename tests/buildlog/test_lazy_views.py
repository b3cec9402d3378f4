"""The views read a lazy build through the store: equal results, and no event built for nothing.

``summarize``, ``lint``, the merge graph, ``memory_frame`` and the report's raw-log
pack read only the kinds they need (``events_of``, ``counts``, ``Build.kind_rows``). Over every
fixture and corpus log, each gives what it gives on an eagerly parsed build (every event
built) and what a walk over every event gives, and a lazy build of one run and one builder
round still has no event list afterwards.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import trtlog
from tests.buildlog.test_store import LOGS, _eager, lazy_and_eager
from tests.test_golden_logs import FRAMES as GOLDEN_FRAMES
from trtlog.buildlog.memory import MEMORY_KINDS, _rows
from trtlog.buildlog.model import Build
from trtlog.graph.from_events import _Builder
from trtlog.graph.model import MergeGraph
from trtlog.parser.source import read_text
from trtlog.summary.collect import _is_error, summarize

#: The frames a lazy build makes from the store (the tactics frame has its own test).
FRAMES = tuple(f for f in GOLDEN_FRAMES if f != "tactics_frame")


def _id(path: Path) -> str:
    return path.name[:70]


def _flat(build: Build) -> list[tuple[int, int, str, str | None]]:
    """``Build.kind_rows`` as one list in file order."""
    rows = [
        (first, last, kind, severity)
        for kind, firsts, lasts, severities in build.kind_rows()
        for first, last, severity in zip(firsts, lasts, severities, strict=True)
    ]
    return sorted(rows)


def _unbuilt(build: Build) -> bool:
    return "events" not in build.__dict__


@pytest.mark.parametrize("path", LOGS, ids=_id)
def test_views_of_a_lazy_build_build_no_event_list(path: Path) -> None:
    """The engine, summarize, lint, the merge graph with its fates, the frames and the report.

    (The graphs themselves are compared in ``test_the_merge_graph_equals_a_walk_over_every_event``.)
    """
    import pandas as pd

    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    assert (lazy.engine is None) == (eager.engine is None)
    if lazy.engine is not None and eager.engine is not None:
        assert lazy.engine.model_dump() == eager.engine.model_dump()
    for name in FRAMES:
        pd.testing.assert_frame_equal(getattr(lazy, name)(), getattr(eager, name)(), obj=name)
    assert summarize(lazy).model_dump() == summarize(eager).model_dump()
    assert [f.model_dump() for f in trtlog.lint(lazy)] == [
        f.model_dump() for f in trtlog.lint(eager)
    ]
    assert lazy.merge_graph().fates() == eager.merge_graph().fates()
    assert trtlog.report(lazy) == trtlog.report(eager)
    # a build of several runs or engine builds is cut into views of parts of the store
    assert _unbuilt(lazy), "a view built every event"


@pytest.mark.parametrize("path", LOGS, ids=_id)
def test_every_run_build_and_round_of_a_lazy_build_holds_the_eager_one_s_events(
    path: Path,
) -> None:
    """Views cut from parts of the event store, without building the file's events."""
    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    views = [("for_run", i) for i in range(len(eager.runs))]
    views += [("for_build", i) for i in range(len(eager.builds))]
    views += [("for_round", i) for i in range(len(eager.rounds))]
    made = [getattr(lazy, name)(i) for name, i in views]
    if len(eager.rounds) > 1:
        first = eager.rounds[0]
        assert lazy.events_between(first.first_line, first.last_line) == eager.events_between(
            first.first_line, first.last_line
        )
    assert _unbuilt(lazy)
    for (name, i), view in zip(views, made, strict=True):
        reference = getattr(eager, name)(i)
        assert view.events == reference.events, (name, i)
        assert view.line_count == reference.line_count
        assert (view.trt_version, view.options) == (reference.trt_version, reference.options)


@pytest.mark.parametrize("path", LOGS, ids=_id)
def test_the_merge_graph_equals_a_walk_over_every_event(path: Path) -> None:
    """The graph reads only the kinds it has a handler for: the others change nothing."""
    import networkx as nx

    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    walked = MergeGraph(source=eager.source.name)
    builder = _Builder(walked, eager.pass_index)
    for event in eager.events:
        builder.event(event)
    reference = MergeGraph(source=eager.source.name)
    read = _Builder(reference, eager.pass_index)
    for event in eager.events_of(*read.kinds()):
        read.event(event)
    assert nx.utils.graphs_equal(walked, reference)
    assert (builder.order, builder.silent, builder.replaced) == (
        read.order,
        read.silent,
        read.replaced,
    )
    graph = lazy.merge_graph()
    assert nx.utils.graphs_equal(graph, eager.merge_graph())
    assert sorted(graph.edges(data=True), key=repr) == sorted(
        eager.merge_graph().edges(data=True), key=repr
    )


@pytest.mark.parametrize("path", LOGS, ids=_id)
def test_memory_figures_come_only_from_the_memory_kinds(path: Path) -> None:
    _info, text = read_text(path)
    # every event of the log: those of the eager build the other tests share (a lazy parse
    # gives the same list, test_store.py checks it), not a parse of its own
    for event in _eager(text).events:
        assert not _rows(event) or event.kind in MEMORY_KINDS, event.kind


@pytest.mark.parametrize("path", LOGS, ids=_id)
def test_warnings_and_errors_are_those_of_a_walk_over_every_event(path: Path) -> None:
    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    summary = summarize(lazy, run=0) if len(lazy.runs) > 1 else summarize(lazy)
    scope = eager.for_run(0) if len(eager.runs) > 1 else eager
    if len(scope.builds) > 1:  # the summary describes the run's last engine build
        scope = scope.for_build(len(scope.builds) - 1)
    assert summary.warnings == sum(1 for e in scope.events if e.severity == "warning")
    errors = [e for e in scope.events if _is_error(e)]
    assert summary.errors == len(errors)
    assert summary.first_errors == [scope.text_of(e).splitlines()[0].strip() for e in errors[:3]]


def test_a_failed_build_without_an_error_names_its_last_step() -> None:
    """The stopping point (summary) and the last step (build-failed) come from kind_rows."""
    text = (
        "&&&& RUNNING TensorRT.trtexec [TensorRT v8203] # trtexec --onnx=m.onnx\n"
        "[01/10/2024-21:52:52] [I] Start parsing network model\n"
        "[01/10/2024-21:52:52] [V] [TRT] Tactic: 0x1f Time: 0.5\n"
        "[01/10/2024-21:52:52] [V] [TRT] Tactic: 0x2f Time: 0.25\n"
        "\n"
        "&&&& FAILED TensorRT.trtexec [TensorRT v8203] # trtexec --onnx=m.onnx\n"
    )
    lazy, eager = lazy_and_eager(text)
    summary = summarize(lazy)
    assert (
        summary.stopped_after == "line 4: [01/10/2024-21:52:52] [V] [TRT] Tactic: 0x2f Time: 0.25"
    )
    assert summary.model_dump() == summarize(eager).model_dump()
    [finding] = [f for f in trtlog.lint(lazy) if f.rule == "build-failed"]
    assert "after line 4: [01/10/2024-21:52:52] [V] [TRT] Tactic: 0x2f" in finding.message
    assert finding.evidence.lines == (4, 6)
    assert _unbuilt(lazy)


@pytest.mark.parametrize("path", LOGS, ids=_id)
def test_questions_after_kind_rows_equal_the_eager_answers(path: Path) -> None:
    """kind_rows builds no event; the questions after it answer as an eager build."""
    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    expected = [(e.span[0], e.span[1], e.kind, e.severity) for e in eager.events]
    assert _flat(lazy) == expected
    assert _unbuilt(lazy)
    assert _flat(eager) == expected  # answered from the built events
    # each part is of one kind and in file order
    for _kind, firsts, lasts, severities in lazy.kind_rows():
        assert firsts == sorted(firsts)
        assert len(firsts) == len(lasts) == len(severities)
    assert lazy.counts() == eager.counts() and list(lazy.counts()) == list(eager.counts())
    for kind in reversed(eager.counts()):
        assert lazy.columns(kind) == eager.columns(kind), kind
        assert lazy.events_of(kind) == eager.events_of(kind), kind
    assert lazy.events == eager.events


@pytest.mark.parametrize(
    "line",
    [
        "[I] [TRT] Total Activation Memory: {big} bytes",
        "[I] [TRT] [BlockAssignment] Started assigning block shifts. "
        "This will take {big} steps to complete.",
        "[V] [TRT] Original: {big} layers",
    ],
)
def test_a_value_that_does_not_convert_is_not_taken_for_its_rules_kind(line: str) -> None:
    """An integer past Python's 4,300-digit limit: its rule's alternative matches, the value
    does not convert, the line is ``unrecognized`` in kind_rows as when parsed."""
    ok = line.format(big="12")
    bad = line.format(big="9" * 5000)
    text = "".join(f"[01/10/2024-21:00:00] {x}\n" for x in (ok, bad, ok, ok, bad))
    lazy, eager = lazy_and_eager(text)
    expected = [(e.span[0], e.span[1], e.kind, e.severity) for e in eager.events]
    assert [k for _a, _b, k, _s in expected].count("unrecognized") == 2
    assert _flat(lazy) == expected
    assert lazy.counts() == eager.counts()
    assert lazy.events == eager.events


@pytest.mark.parametrize(
    "text",
    [
        *(
            "",
            "a",
            "a\n",
            "\n\n",
            "a\nb",
            "é\nb\n",
            "a\r\nb\rc\n",
            "a\x1eb\nc\x0bd\x0c\n\x1c\x1d\n",
        ),
        *("x" * 5000 + "\n" + "y" * (1 << 21) + "\nz", "l\n" * 70_000, "l\n" * 70_000 + "\r"),
        *("é\n" * 70_000, "l\x1e\n" * 70_000, "l\n" * 70_000 + "\udc80\n"),
    ],
)
def test_line_starts_are_those_of_iter_lines(text: str) -> None:
    """Line starts cut lines where iter_lines does (extra separators stay in their line)."""
    from array import array
    from itertools import accumulate

    from trtlog.buildlog.model import line_starts
    from trtlog.parser.source import iter_lines

    expected = array("q", [0])
    expected.extend(accumulate(map(len, iter_lines(text))))
    assert line_starts(text) == expected


@pytest.mark.parametrize("path", LOGS, ids=_id)
def test_a_lazy_builds_line_count_is_its_texts(path: Path) -> None:
    """The scanner's line count, read without the index of the lines, is the text's."""
    from trtlog.buildlog.model import line_starts

    build = trtlog.parse(path)
    count = build.line_count
    assert "_line_starts" not in build.__dict__
    assert count == len(line_starts(build.to_text())) - 1
    plain = "\r" not in build.to_text()
    for ending in ("\r\n", "\r"):  # (a log whose lines end otherwise: each way of cutting)
        text = build.to_text().replace("\n", ending)
        lines = trtlog.parse_text(text).line_count
        assert lines == len(line_starts(text)) - 1
        assert lines == count or not plain


def test_the_log_pack_counts_lines_without_their_index() -> None:
    from trtlog.buildlog.model import line_starts
    from trtlog.html.page import LogPack

    text = "[I] [TRT] Original: 5 layers\n[W] [TRT] w\n" * 40_000 + "[I] [TRT] Final: 3 layers"
    build = trtlog.parse_text(text)
    assert "_line_starts" not in build.__dict__
    pack = LogPack(build)
    assert pack.lines == build.line_count == 80_001
    # the scanner counted the lines: the index of where each starts is made when first read
    assert "_line_starts" not in build.__dict__
    assert build.lines_text(80_001) == "[I] [TRT] Final: 3 layers"
    assert build.__dict__["_line_starts"] == line_starts(text)


def test_a_big_ascii_log_is_packed_a_chunk_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # a big ASCII log is encoded a megabyte at a time as it is compressed: neither the pack
    # nor its line starts encode the whole text
    import base64
    import gzip

    from trtlog.html import page as page_module

    text = "[I] [TRT] Original: 5 layers\n[W] [TRT] w\n" * 40_000 + "[I] [TRT] Final: 3 layers"
    build = trtlog.parse_text(text)
    monkeypatch.setattr(page_module, "FAST_ABOVE", 1 << 20)
    for use_isal in (True, False):
        monkeypatch.setattr(page_module, "USE_ISAL", use_isal)
        pack = page_module.LogPack(build)
        packed = base64.b64decode(pack.text)
        assert pack.big and pack.lines == build.line_count == 80_001
        assert packed[:3] == b"\x1f\x8b\x08" and packed[4:8] == b"\0\0\0\0"  # mtime 0
        assert gzip.decompress(packed).decode("ascii") == text


@pytest.mark.parametrize("use_isal", [True, False])
def test_a_text_packed_in_chunks_is_its_utf8(
    monkeypatch: pytest.MonkeyPatch, use_isal: bool
) -> None:
    # chunks are cut between characters: multi-byte ones and lone surrogates survive the cuts
    import base64
    import gzip

    from trtlog.html import page as page_module

    monkeypatch.setattr(page_module, "_CHUNK", 7)
    monkeypatch.setattr(page_module, "USE_ISAL", use_isal)
    text = "ab\u00e9c\U0001f600d\udc80e\n" * 50 + "\u4e2d\u6587"
    packed = base64.b64decode(page_module._b64_gzip(page_module._utf8_chunks(text), 6, True))
    assert gzip.decompress(packed) == text.encode("utf-8", "surrogatepass")


def test_a_big_logs_lines_are_its_text() -> None:
    text = "[I] [TRT] Original: 5 layers\n[W] [TRT] é\n" * 3000 + "[I] [TRT] Final: 3 layers"
    build = trtlog.parse_text(text.replace("é", "e"))
    assert build.line_count == 6001
    assert "".join(build.lines_text(n) for n in range(1, 6002)) == text.replace("é", "e")
    assert build.lines_text(6001) == "[I] [TRT] Final: 3 layers"
