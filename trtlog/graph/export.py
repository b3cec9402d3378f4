"""Writing the merge graph: GraphML, node-link JSON, Graphviz DOT, sorted edge lists.

Part of the graph package (networkx; no graphviz dependency: DOT is written as text).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx

if TYPE_CHECKING:
    pass


__all__ = ["edge_list", "to_dot", "write_graph"]


def _plain(graph: nx.DiGraph[str]) -> nx.DiGraph[str]:
    """A copy whose attributes GraphML can hold (no ``None`` values)."""
    out: nx.DiGraph[str] = nx.DiGraph()
    out.graph.update({k: v for k, v in graph.graph.items() if v is not None})
    for node_id, data in graph.nodes(data=True):
        out.add_node(node_id, **{k: v for k, v in data.items() if v is not None})
    for a, b, data in graph.edges(data=True):
        out.add_edge(a, b, **{k: v for k, v in data.items() if v is not None})
    return out


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_SHAPES = {
    "onnx_node": "ellipse",
    "onnx_initializer": "note",
    "intermediate": "box",
    "engine_layer": "box3d",
    "pass": "diamond",
}


def to_dot(graph: nx.DiGraph[str]) -> str:
    """The graph as Graphviz DOT text (render it with any Graphviz; trtlog does not need one)."""
    lines = ["digraph merge {", "  rankdir=LR;", "  node [fontsize=10];"]
    for node_id, data in graph.nodes(data=True):
        label = data.get("name", node_id)
        if data.get("op"):
            label += f"\\n[{data['op']}]"
        shape = _SHAPES.get(data.get("kind", ""), "box")
        lines.append(f"  {_dot_quote(node_id)} [label={_dot_quote(label)}, shape={shape}];")
    for a, b, data in graph.edges(data=True):
        label = data.get("relation", "")
        if data.get("pass_name"):
            label += f"\\n{data['pass_name']}"
        lines.append(f"  {_dot_quote(a)} -> {_dot_quote(b)} [label={_dot_quote(label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_graph(graph: nx.DiGraph[str], path: str | Path) -> Path:
    """Write ``graph`` as GraphML (``.graphml``), node-link JSON (``.json``) or DOT (``.dot``).

    Raises:
        ValueError: another extension.
    """
    import json

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".graphml":
        nx.write_graphml(_plain(graph), path)
    elif suffix == ".json":
        data = nx.node_link_data(graph, edges="edges")
        path.write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
    elif suffix in (".dot", ".gv"):
        path.write_text(to_dot(graph), encoding="utf-8")
    else:
        raise ValueError(f"{path.name}: write .graphml, .json or .dot")
    return path


def edge_list(graph: nx.DiGraph[str]) -> Iterator[str]:
    """One line per edge, sorted: ``source\\trelation\\ttarget\\tpass\\tline`` (golden files)."""
    rows = sorted(
        (
            graph.nodes[a]["name"],
            d["relation"],
            graph.nodes[b]["name"],
            d.get("pass_name") or "",
            d.get("line") or 0,
        )
        for a, b, d in graph.edges(data=True)
    )
    for source, relation, target, pass_name, line in rows:
        yield f"{source}\t{relation}\t{target}\t{pass_name}\t{line}"
