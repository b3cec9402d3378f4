"""Writing the merge graph: GraphML, node-link JSON, Graphviz DOT, sorted edge lists.

Part of the graph package (networkx; no graphviz dependency: DOT is written as text).

Names come from the model and the log, and hold anything: quotes, backslashes, ``<`` and
``&``, newlines, control characters. Node-link JSON keeps them exactly. GraphML keeps them
exactly too (a carriage return as ``&#13;``), except the characters XML 1.0 cannot hold at
all (C0 controls other than tab, newline and CR, U+FFFE, U+FFFF, lone surrogates), which are
written as their Python escape (``\\x07``). DOT node ids escape every backslash, quote and
control character; labels show a name's lines as lines and its controls as escapes. Graphviz
refuses a quoted string of about 16,000 characters or more, so a name longer than
:data:`DOT_NAME_CHARS` gets a digest id, and its label shows its start and how much is left out
(the GraphML and JSON files keep it whole).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import networkx as nx

from trtlog._display import visible

__all__ = ["DOT_NAME_CHARS", "edge_list", "to_dot", "write_graph"]

#: The longest name DOT output carries whole (as an id, or in a label); Graphviz's lexer
#: refuses quoted strings from about 16,380 characters on.
DOT_NAME_CHARS = 2000

# what XML 1.0 cannot carry, even as a character reference
_NOT_XML = re.compile("[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\ud800-\\udfff\\ufffe\\uffff]")


def _xml_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _xml(value: Any) -> Any:
    if isinstance(value, str) and _NOT_XML.search(value) is not None:
        return _NOT_XML.sub(_xml_escape, value)
    return value


def _plain(graph: nx.DiGraph[str]) -> nx.DiGraph[str]:
    """A copy whose attributes GraphML can hold (no ``None`` values; text XML can carry)."""
    out: nx.DiGraph[str] = nx.DiGraph()
    out.graph.update({k: _xml(v) for k, v in graph.graph.items() if v is not None})
    for node_id, data in graph.nodes(data=True):
        out.add_node(_xml(node_id), **{k: _xml(v) for k, v in data.items() if v is not None})
    for a, b, data in graph.edges(data=True):
        out.add_edge(_xml(a), _xml(b), **{k: _xml(v) for k, v in data.items() if v is not None})
    return out


def _graphml(graph: nx.DiGraph[str]) -> str:
    """GraphML text of ``graph`` (:func:`_plain` first), a carriage return kept exactly."""
    writer = nx.readwrite.graphml.GraphMLWriter(encoding="utf-8", prettyprint=True)
    writer.add_graph_element(graph)
    # ElementTree writes a CR in element text as it is, and an XML reader turns it into a
    # newline: as a character reference it survives (the markup itself holds no CR)
    text = str(writer).replace("\r", "&#13;")
    return "<?xml version='1.0' encoding='utf-8'?>\n" + text + "\n"


def _dot_id(text: str) -> str:
    """A quoted DOT id: the name, or a digest of a name with a backslash, quote or control.

    In a DOT string only ``\\"`` is an escape: a backslash before the closing quote cannot be
    written at all, and controls would reach the file raw. Ids are never shown (labels are),
    so such a name gets a stable id of its own instead.
    """
    if (
        len(text) <= DOT_NAME_CHARS
        and "\\" not in text
        and '"' not in text
        and visible(text) == text
    ):
        return f'"{text}"'
    import hashlib

    return f'"trtlog-node-{hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]}"'


def _dot_label(*lines: str) -> str:
    """A quoted DOT label of ``lines`` (a name's own newlines start lines too).

    Graphviz reads ``\\n`` in a label as a line break and ``\\\\`` as a backslash; every
    control character of the text is shown as its escape.
    """
    parts = [
        visible(part).replace("\\", "\\\\").replace('"', '\\"')
        for line in lines
        for part in _clipped(line).split("\n")
    ]
    text = "\\n".join(parts)
    # a backslash right before the closing quote would escape it: end on a blank instead
    return '"' + text + (" " if text.endswith("\\") else "") + '"'


def _clipped(text: str) -> str:
    """``text``, or its first :data:`DOT_NAME_CHARS` characters and how many are left out.

    Example:
        >>> _clipped("a" * 2003)[-25:]
        'aaaa… (3 more characters)'
    """
    if len(text) <= DOT_NAME_CHARS:
        return text
    return f"{text[:DOT_NAME_CHARS]}… ({len(text) - DOT_NAME_CHARS:,} more characters)"


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
        label = [data.get("name", node_id)]
        if data.get("op"):
            label.append(f"[{data['op']}]")
        shape = _SHAPES.get(data.get("kind", ""), "box")
        lines.append(f"  {_dot_id(node_id)} [label={_dot_label(*label)}, shape={shape}];")
    for a, b, data in graph.edges(data=True):
        label = [data.get("relation", "")]
        if data.get("pass_name"):
            label.append(data["pass_name"])
        lines.append(f"  {_dot_id(a)} -> {_dot_id(b)} [label={_dot_label(*label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_graph(graph: nx.DiGraph[str], path: str | Path) -> Path:
    """Write ``graph`` as GraphML (``.graphml``), node-link JSON (``.json``) or DOT (``.dot``).

    Raises:
        ValueError: another extension.
        OutputError: the file cannot be written (nothing is left under ``path``).
    """
    import json

    from trtlog._files import atomic_output

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".graphml":
        text = _graphml(_plain(graph))
    elif suffix == ".json":
        data = nx.node_link_data(graph, edges="edges")
        text = json.dumps(data, indent=1, default=str) + "\n"
    elif suffix in (".dot", ".gv"):
        text = to_dot(graph)
    else:
        raise ValueError(f"{path.name}: write .graphml, .json or .dot")
    with atomic_output(path) as out:  # whole or not at all
        out.write(text)
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
