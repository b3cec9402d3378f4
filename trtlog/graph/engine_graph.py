"""The engine as a graph: its layers joined by the tensors they pass, Myelin regions folded.

Part of the graph package (a view of an :class:`~trtlog.engine.Engine`: a layer JSON or a
log's layer dump). Unlike the merge graph (which ONNX nodes became which layer), this is the
graph the engine runs: a node per layer, an edge per tensor from the layer that writes it to
each layer that reads it, labelled with the tensor's shape, type and format. A tensor no layer
writes comes from a network input node; one no layer reads goes to a network output node.

The kernels of a Myelin graph (``_myl<N>_`` in the names of a detailed 10.x build) fold into
one region node (:attr:`EngineGraph.regions`), which a view opens on demand. The layout is
:func:`trtlog.graph.layout.layered_layout`; :meth:`EngineGraph.to_svg` draws it without
graphviz, :meth:`EngineGraph.to_networkx` gives the graph to networkx (DOT, GraphML).

Example:
    >>> import trtlog
    >>> from trtlog.graph.engine_graph import engine_graph
    >>> path = "fixtures/layer_info/trt11.5-like_smallnet-fp32_layers-detailed.json"
    >>> g = engine_graph(trtlog.load_engine(path))
    >>> g.layer_count == len(g.engine.layers), g.nodes[0].kind
    (True, 'layer')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from trtlog._display import number, visible
from trtlog.graph.layout import Layout, layered_layout
from trtlog.tensors import dims_text

if TYPE_CHECKING:
    import networkx as nx

    from trtlog.engine.model import Engine
    from trtlog.tensors import Tensor

__all__ = [
    "ColourBy",
    "EngineGraph",
    "GraphNode",
    "Region",
    "TensorEdge",
    "View",
    "engine_graph",
    "write_engine_graph",
]

NodeKind = Literal["layer", "region", "input", "output"]
ColourBy = Literal["type", "precision", "time"]

#: Node height and the width per character of its label (the SVG's and the page's boxes).
NODE_HEIGHT = 26.0
CHAR_WIDTH = 6.6
#: Labels longer than this are cut (the full name is in the node's tooltip).
LABEL_CHARS = 28


class GraphNode(NamedTuple):
    """A node of the engine graph.

    Attributes:
        kind: ``layer``, ``region`` (a folded Myelin graph), ``input`` or ``output`` (a
            network tensor).
        label: the layer's name, the region's label or the tensor's name.
        layer_type: the layer's ``LayerType`` (``Myelin`` for a region), if known.
        precision: the layer's precision (the layers table's), if known.
        time_ms: the layer's (region's: its kernels' sum) time per inference, if profiled.
        layers: the engine layer positions the node stands for (one for a layer).
        region: for a layer inside a Myelin region, the region's position in
            :attr:`EngineGraph.regions`.
    """

    kind: NodeKind
    label: str
    layer_type: str | None = None
    precision: str | None = None
    time_ms: float | None = None
    layers: tuple[int, ...] = ()
    region: int | None = None


class TensorEdge(NamedTuple):
    """A tensor from the node that writes it to one that reads it.

    Attributes:
        source: the writer's node position; target: the reader's.
        tensor: the tensor's name.
        dims: its shape as trtexec writes it (``1x64x56x56``), empty when unknown.
        dtype: its element type, if known.
        format: its layout (``chw32``) or format text, if known.
    """

    source: int
    target: int
    tensor: str
    dims: str = ""
    dtype: str | None = None
    format: str | None = None

    @property
    def label(self) -> str:
        """Shape, type and format on one line (``1x64x56x56 FP16 chw32``)."""
        return " ".join(p for p in (self.dims, self.dtype or "", self.format or "") if p)


@dataclass(frozen=True)
class Region:
    """A Myelin graph's kernels, folded into one node.

    Attributes:
        label: the ``{ForeignNode[...]}`` name, or ``Myelin graph N``.
        graph: the Myelin graph number.
        node: the region node's position in :attr:`EngineGraph.nodes`.
        members: the node positions of its kernels (their engine layer positions).
    """

    label: str
    graph: int
    node: int
    members: tuple[int, ...]


@dataclass(frozen=True)
class View:
    """The nodes and edges one drawing shows, and their layout.

    Attributes:
        nodes: the node positions shown.
        edges: the edge positions shown (an edge into a folded region is drawn to the region
            node; one edge per tensor and pair of shown nodes).
        ends: for each shown edge, the shown ``(source, target)`` node positions.
        layout: where each shown node and edge is (in the order of ``nodes`` and ``edges``).
    """

    nodes: list[int]
    edges: list[int]
    ends: list[tuple[int, int]]
    layout: Layout


@dataclass
class EngineGraph:
    """The layer graph of an engine (see the module docstring).

    Attributes:
        engine: the engine.
        nodes: the layers (position = engine layer position), then a node per folded region,
            then the network inputs and outputs.
        edges: one per tensor and reader.
        regions: the Myelin regions of two or more kernels.
        layer_count: how many nodes are layers (the first ones).
    """

    engine: Engine
    nodes: list[GraphNode]
    edges: list[TensorEdge]
    regions: list[Region]
    layer_count: int
    _shown: dict[int, int] = field(default_factory=dict, repr=False)

    def shown_as(self, opened: Iterable[int] = ()) -> list[int]:
        """Each node's position as drawn: a kernel of a folded region is drawn as its region.

        ``opened``: the regions (positions in :attr:`regions`) drawn open.
        """
        out = list(range(len(self.nodes)))
        keep = set(opened)
        for k, region in enumerate(self.regions):
            if k not in keep:
                for member in region.members:
                    out[member] = region.node
        return out

    def view(self, opened: Iterable[int] = (), nodes: Iterable[int] | None = None) -> View:
        """The drawing with the regions in ``opened`` open and the others folded.

        ``nodes``: only these nodes (as drawn; a neighbourhood), else all of them.
        """
        opened = set(opened)
        drawn = self.shown_as(opened)
        wanted = set(nodes) if nodes is not None else None
        shown: list[int] = []
        for i in range(len(self.nodes)):
            node = self.nodes[i]
            if drawn[i] != i:
                continue  # a folded kernel
            if node.kind == "region" and self._region_of(i) in opened:
                continue  # an open region shows its kernels instead
            if wanted is not None and i not in wanted:
                continue
            shown.append(i)
        # the layout reads the order as topological: inputs, then by execution, outputs last
        shown.sort(key=self._order_key)
        at = {v: k for k, v in enumerate(shown)}
        edges: list[int] = []
        ends: list[tuple[int, int]] = []
        pairs: list[tuple[int, int]] = []
        seen: set[tuple[int, int, str]] = set()
        for e, edge in enumerate(self.edges):
            a, b = drawn[edge.source], drawn[edge.target]
            if a == b or a not in at or b not in at:
                continue
            key = (a, b, edge.tensor)
            if key in seen:
                continue
            seen.add(key)
            edges.append(e)
            ends.append((a, b))
            pairs.append((at[a], at[b]))
        widths = [node_width(self.nodes[i].label) for i in shown]
        if self.edges:
            return View(shown, edges, ends, layered_layout(widths, pairs))
        # a names-only export says nothing of tensors: its layers are laid out in execution
        # order, one under the other (the order's edges are not drawn)
        order = list(pairwise(range(len(shown))))
        placed = layered_layout(widths, order)
        return View(shown, edges, ends, placed._replace(edges=[]))

    def _order_key(self, i: int) -> tuple[int, int]:
        node = self.nodes[i]
        if node.kind == "input":
            return (0, i)
        if node.kind == "output":
            return (2, i)
        return (1, node.layers[0] if node.layers else i)

    def _region_of(self, node: int) -> int | None:
        if not self._shown:
            self._shown.update((r.node, k) for k, r in enumerate(self.regions))
        return self._shown.get(node)

    def to_networkx(self, opened: Iterable[int] = ()) -> nx.MultiDiGraph[str]:
        """The graph as drawn (regions folded unless ``opened``), for networkx's writers.

        Node ids are ``layer:<position>``, ``region:<graph>``, ``input:<tensor>``,
        ``output:<tensor>``; nodes carry ``name``, ``kind``, ``type``, ``precision``,
        ``time_ms`` and ``layers`` (their engine layer positions, comma-joined); edges carry
        ``tensor``, ``dims``, ``dtype`` and ``format`` (a key per tensor).
        """
        import networkx as nx

        view = self.view(opened)
        graph: nx.MultiDiGraph[str] = nx.MultiDiGraph(source=self.engine.source)
        for i in view.nodes:
            node = self.nodes[i]
            graph.add_node(
                self.node_id(i),
                name=node.label,
                kind=node.kind,
                type=node.layer_type,
                precision=node.precision,
                time_ms=node.time_ms,
                layers=",".join(map(str, node.layers)) or None,
            )
        for e, (a, b) in zip(view.edges, view.ends, strict=True):
            edge = self.edges[e]
            graph.add_edge(
                self.node_id(a),
                self.node_id(b),
                key=edge.tensor,
                tensor=edge.tensor,
                dims=edge.dims or None,
                dtype=edge.dtype,
                format=edge.format,
            )
        return graph

    def node_id(self, i: int) -> str:
        """A stable id of node ``i`` (see :meth:`to_networkx`)."""
        node = self.nodes[i]
        if node.kind == "layer":
            return f"layer:{i}"
        if node.kind == "region":
            region = self._region_of(i)
            assert region is not None
            return f"region:{self.regions[region].graph}"
        return f"{node.kind}:{node.label}"

    def to_dot(self, opened: Iterable[int] = ()) -> str:
        """Graphviz DOT text of the graph as drawn (trtlog needs no graphviz to write it)."""
        from trtlog.graph.export import _dot_id, _dot_label

        graph = self.to_networkx(opened)
        lines = [
            "digraph engine {",
            "  rankdir=TB;",
            '  node [shape=box, style="rounded,filled", fontsize=10];',
        ]
        colours = _palette(self, "type")
        for node_id, data in graph.nodes(data=True):
            label = [data["name"]]
            details = " ".join(str(data[k]) for k in ("type", "precision") if data.get(k))
            if details:
                label.append(details)
            fill = colours.get(data.get("type") or "", "#eeeeee")
            shape = "ellipse" if data["kind"] in ("input", "output") else "box"
            lines.append(
                f"  {_dot_id(node_id)} [label={_dot_label(*label)}, shape={shape}, "
                f'fillcolor="{fill}"];'
            )
        for a, b, data in graph.edges(data=True):
            text = " ".join(str(data[k]) for k in ("dims", "dtype", "format") if data.get(k))
            lines.append(
                f"  {_dot_id(a)} -> {_dot_id(b)} [label={_dot_label(text)}, "
                f"tooltip={_dot_label(data['tensor'])}];"
            )
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_svg(self, opened: Iterable[int] = (), colour_by: ColourBy = "type") -> str:
        """An SVG drawing of the graph (regions folded unless ``opened``), standalone.

        Each node's full name, type, precision and time are its ``<title>`` (the tooltip);
        each edge is labelled with its tensor's shape, type and format.
        """
        view = self.view(opened)
        layout = view.layout
        colours = _palette(self, colour_by)
        times = [t for i in view.nodes if (t := self.nodes[i].time_ms) is not None]
        top = max(times, default=None)
        pad = 20.0
        width, height = layout.width + 2 * pad, layout.height + NODE_HEIGHT + 2 * pad
        out = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="{-pad:.0f} {-pad - NODE_HEIGHT / 2:.0f} '
            f'{width:.0f} {height:.0f}" font-family="sans-serif" font-size="11">',
            "<defs><marker id='arrow' viewBox='0 0 8 8' refX='8' refY='4' markerWidth='7' "
            "markerHeight='7' orient='auto'><path d='M0,0 L8,4 L0,8 z' fill='#888'/></marker>"
            "</defs>",
            '<g class="edges" fill="none" stroke="#999" stroke-width="1">',
        ]
        for e, points in zip(view.edges, layout.edges, strict=True):
            edge = self.edges[e]
            path = _edge_path(points)
            out.append(
                f'<path d="{path}" marker-end="url(#arrow)"><title>'
                f"{_xml_text(edge.tensor + ': ' + edge.label)}</title></path>"
            )
            if edge.label and len(points) >= 2:
                # at the edge's middle: a bend point of a long edge, else its line's middle
                if len(points) > 2:
                    mx, my = points[len(points) // 2]
                else:
                    (x0, y0), (x1, y1) = points
                    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
                my += 4
                out.append(
                    f'<text x="{mx + 4:.1f}" y="{my:.1f}" font-size="8" fill="#666" '
                    f'stroke="none">{_xml_text(edge.label)}</text>'
                )
        out.append("</g>")
        out.append('<g class="nodes">')
        for i, (x, y) in zip(view.nodes, layout.nodes, strict=True):
            node = self.nodes[i]
            w = node_width(node.label)
            fill = _colour(node, colours, colour_by, top)
            rx = 13 if node.kind in ("input", "output") else 4
            stroke = (
                ' stroke="#333" stroke-width="2"' if node.kind == "region" else ' stroke="#555"'
            )
            out.append(
                f'<g class="node {node.kind}" id={quoteattr(self.node_id(i))}>'
                f"<title>{chr(10).join(map(_xml_text, _tooltip(node)))}</title>"
                f'<rect x="{x - w / 2:.1f}" y="{y - NODE_HEIGHT / 2:.1f}" width="{w:.1f}" '
                f'height="{NODE_HEIGHT:.0f}" rx="{rx}" fill="{fill}"{stroke}/>'
                f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">'
                f"{_xml_text(short_label(node))}</text></g>"
            )
        out.append("</g></svg>")
        return "\n".join(out) + "\n"


def node_width(label: str) -> float:
    """A node's box width for its label (cut at :data:`LABEL_CHARS` characters)."""
    return 16.0 + CHAR_WIDTH * min(len(label), LABEL_CHARS)


