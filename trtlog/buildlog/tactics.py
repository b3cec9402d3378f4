"""The tactic rows of a build: what the autotuner timed, skipped, took from its cache, chose.

A fact computed once from a build's events (no pandas): :func:`tactic_columns` reads the
autotuner's events and the ``tactic_timing`` columns of the event store into the columns of
:func:`trtlog.frames.tactics_frame` (which only makes them a frame), and :func:`tactic_rows`
gives the rows without the engine's marks, which ``trtlog summary`` counts without loading
pandas (the summary of a log answers at once).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from trtlog._display import escaped
from trtlog._pydantic import gc_paused
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

__all__ = [
    "TacticTable",
    "column_array",
    "column_take",
    "column_texts",
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
        table = tactic_rows(build)
        table.mark_engine(engine_layers, dtypes)
        columns = table.columns()
        if not arrays and hasattr(columns["tactic"], "tolist"):
            columns["tactic"] = columns["tactic"].tolist()
        return columns


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
            elif isinstance(event, TacticTiming):  # (a timing row read as an event)
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
    """Engine layer name → tactic, and → its tensors' element types, from the log's layer dump."""
    engine = build.engine
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


# -- the columns read as the frame holds them (no pandas) ------------------------------------


def column_texts(values: Any) -> list[str | None]:
    """A text column of :func:`tactic_columns` as a list, each text as the frame holds it.

    The ``string`` columns of ``tactics_frame`` hold a text with a lone surrogate (text
    decoded with ``surrogateescape``) escaped (``\\udcff``, see
    :func:`trtlog.frames.schema._series`); so does this list. ``values``: a list or an
    array.

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


def column_array(values: Any, dtype: Any) -> Any:
    """A column of :func:`tactic_columns` as a numpy array of ``dtype`` (``None`` → NaN)."""
    import numpy as np

    return np.asarray(values, dtype=dtype)


def column_take(values: Any, rows: Any) -> list[Any]:
    """The values of a column of :func:`tactic_columns` at ``rows`` (an index array)."""
    if hasattr(values, "tolist"):
        return values[rows].tolist()  # type: ignore[no-any-return]
    return [values[i] for i in rows.tolist()]


def layer_codes(values: Any) -> tuple[Any, list[str], Any]:
    """The ``layer`` column numbered by first appearance: ``(codes, names, missing)``.

    ``codes`` is what ``pandas.factorize(frame["layer"].fillna(""))`` gives on the frame
    (a missing layer is ``""``), ``names`` the text of each code (as the frame holds it),
    ``missing`` a boolean array of the rows without a layer.

    Example:
        >>> codes, names, missing = layer_codes(["b", None, "a", "b", ""])
        >>> codes.tolist(), names, missing.tolist()
        ([0, 1, 2, 0, 1], ['b', '', 'a'], [False, True, False, False, False])
    """
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
