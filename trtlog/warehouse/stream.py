"""A log too large to hold: its events streamed into the tables in batches.

Part of the per-build function (:mod:`trtlog.warehouse.extract`), for logs larger than
``stream_bytes``. A whole parse holds about five times the file in memory; most of a big
verbose log is the autotuner's tactic lines (two thirds of the events of the benchmark's
log), which only the ``tactics`` table needs. So the log is read twice with
:func:`trtlog.iter_events`:

1. every event except the autotuner's runner blocks (:data:`BULK_KINDS`: the tactic lines,
   ``Timing Runner``, format combinations, runner choices) is kept: the log's *rest*, a
   :class:`~trtlog.Build` without text from which every other table, the summary, the
   findings and the merge graph are computed as usual;
2. the runner blocks come again in windows of about :data:`WINDOW_EVENTS`, each cut before a
   ``Computing costs``/``Computing reformatting costs`` header, where the autotuner's state
   starts afresh, so that no block is split; each window's rows are, for each ``builds`` row
   (a run, or an engine build of a run that holds several) whose lines it covers,
   ``tactics_frame`` of that row's rest plus its part of the window (the rest holds every
   header and the layer dump, the window its blocks whole, so each row gets the same layer,
   runner, format combination, ``fastest``, ``chosen`` and ``in_engine`` as in a whole parse
   of that run or build) and are written out before the next window is read.

Differences from a whole parse, documented in docs/warehouse.md: ``in_engine`` marks the
first matching chosen row of a layer in file order, also when a later window has one with the
engine layer's data types (a whole parse prefers those); finding messages that quote a log
line quote an empty line (the rest keeps no text), and a crash's ``build-failed`` finding
names the layer of the last ``Computing costs`` header rather than of the last runner line.
"""

from __future__ import annotations

