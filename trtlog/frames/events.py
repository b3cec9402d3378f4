"""Frames over a build's events: passes, layer counts, fusions, removals, Q/DQ, tactics.

Part of the view package :mod:`trtlog.frames` (pandas).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from trtlog._pydantic import gc_paused
from trtlog.build.passes import QDQ_KINDS, REMOVAL_KINDS, pass_records, qdq_events, removal_events
from trtlog.engine.from_log import DUMP_EVENTS, engine_tactics
from trtlog.events import (
    AutotuneCombination,
    AutotuneReformat,
    CachedTactic,
    ConcatElimination,
    ConvScaleFusion,
    CopyGenerated,
    FastestTactic,
    Fusion,
    FusionInto,
    HorizontalMerge,
    LayerCostsHeader,
    LayerCount,
    LayerRemoved,
    LayerSwap,
    QdqDedup,
    QdqPhase,
    QdqSwap,
    ReformatCostsHeader,
    Retarget,
    RunnerChoice,
    RunnerProfiled,
    SliceElimination,
    TacticNameSet,
    TacticSkipped,
    TacticSkippedMemory,
    TacticTiming,
    TimingRunner,
)
from trtlog.events.autotune import LegacyRunnerChoice, LegacyTimingHeader  # TensorRT 5/6
from trtlog.frames.schema import SCHEMAS, frame_from_columns, frame_from_records
from trtlog.numbers import format_tactic
from trtlog.tensors import CompactFormat, parse_compact_format

if TYPE_CHECKING:
    from trtlog.build import Build

__all__ = [
    "fusions_frame",
    "layer_counts_frame",
    "passes_frame",
    "qdq_frame",
    "removals_frame",
    "tactics_frame",
]

SCHEMAS.update(
    {
        "layer_counts": {
            "order": "int64",
            "line": "int64",
            "stage": "string",
            "layers": "int64",
            "change": "Int64",
            "run": "Int64",
            "round": "Int64",
        },
        "fusions": {
            "line": "int64",
            "kind": "string",
            "pass_name": "string",
            "inputs": "object",
            "result": "string",
            "n_inputs": "int64",
        },
        "removals": {
            "line": "int64",
            "kind": "string",
            "pass_name": "string",
            "layer": "string",
            "detail": "string",
        },
        "qdq": {
            "line": "int64",
            "kind": "string",
            "pass_name": "string",
            "layer": "string",
            "other": "string",
            "from_type": "string",
            "to_type": "string",
            "qdq": "string",
        },
        "passes": {
            "pass_name": "string",
            "first_line": "int64",
            "last_line": "int64",
            "runs": "int64",
            "fusions": "int64",
            "removals": "int64",
            "swaps": "int64",
            "layers_before": "Int64",
            "layers_after": "Int64",
            "description": "string",
        },
        "tactics": {
            "line": "int64",
            "layer": "string",
            "runner": "string",
            "runner_id": "Int64",
            "reformat": "bool",
            "format_combination": "string",
            "tactic": "UInt64",
            "tactic_hex": "string",
            "tactic_name": "string",
            "time_ms": "float64",
            "fastest": "bool",
            "chosen": "bool",
            "skipped": "bool",
            "cached": "bool",
            "skip_reason": "string",
            "requested_bytes": "Int64",
            "engine_layer": "string",
            "in_engine": "bool",
        },
    }
)


# -- layer counts --------------------------------------------------------------------------


def layer_counts_frame(build: Build) -> pd.DataFrame:
    """One row per ``Original:`` / ``After <stage>:`` line: the layer count after each stage.

    Columns: ``order`` (0-based), ``line``, ``stage``, ``layers``, ``change`` (vs. the previous
    stage of the same run and builder round, ``<NA>`` for the first of a run), ``run`` (index
    of the trtexec run), ``round`` (the builder round within the run, 0-based, see
    ``Build.rounds``; ``<NA>`` for the stages a run prints before its first round). 8.6+ may
    build the network once per backend strategy: each round starts again from the network
    as the stages before the rounds left it, so the first stage of a round changes the
    count from there, never from the previous round's last stage.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] Original: 9 layers\\n[V] After scale fusion: 7 layers\\n")
        >>> layer_counts_frame(b)[["stage", "layers", "change"]].to_dict("list")
        {'stage': ['Original', 'scale fusion'], 'layers': [9, 7], 'change': [None, -2]}
    """
    records = []
    previous: dict[tuple[int | None, int | None], int] = {}
    for order, event in enumerate(build.of(LayerCount)):
        where = build.round_of(event)
        if where is not None:
            run, number = where.run, where.number
        else:
            found = build.run_of(event)
            run, number = (found.index if found else None), None
        before = previous.get((run, number))
        if before is None and number is not None:
            before = previous.get((run, None))  # a round starts from the network as it was
        records.append(
            {
                "order": order,
                "line": event.span[0],
                "stage": event.stage,
                "layers": event.layers,
                "change": None if before is None else event.layers - before,
                "run": run,
                "round": number,
            }
        )
        previous[run, number] = event.layers
    return frame_from_records("layer_counts", records)


# -- fusions, removals, Q/DQ -----------------------------------------------------------------


# the events removal_events() reads: the removals and the pass boundaries
_REMOVAL_SCOPE = (*REMOVAL_KINDS, "pass_run")


def fusions_frame(build: Build) -> pd.DataFrame:
    """One row per fusion.

    Vertical (``Fusing a with b``), Q/DQ ``fusing ... into``, conv+scale, horizontal merges.

    Columns: ``line``, ``kind`` (event kind), ``pass_name``, ``inputs`` (tuple of names fused),
    ``result`` (the name of the fused layer when the log implies it: ``a + b`` for a vertical
    fusion, the target for ``fusing into``, ``a || b`` for a merge), ``n_inputs``.
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []
    for fusion in build.of(Fusion):
        inputs = (fusion.first, fusion.second)
        records.append(_fusion_row(fusion, passes.of(fusion), inputs, " + ".join(inputs)))
    for into in build.of(FusionInto):
        records.append(_fusion_row(into, passes.of(into), into.sources, into.target))
    for conv in build.of(ConvScaleFusion):
        inputs = (conv.conv, conv.scale)
        records.append(_fusion_row(conv, passes.of(conv), inputs, conv.conv))
    for merge in build.of(HorizontalMerge):
        result = " || ".join(merge.layers)
        records.append(_fusion_row(merge, passes.of(merge), merge.layers, result))
    records.sort(key=lambda r: r["line"])
    return frame_from_records("fusions", records)


