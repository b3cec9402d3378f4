"""Ingest: tables and schemas, figures against the raw text, idempotence, errors, queries."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.cli import main
from trtlog.frames import SCHEMAS
from trtlog.warehouse import TABLES, WarehouseError, open
from trtlog.warehouse.driver import ingest
from trtlog.warehouse.schema import FRAME_TABLES
from trtlog.warehouse.store import MARKER, table_files

TINY = "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"


def _row(wh: Any, sql: str, *params: Any) -> dict[str, Any]:
    relation = wh.execute(sql, list(params))
    names = [d[0] for d in relation.description]
    found = relation.fetchall()
    assert len(found) == 1, found
    return dict(zip(names, found[0], strict=True))


def test_every_file_has_its_table_schema(warehouse: Path) -> None:
    files = table_files(warehouse)
    assert files["builds"] and files["tactics"] and files["layers"] and files["onnx_nodes"]
    for table, paths in files.items():
        for path in paths:
            assert pq.read_schema(path).remove_metadata() == TABLES[table], (table, path)


def test_frame_tables_have_the_frame_columns() -> None:
    for table, frame in FRAME_TABLES.items():
        assert TABLES[table].names == ["build_id", *SCHEMAS[frame]]


def test_every_table_is_a_view_even_when_empty(tmp_path: Path) -> None:
    ingest([], to=tmp_path / "empty")
    con = open(tmp_path / "empty")
    for table, schema in TABLES.items():
        relation = con.sql(f"SELECT * FROM {table}")
        assert relation.columns == schema.names
        assert relation.fetchall() == []


def test_a_build_matches_its_raw_text(wh: Any, inputs: Path) -> None:
    """The tinynet Q/DQ build: log, layer JSON and profile (grouped by name), figure by figure."""
    text = (inputs / TINY).read_text()
    row = _row(wh, "SELECT * FROM builds WHERE list_contains(paths, ?)", str(inputs / TINY))
    assert row["grouping"] == "naming"
    assert sorted(row["roles"]) == ["layers", "log", "profile"]
    assert row["lines"] == row["event_lines"] == text.count("\n") == 149  # wc -l
    assert row["fusions"] == len(re.findall(r"Fusing | fusing |Merging layers", text)) == 18
    assert row["engine_layers"] == text.count("\nName: ") == 13
    assert row["trt_version"] == "8.6.1" and row["trt_version_parts"] == [8, 6, 1]
    assert row["model"] == "tinynet-qdq" and row["model_path"] == "tinynet-qdq.onnx"
    assert row["precision"] == "FP32+FP16+INT8" and row["int8"] and row["fp16"]
    assert row["device"] == "NVIDIA A10" and row["status"] == "passed"
    assert row["unrecognized"] == trtlog.parse(inputs / TINY).counts().get("unrecognized", 0)
    profile = json.loads((inputs / "trt8.6.1_tinynet-qdq-int8.profile.json").read_text())
    counts = row["table_rows"]
    assert counts["profile"] == len(profile) - 1 == 13  # a {"count": n} header, then records
    build_id = row["build_id"]
    for table, n in counts.items():
        got = wh.execute(f"SELECT count(*) FROM {table} WHERE build_id = ?", [build_id]).fetchone()
        assert got[0] == n, table
    nodes = wh.execute(
        "SELECT count(*) FROM onnx_nodes WHERE build_id = ? AND op IS NOT NULL", [build_id]
    ).fetchone()
    assert nodes[0] == text.count("Parsing node: ") == 30
    findings = wh.execute(
        "SELECT severity, count(*) FROM findings WHERE build_id = ? GROUP BY ALL", [build_id]
    ).fetchall()
    assert dict(findings).get("warning", 0) == row["findings_warning"] > 0


def test_tactic_rows_are_the_logs_tactic_lines(wh: Any, inputs: Path) -> None:
    name = "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
    text = (inputs / name).read_text()
    row = _row(wh, "SELECT build_id FROM builds WHERE list_contains(paths, ?)", str(inputs / name))
    count = wh.execute("SELECT count(*) FROM tactics WHERE build_id = ?", [row["build_id"]])
    assert count.fetchone()[0] == len(re.findall(r"(?<!Fastest )Tactic: 0x\S+ Time:", text)) == 6


def test_each_run_of_a_log_is_a_build(wh: Any, inputs: Path) -> None:
    path = inputs / "trt7.1-like_two-runs_perf-block.log"
    rows = wh.execute(
        "SELECT build_id, source_id, run, runs, lines, event_lines FROM builds "
        "WHERE list_contains(paths, ?) ORDER BY run",
        [str(path)],
    ).fetchall()
    assert [(r[2], r[3]) for r in rows] == [(0, 2), (1, 2)]
    assert [r[0] for r in rows] == [f"{rows[0][1]}:0", f"{rows[0][1]}:1"]
    assert sum(r[4] for r in rows) == sum(r[5] for r in rows) == path.read_text().count("\n")


def test_json_exports_group_with_their_log_or_stand_alone(wh: Any) -> None:
    rows = wh.execute(
        "SELECT model, runs, grouping, list_sort(roles), engine_layers IS NOT NULL FROM builds "
        "WHERE model IN ('resnet18_synthetic', 'trt10.16-like_smallnet-fp16-autocast') "
        "OR list_contains(roles, 'layers') AND runs > 0 ORDER BY 1"
    ).fetchall()
    assert ("resnet18_synthetic", 0, "single", ["profile"], False) in rows
    assert ("trt10.16-like_smallnet-fp16-autocast", 0, "single", ["layers"], True) in rows
    assert ("smallnet", 1, "naming", ["layers", "log", "profile"], True) in rows


def test_nothing_is_lost(wh: Any) -> None:
    """Every log line is in an event, and every table holds the rows the builds row counts."""
    lost = wh.execute("SELECT count(*) FROM builds WHERE runs > 0 AND lines <> event_lines")
    assert lost.fetchone()[0] == 0
    for table in TABLES["builds"].field("table_rows").type:
        name = table.name
        mismatch = wh.execute(
            f"SELECT b.build_id FROM builds b LEFT JOIN (SELECT build_id, count(*) n FROM {name} "
            f"GROUP BY 1) t USING (build_id) WHERE b.table_rows.{name} <> coalesce(t.n, 0)"
        ).fetchall()
        assert mismatch == [], name


def test_ingest_is_idempotent(tmp_path: Path, inputs: Path) -> None:
    root = tmp_path / "wh"
    first = ingest([inputs / TINY], to=root)
    assert first.ingested == 1 and first.present == 0
    files = table_files(root)
    again = ingest([inputs / TINY], to=root)
    assert again.ingested == 0 and again.present == 1 and table_files(root) == files
    copy = tmp_path / "elsewhere" / "renamed.log"
    copy.parent.mkdir()
    shutil.copy(inputs / TINY, copy)
    assert ingest([copy], to=root).ingested == 0  # the same content under another name


def test_bad_files_become_errors_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "empty.log").write_text("")
    (folder / "engine.log").write_bytes(b"ftrt\x00\x01\x02" * 50)
    (folder / "notes.json").write_text('{"hello": 1}')
    shutil.copy(FIXTURES / "logs" / TINY, folder / "good.log")
    root = tmp_path / "wh"
    code = main(["ingest", str(folder), "--to", str(root)])
    captured = capsys.readouterr()
    assert code == 1
    assert "3 file(s) failed to ingest" in captured.err
    assert "1 new build(s)" in captured.out or "4 new build(s)" in captured.out
    con = open(root)
    found = con.execute("SELECT regexp_extract(path, '[^/]+$'), message FROM errors").fetchall()
    errors = dict(found)
    assert sorted(errors) == ["empty.log", "engine.log", "notes.json"]
    assert "empty" in errors["empty.log"]
    assert "engine" in errors["engine.log"].lower()
    assert "no trtexec export shape" in errors["notes.json"]
    assert con.execute("SELECT count(*) FROM builds").fetchone()[0] == 1
    # again: nothing new, the failures are known (exit 0: this ingest failed on nothing)
    assert main(["ingest", str(folder), "--to", str(root)]) == 0
    assert "3 of them recorded in errors before" in capsys.readouterr().out


def test_query_formats(warehouse: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sql = "SELECT model, count(*) AS n FROM builds WHERE model = 'tinynet-qdq' GROUP BY 1"
    assert main(["query", str(warehouse), sql]) == 0
    assert capsys.readouterr().out.splitlines()[2].split() == ["tinynet-qdq", "1"]
    assert main(["query", str(warehouse), sql, "--format", "csv"]) == 0
    assert capsys.readouterr().out == "model,n\ntinynet-qdq,1\n"
    assert main(["query", str(warehouse), sql, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"model": "tinynet-qdq", "n": 1}]
    out = tmp_path / "r.parquet"
    assert main(["query", str(warehouse), sql, "--format", "parquet", "-o", str(out)]) == 0
    assert pq.read_table(out).to_pylist() == [{"model": "tinynet-qdq", "n": 1}]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELEC 1", "Parser Error"),
        ("SELECT * FROM buildz", 'Did you mean "builds"'),
        ("SELECT nope FROM builds", "Binder Error"),
    ],
)
def test_bad_query_exits_2_with_duckdbs_message(
    warehouse: Path, capsys: pytest.CaptureFixture[str], sql: str, message: str
) -> None:
    assert main(["query", str(warehouse), sql]) == 2
    err = capsys.readouterr().err
    assert err.startswith("trtlog: error: query failed: ") and message in err
    assert err.count("\n") == 1


def test_not_a_warehouse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(tmp_path), "SELECT 1"]) == 2
    assert f"no {MARKER}" in capsys.readouterr().err
    with pytest.raises(WarehouseError):
        open(tmp_path / "missing")
    (tmp_path / "x.txt").write_text("mine")
    assert main(["ingest", str(FIXTURES / "logs" / TINY), "--to", str(tmp_path)]) == 2
    assert "other files in it" in capsys.readouterr().err


def test_ingest_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", "--to", str(tmp_path / "w")]) == 2
    assert main(["ingest", str(tmp_path / "nothing-*.log"), "--to", str(tmp_path / "w")]) == 2
    err = capsys.readouterr().err
    assert "matches no file" in err and "no input file found" in err


def test_a_json_file_named_like_nothing_is_read_by_the_loader_that_fits(tmp_path: Path) -> None:
    source = FIXTURES / "layer_info" / "trt8.6.1_tinynet-fp16.profile.json"
    shutil.copy(source, tmp_path / "export-17.json")
    ingest([tmp_path / "export-17.json"], to=tmp_path / "wh")
    row = open(tmp_path / "wh").execute("SELECT roles, table_rows.profile FROM builds").fetchall()
    records = len(json.loads(source.read_text())) - 1  # a {"count": n} header, then records
    assert row == [(["profile"], records)]
