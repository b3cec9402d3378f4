"""The footprint (weights and activation bytes) against sums made from the raw layer JSON.

The test reads each export with ``json`` and its own small reading of ``Format/Datatype``
(the type word and the vector width, with regexes), independent of trtlog's format parser.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from typing import Any

import pandas as pd
import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus
from trtlog.engine.footprint import (
    bytes_by_key,
    engine_footprint,
    largest_activations,
    layer_activation_bytes,
    layer_weights_bytes,
    weights_of,
)
from trtlog.frames import footprint_frame

EXPORTS = [
    "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json",
    "trt8.x_resnet-pytorch-qat-int8-a100-trex_layers-detailed.json",
    "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json",
    "trt10.4_mobilenetv2-fp16-rtx3060_layers-detailed.json",
    "trt8.6.1_resnet50-int8_layers-detailed.json",
]

_BYTES = {"float": 4, "fp32": 4, "half": 2, "fp16": 2, "int8": 1, "int32": 4, "int64": 8}
_BYTES |= {"bool": 1}
_WORD = re.compile(r"\b(FP32|FP16|Int8|Int32|Int64|BOOL|Bool|Float|Half)\b", re.IGNORECASE)
_WIDE = re.compile(r"^(\w+(?:-\w+)?) wide channel vectorized")
_MOD = re.compile(r"channel % (\d+) == 0")
_WIDTHS = {"two": 2, "four": 4, "eight": 8, "sixteen": 16, "thirty-two": 32}


def _raw_tensor_bytes(tensor: dict[str, Any]) -> int | None:
    text = tensor.get("Format/Datatype", "")
    dims = tensor.get("Dimensions")
    word = _WORD.search(text)
    if not dims or word is None or any(d < 0 for d in dims):
        return None
    dims = list(dims)
    wide, mod = _WIDE.match(text), _MOD.search(text)
    width = _WIDTHS[wide.group(1).lower()] if wide else int(mod.group(1)) if mod else 1
    if len(dims) >= 3 and width > 1:
        dims[1] = -(-dims[1] // width) * width
    return int(math.prod(dims)) * _BYTES[word.group(1).lower()]


def _raw_weights(layer: dict[str, Any]) -> int:
    return sum(
        v["Count"] * _BYTES[v["Type"].lower()]
        for v in layer.values()
        if isinstance(v, dict) and "Count" in v
    )


@needs_corpus
@pytest.mark.parametrize("name", EXPORTS)
def test_footprint_totals_equal_sums_of_the_raw_json(name: str) -> None:
    raw = json.loads((CORPUS / name).read_text())["Layers"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        engine = trtlog.load_engine(CORPUS / name)
    frame = engine.layers_frame()
    by_type: dict[str, list[int]] = {}
    for layer in raw:
        sizes = [_raw_tensor_bytes(t) for t in layer.get("Outputs", [])]
        entry = by_type.setdefault(layer["LayerType"], [0, 0])
        entry[0] += _raw_weights(layer)
        entry[1] += sum(s for s in sizes if s is not None)
    assert int(frame["weights_bytes"].sum()) == sum(w for w, _a in by_type.values())
    assert int(frame["activation_bytes"].sum()) == sum(a for _w, a in by_type.values())
    totals = footprint_frame(engine, "type").set_index("key")
    for kind, (weights, activations) in by_type.items():
        assert totals.loc[kind, "weights_bytes"] == weights, kind
        found: Any = totals.loc[kind, "activation_bytes"]
        assert (0 if pd.isna(found) else found) == activations, kind
    by_precision = footprint_frame(engine, "precision")
    assert int(by_precision["weights_bytes"].sum()) == int(frame["weights_bytes"].sum())
    # the largest activation is the largest output tensor of the raw JSON
    largest = max(
        (s for layer in raw for t in layer.get("Outputs", []) if (s := _raw_tensor_bytes(t))),
    )
    assert largest_activations(engine, 1)[0][5] == largest


def test_weights_of_reads_every_typed_count() -> None:
    parameters = {
        "ConvWeights": {"Type": "Int8", "Count": 9408},
        "ConvBias": {"Type": "Float", "Count": 64},
        "Weights": {"Type": "Half", "Count": 3},
        "Kernel": [7, 7],
        "Other": {"Count": 3},
    }
    assert [(k, size) for k, _t, _c, size in weights_of(parameters)] == [
        ("ConvWeights", 9408),
        ("ConvBias", 256),
        ("Weights", 6),
    ]


def test_bytes_by_key_leaves_unknown_sizes_unknown() -> None:
    assert bytes_by_key(["a", None], [None, 4], [None, None]) == [
        ("?", 1, 4, None),
        ("a", 1, None, None),
    ]


@needs_corpus
@pytest.mark.parametrize("name", EXPORTS)
def test_the_one_pass_footprint_is_the_raw_json_layer_by_layer(name: str) -> None:
    """engine_footprint (what the report reads once) gives each layer's bytes as the raw JSON.

    And as the per-layer functions give them; the overview's totals by stored type add up
    to the raw JSON's, and the largest tensors are the raw JSON's output sizes, biggest first.
    """
    raw = json.loads((CORPUS / name).read_text())["Layers"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        engine = trtlog.load_engine(CORPUS / name)
    found = engine_footprint(engine)
    assert found.weights == [layer_weights_bytes(x, engine.detailed) for x in engine.layers]
    assert found.activations == [layer_activation_bytes(x) for x in engine.layers]
    assert found.weights == [_raw_weights(x) for x in raw]
    sizes = [[_raw_tensor_bytes(t) for t in x.get("Outputs", [])] for x in raw]
    assert found.activations == [
        sum(s for s in layer if s is not None) if any(s is not None for s in layer) else None
        for layer in sizes
    ]
    assert sum(found.weights_by_type.values()) == sum(_raw_weights(x) for x in raw)
    assert sum(found.activations_by_type.values()) == sum(
        s for layer in sizes for s in layer if s is not None
    )
    every = sorted((s for layer in sizes for s in layer if s is not None), reverse=True)
    assert [t[5] for t in largest_activations(engine, 10, found)] == every[:10]
    assert largest_activations(engine, 10, found) == largest_activations(engine, 10)
