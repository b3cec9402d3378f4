"""Views of an engine read from the loader's table, without layer objects (issue 15).

``Engine.groups("myelin")`` and the report's engine figures (layer count, total time) read
the layer JSON's values the loader kept (:meth:`Engine.layer_table`) while the layer
objects are pending; they must give what the layer objects give, over every fixture and
corpus layer JSON and a generated engine with Myelin kernels.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import trtlog
from trtlog.engine import Engine
from trtlog.html.data import engine_total_ms

from ..exports.test_lazy_engine import PAIRS, _bench_generator, _load


def _same_number(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _check(fast: Engine, general: Engine) -> None:
    assert fast.layer_table() is not None
    groups = fast.groups("myelin")
    assert "layers" not in fast.__dict__  # grouping built no layer object
    assert fast.layer_count() == len(general.layers)
    assert _same_number(engine_total_ms(fast), general.total_ms)
    assert "layers" not in fast.__dict__
    assert groups == general.groups("myelin")
    # and once the layers are built, the objects' answers are the same
    assert fast.groups("myelin") == groups
    assert _same_number(engine_total_ms(fast), general.total_ms)


@pytest.mark.parametrize(("path", "profile"), PAIRS, ids=[p.name for p, _ in PAIRS])
def test_groups_and_totals_from_the_table_equal_the_layer_objects(
    path: Path, profile: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _load(path, profile, False, monkeypatch)
    general = _load(path, profile, True, monkeypatch)
    if fast.layer_table() is None:  # the loader's general path: the objects answer
        assert fast.groups("myelin") == general.groups("myelin")
        assert _same_number(engine_total_ms(fast), general.total_ms)
        return
    _check(fast, general)


@pytest.mark.parametrize("shape", [10, 11])
@pytest.mark.parametrize("timed", [True, False])
def test_a_generated_engine_with_myelin_kernels_groups_alike(
    shape: int, timed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    value, profile = _bench_generator().generate(400, "t", shape, True)  # type: ignore[attr-defined]
    layers_path = tmp_path / "e.json"
    layers_path.write_text(json.dumps(value, indent=4))
    profile_path = None
    if timed:
        profile_path = tmp_path / "p.json"
        profile_path.write_text(json.dumps(profile[:-30]))  # some layers without a time
    fast = _load(layers_path, profile_path, False, monkeypatch)
    general = _load(layers_path, profile_path, True, monkeypatch)
    _check(fast, general)
    groups = fast.groups("myelin")
    # the generator writes {ForeignNode[...]} regions, one group each
    assert sum(g.graph is None and g.region is not None for g in groups) == 100
    assert timed == any(not math.isnan(g.time_ms) for g in groups)


def test_kernel_groups_from_the_table() -> None:
    # a detailed engine whose kernels (_myl<g>_<i>) make groups of several layers
    found = [
        (p, q)
        for p, q in PAIRS
        if (e := trtlog.load_engine(p)).layer_table() is not None
        and any(len(g.kernels) > 1 for g in e.groups("myelin"))
    ]
    if not found:
        pytest.skip("no layer JSON with Myelin kernels (the corpus is absent)")
    for path, profile in found:
        for given in {None, profile}:
            fast = trtlog.load_engine(path, profile=given)
            if fast.layer_table() is None:  # the tolerant merge built the layers
                continue
            groups = fast.groups("myelin")
            assert "layers" not in fast.__dict__
            assert groups == fast.model_copy().groups("myelin")  # a copy reads the objects
