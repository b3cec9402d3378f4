"""The warehouse lines up builds layer by layer with the comparison's alignment, and keeps
each build's footprint.

TREx's ResNet FP16 and QAT exports number their ONNX nodes differently: by node nothing
lines up, by layer every convolution finds its counterpart.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from tests.conftest import CORPUS, needs_corpus
from trtlog.warehouse import compare, ingest, open

RESNET = "trt8.x_resnet-pytorch-{}-a100-trex_layers-detailed.json"


@pytest.fixture(scope="module")
def resnets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("resnets")
    for kind in ("fp16", "qat-int8"):
        shutil.copy(CORPUS / RESNET.format(kind), folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ingest([folder], to=folder / "wh")
    return folder


def _ids(con: object) -> tuple[str, str]:
    rows = dict(con.execute("SELECT paths[1], build_id FROM builds").fetchall())  # type: ignore[attr-defined]
    by_kind = {kind: next(b for p, b in rows.items() if kind in p) for kind in ("fp16", "qat")}
    return by_kind["fp16"], by_kind["qat"]


@needs_corpus
def test_by_layer_pairs_every_convolution_of_renumbered_exports(resnets: Path) -> None:
    con = open(resnets / "wh")
    fp16, qat = _ids(con)
    frame = compare(con, [fp16, qat], by="layer", labels=["fp16", "int8"])
    raw = json.loads((CORPUS / RESNET.format("fp16")).read_text())["Layers"]
    convs = [layer["Name"] for layer in raw if "Convolution" in layer["LayerType"]]
    rows = frame[frame["fp16_layer"].isin(convs)]
    assert len(rows) == len(convs) == 21
    assert rows["int8_layer"].notna().all()
    assert set(rows["int8_match"]) <= {"structure", "shape"}
    assert (rows["int8_precision"] == "INT8").all()
    by_node = compare(con, [fp16, qat], by="node")
    assert (by_node["builds"] == 2).sum() == 0  # no ONNX node name in common


@needs_corpus
def test_builds_keep_the_footprint_of_their_layers(resnets: Path) -> None:
    con = open(resnets / "wh")
    rows = con.execute(
        "SELECT b.engine_weights_bytes, sum(l.weights_bytes), b.engine_activation_bytes, "
        "sum(l.activation_bytes) FROM builds b JOIN layers l USING (build_id) "
        "GROUP BY b.build_id, b.engine_weights_bytes, b.engine_activation_bytes"
    ).fetchall()
    assert len(rows) == 2
    for weights, weights_sum, activations, activations_sum in rows:
        assert weights == weights_sum and activations == activations_sum
    raw = json.loads((CORPUS / RESNET.format("qat-int8")).read_text())["Layers"]
    counts = sum(
        v["Count"] * {"Int8": 1, "Float": 4, "Half": 2}[v["Type"]]
        for layer in raw
        for v in layer.values()
        if isinstance(v, dict) and "Count" in v
    )
    assert counts in {r[0] for r in rows}


@pytest.fixture(scope="module")
def two_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("two_models")
    shutil.copy(CORPUS / RESNET.format("fp16"), folder)
    shutil.copy(CORPUS / "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json", folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ingest([folder], to=folder / "wh")
    return folder


@needs_corpus
def test_by_layer_pairs_nothing_of_another_model(two_models: Path) -> None:
    con = open(two_models / "wh")
    rows = dict(con.execute("SELECT paths[1], build_id FROM builds").fetchall())
    resnet = next(b for p, b in rows.items() if "resnet" in p)
    mobilenet = next(b for p, b in rows.items() if "mobilenet" in p)
    frame = compare(con, [resnet, mobilenet], by="layer", labels=["resnet", "mobilenet"])
    raw = json.loads(
        (CORPUS / "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json").read_text()
    )["Layers"]
    # every MobileNet layer on a row of its own, none beside a ResNet layer
    assert frame["mobilenet_layer"].notna().sum() == len(raw) == 85
    assert frame[frame["layer"].notna()]["mobilenet_layer"].isna().all()
    assert frame["mobilenet_match"].isna().all()
    reason = frame.attrs["not_comparable"]["mobilenet"]
    assert reason.startswith("two different models: ")
    assert "convolutions alike (output maps)" in reason
