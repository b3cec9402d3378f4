"""``ingest --repair`` of a part made before parts kept a ``sources.json``.

Such a part (a real DuckDB/Parquet warehouse whose ``sources.json`` is removed, as an older
trtlog left it) is rebuilt from the files its ``builds`` rows record, each checked against its
recorded digest; when its ``builds`` file is the broken one, the repair refuses with one line
naming the part and what to do, and changes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from trtlog.cli import main
from trtlog.warehouse import driver, store

LOG = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
RUNS = FIXTURES / "logs" / "trt7.1-like_two-runs_perf-block.log"


@pytest.fixture
def old_part(tmp_path: Path) -> tuple[Path, Path, dict[str, int]]:
    """A one-part warehouse of two logs (one of two runs), without its ``sources.json``."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    for log in (LOG, RUNS):
        shutil.copy(log, inputs / log.name)
    root = tmp_path / "wh"
    driver.ingest([inputs], to=root, jobs=1)
    (part,) = (root / store.PARTS).iterdir()
    (part / store.SOURCES).unlink()
    return root, part, _counts(root)


def _counts(root: Path) -> dict[str, int]:
    con = store.open_warehouse(root)
    try:
        return {
            table: con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
            for table in ("builds", "layers", "tactics", "findings")
        }
    finally:
        con.close()


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_an_old_part_is_rebuilt_from_its_builds_rows(
    old_part: tuple[Path, Path, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, part, counts = old_part
    (cut,) = store.table_files(root)["layers"]
    os.truncate(cut, 1000)
    code, out, err = _run(["ingest", "--repair", "--to", str(root)], capsys)
    assert code == 0, err
    assert "1 broken part(s) rebuilt" in out and "2 new build(s)" in out
    assert store.broken_parts(root) == {}
    assert _counts(root) == counts  # the runs of the two-run log are one source: 3 rows
    assert counts["builds"] == 3
    (new,) = (root / store.PARTS).iterdir()
    assert new != part
    recorded = json.loads((new / store.SOURCES).read_text(encoding="utf-8"))
    assert sorted(os.path.basename(f[0]) for s in recorded for f in s["files"]) == sorted(
        [LOG.name, RUNS.name]
    )


def test_an_old_part_whose_file_changed_is_refused(
    old_part: tuple[Path, Path, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, part, _counts_before = old_part
    (cut,) = store.table_files(root)["findings"]
    os.truncate(cut, 1000)
    with open(root.parent / "in" / LOG.name, "a", encoding="utf-8") as f:
        f.write("[I] one more line\n")
    code, _out, err = _run(["ingest", "--repair", "--to", str(root)], capsys)
    (line,) = err.splitlines()
    assert code == 2 and LOG.name in line and "has changed since" in line and part.name in line
    assert list((root / store.PARTS).iterdir()) == [part]  # nothing changed


def test_an_old_part_with_a_broken_builds_file_says_what_to_do(
    old_part: tuple[Path, Path, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, part, _counts_before = old_part
    (cut,) = store.table_files(root)["builds"]
    os.truncate(cut, 1000)
    code, _out, err = _run(["ingest", "--repair", "--to", str(root)], capsys)
    (line,) = err.splitlines()
    assert code == 2 and line.startswith("trtlog: error: ")
    assert str(cut) in line and f"cannot rebuild part {part.name}" in line
    assert "no sources.json" in line and "its builds file is broken too" in line
    assert f"remove {part} and ingest its files again" in line
    assert list((root / store.PARTS).iterdir()) == [part]
