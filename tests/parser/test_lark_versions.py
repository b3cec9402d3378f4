"""The Lark versions trtlog supports: the bounds in pyproject.toml, tested at both ends.

``trtlog/parser/_lark.py`` is the one place that uses Lark's private API; ``.ci/lark-matrix``
(run by ``.ci/run``) runs the parser tests at the lowest and highest version allowed.
"""

from __future__ import annotations

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


def test_the_installed_lark_is_within_the_bounds() -> None:
    low, high = _bounds()
    assert low <= _version(lark.__version__) < high
