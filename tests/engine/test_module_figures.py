"""The module tree's figures against a layer-by-layer reading of the layers.

:func:`trtlog.engine.modules.module_figures` (what ``Engine.module_tree()`` and the report's
Modules section are made of) must give, module by module and in the same order, the counts,
precision mixes (key order included) and sums of times of a walk over the layer objects that
adds each layer to every module above it: over every fixture and corpus layer JSON and log
engine, generated engines with hostile names, split regions and reformats, and times that are
not finite.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trtlog
from tests.conftest import FIXTURES, corpus_logs
from trtlog.engine import Engine, EngineLayer
from trtlog.engine.model import LayerTime, total_of
from trtlog.engine.modules import ModuleNode, module_figures
from trtlog.engine.rows import layer_columns
from trtlog.tensors import Tensor

from .test_engine import _with_profiles


def _rollup_layer_by_layer(engine: Engine) -> dict[tuple[str, ...], list[Any]]:
    """The module tree's figures as its first version computed them, layer by layer."""
    from trtlog.engine.modules import layer_modules
    from trtlog.names import module_path

    stats: dict[tuple[str, ...], list[Any]] = {}

    def node(path: tuple[str, ...]) -> list[Any]:
        return stats.setdefault(path, [0, 0, 0, [], [], {}])

    node(())
    counted: set[str] = set()
    for layer, where in zip(engine.layers, layer_modules(engine), strict=True):
        precision = layer.precision.precision
        time = layer.time.average_ms if layer.time and layer.time.known else None
        touched: dict[tuple[str, ...], None] = {}
        for path, fraction in where.shares:
            for depth in range(len(path) + 1):
                module = path[:depth]
                touched[module] = None
                if time is None:
                    continue
                node(module)[3].append(time * fraction)
                if depth > len(where.home):
                    node(module)[4].append(time * fraction)
        for module in touched:
            node(module)[0] += 1
            if precision:
                mix = node(module)[5]
                mix[precision] = mix.get(precision, 0) + 1
        node(where.home)[1] += 1
        for n in layer.onnx_nodes:
            if n not in counted:
                counted.add(n)
                path = module_path(n)
                for depth in range(len(path) + 1):
                    node(path[:depth])[2] += 1
    return stats


def _same(a: float | None, b: float | None) -> bool:
    return a == b or (a is not None and b is not None and math.isnan(a) and math.isnan(b))


def _same_values(a: Any, b: Any) -> bool:
    """Two columns of figures equal value by value (NaN equal to NaN)."""
    return len(a) == len(b) and all(
        x == y or (isinstance(x, float) and isinstance(y, float) and x != x and y != y)
        for x, y in zip(a, b, strict=True)
    )


def _check(engine: Engine) -> None:
    """The figures and the tree equal the layer-by-layer walk, orders included."""
    figures = module_figures(engine)
    expected = _rollup_layer_by_layer(engine)
    assert figures.keys == ["".join("/" + p for p in path) for path in expected]
    entries = list(expected.values())
    assert figures.layers == [e[0] for e in entries]
    assert figures.own == [e[1] for e in entries]
    assert figures.nodes == [e[2] for e in entries]
    times = [total_of(e[3]) if e[3] else None for e in entries]
    assert all(_same(a, b) for a, b in zip(figures.time, times, strict=True))
    splits = [total_of(e[4]) for e in entries]
    assert all(_same(a, b) for a, b in zip(figures.split, splits, strict=True))
    assert [list(m.items()) for m in figures.precisions] == [list(e[5].items()) for e in entries]
    # the report hands the layers' columns it made already: the same figures (NaN as NaN)
    given = module_figures(engine, layer_columns(engine))
    assert [_same_values(a, b) for a, b in zip(given, figures, strict=True)] == [True] * len(
        figures
    )
    tree = engine.module_tree()
    walked = list(tree.walk())
    assert [n.name for n in walked] == [figures.keys[i] or "/" for i in figures.preorder]
    assert [n.layers for n in walked] == [figures.layers[i] for i in figures.preorder]
    assert tree.layers == len(engine.layers) or not engine.layers
    assert sum(n.own_layers for n in walked) == len(engine.layers)
    assert ModuleNode.model_validate(tree.model_dump()) == tree