def short_label(node: GraphNode) -> str:
    """The label drawn in a node's box: its name, cut with an ellipsis (controls visible)."""
    text = visible(node.label)
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "\u2026"


def _tooltip(node: GraphNode) -> list[str]:
    """A node's tooltip lines: its name, what it is, its time."""
    parts = [node.label]
    if node.kind == "region":
        parts.append(f"Myelin region of {len(node.layers)} kernels")
    for value in (node.layer_type, node.precision):
        if value:
            parts.append(value)
    if node.time_ms is not None:
        parts.append(f"{number(node.time_ms)} ms")
    return parts


def _xml_text(text: str) -> str:
    """Text for an XML element: controls shown as escapes (XML 1.0 cannot hold them)."""
    return escape(visible(text))


def _edge_path(points: Sequence[tuple[float, float]]) -> str:
    """An SVG path through ``points``, ending at the target box's top edge."""
    if len(points) < 2:
        return ""
    (x0, y0), *middle, (x1, y1) = points
    half = NODE_HEIGHT / 2
    start = (x0, y0 + half if y1 >= y0 else y0 - half)
    end = (x1, y1 - half if y1 >= y0 else y1 + half)
    parts = [f"M{start[0]:.1f},{start[1]:.1f}"]
    parts += [f"L{x:.1f},{y:.1f}" for x, y in middle]
    parts.append(f"L{end[0]:.1f},{end[1]:.1f}")
    return " ".join(parts)


