"""Time and memory against the number of runs in one log: summary, lint, report and ingest.

A log that appends many trtexec runs (CI sweeps, benchmarks across batch sizes) is a realistic
input. This script cuts the real trtexec runs of ``../shared/corpus`` at their ``&&&& RUNNING``
banners (the TensorRT 7.1 Jetson sweeps over batch sizes and the 10.16 cookbook builds and
runs), appends them in turn until a log holds ``--runs`` runs (default 250, 1,000 and 4,000),
and runs each command on each log in a fresh ``python -m trtlog`` process: its CPU seconds
(user + system) and peak resident memory, read from ``wait4``. ``--huge-mb`` (0 skips it)
adds one log of that many megabytes of the same runs.

Per-run work must be linear: the last line prints, for each command, the CPU time of the
largest log over that of the one before, next to the ratio of their sizes (4,000 runs within
5x of 1,000). ``--tree`` names the checkout to measure (default: this one), so the same
script measures another branch.

``--max-gib`` caps each command's address space (default 20 GiB, so that a 1 GB log cannot
take a shared 24 GiB machine down; a command past it fails with its exit code printed).
``--runs`` with no number measures the ``--huge-mb`` log alone.

Usage: python bench/scale.py [--runs 250 1000 4000] [--commands summary lint report ingest]
       [--huge-mb 0] [--max-gib 20] [--tree PATH]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"

#: Real logs whose trtexec runs are repeated (each cut at its banners).
SOURCES = (
    "trt7.1_resnet50-caffe-int8-jetson_build-multi.log",
    "trt7.1_resnet50-caffe-fp16-jetson_build-multi.log",
    "trt7.1_googlenet-caffe-int8-jetson_build-multi.log",
    "trt10.16.1_cookbook-mnist-cnn-fp32_build.log",
    "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
    "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
)

_BANNER = re.compile(r"^&&&& RUNNING ", re.MULTILINE)


#: The runs used when the corpus is absent (a smoke test): a fixture of two 7.1-shaped runs.
FALLBACK = ROOT / "fixtures" / "logs" / "trt7.1-like_two-runs_perf-block.log"


def real_runs(corpus: Path) -> list[str]:
    """The text of every trtexec run of :data:`SOURCES` (from one banner to the next)."""
    runs: list[str] = []
    paths = [corpus / name for name in SOURCES]
    if not all(p.is_file() for p in paths):
        print(f"no corpus at {corpus}: repeating the runs of {FALLBACK.name} instead")
        paths = [FALLBACK]
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        starts = [m.start() for m in _BANNER.finditer(text)] or [0]
        ends = [*starts[1:], len(text)]
        runs += [
            text[a:b] if text[a:b].endswith("\n") else text[a:b] + "\n"
            for a, b in zip(starts, ends, strict=True)
        ]
    return runs


def write_log(path: Path, runs: list[str], count: int = 0, size: int = 0) -> int:
    """Append the runs in turn until ``count`` runs (or ``size`` bytes); the runs written."""
    written = total = 0
    with path.open("w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        while (count and written < count) or (size and total < size):
            text = runs[written % len(runs)]
            f.write(text)
            total += len(text.encode("utf-8", "surrogateescape"))
            written += 1
    return written


def command(name: str, log: Path, work: Path) -> list[str]:
    """The trtlog arguments of one measured command."""
    if name == "report":
        return ["report", str(log), "-o", str(work / "page.html")]
    if name == "ingest":
        return ["-q", "ingest", "--jobs", "1", "--to", str(work / "warehouse"), str(log)]
    return [name, str(log)]


def measure(
    args: list[str], tree: Path, timeout: float, max_gib: float = 0
) -> tuple[float, float, float, int]:
    """(CPU s, wall s, peak RSS MiB, exit code) of ``python -m trtlog <args>`` in ``tree``.

    A process that used ``timeout`` CPU seconds is stopped by the kernel (``RLIMIT_CPU``:
    exit code -24), so a loaded machine does not cut a measure short; ``max_gib`` (0: none)
    caps its address space.
    """

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(timeout), int(timeout) + 5))
        if max_gib:
            # address space, not RSS: a command that would take the shared machine down ends
            # with a MemoryError (exit 1 or 2) instead
            cap = int(max_gib * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "trtlog", *args],
        env=env,
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=limit,
    )
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return cpu, wall, usage.ru_maxrss / 1024, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, nargs="*", default=[250, 1000, 4000])
    ap.add_argument(
        "--commands",
        nargs="+",
        default=["summary", "lint", "report", "ingest"],
        choices=["summary", "lint", "report", "ingest"],
    )
    ap.add_argument("--huge-mb", type=float, default=0, help="one log of this size too (0: no)")
    ap.add_argument(
        "--timeout", type=float, default=900, help="stop a command after this many CPU seconds"
    )
    ap.add_argument(
        "--max-gib", type=float, default=20, help="cap each command's address space (0: none)"
    )
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout to measure")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    runs = real_runs(args.corpus)
    print(f"tree {args.tree}; {len(runs)} runs to repeat")
    print(f"load: {os.getloadavg()[0]:.2f} (2 cores shared)")
    cpu_of: dict[str, list[tuple[int, float]]] = {c: [] for c in args.commands}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sizes: list[tuple[str, int, Path]] = []
        for n in args.runs:
            log = work / f"runs{n}.log"
            write_log(log, runs, count=n)
            sizes.append((f"{n} runs", n, log))
        if args.huge_mb:
            log = work / "huge.log"
            n = write_log(log, runs, size=int(args.huge_mb * 2**20))
            sizes.append((f"{args.huge_mb:g} MB", n, log))
        print(
            f"{'input':<12}{'MB':>8}  {'command':<9}{'CPU s':>9}{'wall s':>9}"
            f"{'peak RSS MiB':>14}{'x file':>8}  exit"
        )
        for label, n, log in sizes:
            mb = log.stat().st_size / 2**20
            for name in args.commands:
                for leftover in ("page.html",):
                    (work / leftover).unlink(missing_ok=True)
                if (work / "warehouse").exists():
                    subprocess.run(["rm", "-rf", str(work / "warehouse")], check=True)
                cpu, wall, rss, code = measure(
                    command(name, log, work), args.tree, args.timeout, args.max_gib
                )
                cpu_of[name].append((n, cpu))
                print(
                    f"{label:<12}{mb:>8.1f}  {name:<9}{cpu:>9.2f}{wall:>9.2f}"
                    f"{rss:>14.0f}{rss / mb:>8.1f}  {code}"
                )
                sys.stdout.flush()
    if len(args.runs) >= 2:
        for name, found in cpu_of.items():
            (n0, c0), (n1, c1) = found[len(args.runs) - 2], found[len(args.runs) - 1]
            print(
                f"ratio {name}: {n1} runs / {n0} runs: CPU x{c1 / c0:.2f} for x{n1 / n0:g} "
                f"the runs ({'linear' if c1 / c0 <= 1.25 * n1 / n0 else 'NOT linear'})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
