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
    SMALL_AUTOCAST,
    SMALL_AUTOCAST_NAMES,
    SMALL_AUTOCAST_PROFILE,
    SMALL_FP16_10,
    SMALL_FP16_10_LOG,
    SMALL_FP16_10_PROFILE,
    SMALL_FP32,
    SMALL_FP32_LOG,
    SMALL_FP32_PROFILE,
    SMALL_QDQ,
    SMALL_QDQ_PROFILE,
    SMALL_REFPAIR,
    SMALL_TORCHTRT,
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
    # TensorRT 11: the same small model the 10.x way and the 11.x ways
    SMALL_FP16_10.stem: (SMALL_FP16_10, SMALL_FP16_10_PROFILE, None, None),
    SMALL_FP16_10_LOG.stem: (SMALL_FP16_10_LOG, None, None, None),
    SMALL_AUTOCAST.stem: (SMALL_AUTOCAST, SMALL_AUTOCAST_PROFILE, None, None),
    SMALL_AUTOCAST_NAMES.stem: (SMALL_AUTOCAST_NAMES, SMALL_AUTOCAST_PROFILE, None, None),
    SMALL_FP32.stem: (SMALL_FP32, SMALL_FP32_PROFILE, SMALL_FP16_10, SMALL_FP16_10_PROFILE),
    SMALL_FP32_LOG.stem: (SMALL_FP32_LOG, None, SMALL_FP16_10_LOG, None),
    SMALL_QDQ.stem: (SMALL_QDQ, SMALL_QDQ_PROFILE, None, None),
    SMALL_TORCHTRT.stem: (SMALL_TORCHTRT, None, None, None),
    SMALL_REFPAIR.stem: (SMALL_REFPAIR, None, None, None),
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