#: Colours of the categories, in order of first use (ColorBrewer's Set3, then Pastel1).
_PALETTE = (
    "#8dd3c7",
    "#ffffb3",
    "#bebada",
    "#fb8072",
    "#80b1d3",
    "#fdb462",
    "#b3de69",
    "#fccde5",
    "#d9d9d9",
    "#bc80bd",
    "#ccebc5",
    "#ffed6f",
    "#fbb4ae",
    "#b3cde3",
    "#decbe4",
    "#fed9a6",
)


def _palette(graph: EngineGraph, by: ColourBy) -> dict[str, str]:
    """A colour per layer type or precision (in order of first use; the rest grey)."""
    if by == "time":
        return {}
    seen: dict[str, str] = {}
    for node in graph.nodes:
        key = node.layer_type if by == "type" else node.precision
        if key and key not in seen and len(seen) < len(_PALETTE):
            seen[key] = _PALETTE[len(seen)]
    return seen


def _colour(node: GraphNode, colours: dict[str, str], by: ColourBy, top: float | None) -> str:
    if node.kind in ("input", "output"):
        return "#ffffff"
    if by == "time":
        return _heat(node.time_ms, top)
    key = node.layer_type if by == "type" else node.precision
    return colours.get(key or "", "#eeeeee")


def _heat(ms: float | None, top: float | None) -> str:
    """White to red by time, on a square-root scale up to the slowest node (grey: no time)."""
    if ms is None:
        return "#eeeeee"
    share = min(1.0, math.sqrt(max(ms, 0.0) / top)) if top else 0.0
    green = round(255 - 200 * share)
    return f"#ff{green:02x}{green:02x}"


