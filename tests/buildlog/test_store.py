"""The event store and the scanner give what the line parser gives.

``trtlog.parse`` scans a log (one-line messages as rows of their grammar alternative, other
lines through the line parser) and builds ``Build.events`` on first access. The reference is
the line parser's ``feed`` on every line, with no rows at all; the line parser's own loop
(``iter_events``, ``strict=True``) must agree too. Every fixture and corpus log must give
identical events, counts, per-kind lists and headers, and the piece boundaries of the scanner
must not matter.
"""

from __future__ import annotations

import functools
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trtlog
from tests.conftest import FIXTURES, corpus_logs
from trtlog.buildlog.header import derive_header
from trtlog.buildlog.model import Build, SourceMeta
from trtlog.buildlog.parsing import build_of_text
from trtlog.buildlog.store import EventStore
from trtlog.parser.source import iter_lines, read_text
from trtlog.parser.stream import LogParser

LOGS = sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs()


def lazy_and_eager(text: str, piece: int | None = None) -> tuple[Build, Build]:
    """A fresh lazy build of ``text`` and its eager reference (made once per text: the tests
    only read it, and a worker runs one file's tests, so the many tests over one log share it).
    """
    meta = SourceMeta(name="<test>")
    lazy = (
        build_of_text(text, meta, strict=False)
        if piece is None
        else build_of_text(text, meta, strict=False, piece=piece)
    )
    return lazy, _eager(text)


@functools.cache
def _eager(text: str) -> Build:
    """Every line through ``LogParser.feed``: no line read as a row."""
    parser = LogParser(source="<test>")
    events: list[trtlog.events.Event] = []
    for n, raw in enumerate(iter_lines(text), 1):
        out = parser.feed(n, raw)
        if out is not None:
            events.extend(out if isinstance(out, list) else [out])
    events.extend(parser.close())
    n_lines = events[-1].span[1] if events else 0
    header = derive_header(events, n_lines)
    return Build.model_construct(
        source=SourceMeta(name="<test>"),
        text=text,
        events=events,
        **header.build_fields(),
    )


def _store(build: Build) -> EventStore:
    store = build.__dict__.get("_store")
    assert isinstance(store, EventStore), "the build did not come from the scanner"
    return store


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_lazy_parse_equals_eager_parse(path: Path) -> None:
    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    store = _store(lazy)
    # answered from the store, before any event list exists; the kinds asked one by one
    assert "events" not in lazy.__dict__
    kinds = list(reversed(eager.counts()))
    for kind, neighbour in zip(kinds, kinds[1:] + kinds[:1], strict=True):
        assert lazy.columns(kind) == eager.columns(kind), kind
        assert lazy.events_of(kind) == eager.events_of(kind), kind
        # two kinds at once come in file order (each kind with the next rarer one: pairing
        # every kind with "unrecognized" compared 100k events per kind on a noisy log)
        assert lazy.events_of(kind, neighbour) == eager.events_of(kind, neighbour), kind
    assert lazy.events_of(*kinds) == eager.events_of(*kinds)
    assert lazy.counts() == eager.counts()
    assert list(lazy.counts()) == list(eager.counts())  # the same order, ties included
    assert lazy.event_count == len(eager.events)
    assert (lazy.runs, lazy.trt_version, lazy.command_line, lazy.options, lazy.device) == (
        eager.runs,
        eager.trt_version,
        eager.command_line,
        eager.options,
        eager.device,
    )
    assert lazy.rounds == eager.rounds
    assert "events" not in lazy.__dict__
    # every event, in file order; the objects events_of gave are the ones in the list
    assert lazy.events == eager.events
    # the same fields in the same order (model_dump follows __dict__'s order), and the dumps
    # of the first event of each kind equal (== above already compared every field)
    assert [list(e.__dict__) for e in lazy.events] == [list(e.__dict__) for e in eager.events]
    first = {e.kind: i for i, e in reversed(list(enumerate(eager.events)))}
    for i in first.values():
        assert list(lazy.events[i].model_dump().items()) == list(
            eager.events[i].model_dump().items()
        )
    assert lazy == eager
    assert store.n_lines == lazy.line_count


def test_events_are_built_once_and_shared() -> None:
    path = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
    build = trtlog.parse(path)
    kind = next(iter(build.counts()))
    first = build.events_of(kind)
    assert all(e is f for e, f in zip(first, build.events_of(kind), strict=True))
    by_id = {id(e) for e in build.events}
    assert all(id(e) in by_id for e in first)
    assert build.events is build.events