def _fusion_row(
    event: Any, pass_name: str | None, inputs: Sequence[str], result: str | None
) -> dict[str, Any]:
    return {
        "line": event.span[0],
        "kind": event.kind,
        "pass_name": pass_name,
        "inputs": tuple(inputs),
        "result": result,
        "n_inputs": len(inputs),
    }


def removals_frame(build: Build) -> pd.DataFrame:
    """One row per removal.

    ``Removing x``, slice and concatenation eliminations, Q/DQ duplicates eliminated, copies
    generated and tensors retargeted. A Q/DQ duplicate is one row (``qdq_dedup``, its
    ``Eliminating`` line) although the log also prints ``Removing`` for it (see
    :func:`trtlog.build.passes.removal_events`).

    Columns: ``line``, ``kind``, ``pass_name`` (the pass running at that line, if known),
    ``layer`` (what was removed or changed), ``detail`` (the other name involved).
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []

    def add(event: Any, layer: str, detail: str | None = None) -> None:
        records.append(
            {
                "line": event.span[0],
                "kind": event.kind,
                "pass_name": passes.of(event),
                "layer": layer,
                "detail": detail,
            }
        )

    for event in removal_events(build.events_of(*_REMOVAL_SCOPE)):
        if isinstance(event, LayerRemoved):
            add(event, event.layer)
        elif isinstance(event, SliceElimination):
            add(event, event.slice, f"{event.from_tensor} -> {event.to_tensor}")
        elif isinstance(event, ConcatElimination):
            add(event, event.concat)
        elif isinstance(event, QdqDedup):
            add(event, event.layer, event.duplicate_of)
    for copy in build.of(CopyGenerated):
        add(copy, copy.tensor, f"{copy.target} ({copy.reason})")
    for ret in build.of(Retarget):
        add(ret, ret.tensor, ret.target)
    records.sort(key=lambda r: r["line"])
    return frame_from_records("removals", records)


def qdq_frame(build: Build) -> pd.DataFrame:
    """One row per Q/DQ optimizer event (see :func:`trtlog.build.passes.qdq_events`).

    Swaps of Q/DQ layers with their neighbours, type swaps to or from a Q/DQ type,
    duplicates eliminated, phases, and one row per Q/DQ layer fused into its consumer.
    Type swaps between other types (``ELEMENTWISE`` to ``POINTWISE``) are not Q/DQ events.

    Columns: ``line``, ``kind``, ``pass_name``, ``layer``, ``other`` (the other layer of a swap,
    the original of a duplicate, the target of a fusion), ``from_type``/``to_type`` (type
    swaps), ``qdq`` (``Q``/``DQ`` for duplicates).
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []

    def add(line: int, kind: str, layer: str, **extra: str | None) -> None:
        row: dict[str, Any] = {
            "line": line,
            "kind": kind,
            "pass_name": passes.at(line),
            "layer": layer,
            "other": None,
            "from_type": None,
            "to_type": None,
            "qdq": None,
        }
        row.update(extra)
        records.append(row)

    for event in qdq_events(build.events_of(*QDQ_KINDS)):
        line = event.span[0]
        if isinstance(event, QdqSwap):
            add(line, "qdq_swap", event.layer, from_type=event.from_type, to_type=event.to_type)
        elif isinstance(event, LayerSwap):
            add(line, "layer_swap", event.first, other=event.second)
        elif isinstance(event, QdqDedup):
            add(line, "qdq_dedup", event.layer, other=event.duplicate_of, qdq=event.qdq)
        elif isinstance(event, QdqPhase):
            add(line, "qdq_phase", event.phase, pass_name=None)  # a phase, not in a pass
        elif isinstance(event, FusionInto):
            for source in event.sources:
                add(line, "fusion_into", source, other=event.target)
    return frame_from_records("qdq", records)


