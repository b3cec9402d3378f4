"""The report's merge graph section says what the merge graph says.

The page's explorer reads the section's columns (nodes, edges, fates: ``trtlog.html.data``):
every node, edge and fate it shows is checked here against the merge graph's own answers
(its networkx nodes and edges, :meth:`MergeGraph.fates` and :meth:`MergeGraph.fate`), on
every fixture and corpus log, with and without an engine given apart from the log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.buildlog.test_store import LOGS
from tests.conftest import FIXTURES
from trtlog.graph import FLOWS, Fate, MergeGraph
from trtlog.html import data as page_data
from trtlog.html.data import Strings, _graph_texts, graph_strings, graph_texts

LAYERS = FIXTURES / "layer_info"


def _fate_shown(section: dict[str, Any], k: int) -> tuple[Any, ...]:
    """The ``k``-th fate of the section as the page shows it: names, not positions."""
    nodes, edges, fates = section["nodes"], section["edges"], section["fates"]
    names = nodes["name"]
    steps = [
        (
            section["relations"][edges["rel"][e]],
            names[edges["s"][e]],
            names[edges["t"][e]],
            edges["pass"][e],
            edges["line"][e],
            section["evidence"][edges["ev"][e]],
        )
        for e in fates["steps"][k]
    ]
    finals = tuple(names[n] for n in fates["finals"][k] if n >= 0)
    kind = section["fateKinds"][fates["kind"][k]]
    return names[fates["node"][k]], kind, fates["reason"][k], finals, steps


def _fate_said(fate: Fate) -> tuple[Any, ...]:
    steps = [(s.relation, s.source, s.target, s.pass_name, s.line, s.evidence) for s in fate.steps]
    return fate.node, fate.kind, fate.reason, fate.final_layers, steps


def _check(graph: MergeGraph, section: dict[str, Any]) -> None:
    """Every figure of ``section`` (texts not yet in a string table) is the graph's."""
    nodes = list(graph.node_data().items())
    kinds = section["nodeKinds"]
    shown = section["nodes"]
    assert shown["name"] == [d["name"] for _, d in nodes]
    known = ("onnx_node", "onnx_initializer", "intermediate", "engine_layer", "pass")
    assert [kinds[k] for k in shown["kind"]] == [
        d["kind"] if d["kind"] in known else "intermediate" for _, d in nodes
    ]
    assert shown["op"] == [d.get("op") for _, d in nodes]
    assert shown["order"] == [d.get("order") for _, d in nodes]
    assert shown["layer"] == [
        d.get("index") if d["kind"] == "engine_layer" else None for _, d in nodes
    ]
    at = {node_id: i for i, (node_id, _) in enumerate(nodes)}
    edges = section["edges"]
    assert [
        (
            edges["s"][e],
            edges["t"][e],
            section["relations"][edges["rel"][e]],
            edges["pass"][e],
            edges["line"][e],
            section["evidence"][edges["ev"][e]],
        )
        for e in range(len(edges["s"]))
    ] == [
        (at[a], at[b], d["relation"], d["pass_name"], d["line"] or 0, d["evidence"] or "log")
        for a, b, d in graph.edges(data=True)
    ]
    assert section["flows"] == sorted(FLOWS)
    assert section["finalFrom"] == graph.graph.get("final_layers_from")
    # the fates: every ONNX node's, in parse order (its node: the first of its name)
    fates = graph.fates()
    for k, fate in enumerate(fates):
        assert _fate_shown(section, k) == _fate_said(fate), fate.node
    originals = [n for n, d in nodes if d["kind"] == "intermediate" and graph.in_degree(n) == 0]
    assert section["originals"] == len(originals)
    assert section["originalFates"] == (len(originals) <= page_data.ORIGINAL_FATES)
    count = len(fates) + (len(originals) if section["originalFates"] else 0)
    assert len(section["fates"]["node"]) == count
    if section["originalFates"]:
        for k, node_id in enumerate(originals, len(fates)):
            name = graph.nodes[node_id]["name"]
            found = graph.fate(name)
            assert section["fates"]["node"][k] == at[node_id]
            assert _fate_shown(section, k)[1:] == _fate_said(found)[1:], name


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_the_graph_section_is_the_merge_graph(path: Path) -> None:
    build = trtlog.parse(path)
    _check(build.merge_graph(), graph_texts(build, build.engine, False))


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
def test_the_graph_section_with_an_engine_is_its_merge_graph(log: str, layers: str) -> None:
    build = trtlog.parse(FIXTURES / "logs" / log)
    engine = trtlog.load_engine(LAYERS / layers)
    _check(build.merge_graph(engine), graph_texts(build, engine, True))