def test_a_lazy_build_pickles_and_round_trips_through_json() -> None:
    path = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
    build = trtlog.parse(path)
    again = pickle.loads(pickle.dumps(build))  # our own object
    assert "_store" not in again.__dict__
    assert again.events == build.events
    fresh = trtlog.parse(path)
    assert Build.model_validate_json(fresh.model_dump_json()) == build
    assert fresh == build


def test_validated_and_parsed_events_dump_their_keys_in_one_order() -> None:
    build = trtlog.parse_text(
        "[01/10/2024-21:52:52] [V] [TRT] Tactic: 0x1f Time: 0.5\n"
        "[01/10/2024-21:52:52] [V] [TRT] Running: ConvReluFusion on conv\n"
    )
    for event in build.events:
        again = type(event).model_validate(event.model_dump())
        assert list(event.model_dump()) == list(again.model_dump())
        assert list(event.model_dump())[:3] == ["kind", "span", "severity"]


def test_columns_of_a_hot_kind_are_typed() -> None:
    text = "".join(
        f"[01/10/2024-21:52:52] [V] [TRT] Tactic: 0x{i:016x} Time: 0.{i}\n" for i in range(1, 9)
    )
    build = trtlog.parse_text(text)
    columns = build.columns("tactic_timing")
    assert columns["line"] == list(range(1, 9))
    assert columns["tactic"] == list(range(1, 9))
    assert columns["time_ms"] == [float(f"0.{i}") for i in range(1, 9)]
    assert set(columns) >= {"line", "end_line", "severity", "tactic", "time_ms"}
    with pytest.raises(ValueError, match="tactic_timng"):
        build.columns("tactic_timng")


# -- piece boundaries ---------------------------------------------------------------------

_V = "[01/10/2024-21:52:52] [V] [TRT] "
_LINES = [
    _V + "Tactic Name: sm80_xmma_gemm Tactic: 0x00000000000003e8 Time: 0.0712",
    "[01/10/2024-21:52:52] [V] [TRT] Tactic: 0x00000000000003ea Time: 0.5",
    "[01/10/2024-21:52:52] [V] [TRT] Tactic: 0123 Time: 1.5",
    "[01/10/2024-21:52:52] [V] [TRT] Fastest Tactic: 0x00000000000003e8 Time: 0.0712",
    "[01/10/2024-21:52:52] [V] [TRT] Running: ConvReluFusion on /m/conv_é",
    "[01/10/2024-21:52:52] [V] [TRT] ConvReluFusion: Fusing /m/conv_é with /m/relu_層",
    "[01/10/2024-21:52:52] [V] [TRT] Removing /m/relu_層",
    _V + "--------------- Timing Runner: /m/conv (CaskConvolution[0x80000009])",
    "[01/10/2024-21:52:52] [V] [TRT] Removing trailing blank ",
    "[01/10/2024-21:52:52] [V] [TRT] Removing trailing nbsp\xa0",
    "[01/10/2024-21:52:52] [I] === Build Options ===",
    "[01/10/2024-21:52:52] [I] Precision: FP32+FP16",
    "[01/10/2024-21:52:52] [I] ",
    "[01/10/2024-21:52:52] [I] [TRT] Original: 5 layers",
    "not a log line at all 🙂",
    "",
    "\x1b[33m[01/10/2024-21:52:52] [W] [TRT] colour\x1b[0m",
    _V + "Tactic: 0x1000000000000003e8 Time: 0.5",  # past 64 bits: unrecognized
    _V + "Removing /m/0123456789abcdef01234",  # 17 hex digits in a name: not hot, parsed
]


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_LINES), min_size=1, max_size=40),
    endings=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=40, max_size=40),
    piece=st.integers(min_value=1, max_value=300),
    last=st.booleans(),
)
def test_piece_boundaries_do_not_matter(
    lines: list[str], endings: list[str], piece: int, last: bool
) -> None:
    """Messages split across pieces, CRLF across a boundary, multi-byte characters."""
    text = "".join(line + end for line, end in zip(lines, endings, strict=False))
    if not last:
        text = text.rstrip("\r\n")
    if not text.strip():
        return
    try:
        build_of_text(text, SourceMeta(name="<t>"), strict=False, lines=iter_lines(text))
    except trtlog.InputError:
        with pytest.raises(trtlog.InputError):
            build_of_text(text, SourceMeta(name="<t>"), strict=False, piece=piece)
        return
    lazy, eager = lazy_and_eager(text, piece)
    assert lazy.counts() == eager.counts()
    assert lazy.events == eager.events
    assert lazy.to_text() == text