def engine_graph(engine: Engine, columns: Mapping[str, Sequence[Any]] | None = None) -> EngineGraph:
    """The layer graph of ``engine`` (see the module docstring).

    A names-only engine (no tensors) has its layers and no edges: its JSON does not say
    what feeds what. ``columns``: the engine's
    :func:`~trtlog.engine.rows.layer_columns`, when made already (the report's layers
    section reads them too).
    """
    from trtlog.engine.myelin import group_values
    from trtlog.engine.rows import layer_columns

    if columns is None:
        columns = layer_columns(engine)
    layers = engine.layers
    count = len(layers)
    precision, types = columns["precision"], columns["type"]
    times = columns["time_ms"]
    graphs = columns["myelin_graph"]
    nodes = [
        GraphNode(
            "layer",
            layer.name,
            types[i],
            precision[i],
            None if times[i] != times[i] else float(times[i]),
            (i,),
        )
        for i, layer in enumerate(layers)
    ]
    # Myelin graphs of two kernels or more fold into a region node, labelled as the
    # layers table labels them (group_values: the region's name, else its graph number)
    members: dict[int, list[int]] = {}
    for i, graph in enumerate(graphs):
        if graph is not None:
            members.setdefault(graph, []).append(i)
    # (the labels are read only when there is a region to label)
    labels = (
        {g.graph: g.region for g in group_values(engine) if g.graph is not None}
        if any(len(kernels) > 1 for kernels in members.values())
        else {}
    )
    regions: list[Region] = []
    for graph, kernels in sorted(members.items()):
        if len(kernels) < 2:
            continue
        known = [t for i in kernels if (t := nodes[i].time_ms) is not None]
        node = len(nodes)
        regions.append(
            Region(labels.get(graph) or f"Myelin graph {graph}", graph, node, tuple(kernels))
        )
        nodes.append(
            GraphNode(
                "region",
                regions[-1].label,
                "Myelin",
                _common(precision[i] for i in kernels),
                math.fsum(known) if known else None,
                tuple(kernels),
            )
        )
        for i in kernels:
            nodes[i] = nodes[i]._replace(region=len(regions) - 1)
    edges = _tensor_edges(engine, nodes)
    return EngineGraph(engine, nodes, edges, regions, count)


