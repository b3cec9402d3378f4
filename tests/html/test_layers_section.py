"""The report's Layers section from the frame's columns equals the one from the layers frame.

``_layers`` reads the columns the layers frame is made of
(:func:`trtlog.engine.rows.layer_columns`) without making the frame, and the Myelin groups as
values (:func:`trtlog.engine.myelin.group_values`) without their models. Both must give
what the frame and ``Engine.groups`` give: every fixture and corpus layer JSON, with and
without its profile, and generated engines whose Myelin kernels, regions and loose kernels
are found by a scan of the names.
"""

from __future__ import annotations

import json
import math
import warnings
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trtlog
from tests.engine.test_engine import _with_profiles
from trtlog.engine import Engine, EngineLayer
from trtlog.engine.model import MYELIN_LAYER_TYPES, LayerTime
from trtlog.engine.myelin import MyelinGroup, group_values, names_with
from trtlog.html.data import Strings, _layers
from trtlog.names import parse_kernel_name


def _pairs() -> list[tuple[Path, Path | None]]:
    out: list[tuple[Path, Path | None]] = []
    for path, profile in _with_profiles():
        out.append((path, None))
        if profile is not None:
            out.append((path, profile))
    return out


@pytest.mark.parametrize("path, profile", _pairs(), ids=lambda p: getattr(p, "name", "none"))
def test_layers_section_from_the_columns_equals_the_frame_s(
    path: Path, profile: Path | None
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = trtlog.load_engine(path, profile=profile)
    fast_strings, general_strings = Strings(), Strings()
    fast = _layers(engine, fast_strings)
    general = _layers(engine, general_strings, general=True)
    # the same JSON, and the same strings entered in the same order (the page's bytes)
    assert json.dumps(fast) == json.dumps(general)
    assert fast_strings.items == general_strings.items
    # and the groups shown are Engine.groups' (the models made of the same values)
    groups = engine.groups("myelin")
    assert [g["label"] for g in fast["myelin"]] == [
        g.region or f"Myelin graph {g.graph}" for g in groups
    ]
    assert [g["summary"] for g in fast["myelin"]] == [g.summary for g in groups]


def _groups_layer_by_layer(engine: Engine) -> list[MyelinGroup]:
    """``myelin_groups`` as it was written: every layer looked at, from the layer objects."""
    by_graph: dict[int, list[EngineLayer]] = {}
    loose: list[EngineLayer] = []
    groups: list[MyelinGroup] = []
    for layer in engine.layers:
        kernel = layer.myelin
        if kernel is not None:
            by_graph.setdefault(kernel.graph, []).append(layer)
        elif layer.is_myelin_kernel:
            loose.append(layer)
        elif layer.name.startswith("{ForeignNode[") or layer.type == "Myelin":
            time = layer.time
            groups.append(
                MyelinGroup(
                    graph=None,
                    region=layer.name,
                    kernels=tuple(time.profile_names)
                    if time and len(time.profile_names) > 1
                    else (),
                    onnx_nodes=layer.onnx_nodes,
                    time_ms=time.average_ms if time and time.known else math.nan,
                )
            )
    if loose:
        by_graph.setdefault(-1, []).extend(loose)
    labels = iter(engine.regions)
    for graph, members in sorted(by_graph.items()):
        known = [m.time.average_ms for m in members if m.time and m.time.known]
        groups.append(
            MyelinGroup(
                graph=graph if graph >= 0 else None,
                region=next(labels, None) if graph >= 0 else None,
                kernels=tuple(m.name for m in members),
                kernel_types=dict(Counter(m.type or "?" for m in members)),
                ops={
                    m.name: k.ops
                    for m in members
                    if (k := parse_kernel_name(m.name)) is not None and k.generated
                },
                onnx_nodes=tuple(dict.fromkeys(n for m in members for n in m.onnx_nodes)),
                time_ms=math.fsum(known) if known else math.nan,
            )
        )
    return groups


def _same_groups(got: list[MyelinGroup], expected: list[MyelinGroup]) -> None:
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        da, db = a.model_dump(), b.model_dump()
        ta, tb = da.pop("time_ms"), db.pop("time_ms")
        assert da == db
        assert ta == tb or (math.isnan(ta) and math.isnan(tb))
        assert a.model_fields_set == b.model_fields_set


@pytest.mark.parametrize("path, profile", _pairs(), ids=lambda p: getattr(p, "name", "none"))
def test_group_values_find_the_groups_of_the_layer_by_layer_walk(
    path: Path, profile: Path | None
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = trtlog.load_engine(path, profile=profile)
    _same_groups(engine.groups("myelin"), _groups_layer_by_layer(engine))


_NAMES = [
    "__myl_AddMul_myl0_1",
    "__myl_CastMean_myl0_2",
    "/l0/key/MatMul+/l0/query/MatMul_myl1_0",
    "{ForeignNode[/a/MatMul.../a/Softmax]}",
    "x{ForeignNode[y]}",
    "/conv/Conv",
    "Reformatting CopyNode for Input Tensor 0 to /conv/Conv",
    "a_myl",
    "line\nbreak_myl2_3",
    "",
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_NAMES),
            st.sampled_from([None, "Myelin", "kgen", "gemm", "CaskConvolution", "Reformat"]),
            st.one_of(st.none(), st.floats(min_value=0, max_value=3, allow_nan=False)),
        ),
        max_size=12,
    )
)
def test_group_values_on_generated_engines(
    rows: list[tuple[str, str | None, float | None]],
) -> None:
    layers = tuple(
        EngineLayer(
            index=i,
            name=name,
            type=kind,
            onnx_nodes=(f"/m{i}/Op",),
            time=None if t is None else LayerTime(average_ms=t),
        )
        for i, (name, kind, t) in enumerate(rows)
    )
    engine = Engine(source="g", origin="layer_json", detailed=True, layers=layers)
    _same_groups(engine.groups("myelin"), _groups_layer_by_layer(engine))
    assert [g.region for g in group_values(engine)] == [
        g.region for g in _groups_layer_by_layer(engine)
    ]


@given(st.lists(st.text(alphabet="ab_myl|{F \n", max_size=8), max_size=10))
def test_names_with_finds_every_name_holding_a_needle(names: list[str]) -> None:
    needles = ("_myl", " || ", "{F")
    assert names_with(names, needles) == [
        i for i, name in enumerate(names) if any(n in name for n in needles)
    ]
    assert "Myelin" not in MYELIN_LAYER_TYPES  # (why group_values adds the region type)
