"""The tactic rows of a build: what the autotuner timed, skipped, took from its cache, chose.

A fact computed once from a build's events (no pandas): :func:`tactic_columns` reads the
autotuner's events and the ``tactic_timing`` columns of the event store into the columns of
:func:`trtlog.frames.tactics_frame` (which only makes them a frame), and :func:`tactic_rows`
gives the rows without the engine's marks, which ``trtlog summary`` counts without loading
pandas (issue 18: the summary of a log answers at once).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from trtlog._pydantic import gc_paused
from trtlog.engine.from_log import (
    DUMP_EVENTS,
    DUMP_WALK_KINDS,
    engine_tactics,
    last_detailed_dump,
)
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
from trtlog.events.autotune import LegacyRunnerChoice, LegacyTimingHeader  # TensorRT 5/6
from trtlog.numbers import format_tactic
from trtlog.tensors import CompactFormat, parse_compact_format

if TYPE_CHECKING:
    from trtlog.buildlog.model import Build
    from trtlog.buildlog.store import EventStore

__all__ = [
    "Indexed",
    "TacticTable",
    "column_array",
    "column_take",
    "column_texts",
    "escaped",
    "hex_texts",
    "layer_codes",
    "tactic_columns",
    "tactic_rows",
]


def tactic_columns(
    build: Build, engine_layers: Mapping[str, int] | None = None, *, arrays: bool = False
) -> dict[str, Any]:
    """The columns of :func:`trtlog.frames.tactics_frame` (its docstring says what each holds).

    Args:
        build: the parsed log.
        engine_layers: engine layer name → tactic id; by default taken from the log's layer
            dump (``Build.engine``) when it has one.
        arrays: columns may be numpy arrays (the frame's way), and when ``tactic`` is an
            unsigned 64-bit array, ``tactic_hex`` is ``None`` (the frame spells the ids from
            the array's bytes); otherwise every column is a list.

    Example:
        >>> from trtlog import parse_text
        >>> log = ("[V] [TRT] *************** Autotuning format combination: Float(1,2) -> "
        ...        "Float(1,2) ***************\\n"
        ...        "[V] [TRT] Tactic: 0x0000000000000003 Time: 0.5\\n")
        >>> tactic_columns(parse_text(log))["time_ms"]
        [0.5]
    """
    with gc_paused():
        if engine_layers is None:
            engine_layers, dtypes = _engine_tactics(build)
        else:
            dtypes = _engine_tactics(build)[1]
        store = build._lazy
        if store is not None:
            fast = _fast_columns(store)
            if fast is not None:
                engine_layer, in_engine = _engine_marks(
                    fast["layer"],
                    fast["tactic"],
                    fast["chosen"],
                    fast["format_combination"],
                    engine_layers,
                    dtypes,
                )
                fast["engine_layer"], fast["in_engine"] = engine_layer, in_engine
                if not arrays:
                    fast["tactic_hex"] = hex_texts(fast["tactic"])
                    return {k: v.tolist() if hasattr(v, "tolist") else v for k, v in fast.items()}
                return fast
        table = tactic_rows(build)
        table.mark_engine(engine_layers, dtypes)
        return table.columns()


def tactic_rows(build: Build) -> TacticTable:
    """The tactic rows of a build, without the engine's marks (``engine_layer``, ``in_engine``).

    Example:
        >>> from trtlog import parse_text
        >>> rows = tactic_rows(parse_text("[V] [TRT] Tactic: 0x0000000000000003 Time: 0.5\\n"))
        >>> rows.tactic, rows.skipped, rows.cached
        ([3], [False], [False])
    """
    # the timings come as columns (most of the rows); the other kinds set the state
    table = TacticTable(build.columns("tactic_timing"))
    table.run(build.events_of(*_TACTIC_CONTROL_KINDS))
    return table


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


_NAN = float("nan")


class TacticTable:
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
        self.engine_layer, self.in_engine = _engine_marks(
            self.layer, self.tactic, self.chosen, self.combination, engine_layers, dtypes
        )

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

    # (a negative id goes the general way: NumPy before 2.0 wraps it into the array)
    if tactics and None not in tactics and min(cast("list[int]", tactics)) >= 0:
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
        store = build._lazy
        walk = None if store is None else store.reversed_of(DUMP_WALK_KINDS)
        last = None if walk is None else last_detailed_dump(walk)
        if last is not None:
            return engine_tactics(last)
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


def _engine_marks(
    layer: Any,
    tactic: Any,
    chosen: Any,
    combination: Any,
    engine_layers: Mapping[str, int],
    dtypes: Mapping[str, tuple[str | None, ...]],
) -> tuple[list[str | None], list[bool]]:
    """``engine_layer`` and ``in_engine`` of the rows, from the engine's layers and tactics."""
    n = len(layer)
    engine_layer: list[str | None] = [None] * n
    in_engine = [False] * n
    if not engine_layers:
        return engine_layer, in_engine
    candidates: dict[str, list[int]] = {}
    if hasattr(chosen, "nonzero"):  # a numpy array (the columnar path): no scalar per row
        rows: list[int] = chosen.nonzero()[0].tolist()
    else:
        rows = [i for i, c in enumerate(chosen) if c]
    for i in rows:
        name = layer[i]
        if name in engine_layers:
            engine_layer[i] = name
            t = tactic[i]
            if t is not None and int(t) == engine_layers[name]:
                candidates.setdefault(name, []).append(i)
    for name, found in candidates.items():
        # one combination per engine layer: several can choose the same tactic (and 8.4
        # repeats the chosen lines while generating the engine); prefer the one whose
        # formats have the engine layer's element types
        expected = dtypes.get(name)
        best = [
            i for i in found if expected and _combination_dtypes(combination[i]) == expected
        ] or found
        in_engine[best[0]] = True
    return engine_layer, in_engine


#: the fields the columnar path reads of each kind that sets the state or adds rows
_FAST_FIELDS: dict[str, tuple[str, ...]] = {
    "layer_costs_header": ("layer",),
    "reformat_costs_header": (),
    "autotune_combination": ("inputs", "outputs"),
    "autotune_reformat": ("from_format", "to_format"),
    "cached_tactic": ("layer", "runner", "inputs", "outputs", "tactic", "time_ms"),
    "timing_runner": ("layer", "runner", "runner_id"),
    "tactic_skipped": ("tactic", "only_option", "requested_bytes"),
    "tactic_skipped_memory": ("variant", "tactic", "requested_bytes"),
    "fastest_tactic": ("tactic",),
    "runner_profiled": ("layer", "runner", "tactic"),
    "runner_choice": ("runner", "tactic"),
}
#: kinds the columnar path leaves to :class:`TacticTable` (8.4 tactic names, TensorRT 5/6)
_SLOW_KINDS = ("tactic_name_set", "legacy_timing_header", "legacy_runner_choice")
_KEY_LIMIT = 1 << 62


def _fast_columns(store: EventStore) -> dict[str, Any] | None:
    """The tactics frame's columns without ``engine_layer``/``in_engine``, from columns.

    What :class:`TacticTable` gives, computed per column: the timing rows and the other
    autotuner kinds come as columns from the store (no event built for a hot row). The other
    kinds' rows, merged in file order, say where the state (layer, runner, combination,
    reformat) is set and where a runner block or a combination block (the rows a ``Fastest
    Tactic`` or a ``Chose Runner Type`` line marks) starts; the state after each of them is a
    forward fill, each timing row takes the state of the last such row before it
    (``searchsorted``), and the fastest and chosen marks are one sorted lookup of (block,
    tactic) keys. ``None`` for a log with 8.4 ``Set Tactic Name`` lines or the TensorRT 5/6
    blocks (the table reads those), or ids that are not unsigned 64-bit.
    """
    import numpy as np

    for kind in _SLOW_KINDS:
        if store.column_parts(kind, ()):
            return None
    timing = store.column_parts(
        "tactic_timing", ("tactic", "time_ms", "tactic_name"), arrays=True, severities=False
    )
    parts: list[tuple[str, list[int], dict[str, Any]]] = [
        (kind, lines, values)
        for kind, fields in _FAST_FIELDS.items()
        # (arrays: tactic ids in bulk, a hot part's line numbers as its array)
        for lines, _ends, _sevs, values in store.column_parts(
            kind, fields, arrays=True, severities=False
        )
    ]
    c_lines = _joined([np.asarray(lines, dtype=np.int64) for _k, lines, _v in parts], np.int64)
    n_c = len(c_lines)
    order = np.argsort(c_lines, kind="stable")
    c_sorted = c_lines[order]
    # where each control row lands among the snapshots (0 is the state before the first)
    at = np.empty(n_c, dtype=np.int64)
    at[order] = np.arange(1, n_c + 1)
    size = n_c + 1
    state = {name: _Fill(size) for name in ("layer", "combination", "runner", "rid")}
    state["reformat"] = _Fill(size, bool)  # False before the first control row
    r_reset = np.zeros(size, dtype=bool)
    c_reset = np.zeros(size, dtype=bool)
    fastest_at: list[Any] = []
    fastest_tactic: list[Any] = []
    chosen_at: list[Any] = []
    chosen_runner: list[Any] = []
    chosen_tactic: list[Any] = []
    extra: list[tuple[Any, list[Any], list[Any], bool, list[Any], list[Any], list[Any] | None]] = []
    start = 0
    for kind, lines, values in parts:
        n = len(lines)
        p = at[start : start + n]
        start += n
        if kind == "timing_runner" or kind == "runner_profiled":
            state["runner"].set(p, values["runner"])
            layers = _objects(values["layer"])
            named = layers.astype(bool)  # a runner line without a layer keeps the layer
            state["layer"].set(p[named], layers[named])
            if kind == "timing_runner":
                state["rid"].set(p, values["runner_id"])
                r_reset[p] = True
            else:
                fastest_at.append(p)
                fastest_tactic.append(values["tactic"])
        elif kind == "fastest_tactic":
            fastest_at.append(p)
            fastest_tactic.append(values["tactic"])
        elif kind == "layer_costs_header" or kind == "reformat_costs_header":
            reformat = kind == "reformat_costs_header"
            layers = [None] * n if reformat else [x or None for x in values["layer"]]
            state["layer"].set(p, layers)
            state["reformat"].set(p, [reformat] * n)
            for name in ("combination", "runner", "rid"):
                state[name].set(p, [None] * n)
            r_reset[p] = True
            c_reset[p] = True
        elif kind == "autotune_combination":
            state["combination"].set(
                p,
                [
                    f"{_formats_text(a)} -> {_formats_text(b)}"
                    for a, b in zip(values["inputs"], values["outputs"], strict=True)
                ],
            )
            c_reset[p] = True
        elif kind == "autotune_reformat":
            state["reformat"].set(p, [True] * n)
            state["combination"].set(
                p,
                [
                    f"{a.text} -> {b.text}"
                    for a, b in zip(values["from_format"], values["to_format"], strict=True)
                ],
            )
            c_reset[p] = True
        elif kind == "runner_choice":
            chosen_at.append(p)
            chosen_runner.extend(values["runner"])
            chosen_tactic.append(values["tactic"])
        elif kind == "cached_tactic":
            layers = values["layer"]
            state["layer"].set(p, layers)
            state["runner"].set(p, values["runner"])
            state["rid"].set(p, [None] * n)
            state["combination"].set(
                p,
                [
                    f"{_formats_text(a)} -> {_formats_text(b)}"
                    for a, b in zip(values["inputs"], values["outputs"], strict=True)
                ],
            )
            r_reset[p] = True
            c_reset[p] = True
            reformats = [x.startswith("Optimizer Reformat(") for x in layers]
            extra.append(
                (
                    p,
                    list(values["tactic"]),
                    values["time_ms"],
                    True,
                    [None] * n,
                    [None] * n,
                    reformats,
                )
            )
        elif kind == "tactic_skipped":
            reasons = ["only option" if x else "scratch memory" for x in values["only_option"]]
            extra.append(
                (
                    p,
                    list(values["tactic"]),
                    [_NAN] * n,
                    False,
                    reasons,
                    list(values["requested_bytes"]),
                    None,
                )
            )
        elif kind == "tactic_skipped_memory":
            keep = np.array(
                [
                    v == "skipping" and t is not None
                    for v, t in zip(values["variant"], values["tactic"], strict=True)
                ],
                dtype=bool,
            )
            k = int(keep.sum())
            extra.append(
                (
                    p[keep],
                    [t for t, x in zip(values["tactic"], keep, strict=True) if x],
                    [_NAN] * k,
                    False,
                    ["insufficient memory"] * k,
                    [r for r, x in zip(values["requested_bytes"], keep, strict=True) if x],
                    None,
                )
            )
    # the state after each control row: a forward fill of what each one sets, as the
    # position of the value it carries (the values are taken only for the rows read)
    carried = {name: fill.carried() for name, fill in state.items()}
    reformat_after = state["reformat"].values[carried["reformat"]]
    r_block = np.cumsum(r_reset)
    c_block = np.cumsum(c_reset)
    # the runner after each control row as a number: the texts set numbered once (no
    # Python step per control row); no runner is -1
    runner_fill = state["runner"]
    set_at = np.flatnonzero(runner_fill.where)
    runners = runner_fill.values[set_at].tolist()
    codes: dict[str | None, int] = {r: i for i, r in enumerate(dict.fromkeys(runners))}
    codes[None] = -1
    code_of = codes.setdefault
    code_set = np.full(size, -1, dtype=np.int64)
    code_set[set_at] = np.fromiter(map(codes.__getitem__, runners), np.int64, len(runners))
    s_code = code_set[carried["runner"]]
    # the rows: timings (in parts) and the rows other kinds add
    t_lines = _joined([np.asarray(p[0], dtype=np.int64) for p in timing], np.int64)
    n_t = len(t_lines)
    e_at = np.concatenate([e[0] for e in extra]) if extra else np.zeros(0, dtype=np.int64)
    n_e = len(e_at)
    tactic_all = _uint64([p[3]["tactic"] for p in timing], [t for e in extra for t in e[1]])
    if tactic_all is None:
        return None
    all_lines = np.concatenate([t_lines, c_lines[order][e_at - 1] if n_e else e_at])
    rows = np.argsort(all_lines, kind="stable")
    line_col = all_lines[rows]
    # the snapshot after the last control row on or before each row's line (a row another
    # kind adds is on that kind's line: the state after it); lines are distinct
    snap = np.searchsorted(c_sorted, line_col, side="right")
    tactic = tactic_all[rows]
    cached = np.zeros(n_t + n_e, dtype=bool)
    skipped = np.zeros(n_t + n_e, dtype=bool)
    reformat_col = reformat_after[snap]
    times = np.concatenate(
        [
            _joined([np.asarray(p[3]["time_ms"], dtype=np.float64) for p in timing], np.float64),
            np.array([t for e in extra for t in e[2]], dtype=np.float64),
        ]
    )
    names = np.empty(n_t + n_e, dtype=object)
    at_part = 0
    blank = False  # a timing line printed an empty kernel name (the frame holds None)
    for part in timing:
        column = part[3]["tactic_name"]
        names[at_part : at_part + len(column)] = column
        at_part += len(column)
        blank = blank or "" in column
    # the timing rows have neither: one None for all of them (the page takes a few rows)
    none = np.empty(1, dtype=object)
    skip_reason: Any = Indexed(none, np.zeros(n_t + n_e, dtype=np.intp))
    requested: Any = skip_reason
    if n_e:
        is_extra = rows >= n_t
        which = rows[is_extra] - n_t
        e_cached = np.array([e[3] for e in extra for _ in e[1]], dtype=bool)
        cached[is_extra] = e_cached[which]
        skipped[is_extra] = ~e_cached[which]
        e_reformat = np.array(
            [
                r
                for e in extra
                for r in (e[6] if e[6] is not None else reformat_after[e[0]].tolist())
            ],
            dtype=bool,
        )
        reformat_col[is_extra] = e_reformat[which]
        why = np.empty(n_t + n_e, dtype=object)
        why[n_t:] = [r for e in extra for r in e[4]]
        skip_reason = Indexed(why, rows)
        asked = np.empty(n_t + n_e, dtype=object)
        asked[n_t:] = [r for e in extra for r in e[5]]
        requested = Indexed(asked, rows)
    if blank:
        names[:n_t] = [x or None for x in names[:n_t].tolist()]
    fastest_marks, chosen_marks = _uint64(fastest_tactic, []), _uint64(chosen_tactic, [])
    if fastest_marks is None or chosen_marks is None:
        return None
    fa_at = np.concatenate(fastest_at) if fastest_at else np.zeros(0, dtype=np.int64)
    fastest = _marked(
        (r_block[snap],),
        tactic,
        line_col,
        (r_block[fa_at],),
        fastest_marks,
        c_sorted[fa_at - 1],
    )
    ch_at = np.concatenate(chosen_at) if chosen_at else np.zeros(0, dtype=np.int64)
    chosen = _marked(
        (c_block[snap], s_code[snap] + 1),
        tactic,
        line_col,
        (
            c_block[ch_at],
            np.array(
                [-1 if r is None else code_of(r, len(codes)) for r in chosen_runner],
                dtype=np.int64,
            )
            + 1,
        ),
        chosen_marks,
        c_sorted[ch_at - 1],
    )
    if fastest is None or chosen is None:
        return None
    fastest &= ~skipped
    fastest |= cached
    chosen |= cached
    return {
        "line": line_col,
        "layer": Indexed(state["layer"].values, carried["layer"][snap]),
        "runner": Indexed(runner_fill.values, carried["runner"][snap]),
        "runner_id": Indexed(state["rid"].values, carried["rid"][snap]),
        "reformat": reformat_col,
        "format_combination": Indexed(state["combination"].values, carried["combination"][snap]),
        "tactic": tactic,
        "tactic_hex": None,  # spelled by the caller (tactic_columns or the frame)
        "tactic_name": Indexed(names, rows),  # (the page takes a few rows of it)
        "time_ms": times[rows],
        "fastest": fastest,
        "chosen": chosen,
        "skipped": skipped,
        "cached": cached,
        "skip_reason": skip_reason,
        "requested_bytes": requested,
    }


def _joined(arrays: list[Any], dtype: Any) -> Any:
    import numpy as np

    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)


class Indexed:
    """A column as ``distinct[positions]``: a column of the tactics frame not yet taken.

    A state column's values are the state after each control row (far fewer than the rows),
    so the frame converts ``distinct`` once and takes from it; ``tactic_name`` holds the
    timing parts' names in part order and each row's position among them (the page takes
    only the rows it shows).

    Attributes:
        distinct: an object array (the state after each control row, or the names).
        positions: per row, its position in ``distinct``.
    """

    __slots__ = ("distinct", "positions")

    def __init__(self, distinct: Any, positions: Any) -> None:
        self.distinct = distinct
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, i: int) -> Any:
        return self.distinct[self.positions[i]]

    def array(self) -> Any:
        """The column as an object array."""
        return self.distinct[self.positions]

    def tolist(self) -> list[Any]:
        """The column as a list."""
        return self.array().tolist()  # type: ignore[no-any-return]


