"""Shared test configuration: corpus location, golden-file updates, hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")  # plots render without a display

import sys

# pytest keeps each test module with its asserts rewritten as a .pyc beside it and reads it
# back on the next run, unless bytecode writing is off (PYTHONDONTWRITEBYTECODE, set on the
# CI machine): then every xdist worker rewrites all ~190 test modules on every run (6 s of
# CPU each). Test processes write pytest's own cache files as everywhere else; the variable
# still holds for the processes the tests start.
sys.dont_write_bytecode = False

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CORPUS = Path(os.environ.get("TRTLOG_CORPUS", ROOT.parent / "shared" / "corpus"))

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile trtlog once, as installing it does, before any test starts a process.

    Hundreds of tests run ``python -m trtlog``, bench scripts, notebooks or Dask workers in
    new processes. Where ``PYTHONDONTWRITEBYTECODE`` is set (or the tree is read-only) and no
    ``__pycache__`` exists yet, each of them would compile trtlog's source again (0.3 s of
    CPU each); an installed trtlog never does. Only the main process compiles (xdist workers
    start after it); files already compiled are skipped.
    """
    if not hasattr(config, "workerinput"):
        import compileall

        compileall.compile_dir(ROOT / "trtlog", quiet=2)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files in fixtures/golden from the current output",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def corpus_files(*suffixes: str) -> list[Path]:
    """Files of the shared corpus with these suffixes (empty when the corpus is absent)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in suffixes)


def corpus_logs() -> list[Path]:
    return corpus_files(".log", ".txt")


def corpus_json() -> list[Path]:
    return corpus_files(".json")


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """CI must never pass on nothing: a run that collected no test fails."""
    if session.testscollected == 0 and not session.config.getoption("collectonly"):
        session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
