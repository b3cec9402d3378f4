"""Shared test configuration: corpus location, golden-file updates, hypothesis profiles."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("MPLBACKEND", "Agg")  # plots render without a display

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CORPUS = Path(os.environ.get("TRTLOG_CORPUS", ROOT.parent / "shared" / "corpus"))

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files in fixtures/golden from the current output",
    )


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    """Close the test's pyplot figures (when pyplot was imported at all).

    Figures a test leaves open stay in pyplot's list for the rest of its process's run; past
    20, matplotlib warns (an error here) in whatever test opens the next one, so a test's
    outcome would depend on the tests that ran before it in the same process.
    """
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def corpus_files(*suffixes: str) -> list[Path]:
    """Files of the shared corpus with these suffixes (empty when the corpus is absent)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in suffixes)


def corpus_logs() -> list[Path]:
    """The logs of the shared corpus."""
    return corpus_files(".log", ".txt")


def corpus_json() -> list[Path]:
    return corpus_files(".json")


def layer_json_files() -> list[Path]:
    """The layer-info JSON files among the fixtures and the corpus (not profiles or timings)."""
    return list(_layer_json_files())


@functools.cache
def _layer_json_files() -> tuple[Path, ...]:
    """(Read once per process: several test modules ask at collection.)"""
    import warnings

    from trtlog.errors import InputError
    from trtlog.exports.read import detect_kind, read_json_file

    out = []
    for path in sorted((FIXTURES / "layer_info").glob("*.json")) + corpus_json():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, values = read_json_file(path)
        except InputError:
            continue
        if detect_kind(values[0]) == "layers":
            out.append(path)
    return tuple(out)


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present")
