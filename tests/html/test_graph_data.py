"""The report's merge-graph columns (``trtlog.html.data._graph_data``) against a plain reading.

Issue 15: the page's graph data is built in bulk (one read per node and per edge, lookups by
``map``, a string table filled in one go) for an engine of 20,000 layers. This module reads
the same graph the obvious way (a list per column, one fate at a time through
``MergeGraph.fate_edges``) and checks both give the same data and the same string table, for
every fixture and corpus log, with and without an engine passed in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.buildlog.test_store import LOGS
from tests.conftest import FIXTURES
from trtlog.graph import FLOWS, MergeGraph
from trtlog.graph.core import GraphCore
from trtlog.graph.from_events import graph_core
from trtlog.html.data import (
    _FATE_KINDS,
    _NODE_KINDS,
    ORIGINAL_FATES,
    Strings,
    _graph_data,
)


def _reference(graph: MergeGraph, s: Strings) -> dict[str, Any]:
    """The page's graph data, one plain column at a time (the reading before issue 15's bulk)."""
    node_data = graph.node_data()
    node_ids = list(node_data)
    datas = list(node_data.values())
    ids = {node_id: i for i, node_id in enumerate(node_ids)}
    kind_code = {k: i for i, k in enumerate(_NODE_KINDS)}
    node_kinds = [d.get("kind", "intermediate") for d in datas]
    by_name: dict[str, int] = {}
    layer_ids: dict[str, int] = {}
    for i, (k, d) in enumerate(zip(node_kinds, datas, strict=True)):
        if k == "engine_layer":
            layer_ids[d["name"]] = i
        elif k in ("onnx_node", "onnx_initializer"):
            by_name.setdefault(d["name"], i)
    names = [s(d.get("name", n)) for n, d in zip(node_ids, datas, strict=True)]
    ops = [s(d.get("op")) for d in datas]
    relations, evidence = Strings(), Strings()
    edges = [(a, b, d) for a, targets in graph.out_adjacency().items() for b, d in targets.items()]
    es = [ids[a] for a, _, _ in edges]
    et = [ids[b] for _, b, _ in edges]
    rel = [relations(d.get("relation", "")) for _, _, d in edges]
    passes = [s(d.get("pass_name")) for _, _, d in edges]
    at = [d.get("line") or 0 for _, _, d in edges]
    ev = [evidence(d.get("evidence") or "log") for _, _, d in edges]
    edge_at = {id(d): k for k, (_, _, d) in enumerate(edges)}
    fates: dict[str, list[Any]] = {"node": [], "kind": [], "reason": [], "finals": [], "steps": []}

    def add(index: int | None, start: str) -> None:
        kind, reason, finals, fate_steps = graph.fate_edges(start)
        fates["node"].append(index)
        fates["kind"].append(_FATE_KINDS.index(kind))
        fates["reason"].append(s(reason))
        fates["finals"].append([layer_ids.get(node_data[n]["name"], -1) for n in finals])
        fates["steps"].append([edge_at[id(d)] for _, _, d in fate_steps])

    onnx = sorted(
        (d.get("order", 0), d["name"], n)
        for n, d in node_data.items()
        if d.get("kind") == "onnx_node"
    )
    for _, name, node_id in onnx:
        add(by_name.get(name), node_id)
    sources = graph.in_adjacency()
    originals = [
        n
        for n, d in zip(node_ids, datas, strict=True)
        if d.get("kind") == "intermediate" and not sources[n]
    ]
    if len(originals) <= ORIGINAL_FATES:
        for n in originals:
            start = graph.find(
                node_data[n]["name"],
                ("onnx_node", "onnx_initializer", "intermediate", "engine_layer"),
            )
            assert start is not None
            add(ids[n], start)
    return {
        "nodes": {
            "name": names,
            "kind": [kind_code.get(k, 2) for k in node_kinds],
            "op": ops,
            "order": [d.get("order") for d in datas],
            "layer": [
                d.get("index") if k == "engine_layer" else None
                for k, d in zip(node_kinds, datas, strict=True)
            ],
        },
        "edges": {"s": es, "t": et, "rel": rel, "pass": passes, "line": at, "ev": ev},
        "nodeKinds": list(_NODE_KINDS),
        "fateKinds": list(_FATE_KINDS),
        "relations": relations.items,
        "evidence": evidence.items,
        "flows": sorted(FLOWS),
        "originals": len(originals),
        "originalFates": len(originals) <= ORIGINAL_FATES,
        "finalFrom": graph.graph.get("final_layers_from"),
        "finished": bool(graph.graph.get("build_finished")),
        "fates": fates,
    }


def _same(graph: MergeGraph) -> None:
    fast, plain = Strings(), Strings()
    fast("already there")  # the table is shared with the page's other sections
    plain("already there")
    data = _graph_data(graph, fast)
    assert data == _reference(graph, plain)
    assert fast.items == plain.items
    onnx = sum(d.get("kind") == "onnx_node" for d in graph.node_data().values())
    assert len(data["fates"]["node"]) >= onnx  # every ONNX node has its fate


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_graph_data_is_the_plain_reading(path: Path) -> None:
    _same(trtlog.parse(path).merge_graph())


LAYERS = FIXTURES / "layer_info"


@pytest.mark.parametrize(
    ("log", "layers"),
    [
        (
            "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log",
            "trt10.16-like_smallnet-fp16_layers-detailed.json",
        ),
        (
            "trt11.5-like_smallnet-fp32_build-verbose-dumpLayerInfo.log",
            "trt11.5-like_smallnet-fp32_layers-detailed.json",
        ),
        (
            "hostile-terminal_build-verbose-dumpLayerInfo.log",
            "hostile-terminal_layers-detailed.json",
        ),
        (
            "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log",
            "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json",
        ),
    ],
)
def test_graph_data_with_an_engine_is_the_plain_reading(log: str, layers: str) -> None:
    build = trtlog.parse(FIXTURES / "logs" / log)
    graph = build.merge_graph(trtlog.load_engine(LAYERS / layers))
    _same(graph)
    # the report reads the graph's core (no networkx): the same data
    core = graph_core(build, trtlog.load_engine(LAYERS / layers))
    assert _graph_data(core, Strings()) == _graph_data(graph, Strings())
    _same_without_in_edges(build, trtlog.load_engine(LAYERS / layers))


def _same_without_in_edges(build: trtlog.Build, engine: trtlog.Engine | None = None) -> None:
    """The page's core, which keeps no in-edges, holds the nodes and out-edges of the full one."""
    full = graph_core(build, engine)
    light = graph_core(build, engine, in_edges=False)
    assert light.graph == full.graph
    assert list(light.node_data().items()) == list(full.node_data().items())
    assert [(a, list(out.items())) for a, out in light.out_adjacency().items()] == [
        (a, list(out.items())) for a, out in full.out_adjacency().items()
    ]
    assert _graph_data(light, Strings()) == _graph_data(full, Strings())
    assert not light.keeps_in_edges and full.keeps_in_edges
    with pytest.raises(RuntimeError, match="keeps no in-edges"):
        light.in_adjacency()
    with pytest.raises(ValueError, match="in-edges"):
        MergeGraph.adopt(light)


