"""Safe ingest: a kill -9 leaves nothing a query reads, a rerun resumes, two ingests at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from trtlog.warehouse import TABLES, open
from trtlog.warehouse.driver import ingest
from trtlog.warehouse.store import PARTS, STAGING

pytestmark = pytest.mark.slow

N_BUILDS = 12


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Distinct builds: fixture logs, each copy with its own last line."""
    folder = tmp_path_factory.mktemp("many")
    logs = [
        FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
        FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log",
        FIXTURES / "logs" / "trt10.16-like_three-rounds_build-verbose.log",
    ]
    for i in range(N_BUILDS):
        text = logs[i % len(logs)].read_text()
        (folder / f"build{i:02d}.log").write_text(text + f"[I] copy {i}\n")
    return folder


def _ingest_code(inputs: Path, root: Path) -> str:
    return (
        "from trtlog.warehouse.driver import ingest\n"
        f"ingest([{str(inputs)!r}], to={str(root)!r}, jobs=1, batch_bytes=1)\n"
    )


def _counts(root: Path) -> dict[str, int]:
    con = open(root)
    return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def _consistent(con: Any) -> None:
    """Every build's rows are all there (the counts its builds row keeps)."""
    for field in TABLES["builds"].field("table_rows").type:
        name = field.name
        bad = con.execute(
            f"SELECT b.build_id FROM builds b LEFT JOIN (SELECT build_id, count(*) n FROM {name} "
            f"GROUP BY 1) t USING (build_id) WHERE b.table_rows.{name} <> coalesce(t.n, 0)"
        ).fetchall()
        assert bad == [], name
    orphans = con.execute(
        "SELECT count(*) FROM tactics WHERE build_id NOT IN (SELECT build_id FROM builds)"
    ).fetchone()
    assert orphans[0] == 0
    twice = con.execute("SELECT source_id FROM builds GROUP BY ALL HAVING count(*) > 1")
    assert twice.fetchall() == []


@pytest.fixture(scope="module")
def reference(many: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    root = tmp_path_factory.mktemp("ref") / "wh"
    assert ingest([many], to=root, jobs=1).ingested == N_BUILDS
    return _counts(root)


def test_kill_9_leaves_whole_batches_and_a_rerun_resumes(
    many: Path, tmp_path: Path, reference: dict[str, int]
) -> None:
    root = tmp_path / "wh"
    proc = subprocess.Popen([sys.executable, "-c", _ingest_code(many, root)])
    deadline = time.monotonic() + 120
    try:
        while not (root / PARTS).is_dir() or not any((root / PARTS).iterdir()):
            assert proc.poll() is None, "the ingest ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.005)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    con = open(root)
    done = con.execute("SELECT count(*) FROM builds").fetchone()[0]
    assert 0 < done < N_BUILDS
    _consistent(con)  # no partial batch is visible
    staged = list((root / STAGING).iterdir())
    report = ingest([many], to=root, jobs=1)
    assert report.present == done and report.ingested == N_BUILDS - done
    assert sorted(report.cleaned) == sorted(p.name for p in staged)  # the dead ingest's part
    assert not any((root / STAGING).iterdir())
    _consistent(open(root))
    assert _counts(root) == reference


def test_two_ingests_at_once(many: Path, tmp_path: Path, reference: dict[str, int]) -> None:
    root = tmp_path / "wh"
    procs = [subprocess.Popen([sys.executable, "-c", _ingest_code(many, root)]) for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    _consistent(open(root))
    assert _counts(root) == reference
