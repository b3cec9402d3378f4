"""``trtlog.report`` against ``trtlog.parse`` of the same log, on generated and real logs.

The inputs:

* generated: a ``trtexec --verbose`` log of ``--mb`` megabytes (default 50; the generator of
  ``bench/parse_throughput.py``) and a detailed ``--exportLayerInfo`` of ``--layers`` layers
  (default 20,000) with its ``--exportProfile`` (``bench/engine_load.py``'s);
* real: the ``--corpus`` (default 5) largest verbose build logs of ``../shared/corpus`` (the
  ``build-log-verbose`` kinds of its MANIFEST; ``TRTLOG_CORPUS`` moves it), each as it is and
  repeated to at least ``--min-mb`` megabytes (default 10).

For each input, ``--repeat`` rounds in this process, alternating (imports and grammars made
before the first): (a) ``trtlog.parse`` of the log (a fresh build every round) and (b)
``trtlog.report`` of that build (for the generated input with the engine and its profile,
loaded beforehand: the page shows them). Printed per input: its size, (a) and (b) (median wall
seconds) and the ratio (b)/(a) per round (min / median / max) in wall time and in CPU time
(the report runs in the caller's thread: its CPU time is this process's). Target: (b) at most
2.0x (a). A shared machine inflates wall times: the load average is printed with them.

Then, unless ``--fresh 0``, ``trtlog report`` of each input in a fresh process, as a user runs
it (the parse included, imports cold; trtlog's modules byte-compiled first, as a wheel
installs them): its wall and CPU seconds, best of ``--fresh``. Last, unless ``--no-browser``,
the generated page opened in headless Chromium (when ``chromium`` and ``chromedriver`` are
installed): the load event and the moment the page's script has filled every section.

Usage: python bench/report.py [--mb 50] [--layers 20000] [--corpus 5] [--min-mb 10]
       [--repeat 3] [--fresh 3] [--no-browser] [--no-generated] [--folder DIR]
"""

from __future__ import annotations

import argparse
import compileall
import csv
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import trtlog

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("TRTLOG_CORPUS", ROOT.parent / "shared" / "corpus"))


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


def stats(values: list[float], digits: int = 2) -> str:
    """``min / median / max`` of ``values``."""
    return " / ".join(
        f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values))
    )


def load() -> str:
    """The machine's load average over the last minute, for the figures' context."""
    return f"{os.getloadavg()[0]:.2f}"


def inputs(folder: Path, mb: float, layers: int) -> tuple[Path, Path, Path]:
    """The generated log, layer JSON and profile in ``folder``, generated when missing."""
    log = folder / "build.log"
    layers_path = folder / "model.layers.json"
    profile_path = folder / "model.profile.json"
    from engine_load import generate as generate_engine
    from parse_throughput import generate as generate_log

    if not log.exists():
        generate_log(log, mb)
    if not layers_path.exists() or not profile_path.exists():
        value, profile = generate_engine(layers)
        layers_path.write_text(json.dumps(value, indent=4), encoding="utf-8")
        profile_path.write_text(json.dumps(profile, indent=4), encoding="utf-8")
    return log, layers_path, profile_path


def corpus_logs(count: int) -> list[Path]:
    """The ``count`` largest verbose build logs of the corpus (its MANIFEST's kinds)."""
    manifest = CORPUS / "MANIFEST.tsv"
    if count <= 0 or not manifest.is_file():
        return []
    with manifest.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    found = [
        CORPUS / row["file"]
        for row in rows
        if row["kind"].startswith("build-log-verbose") and (CORPUS / row["file"]).is_file()
    ]
    found.sort(key=lambda p: (-p.stat().st_size, p.name))
    return found[:count]