def test_a_core_without_in_edges_adds_nodes_and_edges_as_the_full_one() -> None:
    cores = [GraphCore(source="x"), GraphCore.without_in_edges(source="x")]
    for core in cores:
        core.insert("onnx:a", {"kind": "onnx_node", "name": "a", "op": None, "line": 1})
        core.relate("onnx:a", core.layer("a"), "registered as", None, 1)
        core.relate(core.layer("a"), "layer:b", "merged into", "Fusion", 2)  # b added bare
        core.relate(core.layer("a"), "layer:b", "merged into", "Fusion", 3)  # kept as it is
    full, light = cores
    assert light.node_data() == full.node_data() and light.graph == full.graph
    assert light.out_adjacency() == full.out_adjacency()
    assert full.in_adjacency()["layer:b"] == {"layer:a": full.out_adjacency()["layer:a"]["layer:b"]}
    assert light._pred == {}


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_a_core_without_in_edges_is_the_full_one_but_them(path: Path) -> None:
    _same_without_in_edges(trtlog.parse(path))


def test_graph_data_of_a_node_and_an_initializer_of_one_name() -> None:
    """A name held by an ONNX node and an initializer: a fate points at the first one."""
    graph = MergeGraph(source="hand-made")
    graph.insert("init:w", {"kind": "onnx_initializer", "name": "w", "line": 1})
    graph.insert(
        "onnx:w", {"kind": "onnx_node", "name": "w", "op": "Constant", "line": 2, "order": 0}
    )
    graph.insert("onnx:c", {"kind": "onnx_node", "name": "c", "op": "Conv", "line": 3, "order": 1})
    graph.insert("layer:c", {"kind": "engine_layer", "name": "c", "line": 0, "index": 0})
    graph.relate("onnx:w", "layer:c", "merged into", None, 0, "dataflow")
    graph.relate("init:w", "layer:c", "merged into", None, 0, "name")
    graph.relate("onnx:c", "layer:c", "registered as", None, 3)
    graph.graph["final_layers_known"] = True
    _same(graph)
    data = _graph_data(graph, Strings())
    assert data["fates"]["node"][:2] == [0, 2]  # w is its initializer (added first), then c


