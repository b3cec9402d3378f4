"""The steps of ``trtlog.report`` of a big build, in CPU time of the main thread (issue 15).

``bench/report.py`` prints each step's wall time, which a shared machine inflates (two cores,
several agents). This script times the same steps with ``time.thread_time()`` of the thread
that runs them (the log's compression runs in a second thread and is left out: it overlaps
the steps), on the inputs of ``bench/report.py`` (a ``--mb`` MB log, ``--layers`` layers with
a profile), each round on a fresh parse and a fresh engine, and prints per step min / median
/ max over ``--repeat`` rounds, with the parse's CPU time measured in the same run.

For a big input the report computes its merge graph in a forked child (``trtlog.html.child``):
the "merge graph" step is then the parent's wait, reading and string table, and the child's
CPU time is printed apart. ``TRTLOG_REPORT_PROCESSES=1`` times every step in this process.

Usage: python bench/report_steps.py [--mb 50] [--layers 20000] [--repeat 3]
    [--skip "merge graph"] [--folder DIR]  (DIR keeps the generated inputs between runs)
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

from report import Steps, children_cpu, inputs, stats

import trtlog


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--layers", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3, help="rounds")
    ap.add_argument("--skip", action="append", default=[], help="a step left out of the sum")
    ap.add_argument("--folder", type=Path, help="keep (and reuse) the inputs here")
    args = ap.parse_args()

    folder = args.folder or Path(tempfile.mkdtemp(prefix="trtlog-bench-steps-"))
    folder.mkdir(parents=True, exist_ok=True)
    log, layers_path, profile_path = inputs(folder, args.mb, args.layers)

    trtlog.parse_text("[I] [TRT] Original: 1 layers\n")  # grammars built outside the timing
    parse: list[float] = []
    steps: dict[str, list[float]] = {}
    child: list[float] = []
    for _ in range(args.repeat):
        gc.collect()
        cpu = time.thread_time()
        build = trtlog.parse(log)
        parse.append(time.thread_time() - cpu)
        engine = trtlog.load_engine(layers_path, profile=profile_path)
        took = Steps(time.thread_time)
        gc.collect()
        before = children_cpu()
        trtlog.report(build, engine, progress=took)
        child.append(children_cpu() - before)
        took("")
        for key, seconds in took.seconds.items():
            steps.setdefault(key, []).append(seconds)
        del build, engine
    total = [sum(v[i] for k, v in steps.items() if k not in args.skip) for i in range(args.repeat)]
    print(f"main-thread CPU seconds, min / median / max of {args.repeat} rounds:")
    print(f"  parse of the log        {stats(parse, 3)}")
    for key, values in steps.items():
        print(f"  {key:23s} {stats(values, 3)}")
    left = f" (without {', '.join(args.skip)})" if args.skip else ""
    print(f"  steps{left}: {stats(total, 3)}")
    ratio = [t / p for t, p in zip(total, parse, strict=True)]
    print(f"  steps / parse per round: {stats(ratio, 3)}")
    print(f"  the child process (CPU): {stats(child, 3)}")
    if args.folder is None:
        for path in (log, layers_path, profile_path):
            path.unlink()
        folder.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
