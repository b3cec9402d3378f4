"""Inputs of the findings tests: fixture and corpus paths, each parsed and linted once.

Parsing a corpus log takes up to half a second, so builds, engines and findings are cached
for the whole session (the inputs are immutable models).
"""

from __future__ import annotations

import functools
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import trtlog
from tests.conftest import CORPUS, FIXTURES
from trtlog import Build, Engine, Finding

LOGS = FIXTURES / "logs"
INFO = FIXTURES / "layer_info"

TINY_FP16 = LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
TINY_INT8 = LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
TINY_FP16_PROFILE = INFO / "trt8.6.1_tinynet-fp16.profile.json"
TINY_INT8_PROFILE = INFO / "trt8.6.1_tinynet-qdq-int8.profile.json"
YOLO = LOGS / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
BERT_DETAILED = LOGS / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log"
BERT_NAMES = LOGS / "trt10.10_bert-matcher-fp16_engine-layer-info-names-only.log"
PATTERNS = INFO / "trt8.6-like_patternnet-qdq_layers-detailed.json"
PATTERNS_PROFILE = INFO / "trt8.6-like_patternnet-qdq.profile.json"
PATTERNS_FAILED = LOGS / "trt8.6-like_patternnet-qdq_build-FAILED.log"
DLA = LOGS / "trt8.6-like_orin-dla-fallback_build-verbose.log"
VIT = INFO / "trt8.2-like_vit-attention-fp16_layers-detailed.json"
VIT_PROFILE = INFO / "trt8.2-like_vit-attention-fp16.profile.json"
RESNET_DETAILED = INFO / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json"
RESNET_NAMES = INFO / "trt10.x_resnet18-v1-7-fp16-int8_layers-names.json"
# TensorRT 11: one small model, built the 10.x way and the 11.x way
SMALL_FP16_10 = INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
SMALL_FP16_10_PROFILE = INFO / "trt10.16-like_smallnet-fp16.profile.json"
SMALL_FP16_10_LOG = LOGS / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"
SMALL_AUTOCAST = INFO / "trt11.5-like_smallnet-fp16-autocast_layers-detailed.json"
SMALL_AUTOCAST_NAMES = INFO / "trt11.5-like_smallnet-fp16-autocast_layers-names.json"
SMALL_AUTOCAST_PROFILE = INFO / "trt11.5-like_smallnet-fp16-autocast.profile.json"
SMALL_FP32 = INFO / "trt11.5-like_smallnet-fp32_layers-detailed.json"
SMALL_FP32_PROFILE = INFO / "trt11.5-like_smallnet-fp32.profile.json"
SMALL_FP32_LOG = LOGS / "trt11.5-like_smallnet-fp32_build-verbose-dumpLayerInfo.log"
SMALL_QDQ = INFO / "trt11.5-like_smallnet-qdq-int8_layers-detailed.json"
SMALL_QDQ_PROFILE = INFO / "trt11.5-like_smallnet-qdq-int8.profile.json"
SMALL_TORCHTRT = INFO / "torchtrt-like_smallnet_layer_information.json"
SMALL_REFPAIR = LOGS / "trt11.5-like_smallnet-fp16_run-refPair-accuracy.log"

