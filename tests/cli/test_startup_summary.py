"""``trtlog summary`` of a short log skips the start-up work it does not need (issue 18, item 6).

Structural checks, not timings (the times are ``bench/startup.py``'s): with a warm grammar
cache the summary of the seed log loads no Lark grammar (the keyword rows and the compiled
matchers' alternatives come from the signed ``.derived-cache`` file), compiles no whole-line
regex and not the inspector parameter split's big regex, builds no pydantic schema of a model
it never validates, imports no other command's module, and freezes the heap before the
interpreter shuts down. The cache is a way in only if its signature checks: a planted file
never runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from trtlog.cli.main import _command_of
from trtlog.parser import grammar
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
    "    from trtlog.parser.families import layers\n"
    "    lines = [env for m in grammar._MATCHERS.values() for s in m._done.values() if s\n"
    "             for spec in s._specs for env in [spec.env] if '_linematch' in env]\n"
    f"    unbuilt = {UNBUILT!r}\n"
    "    out = {\n"
    "        'parsers': sorted(grammar._PARSERS),\n"
    "        'derived': sorted(k for k, v in grammar._DERIVED.items() if v is not None),\n"
    "        'line_regexes': sum(not isinstance(e['_linematch'], compiled._LazyFullmatch)\n"
    "                            for e in lines),\n"
    "        'pair_regex': layers._PAIR.compiled,\n"
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


def _summary(cache: Path | str) -> tuple[str, dict[str, object]]:
    """The summary of the seed log (its text) and what the process did, in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", REPORT, "summary", str(SEED)],
        env={**os.environ, "TRTLOG_GRAMMAR_CACHE": str(cache)},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, json.loads(done.stderr.rsplit("REPORT=", 1)[1])


def test_a_warm_summary_loads_no_grammar_and_compiles_only_what_it_meets(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold_text, cold = _summary(cache)  # builds the grammars it needs and writes the caches
    assert cold["parsers"], "a cold cache builds the grammars"
    assert sorted(p.name.split("-")[0] for p in cache.glob("*.derived-cache")) == sorted(
        f.name for f in FAMILIES if f.starts
    )
    warm_text, warm = _summary(cache)
    assert warm_text == cold_text and "tactics" in warm_text
    assert warm["parsers"] == []  # no Lark grammar loaded: every message took a matcher
    assert warm["derived"] == sorted(f.name for f in FAMILIES if f.starts)
    assert warm["line_regexes"] == 0  # no shape of the seed log repeats 64 times
    assert warm["pair_regex"] is False  # 3 parameter lists: walked
    assert warm["built"] == []
    assert warm["commands"] == ["trtlog.cli.summary"]
    assert warm["frozen"] is True
    # and without any cache: the same text
    uncached_text, uncached = _summary("0")
    assert uncached_text == cold_text
    assert uncached["derived"] == []


def test_a_planted_derived_cache_never_runs(tmp_path: Path) -> None:
    """The derived cache holds code: an unsigned (or wrongly signed) file is never used."""
    cache = tmp_path / "cache"
    text, _ = _summary(cache)
    marker = tmp_path / "pwned"
    evil = f"open({str(marker)!r}, 'w')"
    for path in cache.glob("*.derived-cache"):
        data = path.read_bytes()
        head, payload = data.split(b"\n", 2)[:2], data.split(b"\n", 2)[2]
        planted = json.loads(payload)
        for alts in planted["alternatives"].values():
            for alt in alts or ():
                alt[2] = evil  # the expression each generated function returns
        path.write_bytes(b"\n".join([head[0], b"0" * 64, json.dumps(planted).encode()]))
    again, report = _summary(cache)
    assert again == text
    assert not marker.exists()
    assert report["parsers"]  # the planted files were refused: the grammars were loaded
    for family in FAMILIES:
        name = grammar.derived_path(family)
        if family.starts and name is not None:
            signed = grammar._read_signed(
                str(cache / Path(name).name), grammar._derived_stamp(family)
            )
            assert signed is not None and evil.encode() not in signed  # rebuilt, signed


def test_the_cached_alternatives_are_the_grammars_own() -> None:
    """What the cache keeps, read back, is what the built grammar gives (every family)."""
    for family in FAMILIES:
        if not family.starts:
            continue
        derived = grammar._derive(family, grammar.cached_parser(family))
        loaded = grammar._Derived.load(derived.dump())
        assert loaded is not None
        assert loaded.routes == derived.routes
        assert loaded.alternatives == derived.alternatives
        assert any(alts for alts in derived.alternatives.values()), family.name


def test_a_derived_cache_of_other_sources_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stamp covers the parser's modules: a file written by other code does not verify."""
    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", str(tmp_path / "cache"))
    family = next(f for f in FAMILIES if f.name == "optimizer")
    path = grammar.derived_path(family)
    assert path is not None and path.endswith(".derived-cache")
    derived = grammar._derive(family, grammar.cached_parser(family))
    grammar._write_signed(path, grammar._stamp(family, False) + b"|derived 1|other", derived.dump())
    assert grammar._read_signed(path, grammar._derived_stamp(family)) is None
    grammar._write_signed(path, grammar._derived_stamp(family), derived.dump())
    assert grammar._read_signed(path, grammar._derived_stamp(family)) == derived.dump()


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


def test_a_shape_that_repeats_gets_its_whole_line_regex() -> None:
    """The first lines of a shape take the ordinary path, later ones the whole-line regex
    (compiled at the 64th): the events are the same as the Lark-only parse's."""
    from trtlog.parser import compiled
    from trtlog.parser.stream import LogParser

    lines = [
        f"[01/10/2024-21:52:52] [V] [TRT] Running: ConstShuffleFusion on /model/n{i}/Squeeze\n"
        for i in range(200)
    ]
    fast = list(LogParser().run(lines))
    slow = list(LogParser(compiled=False).run(lines))
    assert fast == slow and {e.kind for e in fast} == {"pass_run"}
    assert [e.span for e in fast] == [(i, i) for i in range(1, 201)]
    envs = [
        spec.env
        for table in grammar._MATCHERS.values()
        for start in table._done.values()
        if start is not None
        for spec in start._specs
        if "_linematch" in spec.env
    ]
    assert any(not isinstance(env["_linematch"], compiled._LazyFullmatch) for env in envs)