# -- passes --------------------------------------------------------------------------------


def passes_frame(build: Build) -> pd.DataFrame:
    """One row per optimization pass: how often it ran and what it did.

    Columns: ``pass_name``, ``first_line``/``last_line`` (its first and last ``Running:``
    line or event), ``runs`` (``Running:`` lines), ``fusions`` (the rows of ``fusions_frame``
    attributed to it), ``removals`` and ``swaps`` done while it ran (events between its
    ``Running:`` line and the next pass's; each removal once, see
    :func:`trtlog.build.passes.removal_events`), ``layers_before``/``layers_after`` (the layer
    counts printed just before its first and just after its last activity, when the log has
    them) and ``description`` (what the pass does, one line from
    :data:`trtlog.build.passes.PASS_GLOSSARY`, or a sentence saying trtlog does not know it). See
    :func:`trtlog.build.passes.pass_records`.
    """
    return frame_from_records("passes", pass_records(build))


# -- tactics -------------------------------------------------------------------------------


@dataclass
class _TacticState:
    """Where the autotuner is while reading its block of the log."""

    layer: str | None = None
    reformat: bool = False
    combination: str | None = None
    runner: str | None = None
    runner_id: int | None = None
    runner_rows: list[int] = field(default_factory=list)
    combination_rows: list[int] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)


def _formats_text(formats: Iterable[CompactFormat]) -> str:
    return ", ".join(f.text for f in formats)


