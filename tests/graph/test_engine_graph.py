"""The engine's layer graph: nodes, tensor edges and Myelin folding checked against raw text."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES
from trtlog.graph.engine_graph import engine_graph, write_engine_graph
from trtlog.graph.layout import layered_layout

SMALLNET = FIXTURES / "layer_info" / "trt11.5-like_smallnet-fp32_layers-detailed.json"
RESNET = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json"
BERT = FIXTURES / "logs" / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log"
NAMES_ONLY = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8_layers-names.json"
LIDAR = CORPUS / "trt-unknown_lidar-dmt-model-qdq-tofp16_layers-detailed.json"


def _raw_layers(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    layers = data["Layers"] if isinstance(data, dict) else data[1:]
    return [x for x in layers if isinstance(x, dict)]


def _engine(log: Path) -> trtlog.Engine:
    engine = trtlog.parse(log).engine
    assert engine is not None
    return engine


@pytest.mark.parametrize("path", [SMALLNET, RESNET])
def test_every_layer_is_a_node_and_every_input_tensor_an_edge(path: Path) -> None:
    raw = _raw_layers(path)
    graph = engine_graph(trtlog.load_engine(path))
    assert graph.layer_count == len(raw)
    assert [n.label for n in graph.nodes[: len(raw)]] == [x["Name"] for x in raw]
    # each (tensor, reader) pair of the raw JSON is one edge into that layer
    wanted = Counter((t["Name"], i) for i, x in enumerate(raw) for t in x["Inputs"])
    found = Counter((e.tensor, e.target) for e in graph.edges if e.target < len(raw))
    assert found == wanted
    # the writer of each edge wrote that tensor (raw Outputs), else it is a network input
    for e in graph.edges:
        if e.target >= len(raw):
            continue
        source = graph.nodes[e.source]
        if source.kind == "layer":
            outputs = [t["Name"] for t in raw[e.source]["Outputs"]]
            assert e.tensor in outputs
        else:
            assert source.kind == "input" and source.label == e.tensor


def test_edges_carry_shape_type_and_format_from_the_json() -> None:
    raw = _raw_layers(SMALLNET)
    graph = engine_graph(trtlog.load_engine(SMALLNET))
    first = next(e for e in graph.edges if e.target == 0)
    tensor = raw[0]["Inputs"][0]
    assert first.tensor == tensor["Name"]
    assert first.dims == "x".join(map(str, tensor["Dimensions"]))
    assert first.dtype == "FP32"
    assert "linear" in first.label and first.dims in first.label


def test_myelin_kernels_fold_into_their_region() -> None:
    text = BERT.read_text()
    kernels: dict[str, list[str]] = {}
    for name in re.findall(r"^Name: (.*?), LayerType:", text, re.M):
        found = re.search(r"_myl(\d+)_\d+$", name)
        if found:
            kernels.setdefault(found.group(1), []).append(name)
    graph = engine_graph(_engine(BERT))
    assert kernels and len(graph.regions) == len(kernels)
    for region in graph.regions:
        assert [graph.nodes[i].label for i in region.members] == kernels[str(region.graph)]
    folded = graph.view()
    # folded: the region is one node, its kernels are not drawn
    assert {r.node for r in graph.regions} <= set(folded.nodes)
    assert not set(graph.regions[0].members) & set(folded.nodes)
    opened = graph.view([0])
    assert set(graph.regions[0].members) <= set(opened.nodes)
    assert graph.regions[0].node not in opened.nodes


def test_a_names_only_export_has_nodes_and_no_edges() -> None:
    engine = trtlog.load_engine(NAMES_ONLY)
    graph = engine_graph(engine)
    assert graph.layer_count == len(engine.layers) and not graph.edges
    # drawn in execution order, one under the other
    view = graph.view()
    assert view.layout.ranks == list(range(len(engine.layers))) and view.layout.edges == []


def test_layout_ranks_go_down_and_rows_do_not_overlap() -> None:
    graph = engine_graph(trtlog.load_engine(RESNET))
    view = graph.view()
    layout = view.layout
    at = {v: k for k, v in enumerate(view.nodes)}
    for a, b in view.ends:  # execution order is topological here: every edge goes down
        assert layout.ranks[at[b]] > layout.ranks[at[a]]
    rows: dict[float, list[tuple[float, float]]] = {}
    for i, (x, y) in zip(view.nodes, layout.nodes, strict=True):
        w = 16 + 6.6 * min(len(graph.nodes[i].label), 28)
        rows.setdefault(y, []).append((x - w / 2, x + w / 2))
    for boxes in rows.values():
        boxes.sort()
        for (_, right), (left, _) in pairwise(boxes):
            assert left >= right - 1e-6


def test_layout_reverses_an_edge_against_the_order_and_keeps_its_direction() -> None:
    placed = layered_layout([10.0, 10.0, 10.0], [(0, 1), (2, 1), (1, 1)])
    assert placed.ranks[1] > placed.ranks[0]
    path = placed.edges[1]  # 2 -> 1: starts at node 2
    assert path[0] == placed.nodes[2] and path[-1] == placed.nodes[1]


def test_svg_dot_and_graphml(tmp_path: Path) -> None:
    graph = engine_graph(_engine(BERT))
    view = graph.view()
    svg = ET.parse(write_engine_graph(graph, str(tmp_path / "g.svg")))
    ns = "{http://www.w3.org/2000/svg}"
    nodes = [g for g in svg.iter(f"{ns}g") if "node" in g.get("class", "").split()]
    assert len(nodes) == len(view.nodes)
    titles = {g.find(f"{ns}title").text.split("\n")[0] for g in nodes}  # type: ignore[union-attr]
    assert graph.regions[0].label in titles
    dot = Path(write_engine_graph(graph, str(tmp_path / "g.dot"))).read_text()
    assert dot.startswith("digraph engine {") and dot.count(" -> ") == len(view.edges)
    read = nx.read_graphml(write_engine_graph(graph, str(tmp_path / "g.graphml"), opened=[0]))
    assert read.number_of_nodes() == len(graph.view([0]).nodes)
    with pytest.raises(ValueError, match=r"\.svg, \.dot or \.graphml"):
        write_engine_graph(graph, str(tmp_path / "g.png"))


@pytest.mark.skipif(not LIDAR.exists(), reason="the corpus is not there")
def test_the_1309_layer_engine_folds_into_a_drawable_graph() -> None:
    raw = _raw_layers(LIDAR)
    graph = engine_graph(trtlog.load_engine(LIDAR))
    assert graph.layer_count == len(raw) == 1309
    # every kernel whose raw name says _myl<N>_ sits in region N
    by_graph = Counter(m.group(1) for x in raw if (m := re.search(r"_myl(\d+)_", str(x["Name"]))))
    assert {str(r.graph): len(r.members) for r in graph.regions} == dict(by_graph)
    opened = graph.view(range(len(graph.regions)))
    assert len([i for i in opened.nodes if graph.nodes[i].kind == "layer"]) == 1309


@pytest.mark.parametrize("path", [SMALLNET, RESNET, LIDAR])
def test_the_graph_of_columns_made_already_is_the_same(path: Path) -> None:
    """The report hands engine_graph the layers' columns its layers section made."""
    from trtlog.engine.rows import layer_columns

    if not path.exists():
        pytest.skip(f"{path.name} is not there (the corpus is absent)")
    engine = trtlog.load_engine(path)
    made, own = engine_graph(engine, layer_columns(engine)), engine_graph(engine)
    assert (made.nodes, made.edges, made.regions) == (own.nodes, own.edges, own.regions)