def test_graph_data_of_an_irregular_graph_is_the_plain_reading() -> None:
    """The columns' general path: what no graph trtlog builds has, read as the plain reading.

    A node added bare (an edge to a missing node), ONNX nodes whose parse order is not their
    node order, and out-edges kept in another order than the nodes: the page's columns fall
    back to reading defaults, sorting and looking positions up.
    """
    graph = MergeGraph(source="hand-made")
    graph.insert("onnx:b", {"kind": "onnx_node", "name": "b", "op": "Relu", "line": 2, "order": 1})
    graph.insert("onnx:a", {"kind": "onnx_node", "name": "a", "op": "Conv", "line": 1, "order": 0})
    graph.insert("layer:a + b", {"kind": "engine_layer", "name": "a + b", "line": 0, "index": 0})
    graph.insert("layer:x", {"kind": "intermediate", "name": "x", "line": 0})
    graph.relate("onnx:a", "layer:a + b", "merged into", "Fusion", 5)
    graph.relate("onnx:b", "layer:x", "registered as", None, 2)
    graph.relate("bare", "layer:x", "merged into", None, 0, "name")  # a node without attributes
    graph.graph["final_layers_known"] = True
    _same(graph)
    data = _graph_data(graph, Strings())
    assert data["fates"]["node"] == [1, 0]  # a (order 0) first
    assert data["nodes"]["kind"][-1] == 2  # the bare node reads as an intermediate
    # out-edges in another order than the nodes (a core's dicts, reordered by hand)
    core = GraphCore(source="hand-made")
    core.insert("onnx:a", {"kind": "onnx_node", "name": "a", "op": None, "line": 1, "order": 0})
    core.insert("onnx:c", {"kind": "onnx_node", "name": "c", "op": None, "line": 2, "order": 1})
    core.insert("layer:c", {"kind": "engine_layer", "name": "c", "line": 0, "index": 0})
    core.relate("onnx:c", "layer:c", "registered as", None, 2)
    core.relate("onnx:a", "layer:c", "merged into", "Fusion", 3)
    core.graph["final_layers_known"] = True
    succ = core.out_adjacency()
    reordered = dict(reversed(succ.items()))
    succ.clear()
    succ.update(reordered)
    fast, plain = Strings(), Strings()
    assert _graph_data(core, fast) == _reference(core, plain)  # type: ignore[arg-type]
    assert fast.items == plain.items


def test_graph_data_of_engine_layers_sharing_a_name_is_the_plain_reading() -> None:
    # a fate's final layer is found by name (the last engine layer of a name): the columns'
    # shortcut takes the layer's own position only when every engine layer's name is its own
    core = GraphCore(source="hand-made")
    core.insert("onnx:a", {"kind": "onnx_node", "name": "a", "op": None, "line": 1, "order": 0})
    core.insert("onnx:b", {"kind": "onnx_node", "name": "b", "op": None, "line": 2, "order": 1})
    core.insert("first", {"kind": "engine_layer", "name": "L", "line": 0, "index": 0})
    core.insert("second", {"kind": "engine_layer", "name": "L", "line": 0, "index": 1})
    core.relate("onnx:a", "first", "merged into", None, 0, "metadata")
    core.relate("onnx:b", "second", "merged into", None, 0, "metadata")
    core.graph["final_layers_known"] = True
    fast, plain = Strings(), Strings()
    data = _graph_data(core, fast)
    assert data == _reference(core, plain)  # type: ignore[arg-type]
    assert data["fates"]["finals"] == [[3], [3]]  # both: the last layer named L


def test_graph_data_of_a_node_of_an_unknown_kind_is_the_plain_reading() -> None:
    """A kind the page does not know reads as an intermediate, but is selected as none.

    The page selects the nodes of each kind by their codes: an unknown kind must not join the
    intermediates (an original with a fate) nor the ONNX nodes.
    """
    graph = MergeGraph(source="hand-made")
    graph.insert("onnx:a", {"kind": "onnx_node", "name": "a", "op": "Conv", "line": 1, "order": 0})
    graph.insert("odd:a", {"kind": "mystery", "name": "a", "line": 0})
    graph.insert("odd:z", {"kind": "mystery", "name": "z", "line": 0})
    graph.insert("layer:a", {"kind": "engine_layer", "name": "a", "line": 0, "index": 0})
    graph.relate("onnx:a", "layer:a", "registered as", None, 1)
    graph.relate("odd:a", "layer:a", "merged into", None, 0, "name")
    graph.graph["final_layers_known"] = True
    _same(graph)
    data = _graph_data(graph, Strings())
    assert data["nodes"]["kind"] == [0, 2, 2, 3]
    assert data["originals"] == 0  # neither odd node is an intermediate without a source
    assert data["fates"]["node"] == [0]


@pytest.mark.parametrize(
    "texts",
    [[], ["a", "b", "a", "c"], ["b", "x", "x", "y"], ["a", None, "z", None], [None, None]],
)
def test_many_new_is_the_tables_many(texts: list[str | None]) -> None:
    """The page's one-pass fill of the string table gives what ``Strings.many`` gives."""
    fast, plain = Strings(), Strings()
    for table in (fast, plain):
        table("a")
        table("b")
    assert fast.many_new(texts) == plain.many(texts)
    assert fast.items == plain.items
    assert fast.index == plain.index
