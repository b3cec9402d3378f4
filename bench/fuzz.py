"""A long fuzz campaign over every public entry point of trtlog (issue 18).

Runs for ``--seconds`` and saves every failing input to ``--out`` (the input, and next to it a
``.txt`` with the traceback), then prints how many inputs were tried and how many failed, by
distinct cause (exception type and the trtlog line it came from).

Engines:

``atheris`` (default when the wheel is installed)
    coverage-guided (libFuzzer) over trtlog's instrumented code, seeded with windows of the
    fixture logs and the fixture exports. The first byte of an input picks the target: the
    log as a string (``parse_text``, ``iter_events``, exact ``to_text()``), the log as bytes
    (``parse``, any encoding), a JSON export (``load_engine``/``load_profile``/``load_times``)
    or the command line (``main(argv)``: every command with ``report`` and ``diff``, some
    plots, and for a quarter of the inputs ``ingest`` into a warehouse and ``query`` of it).
``random``
    structured mutations of real lines (``tests/fuzz/mutate.py``: bit flips, truncation,
    splicing, duplicated/shuffled lines, separators, surrogates, right-to-left marks, line
    endings, UTF-16 without BOM, huge numbers) and of JSON exports, from a seed printed at the
    start (``--seed`` reproduces a run).

For every parsed log the harness (``tests/fuzz/harness.py``) checks the contract: only
``InputError`` escapes; ``to_text()`` is exact; spans partition the lines; a ``Build``
survives its JSON round trip; frames keep their schemas; lint, the merge graph, the summary
and ``compare(b, b)`` run (the comparison finds no change).

Usage: python bench/fuzz.py --seconds 1800 [--out DIR] [--engine atheris|random] [--seed N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGETS = ("text", "text", "text", "bytes", "bytes", "json", "json", "cli")


def cause(exc: BaseException) -> str:
    """The kind of a failure: exception type and the innermost trtlog frame."""
    where = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        if "/trtlog/" in frame.filename:
            where = f"{Path(frame.filename).name}:{frame.lineno}"
    return f"{type(exc).__name__} at {where}"


class Campaign:
    """Runs inputs through the harness and keeps the failures."""

    def __init__(self, out: Path) -> None:
        from tests.fuzz import harness

        self.harness = harness
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        self.tried = 0
        self.failed = 0
        self.causes: Counter[str] = Counter()
        self.started = time.monotonic()

    def run_one(self, target: str, data: bytes) -> None:
        """One input through one target; a failure is saved, never raised."""
        import warnings

        self.tried += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if target == "text":
                    self.harness.check_log_text(data.decode("utf-8", "surrogateescape"))
                elif target == "bytes":
                    self.harness.check_log_bytes(data)
                elif target == "json":
                    self.harness.check_json(data)
                else:
                    pick = hashlib.sha1(data).digest()
                    suffix = ".json" if data.lstrip()[:1] in (b"{", b"[") else ".log"
                    self.harness.check_cli(
                        data, suffix=suffix, plots=pick[0] < 32, warehouse=pick[1] < 64
                    )
        except Exception as exc:
            self.failed += 1
            key = cause(exc)
            self.causes[key] += 1
            digest = hashlib.sha1(data).hexdigest()[:16]
            stem = self.out / f"{target}-{digest}"
            stem.with_suffix(".bin").write_bytes(data)
            stem.with_suffix(".txt").write_text(
                f"target: {target}\ncause: {key}\n\n" + "".join(traceback.format_exception(exc)),
                encoding="utf-8",
                errors="backslashreplace",
            )
            if self.causes[key] == 1:
                print(f"new failure: {key} ({stem.name})", flush=True)

    def stats(self) -> dict[str, Any]:
        return {
            "tried": self.tried,
            "failed": self.failed,
            "seconds": round(time.monotonic() - self.started, 1),
            "cpu_seconds": round(time.process_time(), 1),
            "causes": dict(self.causes.most_common()),
        }

    def write_stats(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.stats(), indent=1), encoding="utf-8")
        tmp.replace(path)


def run_random(seconds: float, out: Path, seed: int) -> dict[str, Any]:
    """Structured mutations of real lines and exports until ``seconds`` have passed."""
    from tests.fuzz import mutate

    rng = random.Random(seed)
    logs = mutate.seed_logs()
    exports = mutate.seed_json()
    campaign = Campaign(out)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        target = rng.choice(TARGETS)
        if target == "json":
            data = mutate.mutate_json(rng, rng.choice(exports))
        else:
            text = mutate.mutate_text(rng, mutate.window(rng, rng.choice(logs)), logs)
            data = (
                mutate.encode(rng, text)
                if target == "bytes"
                else text.encode("utf-8", "surrogatepass")
            )
        campaign.run_one(target, data)
        if campaign.tried % 200 == 0:
            campaign.write_stats(out / "stats.json")
    campaign.write_stats(out / "stats.json")
    return campaign.stats()


def _atheris_seeds(folder: Path, seed: int) -> None:
    from tests.fuzz import mutate

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    logs = mutate.seed_logs()
    for i in range(200):
        text = mutate.window(rng, rng.choice(logs), most=40).encode("utf-8")
        (folder / f"log-{i}").write_bytes(bytes([TARGETS.index("text") + 8 * (i % 3)]) + text)
    for i, raw in enumerate(mutate.seed_json()):
        (folder / f"json-{i}").write_bytes(bytes([TARGETS.index("json")]) + raw)
    for i in range(5):
        text = mutate.window(rng, rng.choice(logs), most=30).encode("utf-8")
        (folder / f"cli-{i}").write_bytes(bytes([TARGETS.index("cli")]) + text)


def atheris_child(seconds: float, out: Path, corpus: Path) -> None:
    """The libFuzzer process (run by ``run_atheris``): exits when the time is up."""
    import atheris  # type: ignore[import-untyped]

    with atheris.instrument_imports(include=["trtlog"]):
        import pkgutil

        import trtlog

        for info in pkgutil.walk_packages(trtlog.__path__, "trtlog."):
            if ".warehouse" in info.name or info.name.endswith("__main__"):
                continue
            __import__(info.name)
    campaign = Campaign(out)
    stats = out / "stats.json"

    def one(data: bytes) -> None:
        if not data:
            return
        campaign.run_one(TARGETS[data[0] % len(TARGETS)], data[1:])
        if campaign.tried % 100 == 0:
            campaign.write_stats(stats)

    atheris.Setup(
        [
            sys.argv[0],
            f"-max_total_time={int(seconds)}",
            "-max_len=16384",
            "-timeout=60",
            "-rss_limit_mb=3072",
            f"-artifact_prefix={out}/libfuzzer-",
            "-print_final_stats=1",
            str(corpus),
        ],
        one,
    )
    try:
        atheris.Fuzz()
    finally:
        campaign.write_stats(stats)


def run_atheris(seconds: float, out: Path, seed: int) -> dict[str, Any]:
    """Run the libFuzzer child for ``seconds`` and read its statistics back."""
    corpus = out / "corpus"
    _atheris_seeds(corpus, seed)
    child = subprocess.run(
        [sys.executable, __file__, "--child", "--seconds", str(seconds), "--out", str(out)],
        check=False,
        capture_output=True,
        text=True,
        errors="replace",
    )
    (out / "libfuzzer.log").write_text(child.stderr, encoding="utf-8")
    for line in child.stdout.splitlines():
        print(line)
    stats_path = out / "stats.json"
    stats: dict[str, Any] = (
        json.loads(stats_path.read_text(encoding="utf-8")) if stats_path.exists() else {}
    )
    hangs = sorted(p.name for p in out.glob("libfuzzer-*"))
    stats["libfuzzer_artifacts"] = hangs
    stats["exit_code"] = child.returncode
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--out", type=Path, default=Path(tempfile.gettempdir()) / "trtlog-fuzz", help="failures"
    )
    parser.add_argument("--seed", type=int, default=None)
    try:
        import importlib.util

        if importlib.util.find_spec("atheris") is None:
            raise ImportError("atheris")

        default = "atheris"
    except ImportError:
        default = "random"
    parser.add_argument("--engine", choices=("atheris", "random"), default=default)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        atheris_child(args.seconds, args.out, args.out / "corpus")
        return 0
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    print(f"engine: {args.engine}, seed: {seed}, {args.seconds:.0f} s, failures in {args.out}")
    run = run_atheris if args.engine == "atheris" else run_random
    stats = run(args.seconds, args.out, seed)
    print(f"inputs tried: {stats.get('tried', 0)}")
    print(f"CPU seconds: {stats.get('cpu_seconds', 0)}")
    print(f"failures: {stats.get('failed', 0)} ({len(stats.get('causes', {}))} distinct causes)")
    for key, n in stats.get("causes", {}).items():
        print(f"  {n:6d}  {key}")
    if stats.get("libfuzzer_artifacts"):
        print(f"libFuzzer artifacts (hangs, memory): {stats['libfuzzer_artifacts']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
