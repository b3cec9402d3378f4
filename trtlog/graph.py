"""The merge graph: which original ONNX nodes became which engine layers, by which pass.

A view module (networkx, imported here only). :func:`merge_graph` builds a
:class:`MergeGraph` (a ``networkx.DiGraph``) from a build's events alone, plus the final
layers of its layer dump or of an :class:`~trtlog.layers.Engine` passed in.

Nodes have a ``kind``: ``onnx_node`` (``Parsing node: x [Op]``), ``onnx_initializer``
(``Importing initializer: w``), ``intermediate`` (a layer name the network or a pass produced),
``engine_layer`` (a layer of the built engine) and ``pass`` (the target of ``removed by``
edges). Node ids are prefixed strings (``onnx:``, ``init:``, ``layer:``, ``pass:``) because one
name is often both an ONNX node and the TensorRT layer made from it; the ``name`` attribute
holds the name as printed.

The graph's attributes say where the final layers came from (``final_layers_from``:
``engine``, ``layer dump``, ``placement`` (the GPU/DLA layer placement lines), ``autotuned
layers`` or ``none``) and whether the build finished
(``build_finished``).

Edges carry ``relation``, ``pass_name`` and ``line`` (the evidence; ``line`` is 0 when the
evidence is a name or metadata, with ``evidence`` saying which):

- ``registered as``: an ONNX node to the TensorRT layer the parser made of it;
- ``merged into``: a layer (or node, or initializer) to the layer that absorbed it, from
  ``Fusing a with b`` (the result is ``a + b``, or ``PWN(a, b)`` for point-wise fusion),
  ``fusing (a and b) into c``, ``Merging layers: a || b``, a ``Removing x`` inside a fusion pass
  running on another layer (the pass fused ``x`` into that layer), composed names (``a + b``,
  ``PWN(a, b)``, ``{ForeignNode[a...b]}`` expanded in parse order) and layer metadata;
- ``duplicate of``: a Q/DQ eliminated as a duplicate of another;
- ``cloned as``: a layer to its ``_clone_N`` copies;
- ``swapped with``: Q/DQ propagation swapped two layers (both live on);
- ``removed by``: a layer to the pass (or stage) that removed it;
- ``retargeted to``: a slice or concatenation eliminated by retargeting tensors;
- ``copied for``: a ``Reformatting CopyNode``/generated copy to the layer or tensor it serves.

:meth:`MergeGraph.fate` answers "what happened to this ONNX node"; :meth:`MergeGraph.provenance`
answers "what is inside this engine layer, and how did it get there".
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import networkx as nx
from pydantic import BaseModel, ConfigDict

from trtlog._display import html_table, plural, top_counts
from trtlog.names import split_name

if TYPE_CHECKING:
    from trtlog.build import Build
    from trtlog.layers import Engine, EngineLayer

__all__ = [
    "Fate",
    "FateKind",
    "MergeGraph",
    "Provenance",
    "Step",
    "fate",
    "members",
    "merge_graph",
    "provenance",
    "write_graph",
]

Relation = Literal[
    "registered as",
    "merged into",
    "duplicate of",
    "cloned as",
    "swapped with",
    "removed by",
    "retargeted to",
    "copied for",
]
#: Relations a node's identity flows along: what it becomes.
FLOWS: frozenset[str] = frozenset({"registered as", "merged into", "duplicate of", "cloned as"})

FateKind = Literal["fused", "removed", "folded", "retargeted", "unexplained"]

# passes that delete layers rather than fuse them into the layer they run on
_ERASING = re.compile(r"Erasure|Elimination|Removal|DeadLayer|Dead", re.IGNORECASE)

# passes and phases that fold constants rather than fuse computation
_FOLDING = re.compile(r"const|fold", re.IGNORECASE)


class Step(BaseModel):
    """One edge of a fate or provenance chain.

    Attributes:
        relation: the edge relation (``merged into``, ``removed by``...).
        source: the name the edge starts from.
        target: the name it leads to.
        pass_name: the optimization pass (or stage) that did it, when known.
        line: the log line that shows it (0 when the evidence is a name or metadata).
        evidence: ``log`` (a log line), ``name`` (a composed layer name), ``metadata``
            (engine layer metadata), ``order`` (a ``{ForeignNode[a...b]}`` range in parse
            order), or an inference where the log is silent: ``dataflow`` (a constant folded
            into its only reader) or ``pass`` (a fusion pass ran on the producer and printed
            nothing; ``line`` is that ``Running:`` line).
    """

    model_config = ConfigDict(frozen=True)

    relation: str
    source: str
    target: str
    pass_name: str | None = None
    line: int = 0
    evidence: str = "log"

    def describe(self) -> str:
        """``merged into <target> by <pass> (line N)``."""
        text = f"{self.relation} {self.target}"
        if self.pass_name and not (self.relation == "removed by" and self.pass_name == self.target):
            text += f" by {self.pass_name}"
        if self.evidence == "pass":
            text += f" (inferred: the pass ran on it at line {self.line} and printed nothing)"
        elif self.evidence == "dataflow":
            text += " (inferred: its only reader)"
        elif self.line:
            text += f" (line {self.line})"
        else:
            text += f" (from the {self.evidence})"
        return text


class Fate(BaseModel):
    """What became of one ONNX node (or initializer).

    Attributes:
        node: the node name.
        op: its ONNX op type, when the log printed it.
        kind: ``fused`` (inside one or more final layers, alone or with others), ``removed``
            (by a named pass or stage), ``folded`` (a constant absorbed into another layer or
            removed by constant folding), ``retargeted`` (a slice or concatenation eliminated
            by pointing tensors elsewhere) or ``unexplained``.
        final_layers: the engine layers that hold it (several when Q/DQ nodes were cloned).
        passes: the passes along the way, in log order.
        lines: the log lines of the evidence, in order.
        steps: the chain, edge by edge.
        reason: for ``unexplained``, why; otherwise ``None``.
    """

    model_config = ConfigDict(frozen=True)

    node: str
    op: str | None = None
    kind: FateKind
    final_layers: tuple[str, ...] = ()
    passes: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    steps: tuple[Step, ...] = ()
    reason: str | None = None

    def describe(self) -> str:
        """One sentence per step, as ``trtlog explain --node`` prints it."""
        head = f"{self.node}" + (f" [{self.op}]" if self.op else "") + f": {self.kind}"
        if self.kind == "unexplained":
            return f"{head} — {self.reason}"
        parts = [step.describe() for step in self.steps if step.relation != "registered as"]
        if self.final_layers:
            parts.append("final: " + "; ".join(self.final_layers))
        return head + ("\n  " + "\n  ".join(parts) if parts else "")


class Provenance(BaseModel):
    """What is inside one engine layer, and how it got there.

    Attributes:
        layer: the layer name.
        onnx_nodes: the ONNX nodes it holds, in parse order when known.
        ops: the op type of each of ``onnx_nodes`` (``None`` when not printed).
        initializers: the ONNX initializers folded into it.
        original_layers: the layers of the network as parsed (before any pass) that it holds:
            the ONNX nodes' own layers, and what a log without parser lines shows of them.
        unparsed: those of ``original_layers`` that no parser line ties to an ONNX node:
            TensorRT's own layers (``reshape_before_Gemm_311``), or layers whose parsing the
            log does not show (an excerpt); TensorRT names a parsed layer after its node.
        steps: every edge that led into the layer, in log order.
        passes: the passes that built it, in log order, without repeats.
    """

    model_config = ConfigDict(frozen=True)

    layer: str
    onnx_nodes: tuple[str, ...] = ()
    ops: tuple[str | None, ...] = ()
    initializers: tuple[str, ...] = ()
    original_layers: tuple[str, ...] = ()
    unparsed: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
    passes: tuple[str, ...] = ()

    def describe(self) -> str:
        """The layer, its ONNX nodes and the passes, as ``trtlog explain --layer`` prints it.

        Constants folded in are marked as such, and the layers no parser line explains are
        listed apart, so an excerpt never passes a folded constant off as a layer's only node.
        """
        lines = [self.layer]
        if self.onnx_nodes:
            computing = sum(op != "Constant" for op in self.ops)
            label = f"{len(self.onnx_nodes)}" if computing else "only constants"
            lines.append(f"  ONNX nodes ({label}):")
            lines += [
                f"    {n}"
                + (f" [{op}]" if op else "")
                + (" (a constant folded in)" if op == "Constant" else "")
                for n, op in zip(self.onnx_nodes, self.ops, strict=True)
            ]
            if self.unparsed:
                lines.append(
                    f"  layers without a parser line ({len(self.unparsed)}): TensorRT's own, or "
                    "the log does not show their parsing"
                )
                lines += [f"    {n}" for n in self.unparsed]
        else:
            lines.append(f"  original layers ({len(self.original_layers)}; no parser lines):")
            lines += [f"    {n}" for n in self.original_layers]
        if self.initializers:
            lines.append(f"  initializers: {', '.join(self.initializers)}")
        if self.steps:
            lines.append("  built by:")
            lines += [f"    {s.source} {s.describe()}" for s in self.steps]
        return "\n".join(lines)


def _layer(name: str) -> str:
    return "layer:" + name


def _name_of(value: str | EngineLayer, call: str) -> str:
    """A node or layer name, from a name or an :class:`~trtlog.layers.EngineLayer`."""
    if isinstance(value, str):
        return value
    name = getattr(value, "name", None)
    if isinstance(name, str) and hasattr(value, "onnx_nodes"):
        return name
    raise TypeError(f"{call} takes a name (str) or an EngineLayer, not {type(value).__name__}")


if TYPE_CHECKING:
    _DiGraph = nx.DiGraph[str]
else:
    _DiGraph = nx.DiGraph


class MergeGraph(_DiGraph):
    """The merge graph of a build (see the module docstring), with its queries."""

    def __repr__(self) -> str:
        """One line: ``<MergeGraph 'b.log': 877 nodes (120 ONNX nodes, ...), 863 edges, ...>``."""
        kinds = Counter(d.get("kind") for _, d in self.nodes(data=True))
        source = self.graph.get("source")
        return (
            f"<MergeGraph {source!r}: {plural(self.number_of_nodes(), 'node')} "
            f"({plural(kinds.get('onnx_node', 0), 'ONNX node')}, "
            f"{plural(kinds.get('engine_layer', 0), 'engine layer')}), "
            f"{plural(self.number_of_edges(), 'edge')}, final layers from "
            f"{self.graph.get('final_layers_from', 'none')}>"
        )

    def _repr_html_(self) -> str:
        """A small table for notebooks: nodes by kind, edges by relation."""
        return html_table(
            "trtlog.MergeGraph",
            [
                ("source", self.graph.get("source")),
                ("nodes", top_counts((d.get("kind") for _, d in self.nodes(data=True)), 8)),
                ("edges", top_counts((d.get("relation") for *_, d in self.edges(data=True)), 8)),
                ("final layers from", self.graph.get("final_layers_from")),
                ("build finished", self.graph.get("build_finished")),
            ],
        )

    # -- building ------------------------------------------------------------------------

    def layer(self, name: str, line: int = 0) -> str:
        """The id of the layer node ``name`` (created as ``intermediate`` if new)."""
        node_id = _layer(name)
        if node_id not in self:
            self.add_node(node_id, kind="intermediate", name=name, line=line)
        return node_id

    def relate(
        self,
        source: str,
        target: str,
        relation: Relation,
        pass_name: str | None = None,
        line: int = 0,
        evidence: str = "log",
    ) -> None:
        """Add an edge unless the same relation already joins the two nodes."""
        if source == target:
            return
        current = self.get_edge_data(source, target)
        if current is not None and (current["relation"] == relation or current["line"]):
            return
        self.add_edge(
            source, target, relation=relation, pass_name=pass_name, line=line, evidence=evidence
        )

    # -- queries -------------------------------------------------------------------------

    def find(self, name: str, kinds: Sequence[str] = ()) -> str | None:
        """The id of the node printed as ``name`` (ONNX nodes first), or ``None``."""
        order = kinds or ("onnx_node", "onnx_initializer", "engine_layer", "intermediate")
        ids = {
            "onnx_node": "onnx:" + name,
            "onnx_initializer": "init:" + name,
            "engine_layer": _layer(name),
            "intermediate": _layer(name),
        }
        for kind in order:
            node_id = ids.get(kind)
            if node_id is not None and node_id in self and self.nodes[node_id]["kind"] == kind:
                return node_id
        return None

    def final_layers(self) -> list[str]:
        """Names of the engine layers, in engine order."""
        found = [
            (data.get("index", 0), data["name"])
            for _, data in self.nodes(data=True)
            if data["kind"] == "engine_layer"
        ]
        return [name for _, name in sorted(found)]

    def _step(self, source: str, target: str) -> Step:
        data = self.edges[source, target]
        return Step(
            relation=data["relation"],
            source=self.nodes[source]["name"],
            target=self.nodes[target]["name"],
            pass_name=data.get("pass_name"),
            line=data.get("line") or 0,
            evidence=data.get("evidence") or "log",
        )

    def fate(self, node: str | EngineLayer) -> Fate:
        """What became of the ONNX node (or initializer) ``node``.

        A layer name (or an :class:`~trtlog.layers.EngineLayer`) is accepted too (the logs
        without parser lines know nodes by the layers made of them).

        Raises:
            KeyError: no ONNX node, initializer or layer of that name in the build.
            TypeError: ``node`` is neither a name nor an engine layer.
        """
        node = _name_of(node, "fate")
        start = self.find(node, ("onnx_node", "onnx_initializer", "intermediate", "engine_layer"))
        if start is None:
            raise KeyError(f"no ONNX node, initializer or layer named {node!r} in this build")
        data = self.nodes[start]
        reached, steps = self._flow(start)
        finals = [n for n in reached if self.nodes[n]["kind"] == "engine_layer"]
        constant = data["kind"] == "onnx_initializer" or data.get("op") == "Constant"
        ends: list[Step] = []
        for n in reached:
            for _, target, edge in self.out_edges(n, data=True):
                if edge["relation"] in ("removed by", "retargeted to"):
                    ends.append(self._step(n, target))
        kind: FateKind
        reason = None
        if finals:
            kind = "folded" if constant and start not in finals else "fused"
        elif any(s.relation == "removed by" for s in ends):
            removal = next(s for s in ends if s.relation == "removed by")
            folding = constant or _FOLDING.search(removal.target or "") is not None
            kind = "folded" if folding else "removed"
            steps += [s for s in ends if s.relation == "removed by"][:1]
        elif ends:
            kind = "retargeted"
            steps += ends[:1]
        else:
            kind = "unexplained"
            reason = self._why(start, reached)
        steps.sort(key=lambda s: (s.line == 0, s.line))
        passes = tuple(dict.fromkeys(s.pass_name for s in steps if s.pass_name))
        return Fate(
            node=data["name"],
            op=data.get("op"),
            kind=kind,
            final_layers=tuple(self.nodes[n]["name"] for n in finals),
            passes=passes,
            lines=tuple(sorted({s.line for s in steps if s.line})),
            steps=tuple(steps),
            reason=reason,
        )

    def _flow(self, start: str) -> tuple[list[str], list[Step]]:
        """Nodes reachable from ``start`` along identity-carrying edges, and those edges."""
        seen = {start}
        order = [start]
        steps: list[Step] = []
        stack = [start]
        while stack:
            current = stack.pop()
            for _, target, edge in self.out_edges(current, data=True):
                if edge["relation"] in FLOWS and target not in seen:
                    seen.add(target)
                    order.append(target)
                    stack.append(target)
                    steps.append(self._step(current, target))
        return order, steps

    def _why(self, start: str, reached: list[str]) -> str:
        if not self.graph.get("final_layers_known"):
            return "the log has no layer dump and no autotuned layers: the final layers are unknown"
        if self.graph.get("final_layers_from") == "autotuned layers" and not self.graph.get(
            "build_finished"
        ):
            return (
                "the build did not finish (the log ends, fails or crashes before the engine is "
                "built): the final layers are only the ones autotuned so far"
            )
        if len(reached) == 1 and start.startswith("onnx:"):
            return "no TensorRT layer of this name, no fusion and no removal mentions it"
        last = self.nodes[reached[-1]]["name"]
        return f"last seen as {last!r}, which is neither an engine layer nor removed"

    def fates(self) -> list[Fate]:
        """The fate of every ONNX node, in parse order."""
        nodes = [
            (data.get("order", 0), data["name"])
            for _, data in self.nodes(data=True)
            if data["kind"] == "onnx_node"
        ]
        return [self.fate(name) for _, name in sorted(nodes)]

    def provenance(self, layer: str | EngineLayer) -> Provenance:
        """The ONNX nodes inside the engine (or intermediate) layer ``layer`` and the chain.

        ``layer`` is a name or an :class:`~trtlog.layers.EngineLayer`.

        Raises:
            KeyError: no layer of that name.
            TypeError: ``layer`` is neither a name nor an engine layer.
        """
        layer = _name_of(layer, "provenance")
        start = self.find(layer, ("engine_layer", "intermediate"))
        if start is None:
            raise KeyError(f"no layer named {layer!r} in this build")
        seen = {start}
        stack = [start]
        while stack:
            current = stack.pop()
            for source, _, edge in self.in_edges(current, data=True):
                if edge["relation"] in FLOWS and source not in seen:
                    seen.add(source)
                    stack.append(source)
        steps = [
            self._step(a, b)
            for a, b, edge in self.subgraph(seen).edges(data=True)
            if edge["relation"] in FLOWS
        ]
        steps.sort(key=lambda s: (s.line == 0, s.line, s.source))
        nodes = sorted(
            (self.nodes[n].get("order", 0), self.nodes[n]["name"], self.nodes[n].get("op"))
            for n in seen
            if self.nodes[n]["kind"] == "onnx_node"
        )
        initializers = sorted(
            self.nodes[n]["name"] for n in seen if self.nodes[n]["kind"] == "onnx_initializer"
        )
        originals = sorted(
            (self.nodes[n].get("line", 0), self.nodes[n]["name"])
            for n in seen
            if self.nodes[n]["kind"] in ("intermediate", "engine_layer")
            and split_name(self.nodes[n]["name"]).op in ("leaf", "clone")
        )
        original = tuple(dict.fromkeys(name for _, name in originals))
        registered = {
            self.nodes[b]["name"]
            for a, b, edge in self.subgraph(seen).edges(data=True)
            if edge["relation"] == "registered as"
        }
        return Provenance(
            layer=self.nodes[start]["name"],
            onnx_nodes=tuple(name for _, name, _ in nodes),
            ops=tuple(op for _, _, op in nodes),
            initializers=tuple(initializers),
            original_layers=original,
            unparsed=tuple(n for n in original if n not in registered),
            steps=tuple(steps),
            passes=tuple(dict.fromkeys(s.pass_name for s in steps if s.pass_name)),
        )

    def members(self, layer: str | EngineLayer) -> list[tuple[str, str | None]]:
        """``(ONNX node, op type)`` of every node inside ``layer`` (a name or an engine layer)."""
        found = self.provenance(_name_of(layer, "members"))
        return list(zip(found.onnx_nodes, found.ops, strict=True))

    def subgraph_matching(self, pattern: str) -> MergeGraph:
        """The nodes whose name matches ``pattern`` (a regex), with their ancestors and descendants.

        What they came from and what they became, as a graph of its own.
        """
        rx = re.compile(pattern)
        keep: set[str] = set()
        for node_id, data in self.nodes(data=True):
            if rx.search(data["name"]):
                keep.add(node_id)
                keep |= nx.ancestors(self, node_id)
                keep |= nx.descendants(self, node_id)
        sub = MergeGraph(self.subgraph(keep))
        sub.graph.update(self.graph)
        return sub


# -- building from events ----------------------------------------------------------------------


def _result_name(pass_name: str | None, first: str, second: str) -> str:
    """The name TensorRT gives the layer ``Fusing first with second`` produces."""
    if pass_name == "PointWiseFusion":
        return f"PWN({first}, {second})"
    return f"{first} + {second}"


# events that say what the running pass did
_EFFECTS = frozenset(
    {
        "fusion",
        "fusion_into",
        "conv_scale_fusion",
        "horizontal_merge",
        "layer_removed",
        "qdq_dedup",
        "layer_swap",
        "qdq_swap",
        "layer_type_change",
        "slice_elimination",
        "concat_elimination",
        "copy_generated",
        "retarget",
    }
)


class _Builder:
    """Walks the events once, in log order, and adds nodes and edges."""

    def __init__(self, graph: MergeGraph) -> None:
        self.g = graph
        self.pass_name: str | None = None  # the pass of the last "Running: <pass> on <x>"
        self.pass_layer: str | None = None
        self.pass_line = 0
        self.pass_acted = True  # whether the running pass has printed what it did
        self.silent: dict[str, list[tuple[str, int]]] = defaultdict(list)  # layer -> passes
        self.pending: list[tuple[str, int]] = []  # removals waiting for their stage name
        self.order: list[str] = []  # ONNX nodes in parse order
        self.order_index: dict[str, int] = {}  # ONNX node -> its position in self.order
        self.layer_order: dict[str, int] = {}  # TensorRT layers in the order the parser made them
        self.layer_names: list[str] = []  # the same, as a list
        self.foreign: dict[str, tuple[str, ...]] = {}  # Myelin region -> its ONNX nodes
        self.producers: dict[str, str] = {}  # tensor -> ONNX node that outputs it
        self.inputs: dict[str, list[str]] = defaultdict(list)  # ONNX node -> input tensors
        self.consumers: dict[str, list[str]] = defaultdict(list)  # tensor -> ONNX nodes

    def onnx_node(self, name: str, op: str | None, line: int) -> None:
        node_id = "onnx:" + name
        if node_id not in self.g:
            self.g.add_node(
                node_id, kind="onnx_node", name=name, op=op, line=line, order=len(self.order)
            )
            self.order_index[name] = len(self.order)
            self.order.append(name)

    def event(self, e: Any) -> None:
        kind = e.kind
        line = e.span[0]
        g = self.g
        if kind in _EFFECTS:
            self.pass_acted = True
        if kind == "onnx_parse_node":
            self.onnx_node(e.node, e.op, line)
        elif kind == "onnx_import_initializer":
            node_id = "init:" + e.name
            if node_id not in g:
                g.add_node(node_id, kind="onnx_initializer", name=e.name, line=line)
        elif kind == "onnx_node_io":
            names = [t.name for t in e.tensors if t.name]
            if e.direction == "outputs":
                for tensor in names:
                    self.producers.setdefault(tensor, e.node)
            else:
                self.inputs[e.node].extend(names)
                for tensor in names:
                    self.consumers[tensor].append(e.node)
        elif kind == "onnx_register_layer" and e.layer not in self.layer_order:
            self.layer_order[e.layer] = len(self.layer_order)
            self.layer_names.append(e.layer)
            if e.node:
                self._register(e.node, e.layer, line)
        elif kind == "foreign_node_metadata" and e.onnx_layers:
            self.foreign[e.layer] = tuple(e.onnx_layers)
        elif kind == "onnx_register_layer" and e.node:
            self._register(e.node, e.layer, line)
        elif kind == "onnx_register_constant":
            init = "init:" + e.initializer
            if init not in g:
                g.add_node(init, kind="onnx_initializer", name=e.initializer, line=line)
            g.relate(init, g.layer(e.layer, line), "registered as", None, line)
        elif kind == "pass_run":
            self._close_pass()
            self.pass_name, self.pass_layer, self.pass_line = e.pass_name, e.layer, line
            self.pass_acted = False
        elif kind == "layer_count":
            self._stage(e.stage)
        elif kind == "fusion":
            name = e.pass_name or self.pass_name
            result = g.layer(_result_name(name, e.first, e.second), line)
            g.relate(g.layer(e.first, line), result, "merged into", name, line)
            g.relate(g.layer(e.second, line), result, "merged into", name, line)
        elif kind == "fusion_into":
            target = g.layer(e.target, line)
            for source in e.sources:
                g.relate(g.layer(source, line), target, "merged into", e.pass_name, line)
        elif kind == "conv_scale_fusion":
            g.relate(g.layer(e.scale, line), g.layer(e.conv, line), "merged into", None, line)
        elif kind == "horizontal_merge":
            result = g.layer(" || ".join(e.layers), line)
            for part in e.layers:
                g.relate(g.layer(part, line), result, "merged into", "HorizontalMerge", line)
        elif kind == "layer_removed":
            self._removed(e.layer, line)
        elif kind == "qdq_dedup":
            g.relate(
                g.layer(e.layer, line),
                g.layer(e.duplicate_of, line),
                "duplicate of",
                self.pass_name,
                line,
            )
        elif kind == "layer_swap":
            a, b = g.layer(e.first, line), g.layer(e.second, line)
            g.relate(a, b, "swapped with", self.pass_name, line)
        elif kind in ("qdq_swap", "layer_type_change"):
            node = g.nodes[g.layer(e.layer, line)]
            node["types"] = (node.get("types") or "") + f"{e.from_type}->{e.to_type};"
        elif kind == "slice_elimination":
            self._retarget(e.slice, e.to_tensor, "SliceElimination", line)
        elif kind == "concat_elimination":
            self._retarget(e.concat, None, "ConcatElimination", line)
        elif kind == "copy_generated":
            copy = g.layer(f"copy of {e.tensor} for {e.target}", line)
            producer = self.producers.get(e.target)
            if producer is not None:
                g.relate(copy, g.layer(producer, line), "copied for", self.pass_name, line)

    def _register(self, node: str, layer: str, line: int) -> None:
        g = self.g
        if "init:" + node in g:  # a constant layer made of an initializer
            g.relate("init:" + node, g.layer(layer, line), "registered as", None, line)
            return
        # 8.4/8.5 name a Constant node after its output tensor ("Registering layer: 174 for
        # ONNX node: 174", made when a later node first reads 174): the node is its producer
        if "onnx:" + node not in g and node in self.producers:
            node = self.producers[node]
        # ... and when the log has no parser line for that Constant (an excerpt, yolov8 seed
        # line 104), the tensor a parsed node reads is still a constant's output
        op = None
        if "onnx:" + node not in g and node == layer and node in self.consumers:
            op = "Constant"
            self.producers.setdefault(node, node)
        self.onnx_node(node, op, line)
        g.relate("onnx:" + node, g.layer(layer, line), "registered as", None, line)

    def _close_pass(self) -> None:
        """Remember a pass that ran on a layer and printed nothing about what it did."""
        if not self.pass_acted and self.pass_name is not None and self.pass_layer is not None:
            self.silent[self.pass_layer].append((self.pass_name, self.pass_line))
        self.pass_acted = True

    def _removed(self, name: str, line: int) -> None:
        g = self.g
        node = g.layer(name, line)
        if any(d["relation"] in FLOWS for _, _, d in g.out_edges(node, data=True)):
            return  # already merged into something: the removal is the fusion's clean-up
        holder = self.pass_layer
        if (
            self.pass_name is not None
            and holder is not None
            and holder != name
            and _ERASING.search(self.pass_name) is None
        ):
            g.relate(
                node, self._current(g.layer(holder, line)), "merged into", self.pass_name, line
            )
        elif self.pass_name is not None:
            g.relate(node, self._pass(self.pass_name), "removed by", self.pass_name, line)
        else:
            self.pending.append((node, line))

    def _current(self, node_id: str) -> str:
        """The layer that holds ``node_id`` now: fusions printed since may have renamed it.

        ``Running: QuantizeConvWithResidualAdd on Conv_34`` can print ``Fusing ... Conv_34
        with Add_42 + Relu_43`` before ``Removing DequantizeLinear_41`` (8.5.10 resnet18-QAT
        lines 2619-2628): the DQ goes into the layer Conv_34 has become.
        """
        g = self.g
        seen = {node_id}
        while True:
            later = [
                (d["line"], b)
                for _, b, d in g.out_edges(node_id, data=True)
                if d["relation"] == "merged into" and d["line"] and b not in seen
            ]
            if not later:
                return node_id
            node_id = max(later)[1]
            seen.add(node_id)

    def _pass(self, name: str) -> str:
        node_id = "pass:" + name
        if node_id not in self.g:
            self.g.add_node(node_id, kind="pass", name=name)
        return node_id

    def _stage(self, stage: str) -> None:
        """A layer count closes a stage: removals without a pass get the stage's name."""
        self._close_pass()
        for node, line in self.pending:
            self.g.relate(node, self._pass(stage), "removed by", stage, line)
        self.pending = []
        self.pass_name = self.pass_layer = None

    def _retarget(self, name: str, tensor: str | None, pass_name: str, line: int) -> None:
        g = self.g
        node = g.layer(name, line)
        producer = self.producers.get(tensor) if tensor else None
        target = g.layer(producer, line) if producer else self._pass(pass_name)
        g.relate(node, target, "retargeted to", pass_name, line)

    def finish(self, engine: Engine | None) -> None:
        g = self.g
        self._close_pass()
        for node, line in self.pending:
            g.relate(node, self._pass("dead-layer removal"), "removed by", None, line)
        self.pending = []
        order = {name: i for i, name in enumerate(self.order)}
        # an initializer without a "Registering ..." line is the constant layer of its name,
        # when one appears
        for node_id in list(g.nodes):
            data = g.nodes[node_id]
            if data["kind"] == "onnx_initializer" and not g.out_degree(node_id):
                layer_id = _layer(data["name"])
                if layer_id in g:
                    g.relate(node_id, layer_id, "registered as", None, 0, "name")
        # an ONNX node without a "Registering layer" line became the layer of its own name
        for name in self.order:
            node_id = "onnx:" + name
            edges = g.out_edges(node_id, data=True)
            if not any(d["relation"] == "registered as" for _, _, d in edges):
                g.relate(node_id, g.layer(name), "registered as", None, 0, "name")
        finals = self._finals(engine)
        g.graph["final_layers_known"] = bool(finals)
        for index, (name, onnx_nodes, source) in enumerate(finals):
            node_id = g.layer(name)
            g.nodes[node_id]["kind"] = "engine_layer"
            g.nodes[node_id]["index"] = index
            if source in ("metadata", "range"):
                for member in onnx_nodes:
                    if member not in order:
                        self.onnx_node(member, None, 0)
                    g.relate("onnx:" + member, node_id, "merged into", None, 0, source)
            self._compose(node_id, name, order)
        # intermediate dead ends whose parts an engine layer lists (the log cut the fusion
        # lines, or the pass named its result differently)
        by_member: dict[str, list[str]] = defaultdict(list)
        for node_id in g.nodes:
            data = g.nodes[node_id]
            if data["kind"] == "engine_layer":
                for member in split_name(data["name"]).members():
                    by_member[member].append(node_id)
        for node_id in list(g.nodes):
            data = g.nodes[node_id]
            if data["kind"] != "intermediate" or any(
                d["relation"] in FLOWS | {"removed by", "retargeted to"}
                for _, _, d in g.out_edges(node_id, data=True)
            ):
                continue
            holders = {h for m in split_name(data["name"]).members() for h in by_member.get(m, ())}
            for holder in sorted(holders):
                g.relate(node_id, holder, "merged into", None, 0, "name")
        self._infer()

    def _dead_end(self, node_id: str) -> bool:
        ends = FLOWS | {"removed by", "retargeted to"}
        return not any(d["relation"] in ends for _, _, d in self.g.out_edges(node_id, data=True))

    def _registered(self, node_id: str) -> list[str]:
        edges = self.g.out_edges(node_id, data=True)
        return [b for _, b, d in edges if d["relation"] == "registered as"]

    def _infer(self) -> None:
        """Explain dead ends the log is silent about, from the ONNX data flow.

        For an ONNX node (or initializer) whose layers reach no engine layer and no removal:

        - a constant (a ``Constant`` node, an initializer, or a node that only reads
          constants) was folded into the layers of the nodes that read it (``dataflow``);
        - a node reading the output of a layer that a fusion pass ran on without printing
          what it fused (``Running: ConvReshapeBiasAddFusion on MatMul-9`` and nothing else)
          was fused into that layer by that pass (``pass``).
        """
        g = self.g
        outputs: dict[str, list[str]] = defaultdict(list)
        for tensor, node in self.producers.items():
            outputs[node].append(tensor)
        initializers = {d["name"] for _, d in g.nodes(data=True) if d["kind"] == "onnx_initializer"}
        constant: set[str] = set(initializers)
        for name in self.order:  # parse order is topological
            op = g.nodes["onnx:" + name].get("op")
            inputs = self.inputs.get(name, [])
            if op == "Constant" or (
                inputs
                and all(t in initializers or self.producers.get(t) in constant for t in inputs)
            ):
                constant.add(name)
        starts = [("init:" + n, n, [n]) for n in sorted(initializers)]
        starts += [("onnx:" + n, n, outputs.get(n, [])) for n in self.order]
        for start, name, tensors in starts:
            if start not in g:
                continue
            reached, _ = g._flow(start)
            if self._settled(reached):
                continue
            ends = [n for n in reached if self._dead_end(n)]
            if name in constant:
                readers = [c for t in tensors for c in self.consumers.get(t, ())]
                targets = [x for r in dict.fromkeys(readers) for x in self._registered("onnx:" + r)]
                for end in ends:
                    for target in targets:
                        # a reader fused with the constant already holds it (no cycle)
                        if end not in g._flow(target)[0]:
                            g.relate(end, target, "merged into", None, 0, "dataflow")
                continue
            found = self._silent_fusion(name)
            if found is not None:
                target, pass_name, line = found
                for end in ends:
                    g.relate(end, target, "merged into", pass_name, line, "pass")

    def _settled(self, reached: list[str]) -> bool:
        """Whether the log already tells where these nodes went."""
        g = self.g
        return any(
            g.nodes[n]["kind"] == "engine_layer"
            or any(
                d["relation"] in ("removed by", "retargeted to")
                for _, _, d in g.out_edges(n, data=True)
            )
            for n in reached
        )

    def _silent_fusion(self, name: str) -> tuple[str, str, int] | None:
        """A producer layer of ``name``'s inputs that a fusion pass ran on silently."""
        for tensor in self.inputs.get(name, ()):
            producer = self.producers.get(tensor)
            if producer is None:
                continue
            for target in self._registered("onnx:" + producer):
                runs = self.silent.get(self.g.nodes[target]["name"], [])
                for pass_name, line in runs:
                    if "Fusion" in pass_name:
                        return target, pass_name, line
        return None

    def _finals(self, engine: Engine | None) -> list[tuple[str, tuple[str, ...], str]]:
        if engine is not None:
            return [(x.name, x.onnx_nodes, x.onnx_source) for x in engine.layers]
        return []

    def _range(self, first: str, last: str) -> list[str] | None:
        """The layers from ``first`` to ``last`` in the order the parser registered them.

        Else the ONNX nodes in parse order; ``None`` when neither order knows both ends.
        """
        # the indexes are kept as the nodes come (rebuilding them per call made an engine of
        # thousands of Myelin ranges quadratic)
        for names, index in (
            (self.layer_names, self.layer_order),
            (self.order, self.order_index),
        ):
            lo, hi = index.get(first), index.get(last)
            if lo is not None and hi is not None and lo <= hi:
                return names[lo : hi + 1]
        return None

    def _flows(self, node_id: str) -> bool:
        return any(d["relation"] in FLOWS for _, _, d in self.g.out_edges(node_id, data=True))

    def _compose(self, node_id: str, name: str, order: dict[str, int]) -> None:
        """Edges from the parts of a composed final name into the layer, recursively."""
        g = self.g
        parts = split_name(name)
        if parts.op in ("fusion", "merge", "pointwise"):
            for part in parts.parts:
                part_id = g.layer(part.text)
                if not self._flows(part_id):  # the log did not say where it went
                    g.relate(part_id, node_id, "merged into", None, 0, "name")
                self._compose(part_id, part.text, order)
        elif parts.op == "clone" and parts.parts:
            base = parts.parts[0].text
            g.relate(g.layer(base), node_id, "cloned as", None, 0, "name")
        elif parts.op == "foreign" and name in self.foreign:
            for member in self.foreign[name]:
                if "onnx:" + member not in g:
                    self.onnx_node(member, None, 0)
                g.relate("onnx:" + member, node_id, "merged into", "Myelin", 0, "metadata")
        elif parts.op == "foreign" and parts.detail == "range" and len(parts.parts) == 2:
            first, last = parts.parts[0].members(), parts.parts[1].members()
            members = self._range(first[0], last[-1]) if first and last else None
            if members is not None:
                for member in members:
                    g.relate(g.layer(member), node_id, "merged into", "Myelin", 0, "order")
            else:
                for member in first + last:
                    g.relate(g.layer(member), node_id, "merged into", "Myelin", 0, "name")
        elif parts.op == "foreign":
            for member in parts.members():
                g.relate(g.layer(member), node_id, "merged into", "Myelin", 0, "name")
        elif parts.op == "reformat" and parts.parts:
            g.relate(node_id, g.layer(parts.parts[0].text), "copied for", None, 0, "name")
        elif parts.op in ("profile", "myelin") and parts.parts:
            g.relate(g.layer(parts.parts[0].text), node_id, "merged into", None, 0, "name")


