"""Golden findings of the fixtures (``fixtures/golden/<fixture>/findings.json``).

Regenerate with ``pytest --update-golden`` and review the diff: every change of a message,
severity, evidence line or time at stake shows there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT
from tests.findings.inputs import (
    DLA,
    PATTERNS,
    PATTERNS_FAILED,
    PATTERNS_PROFILE,
    TINY_FP16,
    TINY_FP16_PROFILE,
    TINY_INT8,
    TINY_INT8_PROFILE,
    VIT,
    VIT_PROFILE,
    YOLO,
    lint,
)
from trtlog import Finding

GOLDEN = FIXTURES / "golden"

CASES: dict[str, tuple[Path, Path | None, Path | None, Path | None]] = {
    # fixture: (input, its profile, reference, reference profile)
    TINY_INT8.stem: (TINY_INT8, TINY_INT8_PROFILE, TINY_FP16, TINY_FP16_PROFILE),
    YOLO.stem: (YOLO, None, None, None),
    PATTERNS.stem: (PATTERNS, PATTERNS_PROFILE, None, None),
    PATTERNS_FAILED.stem: (PATTERNS_FAILED, None, None, None),
    DLA.stem: (DLA, None, None, None),
    VIT.stem: (VIT, VIT_PROFILE, None, None),
}


def _text(findings: list[Finding]) -> str:
    data = [f.model_dump(mode="json") for f in findings]
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    return text.replace(f"{ROOT.as_posix()}/", "")  # paths relative to the project


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_findings(name: str, update_golden: bool) -> None:
    path, profile, reference, reference_profile = CASES[name]
    found = lint(path, profile, reference=reference, reference_profile=reference_profile)
    text = _text(found)
    golden = GOLDEN / name / "findings.json"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")