def _objects(values: Any) -> Any:
    import numpy as np

    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


class _Fill:
    """One state value per control row: set at some rows, carried forward to the others."""

    def __init__(self, size: int, dtype: Any = object) -> None:
        import numpy as np

        # None (False) before the first control row
        self.values = np.zeros(size, dtype=dtype) if dtype is not object else np.empty(size, object)
        self.where = np.zeros(size, dtype=bool)
        self.where[0] = True

    def set(self, at: Any, values: Any) -> None:
        if len(at):
            objects = isinstance(values, list) and self.values.dtype == object
            self.values[at] = _objects(values) if objects else values
            self.where[at] = True

    def carried(self) -> Any:
        """Per control row, the position of the value after it (the last one set)."""
        import numpy as np

        index = np.where(self.where, np.arange(len(self.where)), 0)
        return np.maximum.accumulate(index)


def _uint64(columns: list[Any], extra: list[Any]) -> Any:
    """The timing parts' tactic columns and the other rows' tactics as one uint64 array."""
    import numpy as np

    pieces = []
    for column in [*columns, extra]:
        if isinstance(column, np.ndarray) and column.dtype == np.uint64:
            pieces.append(column)
            continue
        values = list(column)
        if None in values:
            return None
        try:
            pieces.append(np.array(values, dtype=np.uint64))
        except (OverflowError, TypeError, ValueError):
            return None
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint64)


