"""The merge graph without networkx (``GraphCore``) and the fates read in bulk (``fate_table``).

Issue 15: the report reads the merge graph of a 20,000-layer engine. It builds a
:class:`~trtlog.graph.core.GraphCore` (the dicts networkx would hold, without importing it)
and reads every fate through :meth:`~trtlog.graph.core.GraphCore.fate_table`. These tests pin
that both give what :func:`~trtlog.graph.merge_graph` and :meth:`MergeGraph.fate_edges` give,
node for node, edge for edge, in the same order, on every fixture and corpus log.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.buildlog.test_store import LOGS
from tests.conftest import FIXTURES, ROOT, layer_json_files
from trtlog.graph import FLOWS, MergeGraph, from_events
from trtlog.graph.core import GraphCore
from trtlog.graph.from_events import graph_core

LAYERS = FIXTURES / "layer_info"
SMALLNET = (
    FIXTURES / "logs" / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log",
    LAYERS / "trt10.16-like_smallnet-fp16_layers-detailed.json",
)


def _contents(graph: GraphCore) -> Any:
    """Nodes, edges (per source, as added) and graph attributes, in their order."""
    nodes = [(n, list(d.items())) for n, d in graph.node_data().items()]
    succ = [
        (a, [(b, list(d.items())) for b, d in out.items()])
        for a, out in graph.out_adjacency().items()
    ]
    pred = [(b, list(into)) for b, into in graph.in_adjacency().items()]
    return nodes, succ, pred, list(graph.graph.items())


def _build(path: Path) -> trtlog.Build:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return trtlog.parse(path)


def _rows(graph: GraphCore, found: Any) -> Any:
    """A fate_edges answer with its edges by identity (the page finds steps by edge dict)."""
    kind, reason, finals, steps = found
    return kind, reason, finals, [(a, b, id(d)) for a, b, d in steps]


def _check_table(graph: GraphCore) -> None:
    starts = list(graph.node_data())  # every node: ONNX nodes, initializers, layers, passes
    table = graph.fate_table(starts)
    assert len(table) == len(starts)
    for start, found in zip(starts, table, strict=True):
        assert _rows(graph, found) == _rows(graph, graph.fate_edges(start)), start


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_core_is_the_merge_graph_and_the_table_its_fates(path: Path) -> None:
    build = _build(path)
    graph = build.merge_graph()
    core = graph_core(build)
    assert type(core) is GraphCore
    assert _contents(core) == _contents(graph)
    _check_order(core)
    _check_table(graph)
    _check_table(core)
    # MergeGraph.fates reads the table: the same fates as one at a time
    assert graph.fates() == [graph._fate(n) for n in _onnx(graph)]


def _check_order(core: GraphCore) -> None:
    """The node, out-edge and in-edge dicts hold the same keys in the same order (readers zip)."""
    assert list(core.node_data()) == list(core.out_adjacency()) == list(core.in_adjacency())


def _onnx(graph: MergeGraph) -> list[str]:
    nodes = sorted(
        (d.get("order", 0), d["name"], n)
        for n, d in graph.node_data().items()
        if d["kind"] == "onnx_node"
    )
    return [n for _, _, n in nodes]


def test_core_with_an_engine_is_the_merge_graph() -> None:
    log, layers = SMALLNET
    build = _build(log)
    graph = build.merge_graph(trtlog.load_engine(layers))
    core = graph_core(build, trtlog.load_engine(layers))
    assert _contents(core) == _contents(graph)
    _check_order(core)
    _check_table(core)
    # a fate the table answers without a walk: a node merged into one final layer
    fast = [n for n, out in core.out_adjacency().items() if n.startswith("onnx:") and len(out) == 1]
    assert fast


def test_adopted_graph_is_a_networkx_graph() -> None:
    log, layers = SMALLNET
    graph = _build(log).merge_graph(trtlog.load_engine(layers))
    assert vars(graph)["_adj"] is graph.out_adjacency() is vars(graph)["_succ"]
    assert graph.number_of_edges() == sum(len(out) for out in graph.out_adjacency().values())
    edge = next(iter(graph.edges(data=True)))
    assert graph.has_edge(edge[0], edge[1])
    graph.add_edge("a", "b", relation="merged into")  # networkx's own methods still work
    assert "a" in graph.out_adjacency() and graph.in_adjacency()["b"] == {
        "a": {"relation": "merged into"}
    }


def test_the_report_of_a_given_engine_imports_no_networkx() -> None:
    log, layers = SMALLNET
    code = (
        "import sys, trtlog\n"
        f"b = trtlog.parse({str(log)!r})\n"
        f"e = trtlog.load_engine({str(layers)!r})\n"
        "page = trtlog.report(b, e)\n"
        "assert 'networkx' not in sys.modules, 'networkx imported'\n"
        "print(len(page))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 10_000


def _dead_ends_checked(build: trtlog.Build, engine: trtlog.Engine | None) -> int:
    """Build the core, checking that ``finish`` hands ``_held`` every dead end, in node order.

    ``finish`` looks for dead ends only among the nodes from before the engine's layers and
    the bare layers its loop added; a full scan at ``_infer`` (right after the ``_held``
    calls, which only add edges out of the dead ends they are given) finds no other.
    """
    held: list[str] = []
    checked: list[bool] = []
    original_held, original_infer = from_events._Builder._held, from_events._Builder._infer

    def record(self: Any, node_id: str, name: str, by_member: Any) -> None:
        held.append(node_id)
        original_held(self, node_id, name, by_member)

    def check(self: Any) -> None:
        nodes, succ = self.nodes, self.succ
        ends = FLOWS | {"removed by", "retargeted to"}
        left = {
            n
            for n, d in nodes.items()
            if d["kind"] == "intermediate"
            and not any(e["relation"] in ends for e in succ[n].values())
        }
        wanted = set(held) | left
        assert held == [n for n in nodes if n in wanted]
        assert left <= set(held)
        checked.append(True)
        original_infer(self)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(from_events._Builder, "_held", record)
        m.setattr(from_events._Builder, "_infer", check)
        graph_core(build, engine)
    assert checked == [True]
    return len(held)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_finish_finds_every_dead_end(path: Path) -> None:
    _dead_ends_checked(_build(path), None)


def test_finish_finds_every_dead_end_with_an_engine() -> None:
    """With engines whose layers do not match the log (every layer JSON against smallnet)."""
    build = _build(SMALLNET[0])
    found = [_dead_ends_checked(build, trtlog.load_engine(path)) for path in layer_json_files()]
    assert any(found)  # (some engine leaves the log's layers dead ends)