@pytest.mark.parametrize("path, profile", _with_profiles(), ids=lambda p: getattr(p, "name", ""))
def test_figures_of_every_layer_json(path: Path, profile: Path | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = trtlog.load_engine(path, profile=profile)
    _check(engine)


def test_figures_of_every_log_engine() -> None:
    """Every log with a layer dump (about half of them print none: nothing to check there)."""
    checked = []
    for path in sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build = trtlog.parse(path)
        if build.engine is not None:
            _check(build.engine)
            checked.append(path.name)
    assert len(checked) >= 12, checked  # the fixtures alone hold twelve logs with layer dumps


def test_times_that_are_not_finite_add_up_as_ieee_adds_them() -> None:
    layers = (
        EngineLayer(index=0, name="/a/X", onnx_nodes=("/a/X",), time=LayerTime(average_ms=1.0)),
        EngineLayer(
            index=1, name="/a/Y", onnx_nodes=("/a/Y",), time=LayerTime(average_ms=math.inf)
        ),
        EngineLayer(
            index=2, name="/b/Z", onnx_nodes=("/b/Z",), time=LayerTime(average_ms=-math.inf)
        ),
    )
    engine = Engine(source="x", origin="layer_json", detailed=True, layers=layers)
    _check(engine)
    tree = engine.module_tree()
    assert math.isnan(tree.time_ms)  # inf + -inf
    assert tree.find("/a").time_ms == math.inf
    huge = Engine(
        source="x",
        origin="layer_json",
        detailed=True,
        layers=tuple(
            EngineLayer(
                index=i, name=f"/a/X{i}", onnx_nodes=(f"/a/X{i}",), time=LayerTime(average_ms=1e308)
            )
            for i in range(3)
        ),
    )
    _check(huge)
    assert huge.module_tree().time_ms == math.inf  # (fsum overflows: the plain sum)


# -- generated engines: hostile names, split regions, merges, reformats ------------------------

_NODES = [
    "/enc/l0/attn/MatMul",
    "/enc/l0/attn/Softmax",
    "/enc/l0/Add",
    "/enc/l1/attn/MatMul",
    "/enc/l1/mlp/Gemm",
    "/dec/Conv",
    "/Cast",
    "conv1",
    "enc.l0.weight",
    "a//b/Relu",
    "x/y/Op",
    "/trailing/",
    "/p q/(Unnamed Layer* 5) [Shuffle]",
    "/multi\nline/Op",
    "(Unnamed Layer* 9) [Constant]",
]
_TYPES = [None, "CaskConvolution", "Myelin", "kgen", "Reformat", "PointWiseV2", "gemm"]
_PRECISIONS = [None, "", "FP16", "INT8", "FP32", "BF16"]


@st.composite
def _engines(draw: Any) -> Engine:
    count = draw(st.integers(min_value=0, max_value=14))
    layers: list[EngineLayer] = []
    for i in range(count):
        nodes = tuple(draw(st.lists(st.sampled_from(_NODES), max_size=4)))
        shape = draw(st.sampled_from(["plain", "region", "merge", "kernel", "reformat"]))
        layer_type = draw(st.sampled_from(_TYPES))
        if shape == "region" and nodes:
            name = "{ForeignNode[" + nodes[0] + "..." + nodes[-1] + "]}"
        elif shape == "merge" and len(nodes) > 1:
            name = " || ".join(nodes)
        elif shape == "kernel":
            name = f"__myl_AddMul_myl0_{i}"
        elif shape == "reformat" or not nodes:
            target = draw(
                st.sampled_from([*_NODES, *(lay.name for lay in layers), "network_input"])
            )
            direction = draw(st.sampled_from(["Input", "Output"]))
            name = f"Reformatting CopyNode for {direction} Tensor 0 to {target}"
            nodes = draw(st.sampled_from([(), nodes]))
            layer_type = draw(st.sampled_from(["Reformat", None]))
        else:
            name = " + ".join(nodes)
        time = draw(
            st.one_of(
                st.none(),
                st.floats(min_value=0.0, max_value=5.0, allow_nan=False),
                st.sampled_from([0.1, 0.2, 0.3, 1e-9, -0.0]),
            )
        )
        precision = draw(st.sampled_from(_PRECISIONS))
        layers.append(
            EngineLayer(
                index=i,
                name=name,
                type=layer_type,
                onnx_nodes=nodes,
                outputs=(Tensor(name="t", dtype=precision or None),) if precision else (),
                time=None if time is None else LayerTime(average_ms=time),
            )
        )
    return Engine(source="g", origin="layer_json", detailed=True, layers=tuple(layers))


@settings(max_examples=100, deadline=None)
@given(_engines())
def test_figures_of_generated_engines(engine: Engine) -> None:
    _check(engine)