import bisect
import heapq
import sys
import time
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trtlog.buildlog.header import derive_header
from trtlog.buildlog.model import Build, SourceMeta
from trtlog.buildlog.parsing import iter_events
from trtlog.buildlog.performance import split_runs
from trtlog.warehouse.extract import joined, log_scopes, scope_build
from trtlog.warehouse.files import BuildSpec, InputFile
from trtlog.warehouse.tables import (
    Loaded,
    Piece,
    StreamedTactics,
    frame_table,
    run_tables,
    target_run,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BULK_KINDS", "WINDOW_EVENTS", "extract_streamed"]

#: The event kinds of the autotuner's runner blocks, which the ``tactics`` table reads and no
#: other table needs: streamed, never held. (The ``Computing costs`` headers, which other views
#: read, stay in the rest; each window brings its own runner blocks whole.)
BULK_KINDS = frozenset(
    {
        "tactic_timing",
        "fastest_tactic",
        "runner_profiled",
        "tactic_name_set",
        "timing_runner",
        "autotune_combination",
        "autotune_reformat",
        "runner_skipped",
        "runner_choice",
    }
)

#: Tactic events per window (a window ends at the next ``Computing costs`` header after this).
WINDOW_EVENTS = 50_000

_CUT_KINDS = frozenset({"layer_costs_header", "reformat_costs_header"})


@dataclass
class _Rest:
    events: list[Any] = field(default_factory=list)
    n_lines: int = 0
    bulk_first: array[int] = field(default_factory=lambda: array("q"))
    bulk_lines: array[int] = field(default_factory=lambda: array("q"))


def _read_rest(path: str) -> _Rest:
    rest = _Rest()
    keep = rest.events.append
    first, lines = rest.bulk_first.append, rest.bulk_lines.append
    last = 0
    for event in iter_events(path):
        a, last = event.span
        if event.kind in BULK_KINDS:
            first(a)
            lines(last - a + 1)
        else:
            keep(event)
    rest.n_lines = last
    return rest


def rest_build(name: str, size: int, events: list[Any], n_lines: int) -> Build:
    """A Build of some of a log's events, without their text (blank lines stand in).

    Its header (runs, version, options, device) is derived from the events as a parse does.
    """
    header = derive_header(events, n_lines)
    return Build.model_construct(
        source=SourceMeta(name=name, size_bytes=size),
        text="\n" * n_lines,
        events=events,
        **header.build_fields(),
    )


def version_build(path: str, size: int) -> Build:
    """A big log's header and layer events only: what pairing a JSON export with it reads.

    One streamed pass (:func:`trtlog.iter_events`) keeps the events of the header (runs,
    versions) and of the engine's layers (dumps, placement lines, timed layers), so that a
    log too big to parse whole still says which engine it describes and which version.
    """
    from trtlog.buildlog.header import HEADER_KINDS
    from trtlog.engine.from_log import ENGINE_EVENTS

    wanted = set(HEADER_KINDS) | {c.model_fields["kind"].default for c in ENGINE_EVENTS}
    kept = []
    last = 0
    for event in iter_events(path):
        last = event.span[1]
        if event.kind in wanted:
            kept.append(event)
    return rest_build(path, size, kept, last)


def _windows(path: str) -> Iterator[tuple[int, list[Any]]]:
    """The tactic events of the log in windows that never split a runner block.

    Yields ``(last line, events)``: a window covers the lines after the previous window's
    last line up to its own (the last window to the end of the log; a log without tactic
    lines is one empty window), so the windows partition the log's lines.
    """
    window: list[Any] = []
    for event in iter_events(path):
        kind = event.kind
        if kind in BULK_KINDS:
            window.append(event)
        elif kind in _CUT_KINDS and len(window) >= WINDOW_EVENTS:
            yield event.span[0] - 1, window
            window = []
    yield sys.maxsize, window


def extract_streamed(
    spec: BuildSpec, log: InputFile, loaded: Loaded, started: float
) -> Iterator[Piece]:
    """Every table's rows for a build whose log is streamed (see the module docstring)."""
    from trtlog.summary import summarize

    t0 = time.perf_counter()
    rest = _read_rest(log.path)
    whole = rest_build(log.path, log.size, rest.events, rest.n_lines)
    parse_seconds = time.perf_counter() - t0
    n_runs = len(whole.runs)
    target = target_run(whole, loaded.paths)
    scopes = log_scopes(whole, spec.source_id, target)
    starts = [scope.first_line for scope in scopes]

    def summary_of(scope: Any, times: Any = None) -> Any:
        return summarize(
            whole,
            scope.run if n_runs > 1 else None,
            engine_build=scope.number if scope.build is not None else None,
            times=times,
            runs_table=False,  # each row has its own run's figures; no table of all runs
        )

    # only the rounds are kept from this first summary of each row: a summary of one run of
    # a log of N runs holds the table of all N runs, so N summaries kept would be N x N
    excluded = []
    for scope in scopes:
        excluded.append(_other_rounds(summary_of(scope)))
        whole.forget_views(run=scope.run, build=scope.build)  # one row's views at a time
    ids = [scope.build_id for scope in scopes]
    counted = [StreamedTactics() for _ in ids]
    marked: list[set[str]] = [set() for _ in scopes]
    rest_firsts = [e.span[0] for e in rest.events]
    after = 0
    for last, window in _windows(log.path):
        window_firsts = [e.span[0] for e in window]
        # the rows whose lines this window covers (found by bisection: linear in the rows)
        first_k = max(bisect.bisect_right(starts, after + 1) - 1, 0)
        for k in range(first_k, bisect.bisect_right(starts, last)):
            scope = scopes[k]
            low, high = max(scope.first_line, after + 1), min(scope.last_line, last)
            if low > high:
                continue
            # each row (run or engine build) from its own events: its tactics, its engine
            merged = heapq.merge(
                rest.events[
                    bisect.bisect_left(rest_firsts, scope.first_line) : bisect.bisect_right(
                        rest_firsts, scope.last_line
                    )
                ],
                window[
                    bisect.bisect_left(window_firsts, low) : bisect.bisect_right(
                        window_firsts, high
                    )
                ],
                key=lambda e: e.span[0],
            )
            frame = rest_build(log.path, log.size, list(merged), rest.n_lines).tactics_frame()
            # the rest's own tactic rows (cached, skipped) come out once: in their window
            keep = (frame["line"] >= low) & (frame["line"] <= high)
            frame = frame[keep].reset_index(drop=True)
            _first_in_engine(frame, marked[k])
            if len(frame):
                _count(counted[k], frame, excluded[k])
                yield "tactics", frame_table("tactics", frame, ids[k])
            del frame
        del window, window_firsts  # (the generator fills the next one meanwhile)
        after = last
    profiles = split_runs(loaded.profile, n_runs)
    times = split_runs(loaded.times, n_runs)

    def row_tables() -> Iterator[Piece]:
        for k, scope in enumerate(scopes):
            i = scope.run or 0
            profile, run_times = scope.exports(loaded, profiles, times)
            summary = summary_of(scope, run_times)
            lo = bisect.bisect_left(rest.bulk_first, scope.first_line)
            hi = bisect.bisect_right(rest.bulk_first, scope.last_line)
            yield from run_tables(
                spec,
                scope.build_id,
                scope_build(whole, scope),
                summary,
                loaded.engine if scope.target else None,
                profile,
                run_index=i if n_runs else None,
                n_runs=n_runs,
                parse_seconds=parse_seconds,
                started=started,
                streamed=counted[k],
                bulk=(hi - lo, sum(rest.bulk_lines[lo:hi])),
                engine_build=scope.number if scope.build is not None else None,
                engine_builds=scope.builds,
            )
            whole.forget_views(run=scope.run, build=scope.build)

    yield from joined(row_tables())


def _other_rounds(summary: Any) -> list[tuple[int, int]]:
    """The line ranges of the rounds the summary's tactic figures leave out (not kept)."""
    if summary.round is None:
        return []
    return [(r.first_line, r.last_line) for r in summary.rounds if not r.kept]


def _count(into: StreamedTactics, frame: pd.DataFrame, excluded: list[tuple[int, int]]) -> None:
    """Count rows as ``trtlog.summary`` does (timed, cached, skipped, layers timed)."""
    into.rows += len(frame)
    if excluded:
        lines = frame["line"]
        inside = lines.apply(lambda n: any(a <= n <= b for a, b in excluded))
        frame = frame[~inside]
    timed = frame[~frame["skipped"]]
    into.timed += int((~timed["cached"]).sum())
    into.cached += int(timed["cached"].sum())
    into.skipped += int(frame["skipped"].sum())
    into.layers.update(str(x) for x in timed["layer"].dropna().tolist())


def _first_in_engine(frame: pd.DataFrame, marked: set[str]) -> None:
    """Keep ``in_engine`` on the first row of each layer across windows (file order)."""
    flags = frame["in_engine"].to_numpy(copy=True)
    for i, layer in enumerate(frame["layer"].tolist()):
        if flags[i]:
            if layer in marked:
                flags[i] = False
            else:
                marked.add(str(layer))
    frame["in_engine"] = flags