def _common(values: Iterable[str | None]) -> str | None:
    """The one value all share, else ``mixed`` (``None`` when none is known)."""
    found = {v for v in values if v}
    if not found:
        return None
    return found.pop() if len(found) == 1 else "mixed"


def _tensor_edges(engine: Engine, nodes: list[GraphNode]) -> list[TensorEdge]:
    """An edge per tensor and reader; network input and output nodes appended to ``nodes``.

    A tensor's writer is the last layer before its reader that writes it (names repeat
    across the runs of a names-reused dump only rarely, but then the nearest is right).
    """
    writer: dict[str, int] = {}
    read: set[str] = set()
    io: dict[tuple[str, str], int] = {}
    edges: list[TensorEdge] = []

    def io_node(kind: NodeKind, name: str) -> int:
        key = (kind, name)
        found = io.get(key)
        if found is None:
            found = io[key] = len(nodes)
            nodes.append(GraphNode(kind, name))
        return found

    # a tensor's edge values, made once per tensor object (a loader reuses the object a
    # tensor's writer and readers share)
    made: dict[int, tuple[str, str, str | None, str | None]] = {}

    def values(tensor: Tensor) -> tuple[str, str, str | None, str | None]:
        found = made.get(id(tensor))
        if found is None:
            d = tensor.__dict__
            found = made[id(tensor)] = (
                d["name"],
                dims_text(d["dims"]),
                d["dtype"],
                d["layout"] or d["format"],
            )
        return found

    append = edges.append
    for i, layer in enumerate(engine.layers):
        for tensor in layer.inputs:
            name, dims, dtype, fmt = values(tensor)
            source = writer.get(name)
            read.add(name)
            if source is None:
                source = io_node("input", name)
            append(TensorEdge(source, i, name, dims, dtype, fmt))
        for tensor in layer.outputs:
            writer[tensor.name] = i
    bindings = set(engine.bindings) | {t.name for t in engine.io_tensors}
    for i, layer in enumerate(engine.layers):
        for tensor in layer.outputs:
            name, dims, dtype, fmt = values(tensor)
            if writer.get(name) != i:
                continue
            # a network output: a tensor nobody reads, or one the engine binds
            if name not in read or name in bindings:
                append(TensorEdge(i, io_node("output", name), name, dims, dtype, fmt))
    return edges


