"""The steps of ``trtlog.report`` of a big build, in CPU time.

``bench/report.py`` prints each step's wall time, which a shared machine inflates (two cores,
several agents). This script times the same steps with ``time.thread_time()`` (the report runs
in the caller's thread), on the generated inputs of ``bench/report.py`` (a ``--mb`` MB log,
``--layers`` layers with a profile) or on ``--log`` (a log of your own, without an engine),
each round on a fresh parse and a fresh engine, and prints per step min / median / max over
``--repeat`` rounds, with the parse's CPU time measured in the same run.

Usage: python bench/report_steps.py [--mb 50] [--layers 20000] [--repeat 3]
    [--skip "merge graph"] [--folder DIR] [--log LOG]  (DIR keeps the generated inputs)
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

from report import Steps, inputs, stats

import trtlog


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--layers", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3, help="rounds")
    ap.add_argument("--skip", action="append", default=[], help="a step left out of the sum")
    ap.add_argument("--folder", type=Path, help="keep (and reuse) the inputs here")
    ap.add_argument("--log", type=Path, help="time the report of this log instead")
    args = ap.parse_args()

    folder = args.folder or Path(tempfile.mkdtemp(prefix="trtlog-bench-steps-"))
    folder.mkdir(parents=True, exist_ok=True)
    made = inputs(folder, args.mb, args.layers) if args.log is None else None
    log = args.log if made is None else made[0]

    trtlog.parse_text("[I] [TRT] Original: 1 layers\n")  # grammars built outside the timing
    parse: list[float] = []
    steps: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        gc.collect()
        cpu = time.thread_time()
        build = trtlog.parse(log)
        parse.append(time.thread_time() - cpu)
        engine = None if made is None else trtlog.load_engine(made[1], profile=made[2])
        took = Steps(time.thread_time)
        gc.collect()
        trtlog.report(build, engine, progress=took)
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
    if args.folder is None:
        for path in made or ():
            path.unlink()
        folder.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
