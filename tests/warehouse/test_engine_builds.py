"""A run with several engine builds is one ``builds`` row per build, serial or streamed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import CORPUS, FIXTURES, needs_corpus
from tests.warehouse.test_stream import assert_same_tables
from trtlog.warehouse import open
from trtlog.warehouse import stream as streaming
from trtlog.warehouse.driver import ingest

THREE = (
    CORPUS / "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-"
    "3builds-profilingverbosity.log"
)
TWO = FIXTURES / "logs" / "trt10-like_python-two-builds_build-verbose.log"


def _rows(root: Path) -> list[tuple[str, int | None, int, float]]:
    with open(root) as con:
        found = con.execute(
            "SELECT build_id, engine_build, engine_builds, engine_generation_seconds "
            "FROM builds ORDER BY engine_build"
        ).fetchall()
    return [(str(a), b, int(c), float(d)) for a, b, c, d in found]


@pytest.mark.parametrize(
    "log", [TWO, pytest.param(THREE, marks=needs_corpus)], ids=["fixture", "corpus"]
)
def test_one_row_per_engine_build(
    log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = log.read_text(encoding="utf-8", errors="replace")
    # the engine generation times of each build, from the raw text: a build starts at its
    # parse block, so the times between two ``Input filename:`` lines are one build's
    blocks = re.split(r"\] Input filename:", text)[1:]
    expected = [
        sum(float(t) for t in re.findall(r"Engine generation completed in ([\d.]+) seconds", b))
        for b in blocks
    ]
    ingest([log], to=tmp_path / "whole", jobs=1)
    rows = _rows(tmp_path / "whole")
    assert [r[1] for r in rows] == list(range(len(expected)))
    assert all(r[2] == len(expected) for r in rows)
    assert all(r[0].endswith(f":b{r[1]}") for r in rows)
    assert [r[3] for r in rows] == pytest.approx(expected)
    monkeypatch.setattr(streaming, "WINDOW_EVENTS", 50)
    ingest([log], to=tmp_path / "streamed", jobs=1, stream_bytes=0)
    assert_same_tables(tmp_path / "whole", tmp_path / "streamed", skip={"streamed", "notes"})


def test_each_builds_row_has_its_own_build_s_outcome(tmp_path: Path) -> None:
    # a program whose second build the shell killed: the first build's row says built (its
    # engine line), the second's killed (the raw text's last line), from the one decision
    log = FIXTURES / "logs" / "trt10-like_python-two-builds_second-killed.log"
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[-1] == "Killed"
    ingest([log], to=tmp_path / "w", jobs=1)
    with open(tmp_path / "w") as con:
        found = con.execute("SELECT engine_build, outcome FROM builds ORDER BY 1").fetchall()
    assert found == [(0, "built"), (1, "killed")]
