"""The module tree's figures from integer-coded modules equal the general rollup (issue 15).

:func:`trtlog.engine.modules.module_figures` (what ``Engine.module_tree()`` and the report's
Modules section are made of) numbers the modules and adds their figures up with numpy; it
must give exactly what :func:`~trtlog.engine.modules.module_rollup` gives, layer by layer:
the same modules in the same order, the same counts, the same precision mixes (key order
included) and the same sums of times, over every fixture and corpus layer JSON and log
engine, and over generated engines with hostile names, split regions and reformats.
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
from trtlog.engine.model import LayerTime
from trtlog.engine.modules import (
    ModuleFigures,
    ModuleNode,
    _columns,
    _fast_figures,
    _figures_of_rollup,
    module_figures,
    module_rollup,
)
from trtlog.tensors import Tensor

from .test_engine import _with_profiles


def _general_tree(engine: Engine) -> ModuleNode:
    """``module_tree`` as it was made before the figures: models from ``module_rollup``."""
    stats, kids = module_rollup(engine)

    def build(path: tuple[str, ...]) -> ModuleNode:
        layers, own, nodes, times, split, precisions = stats[path]
        return ModuleNode(
            path=path,
            layers=layers,
            own_layers=own,
            onnx_nodes=nodes,
            time_ms=trtlog.engine.model.total_of(times) if times else math.nan,
            split_ms=trtlog.engine.model.total_of(split),
            precisions=dict(precisions),
            children=tuple(build(c) for c in kids.get(path, ())),
        )

    return build(())


def _same_tree(a: ModuleNode, b: ModuleNode) -> None:
    assert a.path == b.path
    assert (a.layers, a.own_layers, a.onnx_nodes) == (b.layers, b.own_layers, b.onnx_nodes)
    assert list(a.precisions.items()) == list(b.precisions.items()), a.name
    assert a.time_ms == b.time_ms or (math.isnan(a.time_ms) and math.isnan(b.time_ms)), a.name
    assert a.split_ms == b.split_ms or (math.isnan(a.split_ms) and math.isnan(b.split_ms))
    assert [c.path for c in a.children] == [c.path for c in b.children], a.name
    for x, y in zip(a.children, b.children, strict=True):
        _same_tree(x, y)


def _check(engine: Engine, fast_expected: bool = True) -> ModuleFigures | None:
    """The fast figures equal the general ones (``None`` when the fast path declines)."""
    fast = _fast_figures(_columns(engine))
    general = _figures_of_rollup(_columns(engine))
    if fast is None:
        assert not fast_expected, "the fast path declined a finite engine"
    else:
        for field in ModuleFigures._fields:
            got, expected = getattr(fast, field), getattr(general, field)
            if field == "precisions":  # (the key order is the page's too)
                got = [list(mix.items()) for mix in got]
                expected = [list(mix.items()) for mix in expected]
            assert got == expected, field
        # the module keys are module_rollup's paths, in its order
        stats, _ = module_rollup(engine)
        assert fast.keys == ["".join("/" + p for p in path) for path in stats]
    chosen = module_figures(engine)
    for field in ModuleFigures._fields:  # (NaN as NaN)
        assert repr(getattr(chosen, field)) == repr(getattr(fast or general, field)), field
    tree = engine.module_tree()
    _same_tree(tree, _general_tree(engine))
    assert ModuleNode.model_validate(tree.model_dump()) == tree
    return fast


@pytest.mark.parametrize("path, profile", _with_profiles(), ids=lambda p: getattr(p, "name", ""))
def test_figures_equal_the_rollup_on_every_layer_json(path: Path, profile: Path | None) -> None:
    """From the loader's values (no layer object) and from the layer objects (a copy)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = trtlog.load_engine(path, profile=profile)
    assert engine.layer_table() is not None
    _check(engine)
    assert "layers" not in engine.__dict__, "the figures built the layer objects"
    _check(engine.model_copy())


def _log_engines() -> list[Path]:
    return sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs()


def test_figures_equal_the_rollup_on_every_log_engine() -> None:
    """Every log with a layer dump (about half of them print none: nothing to check there)."""
    checked = []
    for path in _log_engines():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build = trtlog.parse(path)
        if build.engine is not None:
            _check(build.engine)
            checked.append(path.name)
    assert len(checked) >= 12, checked  # the fixtures alone hold twelve logs with layer dumps


def test_a_time_that_is_not_finite_takes_the_general_path() -> None:
    """``total_of`` adds infinities and NaN as IEEE does (in order): the rollup answers."""
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
    assert _check(engine, fast_expected=False) is None
    assert engine.module_tree().time_ms != engine.module_tree().time_ms  # inf + -inf: NaN
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
    assert _check(huge, fast_expected=False) is None  # fsum would overflow: the general path


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
def test_figures_equal_the_rollup_on_generated_engines(engine: Engine) -> None:
    _check(engine)
