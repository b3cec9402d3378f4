"""How fast trtlog answers from a shell: start-up against ``python -c "import json"``.

Runs, as real subprocesses, interleaved round by round so that the shared machine's load
falls on every command alike, ``--repeat`` times each (default 10):

(base)    ``python -c "import json"``: the interpreter's own start-up, the baseline;
(help)    ``trtlog --help`` (the console script's entry point, ``python -m trtlog``);
(cmdhelp) ``trtlog summary --help``;
(import)  ``python -c "import trtlog"``;
(summary) ``trtlog summary`` of the bundled seed log (after one untimed run).

trtlog's modules are byte-compiled first, as pip does when it installs a wheel: with
``PYTHONDONTWRITEBYTECODE=1`` in the environment and no ``__pycache__`` yet, every run would
otherwise compile trtlog's source again (a good part of ``trtlog summary``), which no installed
trtlog does.

It prints min/median/max wall time of each, the ratio of the medians to the baseline's, and
the median CPU time (user + system) of each child, which a loaded machine changes less.
Targets: help at most 6x the baseline, import at most 8x, summary at most 0.5 s of wall time.

``--first-run`` measures instead the first run on a fresh machine: ``trtlog summary`` of the
seed log and ``trtlog.parse`` of a real verbose log of about 3 MB (``--big``), each in a
fresh process with an empty home and cache folder (``HOME``, ``XDG_CACHE_HOME``), and counts
the files each run leaves there (trtlog writes none). With ``--against TREE`` (another
checkout, e.g. ``main``) it runs the same in that tree too, fresh and *warm*: in a home and
cache folder one untimed run of that tree filled (what a tree that caches its grammars there
reads on later runs). The ratio is each median to the median of the first row.

Usage: python bench/startup.py [--repeat 10] [--log PATH]
       python bench/startup.py --first-run [--against TREE] [--repeat 10] [--big PATH]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
CORPUS = Path(os.environ.get("TRTLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
BIG = CORPUS / "trt8.5.10_mnist-best_build-verbose.log"


def _commands(log: Path) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "base": [py, "-c", "import json"],
        "help": [py, "-m", "trtlog", "--help"],
        "cmdhelp": [py, "-m", "trtlog", "summary", "--help"],
        "import": [py, "-c", "import trtlog"],
        "summary": [py, "-m", "trtlog", "summary", str(log)],
    }


def _wall(
    command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        command,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="rounds (default 10)")
    parser.add_argument("--log", type=Path, default=SEED, help="the log of `trtlog summary`")
    parser.add_argument("--first-run", action="store_true", help="a fresh machine's first run")
    parser.add_argument("--big", type=Path, default=BIG, help="the log of `trtlog.parse`")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    if args.first_run:
        first_run(args.repeat, args.log, args.big, args.against)
        return
    commands = _commands(args.log)
    compileall.compile_dir(ROOT / "trtlog", quiet=1)  # what installing a wheel does
    _wall(commands["summary"])  # reads the files once: the rounds do not measure the disk
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


_PARSE = "import sys, trtlog; trtlog.parse(sys.argv[1])"


def _files(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*") if not p.is_dir())


def first_run(repeat: int, log: Path, big: Path, against: Path | None) -> None:
    """Measure and print the first run on a fresh machine (see the module's docstring)."""
    trees = [("this", ROOT)] + ([] if against is None else [("other", against.resolve())])
    for _name, tree in trees:
        compileall.compile_dir(tree / "trtlog", quiet=1)  # what installing a wheel does
    py = sys.executable
    tasks = {
        "summary": [py, "-m", "trtlog", "summary", str(log.resolve())],
        "parse": [py, "-c", _PARSE, str(big.resolve())],
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "cwd").mkdir()  # no checkout on the path through the working folder

        def env(tree: Path, home: Path) -> dict[str, str]:
            home.mkdir(parents=True, exist_ok=True)
            return {
                **os.environ,
                "PYTHONPATH": str(tree),
                "HOME": str(home),
                "XDG_CACHE_HOME": str(home / ".cache"),
            }

        rows: list[tuple[str, Path, Path | None]] = []
        for name, tree in trees:
            rows.append((f"{name} fresh", tree, None))
        if against is not None:
            warm = work / "warm"
            for command in tasks.values():  # fills what the other tree caches in a home
                _wall(command, env(against.resolve(), warm), work / "cwd")
            rows.append(("other warm", against.resolve(), warm))
        walls: dict[tuple[str, str], list[float]] = {}
        cpus: dict[tuple[str, str], list[float]] = {}
        written: dict[tuple[str, str], int] = {}
        load = os.getloadavg()[0]
        for n in range(repeat):
            for label, tree, home in rows:
                for task, command in tasks.items():
                    fresh = work / f"home-{n}"
                    where = home if home is not None else fresh
                    wall, cpu = _wall(command, env(tree, where), work / "cwd")
                    key = (label, task)
                    walls.setdefault(key, []).append(wall)
                    cpus.setdefault(key, []).append(cpu)
                    if home is None:
                        written[key] = written.get(key, 0) + _files(fresh)
                        shutil.rmtree(fresh)
        print(f"{repeat} rounds; load average before them: {load:.1f} (2 cores here)")
        print(f"summary: {log.name}; parse: {big.name} ({big.stat().st_size / 1e6:.1f} MB)")
        print(
            f"{'run':<11} {'task':<8} {'wall min':>9} {'median':>8} {'ratio':>6} {'CPU s':>6}"
            f" {'files':>6}"
        )
        first = {task: statistics.median(walls[(rows[0][0], task)]) for task in tasks}
        for label, _tree, home in rows:
            for task in tasks:
                values = walls[(label, task)]
                med = statistics.median(values)
                files = "-" if home is not None else str(written[(label, task)])
                print(
                    f"{label:<11} {task:<8} {min(values):9.3f} {med:8.3f}"
                    f" {med / first[task]:5.2f}x {statistics.median(cpus[(label, task)]):6.3f}"
                    f" {files:>6}"
                )
        print("(ratio: median wall time over the first row's; files: left in the fresh home,")
        print(" all rounds together)")


if __name__ == "__main__":
    main()
