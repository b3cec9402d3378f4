"""The warehouse commands stay out of `import trtlog` and `trtlog --help`; a missing extra."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trtlog import cli


def test_help_and_import_load_no_warehouse() -> None:
    code = (
        "import sys, contextlib, io, trtlog, trtlog.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n"
        "        trtlog.cli.main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "assert 'ingest' in out.getvalue() and 'trend' in out.getvalue()\n"
        "loaded = [m for m in ('trtlog.warehouse.store', 'trtlog.warehouse.driver', 'duckdb',"
        " 'pyarrow', 'dask', 'distributed') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_tool_lists_the_commands_with_their_help(capsys: pytest.CaptureFixture[str]) -> None:
    from trtlog.warehouse import command

    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help lines
    for name in ("ingest", "query", "trend"):
        run = getattr(command, f"run_{name}")
        assert f"{name} {(run.__doc__ or '').strip().splitlines()[0]}" in out


def test_command_help_shows_the_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["ingest", "--help"])
    out = capsys.readouterr().out
    assert "--workers N" in out and "--scheduler ADDR" in out and "--manifest CSV" in out


def test_a_missing_extra_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "duckdb" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert cli.main(["query", str(tmp_path), "SELECT 1"]) == 2
    err = capsys.readouterr().err
    assert err == "trtlog: error: the warehouse needs duckdb: pip install 'trtlog[warehouse]'\n"


def test_docs_list_every_column_of_every_table() -> None:
    from tests.conftest import ROOT
    from trtlog.warehouse import TABLES

    text = (ROOT / "docs" / "warehouse.md").read_text()
    for table, schema in TABLES.items():
        assert f"`{table}`" in text, table
        for name in schema.names:
            assert f"`{name}`" in text, (table, name)


def test_the_progress_bar_shows_on_a_terminal_only() -> None:
    import io

    from trtlog.warehouse.command import _Bar
    from trtlog.warehouse.driver import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    progress = Progress(3, 10, 2_000_000, 8_000_000, 1, 2.0)
    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        bar = _Bar(stream)
        bar(progress)
        bar.close()
    assert "3/10 files, 2.0 MB, 1.0 MB/s, 1 failed" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r")
    assert pipe.getvalue() == ""
