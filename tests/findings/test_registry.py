"""The registry, the models, lint()'s inputs, findings_frame and the rule documentation."""

from __future__ import annotations

import math
import re
import warnings

import pytest

import trtlog
from tests.conftest import ROOT
from tests.findings.inputs import (
    PATTERNS,
    PATTERNS_PROFILE,
    TINY_FP16,
    TINY_INT8,
    TINY_INT8_PROFILE,
    YOLO,
    build,
    engine,
    lint,
)
from trtlog.findings import (
    RULES,
    SEVERITIES,
    Evidence,
    Finding,
    rule_info,
    select_rules,
    severity_rank,
)
from trtlog.frames import SCHEMAS

#: The rule ids the issue names, the one added (INT8 without calibration data) and the one
#: added later (a strongly typed build left mostly FP32).
ISSUE_IDS = {
    "qdq-unfused-quantizer",
    "qdq-int8-float-output",
    "qdq-residual-unquantized",
    "qdq-blocked-fusion",
    "qdq-missing-scale",
    "precision-fallback",
    "reformat-io-boundary",
    "reformat-dtype",
    "reformat-layout",
    "myelin-subkernels",
    "attention-not-fused",
    "tactic-memory-skip",
    "dla-fallback",
    "slow-build-no-timing-cache",
    "build-failed",
    "qdq-split-fusion",
    "int8-slower-than-reference",
    "reference-alignment-failed",
}

#: the fragment rules (docs/fragments-research.md §4)
ISSUE_17_IDS = {
    "benign-warning",
    "activation-not-fused",
    "layer-precision-overridden",
    "qdq-weights-unquantized",
    "qdq-gemm-float-kernel",
    "qdq-myelin-split",
    "int8-disabled-by-integration",
    "fp16-weights-converted",
    "engine-from-other-device",
    "low-precision-unsupported-gpu",
}

#: the hardware, shape and autotuning rules
HARDWARE_IDS = {
    "quantization-unsupported-gpu",
    "fp32-on-tensor-core-gpu",
    "dynamic-shape-pinned",
    "channels-misaligned",
    "sparsity-not-chosen",
    "tactics-fast-skipped",
}


def test_rule_ids_are_stable_kebab_case_and_unique() -> None:
    ids = [r.info.id for r in RULES]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", i) for i in ids)
    assert set(ids) == ISSUE_IDS | ISSUE_17_IDS | HARDWARE_IDS | {
        "int8-no-calibration",
        "strongly-typed-fp32",
    }
    assert ids[0] == "build-failed"


def test_rule_functions_follow_the_naming() -> None:
    for r in RULES:
        assert r.__name__ == "check_" + r.info.id.replace("-", "_")  # type: ignore[attr-defined]
        assert r.info.severity in SEVERITIES
        assert r.info.title and len(r.info.explanation) > 80


def test_qdq_rules_are_marked() -> None:
    qdq = {r.info.id for r in RULES if r.info.qdq}
    assert qdq == {
        "qdq-unfused-quantizer",
        "qdq-int8-float-output",
        "qdq-residual-unquantized",
        "qdq-blocked-fusion",
        "qdq-split-fusion",
        "qdq-weights-unquantized",
        "qdq-gemm-float-kernel",
        "qdq-myelin-split",
    }


def test_every_rule_has_a_section_in_the_docs() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## `([a-z0-9-]+)`", text, flags=re.MULTILINE)
    assert headings == [r.info.id for r in RULES]
    for r in RULES:
        section = text.split(f"## `{r.info.id}`", 1)[1].split("\n## ", 1)[0]
        for part in ("Severity", "Detects", "Why it matters", "Mitigation", "Evidence", "Guards"):
            assert f"**{part}" in section, (r.info.id, part)
        assert f"**Severity:** {r.info.severity}" in section


def test_severities() -> None:
    assert [severity_rank(s) for s in SEVERITIES] == [0, 1, 2]
    with pytest.raises(ValueError, match="unknown severity 'fatal'"):
        severity_rank("fatal")


