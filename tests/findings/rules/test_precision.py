"""precision-fallback: FP32 layers of an INT8 build without FP16, ignored layer precisions."""

from __future__ import annotations

from pathlib import Path

import pytest

import trtlog
from tests.conftest import needs_corpus
from tests.findings.inputs import (
    MNIST_FP16_10,
    PATTERNS_FAILED,
    QAT_RESNET,
    TINY_FP16,
    TINY_INT8,
    YOLO,
    build,
    lint,
    of,
)


def test_int8_build_without_fp16_runs_the_float_region_in_fp32() -> None:
    """The yolov8 seed was built with --int8 alone: its Myelin post-processing runs in FP32."""
    (f,) = of(lint(YOLO), "precision-fallback")
    assert f.severity == "warning"
    assert f.subject == "1 layer"
    assert "the build enables INT8 but not FP16 (Precision: FP32+INT8)" in f.message
    assert "{ForeignNode[/model/taskhead2" in f.message
    assert "add --fp16" in f.mitigation
    assert f.evidence.layers == (0,)
    assert "Precision: FP32+INT8" in build(YOLO).lines[f.evidence.lines[0] - 1]


def test_layer_precisions_without_constraints() -> None:
    (f,) = of(lint(PATTERNS_FAILED), "precision-fallback")
    assert f.subject == "/head/fc/MatMul"  # the layer that ignored its precision
    assert "per-layer precisions are set (/head/fc/MatMul:fp16) without precision constraints" in (
        f.message
    )
    assert "TensorRT chose other precisions for 1 layer (/head/fc/MatMul)" in f.message
    assert f.evidence.lines == (9, 10, 55)
    assert "--precisionConstraints=prefer" in f.mitigation


def test_layer_precisions_with_constraints_are_applied() -> None:
    text = (
        "[I] === Build Options ===\n"
        "[I] Precision: FP32+FP16 (obey precision constraints)\n"
        "[I] LayerPrecisions: /fc/MatMul:fp32\n"
    )
    assert not trtlog.lint(trtlog.parse_text(text), rules=["precision-fallback"])


def test_fp16_requested_on_hardware_without_fp16() -> None:
    text = (
        "[W] [TRT] FP16 support requested on hardware without native FP16 support, "
        "performance will be negatively affected.\n"
    )
    (f,) = trtlog.lint(trtlog.parse_text(text), rules=["precision-fallback"])
    assert f.subject == "FP16"


@pytest.mark.parametrize("path", [TINY_FP16, TINY_INT8], ids=lambda p: p.name)
def test_builds_with_fp16_enabled(path: Path) -> None:
    assert not of(lint(path), "precision-fallback")


@needs_corpus
@pytest.mark.parametrize("path", [QAT_RESNET, MNIST_FP16_10], ids=lambda p: p.name)
def test_corpus_builds_with_fp16_enabled(path: Path) -> None:
    """Non-conforming implementations without --layerPrecisions are TensorRT's own choice."""
    assert build(path).events_of("nonconforming_implementation")
    assert not of(lint(path), "precision-fallback")
