"""The grammar tables ship with the package, match the grammars, and are only ever read.

``grammars/tables/<family>.jsonl`` is made by ``python -m trtlog.parser.grammar``; these tests
fail when it is out of date (a grammar, a family's start rules or the installed Lark's
serialization changed: ``.ci/lark-matrix`` runs them at both ends of the Lark versions
allowed), check that a table that does not match is not read, and that a fresh process
parses with no file written anywhere.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT
from trtlog.parser import _lark, grammar
from trtlog.parser.families import FAMILIES
from trtlog.parser.family import Family
from trtlog.parser.grammar import (
    build_parser,
    make_table,
    parse_message,
    table_path,
    table_text,
    tables_dir,
)

SEED = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
MESSAGE = "ConvReluFusion: Fusing conv1 with relu1"
WITH_STARTS = [f for f in FAMILIES if f.starts]
REGENERATE = "out of date: run `python -m trtlog.parser.grammar` and commit grammars/tables"


def _optimizer() -> Family:
    return next(f for f in FAMILIES if f.name == "optimizer")


@pytest.mark.parametrize("family", WITH_STARTS, ids=lambda f: f.name)
def test_each_table_is_what_its_grammar_makes(family: Family) -> None:
    """Made again here, under the installed Lark, a table is the committed file byte for byte."""
    assert table_path(family).read_text(encoding="utf-8") == table_text(make_table(family)), (
        f"{table_path(family)} is {REGENERATE}"
    )


def test_there_is_one_table_per_family() -> None:
    assert sorted(p.name for p in tables_dir().iterdir()) == sorted(
        f"{f.name}.jsonl" for f in WITH_STARTS
    ), REGENERATE


@pytest.mark.slow
def test_a_table_is_canonical_whatever_the_hash_seed() -> None:
    """Lark numbers its LALR states in set order, which the string hash seed changes."""
    code = (
        "import sys; from trtlog.parser.grammar import make_table, table_text; "
        "from trtlog.parser.families import FAMILIES; "
        "f = next(f for f in FAMILIES if f.name == 'optimizer'); "
        "sys.stdout.write(table_text(make_table(f)))"
    )
    texts = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert texts == {table_path(_optimizer()).read_text(encoding="utf-8")}


def test_a_parser_read_from_its_table_parses_like_a_fresh_one() -> None:
    family = _optimizer()
    fresh = build_parser(family)
    lark = table_path(family).read_bytes().split(b"\n", 2)[2]
    loaded = _lark.deserialize(json.loads(lark), family.transformer())
    assert loaded.rules == fresh.rules
    assert [(t.name, t.pattern.to_regexp()) for t in loaded.terminals] == [
        (t.name, t.pattern.to_regexp()) for t in fresh.terminals
    ]
    # the parse table and the lexer are made when the parser first parses
    assert type(loaded.parser).__name__ == "_LazyFrontend"
    assert loaded.parse(MESSAGE, start="fusion") == fresh.parse(MESSAGE, start="fusion")
    assert type(loaded.parser) is type(fresh.parser)


@pytest.mark.parametrize("family", WITH_STARTS, ids=lambda f: f.name)
def test_every_table_is_read(family: Family) -> None:
    assert grammar._read_table(family) is not None


@pytest.fixture
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The grammar module as in a new process (and as it was, afterwards)."""
    for name in ("_TABLES", "_PARSERS", "_MATCHERS"):
        monkeypatch.setattr(grammar, name, {})
    grammar._grammars_digest.cache_clear()
    yield
    grammar._grammars_digest.cache_clear()


