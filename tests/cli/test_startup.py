"""``trtlog --help`` and ``trtlog COMMAND --help`` answer at once.

Each runs in a fresh interpreter through the entry point (``python -m trtlog``), which then
reports what it imported: none of pydantic (and so none of the event models), pandas, numpy,
networkx, matplotlib, Lark, DuckDB, pyarrow or Jinja2. The times are ``bench/startup.py``'s.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import FIXTURES
from trtlog.cli.registry import COMMANDS

HEAVY = (
    "pydantic",
    "trtlog.events",
    "pandas",
    "numpy",
    "networkx",
    "matplotlib",
    "lark",
    "duckdb",
    "pyarrow",
    "jinja2",
)

RUNNER = (
    "import runpy, sys\n"
    "sys.argv = ['trtlog', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('trtlog', run_name='__main__', alter_sys=True)\n"
    "except SystemExit:\n"
    "    pass\n"
    f"heavy = {HEAVY!r}\n"
    "loaded = [m for m in heavy if m in sys.modules]\n"
    "sys.stderr.write('LOADED=' + repr(loaded))\n"
)


@pytest.mark.parametrize("argv", [["--help"]] + [[name, "--help"] for name, _ in COMMANDS])
def test_help_imports_nothing_heavy(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *argv], capture_output=True, text=True, check=False
    )
    assert "usage: trtlog" in done.stdout
    assert done.stderr.endswith("LOADED=[]"), done.stderr[-500:]


def test_import_trtlog_defers_everything() -> None:
    code = (
        "import sys, trtlog\n"
        "print(sorted(m for m in " + repr(HEAVY) + " if m in sys.modules))\n"
        "print(sorted(m for m in sys.modules if m.startswith('trtlog')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    heavy, ours = done.stdout.splitlines()
    assert heavy == "[]"
    assert ours == "['trtlog', 'trtlog._version']"


def test_summary_of_a_log_loads_no_frames() -> None:
    """``trtlog summary`` counts its tactic figures from the rows, not from a pandas frame."""
    log = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, "summary", str(log)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "tactics" in done.stdout  # the tactic figures are shown
    loaded = done.stderr.rsplit("LOADED=", 1)[1]
    for heavy in ("pandas", "numpy", "networkx", "matplotlib", "duckdb", "pyarrow", "jinja2"):
        assert repr(heavy) not in loaded, loaded


def test_main_restores_the_collectors_thresholds(capsys: pytest.CaptureFixture[str]) -> None:
    """A command runs with fewer cyclic collections, and leaves the caller's settings alone."""
    import gc

    from trtlog.cli.main import main

    before = gc.get_threshold()
    log = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
    assert main(["summary", str(log)]) == 0
    assert "tactics" in capsys.readouterr().out
    assert gc.get_threshold() == before
    assert main(["summary", str(FIXTURES / "no such file.log")]) == 2
    assert gc.get_threshold() == before
