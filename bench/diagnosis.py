"""How well trtlog's verdicts match the labelled set (``tests/cases/*.toml``).

Runs every case (corpus cases are skipped when ``../shared/corpus`` is absent) and prints, per
rule: how many cases expect it (``expected``), how many of those it fired on (``hit``) and
missed (``missed``), how many cases forbid it (``guarded``) and how many of those it fired on
anyway (``false``); then the totals, the hit rate, the outcome agreement and the set's size
(cases, failed builds, TensorRT 10/11 inputs). The test suite fails on any miss or false
finding (``tests/cases/test_cases.py``); this script shows the whole table at once.

Usage: python bench/diagnosis.py [--verbose]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.cases.labelled import evaluate, load_cases, summary_counts


def main(argv: list[str] | None = None) -> int:
    """Print the per-rule table of the labelled set."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--verbose", action="store_true", help="list every case's problems")
    args = p.parse_args(argv)
    cases = load_cases()
    expected: Counter[str] = Counter()
    hit: Counter[str] = Counter()
    guarded: Counter[str] = Counter()
    false: Counter[str] = Counter()
    outcomes = agreed = skipped = 0
    problems: list[str] = []
    t0 = time.perf_counter()
    for case in cases:
        result = evaluate(case)
        if result.skipped:
            skipped += 1
            continue
        for rule in case.must_fire:
            expected[rule] += 1
            hit[rule] += rule in result.fired
        for rule in case.must_not_fire:
            guarded[rule] += 1
            false[rule] += rule in result.fired
        if case.outcome is not None:
            outcomes += 1
            agreed += result.outcome == case.outcome
        problems += [f"{case.name}: {p}" for p in result.problems]
    seconds = time.perf_counter() - t0
    rules = sorted(set(expected) | set(guarded))
    print(f"{'rule':<30}{'expected':>9}{'hit':>6}{'missed':>8}{'guarded':>9}{'false':>7}")
    for rule in rules:
        print(
            f"{rule:<30}{expected[rule]:>9}{hit[rule]:>6}{expected[rule] - hit[rule]:>8}"
            f"{guarded[rule]:>9}{false[rule]:>7}"
        )
    n_expected, n_hit = sum(expected.values()), sum(hit.values())
    n_guarded, n_false = sum(guarded.values()), sum(false.values())
    print(
        f"{'total':<30}{n_expected:>9}{n_hit:>6}{n_expected - n_hit:>8}{n_guarded:>9}{n_false:>7}"
    )
    rate = n_hit / n_expected if n_expected else 1.0
    print(f"hit rate {rate:.1%} ({n_hit}/{n_expected}); false findings {n_false}")
    print(f"outcomes right {agreed}/{outcomes}")
    counts = summary_counts(cases)
    print(
        "set: " + ", ".join(f"{v} {k}" for k, v in counts.items()) + f"; {skipped} skipped; "
        f"{seconds:.1f} s"
    )
    if problems:
        print(f"{len(problems)} problem(s)" + (":" if args.verbose else " (--verbose lists them)"))
        if args.verbose:
            for line in problems:
                print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
