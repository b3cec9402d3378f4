"""How fast trtlog answers from a shell: start-up against ``python -c "import json"`` (issue 18).

Runs, as real subprocesses, interleaved round by round so that the shared machine's load
falls on every command alike, ``--repeat`` times each (default 10):

(base)    ``python -c "import json"``: the interpreter's own start-up, the baseline;
(help)    ``trtlog --help`` (the console script's entry point, ``python -m trtlog``);
(cmdhelp) ``trtlog summary --help``;
(import)  ``python -c "import trtlog"``;
(summary) ``trtlog summary`` of the bundled seed log (the grammar cache warm: one untimed run
          first fills it).

It prints min/median/max wall time of each and the ratio of the medians to the baseline's.
Targets (issue 18, item 6): help at most 6x the baseline, import at most 8x, summary at most
0.5 s of wall time.

Usage: python bench/startup.py [--repeat 10] [--log PATH]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"


def _commands(log: Path) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "base": [py, "-c", "import json"],
        "help": [py, "-m", "trtlog", "--help"],
        "cmdhelp": [py, "-m", "trtlog", "summary", "--help"],
        "import": [py, "-c", "import trtlog"],
        "summary": [py, "-m", "trtlog", "summary", str(log)],
    }


def _wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="rounds (default 10)")
    parser.add_argument("--log", type=Path, default=SEED, help="the log of `trtlog summary`")
    args = parser.parse_args()
    commands = _commands(args.log)
    _wall(commands["summary"])  # fills the grammar cache: the rounds measure a warm start
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            times[name].append(_wall(command))
    base = statistics.median(times["base"])
    print(f"{'command':<10} {'min':>8} {'median':>8} {'max':>8}   ratio to base (median)")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<10} {min(values):8.3f} {med:8.3f} {max(values):8.3f}   {med / base:5.1f}x")
    checks = [
        ("help", statistics.median(times["help"]) / base, 6.0, "x"),
        ("cmdhelp", statistics.median(times["cmdhelp"]) / base, 6.0, "x"),
        ("import", statistics.median(times["import"]) / base, 8.0, "x"),
        ("summary", statistics.median(times["summary"]), 0.5, " s"),
    ]
    print()
    for name, value, target, unit in checks:
        verdict = "met" if value <= target else "MISSED"
        print(f"target {name}: {value:.2f}{unit} (at most {target}{unit}): {verdict}")


if __name__ == "__main__":
    main()
