"""Builder rounds: when one engine build tries several backend strategies (8.6+).

Part of the data model (pydantic only). From TensorRT 8.6 the builder may try several *backend
strategies* for one network (``Building graph using backend strategy <n>``): each try runs the
whole optimizer again (layer-count stages, tactic selection, engine generation), estimates the
engine's inference time, and keeps it (``Use backend strategy <n> ... as the initial choice``,
``Chose this engine with backend strategy <n> ...``) or drops it (``Skip backend strategy
<n>...``). 10.16.1 mnist FP16 (corpus) builds three times: tactic selection took 14.81 s,
7.70 s and 0.395 s (lines 2984, 4424, 4648), and the engine it saved is the second one's.

:func:`derive_rounds` cuts every engine build of a log (:mod:`~trtlog.buildlog.builds`: a log
holds runs, a run holds builds, a build holds rounds) into its rounds; ``Build.rounds`` holds
them, and views use them to keep one round's stages and times apart from the next one's. A
build that prints no backend strategy, or one, is one round.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from trtlog.buildlog.header import Run

__all__ = ["Round", "RoundIndex", "RunIndex", "derive_rounds"]


class Round(BaseModel):
    """One build of the network by the builder (one backend strategy tried).

    Attributes:
        index: 0-based position in the file (over every run).
        run: the index of the run it belongs to (``None`` in a log without runs).
        build: the index of the engine build it belongs to (``Build.builds``).
        number: 0-based position within its build.
        first_line: its first line: its ``Building graph using backend strategy`` line, or the
            build's first line when the build tries one strategy.
        last_line: its last line: the builder's verdict on its engine when printed, else the
            line before the next round, else the build's last line. Lines of a build outside its
            rounds (model parsing and the network's first layer counts before the first
            round, saving the engine and inference after the last) belong to the build.
        strategy: the backend strategy it built with (8.6+), if printed.
        outcome: what the builder did with its engine: ``initial`` (kept as the first
            choice), ``chosen`` (faster than the one kept before), ``skipped`` (not faster),
            ``None`` when the log says nothing.
        estimated_time: the builder's estimate of the engine's inference time, as printed.
        kept: whether the engine the build ends with comes from this round (the last round
            kept as ``initial`` or ``chosen``; the last round when no outcome is printed).

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] [TRT] Building graph using backend strategy 4\\n"
        ...                "[V] [TRT] Building graph using backend strategy 3\\n")
        >>> [(r.number, r.strategy, r.first_line, r.last_line, r.kept) for r in b.rounds]
        [(0, 4, 1, 1, False), (1, 3, 2, 2, True)]
    """

    model_config = ConfigDict(frozen=True)

    index: int
    run: int | None = None
    build: int | None = None
    number: int = 0
    first_line: int
    last_line: int
    strategy: int | None = None
    outcome: Literal["initial", "chosen", "skipped"] | None = None
    estimated_time: float | None = None
    kept: bool = True

    def contains(self, line: int) -> bool:
        """Whether ``line`` lies in this round."""
        return self.first_line <= line <= self.last_line


class RunIndex:
    """Which trtexec run a line belongs to: the one run rule of every view.

    Runs start at their ``&&&& RUNNING`` banner (:attr:`Run.first_line`) and end before the
    next one; the lines before the first banner belong to the first run (a paste that starts
    with the model's options, or a log whose banner came late). ``Build.run_of``,
    ``Build.for_run``, the builder rounds and the performance of each run all use it.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[I] [TRT] Original: 5 layers\\n"
        ...                "&&&& RUNNING TensorRT.trtexec # trtexec --batch=1\\n"
        ...                "&&&& RUNNING TensorRT.trtexec # trtexec --batch=2\\n")
        >>> index = RunIndex(b.runs)
        >>> [index.at(line).index for line in (1, 2, 3)], index.ranges()
        ([0, 0, 1], [(0, 1, 2), (1, 3, 3)])
    """

    def __init__(self, runs: Sequence[Run]) -> None:
        self.runs = tuple(runs)
        self.starts = [r.first_line for r in self.runs]

    def at(self, line: int) -> Run | None:
        """The run ``line`` belongs to (``None`` only in a log without runs)."""
        if not self.runs:
            return None
        i = bisect.bisect_right(self.starts, line) - 1
        return self.runs[max(i, 0)]

    def first_line(self, run: Run) -> int:
        """The first line of ``run``: its banner, or line 1 for the file's first run.

        (A view of one later run, ``Build.for_run``, keeps that run's own first line.)
        """
        return 1 if run.index == 0 else run.first_line

    def ranges(self) -> list[tuple[int, int, int]]:
        """``(run index, first line, last line)`` of every run, lines before the first in it."""
        return [(r.index, self.first_line(r), r.last_line) for r in self.runs]


def derive_rounds(events: Sequence[Any], builds: Sequence[Any]) -> tuple[Round, ...]:
    """Cut every engine build into its builder rounds (see :class:`Round`).

    ``builds`` are the log's :class:`~trtlog.buildlog.builds.EngineBuild` (in file order);
    ``events`` needs only the ``backend_strategy`` events (others are skipped). Linear in
    the events and the builds.

    Example:
        >>> from trtlog.buildlog.builds import derive_builds
        >>> [(r.first_line, r.last_line) for r in derive_rounds([], derive_builds([], [], 10))]
        [(1, 10)]
    """
    strategies = [e for e in events if e.kind == "backend_strategy"]
    firsts = [e.span[0] for e in strategies]
    out: list[Round] = []
    for build in builds:
        first, last = build.first_line, build.last_line
        mine = strategies[bisect.bisect_left(firsts, first) : bisect.bisect_right(firsts, last)]
        builds_ = [e for e in mine if e.action == "build"]
        rounds: list[dict[str, Any]] = []
        if len(builds_) <= 1:
            strategy = builds_[0].strategy if builds_ else None
            rounds.append({"first_line": first, "last_line": last, "strategy": strategy})
        else:
            for i, began in enumerate(builds_):
                end = builds_[i + 1].span[0] - 1 if i + 1 < len(builds_) else last
                rounds.append(
                    {"first_line": began.span[0], "last_line": end, "strategy": began.strategy}
                )
        for verdict in (e for e in mine if e.action != "build"):
            line = verdict.span[0]
            # the round that built with this strategy, else the one the line lies in
            same = [
                r for r in rounds if r["strategy"] == verdict.strategy and r["first_line"] <= line
            ]
            inside = [r for r in rounds if r["first_line"] <= line <= r["last_line"]]
            target = (same or inside or rounds)[-1]
            target["outcome"] = verdict.action
            target["estimated_time"] = verdict.estimated_time
            if len(rounds) > 1:
                target["last_line"] = min(target["last_line"], line)
        kept = [r for r in rounds if r.get("outcome") in ("initial", "chosen")]
        keeper = (kept or rounds)[-1]
        for number, r in enumerate(rounds):
            out.append(
                Round(
                    index=len(out),
                    run=build.run,
                    build=build.index,
                    number=number,
                    kept=r is keeper,
                    **r,
                )
            )
    return tuple(out)


class RoundIndex:
    """Which round a line belongs to (a bisect over the rounds' first lines).

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] [TRT] Building graph using backend strategy 4\\n"
        ...                "[V] [TRT] Building graph using backend strategy 3\\n")
        >>> RoundIndex(b.rounds).get(2).strategy
        3
    """

    def __init__(self, rounds: Sequence[Round]) -> None:
        self.rounds = tuple(rounds)
        self.starts = [r.first_line for r in self.rounds]

    def get(self, line: int) -> Round | None:
        """The round ``line`` lies in, or ``None`` (a line of its run outside every round)."""
        i = bisect.bisect_right(self.starts, line) - 1
        if i < 0:
            return None
        found = self.rounds[i]
        return found if found.contains(line) else None
