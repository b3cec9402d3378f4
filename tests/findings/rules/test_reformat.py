"""Reformat rules: every ``Reformatting CopyNode`` classified (binding, dtype, layout)."""

from __future__ import annotations

import pytest

import trtlog
from tests.conftest import needs_corpus
from tests.findings.inputs import (
    BERT_DETAILED,
    BERT_NAMES,
    BEV,
    BEV_PROFILE,
    CENTERPOINT,
    CONTROLNET,
    CONTROLNET_PROFILE,
    MNIST_FP16_80,
    RESNET_DETAILED,
    RESNET_NAMES,
    TINY_FP16,
    TINY_FP16_PROFILE,
    TINY_INT8,
    TSA,
    engine,
    lint,
    of,
)
from trtlog.findings.context import LintContext
from trtlog.findings.rules.reformat import is_copy_node, reformats

REFORMAT_RULES = ("reformat-io-boundary", "reformat-dtype", "reformat-layout")


def test_binding_reformats_of_the_fp16_tinynet() -> None:
    found = of(lint(TINY_FP16, TINY_FP16_PROFILE), "reformat-io-boundary")
    assert [(f.subject, f.severity) for f in found] == [
        (
            "images (Reformatting CopyNode for Input Tensor 0 to /stem/conv/Conv + /stem/act/Relu)",
            "warning",
        ),
        ("probs (Reformatting CopyNode for Output Tensor 0 to /head/Softmax)", "info"),
    ]
    first, last = found
    # 0.0102 ms of 0.2416 ms: 4.2%, over the 2% that raises it to a warning
    assert "4.2% of the engine's layer time" in first.why
    assert "--inputIOFormats=fp16:hwc8" in first.mitigation
    assert "network output probs from FP16/linear to FP32/linear" in last.message
    assert "--outputIOFormats=fp16:chw" in last.mitigation


def test_quantizers_are_not_reformats() -> None:
    """The Q/DQ reformats of the INT8 tinynet belong to qdq-unfused-quantizer."""
    found = lint(TINY_INT8)
    assert [f.subject for f in found if f.rule in REFORMAT_RULES] == [
        "probs (Reformatting CopyNode for Output Tensor 0 to /head/Softmax)"
    ]


def test_names_only_engines_are_not_classified() -> None:
    assert not [f for f in lint(RESNET_NAMES) if f.rule in REFORMAT_RULES]


def test_bert_output_reformat_without_printed_layouts() -> None:
    (f,) = [f for f in lint(BERT_DETAILED) if f.rule in REFORMAT_RULES]
    assert f.rule == "reformat-io-boundary"
    assert "network output score from FP16 to FP32" in f.message
    assert "the layout is not printed" in f.mitigation
    assert [f.rule for f in lint(BERT_NAMES) if f.rule in REFORMAT_RULES] == [
        "reformat-io-boundary"
    ]


def test_copy_nodes_exclude_casts_and_slice_copies() -> None:
    from trtlog.engine.model import EngineLayer

    assert is_copy_node(
        EngineLayer(index=0, name="x", type="Reformat", parameters={"Origin": "REFORMAT"})
    )
    assert not is_copy_node(
        EngineLayer(index=0, name="q", type="Reformat", parameters={"Origin": "QDQ"})
    )
    assert not is_copy_node(
        EngineLayer(index=0, name="a_copy_input", type="Reformat", parameters={"Origin": "SLICE"})
    )


@needs_corpus
def test_centerpoint_outputs_are_grouped() -> None:
    """CenterPoint (8.2.3, FP16, --inputIOFormats/--outputIOFormats fp16:chw): 36 heads in hwc8."""
    found = of(lint(CENTERPOINT), "reformat-io-boundary")
    assert [(f.subject, f.severity) for f in found] == [
        ("input (Reformatting CopyNode for Input Tensor 0 to Conv_15 + Relu_16)", "info"),
        ("36 network outputs", "warning"),
    ]
    outputs = found[1]
    assert "36 reformats convert network outputs (reg_0, height_0, dim_0, rot_0, vel_0 and 31 " in (
        outputs.message
    )
    assert "from FP16/hwc8 to FP16/linear" in outputs.message
    assert outputs.time_ms == pytest.approx(0.2648, abs=1e-4)  # the log's --dumpProfile table
    assert "--outputIOFormats=fp16:hwc8" in outputs.mitigation
    assert len(outputs.evidence.layers) == 36
    # "Adding reformat layer: ..." lines are evidence too
    assert 15830 in found[0].evidence.lines


@needs_corpus
def test_layout_reformats_with_compact_formats_only() -> None:
    """8.0.3 prints no layout in its layer listing: the autotuner's formats say what changed."""
    found = of(lint(MNIST_FP16_80), "reformat-layout")
    assert len(found) == 2
    assert "converts Float(6272,196,14,1) to Float(6272,1,448,32) between MaxPool2d and " in (
        found[0].message
    )
    assert found[0].evidence.lines[0] == 965


@needs_corpus
def test_controlnet_layouts_grouped_and_casts_left_out() -> None:
    found = lint(CONTROLNET, CONTROLNET_PROFILE)
    layout = of(found, "reformat-layout")
    assert [(f.subject, f.severity) for f in layout] == [
        ("26 reformats FP16/hwc8→FP16/linear", "warning"),
        ("15 reformats FP16/linear→FP16/hwc8", "info"),
    ]
    assert "3.1% of the engine's layer time" in layout[0].why
    dtype = of(found, "reformat-dtype")
    assert len(dtype) == 3
    # the model's own Casts (MyelinReformat layers) and slice copies are not reformats
    assert not any("Cast" in f.subject or "copy_input" in f.subject for f in found)
    assert [f.subject for f in of(found, "reformat-io-boundary")][-1] == "13 network outputs"


@needs_corpus
def test_implicit_int8_precision_boundaries() -> None:
    """The BEV model runs some layers in INT8 (calibrated, no Q/DQ): dtype reformats are info."""
    found = of(lint(BEV, BEV_PROFILE), "reformat-dtype")
    assert len(found) == 6
    assert {f.severity for f in found} == {"info"}
    plugin = next(f for f in found if "PillarScatterPlugin_TRT_1" in f.subject)
    assert "converts INT8→FP16" in plugin.message
    assert "plugins and layers without an INT8 kernel stay in float" in plugin.why


@needs_corpus
def test_costly_dtype_reformats_are_warnings() -> None:
    found = of(lint(TSA), "reformat-dtype")
    assert [f.severity for f in found] == ["warning", "warning"]
    assert found[0].evidence.lines[0] == 18271  # Adding reformat layer ...


def test_reformats_are_classified_once_per_lint_run() -> None:
    eng = engine(RESNET_DETAILED)
    ctx = LintContext(None, eng)
    assert reformats(ctx) is reformats(ctx)
    assert [r.kind for r in reformats(ctx)] == ["io"]
    assert trtlog.lint(eng, rules=["reformat-io-boundary"])[0].subject.startswith(
        "data (Reformatting CopyNode for Input Tensor 0 to resnetv15_conv0_fwd"
    )