def repeated(log: Path, folder: Path, mb: float) -> Path:
    """``log`` written again and again into ``folder`` until it holds ``mb`` megabytes."""
    text = log.read_text(encoding="utf-8", errors="surrogateescape")
    if not text.endswith("\n"):
        text += "\n"
    times = max(1, -(-int(mb * 1e6) // len(text.encode("utf-8", "surrogateescape"))))
    target = folder / f"{log.stem}.x{times}.log"
    if not target.exists():
        target.write_text(text * times, encoding="utf-8", errors="surrogateescape")
    return target


@dataclass
class Case:
    """One input of the benchmark."""

    label: str
    log: Path
    layers: Path | None = None
    profile: Path | None = None


@dataclass
class Rounds:
    """The timings of one case's rounds."""

    parse_wall: list[float]
    parse_cpu: list[float]
    report_wall: list[float]
    report_cpu: list[float]
    steps: dict[str, list[float]]

    def wall_ratios(self) -> list[float]:
        return [r / p for r, p in zip(self.report_wall, self.parse_wall, strict=True)]

    def cpu_ratios(self) -> list[float]:
        return [r / p for r, p in zip(self.report_cpu, self.parse_cpu, strict=True)]


def measure(case: Case, repeat: int) -> tuple[Rounds, trtlog.Build, str]:
    """``repeat`` rounds of (a) the parse and (b) the report of ``case``, alternating."""
    out = Rounds([], [], [], [], {})
    build: trtlog.Build | None = None
    page = ""
    for _ in range(repeat):
        build = None
        page = ""
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        build = trtlog.parse(case.log)
        out.parse_wall.append(time.perf_counter() - wall)
        out.parse_cpu.append(time.process_time() - cpu)
        engine = None
        if case.layers is not None:
            engine = trtlog.load_engine(case.layers, profile=case.profile)
        took = Steps()
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        page = trtlog.report(build, engine, progress=took)
        out.report_wall.append(time.perf_counter() - wall)
        out.report_cpu.append(time.process_time() - cpu)
        took("")
        for key, seconds in took.seconds.items():
            out.steps.setdefault(key, []).append(seconds)
    assert build is not None
    return out, build, page


def fresh(case: Case, page: Path, repeat: int) -> tuple[float, float]:
    """``trtlog report`` of ``case`` in a fresh process: best wall and CPU seconds."""
    argv = [sys.executable, "-m", "trtlog", "report", str(case.log), "-o", str(page), "-q"]
    if case.layers is not None:
        argv += ["--layers", str(case.layers)]
    if case.profile is not None:
        argv += ["--profile", str(case.profile)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True)
        walls.append(time.perf_counter() - wall)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(
            after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
        )
    return min(walls), min(cpus)


def chromium() -> object | None:
    """Headless Chromium through Selenium (its profile folder in ``driver.trtlog_profile``)."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        print("(d) no chromium/chromedriver: the page was not opened")
        return None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print("(d) selenium is not installed: the page was not opened")
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = binary
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
    driver.trtlog_profile = profile  # type: ignore[attr-defined]
    driver.set_page_load_timeout(120)
    return driver


def close(driver: object) -> None:
    driver.quit()  # type: ignore[attr-defined]
    shutil.rmtree(driver.trtlog_profile, ignore_errors=True)  # type: ignore[attr-defined]


def wait_for(driver: object, mark: str, timeout: float = 120.0) -> str:
    """Wait until ``document.documentElement.dataset[mark]`` is set; its value."""
    deadline = time.monotonic() + timeout
    script = f"return document.documentElement.dataset.{mark}"
    while not (value := driver.execute_script(script)):  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page never set {mark}")
        time.sleep(0.02)
    return str(value)


def open_in_browser(page: Path) -> tuple[float, float] | None:
    """The load event and the page's ready mark (ms after navigation start), or None."""
    driver: Any = chromium()
    if driver is None:
        return None
    try:
        driver.get(page.as_uri())
        state = wait_for(driver, "ready")
        loaded = driver.execute_script(
            "return performance.getEntriesByType('navigation')[0].loadEventEnd"
        )
        ready = float(str(driver.execute_script("return document.documentElement.dataset.readyMs")))
        if state != "1":
            raise RuntimeError(f"the page failed: {state}")
        return float(loaded), ready
    finally:
        close(driver)


#: Opens the largest region of the engine graph (all but one of the 1,309 layers drawn) and
#: returns the milliseconds it took, as the page does on a double-click, painted.
_OPEN_LARGEST = """
const done = arguments[arguments.length - 1];
const graph = window.trtlogEngineGraph;
let k = -1;
graph.D.regions.forEach((r, i) => {
  if (k < 0 || r.members.length > graph.D.regions[k].members.length) k = i;
});
const node = document.querySelector('#graph-svg g.gnode[data-node="' + graph.D.regions[k].node + '"]');
const t = performance.now();
node.dispatchEvent(new MouseEvent('dblclick', {bubbles: true}));
requestAnimationFrame(() => setTimeout(() => done([performance.now() - t,
  document.querySelectorAll('#graph-svg g.gnode').length]), 0));
"""


def largest_layer_json() -> Path | None:
    """The corpus's layer JSON with the most layers (the 1,309-layer engine), if any."""
    best: tuple[int, Path] | None = None
    for path in sorted(CORPUS.rglob("*layers-detailed*.json")):
        try:
            count = len(trtlog.load_engine(path).layers)
        except trtlog.InputError:
            continue
        if best is None or count > best[0]:
            best = (count, path)
    return best[1] if best else None


def engine_graph(folder: Path, generated: Path | None) -> None:
    """(e) The engine graph section: time to usable in headless Chromium.

    For the corpus's largest detailed layer JSON (with its profile when the corpus has one):
    the report's engine graph step (its layouts, in Python), then the page opened fresh
    (navigation start to the graph drawn and painted, Myelin regions folded), then its
    largest region opened (every layer but the other regions' drawn). For the generated page
    (past the drawing limit), the time to its neighbourhood drawing.
    """
    found = largest_layer_json()
    if found is None:
        print("(e) no layer JSON in the corpus: the engine graph was not timed")
        return
    profile = Path(str(found).replace("_layers-detailed.json", "_profile.json"))
    engine = trtlog.load_engine(found, profile=profile if profile.exists() else None)
    # (the engine given loaded: the figures are the report's own)
    steps = Steps()
    walls = []
    for _ in range(3):
        steps = Steps()
        start = time.perf_counter()
        page = trtlog.report(engine, progress=steps)
        walls.append(time.perf_counter() - start)
    target = folder / "engine-graph.html"
    page.write(target)
    print(
        f"\n(e) engine graph of {found.name} ({len(engine.layers):,} layers; load {load()}):"
        f" report {statistics.median(walls):.3f} s, of which the engine graph's layouts "
        f"{steps.seconds.get('engine graph', 0.0):.3f} s"
    )
    driver: Any = chromium()
    if driver is None:
        return
    try:
        usable, opened = [], []
        for _ in range(3):
            driver.get(target.as_uri())
            if wait_for(driver, "graphReady") != "1":
                raise RuntimeError("the engine graph failed")
            usable.append(
                float(driver.execute_script("return document.documentElement.dataset.graphReadyMs"))
            )
            ms, drawn = driver.execute_async_script(_OPEN_LARGEST)
            opened.append(float(ms))
        print(
            f"  headless Chromium, navigation start to the graph drawn (regions folded): "
            f"{statistics.median(usable) / 1000:.2f} s (best of 3: {min(usable) / 1000:.2f} s)"
        )
        print(
            f"  its largest region opened ({drawn:,} nodes drawn): "
            f"{statistics.median(opened) / 1000:.2f} s more (target: usable < 3 s)"
        )
        if generated is not None:
            driver.get(generated.as_uri())
            wait_for(driver, "graphReady")
            ms = float(
                driver.execute_script("return document.documentElement.dataset.graphReadyMs")
            )
            shown = driver.execute_script(
                "return document.querySelectorAll('#graph-svg g.gnode').length"
            )
            print(
                f"  the generated engine (past the drawing limit: a neighbourhood of "
                f"{shown} nodes drawn): {ms / 1000:.2f} s after navigation start"
            )
    finally:
        close(driver)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50.0, help="the generated log's size")
    ap.add_argument("--layers", type=int, default=20_000, help="the generated engine's layers")
    ap.add_argument("--corpus", type=int, default=5, help="real logs (0: none)")
    ap.add_argument("--min-mb", type=float, default=10.0, help="a real log repeated to this")
    ap.add_argument("--repeat", type=int, default=3, help="rounds per input")
    ap.add_argument("--fresh", type=int, default=3, help="fresh `trtlog report` runs (0: none)")
    ap.add_argument("--no-browser", action="store_true", help="do not open the page")
    ap.add_argument("--no-generated", action="store_true", help="real logs only")
    ap.add_argument("--folder", type=Path, help="keep (and reuse) the inputs made here")
    ap.add_argument(
        "--engine-graph-only", action="store_true", help="only (e): the engine graph's timing"
    )
    args = ap.parse_args()
    if args.engine_graph_only:
        folder = args.folder or Path(tempfile.mkdtemp(prefix="trtlog-bench-report-"))
        folder.mkdir(parents=True, exist_ok=True)
        engine_graph(folder, None)
        if args.folder is None:
            shutil.rmtree(folder)
        return 0

    folder = args.folder or Path(tempfile.mkdtemp(prefix="trtlog-bench-report-"))
    folder.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []
    if not args.no_generated:
        log, layers_path, profile_path = inputs(folder, args.mb, args.layers)
        label = f"generated {args.mb:g} MB + {args.layers:,} layers"
        cases.append(Case(label, log, layers_path, profile_path))
    for real in corpus_logs(args.corpus):
        cases.append(Case(real.name, real))
        cases.append(Case(f"{real.name} repeated", repeated(real, folder, args.min_mb)))
    if not cases:
        print("no input: the corpus is not there and --no-generated was given")
        return 1

    # imports, grammars and the page's templates made before the first timing
    trtlog.report(trtlog.parse_text("[I] [TRT] Original: 1 layers\n"))
    print(f"rounds per input: {args.repeat}, alternating (a) parse and (b) report")
    print(f"load average at the start: {load()} (2 cores shared by other work inflate walls)")
    ratios: list[float] = []
    generated_page: str | None = None
    for case in cases:
        rounds, build, page = measure(case, args.repeat)
        if case.layers is not None:
            generated_page = page
        size = case.log.stat().st_size / 1e6
        print(
            f"\n{case.label}: {size:.1f} MB, {build.line_count:,} lines, "
            f"{build.event_count:,} events (load {load()})"
        )
        print(
            f"  (a) parse {statistics.median(rounds.parse_wall):.3f} s, (b) report "
            f"{statistics.median(rounds.report_wall):.3f} s (median wall); page "
            f"{len(page) / 1e6:.1f} MB"
        )
        print(
            f"  ratio (b)/(a): {stats(rounds.wall_ratios())} wall, {stats(rounds.cpu_ratios())} CPU"
        )
        print(
            "  steps (median wall s): "
            + ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in rounds.steps.items() if k)
        )
        ratios.append(statistics.median(rounds.cpu_ratios()))
        del build, page
    print(
        f"\nratio (b)/(a), CPU, median per input: worst {max(ratios):.2f}, "
        f"median {statistics.median(ratios):.2f} (target <= 2.0)"
    )
    page_path = folder / "report.html"
    if args.fresh:
        compileall.compile_dir(Path(trtlog.__file__).parent, quiet=1)  # as a wheel installs
        print(f"\n`trtlog report` in a fresh process, best of {args.fresh} (wall / CPU s):")
        for case in cases:
            wall, cpu = fresh(case, page_path, args.fresh)
            print(f"  {case.label}: {wall:.3f} / {cpu:.3f} (load {load()})")
    if not args.no_browser and generated_page is not None:
        page_path.write_text(generated_page, encoding="utf-8", newline="")
        opened = open_in_browser(page_path)
        if opened is not None:
            loaded, ready = opened
            print(
                f"(d) headless Chromium, the generated page: load event {loaded / 1000:.2f} s, "
                f"every section filled {ready / 1000:.2f} s"
            )
    if not args.no_browser:
        engine_graph(folder, page_path if generated_page is not None else None)
    if args.folder is None:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