def merge_graph(build: Build, engine: Engine | None = None) -> MergeGraph:
    """The merge graph of ``build`` (see the module docstring).

    Args:
        build: a parsed log.
        engine: the built engine whose layers are final (default: the log's own layer dump;
            without one, the layers of its placement lines, else the layers the builder
            autotuned).
    """
    graph = MergeGraph(source=build.source.name)
    builder = _Builder(graph)
    for event in build.events:
        builder.event(event)
    finals = "engine"
    if engine is None:
        engine, finals = build.engine, "layer dump"
    if engine is None:
        engine, finals = _listed_engine(build, _PLACEMENT), "placement"
    if engine is None:
        engine, finals = _listed_engine(build, _AUTOTUNED), "autotuned layers"
    graph.graph["final_layers_from"] = finals if engine is not None else "none"
    graph.graph["build_finished"] = any(
        e.kind in ("engine_built", "engine_generated", "engine_layer_info_header")
        for e in build.events
    )
    builder.finish(engine)
    return graph


_PLACEMENT = ("placement_gpu", "placement_dla", "placement_list")
_AUTOTUNED = ("layer_costs_header", "timing_runner")


def _listed_engine(build: Build, kinds: Sequence[str]) -> Engine | None:
    """An engine of the layers events of ``kinds`` name, for logs without a layer dump.

    The placement lines (``[GpuLayer] CONVOLUTION: conv1 + relu1``) list the layers after graph
    optimization; the autotuner's lines name the layers it timed.
    """
    from trtlog.layers import Engine, EngineLayer

    names: dict[str, None] = {}
    for event in build.events_of(*kinds):
        found = getattr(event, "layers", None) or (getattr(event, "layer", None),)
        for name in found:
            if isinstance(name, str) and name and not name.startswith("Optimizer Reformat("):
                names[name] = None
    if not names:
        return None
    layers = tuple(EngineLayer(index=i, name=n) for i, n in enumerate(names))
    return Engine(source=build.source.name, origin="log_names", detailed=False, layers=layers)


# -- conveniences and export -------------------------------------------------------------------


def fate(build: Build, node: str | EngineLayer) -> Fate:
    """What became of the ONNX node ``node`` in ``build`` (see :meth:`MergeGraph.fate`)."""
    return build.merge_graph().fate(_name_of(node, "trtlog.fate"))


def provenance(build: Build, layer: str | EngineLayer) -> Provenance:
    """The ONNX nodes and passes behind ``layer`` (see :meth:`MergeGraph.provenance`)."""
    return build.merge_graph().provenance(_name_of(layer, "trtlog.provenance"))


def members(build: Build, layer: str | EngineLayer) -> list[tuple[str, str | None]]:
    """``(ONNX node, op type)`` of every node inside ``layer`` (a name or an engine layer)."""
    return build.merge_graph().members(_name_of(layer, "trtlog.members"))


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