def _stale_copy(tmp_path: Path) -> Path:
    """A copy of the grammars and tables with a comment added to a grammar, read-only."""
    folder = tmp_path / "grammars"
    shutil.copytree(grammar.grammar_dir(), folder)
    with (folder / "optimizer.lark").open("a", encoding="utf-8") as f:
        f.write("// a developer's edit\n")
    for path in [folder / "tables", *folder.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    return folder


@pytest.mark.usefixtures("fresh_state")
def test_an_out_of_date_table_is_built_in_memory_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    folder = _stale_copy(tmp_path)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    monkeypatch.setattr(grammar, "grammar_dir", lambda: folder)
    with caplog.at_level(logging.DEBUG, logger="trtlog.parser.grammar"):
        fields = parse_message(_optimizer(), "fusion", MESSAGE)
        lark = parse_message(_optimizer(), "fusion", MESSAGE, compiled=False)
    assert fields == lark and fields["first"] == "conv1"
    assert "optimizer.jsonl is out of date (grammars)" in caplog.text
    assert "building grammar optimizer in memory" in caplog.text
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert not (tmp_path / "grammars" / "tables" / "optimizer.jsonl.tmp").exists()


@pytest.mark.usefixtures("fresh_state")
def test_a_table_of_another_lark_format_is_not_read(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(_lark, "serial_format", lambda: "another")
    with caplog.at_level(logging.DEBUG, logger="trtlog.parser.grammar"):
        assert grammar._read_table(_optimizer()) is None
        assert parse_message(_optimizer(), "fusion", MESSAGE)["first"] == "conv1"
    assert "optimizer.jsonl is out of date (lark_format)" in caplog.text


@pytest.mark.usefixtures("fresh_state")
def test_a_missing_table_is_built_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "grammars"
    shutil.copytree(grammar.grammar_dir(), folder, ignore=shutil.ignore_patterns("tables"))
    monkeypatch.setattr(grammar, "grammar_dir", lambda: folder)
    with caplog.at_level(logging.DEBUG, logger="trtlog.parser.grammar"):
        assert parse_message(_optimizer(), "fusion", MESSAGE)["first"] == "conv1"
    assert "no grammar table" in caplog.text and not (folder / "tables").exists()


# Records every write a process attempts (Python's audit events: files opened for writing,
# folders made, files renamed or removed), parses the seed log, makes its summary and parses
# a message with each family's Lark parser, then prints what it recorded and which grammars
# it built instead of reading their table.
_NO_WRITES = """
import json, logging, os, sys
writes = []
def hook(event, args):
    if event == "open":
        path, mode, flags = args
        if (mode and any(c in mode for c in "wax+")) or (
            flags and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
        ):
            writes.append((event, str(path)))
    elif event in ("os.mkdir", "os.rename", "os.replace", "os.remove", "os.link",
                   "os.symlink", "shutil.copyfile", "os.truncate"):
        writes.append((event, str(args[0])))
sys.addaudithook(hook)
messages = []
class Keep(logging.Handler):
    def emit(self, record):
        messages.append(record.getMessage())
logging.getLogger("trtlog.parser.grammar").addHandler(Keep())
logging.getLogger("trtlog.parser.grammar").setLevel(logging.DEBUG)
import trtlog
from trtlog.parser import grammar
from trtlog.parser.families import FAMILIES
from trtlog.summary import summarize
build = trtlog.parse(sys.argv[1])
text = summarize(build).to_text()
for family in FAMILIES:
    if family.starts:
        grammar.cached_parser(family).parser.parser  # the LALR table, made now
print(json.dumps({
    "events": len(build.events),
    "writes": writes,
    "built": [m for m in messages if "in memory" in m or "out of date" in m],
}))
"""


@pytest.mark.slow
def test_a_fresh_process_writes_no_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o555)  # read-only (root can still write: the audit hook sees any write)
    cache = tmp_path / "xdg-cache"
    cache.mkdir()
    work = tmp_path / "cwd"
    work.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(cache),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "PYTHONDONTWRITEBYTECODE": "1",  # Python's own .pyc files are not trtlog's
    }
    env.pop("TRTLOG_GRAMMAR_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", _NO_WRITES, str(SEED)],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    home.chmod(0o755)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["events"] > 100
    assert report["writes"] == []
    assert report["built"] == []  # every table was read, none built in memory
    assert list(home.iterdir()) == [] and list(cache.iterdir()) == []
    assert list(work.iterdir()) == []
