"""The report's "merge graph" step on the big build, with a breakdown.

Generates (or reuses, with ``--folder``) the inputs of ``bench/report.py``: a ``trtexec
--verbose`` log of ``--mb`` megabytes and an ``--exportLayerInfo`` of ``--layers`` layers with
its profile. Then ``--repeat`` rounds, each on a fresh parse and a fresh engine, of
``trtlog.report`` with a progress callback, as ``bench/report.py`` runs it, printing the parse
(CPU) and the wall and CPU time of the "merge graph" step; with ``--breakdown``, the CPU time
(of the main thread) of the parts of that step too: the walk over the events, ``finish`` (the
engine's layers, composed names, dead ends, :meth:`_infer`), its loop over the engine's layers
(``_engine_layers``: their metadata's and composed names' nodes and edges) and the page's graph
data (nodes, edges and every fate). With ``--cold``, the name splitter's caches are emptied
before each round, as in a ``trtlog report`` process (which runs one round): the rounds after
the first otherwise split the engine's 20,000 names from the cache.

Usage: python bench/merge_graph.py [--mb 50] [--layers 20000] [--repeat 3] [--breakdown]
       [--folder DIR] [--cold]
"""

from __future__ import annotations

import argparse
import functools
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from report import Steps, inputs, stats

import trtlog
import trtlog.graph
from trtlog.graph import from_events
from trtlog.html import data as page_data
from trtlog.names import split_name, split_shape


class Timer:
    """Seconds of some functions by ``clock``, summed per round (wrapped in place)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds: dict[str, float] = {}
        self.clock = clock

    def wrap(self, owner: Any, attribute: str, label: str) -> None:
        original: Callable[..., Any] = getattr(owner, attribute)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            clock = self.clock
            start = clock()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + clock() - start

        setattr(owner, attribute, timed)


class Both:
    """Two progress callbacks as one."""

    def __init__(self, *steps: Steps) -> None:
        self.steps = steps

    def __call__(self, step: str) -> None:
        for each in self.steps:
            each(step)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--layers", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3, help="rounds")
    ap.add_argument("--breakdown", action="store_true", help="time the parts of the step")
    ap.add_argument("--folder", type=Path, help="inputs made once, kept in this folder")
    ap.add_argument("--cold", action="store_true", help="empty the name caches every round")
    args = ap.parse_args()

    folder = args.folder or Path(tempfile.mkdtemp(prefix="trtlog-bench-merge-graph-"))
    folder.mkdir(parents=True, exist_ok=True)
    log, layers_path, profile_path = inputs(folder, args.mb, args.layers)

    # the parts in CPU time of the thread that runs them (a shared machine inflates wall time)
    timer = Timer(time.thread_time)
    if args.breakdown:
        # (Build.merge_graph imports it from the package, which keeps it once imported)
        timer.wrap(trtlog.graph, "merge_graph", "graph built")
        timer.wrap(from_events._Builder, "finish", "finish")
        timer.wrap(from_events._Builder, "_engine_layers", "engine layers")
        timer.wrap(from_events._Builder, "_infer", "infer")
        timer.wrap(page_data, "_graph_texts", "page data")
        timer.wrap(page_data, "graph_strings", "string table")

    trtlog.parse_text("[I] [TRT] Original: 1 layers\n")  # grammars built outside the timing
    parse: list[float] = []
    step: list[float] = []
    step_cpu: list[float] = []
    parts: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        gc.collect()
        cpu = time.process_time()
        build = trtlog.parse(log)
        parse.append(time.process_time() - cpu)
        engine = trtlog.load_engine(layers_path, profile=profile_path)
        if args.cold:
            split_name.cache_clear()
            split_shape.cache_clear()
        took, took_cpu = Steps(), Steps(time.process_time)
        timer.seconds.clear()
        gc.collect()
        trtlog.report(build, engine, progress=Both(took, took_cpu))
        took("")
        took_cpu("")
        step.append(took.seconds["merge graph"])
        step_cpu.append(took_cpu.seconds["merge graph"])
        for key, seconds in timer.seconds.items():
            parts.setdefault(key, []).append(seconds)
        del build, engine
    print(f"seconds, min / median / max of {args.repeat} rounds (each on a fresh parse):")
    print(f"parse of the log (CPU):       {stats(parse, 3)}")
    print(f"step 'merge graph' (wall):    {stats(step, 3)}")
    print(f"step 'merge graph' (CPU):     {stats(step_cpu, 3)}")
    print(
        f"first round (wall / CPU):     {step[0]:.3f} / {step_cpu[0]:.3f} (a `trtlog report` "
        "process runs one: its imports and caches are cold)"
    )
    ratio = [c / p for c, p in zip(step_cpu, parse, strict=True)]
    print(f"step (CPU) / parse (CPU):     {stats(ratio, 3)}")
    for key, values in parts.items():
        print(f"  {key + ':':27} {stats(values, 3)}")
    if args.breakdown:
        print(
            "  (CPU of the main thread; graph built: the walk over the events and finish; "
            "finish includes engine layers and infer)"
        )
    if args.folder is None:
        for path in (log, layers_path, profile_path):
            path.unlink()
        folder.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
