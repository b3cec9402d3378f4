"""``Build.engine_outline``: the engine's layer count and profile without building it (issue 15).

``summarize`` (and so the report's overview) shows the engine's layer count and its profile's
total and source. For a lazy build ``engine_outline`` reads them from the last layer dump with
detailed records (a walk from the end that parses no earlier dump) and the log's profile
table, instead of ``Build.engine``, which parses every dump of the log. Checked here against
``Build.engine`` on every fixture and corpus log.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import trtlog
from tests.buildlog.test_store import LOGS, lazy_and_eager
from trtlog.parser.source import read_text


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_the_outline_is_the_engines(path: Path) -> None:
    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    outline = lazy.engine_outline()
    engine = eager.engine
    if engine is None:
        assert outline is None
    else:
        assert outline == (len(engine.layers), engine.profile)
    assert eager.engine_outline() == outline  # the eager build reads its engine


@functools.cache
def _with_engine(path: Path) -> trtlog.Build:
    """A parse of ``path`` whose ``Build.engine`` was built first (before any other question),
    made once per log: the two tests below only read it (its summary, its engine)."""
    general = trtlog.parse(path)
    _ = general.engine
    return general


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_the_summary_is_the_same_with_the_engine_built(path: Path) -> None:
    fast = trtlog.parse(path)
    summary = trtlog.summarize(fast)
    general = _with_engine(path)  # the engine built first: summarize reads it
    assert summary == trtlog.summarize(general)


@functools.cache
def _engine_layers(path: Path) -> int | None:
    """The layer count of ``Build.engine`` of a fresh parse of ``path`` when a detailed dump
    (``log_inspector``) made it, else None: the reference, built once per log (the test picks
    the dumped logs with it and compares with it)."""
    engine = _with_engine(path).engine
    return len(engine.layers) if engine is not None and engine.origin == "log_inspector" else None


def test_the_outline_of_a_detailed_dump_builds_no_engine() -> None:
    """A log with detailed layer dumps: the figures come without ``Build.engine``."""
    dumped = [p for p in LOGS if _engine_layers(p) is not None]
    assert dumped
    for path in dumped:
        build = trtlog.parse(path)
        outline = build.engine_outline()
        assert outline is not None
        layers, _profile = outline
        assert "engine" not in build.__dict__
        assert layers == _engine_layers(path)
