"""Findings on strongly typed builds (TensorRT 11): the FP32 surprise, and no false findings.

TensorRT 11 builds nothing but strongly typed networks: the precision comes from the model's
types, ``--fp16``/``--int8``/``--calib`` are gone. The rules that reason about those flags stay
silent on such builds; ``strongly-typed-fp32`` fires on the engine an FP32 model gives, and on
nothing else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import trtlog
from tests.findings.inputs import (
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
    build,
    engine,
    lint,
)
from trtlog.findings.context import LintContext

HEALTHY: list[tuple[Path, Path | None]] = [
    (SMALL_AUTOCAST, SMALL_AUTOCAST_PROFILE),
    (SMALL_AUTOCAST, None),
    (SMALL_AUTOCAST_NAMES, None),
    (SMALL_QDQ, SMALL_QDQ_PROFILE),
    (SMALL_QDQ, None),
    (SMALL_TORCHTRT, None),
]


@pytest.mark.parametrize(("path", "profile"), HEALTHY, ids=lambda p: getattr(p, "name", "-"))
def test_no_finding_on_a_healthy_strongly_typed_build(path: Path, profile: Path | None) -> None:
    assert lint(path, profile) == []


@pytest.mark.parametrize(
    ("path", "profile"),
    [(SMALL_FP32, SMALL_FP32_PROFILE), (SMALL_FP32, None), (SMALL_FP32_LOG, None)],
    ids=["json+profile", "json", "log"],
)
def test_the_fp32_surprise_is_found(path: Path, profile: Path | None) -> None:
    found = lint(path, profile)
    assert [f.rule for f in found] == ["strongly-typed-fp32"]
    (f,) = found
    assert f.severity == "warning"
    assert f.subject == "6 FP32 layers"
    assert "5 convolutions/GEMMs" in f.message
    assert "modelopt.onnx.autocast" in f.mitigation
    assert "no --fp16" in f.mitigation
    assert f.evidence.layers == (0, 1, 2, 3, 4, 5)
    if path.suffix == ".log":  # the log's --dumpProfile table gives the times
        assert f.evidence.lines[0] == 12  # Precision: Strongly Typed
        assert f.time_ms == pytest.approx(0.4613)
    elif profile is not None:
        assert f.time_ms == pytest.approx(0.4613)
        assert "100.0% of the engine's layer time" in f.message
    else:
        assert f.time_ms is None
        assert "5 of 5 convolutions/GEMMs" in f.message


def test_strongly_typed_is_told_by_the_log_the_version_or_the_json_shape() -> None:
    assert LintContext(build(SMALL_FP32_LOG), None).strongly_typed  # Precision: Strongly Typed
    assert LintContext(None, engine(SMALL_FP32)).strongly_typed  # I/O Tensors
    assert LintContext(None, engine(SMALL_TORCHTRT)).strongly_typed
    assert not LintContext(build(SMALL_FP16_10_LOG), None).strongly_typed
    assert not LintContext(None, engine(SMALL_FP16_10)).strongly_typed
    # the 10.x export of an engine built with --stronglyTyped has no 11.x keys: not told
    ten = SMALL_AUTOCAST.parent / "trt10.16-like_smallnet-fp16-autocast_layers-detailed.json"
    assert not LintContext(None, engine(ten)).strongly_typed


def test_the_weakly_typed_10x_build_of_the_same_model_is_not_an_fp32_surprise() -> None:
    for found in (lint(SMALL_FP16_10, SMALL_FP16_10_PROFILE), lint(SMALL_FP16_10_LOG)):
        assert {f.rule for f in found} == {"reformat-io-boundary"}


def test_flag_rules_are_silent_on_strongly_typed_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = ["precision-fallback", "int8-no-calibration"]
    for path, profile in [(SMALL_FP32, SMALL_FP32_PROFILE), (SMALL_FP32_LOG, None)]:
        assert lint(path, profile, rules=rules) == []
    # an all-FP32 engine under "Precision: FP32+INT8" is what precision-fallback reports in a
    # weakly typed build; a TensorRT 11 log has no such flags to fall back from
    text = SMALL_FP32_LOG.read_text(encoding="utf-8")
    mixed = trtlog.parse_text(text.replace("Precision: Strongly Typed", "Precision: FP32+INT8"))
    assert trtlog.lint(mixed, rules=rules) == []
    monkeypatch.setattr(LintContext, "strongly_typed", property(lambda self: False))
    assert [f.rule for f in trtlog.lint(mixed, rules=rules)] == ["precision-fallback"]


def test_a_failed_accuracy_check_is_not_a_missing_engine() -> None:
    found = lint(SMALL_REFPAIR)
    assert [(f.rule, f.subject) for f in found] == [("build-failed", "logits")]
    (f,) = found
    assert f.message == (
        "the run failed its accuracy check: logits (Cosine 0.001837 >= 0.001, line 83)"
    )
    assert "--accuracyThreshold" in f.why
    assert f.evidence.lines == (83, 96)
    assert trtlog.lint(SMALL_REFPAIR, rules=["strongly-typed-fp32"]) == []
