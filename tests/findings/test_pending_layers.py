"""Lint of an engine whose layer objects the loader has not built yet (issues 15 and 17).

``trtlog.load_engine`` reads the layers frame's values and the tensor names straight from the
JSON and builds the layer objects when ``Engine.layers`` is first read. Lint reads the
columns, the tensor graph (:class:`~trtlog.engine.model.LayerEdges`), the Q/DQ roles and the
reformats without them, and builds one layer (``Engine.layer_at``) only where a rule reads it:
the findings must be those of the built engine, and the objects the ones ``layers`` holds.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import layer_json_files
from trtlog import Engine
from trtlog.findings.context import LintContext

LAYER_FILES = layer_json_files()

_INT8 = "Thirty-two wide channel vectorized row major Int8 format"
_FP16 = "Row major linear FP16 format"


def _tensor(name: str, fmt: str) -> dict[str, Any]:
    return {"Name": name, "Location": "Device", "Dimensions": [1, 64, 8, 8], "Format/Datatype": fmt}


def _model(blocks: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A detailed layer JSON of ``blocks`` blocks (INT8 convolution, FP16 reformat copy,
    point-wise, Myelin region), as trtexec writes one, and its profile records."""
    layers = []
    previous = "input"
    for b in range(blocks):
        conv_out = f"/m/b{b}/conv/Conv_output_0"
        copy_out = f"Reformatted Input Tensor 0 to /m/b{b}/add/Add"
        add_out = f"/m/b{b}/add/Add_output_0"
        region_out = f"/m/b{b}/attn/Softmax_output_0"
        layers += [
            {
                "Name": f"/m/b{b}/conv/Conv",
                "LayerType": "CaskConvolution",
                "Inputs": [_tensor(previous, _INT8)],
                "Outputs": [_tensor(conv_out, _INT8)],
                "Metadata": f"[ONNX Layer: /m/b{b}/conv/Conv]",
                "TacticValue": "0x0000000000000003",
            },
            {
                "Name": f"Reformatting CopyNode for Input Tensor 0 to /m/b{b}/add/Add",
                "LayerType": "Reformat",
                "Inputs": [_tensor(conv_out, _INT8)],
                "Outputs": [_tensor(copy_out, _FP16)],
                "Origin": "REFORMAT",
                "TacticValue": "0x0000000000000000",
            },
            {
                "Name": f"/m/b{b}/add/Add",
                "LayerType": "PointWiseV2",
                "Inputs": [_tensor(copy_out, _FP16)],
                "Outputs": [_tensor(add_out, _FP16)],
                "Metadata": f"[ONNX Layer: /m/b{b}/add/Add]",
                "TacticValue": "0x0000000000000001",
            },
            {
                "Name": f"{{ForeignNode[/m/b{b}/attn/MatMul.../m/b{b}/attn/Softmax]}}",
                "LayerType": "Myelin",
                "Inputs": [_tensor(add_out, _FP16)],
                "Outputs": [_tensor(region_out, _INT8)],
                "TacticValue": "0x0000000000000000",
            },
        ]
        previous = region_out
    records: list[dict[str, Any]] = [{"count": 10}]
    records += [
        {"name": x["Name"], "timeMs": 1.0, "averageMs": 0.1, "medianMs": 0.1, "percentage": 1.0}
        for x in layers
    ]
    return {"Layers": layers, "Bindings": ["input", previous]}, records


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("pending")
    value, records = _model(30)
    layers, profile = folder / "m.layers.json", folder / "m.profile.json"
    layers.write_text(json.dumps(value, indent=4), encoding="utf-8")
    profile.write_text(json.dumps(records, indent=4), encoding="utf-8")
    return layers, profile


def test_lint_builds_no_layer_in_bulk(model: tuple[Path, Path]) -> None:
    """The report's case: a fresh engine with its profile, 30 dtype reformats to report."""
    layers, profile = model
    pending = trtlog.load_engine(layers, profile=profile)
    assert pending.layer_table() is not None
    found = trtlog.lint(pending)
    assert "layers" not in pending.__dict__  # no rule built every layer object
    assert [f.rule for f in found].count("reformat-dtype") == 30
    built = trtlog.load_engine(layers, profile=profile)
    assert len(built.layers) == 120
    assert found == trtlog.lint(built) == trtlog.lint(built.model_copy())
    # the layers built one by one are the objects of the engine's layers, once all are built
    one = pending.layer_at(1)
    assert pending.layer_at(1) is one
    assert pending.layers[1] is one and pending.layers == built.layers


@pytest.mark.parametrize("path", LAYER_FILES, ids=lambda p: p.name)
def test_a_pending_engine_lints_as_its_built_copy(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pending = trtlog.load_engine(path)
        other = trtlog.load_engine(path)
    assert trtlog.lint(pending) == trtlog.lint(other.model_copy())


def _tables() -> list[Engine]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engines = [trtlog.load_engine(p) for p in LAYER_FILES]
    return [e for e in engines if e.layer_table() is not None]


def test_layer_at_count_and_tensors_match_the_layers() -> None:
    engines = _tables()
    assert len(engines) >= 5
    for engine in engines:
        count = engine.layer_count()
        picked = [engine.layer_at(i) for i in range(0, count, 3)]
        tensors = [engine.layer_tensors(i) for i in range(count)]
        assert engine.layer_at(-1) is engine.layer_at(count - 1)
        with pytest.raises(IndexError):
            engine.layer_at(count)
        with pytest.raises(IndexError):
            engine.layer_tensors(count)
        layers = engine.layers  # built now, with the objects handed out before
        assert count == len(layers) == engine.layer_count()
        assert all(x is layers[x.index] for x in picked)
        assert tensors == [(x.inputs, x.outputs) for x in layers], engine.source


def test_edges_are_the_layers_tensors() -> None:
    """LayerEdges list each layer's tensors, in order, as the layer objects hold them."""
    for engine in _tables():
        table = engine.layer_table()
        assert table is not None and table.edges is not None
        edges = table.edges
        layers = engine.layers
        ins = [(t.name, x.index) for x in layers for t in x.inputs]
        outs = [(t.name, x.index) for x in layers for t in x.outputs]
        assert list(zip(edges.in_names, edges.in_layers, strict=True)) == ins, engine.source
        assert list(zip(edges.out_names, edges.out_layers, strict=True)) == outs, engine.source


def test_tensor_graph_of_edges_is_that_of_the_objects() -> None:
    for engine in _tables():
        fast = LintContext(None, engine)
        slow = LintContext(None, engine.model_copy())  # no table: from the layer objects
        assert fast.producers == slow.producers, engine.source
        assert fast.consumers == slow.consumers, engine.source
        count = engine.layer_count()
        assert [fast.first_output_key(i) for i in range(count)] == [
            slow.first_output_key(i) for i in range(count)
        ]
        assert [fast.qdq_role_at(i) for i in range(count)] == [
            slow.qdq_role(x) for x in engine.layers
        ]
        assert [fast.time_at(i) for i in range(count)] == [slow.time(x) for x in engine.layers]
