"""``tests/cases/hardware.toml`` holds: each case's must-fire rules fire, must-not-fire stay quiet.

The labelled set's own loader (``bench/diagnosis.py``) reads every ``tests/cases/*.toml``; this
test checks this file alone, so that its cases are right before they join the set.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import CORPUS, ROOT

CASES_FILE = ROOT / "tests" / "cases" / "hardware.toml"
CASES: list[dict[str, Any]] = tomllib.loads(CASES_FILE.read_text(encoding="utf-8"))["case"]


def _path(spec: str) -> Path:
    return CORPUS / spec.removeprefix("corpus:") if spec.startswith("corpus:") else ROOT / spec


def test_the_file_has_enough_cases() -> None:
    assert len(CASES) >= 15
    assert len({c["name"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_case(case: dict[str, Any]) -> None:
    path = _path(case["input"])
    if case["input"].startswith("corpus:") and not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    fired = {f.rule for f in trtlog.lint(path)}
    assert set(case["must_fire"]) <= fired, (case["must_fire"], fired)
    assert not set(case["must_not_fire"]) & fired, (case["must_not_fire"], fired)
