"""``trtlog.report`` of a big build: file size, time to write it, time to open it (issue 15).

Generates, with the generators of ``bench/parse_throughput.py`` and ``bench/engine_load.py``,
a ``trtexec --verbose`` log of ``--mb`` megabytes (default 50) and a detailed
``--exportLayerInfo`` of ``--layers`` layers (default 20,000) with its ``--exportProfile``.
Then, in the same process, ``--repeat`` rounds, each on a fresh parse and a fresh engine
(both are lazy: the report pays for every event and layer object it reads):

(a) ``trtlog.parse`` of the log;
(b) ``trtlog.report`` of that build with the engine and its profile (loaded beforehand),
    with the time of each step of the report;
(c) the views the page shows, computed by trtlog's API alone (lint, summarize, the frames,
    the merge graph and every fate, the module tree, the Myelin groups), for reference:
    (b) - (c) is the report's own work (reshaping, the log packed, the page written);
(d) the page opened in headless Chromium (when ``chromium`` and ``chromedriver`` are
    installed): the load event and the moment the page's script has filled every section.

Targets (issue 15): the file at most 15 MB; (b) at most 1.5x (a); the load event within 3 s.
Two ratios are printed, per round (min / median / max): wall-clock time, the time a user
waits, which the target is read against since the report computes its merge graph in a
forked child process on the second core (``trtlog.html.child``); and CPU time of both
processes (this one's threads, the log compressed in a second one, plus the child's), the
work done whatever the cores, which a loaded machine turns into wall time.
``TRTLOG_REPORT_PROCESSES=1`` makes the report in one process, as before the child.

Then ``--fresh`` rounds (default 3), each in a fresh process that parses the log and
makes the report once, as ``trtlog report`` does: its imports, caches and memory are cold
(the rounds above reuse the memory the round before freed). trtlog's modules are
byte-compiled first, as pip does when it installs a wheel (``bench/startup.py`` likewise):
with ``PYTHONDONTWRITEBYTECODE=1`` in the environment, each fresh round would otherwise
compile the modules the report imports (0.03-0.07 s of its time), which no installed trtlog
does.

Usage: python bench/report.py [--mb 50] [--layers 20000] [--repeat 3] [--fresh 3]
       [--no-browser]
"""

from __future__ import annotations

import argparse
import compileall
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import trtlog

if TYPE_CHECKING:
    from trtlog.html import Report


class Steps:
    """The report's progress callback: seconds per step by ``clock`` (wall time by default)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.seconds: dict[str, float] = {}
        self.since = clock()
        self.current = ""

    def __call__(self, step: str) -> None:
        now = self.clock()
        if self.current:
            self.seconds[self.current] = self.seconds.get(self.current, 0.0) + now - self.since
        self.since, self.current = now, step


def children_cpu() -> float:
    """CPU seconds of this process's reaped children (the report's forked child)."""
    times = os.times()
    return times.children_user + times.children_system


def stats(values: list[float], digits: int = 2) -> str:
    """``min / median / max`` of ``values``."""
    return " / ".join(
        f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values))
    )


def inputs(folder: Path, mb: float, layers: int) -> tuple[Path, Path, Path]:
    """The log, layer JSON and profile in ``folder``, generated when missing."""
    log = folder / "build.log"
    layers_path = folder / "model.layers.json"
    profile_path = folder / "model.profile.json"
    # (the generators import what trtlog does not: numpy, pandas... a fresh round, which
    # imports this file, must not have them imported before it times the report)
    from engine_load import generate as generate_engine
    from parse_throughput import generate as generate_log

    if not log.exists():
        generate_log(log, mb)
    if not layers_path.exists() or not profile_path.exists():
        value, profile = generate_engine(layers)
        layers_path.write_text(json.dumps(value, indent=4), encoding="utf-8")
        profile_path.write_text(json.dumps(profile, indent=4), encoding="utf-8")
    return log, layers_path, profile_path


def views(build: trtlog.Build, engine: trtlog.Engine) -> None:
    """What the page shows, from trtlog's API alone (the calls the report makes)."""
    from trtlog.summary import summarize

    trtlog.lint(build, engine)
    tactics = build.tactics_frame()  # made once: the summary counts it, the page shows it
    summarize(build, tactics=tactics)
    for frame in ("layer_counts", "passes", "fusions", "removals", "qdq", "memory"):
        getattr(build, f"{frame}_frame")()
    from trtlog.frames.choices import engine_tactics

    engine_tactics(tactics)
    graph = build.merge_graph(engine)
    graph.fates()
    engine.layers_frame()
    engine.groups("myelin")
    engine.module_tree()


