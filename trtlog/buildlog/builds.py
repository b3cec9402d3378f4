"""Engine builds: each ``build_serialized_network`` call (or trtexec build) of a run.

Part of the data model (pydantic only). A log holds runs (trtexec invocations, or one program
when it prints no ``&&&& RUNNING`` banner), a run holds builds, and a build holds rounds (the
backend strategies the builder tries within one build, :mod:`~trtlog.buildlog.rounds`). A
trtexec run builds once; a Python program may build several engines in one process, each with
its own network parse, builder start, optimizer stages, tactic selection and engine: the
10.16.2 cookbook program of the corpus builds the same network three times (``Engine
generation completed`` at lines 1385, 2797 and 4209).

:func:`derive_builds` cuts every run into its builds from the lines that start one: the network
parse (``Start parsing network model``, the ONNX parser's ``Input filename:`` block), the
builder's start (``[MemUsageChange] Init builder kernel library``) and the optimizer's first
layer count (``Original: N layers``). Their order differs between versions (8.6 trtexec
creates its builder before it parses the model; a program may parse once and build twice), so
a start line opens a new build only when the build so far has made its engine (``Engine
generation completed``, trtexec's ``Engine built in``) or has already printed a start line of
the same kind (a failed build followed by another). Lines after an engine (saving,
deserializing, inference with it) belong to the build that made it, and lines before the
first start line to the first build; a run that prints no start line is one build.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from trtlog.buildlog.header import Run
from trtlog.buildlog.rounds import RunIndex

__all__ = ["BUILD_KINDS", "BuildIndex", "EngineBuild", "derive_builds", "run_ranges"]

#: The event kinds :func:`derive_builds` reads (every other event is skipped).
BUILD_KINDS = (
    "parse_start",
    "onnx_model_info",
    "memory_change",
    "layer_count",
    "engine_generated",
    "engine_built",
)


class EngineBuild(BaseModel):
    """One engine build: a ``build_serialized_network`` call, or a trtexec run's build.

    Attributes:
        index: 0-based position in the file (over every run).
        run: the index of the run it belongs to (``None`` in a log without runs).
        number: 0-based position within its run.
        first_line: its first line (the run's first line for the run's first build).
        last_line: its last line (the line before the next build starts, else the run's last).
        engine_line: the line that says its engine was made (``Engine generation completed``,
            else trtexec's ``Engine built in``), if printed.
        loaded: whether the run loaded an engine (``Engine loaded in``) instead of building.

    How the build ended (built, failed, killed, incomplete, no build) is not a structural fact
    of the lines: :mod:`trtlog.summary.outcome` decides it, once per build, for every reader.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] [TRT] Original: 5 layers\\n"
        ...                "[I] [TRT] Engine generation completed in 1.5 seconds.\\n"
        ...                "[V] [TRT] Original: 5 layers\\n")
        >>> [(x.number, x.first_line, x.last_line, x.engine_line) for x in b.builds]
        [(0, 1, 2, 2), (1, 3, 3, None)]
    """

    model_config = ConfigDict(frozen=True)

    index: int
    run: int | None = None
    number: int = 0
    first_line: int
    last_line: int
    engine_line: int | None = None
    loaded: bool = False

    def contains(self, line: int) -> bool:
        """Whether ``line`` lies in this build."""
        return self.first_line <= line <= self.last_line


def run_ranges(runs: Sequence[Run], n_lines: int) -> list[tuple[int | None, int, int]]:
    """(run index, first line, last line) of every run (one range without runs)."""
    if not runs:
        return [(None, 1, n_lines)]
    return list(RunIndex(runs).ranges())


_PARSE_KEYS = ("parse_start", "onnx_model_info")


def _start_key(event: Any) -> str | None:
    """The kind of build start an event is, or ``None`` (see the module's docstring)."""
    kind: str = event.kind
    if kind in _PARSE_KEYS:
        return kind
    if kind == "memory_change":
        return "builder" if event.phase == "Init builder kernel library" else None
    if kind == "layer_count":
        return "original" if event.stage == "Original" else None
    return None


def derive_builds(
    events: Sequence[Any], runs: Sequence[Run], n_lines: int
) -> tuple[EngineBuild, ...]:
    """Cut every run into its engine builds (see :class:`EngineBuild`).

    ``events`` needs only the :data:`BUILD_KINDS` events, in file order (others are skipped).
    One pass over them: linear in the events whatever the number of runs.

    Example:
        >>> [(b.first_line, b.last_line) for b in derive_builds([], [], 10)]
        [(1, 10)]
    """
    ranges = run_ranges(runs, n_lines)
    starts = [first for _run, first, _last in ranges]
    per_run: list[list[Any]] = [[] for _ in ranges]
    for e in events:
        if e.kind in BUILD_KINDS:
            per_run[max(bisect.bisect_right(starts, e.span[0]) - 1, 0)].append(e)
    out: list[EngineBuild] = []
    for (run, first, last), mine in zip(ranges, per_run, strict=True):
        cuts = [first]  # the first line of each build
        seen: set[str] = set()
        made = False  # whether the current build made its engine
        for e in mine:
            key = _start_key(e)
            if key is not None:
                # a parse repeated before the optimizer started is the same build (a trtexec
                # that prints ``Start parsing network model`` twice, 8.4 seed excerpt)
                again = key in seen and key in ("builder", "original")
                if made or again or (key in _PARSE_KEYS and "original" in seen):
                    cuts.append(e.span[0])
                    seen, made = set(), False
                seen.add(key)
            elif e.kind == "engine_generated" or (e.kind == "engine_built" and not e.loaded):
                made = True
        firsts = [e.span[0] for e in mine]
        for number, begin in enumerate(cuts):
            end = cuts[number + 1] - 1 if number + 1 < len(cuts) else last
            inside = mine[bisect.bisect_left(firsts, begin) : bisect.bisect_right(firsts, end)]
            out.append(_build(len(out), run, number, begin, end, inside))
    return tuple(out)


def _build(
    index: int, run: int | None, number: int, first: int, last: int, inside: Sequence[Any]
) -> EngineBuild:
    """One build from the :data:`BUILD_KINDS` events of its lines."""
    generated = [e.span[0] for e in inside if e.kind == "engine_generated"]
    built = [e.span[0] for e in inside if e.kind == "engine_built" and not e.loaded]
    loaded = any(e.kind == "engine_built" and e.loaded for e in inside)
    engine_line = (generated or built or [None])[-1]
    return EngineBuild(
        index=index,
        run=run,
        number=number,
        first_line=first,
        last_line=last,
        engine_line=engine_line,
        loaded=loaded,
    )


class BuildIndex:
    """Which engine build a line belongs to (a bisect over the builds' first lines).

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] [TRT] Original: 5 layers\\n"
        ...                "[I] [TRT] Engine generation completed in 1.5 seconds.\\n"
        ...                "[V] [TRT] Original: 5 layers\\n")
        >>> BuildIndex(b.builds).at(3).number
        1
    """

    def __init__(self, builds: Sequence[EngineBuild]) -> None:
        self.builds = tuple(builds)
        self.starts = [b.first_line for b in self.builds]

    def at(self, line: int) -> EngineBuild | None:
        """The build ``line`` belongs to (``None`` only for a build-less, empty log)."""
        if not self.builds:
            return None
        i = bisect.bisect_right(self.starts, line) - 1
        return self.builds[max(i, 0)]