#: The file types :func:`write_engine_graph` writes.
SUFFIXES = (".svg", ".dot", ".gv", ".graphml")


def write_engine_graph(
    graph: EngineGraph, path: str, opened: Iterable[int] = (), colour_by: ColourBy = "type"
) -> str:
    """Write the graph as SVG (own layout), DOT or GraphML (through networkx); returns the path.

    Raises:
        ValueError: another file type.
    """
    from pathlib import Path

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".svg":
        target.write_text(graph.to_svg(opened, colour_by), encoding="utf-8")
    elif suffix in (".dot", ".gv"):
        target.write_text(graph.to_dot(opened), encoding="utf-8")
    elif suffix == ".graphml":
        from trtlog.graph.export import _graphml, _plain

        plain = _plain_multi(graph.to_networkx(opened))
        target.write_text(_graphml(_plain(plain)), encoding="utf-8")
    else:
        raise ValueError(f"{target.name}: write .svg, .dot or .graphml")
    return str(target)


def _plain_multi(graph: nx.MultiDiGraph[str]) -> nx.DiGraph[str]:
    """A DiGraph of a multigraph: parallel tensors joined into one edge (names on lines)."""
    import networkx as nx

    out: nx.DiGraph[str] = nx.DiGraph()
    out.graph.update(graph.graph)
    out.add_nodes_from(graph.nodes(data=True))
    for a, b, data in graph.edges(data=True):
        if out.has_edge(a, b):
            old = out.edges[a, b]
            for key, value in data.items():
                old[key] = f"{old.get(key) or ''}\n{value or ''}"
        else:
            out.add_edge(a, b, **data)
    return out
