"""Every SQL example of README.md and docs/*.md runs on a warehouse of the bundled fixtures.

The examples are read from the documents themselves: ```sql blocks (statement by
statement), ``trtlog query WAREHOUSE "SQL"`` lines, ``wh.sql("...")`` calls and inline
``SELECT ...`` code spans. A query the installed DuckDB refuses (a deprecated ``->`` lambda,
an ``ORDER BY`` a ``GROUP BY`` cannot take) fails here, named by file and line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from trtlog.cli import main

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_SQL_BLOCK = re.compile(r"^```sql\n(.*?)^```", re.M | re.S)
_CLI = re.compile(r"trtlog query \S+ (?:--\S+ \S+ )*\"([^\"]+)\"")
_CALL = re.compile(r"\bwh\.(?:sql|execute)\(\s*\"\"?\"?(.+?)\"\"?\"?\s*[,)]", re.S)
_INLINE = re.compile(r"`(SELECT [^`]+)`")
_STATEMENT = re.compile(r"\s*(SELECT|WITH|SHOW|DESCRIBE|SUMMARIZE)\b", re.I)
#: ``$name`` parameters of the examples: a build id each (two builds of tinynet).
_PARAM = re.compile(r"\$(\w+)")


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def examples() -> list[tuple[str, str, str]]:
    """``(where, how, sql)`` of every example: ``how`` is ``cli`` or ``python``."""
    found: list[tuple[str, str, str]] = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        for block in _SQL_BLOCK.finditer(text):
            body = re.sub(r"--[^\n]*", "", block.group(1))
            start = block.start(1)
            for part in body.split(";"):
                if part.strip():
                    found.append((f"{name}:{_line(text, start)}", "python", part.strip()))
        for how, pattern in (("cli", _CLI), ("python", _CALL), ("python", _INLINE)):
            for m in pattern.finditer(text):
                sql = m.group(1).strip()
                # a placeholder: `trtlog query wh/ "SELECT ..."`, `trtlog query WAREHOUSE "SQL"`
                if "..." in sql or not _STATEMENT.match(sql):
                    continue
                found.append((f"{name}:{_line(text, m.start())}", how, sql))
    return found


EXAMPLES = examples()


def test_the_documents_hold_examples() -> None:
    # the readers above find what the documents show (a changed format would find none)
    places = {where.split(":")[0] for where, _, _ in EXAMPLES}
    assert {"README.md", "docs/warehouse.md"} <= places
    assert sum(1 for _, how, _ in EXAMPLES if how == "cli") >= 2
    assert len(EXAMPLES) >= 10


@pytest.fixture(scope="module")
def params(warehouse: Path) -> dict[str, str]:
    from trtlog.warehouse import open

    con = open(warehouse)
    rows = dict(
        con.execute(
            "SELECT model, build_id FROM builds WHERE model IN ('tinynet', 'tinynet-qdq') "
            "ORDER BY list_contains(roles, 'profile') DESC"
        ).fetchall()[::-1]
    )
    con.close()
    return {"fp16": rows["tinynet"], "int8": rows["tinynet-qdq"]}


@pytest.mark.parametrize(("where", "how", "sql"), EXAMPLES, ids=[w for w, _, _ in EXAMPLES])
def test_example_runs(
    warehouse: Path,
    wh: Any,
    params: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    where: str,
    how: str,
    sql: str,
) -> None:
    if how == "cli":
        code = main(["query", str(warehouse), sql])
        out, err = capsys.readouterr()
        assert code == 0, f"{where}: {err}"
        assert out.splitlines()[1].startswith("--"), where  # a table: header, rule, rows
        return
    names = _PARAM.findall(sql)
    bound = {n: params[n] for n in names}
    result = wh.execute(sql, bound) if bound else wh.execute(sql)
    assert result.description, where  # a query with columns
    result.fetchall()
