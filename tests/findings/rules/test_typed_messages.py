"""The message rules read typed events: each message is an event, and the rule fires on it.

One real line per message (from the fragments, formats.md or the public threads the
fragments cite), with its envelope and, where a paste drops it, without.
"""

from __future__ import annotations

import pytest

import trtlog
from trtlog.events import (
    DlaSubgraphLimit,
    EventBase,
    Int8Fallback,
    StrictTypeViolation,
    Unrecognized,
    WeightsFp16Issues,
)

CASES = [
    (
        "int8-disabled-by-integration",
        "WARNING: ../nvdsinfer/nvdsinfer_model_builder.cpp:1208 INT8 calibration file not "
        "specified. Trying FP16 mode.\n",
        Int8Fallback,
    ),
    (
        "int8-disabled-by-integration",
        "INT8 not supported by platform. Trying FP16 mode.\n",
        Int8Fallback,
    ),
    (
        "int8-disabled-by-integration",
        "[TRT]    requested fasted precision for device GPU without providing valid calibrator, "
        "disabling INT8\n",
        Int8Fallback,
    ),
    (
        "fp16-weights-converted",
        "[09/19/2022-11:36:04] [TRT] [W] Weights [name=Conv_7.weight] had the following issues "
        "when converted to FP16:\n[09/19/2022-11:36:04] [TRT] [W]  - Subnormal FP16 values "
        "detected. \n",
        WeightsFp16Issues,
    ),
    (
        "precision-fallback",
        "[TensorRT] WARNING: No implementation of layer Conv_70 + Relu_71 obeys the requested "
        "constraints in strict mode. No conforming implementation was found i.e. requested layer "
        "computation precision and output precision types are ignored, using the fastest "
        "implementation.\n",
        StrictTypeViolation,
    ),
    (
        "dla-fallback",
        "[06/03/2024-09:41:03] [W] [TRT] DLA supports only 16 subgraphs per DLA core. Switching "
        "to GPU for layer /head/cls/Conv\n",
        DlaSubgraphLimit,
    ),
]


@pytest.mark.parametrize(
    ("rule", "text", "cls"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_the_message_is_an_event_and_the_rule_reads_it(
    rule: str, text: str, cls: type[EventBase]
) -> None:
    build = trtlog.parse_text(text)
    events: list[EventBase] = build.of(cls)
    assert events and not build.of(Unrecognized)
    found = [f for f in trtlog.lint(build) if f.rule == rule]
    assert found
    assert events[0].span[0] in found[0].evidence.lines


def test_strict_mode_names_each_layer_once_and_counts_the_lines() -> None:
    line = CASES[4][1]
    other = line.replace("Conv_70 + Relu_71", "Conv_72")
    build = trtlog.parse_text(line * 2 + other)
    (f,) = [x for x in trtlog.lint(build) if x.rule == "precision-fallback"]
    assert f.evidence.names == ("Conv_70 + Relu_71", "Conv_72")
    assert f.evidence.matched == 3


def test_the_weights_block_holds_its_issue_and_advice_lines() -> None:
    text = (
        "[W] [TRT] Weights [name=Conv_616 + PWN(PWN(Sigmoid_617), Mul_618).weight] had the "
        "following issues when converted to FP16:\n"
        "[W] [TRT]  - Subnormal FP16 values detected. \n"
        "[W] [TRT] If this is not the desired behavior, please modify the weights or retrain with "
        "regularization to reduce the magnitude of the weights.\n"
    )
    (e,) = trtlog.parse_text(text).of(WeightsFp16Issues)
    assert e.span == (1, 3) and e.advice
    assert e.issues == ("Subnormal FP16 values detected.",)
    (f,) = [x for x in trtlog.lint(trtlog.parse_text(text)) if x.rule == "fp16-weights-converted"]
    assert f.subject == "Conv_616 + PWN(PWN(Sigmoid_617), Mul_618)"


def test_hardware_compatible_engines_may_move() -> None:
    warning = (
        "[W] [TRT] Using an engine plan file across different models of devices is not "
        "recommended and is likely to affect performance or even cause errors.\n"
    )
    assert [f.rule for f in trtlog.lint(trtlog.parse_text(warning))] == ["engine-from-other-device"]
    moved = (
        "&&&& RUNNING TensorRT.trtexec [TensorRT v100900] # trtexec --onnx=m.onnx "
        "--hardwareCompatibilityLevel=ampere+\n" + warning
    )
    assert "engine-from-other-device" not in [f.rule for f in trtlog.lint(trtlog.parse_text(moved))]
