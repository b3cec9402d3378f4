"""How fast trtlog answers from a shell: start-up against ``python -c "import json"`` (issue 18).

Runs, as real subprocesses, interleaved round by round so that the shared machine's load
falls on every command alike, ``--repeat`` times each (default 10):

(base)    ``python -c "import json"``: the interpreter's own start-up, the baseline;
(help)    ``trtlog --help`` (the console script's entry point, ``python -m trtlog``);
(cmdhelp) ``trtlog summary --help``;
(import)  ``python -c "import trtlog"``;
(summary) ``trtlog summary`` of the bundled seed log (the grammar cache warm: one untimed run
          first fills it).

trtlog's modules are byte-compiled first, as pip does when it installs a wheel: with
``PYTHONDONTWRITEBYTECODE=1`` in the environment and no ``__pycache__`` yet, every run would
otherwise compile trtlog's source again (about 0.25 s of ``trtlog summary``), which no installed
trtlog does.

It prints min/median/max wall time of each, the ratio of the medians to the baseline's, and
the median CPU time (user + system) of each child, which a loaded machine changes less.
Targets (issue 18, item 6): help at most 6x the baseline, import at most 8x, summary at most
0.5 s of wall time.

Usage: python bench/startup.py [--repeat 10] [--log PATH]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
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


def _wall(command: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="rounds (default 10)")
    parser.add_argument("--log", type=Path, default=SEED, help="the log of `trtlog summary`")
    args = parser.parse_args()
    commands = _commands(args.log)
    compileall.compile_dir(ROOT / "trtlog", quiet=1)  # what installing a wheel does
    _wall(commands["summary"])  # fills the grammar cache: the rounds measure a warm start
    load = os.getloadavg()[0]
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            wall, cpu = _wall(command)
            walls[name].append(wall)
            cpus[name].append(cpu)
    base = statistics.median(walls["base"])
    print(f"{args.repeat} rounds; load average before them: {load:.1f} (2 cores here)")
    print(f"{'command':<9} {'wall min':>9} {'median':>8} {'max':>8} {'ratio':>7} {'CPU s':>7}")
    for name, values in walls.items():
        med = statistics.median(values)
        print(
            f"{name:<9} {min(values):9.3f} {med:8.3f} {max(values):8.3f} {med / base:6.1f}x"
            f" {statistics.median(cpus[name]):7.3f}"
        )
    print("(ratio: median wall time over the median of base; CPU s: median user + system)")
    checks = [
        ("help", statistics.median(walls["help"]) / base, 6.0, "x"),
        ("cmdhelp", statistics.median(walls["cmdhelp"]) / base, 6.0, "x"),
        ("import", statistics.median(walls["import"]) / base, 8.0, "x"),
        ("summary", statistics.median(walls["summary"]), 0.5, " s"),
    ]
    print()
    for name, value, target, unit in checks:
        verdict = "met" if value <= target else "MISSED"
        print(f"target {name}: {value:.2f}{unit} (at most {target}{unit}): {verdict}")


if __name__ == "__main__":
    main()