def tactics_frame(build: Build, engine_layers: Mapping[str, int] | None = None) -> pd.DataFrame:
    """One row per tactic the autotuner timed (or skipped), in every version's shape.

    Columns: ``line``; ``layer`` being tuned (``Optimizer Reformat(...)`` texts for reformat
    timing); ``runner`` and ``runner_id`` (10.x; TensorRT 5/6 print only the id, in their
    ``--------------- Timing <layer>(<id>)`` headers); ``reformat`` (timing of a reformat);
    ``format_combination`` (``ins -> outs`` as printed); ``tactic`` (unsigned 64-bit) and
    ``tactic_hex``; ``tactic_name`` (kernel, when printed: 8.5+ on the line, 8.4 by a
    ``Set Tactic Name`` line before it); ``time_ms``; ``fastest`` (the runner's fastest tactic for
    that combination: its ``Fastest Tactic`` line, or in 5/6, which print none, the least time
    of the runner's block); ``chosen`` (the runner and tactic TensorRT chose for the layer and
    combination: ``Chose Runner Type: ...``, 5/6 ``--------------- Chose <id> (<tactic>)``);
    ``skipped`` with ``skip_reason`` and ``requested_bytes``; ``cached`` (a timing-cache hit,
    ``... got cached result: <runner>, tactic <id>, <t> ms``: the cache holds
    only the winner of that combination, so the row is also ``fastest`` and ``chosen``, and its
    time is the one measured when the entry was made); ``engine_layer``
    (on a chosen row: the engine layer of that name, when the log's layer dump or
    ``engine_layers`` has it); ``in_engine`` (the chosen tactic is the one the engine layer runs:
    TensorRT chooses a tactic per format combination and keeps one combination).

    Args:
        build: the parsed log.
        engine_layers: engine layer name → tactic id; by default taken from the log's layer
            dump (``Build.engine``) when it has one.
    """
    with gc_paused():
        if engine_layers is None:
            engine_layers, dtypes = _engine_tactics(build)
        else:
            dtypes = _engine_tactics(build)[1]
        # the timings come as columns (most of the rows); the other kinds set the state
        control = build.events_of(*_TACTIC_CONTROL_KINDS)
        timing = build.columns("tactic_timing")
        table = _TacticTable(timing)
        table.run(control)
        table.mark_engine(engine_layers, dtypes)
        return frame_from_columns("tactics", table.columns())


_NAN = float("nan")


