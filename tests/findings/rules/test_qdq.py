"""Q/DQ rules: on the hand-made tinynet and patternnet builds, the seeds and the corpus."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus
from tests.findings.inputs import (
    BERT_DETAILED,
    BERT_NAMES,
    LIDAR,
    LIDAR_PROFILE,
    NO_QDQ,
    PATTERNS,
    PATTERNS_FAILED,
    PATTERNS_PROFILE,
    QAT_RESNET,
    RESNET_DETAILED,
    TINY_FP16,
    TINY_FP16_PROFILE,
    TINY_INT8,
    TINY_INT8_PROFILE,
    YOLO,
    build,
    counts,
    lint,
    of,
)
from trtlog.engine.model import Profile, ProfileRecord, ProfileRun
from trtlog.findings import RULES

QDQ_RULES = [r.info.id for r in RULES if r.info.qdq]
MISSING_FUSION = [
    "qdq-unfused-quantizer",
    "qdq-int8-float-output",
    "qdq-residual-unquantized",
    "qdq-blocked-fusion",
    "qdq-split-fusion",
    "attention-not-fused",
]


def _tiny() -> list[trtlog.Finding]:
    return lint(
        TINY_INT8,
        TINY_INT8_PROFILE,
        reference=TINY_FP16,
        reference_profile=TINY_FP16_PROFILE,
    )


# -- qdq-unfused-quantizer -------------------------------------------------------------------


def test_unfused_quantizers_of_the_tinynet_build() -> None:
    found = of(_tiny(), "qdq-unfused-quantizer")
    assert [(f.subject, f.severity) for f in found] == [
        ("/stem/conv/_input_quantizer/QuantizeLinear", "info"),
        ("/stage1/cv1/conv/_input_quantizer/QuantizeLinear", "warning"),
        ("/stage1/add_quantizer/DequantizeLinear", "warning"),
        ("/stage2/conv/_input_quantizer/QuantizeLinear", "warning"),
    ]
    network_input, fed_twice, dq, after_add = found
    assert "network input images (FP32→INT8)" in network_input.message
    assert network_input.time_ms == pytest.approx(0.0079)
    # the Q cannot fold into the stem convolution: its output also feeds the residual add
    assert "also feeds PWN(/stage1/Add, /stage1/act/Relu) in float" in fed_twice.message
    assert fed_twice.evidence.layers == (1, 2)
    assert 117 in fed_twice.evidence.lines  # "Swap the layer type ... to kQDQ"
    assert (
        "its consumer PWN(/stage1/Add, /stage1/act/Relu) (PointWiseV2) runs in FP16" in dq.message
    )
    assert "7.4% of the engine's layer time" in dq.why
    assert "writes FP16" in after_add.message


def test_kqdq_swaps_without_a_later_fusion_in_the_yolov8_seed() -> None:
    found = of(lint(YOLO), "qdq-unfused-quantizer")
    assert [(f.subject, f.severity) for f in found] == [
        ("/model/backbone0/conv/_input_quantizer/QuantizeLinear", "info"),
        ("/model/head12/cv1/conv/_input_quantizer/QuantizeLinear_clone_0", "warning"),
        ("/model/head15/cv1/conv/_input_quantizer/QuantizeLinear_clone_0", "warning"),
    ]
    head12 = found[1]
    assert head12.evidence.lines == (220,)
    assert "QDQToCopy, line 220" in head12.message
    lines = build(YOLO).lines
    assert "to kQDQ" in lines[head12.evidence.lines[0] - 1]


@needs_corpus
def test_the_qat_resnet18_has_only_its_input_quantizer_left() -> None:
    """A well-placed Q/DQ ResNet18: every convolution fused its Q/DQ, residual adds in INT8."""
    found = [f for f in lint(QAT_RESNET) if f.rule in QDQ_RULES]
    assert [(f.rule, f.subject, f.severity) for f in found] == [
        ("qdq-unfused-quantizer", "QuantizeLinear_2", "info")
    ]
    f = found[0]
    assert "network input inputs.1 (FP32→INT8)" in f.message
    assert f.time_ms == pytest.approx(0.0115)  # from the log's --dumpProfile table
    assert set(f.evidence.lines) >= {2813, 6502, 6546}


# -- qdq-int8-float-output ---------------------------------------------------------------------


def test_int8_convolution_writing_float_in_the_tinynet_build() -> None:
    (f,) = of(_tiny(), "qdq-int8-float-output")
    assert f.subject.endswith("/stem/conv/Conv + /stem/act/Relu")
    assert "reads INT8 but writes FP16" in f.message
    assert "an Add reads it as its residual input without Q/DQ" in f.message
    assert f.evidence.layers == (1, 2, 6, 7)
    # the add in between and the two quantizers after it
    assert f.time_ms == pytest.approx(0.0124 + 0.0217 + 0.0091)


def test_float_output_causes_in_the_pattern_build() -> None:
    found = of(lint(PATTERNS, PATTERNS_PROFILE), "qdq-int8-float-output")
    causes = {f.subject.split(" + ")[-1]: f.message.split(": ", 1)[1] for f in found}
    assert set(causes) == {"/stem/act/Relu", "/layer3/conv/Conv"}
    assert causes["/stem/act/Relu"].startswith("the tensor is also a network output")
    assert causes["/layer3/conv/Conv"].startswith(
        "a normalization sits in between: /layer3/bn/BatchNormalization (Scale)"
    )
    # the final GEMM writes the float network output "logits" by design: nothing to report
    assert not any("/head/fc/MatMul" in f.subject for f in found)


# -- qdq-residual-unquantized ----------------------------------------------------------------


def test_residual_add_with_an_unquantized_skip_input() -> None:
    (f,) = of(_tiny(), "qdq-residual-unquantized")
    assert f.subject == "PWN(/stage1/Add, /stage1/act/Relu)"
    assert "runs as its own FP16 layer" in f.message
    assert "dequantized by /stage1/add_quantizer/DequantizeLinear" in f.message
    assert "skip input /stem/act/Relu_output_0" in f.message
    assert f.evidence.layers == (1, 4, 5, 6)
    assert "quantize the Add's skip input" in f.mitigation


def test_residual_adds_fused_in_int8_are_not_reported() -> None:
    """ResNet18 v1-7 built with --int8: the adds are fused into convolutions (INT8 in and out)."""
    assert not of(lint(RESNET_DETAILED), "qdq-residual-unquantized")


# -- qdq-blocked-fusion ----------------------------------------------------------------------


def test_blocking_ops_in_the_pattern_build() -> None:
    found = of(lint(PATTERNS, PATTERNS_PROFILE), "qdq-blocked-fusion")
    assert [f.subject for f in found] == [
        "/layer2/Pad",
        "/layer3/bn/BatchNormalization",
        "/head/Transpose + /head/Reshape",
    ]
    pad, bn, transpose = found
    assert "a Pad (/layer2/Pad) sits between the DQ /layer2/pad_quantizer/DequantizeLinear" in (
        pad.message
    )
    assert "the convolution runs in FP16 instead of INT8" in pad.why
    assert pad.evidence.layers == (4, 5, 6)
    assert "separates" in bn.message and "from its activation PWN(/layer3/act/Relu)" in bn.message
    assert bn.time_ms == pytest.approx(0.0152 + 0.0149)
    assert "into the GEMM" in transpose.message
    assert "quantized again for the GEMM" in transpose.why


@needs_corpus
def test_quantized_convolution_outputs_keep_the_lidar_adds_apart() -> None:
    """The lidar model quantizes each residual block's conv2 output as well as its skip input.

    TensorRT (Myelin) then runs every add as its own kernel (`__myl_CastMulCastMulAddRelu...`)
    after an INT8 convolution: the extra Q/DQ pair keeps the add out of the convolution.
    """
    found = lint(LIDAR, LIDAR_PROFILE)
    blocked = of(found, "qdq-blocked-fusion")
    assert len(blocked) == 16
    assert all(f.subject.startswith("__myl_CastMulCastMulAdd") for f in blocked)
    first = blocked[0]
    assert "/img_backbone/layer1/layer1_0/conv2/Conv_myl2_17" in first.message
    assert "/img_backbone/layer1/layer1.0/conv2/Conv_output_0_DequantizeLinear" in first.message
    assert first.evidence.layers == (19, 20)
    assert first.time_ms == pytest.approx(0.2057, abs=1e-4)
    assert math.fsum(f.time_ms or 0 for f in blocked) == pytest.approx(1.3913, abs=1e-3)
    # its input quantizer runs on its own at the network input; nothing else is reported
    assert counts(f for f in found if f.rule in QDQ_RULES) == {
        "qdq-blocked-fusion:warning": 16,
        "qdq-unfused-quantizer:info": 1,
    }


# -- qdq-missing-scale -----------------------------------------------------------------------


def test_missing_scales_are_aggregated() -> None:
    (f,) = of(lint(PATTERNS_FAILED), "qdq-missing-scale")
    assert f.subject == "/layer4/up/Resize_output_0, /neck/Concat_output_0"
    assert f.evidence.lines == (43, 44, 45)
    assert f.evidence.names == ("/layer4/up/Resize_output_0", "/neck/Concat_output_0")


def test_missing_scale_from_a_single_line() -> None:
    b = trtlog.parse_text(
        "[W] [TRT] Missing scale and zero-point for tensor x, expect fall back to non-int8 "
        "implementation for any layer consuming or producing given tensor\n"
    )
    (f,) = trtlog.lint(b)
    assert (f.rule, f.subject, f.evidence.lines) == ("qdq-missing-scale", "x", (1,))


# -- with a reference ---------------------------------------------------------------------------


def test_split_fusion_against_the_fp16_reference() -> None:
    (f,) = of(_tiny(), "qdq-split-fusion")
    assert f.subject == "/stage1/cv2/conv/Conv + /stage1/Add + /stage1/act/Relu"
    assert "as 2 layers plus 1 Q/DQ layer" in f.message
    assert "/stage1/add_quantizer/QuantizeLinear" in f.message
    assert f.evidence.layers == (4, 5, 6)
    assert f.evidence.reference_layers == (3,)
    # the two pieces and the DQ between them against the fused FP16 layer
    assert f.time_ms == pytest.approx(0.0718 - 0.0684)
    assert "take 0.0718 ms against 0.0684 ms for the fused layer (+0.0034 ms)" in f.why


def test_split_fusion_needs_a_reference() -> None:
    assert not of(lint(TINY_INT8), "qdq-split-fusion")


def _scaled(profile: Path, factor: float) -> Profile:
    records = tuple(
        ProfileRecord(
            name=r.name,
            time_ms=r.time_ms * factor,
            average_ms=r.average_ms * factor,
            median_ms=r.median_ms,
            percentage=r.percentage,
        )
        for r in trtlog.load_profile(profile).records
    )
    return Profile(source="scaled", runs=(ProfileRun(records=records),))


def test_int8_slower_than_reference() -> None:
    slow = _scaled(TINY_INT8_PROFILE, 1.4)
    found = trtlog.lint(
        build(TINY_INT8),
        reference=build(TINY_FP16),
        profile=slow,
        reference_profile=TINY_FP16_PROFILE,
        rules=["int8-slower-than-reference"],
    )
    (f,) = found
    assert f.subject == "engine time"
    assert "0.2887 ms per inference against 0.2416 ms" in f.message
    assert "+19.5%" in f.message
    assert "PWN(/stage1/Add, /stage1/act/Relu)" in f.why
    assert f.time_ms == pytest.approx(0.2887 - 0.2416, abs=1e-3)


def test_a_faster_int8_build_is_not_slower_than_its_reference() -> None:
    """The hand-made INT8 profile is faster than the FP16 one (0.206 ms against 0.242 ms)."""
    assert not of(_tiny(), "int8-slower-than-reference")


def test_reference_rules_need_both_profiles_for_times() -> None:
    found = lint(TINY_INT8, reference=TINY_FP16)
    assert of(found, "qdq-split-fusion")
    assert not of(found, "int8-slower-than-reference")


# -- guards: no Q/DQ rule on a build without Q/DQ nodes -------------------------------------


@pytest.mark.parametrize("path", [TINY_FP16, BERT_DETAILED, BERT_NAMES, RESNET_DETAILED])
def test_no_qdq_rule_on_fixture_builds_without_qdq(path: Path) -> None:
    assert not [f for f in lint(path) if f.rule in QDQ_RULES]


@needs_corpus
@pytest.mark.parametrize("name", sorted(NO_QDQ))
def test_no_qdq_rule_on_corpus_builds_without_qdq(name: str) -> None:
    profile = NO_QDQ[name]
    found = lint(CORPUS / name, CORPUS / profile if profile else None)
    assert not [f for f in found if f.rule in QDQ_RULES]


def test_bert_seed_is_explained_not_flagged() -> None:
    """The BERT engine 'split into 89 layers' is one Myelin region: no missing-fusion rule."""
    found = lint(BERT_DETAILED)
    assert [f.rule for f in found if f.rule in MISSING_FUSION] == []
    assert of(found, "myelin-subkernels")


def test_quantizers_of_a_names_only_engine(tmp_path: Path) -> None:
    """Names alone: 8.0-8.2 scale nodes and clones count; the first layer is the input's Q."""
    names = [
        "QuantizeLinear_2_quantize_scale_node",
        "conv1.weight + QuantizeLinear_7 + Conv_9 + Relu_11",
        "/layer1/QuantizeLinear_clone_1",
        "layer1.weight + QuantizeLinear_20 + Conv_22",
    ]
    path = tmp_path / "names.json"
    path.write_text(json.dumps({"Layers": names, "Bindings": ["input", "output"]}))
    found = trtlog.lint(path)
    assert [(f.rule, f.subject, f.severity) for f in found] == [
        ("qdq-unfused-quantizer", "QuantizeLinear_2_quantize_scale_node", "info"),
        ("qdq-unfused-quantizer", "/layer1/QuantizeLinear_clone_1", "warning"),
    ]
    assert found[1].message == "the Q /layer1/QuantizeLinear_clone_1 runs as its own engine layer"
