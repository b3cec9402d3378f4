"""The tactics frame as trtlog 0.1 built it, event by event.

``trtlog.frames.tactics_frame`` now builds the frame from the event store's columns; the
tests require the same frame as this per-event implementation, kept here unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from trtlog.buildlog.tactics import _formats_text
from trtlog.events import (
    AutotuneCombination,
    AutotuneReformat,
    CachedTactic,
    FastestTactic,
    LayerCostsHeader,
    ReformatCostsHeader,
    RunnerChoice,
    RunnerProfiled,
    TacticNameSet,
    TacticSkipped,
    TacticSkippedMemory,
    TacticTiming,
    TimingRunner,
)
from trtlog.events.autotune import LegacyRunnerChoice, LegacyTimingHeader
from trtlog.frames.schema import frame_from_records
from trtlog.numbers import format_tactic
from trtlog.tensors import parse_compact_format

if TYPE_CHECKING:
    from trtlog.buildlog import Build


@dataclass
class _TacticState:
    layer: str | None = None
    reformat: bool = False
    combination: str | None = None
    runner: str | None = None
    runner_id: int | None = None
    runner_rows: list[dict[str, Any]] = field(default_factory=list)
    combination_rows: list[dict[str, Any]] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)


def reference_tactics_frame(
    build: Build, engine_layers: Mapping[str, int] | None = None
) -> pd.DataFrame:
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
    if engine_layers is None:
        engine_layers = _engine_layer_tactics(build)
    kinds = (
        LayerCostsHeader,
        ReformatCostsHeader,
        AutotuneCombination,
        AutotuneReformat,
        CachedTactic,
        TimingRunner,
        TacticNameSet,
        TacticTiming,
        TacticSkipped,
        TacticSkippedMemory,
        FastestTactic,
        RunnerProfiled,
        RunnerChoice,
        LegacyTimingHeader,
        LegacyRunnerChoice,
    )
    wanted = {cls.model_fields["kind"].default for cls in kinds}
    state = _TacticState()
    rows: list[dict[str, Any]] = []
    legacy = False  # a TensorRT 5/6 log (runner blocks without a "Fastest Tactic" line)

    def new_row(line: int, tactic: int | None, **extra: Any) -> dict[str, Any]:
        row: dict[str, Any] = {
            "line": line,
            "layer": state.layer,
            "runner": state.runner,
            "runner_id": state.runner_id,
            "reformat": state.reformat,
            "format_combination": state.combination,
            "tactic": tactic,
            "tactic_hex": None if tactic is None else format_tactic(tactic),
            "tactic_name": None if tactic is None else state.names.get(tactic),
            "time_ms": float("nan"),
            "fastest": False,
            "chosen": False,
            "skipped": False,
            "cached": False,
            "skip_reason": None,
            "requested_bytes": None,
            "engine_layer": None,
            "in_engine": False,
        }
        row.update(extra)
        rows.append(row)
        state.runner_rows.append(row)
        state.combination_rows.append(row)
        return row

    for event in build.events:
        kind = event.kind
        if kind not in wanted:
            continue
        if isinstance(event, LayerCostsHeader):
            state = _TacticState(layer=event.layer or None)
        elif isinstance(event, ReformatCostsHeader):
            state = _TacticState(reformat=True)
        elif isinstance(event, AutotuneCombination):
            state.combination = f"{_formats_text(event.inputs)} -> {_formats_text(event.outputs)}"
            state.combination_rows = []
        elif isinstance(event, AutotuneReformat):
            state.reformat = True
            state.combination = f"{event.from_format.text} -> {event.to_format.text}"
            state.combination_rows = []
        elif isinstance(event, TimingRunner):
            state.runner, state.runner_id = event.runner, event.runner_id
            if event.layer:
                state.layer = event.layer
            state.runner_rows = []
        elif isinstance(event, CachedTactic):
            state.layer = event.layer
            state.runner, state.runner_id = event.runner, None
            state.combination = f"{_formats_text(event.inputs)} -> {_formats_text(event.outputs)}"
            state.combination_rows, state.runner_rows = [], []
            new_row(event.span[0], event.tactic, time_ms=event.time_ms, fastest=True, chosen=True)
            rows[-1]["cached"] = True
            rows[-1]["reformat"] = event.layer.startswith("Optimizer Reformat(")
        elif isinstance(event, TacticNameSet):
            if event.tactic is not None:
                state.names[event.tactic] = event.tactic_name
        elif isinstance(event, TacticTiming):
            row = new_row(event.span[0], event.tactic, time_ms=event.time_ms)
            if event.tactic_name:
                row["tactic_name"] = event.tactic_name
        elif isinstance(event, TacticSkipped):
            new_row(
                event.span[0],
                event.tactic,
                skipped=True,
                skip_reason="only option" if event.only_option else "scratch memory",
                requested_bytes=event.requested_bytes,
            )
        elif isinstance(event, TacticSkippedMemory):
            if event.variant == "skipping" and event.tactic is not None:
                new_row(
                    event.span[0],
                    event.tactic,
                    skipped=True,
                    skip_reason="insufficient memory",
                    requested_bytes=event.requested_bytes,
                )
        elif isinstance(event, FastestTactic | RunnerProfiled):
            if isinstance(event, RunnerProfiled):
                state.runner = event.runner
                if event.layer:
                    state.layer = event.layer
            for row in state.runner_rows:
                if row["tactic"] == event.tactic and not row["skipped"]:
                    row["fastest"] = True
        elif isinstance(event, RunnerChoice):
            for row in state.combination_rows:
                if row["runner"] == event.runner and row["tactic"] == event.tactic:
                    row["chosen"] = True
        elif isinstance(event, LegacyTimingHeader):
            # TensorRT 5/6: "--------------- Timing <layer>(<runner id>)" names the layer and
            # the runner by its number; a new layer starts a new choice
            legacy = True
            _fastest_of(state.runner_rows)
            if event.layer != state.layer:
                # a combination line printed just before belongs to this layer
                fresh = None if state.combination_rows else state.combination
                state = _TacticState(layer=event.layer, combination=fresh, names=state.names)
            state.runner, state.runner_id = None, event.runner_id
            state.runner_rows = []
        elif isinstance(event, LegacyRunnerChoice):
            # "--------------- Chose <runner id> (<tactic>)" picks among the layer's runners
            _fastest_of(state.runner_rows)
            for row in state.combination_rows:
                if row["runner_id"] == event.runner_id and row["tactic"] == event.tactic:
                    row["chosen"] = True
            state.runner_rows = []
    if legacy:
        _fastest_of(state.runner_rows)
    candidates: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row["chosen"] and row["layer"] in engine_layers:
            row["engine_layer"] = row["layer"]
            if row["tactic"] == engine_layers[row["layer"]]:
                candidates.setdefault(row["layer"], []).append(row)
    dtypes = _engine_layer_dtypes(build)
    for layer, found in candidates.items():
        # one combination per engine layer: several can choose the same tactic (and 8.4
        # repeats the chosen lines while generating the engine); prefer the one whose
        # formats have the engine layer's element types
        expected = dtypes.get(layer)
        best = [r for r in found if expected and _combination_dtypes(r) == expected] or found
        best[0]["in_engine"] = True
    return frame_from_records("tactics", rows)


def _fastest_of(rows: list[dict[str, Any]]) -> None:
    """Mark the fastest timed row of a 5/6 runner block, which prints no ``Fastest Tactic``."""
    timed = [r for r in rows if not r["skipped"] and r["time_ms"] == r["time_ms"]]
    if timed and not any(r["fastest"] for r in rows):
        min(timed, key=lambda r: r["time_ms"])["fastest"] = True


def _combination_dtypes(row: dict[str, Any]) -> tuple[str | None, ...]:
    """The element types of a ``Float(...), Half(...) -> Int8(...)`` combination."""
    parts = _FORMATS.split(row["format_combination"] or "")
    return tuple(parse_compact_format(p.strip()).dtype for p in parts if p.strip())


_FORMATS = re.compile(r" -> |, (?=[A-Z])")


def _engine_layer_dtypes(build: Build) -> dict[str, tuple[str | None, ...]]:
    """From ``Build.engine`` (the engine built), as trtlog 0.1 read them."""
    engine = build.engine
    if engine is None:
        return {}
    return {
        x.name: tuple(t.dtype for t in (*x.inputs, *x.outputs))
        for x in engine.layers
        if x.inputs or x.outputs
    }


def _engine_layer_tactics(build: Build) -> dict[str, int]:
    """Engine layer name → tactic, from ``Build.engine``."""
    engine = build.engine
    if engine is None:
        return {}
    return {x.name: x.tactic for x in engine.layers if x.tactic is not None}