def _marked(
    row_keys: tuple[Any, ...],
    tactic: Any,
    line: Any,
    mark_keys: tuple[Any, ...],
    mark_tactic: Any,
    mark_line: Any,
) -> Any:
    """Rows with a mark of the same keys and tactic on a later line (``None``: keys too big).

    The keys (a block number, a runner code) and the tactic (as its rank among every tactic)
    are one int64 per row and per mark; each key's last mark line is found with one sorted
    lookup.
    """
    import numpy as np

    n = len(tactic)
    if not len(mark_line) or not n:
        return np.zeros(n, dtype=bool)
    m_tactic = np.asarray(mark_tactic, dtype=np.uint64)
    by_block = _marked_by_block(row_keys, tactic, line, mark_keys, m_tactic, mark_line)
    if by_block is not None:
        return by_block
    # the tactics of the marks, ranked; a row whose tactic no mark names can match none
    ranks, inverse = np.unique(m_tactic, return_inverse=True)
    m_key = inverse.reshape(-1).astype(np.int64)
    at_rank = np.minimum(np.searchsorted(ranks, tactic), len(ranks) - 1)
    named = ranks[at_rank] == tactic
    r_key = at_rank.astype(np.int64)
    scale = len(ranks)
    for r, m in zip(row_keys, mark_keys, strict=True):
        top = int(max(r.max(initial=0), m.max(initial=0))) + 1
        if scale * top >= _KEY_LIMIT:
            return None
        r_key = r_key + r * scale
        m_key = m_key + m * scale
        scale *= top
    m_line = np.array(mark_line, dtype=np.int64)
    order = np.lexsort((m_line, m_key))
    keys, last_line = m_key[order], m_line[order]
    last = np.ones(len(keys), dtype=bool)
    last[:-1] = keys[1:] != keys[:-1]
    keys, last_line = keys[last], last_line[last]
    at = np.minimum(np.searchsorted(keys, r_key), len(keys) - 1)
    return named & (keys[at] == r_key) & (last_line[at] > line)


