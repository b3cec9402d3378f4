"""The Lark versions trtlog supports: the bounds in pyproject.toml, tested at both ends.

``trtlog/parser/_lark.py`` is the one place that uses Lark's private API; ``.ci/lark-matrix``
(run by ``.ci/run``) runs the parser tests at the lowest and highest version allowed, among
them ``test_grammar_tables.py``: the grammar tables shipped with the package must be what
each version makes of the grammars, byte for byte.
"""

from __future__ import annotations

import json
import re
import tomllib

import lark

from tests.conftest import ROOT


def _bounds() -> tuple[tuple[int, ...], tuple[int, ...]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    spec = next(d for d in project["dependencies"] if d.startswith("lark"))
    m = re.fullmatch(r"lark>=([\d.]+),<([\d.]+)", spec)
    assert m, f"lark needs a lower and an upper bound: {spec!r}"
    return _version(m[1]), _version(m[2])


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def test_the_matrix_tests_the_lowest_version_and_one_below_the_bound() -> None:
    low, high = _bounds()
    script = (ROOT / ".ci" / "lark-matrix").read_text(encoding="utf-8")
    m = re.search(r'^VERSIONS="([^"]+)"', script, re.MULTILINE)
    assert m
    tested = [_version(v) for v in m[1].split()]
    assert tested[0] == low
    assert all(low <= v < high for v in tested)
    assert "tests/parser" in script and "lark-matrix" in (ROOT / ".ci" / "run").read_text()
    assert "TRTLOG_" not in script  # no setting changes which tables are read


def test_the_tables_are_of_the_installed_lark_format() -> None:
    """A table is read only under a Lark of the format it was made with (else rebuilt)."""
    from trtlog.parser import _lark
    from trtlog.parser.families import FAMILIES
    from trtlog.parser.grammar import table_path

    for family in FAMILIES:
        if family.starts:
            stamp = json.loads(table_path(family).read_bytes().split(b"\n", 1)[0])
            assert stamp["lark_format"] == _lark.serial_format(), family.name


def test_the_installed_lark_is_within_the_bounds() -> None:
    low, high = _bounds()
    assert low <= _version(lark.__version__) < high
