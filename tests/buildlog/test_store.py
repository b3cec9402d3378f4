"""The event store and the scanner give what the line parser gives (issue 14).

``trtlog.parse`` scans a log (hot shapes as rows, other lines through the line parser, some
parsed on demand) and builds ``Build.events`` on first access; the eager path (the line
parser on every line, as ``strict=True`` and ``iter_events`` use it) is the reference. Every
fixture and corpus log must give identical events, counts, per-kind lists and headers both
ways, and the piece boundaries of the scanner must not matter.
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
from trtlog.buildlog.model import Build, SourceMeta
from trtlog.buildlog.parsing import build_of_text
from trtlog.buildlog.store import EventStore, family_kinds, route_kinds
from trtlog.buildlog.tactics import _engine_tactics
from trtlog.parser.scanner import Unusual, _one_line, scan
from trtlog.parser.source import iter_lines, read_text
from trtlog.parser.stream import Deferred, LogParser

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
    return build_of_text(text, SourceMeta(name="<test>"), strict=False, lines=iter_lines(text))


def _store(build: Build) -> EventStore:
    store = build.__dict__.get("_store")
    assert isinstance(store, EventStore), "the build did not come from the scanner"
    return store


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_lazy_parse_equals_eager_parse(path: Path) -> None:
    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    store = _store(lazy)
    # answered from the store, before any event list exists; the kinds asked one by one,
    # the rare ones first, so that each question parses only the deferred messages that may
    # answer it (the store's index) while most stay unparsed
    assert "events" not in lazy.__dict__
    kinds = list(reversed(eager.counts()))
    for kind, neighbour in zip(kinds, kinds[1:] + kinds[:1], strict=True):
        # columns first: a hot shape's (and a matched deferred message's) from the kept
        # texts (parser/columns.py), no events built
        assert lazy.columns(kind) == eager.columns(kind), kind
        assert lazy.events_of(kind) == eager.events_of(kind), kind
        # two kinds at once come in file order (each kind with the next rarer one: pairing
        # every kind with "unrecognized" compared 100k events per kind on a noisy log)
        assert lazy.events_of(kind, neighbour) == eager.events_of(kind, neighbour), kind
    assert lazy.events_of(*kinds) == eager.events_of(*kinds)
    assert all(e.__class__ is not Deferred for e in store._cold)
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


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_deferred_messages_give_a_kind_of_their_family(path: Path) -> None:
    """The store skips deferred messages of families that cannot give a wanted kind."""
    _info, text = read_text(path)
    try:
        found = scan(text, LogParser())
    except Unusual:
        pytest.skip("read line by line")
    for item in found.cold:
        if isinstance(item, Deferred):
            event = item.event()
            assert event.kind in family_kinds(item.route.family), (event.kind, item.message)
            assert event.kind in route_kinds(item.route), (event.kind, item.message)


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


def test_one_line_rewrite_keeps_a_match_on_its_line() -> None:
    regex, risky = _one_line(r"Removing (?P<g1>(?>(?s:.+)))")
    assert "(?s:" not in regex and not risky
    regex, risky = _one_line(r"a (?P<g1>[^()]*) b$")
    assert "[^\\n()]" in regex and "(?=\\r?$)" in regex and not risky
    assert _one_line(r"a\s+b")[1]
    assert not _one_line(r"(?i:inf|nan)")[1]
    # a negated class excludes \n already (the kernel name of a timing line): not risky
    regex, risky = _one_line(r"Name: (?P<g1>(?>[^\s]+)) T")
    assert r"[^\n\s]" in regex and not risky
    assert _one_line(r"a[\s,]b")[1] and _one_line(r"a[^x]\Wb")[1]


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
        eager = build_of_text(text, SourceMeta(name="<t>"), strict=False, lines=iter_lines(text))
    except trtlog.InputError:
        with pytest.raises(trtlog.InputError):
            build_of_text(text, SourceMeta(name="<t>"), strict=False, piece=piece)
        return
    lazy = build_of_text(text, SourceMeta(name="<t>"), strict=False, piece=piece)
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
    lazy = build_of_text(text, SourceMeta(name="<t>"), strict=False, piece=piece)
    eager = build_of_text(text, SourceMeta(name="<t>"), strict=False, lines=iter_lines(text))
    assert lazy.events == eager.events


@pytest.mark.parametrize("piece", [60, 300, 1 << 22])
def test_a_long_hex_run_keeps_its_line_from_the_hot_shapes(piece: int) -> None:
    """A message with 17+ hex digits is never hot, in a piece with or without the guard.

    Its tactic does not fit 64 bits: the line parser makes it ``unrecognized``. The scanner
    checks each piece for such a run and scans a piece without one with the unguarded
    pattern; the events are the eager ones whichever piece holds the run.
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