def _marked_by_block(
    row_keys: tuple[Any, ...],
    tactic: Any,
    line: Any,
    mark_keys: tuple[Any, ...],
    mark_tactic: Any,
    mark_line: Any,
) -> Any:
    """:func:`_marked` when the marks of each block (first key) agree: ``None`` otherwise.

    A log marks each runner block (``Fastest Tactic``, and in 10.x its ``profiling
    completed`` line with the same tactic) and each combination block (``Chose Runner
    Type``) with one tactic: then a row's mark is its block's, looked up by the block number
    (a gather per key, no sort of the rows' tactics and keys), with the block's last mark
    line.
    """
    import numpy as np

    block = mark_keys[0]
    size = int(max(row_keys[0].max(initial=0), block.max(initial=0))) + 1
    at = row_keys[0]
    has = np.zeros(size, dtype=bool)
    has[block] = True
    out = has[at]
    for r, m, dtype in (
        (tactic, mark_tactic, np.uint64),
        *((r, m, np.int64) for r, m in zip(row_keys[1:], mark_keys[1:], strict=True)),
    ):
        of_block = np.zeros(size, dtype=dtype)
        of_block[block] = m
        if not (of_block[block] == m).all():
            return None  # a block with marks of two tactics (or runners): the general way
        out &= of_block[at] == r
    last = np.full(size, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(last, block, np.asarray(mark_line, dtype=np.int64))
    out &= last[at] > line
    return out


def hex_texts(tactic: Any) -> list[str]:
    """``format_tactic`` of every value of a uint64 array (from its big-endian bytes).

    Example:
        >>> import numpy as np
        >>> hex_texts(np.array([1002], dtype=np.uint64))
        ['0x00000000000003ea']
    """
    text = tactic.astype(">u8").tobytes().hex()
    return ["0x" + text[i : i + 16] for i in range(0, len(text), 16)]


# -- the columns read as the frame holds them (no pandas) ------------------------------------


def column_texts(values: Any) -> list[str | None]:
    """A text column of :func:`tactic_columns` as a list, each text as the frame holds it.

    The ``string`` columns of ``tactics_frame`` hold a text with a lone surrogate (text
    decoded with ``surrogateescape``) escaped (``\\udcff``, see
    :func:`trtlog.frames.schema._series`); so does this list. ``values``: a list, an object
    array or an :class:`Indexed` column.

    Example:
        >>> column_texts(["a", None, "b\\udcff"])
        ['a', None, 'b\\\\udcff']
    """
    texts: list[Any] = values.tolist() if hasattr(values, "tolist") else list(values)
    distinct = [t for t in dict.fromkeys(texts) if isinstance(t, str)]
    try:
        "".join(distinct).encode("utf-8")
    except UnicodeEncodeError:
        return [escaped(t) for t in texts]
    return texts


def escaped(text: Any) -> Any:
    """A text with its lone surrogates escaped (``\\udcff``), as a frame's cell shows it.

    Anything else as it is.

    Example:
        >>> escaped("b\\udcff"), escaped(None)
        ('b\\\\udcff', None)
    """
    if isinstance(text, str):
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def column_array(values: Any, dtype: Any) -> Any:
    """A column of :func:`tactic_columns` as a numpy array of ``dtype`` (``None`` → NaN)."""
    import numpy as np

    if isinstance(values, Indexed):
        values = values.array()
    return np.asarray(values, dtype=dtype)


def column_take(values: Any, rows: Any) -> list[Any]:
    """The values of a column of :func:`tactic_columns` at ``rows`` (an index array)."""
    if isinstance(values, Indexed):
        return values.distinct[values.positions[rows]].tolist()  # type: ignore[no-any-return]
    if hasattr(values, "tolist"):
        return values[rows].tolist()  # type: ignore[no-any-return]
    return [values[i] for i in rows.tolist()]


def layer_codes(values: Any) -> tuple[Any, list[str], Any]:
    """The ``layer`` column numbered by first appearance: ``(codes, names, missing)``.

    ``codes`` is what ``pandas.factorize(frame["layer"].fillna(""))`` gives on the frame
    (a missing layer is ``""``), ``names`` the text of each code (as the frame holds it),
    ``missing`` a boolean array of the rows without a layer. An :class:`Indexed` column is
    numbered by its distinct values (one per control row), not per row.

    Example:
        >>> codes, names, missing = layer_codes(["b", None, "a", "b", ""])
        >>> codes.tolist(), names, missing.tolist()
        ([0, 1, 2, 0, 1], ['b', '', 'a'], [False, True, False, False, False])
    """
    import numpy as np

    if isinstance(values, Indexed):
        positions = np.asarray(values.positions, dtype=np.intp)
        if len(positions) and bool((positions[1:] >= positions[:-1]).all()):
            # rising positions (tactic_columns' snapshots, rows in file order): each slot
            # first met where the position changes
            slots = positions[np.flatnonzero(np.r_[True, positions[1:] != positions[:-1]])]
        else:
            used, first = np.unique(positions, return_index=True)
            slots = used[np.argsort(first, kind="stable")]  # in the order of their first row
        codes, names, missing = _numbered(column_texts(values.distinct[slots]))
        slot_code = np.zeros(len(values.distinct), dtype=np.intp)
        slot_code[slots] = codes
        slot_missing = np.zeros(len(values.distinct), dtype=bool)
        slot_missing[slots] = missing
        return slot_code[positions], names, slot_missing[positions]
    return _numbered(column_texts(values))


def _numbered(texts: list[Any]) -> tuple[Any, list[str], Any]:
    """:func:`layer_codes` of a list of texts: each distinct text numbered once.

    The distinct texts in the order first met (``dict.fromkeys``), ``None`` numbered as
    ``""``; then each text's place among them in one ``map`` (no Python step per text).
    """
    import numpy as np

    distinct = list(dict.fromkeys(texts))
    code_of: dict[str, int] = {}
    add = code_of.setdefault
    codes = np.array([add("" if t is None else t, len(code_of)) for t in distinct], dtype=np.intp)
    missing = np.array([t is None for t in distinct], dtype=bool)
    place = {t: i for i, t in enumerate(distinct)}
    at = np.fromiter(map(place.__getitem__, texts), dtype=np.intp, count=len(texts))
    return codes[at], list(code_of), missing[at]
