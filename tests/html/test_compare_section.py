"""The report's Comparison and footprint, read in the browser on real exports.

TREx's ResNet QAT-residual build against its FP16 build (ONNX nodes numbered differently):
the rows say how each pair was matched and which fusions differ. MNIST against ResNet (two
unrelated models): the page says the alignment failed, draws no "slower in B" chart and
lists no tactic change, and shows the totals by precision and layer type. ResNet against
MobileNet QAT (two models whose layers structure pairs well): the page says they are two
models and why.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus

RESNET = "trt8.x_resnet-pytorch-{}-a100-trex_{}.json"
MNIST = "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json"
MOBILENET = "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json"


def _resnet(kind: str, what: str = "layers-detailed") -> Path:
    return CORPUS / RESNET.format(kind, what)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("compare")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paired = trtlog.report(
            _resnet("qat-residual-int8"),
            reference=_resnet("fp16"),
            profile=_resnet("qat-residual-int8", "profile"),
            reference_profile=_resnet("fp16", "profile"),
        ).write(folder / "paired.html")
        failed = trtlog.report(
            _resnet("fp16"),
            reference=CORPUS / MNIST,
            profile=_resnet("fp16", "profile"),
        ).write(folder / "failed.html")
        other = trtlog.report(
            CORPUS / MOBILENET,
            reference=_resnet("fp16"),
            profile=CORPUS / MOBILENET.replace("layers-detailed", "profile"),
            reference_profile=_resnet("fp16", "profile"),
        ).write(folder / "other.html")
    return {"paired": paired, "failed": failed, "other": other}


@needs_corpus
def test_renumbered_exports_show_how_each_pair_was_matched(
    pages: dict[str, Path], open_page: Any
) -> None:
    page = open_page(pages["paired"])
    text = page.css("#compare").text
    assert "pairs matched by structure" in text
    assert not page.all("#cmp-failed")
    rows = page.js(
        "const t = document.querySelector('#cmp-table');"
        "return Array.from(t.querySelectorAll('.tr')).map(r => r.textContent);"
    )
    joined = "\n".join(rows)
    assert "fusion Conv+Add+Relu→Conv" in joined
    assert "structure" in joined
    # the by-precision totals: B's INT8 time is the profile's INT8 convolutions
    assert page.css("#cmp-by-precision").text.splitlines()[0].startswith("precision")


@needs_corpus
def test_failed_alignment_says_so_and_compares_totals(
    pages: dict[str, Path], open_page: Any
) -> None:
    page = open_page(pages["failed"])
    failed = page.css("#cmp-failed").text
    assert failed.startswith("Alignment failed:")
    assert not page.all("#compare svg.chart.modules-delta")  # no "slower in B" bars
    assert not page.all("#cmp-tactics") and not page.all("#cmp-precision")
    by_type = page.css("#cmp-by-type").text
    raw = json.loads(_resnet("fp16").read_text())["Layers"]
    convs = sum(1 for layer in raw if layer["LayerType"] == "CaskConvolution")
    assert any(line.startswith(f"CaskConvolution 2 {convs}") for line in by_type.splitlines())


@needs_corpus
def test_another_model_paired_by_structure_says_why(pages: dict[str, Path], open_page: Any) -> None:
    # structure pairs 22 of the ResNet's 24 computing layers with MobileNet layers
    page = open_page(pages["other"])
    failed = page.css("#cmp-failed").text
    raw = json.loads((CORPUS / MOBILENET).read_text())["Layers"]
    convs = sum(1 for layer in raw if "Convolution" in layer["LayerType"])
    assert convs == 53  # 52 convolutions and the classifier, run as a 1x1 convolution
    assert failed.startswith(
        "Alignment failed: two different models: 0 of 52 convolutions alike"
    ), failed
    assert not page.all("#compare svg.chart.modules-delta")
    assert not page.all("#cmp-tactics") and not page.all("#cmp-precision")


@needs_corpus
def test_layers_section_and_overview_show_the_footprint(
    pages: dict[str, Path], open_page: Any
) -> None:
    page = open_page(pages["paired"])
    raw = json.loads(_resnet("qat-residual-int8").read_text())["Layers"]
    sizes = {"Int8": 1, "Float": 4, "Half": 2}
    weights = sum(
        v["Count"] * sizes[v["Type"]]
        for layer in raw
        for v in layer.values()
        if isinstance(v, dict) and "Count" in v
    )
    assert page.css("#fact-weights td").text.startswith(f"{weights / (1 << 20):.3g} MiB")
    assert page.css("#fact-largest-activation td").text
    head = page.css("#layers-footprint h3").text
    assert head.startswith(f"Footprint: weights {weights / (1 << 20):.3g} MiB")
    assert page.all("#footprint-largest tbody tr")