@pytest.mark.parametrize("piece", [700, 1 << 22])
def test_hot_rows_keep_their_texts_and_share_repeated_ones(piece: int) -> None:
    """A row's group texts are kept (no second match); a repeated text is one object."""
    kernels = ["sm80_xmma_gemm_a", "sm80_xmma_gemm_b"]
    text = "".join(
        _V + f"Tactic Name: {kernels[i % 2]} Tactic: 0x{i:016x} Time: 0.{i}\n" for i in range(300)
    )
    lazy, eager = lazy_and_eager(text, piece)
    (hot,) = _store(lazy)._hot
    rows = hot.rows
    assert rows.width == 4 and len(rows.texts) == 4 * 300
    assert rows.letters() == ["V"] * 300
    names, tactics, times = rows.groups()
    assert names == [kernels[i % 2] for i in range(300)]
    assert len({id(t) for t in names}) == 2  # shared: one object per kernel name
    assert len({id(t) for t in tactics}) == 300  # distinct texts are left alone
    assert times[7] == "0.7"
    assert lazy.columns("tactic_timing")["tactic"] == list(range(300))
    assert lazy.events == eager.events


def test_a_decimal_tactic_with_a_leading_zero_parses() -> None:
    """``Tactic: 0123`` raised ValueError (``int(text, 0)``); it is tactic 123."""
    line = "[01/10/2024-21:52:52] [V] [TRT] Tactic: 0123 Time: 0.5\n"
    for build in lazy_and_eager(line * 6):
        assert [e.tactic for e in build.of(trtlog.events.TacticTiming)] == [123] * 6


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_tactics_frame_from_columns_equals_the_per_event_frame(path: Path) -> None:
    """The columnar tactics frame, lazy and eager, equals trtlog 0.1's per-event one."""
    import pandas as pd

    from tests.frames.reference_tactics import reference_tactics_frame

    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    expected = reference_tactics_frame(eager)
    pd.testing.assert_frame_equal(lazy.tactics_frame(), expected)
    pd.testing.assert_frame_equal(eager.tactics_frame(), expected)
    assert "events" not in lazy.__dict__  # built from columns and the kinds it reads
    assert "engine" not in lazy.__dict__  # in_engine from the dump's records, no engine built


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_engine_tactics_are_those_of_the_engine(path: Path) -> None:
    """The tactics frame's engine layers (no engine built) are ``Build.engine``'s."""
    from tests.frames.reference_tactics import _engine_layer_dtypes, _engine_layer_tactics
    from trtlog.engine.from_log import DUMP_EVENTS, engine_tactics

    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    kinds = [c.model_fields["kind"].default for c in DUMP_EVENTS]
    expected = (_engine_layer_tactics(eager), _engine_layer_dtypes(eager))
    assert _engine_tactics(lazy) == expected  # first: the walk from the end, on a fresh build
    assert engine_tactics(lazy.events_of(*kinds)) == expected
    assert engine_tactics(eager.events) == expected


