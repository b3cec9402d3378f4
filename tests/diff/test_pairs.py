"""Real pairs of builds: the same model at other precisions, verbosities and TensorRT versions.

Each test states how many rows of each marker the pair gives and which layers are one-sided;
every other layer must find its counterpart (no spurious ``-``/``+`` rows).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.diff import Comparison

NAMES = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8_layers-names.json"
DETAILED = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json"
BERT_NAMES = FIXTURES / "logs" / "trt10.10_bert-matcher-fp16_engine-layer-info-names-only.log"
BERT_DETAILED = FIXTURES / "logs" / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log"


def _compare(a: Path, b: Path) -> Comparison:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        return trtlog.compare(a, b)


def _one_sided(cmp: Comparison) -> list[tuple[str, str]]:
    out = []
    for s in cmp.steps:
        if s.index_a is None and s.index_b is not None:
            out.append(("+", cmp.layers_b[s.index_b].name))
        elif s.index_b is None and s.index_a is not None:
            out.append(("-", cmp.layers_a[s.index_a].name))
    return out


def _nodes_have_no_counterpart(cmp: Comparison) -> None:
    """A one-sided layer holds no ONNX node that the other side holds."""
    nodes_a = {n for v in cmp.layers_a for n in v.onnx_nodes}
    nodes_b = {n for v in cmp.layers_b for n in v.onnx_nodes}
    for i in cmp.unmatched_a:
        assert not set(cmp.layers_a[i].onnx_nodes) & nodes_b, cmp.layers_a[i].name
    for j in cmp.unmatched_b:
        assert not set(cmp.layers_b[j].onnx_nodes) & nodes_a, cmp.layers_b[j].name


def test_resnet18_names_only_against_detailed_seed() -> None:
    cmp = _compare(NAMES, DETAILED)
    assert cmp.markers() == {"=": 25, "~": 0, "-": 0, "+": 0}
    assert [(s.index_a, s.index_b) for s in cmp.steps] == [(i, i) for i in range(25)]
    assert cmp.groups == ()
    summary = cmp.summary()
    assert summary.names_only
    assert "A is names-only" in summary.to_text()


def test_bert_default_build_region_against_detailed_kernels() -> None:
    cmp = _compare(BERT_NAMES, BERT_DETAILED)
    assert cmp.markers() == {"=": 0, "~": 89, "-": 0, "+": 0}
    assert all(s.index_a == 0 and "split" in s.reasons for s in cmp.steps[:88])
    assert cmp.steps[88].index_a == 1 and cmp.steps[88].index_b == 88  # the output reformat
    (group,) = cmp.groups
    assert (group.kind, group.layers_a, len(group.layers_b)) == ("split", (0,), 88)
    assert group.describe().startswith("1 layer in A and 88 layers in B")


def _corpus(name: str) -> Path:
    return CORPUS / name


REFORMAT_TO = "Reformatting CopyNode for Input Tensor 0 to "
PAIRS = [
    # (A, B, markers, one-sided rows)
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        {"=": 7, "~": 2, "-": 0, "+": 0},
        [],
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        {"=": 1, "~": 8, "-": 1, "+": 0},
        [("-", REFORMAT_TO + "{ForeignNode[node_conv2d_1...node_relu_1]}")],
    ),
    (
        "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
        {"=": 11, "~": 1, "-": 0, "+": 0},
        [],
    ),
    (
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
        {"=": 15, "~": 0, "-": 0, "+": 0},
        [],
    ),
    (
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
        {"=": 15, "~": 0, "-": 0, "+": 0},
        [],
    ),
    (  # TensorRT 8.0 against 8.2: 8.2 adds two NoOp layers of its own
        "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
        {"=": 6, "~": 4, "-": 0, "+": 2},
        [("+", "copied_squeeze_after_add_3"), ("+", "(Unnamed Layer* 52) [Shuffle]")],
    ),
    (  # TensorRT 8.4 (FP32 kernels chosen) against 8.6 (FP16): other reformats
        "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
        {"=": 3, "~": 7, "-": 2, "+": 5},
        [
            ("+", "Reformatting CopyNode for Input Tensor 0 to Conv-1 + ReLU-2"),
            ("+", "Reformatting CopyNode for Input Tensor 0 to MaxPool-3"),
            ("-", "Reformatting CopyNode for Input Tensor 0 to Conv-4 + ReLU-5"),
            ("-", "Reformatting CopyNode for Input Tensor 0 to MaxPool-6"),
            ("+", REFORMAT_TO + "Transpose-7 + Reshape-7 + reshape_before_MatMul-9"),
            ("+", "Reformatting CopyNode for Input Tensor 0 to MatMul-9 + ReLU-11"),
            ("+", "Reformatting CopyNode for Input Tensor 0 to reshape_after_MatMul-12"),
        ],
    ),
]


@needs_corpus
@pytest.mark.parametrize(
    ("a", "b", "markers", "one_sided"),
    PAIRS,
    ids=[f"{a.split('_')[0]}-{a.split('-')[-1][:12]}-vs-{b.split('_')[0]}" for a, b, *_ in PAIRS],
)
def test_corpus_pairs(
    a: str, b: str, markers: dict[str, int], one_sided: list[tuple[str, str]]
) -> None:
    cmp = _compare(_corpus(a), _corpus(b))
    assert cmp.markers() == markers
    assert _one_sided(cmp) == one_sided
    _nodes_have_no_counterpart(cmp)


@needs_corpus
def test_mnist_fp16_myelin_against_fp32_kernels() -> None:
    cmp = _compare(
        _corpus("trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log"),
        _corpus("trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json"),
    )
    first = cmp.steps[0]
    assert cmp.layers_a[0].myelin == "region"
    assert first.reasons == ("myelin", "type Myelin→CaskConvolution")
    (group,) = cmp.groups  # the last Myelin region is five kernels in the FP32 build
    assert (group.layers_a, group.layers_b) == ((5,), (4, 5, 6, 7, 8))
    summary = cmp.summary()
    # the INT64 output of kernel __myl_CastReshCast_myl4_4 is no precision change of the
    # region it is aligned to
    assert summary.precision_transitions == {"FP16→FP32": 2}
    assert [v.name for v in summary.reformats_removed] == [
        "Reformatting CopyNode for Input Tensor 0 to {ForeignNode[node_conv2d_1...node_relu_1]}"
    ]


@needs_corpus
def test_same_build_from_its_log_and_its_json_differs_only_in_tactics() -> None:
    cmp = _compare(
        _corpus("trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log"),
        _corpus("trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json"),
    )
    assert {s.reasons for s in cmp.steps if s.marker == "~"} == {("tactic",)}
    assert cmp.node_source == "metadata"


@needs_corpus
@pytest.mark.parametrize(
    "name",
    [
        "trt-unknown_lidar-dmt-model-qdq-tofp16_layers-detailed.json",
        "trt8.6_controlnet-fp16_layers-detailed.json",
        "trt-unknown_detr-resnet50-int8-layerprec_layers-names.json",
        "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log",
    ],
)
def test_corpus_build_compared_with_itself_is_all_equal(name: str) -> None:
    cmp = _compare(_corpus(name), _corpus(name))
    assert cmp.markers()["="] == len(cmp.steps) == len(cmp.layers_a)
    assert cmp.groups == ()


# -- what the summary and the rows say ------------------------------------


def test_bert_side_labels_and_region_counts() -> None:
    """BERT seeds: A is a default build's builder listing (one {ForeignNode[...]} + a
    reformat), not a detailed dump; B lists that one region as 88 kernels of Myelin graph 0."""
    cmp = _compare(BERT_NAMES, BERT_DETAILED)
    assert "(detailed)" not in cmp.a.describe()
    assert cmp.a.describe().endswith("2 layers (builder listing: types and formats)")
    assert cmp.b.describe().endswith("89 layers (detailed)")
    text = cmp.summary().to_text()
    assert "  Myelin regions        1      1" in text
    assert "  Myelin kernels        0     88" in text


@needs_corpus
def test_a_kernel_aligned_to_its_region_has_no_precision_change() -> None:
    """10.16.1 MNIST: A (fp16 build) shows the classifier as one region, B (fp32 dump) as 5
    kernels; the last kernel __myl_CastReshCast_myl4_4 writes INT64 (an index), which is no
    precision change of the region."""
    cmp = _compare(
        CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
    )
    for s in cmp.steps:
        if s.index_a is not None and s.index_b is not None:
            a, b = cmp.layers_a[s.index_a], cmp.layers_b[s.index_b]
            if {a.myelin, b.myelin} == {"region", "kernel"}:
                assert not any(r.startswith("precision") for r in s.reasons), s
    summary = cmp.summary()
    assert summary.precision_transitions == {"FP16→FP32": 2}
    # A: "Profiling verbosity: 0" (line 36) with the builder's listing; B: an inspector dump
    # of a "Profiling verbosity: 2" build (line 36)
    assert cmp.a.describe().endswith(
        "6 layers (builder listing: types and formats; profiling verbosity: layer names only), "
        "optimizer passes"
    )
    assert cmp.b.describe().endswith("9 layers (detailed)")
    back = _compare(
        CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
    )
    assert back.summary().precision_transitions == {"FP32→FP16": 2}
    assert "Myelin regions        1      3" in back.summary().to_text()