class _TacticTable:
    """The rows of the tactics frame as columns, filled while reading the autotuner's events.

    Timing rows come in blocks from the ``tactic_timing`` columns: between two other events
    the state (layer, runner, combination) is constant, so a block is copied in one go.
    Runner and combination rows are kept as row indices for marking the fastest and chosen.
    """

    def __init__(self, timing: Mapping[str, list[Any]]) -> None:
        self.t_line = timing["line"]
        self.t_tactic = timing["tactic"]
        self.t_time = timing["time_ms"]
        self.t_name = timing["tactic_name"]
        self.done = 0  # timing rows copied so far
        self.line: list[int] = []
        self.layer: list[str | None] = []
        self.runner: list[str | None] = []
        self.runner_id: list[int | None] = []
        self.reformat: list[bool] = []
        self.combination: list[str | None] = []
        self.tactic: list[int | None] = []
        self.tactic_name: list[str | None] = []
        self.time_ms: list[float] = []
        self.fastest: list[bool] = []
        self.chosen: list[bool] = []
        self.skipped: list[bool] = []
        self.cached: list[bool] = []
        self.skip_reason: list[str | None] = []
        self.requested_bytes: list[int | None] = []
        self.state = _TacticState()

    def new_row(
        self,
        line: int,
        tactic: int | None,
        *,
        time_ms: float = _NAN,
        fastest: bool = False,
        chosen: bool = False,
        skipped: bool = False,
        skip_reason: str | None = None,
        requested_bytes: int | None = None,
    ) -> int:
        """Append one row with the current state; its index."""
        state = self.state
        index = len(self.line)
        self.line.append(line)
        self.layer.append(state.layer)
        self.runner.append(state.runner)
        self.runner_id.append(state.runner_id)
        self.reformat.append(state.reformat)
        self.combination.append(state.combination)
        self.tactic.append(tactic)
        self.tactic_name.append(None if tactic is None else state.names.get(tactic))
        self.time_ms.append(time_ms)
        self.fastest.append(fastest)
        self.chosen.append(chosen)
        self.skipped.append(skipped)
        self.cached.append(False)
        self.skip_reason.append(skip_reason)
        self.requested_bytes.append(requested_bytes)
        state.runner_rows.append(index)
        state.combination_rows.append(index)
        return index

    def timings_before(self, line: int) -> None:
        """Copy the timing rows before ``line`` with the current state."""
        a = self.done
        lines = self.t_line
        if a >= len(lines) or lines[a] >= line:
            return
        b = bisect_left(lines, line, a)
        self.done = b
        count = b - a
        state = self.state
        start = len(self.line)
        tactics = self.t_tactic[a:b]
        names = state.names
        self.line.extend(lines[a:b])
        self.layer.extend([state.layer] * count)
        self.runner.extend([state.runner] * count)
        self.runner_id.extend([state.runner_id] * count)
        self.reformat.extend([state.reformat] * count)
        self.combination.extend([state.combination] * count)
        self.tactic.extend(tactics)
        if names:
            self.tactic_name.extend(
                [
                    name or (None if t is None else names.get(t))
                    for t, name in zip(tactics, self.t_name[a:b], strict=True)
                ]
            )
        else:
            self.tactic_name.extend([name or None for name in self.t_name[a:b]])
        self.time_ms.extend(self.t_time[a:b])
        falses = [False] * count
        nones = [None] * count
        self.fastest.extend(falses)
        self.chosen.extend(falses)
        self.skipped.extend(falses)
        self.cached.extend(falses)
        self.skip_reason.extend(nones)
        self.requested_bytes.extend(nones)
        rows = range(start, start + count)
        state.runner_rows.extend(rows)
        state.combination_rows.extend(rows)

    def run(self, events: Iterable[Any]) -> None:
        """Read the autotuner's events other than timings, in file order."""
        legacy = False  # a TensorRT 5/6 log (runner blocks without a "Fastest Tactic" line)
        t_line = self.t_line
        n_timings = len(t_line)
        for event in events:
            line = event.span[0]
            if self.done < n_timings and t_line[self.done] < line:  # timing rows before it
                self.timings_before(line)
            state = self.state
            # the most frequent kinds first (each event is of exactly one of them)
            if isinstance(event, TimingRunner):
                state.runner, state.runner_id = event.runner, event.runner_id
                if event.layer:
                    state.layer = event.layer
                state.runner_rows = []
            elif isinstance(event, FastestTactic | RunnerProfiled):
                if isinstance(event, RunnerProfiled):
                    state.runner = event.runner
                    if event.layer:
                        state.layer = event.layer
                tactic, skipped, fastest = self.tactic, self.skipped, self.fastest
                for i in state.runner_rows:
                    if tactic[i] == event.tactic and not skipped[i]:
                        fastest[i] = True
            elif isinstance(event, LayerCostsHeader):
                self.state = _TacticState(layer=event.layer or None)
            elif isinstance(event, ReformatCostsHeader):
                self.state = _TacticState(reformat=True)
            elif isinstance(event, AutotuneCombination):
                state.combination = (
                    f"{_formats_text(event.inputs)} -> {_formats_text(event.outputs)}"
                )
                state.combination_rows = []
            elif isinstance(event, AutotuneReformat):
                state.reformat = True
                state.combination = f"{event.from_format.text} -> {event.to_format.text}"
                state.combination_rows = []
            elif isinstance(event, CachedTactic):
                state.layer = event.layer
                state.runner, state.runner_id = event.runner, None
                state.combination = (
                    f"{_formats_text(event.inputs)} -> {_formats_text(event.outputs)}"
                )
                state.combination_rows, state.runner_rows = [], []
                i = self.new_row(
                    event.span[0], event.tactic, time_ms=event.time_ms, fastest=True, chosen=True
                )
                self.cached[i] = True
                self.reformat[i] = event.layer.startswith("Optimizer Reformat(")
            elif isinstance(event, TacticNameSet):
                if event.tactic is not None:
                    state.names[event.tactic] = event.tactic_name
            elif isinstance(event, TacticTiming):  # only when the store gave no columns
                i = self.new_row(event.span[0], event.tactic, time_ms=event.time_ms)
                if event.tactic_name:
                    self.tactic_name[i] = event.tactic_name
            elif isinstance(event, TacticSkipped):
                self.new_row(
                    event.span[0],
                    event.tactic,
                    skipped=True,
                    skip_reason="only option" if event.only_option else "scratch memory",
                    requested_bytes=event.requested_bytes,
                )
            elif isinstance(event, TacticSkippedMemory):
                if event.variant == "skipping" and event.tactic is not None:
                    self.new_row(
                        event.span[0],
                        event.tactic,
                        skipped=True,
                        skip_reason="insufficient memory",
                        requested_bytes=event.requested_bytes,
                    )
            elif isinstance(event, RunnerChoice):
                tactic, runner, chosen = self.tactic, self.runner, self.chosen
                for i in state.combination_rows:
                    if runner[i] == event.runner and tactic[i] == event.tactic:
                        chosen[i] = True
            elif isinstance(event, LegacyTimingHeader):
                # TensorRT 5/6: "--------------- Timing <layer>(<runner id>)" names the layer
                # and the runner by its number; a new layer starts a new choice
                legacy = True
                self.fastest_of(state.runner_rows)
                if event.layer != state.layer:
                    # a combination line printed just before belongs to this layer
                    fresh = None if state.combination_rows else state.combination
                    state = self.state = _TacticState(
                        layer=event.layer, combination=fresh, names=state.names
                    )
                state.runner, state.runner_id = None, event.runner_id
                state.runner_rows = []
            elif isinstance(event, LegacyRunnerChoice):
                # "--------------- Chose <runner id> (<tactic>)" picks among the layer's runners
                self.fastest_of(state.runner_rows)
                for i in state.combination_rows:
                    if self.runner_id[i] == event.runner_id and self.tactic[i] == event.tactic:
                        self.chosen[i] = True
                state.runner_rows = []
        self.timings_before(_END)
        if legacy:
            self.fastest_of(self.state.runner_rows)

    def fastest_of(self, rows: list[int]) -> None:
        """Mark the fastest timed row of a 5/6 runner block (it prints no Fastest Tactic)."""
        times, skipped = self.time_ms, self.skipped
        timed = [i for i in rows if not skipped[i] and times[i] == times[i]]
        if timed and not any(self.fastest[i] for i in rows):
            self.fastest[min(timed, key=times.__getitem__)] = True

    def mark_engine(
        self,
        engine_layers: Mapping[str, int],
        dtypes: Mapping[str, tuple[str | None, ...]],
    ) -> None:
        """Fill ``engine_layer`` and ``in_engine`` from the engine's layers and tactics."""
        n = len(self.line)
        self.engine_layer: list[str | None] = [None] * n
        self.in_engine = [False] * n
        if not engine_layers:
            return
        candidates: dict[str, list[int]] = {}
        layer, tactic = self.layer, self.tactic
        for i in [i for i, c in enumerate(self.chosen) if c]:
            name = layer[i]
            if name in engine_layers:
                self.engine_layer[i] = name
                if tactic[i] == engine_layers[name]:  # type: ignore[index]
                    candidates.setdefault(name, []).append(i)  # type: ignore[arg-type]
        for name, found in candidates.items():
            # one combination per engine layer: several can choose the same tactic (and 8.4
            # repeats the chosen lines while generating the engine); prefer the one whose
            # formats have the engine layer's element types
            expected = dtypes.get(name)
            best = [
                i
                for i in found
                if expected and _combination_dtypes(self.combination[i]) == expected
            ] or found
            self.in_engine[best[0]] = True

    def columns(self) -> dict[str, Any]:
        """The frame's columns."""
        tactics, hexes = _tactic_columns(self.tactic)
        return {
            "line": self.line,
            "layer": self.layer,
            "runner": self.runner,
            "runner_id": self.runner_id,
            "reformat": self.reformat,
            "format_combination": self.combination,
            "tactic": tactics,
            "tactic_hex": hexes,
            "tactic_name": self.tactic_name,
            "time_ms": self.time_ms,
            "fastest": self.fastest,
            "chosen": self.chosen,
            "skipped": self.skipped,
            "cached": self.cached,
            "skip_reason": self.skip_reason,
            "requested_bytes": self.requested_bytes,
            "engine_layer": self.engine_layer,
            "in_engine": self.in_engine,
        }