def _dump_round(k: int) -> str:
    """A builder round's two layer dumps: the listing, then the detailed inspector dump."""
    names = [f"/r{k}/conv{i} + /r{k}/relu{i}" for i in range(3)]
    tensor = "Location: Device, Dimensions: [1,8], Format/Datatype: Row major linear FP32 format"
    return (
        "[01/10/2024-21:52:52] [V] [TRT] Engine Layer Information:\n"
        + "".join(
            f"Layer(CaskConvolution): {name}, Tactic: 0x{k:08x}{i:08x}, "
            f"in{i} (Float[1,8]) -> out{i} (Float[1,8])\n"
            for i, name in enumerate(names)
        )
        + "[01/10/2024-21:52:52] [I] Layers:\n"
        + "".join(
            f"Name: {name}, LayerType: CaskConvolution, Inputs: [ {{ Name: in{i}, {tensor} }}], "
            f"Outputs: [ {{ Name: out{i}, {tensor} }}], ParameterType: Convolution, "
            f"Kernel: [3,3], TacticValue: 0x{k + 1:08x}{i:08x}, StreamId: 0\n"
            for i, name in enumerate(names)
        )
        + "[01/10/2024-21:52:52] [I] \n"
    )


def test_the_engine_tactics_walk_parses_only_the_last_detailed_dump() -> None:
    """A log with a listing and a detailed dump per round: the last detailed one is read."""
    from trtlog.engine.from_log import engine_tactics

    text = _dump_round(1) + _dump_round(2) + _dump_round(3)
    lazy, eager = lazy_and_eager(text)
    tactics, dtypes = _engine_tactics(lazy)
    assert (tactics, dtypes) == engine_tactics(eager.events)
    assert tactics == {f"/r3/conv{i} + /r3/relu{i}": (4 << 32) + i for i in range(3)}
    # the records of the earlier rounds (and the last listing) were never parsed
    store = _store(lazy)
    parsed = [e.span[0] for e in store._cold if e.__class__ is not Deferred]
    deferred = [e.span[0] for e in store._cold if e.__class__ is Deferred]
    last_dump = text.count("\n") - 4  # the last round's "Layers:" line
    assert deferred and max(deferred) < last_dump
    records = [e for e in store._cold if e.__class__ is not Deferred and e.span[0] > last_dump]
    assert [e.kind for e in records][:3] == ["inspector_record"] * 3
    assert len(deferred) >= 3 * 5  # two rounds' listing and dump, the last listing
    assert min(parsed) == 1
    # the index kept through the walk: by kind the messages it parsed, by route the others
    by_kind, by_route = store._cold_index()
    assert sorted(i for found in by_kind.values() for i in found) == [
        i for i, e in enumerate(store._cold) if e.__class__ is not Deferred
    ]
    assert sorted(i for _route, found in by_route.values() for i in found) == [
        i for i, e in enumerate(store._cold) if e.__class__ is Deferred
    ]
    for kind in eager.counts():
        assert lazy.events_of(kind) == eager.events_of(kind), kind


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
    parser = LogParser()
    fed = [parser.feed(n, raw) for n, raw in enumerate(iter_lines(text), 1)]
    assert fed == eager.events


def test_deferred_messages_give_columns_without_events() -> None:
    """A deferred message its rule's compiled alternative matches is read from its groups."""
    line = (
        "[01/10/2024-21:52:52] [V] [TRT] /m/conv{i} + /m/relu{i} (CaskConvolution[0x80000009]) "
        "profiling completed in 0.0{i} seconds. Fastest Tactic: 0x00000000000003e{i} Time: 0.5\n"
    )
    text = "".join(line.format(i=i) for i in range(6))
    lazy, eager = lazy_and_eager(text)
    store = _store(lazy)
    assert lazy.columns("runner_profiled") == eager.columns("runner_profiled")
    assert lazy.columns("runner_profiled")["tactic"] == [0x3E0 + i for i in range(6)]
    assert all(e.__class__ is Deferred for e in store._cold if e.span[0] <= 6)
    assert lazy.events == eager.events  # parsed now, when asked for