def test_the_string_table_holds_names_ops_passes_and_reasons_in_that_order() -> None:
    build = trtlog.parse(
        FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
    )
    texts = graph_texts(build, None, False)
    s = Strings()
    s("already there")  # a table may hold strings already
    section = graph_strings(graph_texts(build, None, False), s)
    for column, key in (("nodes", "name"), ("nodes", "op"), ("edges", "pass")):
        assert [None if i is None else s.items[i] for i in section[column][key]] == (
            texts[column][key]
        )
    wanted = ["already there"]
    for values in (texts["nodes"]["name"], texts["nodes"]["op"], texts["edges"]["pass"]):
        wanted += [t for t in dict.fromkeys(values) if t is not None and t not in wanted]
    assert s.items[: len(wanted)] == wanted


def test_the_section_of_a_node_and_an_initializer_of_one_name() -> None:
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
    section = _graph_texts(graph)
    assert section["fates"]["node"][:2] == [0, 2]  # w is its initializer (added first), then c
    assert [section["fateKinds"][k] for k in section["fates"]["kind"]] == ["folded", "fused"]


def test_the_section_of_engine_layers_sharing_a_name() -> None:
    # a fate's final layer is found by name: the last engine layer of a name
    graph = MergeGraph(source="hand-made")
    graph.insert("onnx:a", {"kind": "onnx_node", "name": "a", "op": None, "line": 1, "order": 0})
    graph.insert("onnx:b", {"kind": "onnx_node", "name": "b", "op": None, "line": 2, "order": 1})
    graph.insert("first", {"kind": "engine_layer", "name": "L", "line": 0, "index": 0})
    graph.insert("second", {"kind": "engine_layer", "name": "L", "line": 0, "index": 1})
    graph.relate("onnx:a", "first", "merged into", None, 0, "metadata")
    graph.relate("onnx:b", "second", "merged into", None, 0, "metadata")
    graph.graph["final_layers_known"] = True
    section = _graph_texts(graph)
    assert section["fates"]["finals"] == [[3], [3]]  # both: the last layer named L
    _check(graph, section)


def test_the_section_of_a_node_of_an_unknown_kind() -> None:
    """A kind the page does not know reads as an intermediate, but is no original layer."""
    graph = MergeGraph(source="hand-made")
    graph.insert("onnx:a", {"kind": "onnx_node", "name": "a", "op": "Conv", "line": 1, "order": 0})
    graph.insert("odd:a", {"kind": "mystery", "name": "a", "line": 0})
    graph.insert("odd:z", {"kind": "mystery", "name": "z", "line": 0})
    graph.insert("layer:a", {"kind": "engine_layer", "name": "a", "line": 0, "index": 0})
    graph.relate("onnx:a", "layer:a", "registered as", None, 1)
    graph.relate("odd:a", "layer:a", "merged into", None, 0, "name")
    graph.graph["final_layers_known"] = True
    section = _graph_texts(graph)
    assert section["nodes"]["kind"] == [0, 2, 2, 3]
    assert section["originals"] == 0  # neither odd node is an intermediate without a source
    assert section["fates"]["node"] == [0]
    _check(graph, section)


def test_beyond_the_limit_the_original_layers_have_no_fate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A log without parser lines knows nodes by their original layers: past
    ``ORIGINAL_FATES`` of them, the section holds their count, not their fates."""
    build = trtlog.parse(FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log")
    graph = build.merge_graph()
    full = _graph_texts(graph)
    assert full["originals"] > 1 and full["originalFates"]
    monkeypatch.setattr(page_data, "ORIGINAL_FATES", full["originals"] - 1)
    cut = _graph_texts(graph)
    assert not cut["originalFates"] and cut["originals"] == full["originals"]
    assert len(cut["fates"]["node"]) == len(full["fates"]["node"]) - full["originals"]
    _check(graph, cut)
