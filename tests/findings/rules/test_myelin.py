"""Myelin and attention rules: kernels of one region explained, attention left unfused."""

from __future__ import annotations

import pytest

from tests.conftest import needs_corpus
from tests.findings.inputs import (
    BERT_DETAILED,
    BERT_NAMES,
    CONTROLNET,
    CONTROLNET_PROFILE,
    LIDAR,
    LIDAR_PROFILE,
    QAT_RESNET,
    TINY_INT8,
    VIT,
    VIT_PROFILE,
    lint,
    of,
)


def test_bert_kernels_are_one_myelin_region() -> None:
    (f,) = of(lint(BERT_DETAILED), "myelin-subkernels")
    assert f.severity == "info"
    assert f.message.startswith(
        "88 engine rows (39 kgen, 36 gemm, 13 fusion) are the kernels of one Myelin region"
    )
    assert "12 of them are fused attention kernels (_gemm_mha_v2_myl0_3)" in f.message
    assert "INT8" not in f.message  # an FP16 build: nothing to say about quantized GEMMs
    assert len(f.evidence.layers) == 88
    assert f.evidence.lines[:2] == (2, 3)


def test_a_default_build_shows_the_region_whole() -> None:
    assert not of(lint(BERT_NAMES), "myelin-subkernels")


def test_fused_attention_is_not_reported() -> None:
    assert not of(lint(BERT_DETAILED), "attention-not-fused")


def test_attention_split_over_three_layers() -> None:
    (f,) = of(lint(VIT, VIT_PROFILE), "attention-not-fused")
    assert f.subject == "/blocks.0/attn/Softmax"
    assert (
        "runs between /blocks.0/attn/MatMul and /blocks.0/attn/MatMul_1 as separate layers"
        in f.message
    )
    assert f.evidence.layers == (6, 8, 9)
    assert f.time_ms == pytest.approx(0.0219 + 0.0297 + 0.0201)
    assert "37.2% of the engine's layer time" in f.why


def test_a_classifier_softmax_is_not_attention() -> None:
    """Softmax after a convolution head (tinynet) or a GEMM (ResNet18) has no MatMul after it."""
    assert not of(lint(TINY_INT8), "attention-not-fused")


@needs_corpus
def test_qat_resnet18_softmax_is_not_attention() -> None:
    assert not of(lint(QAT_RESNET), "attention-not-fused")


@needs_corpus
def test_lidar_regions_and_their_int8_gemms() -> None:
    found = of(lint(LIDAR, LIDAR_PROFILE), "myelin-subkernels")
    assert [f.subject for f in found] == ["Myelin graph 2", "Myelin graph 8"]
    backbone, rest = found
    assert "97 engine rows (37 correlation, 30 kgen, 15 wait, 12 signal" in backbone.message
    assert "36 of its 40 GEMM/convolution kernels read INT8" in backbone.message
    assert backbone.time_ms == pytest.approx(10.16, abs=0.01)
    assert "1205 engine rows" in rest.message
    assert "34 of them are fused attention kernels" in rest.message
    assert "0 of its 637 GEMM/convolution kernels read INT8" in rest.message


@needs_corpus
def test_controlnet_attention_runs_inside_myelin() -> None:
    found = lint(CONTROLNET, CONTROLNET_PROFILE)
    assert not of(found, "attention-not-fused")