QAT_RESNET = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"
LIDAR = CORPUS / "trt-unknown_lidar-dmt-model-qdq-tofp16_layers-detailed.json"
LIDAR_PROFILE = CORPUS / "trt-unknown_lidar-dmt-model-qdq-tofp16_profile.json"
PLUGIN_FAILED = CORPUS / "trt10.16.0_cookbook-addscalar-plugin_build-FAILED.log"
SILENT_FAILED = CORPUS / "trt8.2.3_cookbook-mnist-cnn-fp16_build-verbose-FAILED.log"
CRASH = CORPUS / "trt8.4.10_script-if-myelin-best-orin_build-verbose-CRASH.log"
CENTERPOINT = CORPUS / "trt8.2.3_centerpoint-rpn-centerhead-fp16_build-verbose.log"
MNIST_BEST = CORPUS / "trt8.5.10_mnist-best_build-verbose.log"
MNIST_FP16_10 = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log"
MNIST_FP16_80 = CORPUS / "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log"
CONTROLNET = CORPUS / "trt8.6_controlnet-fp16_layers-detailed.json"
CONTROLNET_PROFILE = CORPUS / "trt8.6_controlnet-fp16_profile.json"
BEV = CORPUS / "trt-unknown_bev-as-model-fp16_layers-detailed-prettyprinted.json"
BEV_PROFILE = CORPUS / "trt-unknown_bev-as-model-fp16_profile.json"
TSA = CORPUS / "trt8.5.10_bevformer-tsa-msda-plugin-best_build-verbose.log"
GOOGLENET_INT8 = CORPUS / "trt7.1_googlenet-caffe-int8-jetson_build-multi.log"

#: Corpus builds without Q/DQ nodes, with the profile that goes with a layer JSON.
NO_QDQ: dict[str, str | None] = {
    "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log": None,
    "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log": None,
    "trt8.2.3_centerpoint-rpn-centerhead-fp16_build-verbose.log": None,
    "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log": None,
    "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log": None,
    "trt7.1_resnet50-caffe-fp16-jetson_build-multi.log": None,
    "trt8.5.10_mnist-best_build-verbose.log": None,
    "trt8.5.10_bevformer-tsa-msda-plugin-best_build-verbose.log": None,
    "trt7.1_googlenet-caffe-int8-jetson_build-multi.log": None,
    "trt-unknown_bev-as-model-fp16_layers-detailed-prettyprinted.json": (
        "trt-unknown_bev-as-model-fp16_profile.json"
    ),
    "trt8.6_controlnet-fp16_layers-detailed.json": "trt8.6_controlnet-fp16_profile.json",
    "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json": (
        "trt10.4_resnet18-fp16-rtx3060_profile.json"
    ),
    "trt10.4_mobilenetv2-fp16-rtx3060_layers-detailed.json": None,
    "trt-unknown_detr-resnet50-int8-layerprec_layers-names.json": (
        "trt-unknown_detr-resnet50-int8-layerprec_profile.json"
    ),
}


@functools.cache
def build(path: Path) -> Build:
    """The parsed log (once per session)."""
    return trtlog.parse(path)


@functools.cache
def engine(path: Path, profile: Path | None = None) -> Engine:
    """The layer JSON, with its profile (once per session)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        return trtlog.load_engine(path, profile=profile)


@functools.cache
def _lint(
    path: Path,
    profile: Path | None,
    reference: Path | None,
    reference_profile: Path | None,
    rules: tuple[str, ...] | None,
) -> tuple[Finding, ...]:
    source: Build | Engine
    if path.suffix == ".json":
        source = engine(path, profile)
        profile = None
    else:
        source = build(path)
    ref: Build | Engine | None = None
    if reference is not None:
        ref = (
            engine(reference, reference_profile)
            if reference.suffix == ".json"
            else build(reference)
        )
        if reference.suffix == ".json":
            reference_profile = None
    return tuple(
        trtlog.lint(
            source,
            reference=ref,
            profile=profile,
            reference_profile=reference_profile,
            rules=rules,
        )
    )


def lint(
    path: Path,
    profile: Path | None = None,
    *,
    reference: Path | None = None,
    reference_profile: Path | None = None,
    rules: Sequence[str] | None = None,
) -> list[Finding]:
    """The findings of a log or layer JSON (cached per argument set)."""
    return list(_lint(path, profile, reference, reference_profile, tuple(rules) if rules else None))


def of(findings: Sequence[Finding], rule: str) -> list[Finding]:
    """The findings of one rule."""
    return [f for f in findings if f.rule == rule]


def counts(findings: Iterable[Finding]) -> Counter[str]:
    """``rule:severity`` → how many findings."""
    return Counter(f"{f.rule}:{f.severity}" for f in findings)
