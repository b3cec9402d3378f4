"""Merge graph and every frame of a verbose log, against its parse time (issue 4 benchmark).

Generates a ``trtexec --verbose`` log with the generator of ``bench/parse_throughput.py`` (ONNX
parser lines, optimizer passes with fusions and removals, autotuning, memory, a layer dump and a
profile table) of at least ``--events`` events (default 50,000), then, in the same process,
best of ``--repeat`` runs of:

(a) ``trtlog.parse`` of the file;
(b) on that build: ``merge_graph()`` (with every ONNX node's fate) and all frames
    (``layer_counts``, ``passes``, ``fusions``, ``removals``, ``qdq``, ``tactics``, ``memory``).

It prints both times and their ratio. Target (issue 4): (b) under 2x (a). CPU time of this
process is measured (the machine is shared).

Usage: python bench/graph.py [--events 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from parse_throughput import generate

import trtlog
from trtlog.graph import merge_graph

FRAMES = (
    "layer_counts_frame",
    "passes_frame",
    "fusions_frame",
    "removals_frame",
    "qdq_frame",
    "tactics_frame",
    "memory_frame",
)


def views(build: trtlog.Build) -> tuple[int, int, int]:
    """Build the merge graph, every fate and every frame; return graph and fate sizes."""
    graph = merge_graph(build)  # not the cached Build.merge_graph(): timed every run
    fates = graph.fates()
    rows = sum(len(getattr(build, name)()) for name in FRAMES)
    return graph.number_of_nodes(), len(fates), rows


def best(repeat: int, run: object) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        run()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    path = Path(tempfile.mkstemp(suffix=".log")[1])
    megabytes = 4.0
    while True:
        generate(path, megabytes)
        build = trtlog.parse(path)
        if len(build.events) >= args.events:
            break
        megabytes *= 1.5
    nodes, fates, rows = views(build)
    unexplained = sum(f.kind == "unexplained" for f in build.merge_graph().fates())
    print(
        f"log: {path.stat().st_size / 1e6:.1f} MB, {len(build.events)} events; graph: {nodes} "
        f"nodes, {fates} ONNX nodes with a fate ({unexplained} unexplained); frames: {rows} rows"
    )
    t_parse = best(args.repeat, lambda: trtlog.parse(path))
    t_views = best(args.repeat, lambda: views(build))
    print(f"(a) parse:                     {t_parse:.3f} s CPU")
    print(f"(b) merge graph + fates + frames: {t_views:.3f} s CPU")
    print(f"ratio (b)/(a): {t_views / t_parse:.2f}  (target < 2.0)")
    path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
