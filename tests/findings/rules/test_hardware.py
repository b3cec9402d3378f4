"""The hardware rules on real corpus input: FP32 on tensor cores, quantization the GPU lacks,
channel counts that tensor cores do not take whole.

Every figure a finding shows (the compute capability, the misaligned channel counts, the
number of error lines) is read again from the raw text or JSON in the test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus
from trtlog.findings import Finding

FP32_BUILD = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build.log"
FP32_DUMP = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log"
FP32_PASCAL = CORPUS / "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log"
FP32_LOADED = CORPUS / "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log"
FP32_PLUGIN = CORPUS / "trt8.5.10_identity-custom-plugin_build-verbose.log"
FP32_FAILED = CORPUS / "trt10.16.0_cookbook-addscalar-plugin_build-FAILED.log"
FP16_BUILD = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log"
MOBILENET_INT8 = CORPUS / "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json"
RESNET_FP16 = CORPUS / "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json"


def _rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


def _raw_cc(path: Path) -> str:
    m = re.search(r"Compute Capability: (\d+\.\d+)", path.read_text(encoding="utf-8"))
    assert m is not None
    return m.group(1)


# -- fp32-on-tensor-core-gpu ------------------------------------------------------------------


@needs_corpus
def test_fp32_build_on_hopper_with_its_layers() -> None:
    """10.16.1 --dumpLayerInfo FP32 build on an H100: a warning naming the convolutions/GEMMs."""
    build = trtlog.parse(FP32_DUMP)
    (f,) = _rule(trtlog.lint(build), "fp32-on-tensor-core-gpu")
    text = FP32_DUMP.read_text(encoding="utf-8")
    assert f.severity == "warning"
    assert f"compute capability {_raw_cc(FP32_DUMP)}" in f.message
    # the evidence quotes the raw Precision and Compute Capability lines
    quoted = [build.lines_text(n) for n in f.evidence.lines]
    assert any(re.search(r"Precision: FP32\s*$", q) for q in quoted)
    assert any("Compute Capability:" in q for q in quoted)
    assert re.search(r"Precision: FP32\s*$", text, re.MULTILINE)
    # every layer it names is a convolution or GEMM of the layer dump
    assert f.evidence.layers and "--fp16" in f.mitigation
    # 10.16 is past the weak-typing deprecation: the lasting fix is a strongly typed model
    assert "--stronglyTyped" in f.mitigation


@needs_corpus
def test_fp32_build_without_layers_is_info() -> None:
    """Non-verbose 10.16.1 FP32 build: no layer list, so an info that says so."""
    (f,) = _rule(trtlog.lint(FP32_BUILD), "fp32-on-tensor-core-gpu")
    assert f.severity == "info"
    assert "does not list its layers" in f.message
    assert f"compute capability {_raw_cc(FP32_BUILD)}" in f.message


@needs_corpus
@pytest.mark.parametrize(
    "path",
    [FP32_PASCAL, FP32_LOADED, FP32_PLUGIN, FP32_FAILED, FP16_BUILD],
    ids=["pascal-6.1", "load-engine", "plugin-only", "failed", "fp16"],
)
def test_fp32_rule_stays_quiet(path: Path) -> None:
    """A GPU without tensor cores, a loaded engine, no conv/GEMM, a failed build, an FP16 build."""
    assert not _rule(trtlog.lint(path), "fp32-on-tensor-core-gpu")


@needs_corpus
def test_pascal_is_below_tensor_cores_in_the_raw_text() -> None:
    """The quiet case above is quiet for the reason the rule gives: 6.1 < 7.0."""
    assert _raw_cc(FP32_PASCAL) == "6.1"
    assert "Load engine: ./model-FP32.plan" in FP32_LOADED.read_text(encoding="utf-8")


def test_fp32_rule_fix_names_the_versions_when_unknown() -> None:
    """Without a version line, the fix says which versions --fp16 is for."""
    b = trtlog.parse_text(
        "[I] Precision: FP32\n[I] === Device Information ===\n[I] Compute Capability: 8.6\n"
    )
    (f,) = _rule(trtlog.lint(b), "fp32-on-tensor-core-gpu")
    assert "TensorRT 5-10" in f.mitigation and "TensorRT 11" in f.mitigation


def test_fp32_rule_strongly_typed_is_left_to_strongly_typed_fp32() -> None:
    b = trtlog.parse_text(
        "[I] Precision: Strongly Typed\n[I] === Device Information ===\n"
        "[I] Compute Capability: 9.0\n"
    )
    assert not _rule(trtlog.lint(b), "fp32-on-tensor-core-gpu")


# -- quantization-unsupported-gpu -----------------------------------------------------------

FP8_A6000 = (
    "[09/11/2024-21:49:27] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API "
    "Usage Error (Networks with FP8 Q/DQ layers require hardware with FP8 support.)\n"
)
INT8_P100 = (
    "[07/25/2023-10:00:00] [E] Error[9]: [standardEngineBuilder.cpp::buildEngine::2072] Error "
    "Code 9: Internal Error (Networks with QuantizeLayer/DequantizeLayer layers require hardware "
    "with Int8 support.)\n"
)
FP8_TRTLLM = (
    "[04/09/2024-16:26:41] [TRT] [E] 9: [standardEngineBuilder.cpp::buildEngine::2266] Error "
    "Code 9: Internal Error (Networks with FP8 precision require hardware with FP8 support.)\n"
)


@pytest.mark.parametrize(
    ("text", "kind", "cc"),
    [(FP8_A6000, "FP8", "8.9"), (INT8_P100, "INT8", "6.1"), (FP8_TRTLLM, "FP8", "8.9")],
    ids=["fp8-trtexec-10.3", "int8-p100-8.6", "fp8-trtllm"],
)
def test_quantization_refused_by_the_gpu(text: str, kind: str, cc: str) -> None:
    """The error lines of NVIDIA/Model-Optimizer#70, TensorRT#3157, TensorRT-LLM#1428."""
    b = trtlog.parse_text(text * 3)
    (f,) = _rule(trtlog.lint(b), "quantization-unsupported-gpu")
    assert f.severity == "error" and f.subject == kind
    assert f"compute capability {cc}+" in f.message
    assert f.evidence.lines == (1, 2, 3)
    assert f.evidence.matched == len(re.findall("require hardware with", b.text))


