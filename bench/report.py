"""``trtlog.report`` of a big build: file size, time to write it, time to open it (issue 15).

Generates, with the generators of ``bench/parse_throughput.py`` and ``bench/engine_load.py``,
a ``trtexec --verbose`` log of ``--mb`` megabytes (default 50) and a detailed
``--exportLayerInfo`` of ``--layers`` layers (default 20,000) with its ``--exportProfile``.
Then, in the same process:

(a) ``trtlog.parse`` of the log (best of ``--repeat``);
(b) ``trtlog.report`` of that build with the engine and its profile (loaded once
    beforehand), best of ``--repeat``, with the time of each step of the report;
(c) the views the page shows, computed by trtlog's API alone (lint, summarize, the frames,
    the merge graph and every fate, the module tree, the Myelin groups), for reference:
    (b) - (c) is the report's own work (reshaping, the log packed, the page written);
(d) the page opened in headless Chromium (when ``chromium`` and ``chromedriver`` are
    installed): the load event and the moment the page's script has filled every section.

Targets (issue 15): the file at most 15 MB; (b) at most 1.5x (a); the load event within 3 s.
The ratios use the CPU time of this process (both threads: the report compresses the log in a
second one), as the other benchmarks do, because the machine is shared; wall-clock times are
printed too.

Usage: python bench/report.py [--mb 50] [--layers 20000] [--repeat 2] [--no-browser]
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_load import generate as generate_engine
from parse_throughput import generate as generate_log

import trtlog
from trtlog.html import Report


def timed(run: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Best wall and CPU seconds of ``repeat`` runs (collected before each), and a result."""
    walls, cpus = [], []
    result = None
    for _ in range(repeat):
        result = None
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


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
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-browser", action="store_true", help="do not open the page")
    ap.add_argument("--keep", type=Path, help="keep the page at this path")
    args = ap.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="trtlog-bench-report-"))
    log = folder / "build.log"
    layers_path = folder / "model.layers.json"
    profile_path = folder / "model.profile.json"
    generate_log(log, args.mb)
    value, profile = generate_engine(args.layers)
    layers_path.write_text(json.dumps(value, indent=4), encoding="utf-8")
    profile_path.write_text(json.dumps(profile, indent=4), encoding="utf-8")

    trtlog.parse_text("[I] [TRT] Original: 1 layers\n")  # grammars built outside the timing
    t_parse, c_parse, build = timed(lambda: trtlog.parse(log), args.repeat)
    engine = trtlog.load_engine(layers_path, profile=profile_path)
    print(
        f"log: {log.stat().st_size / 1e6:.1f} MB, {build.line_count:,} lines, "
        f"{len(build.events):,} events; engine: {len(engine.layers):,} layers with a profile"
    )
    steps: dict[str, float] = {}
    since = [time.perf_counter()]
    current = [""]

    def progress(step: str) -> None:
        now = time.perf_counter()
        if current[0]:
            steps[current[0]] = steps.get(current[0], 0.0) + now - since[0]
        since[0], current[0] = now, step

    def make() -> Report:
        steps.clear()
        since[0], current[0] = time.perf_counter(), ""
        page = trtlog.report(build, engine, progress=progress)
        progress("")
        return page

    t_report, c_report, page = timed(make, args.repeat)
    gc.collect()
    gc.disable()  # as the report runs them
    try:
        t_views, c_views, _ = timed(lambda: views(build, engine), args.repeat)
    finally:
        gc.enable()
    target = args.keep or folder / "report.html"
    page.write(target)
    size = target.stat().st_size
    print(f"(a) parse of the log:              {t_parse:6.2f} s ({c_parse:.2f} s CPU)")
    print(f"(b) trtlog.report, log + engine:   {t_report:6.2f} s ({c_report:.2f} s CPU)")
    print("    " + ", ".join(f"{k} {v:.2f}" for k, v in steps.items() if k))
    print(f"(c) the views alone (trtlog API):  {t_views:6.2f} s ({c_views:.2f} s CPU)")
    own = c_report - c_views
    print(f"    the report's own work (b)-(c): {own:6.2f} s CPU")
    print(f"file: {size / 1e6:.1f} MB (target <= 15)")
    print(
        f"ratio (b)/(a): {c_report / c_parse:.2f} in CPU time (target <= 1.5), "
        f"{t_report / t_parse:.2f} in wall time"
    )
    print(f"ratio ((b)-(c))/(a): {own / c_parse:.2f} in CPU time (the report's own work)")
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
