"""Linear time on pathological lines: every pattern on a line's path, and the whole parser.

Each grammar terminal, each module-level regular expression of the package (the parser's, the
name splitter's, the kernel-name decoder's, the tensor formats', the JSON repair's), the whole
parser on hostile lines and the name splitter on hostile names (``tests/fuzz/hostile.py``; the
tests parse them at 100,000 characters), each on a run of ``--small``
and of ``--large`` characters of what its repetitions and lookaheads scan (after the pattern's
own literal prefix, so that the run reaches them). A linear pattern costs about
``--large / --small`` times more on the large input; a quadratic one costs that squared (the
first probe of the header grammar took 57 s on one line).

Times are CPU times, best of ``--rounds``, with the cyclic collector paused (a name split into
20,000 parts makes 20,000 objects; collections are no part of the algorithm's cost). It prints
each group's worst ratio, and every case whose ratio exceeds ``--limit`` times the size ratio
over a large input that took more than ``--floor`` seconds (below, timer noise decides the
ratio).

Usage: python bench/linear_time.py [--small 10000] [--large 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import pkgutil
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from re import _constants as sre_constants
from re import _parser as sre_parse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import trtlog  # noqa: E402
from tests.fuzz.hostile import HOSTILE_LINES, NAMES  # noqa: E402
from trtlog import names  # noqa: E402
from trtlog.names import parse_kernel_name, split_name  # noqa: E402
from trtlog.parser.families import FAMILIES  # noqa: E402
from trtlog.parser.grammar import cached_parser  # noqa: E402

#: Work on an input of n characters.
Make = Callable[[int], Callable[[], object]]

# runs of what lookaheads and repetitions scan: words, blanks, brackets, separators, digits
FILLERS = ("x", " ", "(", "[", ":", "0", " + ", ", ")
MODULE_FILLERS = (*FILLERS, "\x1b]", "PWN(", "_myl1", "[ONNX Layer: ")

# Patterns the code uses only with match/fullmatch at a known position (search would retry
# them at every position; they are never searched).
MATCH_ONLY = {
    "trtlog.tensors._PROSE",
    "trtlog.parser.families.onnx._PROTO_LINE",
    "trtlog.parser.families.onnx._SOURCE_PREFIX",
    "trtlog.parser.families.onnx._IO_ITEM",
    "trtlog.parser.families.errors._ERROR_TAIL",
    "trtlog.parser.families.layers._KEY",
    "trtlog.parser.fragments._QUOTE",
    "trtlog.parser.fragments._ROW_86",
    "trtlog.parser.fragments._ROW_84",
    "trtlog.parser.fragments._ROW_7X",
    "trtlog.parser.fragments._JSON_RECORD",
    "trtlog.findings.rules.hardware._CC",
    "trtlog.summary.outcome._KILLED",
}


def cost(func: Callable[[], object], rounds: int) -> float:
    """CPU seconds of ``func``, best of ``rounds``, the cyclic collector paused."""
    best = float("inf")
    for _ in range(rounds):
        gc.disable()
        try:
            start = time.process_time()
            func()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


def repeated(work: Callable[[], object], times: int) -> Callable[[], object]:
    """``work`` run ``times`` times over."""
    return lambda: [work() for _ in range(times)]


def _run(filler: str, n: int) -> str:
    return (filler * (n // len(filler) + 1))[:n]


def _matching(pattern: re.Pattern[str], how: str, prefix: str, filler: str) -> Make:
    def make(n: int) -> Callable[[], object]:
        text = prefix + _run(filler, n)
        method = getattr(pattern, how)
        return lambda: method(text)

    return make


def _prefix(pattern: str, flags: int) -> str:
    """The literal text a pattern starts with (what a line needs to reach its repetitions)."""
    out = ""
    for op, arg in sre_parse.parse(pattern, flags):
        if op is not sre_constants.LITERAL:
            break
        out += chr(arg)
    return out


def terminals() -> Iterator[tuple[str, Make]]:
    """Every regular-expression terminal of every grammar, on each filler."""
    found: dict[str, re.Pattern[str]] = {}
    for family in FAMILIES:
        for t in cached_parser(family).terminals:
            if t.pattern.type != "re":
                continue
            flags = 0
            for flag in t.pattern.flags:
                flags |= getattr(re, flag.upper())
            found[f"{family.name}.{t.name}"] = re.compile(t.pattern.to_regexp(), flags)
    for name, pattern in sorted(found.items()):
        prefix = _prefix(pattern.pattern, pattern.flags)
        for filler in FILLERS:
            yield f"{name} on {filler!r}", _matching(pattern, "match", prefix, filler)


@functools.cache
def _module_patterns() -> list[tuple[str, re.Pattern[str]]]:
    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(trtlog.__path__, "trtlog."):
        if info.name.startswith(("trtlog.warehouse", "trtlog.html")) or info.name.endswith(
            "__main__"
        ):
            continue
        module = importlib.import_module(info.name)
        for key, value in vars(module).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                found.setdefault(f"{info.name}.{key}", value)
    return sorted(found.items())


def module_patterns() -> Iterator[tuple[str, Make]]:
    """Every module-level pattern of the package (but the warehouse's and the report's)."""
    for name, pattern in _module_patterns():
        how = "match" if name in MATCH_ONLY else "search"
        for filler in MODULE_FILLERS:
            yield f"{name}.{how} on {filler!r}", _matching(pattern, how, "a", filler)


def hostile_lines() -> Iterator[tuple[str, Make]]:
    """The whole parser on one hostile line, and the names of its events."""
    for case, line in sorted(HOSTILE_LINES.items()):

        def make(n: int, line: Callable[[int], str] = line) -> Callable[[], object]:
            text = line(n) + "\n"
            return lambda: [e.names() for e in trtlog.parse_text(text).events]

        yield case, make


def hostile_names() -> Iterator[tuple[str, Make]]:
    """The name splitter and the kernel-name decoder on one hostile name (caches cleared)."""
    for case, name_of in sorted(NAMES.items()):

        def make(n: int, name_of: Callable[[int], str] = name_of) -> Callable[[], object]:
            name = name_of(n)

            def split() -> object:
                for value in vars(names).values():
                    if callable(getattr(value, "cache_clear", None)):
                        value.cache_clear()
                return split_name(name).members(), parse_kernel_name(name)

            return split

        yield case, make


GROUPS: dict[str, Callable[[], Iterator[tuple[str, Make]]]] = {
    "grammar terminals": terminals,
    "module patterns": module_patterns,
    "hostile lines": hostile_lines,
    "hostile names": hostile_names,
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", type=int, default=10_000, help="characters of the small input")
    ap.add_argument("--large", type=int, default=100_000, help="characters of the large input")
    ap.add_argument("--rounds", type=int, default=3, help="best of this many runs")
    ap.add_argument("--limit", type=float, default=1.5, help="flag ratios above this x size")
    ap.add_argument("--floor", type=float, default=0.005, help="seconds below which no flag")
    ap.add_argument("--group", choices=sorted(GROUPS), action="append", help="only these")
    args = ap.parse_args()
    size = args.large / args.small
    print(
        f"inputs of {args.small:,} and {args.large:,} characters (x{size:g}), best of "
        f"{args.rounds}; flagged: ratio over {args.limit * size:g}, large over {args.floor} s"
    )
    flagged = 0
    for group in args.group or GROUPS:
        worst, worst_case, cases, timed = 0.0, "", 0, 0
        for case, make in GROUPS[group]():
            cases += 1
            small = cost(make(args.small), args.rounds)
            large = cost(make(args.large), args.rounds)
            if large <= args.floor:
                continue  # timer noise decides such a ratio
            if large > args.limit * size * small:
                # measured again before it is flagged: best of more rounds, the small input
                # run as many times as it takes to make as many characters as the large one
                # (one sub-millisecond reading is mostly the timer's noise)
                small = cost(repeated(make(args.small), round(size)), 7) / round(size)
                large = cost(make(args.large), 7)
            timed += 1
            ratio = large / max(small, 1e-9)
            if ratio > worst:
                worst, worst_case = ratio, case
            if ratio > args.limit * size:
                flagged += 1
                print(f"  FLAGGED {group}: {case}: {small:.4f} s -> {large:.4f} s (x{ratio:.1f})")
        print(
            f"{group}: {cases} cases, {timed} over {args.floor} s, worst ratio x{worst:.1f}"
            f" ({worst_case or '-'})"
        )
    print(f"flagged: {flagged}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
