"""A damaged warehouse, two ingests at once, and SQL from someone else.

A truncated Parquet file (a real cut, with ``truncate``): queries that do not read its table
answer, with a warning naming it; a query, a trend and an ingest never end in a traceback;
``trtlog ingest --repair`` rebuilds its part from the files its ``sources.json`` names. The
locked query mode refuses every way out of the warehouse DuckDB has.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from trtlog.cli import main
from trtlog.warehouse import driver, store
from trtlog.warehouse.schema import TABLES

LOG = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
OTHER = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _errors(err: str) -> list[str]:
    assert "Traceback" not in err, err
    return [line for line in err.splitlines() if line.startswith("trtlog: error:")]


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[Path, Path, int]:
    """A warehouse of two logs whose ``layers`` file is cut to 1,000 bytes; its row count."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    for log in (LOG, OTHER):
        shutil.copy(log, inputs / log.name)
    root = tmp_path / "wh"
    driver.ingest([inputs], to=root, jobs=1)
    con = store.open_warehouse(root)
    rows = con.execute("SELECT count(*) FROM layers").fetchall()[0][0]
    con.close()
    (cut,) = store.table_files(root)["layers"]
    os.truncate(cut, 1000)
    return root, Path(cut), rows


def test_a_broken_file_is_named_and_other_tables_answer(
    damaged: tuple[Path, Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    root, cut, _rows = damaged
    code, out, err = _run(["query", str(root), "SELECT count(*) AS n FROM builds"], capsys)
    assert code == 0 and "2" in out
    assert f"trtlog: warning: the warehouse table layers has a broken Parquet file: {cut}" in err
    code, _out, err = _run(["query", str(root), "SELECT count(*) FROM layers"], capsys)
    (line,) = _errors(err)
    assert code == 2 and str(cut) in line and "ingest --repair" in line


def test_trend_and_ingest_over_a_broken_file(
    damaged: tuple[Path, Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    root, cut, _rows = damaged
    code, _out, err = _run(["trend", str(root), "--model", "tinynet"], capsys)
    assert code in (0, 2) and "Traceback" not in err
    parts = sorted(os.listdir(root / "parts"))
    code, out, err = _run(["ingest", str(LOG), str(OTHER), "--to", str(root)], capsys)
    assert code == 0 and "0 new build(s)" in out and "2 already present" in out
    assert str(cut) in err and "--repair" in err
    assert sorted(os.listdir(root / "parts")) == parts  # no build stored twice


def test_repair_rebuilds_the_part(
    damaged: tuple[Path, Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _cut, rows = damaged
    code, out, err = _run(["ingest", "--repair", "--to", str(root)], capsys)
    assert code == 0, err
    assert "1 broken part(s) rebuilt" in out and "2 new build(s)" in out
    assert store.broken_parts(root) == {}
    con = store.open_warehouse(root)
    assert con.execute("SELECT count(*) FROM layers").fetchall()[0][0] == rows
    assert con.execute("SELECT count(DISTINCT source_id) FROM builds").fetchall()[0][0] == 2
    con.close()
    assert not list((root / store.REPAIR).iterdir())
    code, out, _err = _run(["ingest", "--repair", "--to", str(root)], capsys)
    assert code == 0 and "no broken part" in out


def test_repair_needs_its_sources(
    damaged: tuple[Path, Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    root, cut, _rows = damaged
    (root.parent / "in" / OTHER.name).unlink()
    parts = sorted(os.listdir(root / "parts"))
    code, _out, err = _run(["ingest", "--repair", "--to", str(root)], capsys)
    (line,) = _errors(err)
    assert code == 2 and str(cut) in line and OTHER.name in line and "is gone" in line
    assert sorted(os.listdir(root / "parts")) == parts  # nothing changed


def test_a_killed_repair_is_undone(damaged: tuple[Path, Path, int]) -> None:
    """A part set aside by a repair that died is put back (and found broken again)."""
    root, _cut, _rows = damaged
    (part,) = os.listdir(root / "parts")
    store.set_aside(root, part)
    assert store.restore_all(root) == [part]
    assert list(store.broken_parts(root)) == [part]


def test_the_loser_of_two_ingests_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ingest whose builds another ingest committed first says so (not "0 new")."""
    root = tmp_path / "wh"
    real_run = driver._run

    def run_after_the_other(jobs: Any, client: Any) -> Any:
        results = list(real_run(jobs, client))  # read, not yet committed
        with monkeypatch.context() as inner:
            inner.setattr(driver, "_run", real_run)
            driver.ingest([LOG, OTHER], to=root, jobs=1)  # the other ingest wins
        yield from results

    monkeypatch.setattr(driver, "_run", run_after_the_other)
    code, out, _err = _run(["ingest", str(LOG), str(OTHER), "--to", str(root)], capsys)
    assert code == 0
    assert "0 new build(s)" in out
    assert "2 build(s) read but committed first by another ingest" in out
    con = store.open_warehouse(root)
    assert con.execute("SELECT count(*) FROM builds").fetchall()[0][0] == 2
    con.close()


# -- the locked query mode -------------------------------------------------------------------


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("locked") / "wh"
    driver.ingest([LOG], to=root, jobs=1)
    return root


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('{secret}')",
        "SELECT * FROM read_text('{secret}')",
        "SELECT * FROM read_parquet('{part}')",
        "COPY (SELECT 1) TO '{out}'",
        "COPY layers TO '{out}'",
        "ATTACH '{out}.db' AS other",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
        "RESET lock_configuration",
        "SELECT * FROM test_the_loser_of_two_ingests_says_so",
    ],
)
def test_locked_refuses_every_way_out(
    sql: str, small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("a,b\n1,2\n")
    part = store.table_files(small)["layers"][0]
    sql = sql.format(secret=secret, part=part, out=tmp_path / "out.csv")
    code, out, err = _run(["query", str(small), sql, "--locked"], capsys)
    (line,) = _errors(err)
    assert code == 2 and "query failed" in line
    assert "1,2" not in out
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "out.csv.db").exists()


def _table(relation: Any) -> Any:
    """A relation's rows as a pyarrow table (DuckDB 2 hands a record batch reader, 1.x a table)."""
    out = relation.arrow()
    return out.read_all() if hasattr(out, "read_all") else out


def test_locked_reads_every_table(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    con = store.open_warehouse(small)
    expected = {t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in TABLES}
    layers = _table(con.sql("SELECT * FROM layers ORDER BY build_id, 1"))
    con.close()
    locked = store.open_warehouse(small, locked=True)
    assert {
        t: locked.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in expected
    } == expected
    assert _table(locked.sql("SELECT * FROM layers ORDER BY build_id, 1")).equals(layers)
    locked.close()
    code, out, _err = _run(
        ["query", str(small), "SELECT count(*) AS n FROM layers", "--locked"], capsys
    )
    assert code == 0 and str(expected["layers"]) in out
