"""Structural alignment: exports whose ONNX nodes are numbered differently still pair up.

TREx's ResNet exports (FP16 and three QAT builds of one torchvision ResNet) and a MobileNetV2
pair (a TensorRT 10.4 FP16 build of a torch export against TREx's 8.x QAT MobileNet) name
their nodes differently (``Conv_0`` in one, ``conv1.weight + QuantizeLinear_7 + Conv_9`` in
the other). The counts checked here are read from the raw JSON with a regex.
"""

from __future__ import annotations

import json
import re
import warnings

import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus
from trtlog.diff import Comparison, compare_engines
from trtlog.engine.model import Engine, EngineLayer
from trtlog.tensors import Tensor

RESNET = "trt8.x_resnet-pytorch-{}-a100-trex_layers-detailed.json"
MOBILENET_FP16 = "trt10.4_mobilenetv2-fp16-rtx3060_layers-detailed.json"
MOBILENET_QAT = "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json"

_CONV_TYPE = re.compile(r"\w*Conv\w*")


def _compare(a: str, b: str) -> Comparison:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        return trtlog.compare(CORPUS / a, CORPUS / b)


def _raw_convs(name: str) -> list[int]:
    """Indexes of the layers whose raw ``LayerType`` names a convolution."""
    layers = json.loads((CORPUS / name).read_text())["Layers"]
    return [k for k, layer in enumerate(layers) if _CONV_TYPE.match(layer["LayerType"])]


def _pairs(cmp: Comparison) -> dict[int, int]:
    return {
        s.index_a: s.index_b for s in cmp.steps if s.index_a is not None and s.index_b is not None
    }


@needs_corpus
@pytest.mark.parametrize("qat", ["qat-int8", "qat-residual-int8", "qat-residual-qgap-int8"])
def test_every_resnet_convolution_pairs_with_a_convolution(qat: str) -> None:
    a, b = RESNET.format("fp16"), RESNET.format(qat)
    convs_a, convs_b = _raw_convs(a), _raw_convs(b)
    assert len(convs_a) == len(convs_b) == 21  # 20 convolutions and the FC, on both sides
    cmp = _compare(a, b)
    pairs = _pairs(cmp)
    assert sorted(pairs[i] for i in convs_a) == convs_b  # one to one
    for s in cmp.steps:
        if s.index_a in convs_a:
            assert s.match in ("structure", "shape"), s  # no node name is shared
            assert s.confidence is not None and 0 < s.confidence <= 1


@needs_corpus
def test_resnet_pairs_show_precision_kernel_time_and_the_residual_fusion() -> None:
    """FP16 fuses each residual Add into the downsample convolution, the QAT-residual
    build into the block's second convolution: the pairs say so in both directions."""
    a, b = RESNET.format("fp16"), RESNET.format("qat-residual-int8")
    raw_a = json.loads((CORPUS / a).read_text())["Layers"]
    raw_b = json.loads((CORPUS / b).read_text())["Layers"]
    cmp = _compare(a, b)
    by_a = {s.index_a: s for s in cmp.steps if s.index_b is not None}
    # Conv_16 + Add_17 + Relu_18 (1x1 downsample) ↔ layer2.0.downsample (1x1, no Add)
    down = next(i for i, x in enumerate(raw_a) if x["Name"].startswith("Conv_16 + Add_17"))
    step = by_a[down]
    other = raw_b[step.index_b]
    assert other["Name"].startswith("layer2.0.downsample.0.weight")
    assert raw_a[down]["Kernel"] == other["Kernel"] == [1, 1]
    assert "fusion Conv+Add+Relu→Conv" in step.reasons
    assert "precision FP16→INT8" in step.reasons
    assert "tactic" in step.reasons
    # Conv_15 (3x3, no Add) ↔ layer2.0.conv2 + Add_115 + Relu_116
    conv2 = next(i for i, x in enumerate(raw_a) if x["Name"] == "Conv_15")
    assert raw_b[by_a[conv2].index_b]["Name"].startswith("layer2.0.conv2.weight")
    assert "fusion Conv→Conv+Add+Relu" in by_a[conv2].reasons
    # the per-pair view: kernel and time of each side (the profile is not merged: no time)
    assert step.index_b is not None
    va, vb = cmp.layers_a[down], cmp.layers_b[step.index_b]
    assert va.tactic_name == raw_a[down]["TacticName"]
    assert vb.tactic_name == raw_b[step.index_b]["TacticName"]
    frame = cmp.frame()
    row = frame[frame["step"] == step.number].iloc[0]
    assert row["match"] == step.match and row["confidence"] == step.confidence


