"""A log streamed in windows of events gives the tables of a whole parse."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import CORPUS
from trtlog.warehouse import TABLES, open
from trtlog.warehouse import stream as streaming
from trtlog.warehouse.driver import ingest
from trtlog.warehouse.schema import VOLATILE

# a failed build's finding quotes its last line, which a streamed build does not keep
_QUOTES_A_LINE = "rule = 'build-failed'"


def _table(root: Path, table: str, skip: set[str]) -> pd.DataFrame:
    columns = [c for c in TABLES[table].names if c not in VOLATILE | skip]
    where = f" WHERE NOT ({_QUOTES_A_LINE})" if table == "findings" else ""
    with open(root) as con:  # (before DuckDB 2, a relation dies with its connection)
        frame = con.sql(f"SELECT {', '.join(columns)} FROM {table}{where}").df()
    text: pd.DataFrame = frame.astype(str)
    return text.sort_values(list(text.columns)).reset_index(drop=True)


def assert_same_tables(a: Path, b: Path, skip: set[str] | None = None) -> None:
    """Two warehouses hold the same rows (ingest timings aside), table by table."""
    for table in TABLES:
        pd.testing.assert_frame_equal(
            _table(a, table, skip or set()), _table(b, table, skip or set()), obj=table
        )


def test_streamed_logs_give_the_same_tables(
    inputs: Path, warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streaming, "WINDOW_EVENTS", 3)  # many windows, even in small logs
    root = tmp_path / "wh"
    ingest([inputs], to=root, jobs=1, stream_bytes=0)
    con = open(root)
    streamed = con.execute("SELECT count(*) FROM builds WHERE streamed").fetchone()[0]
    logs = con.execute("SELECT count(*) FROM builds WHERE list_contains(roles, 'log')").fetchone()
    assert streamed == logs[0] >= 20  # every log was streamed
    assert_same_tables(warehouse, root, skip={"streamed", "notes"})


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present")
def test_a_corpus_log_with_thousands_of_tactics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = CORPUS / "trt8.2.3_centerpoint-rpn-centerhead-fp16_build-verbose.log"
    ingest([log], to=tmp_path / "whole", jobs=1)
    monkeypatch.setattr(streaming, "WINDOW_EVENTS", 500)
    ingest([log], to=tmp_path / "streamed", jobs=1, stream_bytes=0)
    tactics = open(tmp_path / "streamed").execute("SELECT count(*) FROM tactics").fetchone()[0]
    assert tactics > 5000
    assert_same_tables(tmp_path / "whole", tmp_path / "streamed", skip={"streamed", "notes"})
