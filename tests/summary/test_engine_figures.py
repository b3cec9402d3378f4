"""summarize's engine figures without building the log's engine (issue 15: size and speed).

``summarize`` shows the engine's layer count and its profile's total and source. For a lazy
build it reads them from the last layer dump with detailed records (a walk from the end that
parses no earlier dump) and the log's profile table, instead of ``Build.engine``, which parses
every dump of the log. Checked here against ``Build.engine`` on every fixture and corpus log.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import trtlog
from tests.build.test_store import LOGS
from trtlog.summary.collect import _engine_figures


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_engine_figures_are_the_engines(path: Path) -> None:
    fast = trtlog.parse(path)
    layers, profile = _engine_figures(fast)
    engine = trtlog.parse(path).engine
    if engine is None:
        assert (layers, profile) == (None, None)
    else:
        assert layers == len(engine.layers)
        assert profile == engine.profile


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_summary_same_with_engine_built(path: Path) -> None:
    fast = trtlog.parse(path)
    summary = trtlog.summarize(fast)
    general = trtlog.parse(path)
    _ = general.engine  # built first: summarize reads it
    assert summary == trtlog.summarize(general)


def test_fast_path_builds_no_engine() -> None:
    """A log with detailed layer dumps: the figures come without ``Build.engine``."""
    dumped = [
        p for p in LOGS if (e := trtlog.parse(p).engine) is not None and e.origin == "log_inspector"
    ]
    assert dumped
    for path in dumped:
        build = trtlog.parse(path)
        layers, _profile = _engine_figures(build)
        assert "engine" not in build.__dict__
        assert layers == len(trtlog.parse(path).engine.layers)  # type: ignore[union-attr]