def _tactic_columns(tactics: list[int | None]) -> tuple[Any, list[str | None]]:
    """The ``tactic`` column (an unsigned 64-bit array when every row has one) and its hex.

    The hex texts of a whole array come from its big-endian bytes in one ``hex()`` call:
    what :func:`~trtlog.numbers.format_tactic` gives per value, a fifth of the time.
    """
    import numpy as np

    if tactics and None not in tactics:
        try:
            array = np.array(tactics, dtype=np.uint64)
        except (OverflowError, TypeError, ValueError):  # not a 64-bit id: the general path
            pass
        else:
            text = array.astype(">u8").tobytes().hex()
            return array, ["0x" + text[i : i + 16] for i in range(0, len(text), 16)]
    return tactics, [None if t is None else format_tactic(t) for t in tactics]


_END = 1 << 62  # after every line
# the events that set the autotuner's state or add rows other than timings
_TACTIC_CONTROL_KINDS: tuple[str, ...] = tuple(
    cls.model_fields["kind"].default
    for cls in (
        LayerCostsHeader,
        ReformatCostsHeader,
        AutotuneCombination,
        AutotuneReformat,
        CachedTactic,
        TimingRunner,
        TacticNameSet,
        TacticSkipped,
        TacticSkippedMemory,
        FastestTactic,
        RunnerProfiled,
        RunnerChoice,
        LegacyTimingHeader,
        LegacyRunnerChoice,
    )
)


