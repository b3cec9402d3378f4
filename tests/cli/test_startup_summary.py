"""``trtlog summary`` of a short log skips the start-up work it does not need.

Structural checks, not timings (the times are ``bench/startup.py``'s): the summary of the
seed log, in a fresh process, loads no Lark parser (the keyword rows and the compiled
matchers' alternatives come from the grammar tables shipped with the package), compiles no
whole-line regex and not the inspector parameter split's big regex, builds no pydantic schema
of a model it never validates, imports no other command's module, and freezes the heap before
the interpreter shuts down.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import FIXTURES
from trtlog.cli.main import _command_of
from trtlog.parser.families import FAMILIES

SEED = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"

# models the summary of the seed log never validates: their schemas must stay unbuilt
UNBUILT = (
    ("trtlog.buildlog.performance", "Performance"),
    ("trtlog.buildlog.performance", "ProfileTable"),
    ("trtlog.engine.model", "Profile"),
    ("trtlog.engine.model", "Times"),
    ("trtlog.engine.model", "IoTensor"),
    ("trtlog.summary.model", "RunRow"),
    ("trtlog._pydantic", "ExactJson"),
    ("trtlog.events.optimizer", "Fusion"),
)

REPORT = (
    "import atexit, gc, importlib, json, runpy, sys\n"
    "def report():\n"
    "    from trtlog.parser import compiled, grammar\n"
    "    lines = [env for m in grammar._MATCHERS.values() for s in m._done.values() if s\n"
    "             for spec in s._specs for env in [spec.env] if '_linematch' in env]\n"
    f"    unbuilt = {UNBUILT!r}\n"
    "    out = {\n"
    "        'parsers': sorted(grammar._PARSERS),\n"
    "        'tables': sorted(grammar._TABLES),\n"
    "        'line_regexes': sum(not isinstance(e['_linematch'], compiled._LazyFullmatch)\n"
    "                            for e in lines),\n"
    "        'built': [n for m, n in unbuilt\n"
    "                  if getattr(importlib.import_module(m), n).__pydantic_complete__],\n"
    "        'commands': sorted(m for m in sys.modules if m.startswith('trtlog.cli.')\n"
    "                           and m not in ('trtlog.cli.common', 'trtlog.cli.main',\n"
    "                                         'trtlog.cli.registry')),\n"
    "        'frozen': gc.get_freeze_count() > 0,\n"
    "    }\n"
    "    sys.stderr.write('REPORT=' + json.dumps(out))\n"
    "atexit.register(report)\n"
    "sys.argv = ['trtlog', *sys.argv[1:]]\n"
    "runpy.run_module('trtlog', run_name='__main__', alter_sys=True)\n"
)


def _summary() -> tuple[str, dict[str, object]]:
    """The summary of the seed log (its text) and what the process did, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", REPORT, "summary", str(SEED)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, json.loads(done.stderr.rsplit("REPORT=", 1)[1])


def test_a_summary_loads_no_grammar_and_compiles_only_what_it_meets() -> None:
    text, report = _summary()
    assert "tactics" in text
    assert report["parsers"] == []  # no Lark parser loaded: every message took a matcher
    assert report["tables"] == sorted(f.name for f in FAMILIES if f.starts)
    assert report["line_regexes"] == 0  # no shape of the seed log repeats 64 times
    assert report["built"] == []
    assert report["commands"] == ["trtlog.cli.summary"]
    assert report["frozen"] is True


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["summary", "x.log"], "summary"),
        (["-v", "-q", "lint", "x.log"], "lint"),
        (["--help", "summary"], None),  # the top-level help lists every command
        (["-h"], None),
        (["--", "summary"], None),
        (["sumary", "x.log"], None),  # the error lists the commands
        ([], None),
    ],
)
def test_only_the_named_command_is_made(argv: list[str], command: str | None) -> None:
    assert _command_of(argv) == command