@needs_corpus
def test_resnet_pair_with_profiles_shows_the_times_of_each_pair() -> None:
    a, b = RESNET.format("fp16"), RESNET.format("qat-int8")
    profile_a = CORPUS / a.replace("layers-detailed", "profile")
    profile_b = CORPUS / b.replace("layers-detailed", "profile")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        cmp = trtlog.compare(CORPUS / a, CORPUS / b, profile_a=profile_a, profile_b=profile_b)
    raw = {r["name"]: r["averageMs"] for r in json.loads(profile_b.read_text()) if "name" in r}
    convs = _raw_convs(a)
    for s in cmp.steps:
        if s.index_a in convs:
            vb = cmp.layers_b[s.index_b]  # type: ignore[index]
            assert vb.time_ms == raw[vb.name]


@needs_corpus
def test_unmatched_layers_say_why() -> None:
    cmp = _compare(RESNET.format("fp16"), RESNET.format("qat-residual-int8"))
    whys = {cmp.layers_a[s.index_a or 0].name: s.why for s in cmp.steps if s.marker == "-"}
    assert whys["MaxPool_2"] == (
        "fused into B[1] conv1.weight + QuantizeLinear_7 + Conv_9 + MaxPool_12"
    )
    for s in cmp.steps:
        assert (s.why is not None) == (s.marker in "-+")
        assert (s.match is not None) == (s.marker in "=~")


@needs_corpus
def test_renumbered_mobilenets_pair_like_trex_or_better() -> None:
    """TREx's structural matching pairs 57 of its MobileNet pair's layers; here the FP16
    build has 57 layers, 52 of them convolutions, and all but its two Myelin-side layers
    find a counterpart."""
    cmp = _compare(MOBILENET_FP16, MOBILENET_QAT)
    convs_a = _raw_convs(MOBILENET_FP16)
    assert len(convs_a) == 52
    pairs = _pairs(cmp)
    assert all(i in pairs for i in convs_a)
    assert cmp.markers()["="] + cmp.markers()["~"] >= 55
    assert not cmp.alignment_failed


def _layer(index: int, name: str, kind: str, ins: list[str], out: str) -> EngineLayer:
    tensor = Tensor(name=out, dims=(1, 8, 4, 4), dtype="FP16")
    return EngineLayer(
        index=index,
        name=name,
        type=kind,
        inputs=tuple(Tensor(name=n, dims=(1, 8, 4, 4)) for n in ins),
        outputs=(tensor,),
        onnx_nodes=tuple(name.split(" + ")),
        onnx_source="name",
    )


def _engine(*layers: EngineLayer) -> Engine:
    return Engine(source="x", origin="layer_json", detailed=True, layers=layers)


def test_structure_pairs_layers_that_share_no_name() -> None:
    a = _engine(
        _layer(0, "Conv_0", "CaskConvolution", ["in"], "t0"),
        _layer(1, "Relu_1", "PointWiseV2", ["t0"], "t1"),
        _layer(2, "Conv_2", "CaskConvolution", ["t1"], "t2"),
    )
    b = _engine(
        _layer(0, "QuantizeLinear_3", "Reformat", ["in"], "q"),
        _layer(1, "Conv_9", "CaskConvolution", ["q"], "u0"),
        _layer(2, "Relu_10", "PointWiseV2", ["u0"], "u1"),
        _layer(3, "Conv_12", "CaskConvolution", ["u1"], "u2"),
    )
    cmp = compare_engines(a, b)
    assert [(s.index_a, s.index_b, s.match) for s in cmp.steps if s.marker != "+"] == [
        (0, 1, "structure"),
        (1, 2, "structure"),
        (2, 3, "structure"),
    ]
    assert [s.why for s in cmp.steps if s.marker == "+"] == [
        "a Q/DQ layer: A quantizes no tensor here"
    ]


def test_names_decide_before_structure() -> None:
    """A layer its name places is never taken by a structural candidate."""
    a = _engine(
        _layer(0, "Conv_0", "CaskConvolution", ["in"], "t0"),
        _layer(1, "Conv_1", "CaskConvolution", ["t0"], "t1"),
    )
    b = _engine(_layer(0, "Conv_1", "CaskConvolution", ["in"], "u1"))
    cmp = compare_engines(a, b)
    assert [(s.marker, s.index_a, s.index_b, s.match) for s in cmp.steps] == [
        ("-", 0, None, None),
        ("=", 1, 0, "name"),
    ]


def test_unrelated_engines_fail_to_align() -> None:
    a = _engine(*(_layer(k, f"a{k}", "CaskPooling", [f"t{k}"], f"t{k + 1}") for k in range(8)))
    b = _engine(*(_layer(k, f"b{k}", "CaskConvolution", [f"u{k}"], f"u{k + 1}") for k in range(8)))
    cmp = compare_engines(a, b)
    assert cmp.alignment_failed
    assert any("alignment failed" in n for n in cmp.notes)