def _combination_dtypes(combination: str | None) -> tuple[str | None, ...]:
    """The element types of a ``Float(...), Half(...) -> Int8(...)`` combination."""
    parts = _FORMATS.split(combination or "")
    return tuple(parse_compact_format(p.strip()).dtype for p in parts if p.strip())


_FORMATS = re.compile(r" -> |, (?=[A-Z])")


def _engine_tactics(
    build: Build,
) -> tuple[dict[str, int], dict[str, tuple[str | None, ...]]]:
    """Engine layer name → tactic, and → its tensors' element types, from the log's layer dump.

    From ``Build.engine`` when it is built already, else from the dump's records alone
    (:func:`trtlog.engine.from_log.engine_tactics`: the same layers, no engine built).
    """
    engine = build.__dict__.get("engine", _NOT_BUILT)
    if engine is _NOT_BUILT:
        return engine_tactics(
            build.events_of(*(c.model_fields["kind"].default for c in DUMP_EVENTS))
        )
    if engine is None:
        return {}, {}
    return (
        {x.name: x.tactic for x in engine.layers if x.tactic is not None},
        {
            x.name: tuple(t.dtype for t in (*x.inputs, *x.outputs))
            for x in engine.layers
            if x.inputs or x.outputs
        },
    )


_NOT_BUILT = object()