def test_select_rules() -> None:
    assert [r.info.id for r in select_rules(["dla-fallback", "build-failed"])] == [
        "build-failed",
        "dla-fallback",
    ]
    assert "reformat-dtype" not in {r.info.id for r in select_rules(exclude=["reformat-dtype"])}
    with pytest.raises(ValueError, match="unknown rule id: nope; known: build-failed, "):
        select_rules(["nope"])
    assert rule_info("myelin-subkernels").severity == "info"


def test_lint_runs_only_the_selected_rules() -> None:
    found = trtlog.lint(build(TINY_INT8), rules=["qdq-unfused-quantizer"])
    assert {f.rule for f in found} == {"qdq-unfused-quantizer"}
    rest = trtlog.lint(build(TINY_INT8), exclude=["qdq-unfused-quantizer"])
    assert "qdq-unfused-quantizer" not in {f.rule for f in rest}
    assert len(found) + len(rest) == len(lint(TINY_INT8))


def test_lint_takes_paths_builds_and_engines() -> None:
    from_path = trtlog.lint(str(TINY_INT8), profile=str(TINY_INT8_PROFILE))
    from_build = trtlog.lint(build(TINY_INT8), profile=TINY_INT8_PROFILE)
    assert from_path == from_build
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from_json = trtlog.lint(PATTERNS, profile=PATTERNS_PROFILE)
    assert from_json == lint(PATTERNS, PATTERNS_PROFILE)
    # a log and, separately, its engine
    assert trtlog.lint(build(YOLO), engine(PATTERNS))
    with pytest.raises(ValueError, match="lint needs a log or an engine"):
        trtlog.lint(None)


def test_findings_are_in_registry_order() -> None:
    order = {r.info.id: i for i, r in enumerate(RULES)}
    found = lint(TINY_INT8, TINY_INT8_PROFILE)
    assert [order[f.rule] for f in found] == sorted(order[f.rule] for f in found)


def test_finding_to_text_quotes_evidence_lines() -> None:
    f = lint(TINY_INT8)[1]
    text = f.to_text(build(TINY_INT8), max_lines=1)
    lines = text.splitlines()
    assert lines[0] == f"warning qdq-unfused-quantizer: {f.subject}"
    assert lines[-1].startswith(f"    {f.evidence.lines[0]}: [03/12/2024-10:20:02] [V] [TRT] Swap")
    assert "evidence: lines 117, 131, 132; layers 1, 2" in text


def test_finding_round_trips_through_json() -> None:
    for f in lint(TINY_INT8, TINY_INT8_PROFILE):
        assert Finding.model_validate_json(f.model_dump_json()) == f
    nan = Finding(rule="x", severity="info", subject="s", message="m", time_ms=math.nan)
    assert math.isnan(Finding.model_validate_json(nan.model_dump_json()).time_ms or 0.0)
    assert Evidence().lines == ()


def test_findings_frame() -> None:
    frame = trtlog.findings_frame(lint(TINY_INT8, TINY_INT8_PROFILE))
    assert list(frame.columns) == list(SCHEMAS["findings"])
    assert frame["rule"].iloc[0] == "qdq-unfused-quantizer"
    assert frame["time_ms"].iloc[0] == pytest.approx(0.0079)
    assert frame["lines"].iloc[1] == "117,131,132"
    assert frame["layers"].iloc[1] == "1,2"
    empty = trtlog.findings_frame([])
    assert list(empty.columns) == list(SCHEMAS["findings"]) and len(empty) == 0
    assert {str(t) for t in empty.dtypes} <= {"string", "float64"}


def test_findings_frame_is_lazy() -> None:
    assert "findings_frame" in trtlog.__all__ and "lint" in trtlog.__all__
    assert "Finding" in trtlog.__all__


def test_a_clean_fp16_build_has_no_warning() -> None:
    assert {f.severity for f in lint(TINY_FP16)} <= {"info"}