@settings(max_examples=40, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_LINES[:9]), min_size=1, max_size=30),
    crlf=st.booleans(),
    piece=st.integers(min_value=1, max_value=200),
)
def test_hot_lines_across_pieces(lines: list[str], crlf: bool, piece: int) -> None:
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    lazy, eager = lazy_and_eager(text, piece)
    assert lazy.events == eager.events


@pytest.mark.parametrize("piece", [60, 300, 1 << 22])
def test_a_long_number_is_left_to_the_line_parser(piece: int) -> None:
    """A tactic of 17+ hex digits is no row: the line parser makes it ``unrecognized``.

    A name holding a long hex run is read as a row all the same.
    """
    tactic = _V + "Tactic: 0x{:016x} Time: 0.5\n"
    lines = [tactic.format(i) for i in range(40)]
    lines[25] = _V + "Tactic: 0x1000000000000003e8 Time: 0.5\n"
    lines[30] = _V + "Tactic Name: k0123456789abcdef012 Tactic: 0x5 Time: 0.5\n"
    text = "".join(lines)
    lazy, eager = lazy_and_eager(text, piece)
    assert lazy.events == eager.events
    assert lazy.counts() == {"tactic_timing": 39, "unrecognized": 1}
    assert lazy.events[25].kind == "unrecognized"
    assert lazy.events[30].tactic_name == "k0123456789abcdef012"  # type: ignore[union-attr]


def test_a_decimal_tactic_with_a_leading_zero_parses() -> None:
    """``Tactic: 0123`` raised ValueError (``int(text, 0)``); it is tactic 123."""
    line = "[01/10/2024-21:52:52] [V] [TRT] Tactic: 0123 Time: 0.5\n"
    for build in lazy_and_eager(line * 6):
        assert [e.tactic for e in build.of(trtlog.events.TacticTiming)] == [123] * 6


@pytest.mark.parametrize("path", sorted((FIXTURES / "logs").glob("*.log")), ids=lambda p: p.name)
def test_streaming_and_strict_parsing_give_the_same_events(path: Path) -> None:
    """``iter_events`` and ``strict=True`` read line by line, eagerly; same events."""
    lazy = trtlog.parse(path)
    assert "_store" in lazy.__dict__
    assert list(trtlog.iter_events(path)) == lazy.events
    try:
        strict = trtlog.parse(path, strict=True)
    except trtlog.InputError:
        return  # a fixture with a line its grammar rule does not parse
    assert "_store" not in strict.__dict__
    assert strict.events == lazy.events


@settings(max_examples=40, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_LINES[:13]), min_size=1, max_size=25),
    crlf=st.booleans(),
    codec=st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]),
    gz=st.booleans(),
    read_piece=st.integers(min_value=1, max_value=64),
)
def test_reading_in_small_pieces_keeps_the_text(
    lines: list[str], crlf: bool, codec: str, gz: bool, read_piece: int
) -> None:
    """A multi-byte character or a CRLF cut between two read pieces decodes whole."""
    import gzip

    import trtlog.parser.source as source

    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    data = text.encode(codec)
    if gz:
        data = gzip.compress(data)
    before = source.READ_PIECE
    source.READ_PIECE = read_piece
    try:
        build = trtlog.parse(data)
    finally:
        source.READ_PIECE = before
    assert build.to_text() == text
    assert build.events == trtlog.parse_text(text).events


def test_a_message_ending_in_any_whitespace_is_read_as_the_line_parser_reads_it() -> None:
    """``feed`` strips every trailing whitespace character (``str.rstrip``), not only blanks."""
    text = "".join(
        f"[01/10/2024-21:52:52] [V] [TRT] Removing layer{i}{end}\n"
        for i in range(6)
        for end in ("", "\xa0", "\x0c", " ")
    )
    lazy, eager = lazy_and_eager(text)
    assert lazy.events == eager.events
    assert {e.layer for e in lazy.of(trtlog.events.LayerRemoved)} == {f"layer{i}" for i in range(6)}
    assert list(trtlog.iter_events(iter_lines(text))) == eager.events
