"""The benchmark scripts run end to end on small inputs (a smoke test: no time is asserted).

The figures they print are quoted in the documentation; a script that no longer runs would
leave those figures unreproducible.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, needs_corpus

pytestmark = pytest.mark.slow  # each test starts a process

BENCH = Path(__file__).resolve().parents[1] / "bench"

SMALL = {
    "engine_load.py": (["--layers", "400", "--repeat", "2"], ["ratio:", "floor:"]),
    "parse_throughput.py": (
        ["--real-mb", "0.2", "--mix-mb", "0.5", "--mb", "0.3", "--repeat", "1", "--no-rss"],
        ["real logs", "real mix", "parse + every event / eager parse:"],
    ),
    "graph.py": (["--events", "2000", "--repeat", "1"], ["ratio (b)/(a)"]),
    "lint.py": (["--mb", "0.3", "--layers", "400", "--repeat", "1"], ["ratio (b)/(a)"]),
    "compare.py": (["--layers", "200", "--repeat", "1"], ["every edit recovered: True"]),
    "align_pairs.py": (["--pairs", "1"], ["| A | B | layers A/B | pairs |"]),
    "ingest.py": (
        [
            "--logs",
            "6",
            "--max-mb",
            "0.3",
            "--huge-mb",
            "0.5",
            "--stream-mb",
            "0.25",
            "--workers",
            "1",
        ],
        ["speed-up over serial", "re-ingest", "GROUP BY", "streamed: True", "peak RSS"],
    ),
    "startup.py": (["--repeat", "1"], ["ratio", "CPU s", "target summary:"]),
    # the labelled set (corpus cases skip without the corpus)
    "diagnosis.py": ([], ["hit rate", "false findings 0", "outcomes right"]),
    "fuzz.py": (["--engine", "random", "--seconds", "1", "--seed", "1"], ["inputs tried:"]),
    "linear_time.py": (
        ["--small", "1000", "--large", "10000", "--rounds", "1"],
        ["grammar terminals:", "module patterns:", "hostile lines:", "hostile names:", "flagged:"],
    ),
    # one real log (repeated to half a megabyte) next to the generated one, one round each
    # and one fresh `trtlog report`
    "report.py": (
        [
            "--mb",
            "0.3",
            "--layers",
            "400",
            "--corpus",
            "1",
            "--min-mb",
            "0.5",
            "--repeat",
            "1",
            "--no-browser",
            "--fresh",
            "1",
        ],
        ["ratio (b)/(a):", "(target <= 2.0)", "in a fresh process"],
    ),
    "merge_graph.py": (
        ["--mb", "0.3", "--layers", "400", "--repeat", "1", "--breakdown", "--cold"],
        ["step 'merge graph' (wall):", "page data:", "engine layers:", "first round"],
    ),
    "scale.py": (
        ["--runs", "4", "8", "--commands", "summary", "lint"],
        ["peak RSS MiB", "ratio summary: 8 runs / 4 runs", "ratio lint:"],
    ),
    # (needs the corpus: its real profile records and logs)
    "big_exports.py": (
        ["--entries", "2000", "--log-mb", "0.5"],
        ["load_profile:", "trtlog layers --profile:", "report:", "page"],
    ),
    "report_steps.py": (
        ["--mb", "0.3", "--layers", "400", "--repeat", "1", "--skip", "merge graph"],
        ["parse of the log", "writing the page", "steps / parse per round:"],
    ),
}


def test_every_bench_script_is_smoke_tested() -> None:
    assert sorted(SMALL) == sorted(p.name for p in BENCH.glob("*.py"))


@pytest.mark.parametrize("script", sorted(SMALL))
def test_bench_script_runs(script: str) -> None:
    args, expected = SMALL[script]
    if script in ("big_exports.py", "align_pairs.py") and not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present (the script measures corpus files only)")
    result = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    for text in expected:
        assert text in result.stdout, result.stdout


@needs_corpus
def test_engine_load_runs_on_the_real_corpus() -> None:
    """The real-corpus mode: the fresh-process comparison and the engine tasks of two files."""
    args = ["--corpus", str(CORPUS), "--repeat", "1", "--best-of", "1"]
    args += ["--files", "resnet50-int8", "mnist-cnn-fp32_layers-detailed"]
    result = subprocess.run(
        [sys.executable, str(BENCH / "engine_load.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    for text in ("fresh process", "ratios: wall", "load+layers_frame", "load+lint"):
        assert text in result.stdout, result.stdout