def one_round(log: Path, layers_path: Path, profile_path: Path) -> dict[str, float]:
    """One round in this process (a fresh one): the parse, then the report, timed."""
    trtlog.parse_text("[I] [TRT] Original: 1 layers\n")  # grammars built outside the timing
    wall, cpu = time.perf_counter(), time.process_time()
    build = trtlog.parse(log)
    parse_wall, parse_cpu = time.perf_counter() - wall, time.process_time() - cpu
    engine = trtlog.load_engine(layers_path, profile=profile_path)
    children = children_cpu()
    wall, cpu = time.perf_counter(), time.process_time()
    trtlog.report(build, engine)
    report_wall = time.perf_counter() - wall
    from trtlog.html.child import reaped
    from trtlog.html.dropper import dropped

    # (the report leaves its child to a thread to reap, and the page's makings to one to
    # free: their CPU counts once they are done)
    reaped()
    dropped()
    report_cpu = time.process_time() - cpu
    return {
        "parse wall": parse_wall,
        "parse cpu": parse_cpu,
        "report wall": report_wall,
        "report cpu": report_cpu + children_cpu() - children,
    }


def open_in_browser(page: Path) -> tuple[float, float] | None:
    """The load event and the page's ready mark (ms after navigation start), or None."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        print("(d) no chromium/chromedriver: the page was not opened")
        return None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print("(d) selenium is not installed: the page was not opened")
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="trtlog-bench-chromium-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.set_page_load_timeout(120)
        driver.get(page.as_uri())
        deadline = time.monotonic() + 120
        while not driver.execute_script("return document.documentElement.dataset.ready"):
            if time.monotonic() > deadline:
                raise TimeoutError("the page never became ready")
            time.sleep(0.05)
        load = driver.execute_script(
            "return performance.getEntriesByType('navigation')[0].loadEventEnd"
        )
        ready = float(str(driver.execute_script("return document.documentElement.dataset.readyMs")))
        state = driver.execute_script("return document.documentElement.dataset.ready")
        if state != "1":
            raise RuntimeError(f"the page failed: {state}")
        return float(load), ready
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--layers", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3, help="rounds")
    ap.add_argument("--no-browser", action="store_true", help="do not open the page")
    ap.add_argument("--keep", type=Path, help="keep the page at this path")
    ap.add_argument(
        "--fresh",
        type=int,
        default=3,
        help="rounds each in a fresh process, as `trtlog report` runs one (0: none)",
    )
    ap.add_argument("--one-round", nargs=3, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_round:
        print(json.dumps(one_round(*args.one_round)))
        return 0

    from trtlog.html.child import reaped
    from trtlog.html.dropper import dropped

    folder = Path(tempfile.mkdtemp(prefix="trtlog-bench-report-"))
    log, layers_path, profile_path = inputs(folder, args.mb, args.layers)

    trtlog.parse_text("[I] [TRT] Original: 1 layers\n")  # grammars built outside the timing
    # each round on a fresh parse and a fresh engine: the report pays for every event and
    # layer object it needs, as it does after ``trtlog.parse`` (both are lazy)
    rounds: dict[str, list[float]] = {
        k: [] for k in ("parse", "parse wall", "report", "views", "wall", "child")
    }
    steps: dict[str, list[float]] = {}
    page: Report | None = None
    build: trtlog.Build | None = None
    for _ in range(args.repeat):
        page = build = None
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        build = trtlog.parse(log)
        rounds["parse"].append(time.process_time() - cpu)
        rounds["parse wall"].append(time.perf_counter() - wall)
        engine = trtlog.load_engine(layers_path, profile=profile_path)
        took = Steps()
        gc.collect()
        children = children_cpu()
        wall, cpu = time.perf_counter(), time.process_time()
        page = trtlog.report(build, engine, progress=took)
        rounds["wall"].append(time.perf_counter() - wall)
        # (the report leaves its child to a thread to reap, and the page's makings to one to
        # free: their CPU counts once they are done; the next round starts after them)
        reaped()
        dropped()
        parent_cpu = time.process_time() - cpu
        child = children_cpu() - children
        rounds["report"].append(parent_cpu + child)
        rounds["child"].append(child)
        took("")
        for key, seconds in took.seconds.items():
            steps.setdefault(key, []).append(seconds)
        fresh = trtlog.parse(log)
        fresh_engine = trtlog.load_engine(layers_path, profile=profile_path)
        gc.collect()
        gc.disable()  # as the report runs them
        try:
            cpu = time.process_time()
            views(fresh, fresh_engine)
            rounds["views"].append(time.process_time() - cpu)
        finally:
            gc.enable()
        del fresh, fresh_engine
    assert page is not None and build is not None
    print(
        f"log: {log.stat().st_size / 1e6:.1f} MB, {build.line_count:,} lines, "
        f"{build.event_count:,} events; engine: {args.layers:,} layers with a profile"
    )
    target = args.keep or folder / "report.html"
    page.write(target)
    size = target.stat().st_size
    ratio = [r / p for r, p in zip(rounds["report"], rounds["parse"], strict=True)]
    wall_ratio = [r / p for r, p in zip(rounds["wall"], rounds["parse wall"], strict=True)]
    own = [
        (r - v) / p
        for r, v, p in zip(rounds["report"], rounds["views"], rounds["parse"], strict=True)
    ]
    print(f"seconds, min / median / max of {args.repeat} rounds (each on a fresh parse):")
    print(f"(a) parse of the log, CPU:         {stats(rounds['parse'])}")
    print(f"    wall time of (a):              {stats(rounds['parse wall'])}")
    print(f"(b) trtlog.report, log + engine:   {stats(rounds['report'])} CPU of both processes")
    print(f"    of which the child's:          {stats(rounds['child'])}")
    print(f"    wall time of (b):              {stats(rounds['wall'])}")
    print(
        "    steps (wall, median): "
        + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in steps.items() if k)
    )
    print(f"(c) the views alone (trtlog API):  {stats(rounds['views'])}")
    print(f"file: {size / 1e6:.1f} MB (target <= 15)")
    print(f"ratio (b)/(a) per round: {stats(wall_ratio, 3)} in wall time (target <= 1.5)")
    print(f"ratio (b)/(a) per round: {stats(ratio)} in CPU time of both processes")
    print(f"ratio ((b)-(c))/(a) per round: {stats(own)} (the report's own work)")
    if args.fresh:
        compileall.compile_dir(Path(trtlog.__file__).parent, quiet=1)  # as a wheel installs
        fresh_rounds = [
            json.loads(
                subprocess.run(
                    [sys.executable, __file__, "--one-round"]
                    + [str(p) for p in (log, layers_path, profile_path)],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for _ in range(args.fresh)
        ]
        walls = [r["report wall"] / r["parse wall"] for r in fresh_rounds]
        cpus = [r["report cpu"] / r["parse cpu"] for r in fresh_rounds]
        print(
            f"{args.fresh} rounds each in a fresh process (as `trtlog report` runs one): parse "
            f"{stats([r['parse wall'] for r in fresh_rounds])} s, report "
            f"{stats([r['report wall'] for r in fresh_rounds])} s wall"
        )
        print(f"  ratio (b)/(a): {stats(walls, 3)} in wall time (target <= 1.5)")
        print(f"  ratio (b)/(a): {stats(cpus)} in CPU time of both processes")
    if not args.no_browser:
        opened = open_in_browser(target)
        if opened is not None:
            load, ready = opened
            print(
                f"(d) headless Chromium: load event {load / 1000:.2f} s (target <= 3), "
                f"every section filled {ready / 1000:.2f} s"
            )
    if args.keep is None:
        target.unlink()
    for path in (log, layers_path, profile_path):
        path.unlink()
    folder.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
