"""Memory of big exports and the size of a big log's report page.

Two measures, each in a fresh process (its peak resident memory is ``ru_maxrss``):

``profile``
    An ``--exportProfile`` file of ``--entries`` records (default 10,000,000: about 1.3 GB),
    made by repeating the records of the corpus's real profile files (their names, times and
    keys as trtexec wrote them), read by ``trtlog.load_profile`` and by ``trtlog layers
    --profile``. A file over the JSON size limit (``trtlog.exports.jsonio.MAX_JSON_BYTES``)
    is refused before it is read; ``--entries 1000000`` measures one under the limit.
``log``
    A log of ``--log-mb`` megabytes made of the corpus's verbose build logs appended one
    after the other (each a whole trtexec run, as a CI sweep writes them), turned into a report
    page: the page's size, the share of the log it holds, time and peak memory.

Usage: python bench/big_exports.py [profile|log|all] [--entries N] [--log-mb MB] [--keep DIR]
Numbers go in docs/benchmarks.md; note ``uptime``'s load with them (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import CORPUS  # noqa: E402

#: The verbose build logs appended into the big log (real runs with their layer dumps).
LOG_SOURCES = (
    "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
    "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
    "trt8.5.10_bevformer-positional-encoding_build-verbose.log",
)

_RECORD = re.compile(rb"\{[^{}]*\"name\"[^{}]*\}")


def profile_records() -> list[bytes]:
    """The records of every profile JSON of the corpus, as trtexec wrote them (bytes)."""
    records: list[bytes] = []
    for path in sorted(CORPUS.glob("*_profile.json")):
        records += _RECORD.findall(path.read_bytes())
    if not records:
        raise SystemExit(f"no profile records under {CORPUS}")
    return records


def write_profile(path: Path, entries: int) -> int:
    """A profile file of ``entries`` records (the real ones, over and over); its size."""
    records = profile_records()
    with open(path, "wb") as out:
        out.write(b'[\n  { "count" : 1000 }\n')
        for i in range(entries):
            out.write(b", ")
            out.write(records[i % len(records)])
            out.write(b"\n")
        out.write(b"]\n")
    return path.stat().st_size


def measure(code: str, *args: str) -> tuple[float, int, str]:
    """Run ``code`` in a new Python; its wall seconds, peak RSS (bytes) and last output line."""
    wrapped = (
        "import resource, sys\n"
        "try:\n" + "".join(f"    {line}\n" for line in code.splitlines()) + "finally:\n"
        "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "    print('PEAK', peak)\n"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", wrapped, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    seconds = time.perf_counter() - start
    peaks = [int(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("PEAK")]
    said = [
        line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("PEAK")
    ]
    return seconds, peaks[0] if peaks else -1, said[-1] if said else f"exit {done.returncode}"


def bench_profile(folder: Path, entries: int) -> None:
    path = folder / f"profile-{entries}.json"
    size = write_profile(path, entries)
    print(f"profile: {entries:,} entries, {size / 1e9:.2f} GB ({path})")
    load = (
        "import trtlog\n"
        "from trtlog.errors import InputError\n"
        "try:\n"
        "    p = trtlog.load_profile(sys.argv[1])\n"
        "    print(f'loaded {len(p.records):,} records')\n"
        "except InputError as exc:\n"
        "    print('refused:', exc.one_line())\n"
    )
    seconds, peak, said = measure(load, str(path))
    print(f"  load_profile: {seconds:.1f} s, peak RSS {peak / 2**20:,.0f} MiB: {said}")
    layers = next(iter(sorted(CORPUS.glob("trt10.4_resnet18*_layers-detailed.json"))), None)
    if layers is not None:
        cli = (
            "from trtlog.cli.main import main\n"
            "code = main(['layers', sys.argv[2], '--profile', sys.argv[1], '-q'])\n"
            "print('exit', code)\n"
        )
        seconds, peak, said = measure(cli, str(path), str(layers))
        print(
            f"  trtlog layers --profile: {seconds:.1f} s, peak RSS {peak / 2**20:,.0f} MiB: {said}"
        )


def write_log(path: Path, megabytes: float) -> tuple[int, int]:
    """A log of appended real runs of about ``megabytes`` MB; its size and number of runs."""
    sources = [(CORPUS / name).read_bytes() for name in LOG_SOURCES if (CORPUS / name).exists()]
    if not sources:
        raise SystemExit(f"none of {LOG_SOURCES} under {CORPUS}")
    runs = 0
    with open(path, "wb") as out:
        while out.tell() < megabytes * 1e6:
            out.write(sources[runs % len(sources)])
            runs += 1
    return path.stat().st_size, runs


def bench_log(folder: Path, megabytes: float) -> None:
    log = folder / f"runs-{megabytes:g}mb.log"
    size, runs = write_log(log, megabytes)
    page = folder / "runs.report.html"
    print(f"log: {size / 1e6:,.0f} MB, {runs:,} appended real runs ({log})")
    cli = "from trtlog.cli.main import main\nprint('exit', main(['report', sys.argv[1], '-o', sys.argv[2], '-q']))\n"
    seconds, peak, said = measure(cli, str(log), str(page))
    if not page.exists():
        print(f"  report: {said}")
        return
    from trtlog.html.page import decode_embedded

    text = page.read_text(encoding="utf-8")
    meta = decode_embedded(text, "trtlog-data")["log"]
    cut = meta.get("cut")
    held = f"{cut['lines']:,} of {meta['lines']:,} lines" if cut else f"all {meta['lines']:,} lines"
    print(
        f"  report: {seconds:.1f} s, peak RSS {peak / 2**20:,.0f} MiB, page "
        f"{page.stat().st_size / 1e6:.1f} MB holding {held} "
        f"({len(meta['excerpt'][0]):,} cited lines): {said}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("what", nargs="?", choices=("profile", "log", "all"), default="all")
    ap.add_argument("--entries", type=int, default=10_000_000, help="profile records")
    ap.add_argument("--log-mb", type=float, default=1000.0, help="the big log's size (MB)")
    ap.add_argument("--keep", metavar="DIR", help="write the inputs here (default: a temp dir)")
    args = ap.parse_args()
    print(f"load: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="trtlog-big-") as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if args.what in ("profile", "all"):
            bench_profile(folder, args.entries)
        if args.what in ("log", "all"):
            bench_log(folder, args.log_mb)


if __name__ == "__main__":
    main()