def test_quantization_rule_names_the_device_when_printed() -> None:
    b = trtlog.parse_text(
        "[I] === Device Information ===\n[I] Compute Capability: 8.6\n" + FP8_A6000
    )
    (f,) = _rule(trtlog.lint(b), "quantization-unsupported-gpu")
    assert "this GPU (compute capability 8.6) has no FP8 support" in f.message


@needs_corpus
def test_quantization_rule_quiet_on_other_errors() -> None:
    """The corpus's failed builds hold other errors: none is read as a hardware refusal."""
    for path in CORPUS.glob("*FAILED*.log"):
        assert not _rule(trtlog.lint(path), "quantization-unsupported-gpu"), path.name


# -- channels-misaligned --------------------------------------------------------------------


def _raw_layers(path: Path) -> dict[str, dict[str, object]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    layers = data["Layers"] if isinstance(data, dict) else data
    return {str(x["Name"]): x for x in layers if isinstance(x, dict)}


@needs_corpus
def test_mobilenet_int8_channels_against_the_raw_json() -> None:
    """TREx's MobileNet QAT engine: 24-channel INT8 convolutions (24 is no multiple of 16)."""
    (f,) = _rule(trtlog.lint(MOBILENET_INT8), "channels-misaligned")
    raw = _raw_layers(MOBILENET_INT8)
    named = re.findall(r"([CK])=(\d+) in INT8", f.message)
    assert named and all(int(v) % 16 for _axis, v in named)
    assert f.subject == f"{len(f.evidence.layers)} layers"
    for name in f.evidence.names:
        layer = raw[name]
        inputs = layer["Inputs"]
        outputs = layer["Outputs"]
        assert isinstance(inputs, list) and isinstance(outputs, list)
        c = inputs[0]["Dimensions"][1]
        k = outputs[0]["Dimensions"][1]
        assert (c > 16 and c % 16) or (k > 16 and k % 16), (name, c, k)
        assert "Int8" in str(inputs[0]["Format/Datatype"])


@needs_corpus
def test_resnet_fp16_is_aligned_but_for_the_stem() -> None:
    """TREx's FP16 ResNet: every width a multiple of 8 except the RGB stem's 3 (exempt)."""
    raw = _raw_layers(RESNET_FP16)
    odd = [
        n
        for n, x in raw.items()
        if x.get("LayerType") == "CaskConvolution"
        and isinstance(x.get("Inputs"), list)
        and x["Inputs"][0]["Dimensions"][1] % 8  # type: ignore[index]
    ]
    assert odd and all(raw[n]["Inputs"][0]["Dimensions"][1] == 3 for n in odd)  # type: ignore[index]
    assert not _rule(trtlog.lint(RESNET_FP16), "channels-misaligned")


def test_classifier_head_is_left_alone() -> None:
    """1000 output classes: no convolution or GEMM reads them, the task sets the width."""
    rec = (
        "Name: /fc/Gemm, LayerType: CaskGemmConvolution, Inputs: [ { Name: pool_out, Location: "
        "Device, Dimensions: [1,512,1,1], Format/Datatype: Channel major FP16 format where "
        "channel % 8 == 0 }], Outputs: [ { Name: logits, Location: Device, Dimensions: "
        "[1,1000,1,1], Format/Datatype: Channel major FP16 format where channel % 8 == 0 }], "
        "ParameterType: Convolution, Kernel: [1,1], OutMaps: 1000, Groups: 1, TacticValue: "
        "0x1, StreamId: 0, Metadata: [ONNX Layer: /fc/Gemm]\n"
    )
    assert not _rule(trtlog.lint(trtlog.parse_text(rec)), "channels-misaligned")
