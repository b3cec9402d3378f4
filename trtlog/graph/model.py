"""The merge graph: which original ONNX nodes became which engine layers, by which pass.

The graph package's model (networkx): :class:`MergeGraph` (a ``networkx.DiGraph``) with its
queries, and the typed answers (:class:`Fate`, :class:`Provenance`, :class:`Step`).
:func:`~trtlog.graph.from_events.merge_graph` builds one from a build's events alone, plus the
final layers of its layer dump or of an :class:`~trtlog.engine.Engine` passed in.

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
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import networkx as nx
from pydantic import BaseModel, ConfigDict

from trtlog._display import html_table, plural, top_counts
from trtlog._pydantic import assemble
from trtlog.engine.model import EngineLayer
from trtlog.names import split_name

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = [
    "FLOWS",
    "Fate",
    "FateKind",
    "MergeGraph",
    "Provenance",
    "Relation",
    "Step",
    "TypeConversion",
    "encode_conversion",
    "fate",
    "is_constant",
    "layer_id",
    "members",
    "provenance",
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

# passes and phases that fold constants rather than fuse computation
_FOLDING = re.compile(r"const|fold", re.IGNORECASE)


def is_constant(kind: str | None, op: str | None) -> bool:
    """Whether a node of ``kind`` (and ``op``) holds a constant (an initializer, a Constant).

    What reaches an engine layer of a constant was folded in, not fused.
    """
    return kind == "onnx_initializer" or op == "Constant"


def layer_id(name: str) -> str:
    """The node id of a layer name (ids are prefixed: one name is often a node and a layer)."""
    return "layer:" + name


#: A node's out-edges (target -> edge data) or attributes, as networkx stores them.
Adjacency = dict[str, dict[str, dict[str, Any]]]


def _changed(graph: object) -> None:
    """What networkx does after a change: drop the graph's cached conversions (3.3+)."""
    cache = getattr(graph, "__networkx_cache__", None)
    if cache:
        cache.clear()


def _step_order(step: tuple[str, str, dict[str, Any]]) -> tuple[bool, int]:
    """Steps with a line first, by line (the order of :attr:`Fate.steps`)."""
    line = step[2].get("line") or 0
    return line == 0, line


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
            order), ``pass`` (a fusion pass that prints only its ``Running: <pass> on
            <layer>`` line ran on the layer the node went into; ``line`` is that line), or an
            inference where the log is silent: ``dataflow`` (a constant folded into its only
            reader), or ``silent`` (a node the log never
            names again: a shape computation, an identity-like node or a duplicate; the
            target says which).
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
            text += (
                f" (line {self.line}: the pass ran on {self.target} and prints no line of what "
                "it fuses)"
            )
        elif self.evidence == "dataflow":
            text += " (inferred: its only reader)"
        elif self.evidence == "silent":
            text = f"{self.target} (inferred from the parser lines: no later line names it)"
        elif self.line:
            text += f" (line {self.line})"
        else:
            text += f" (from the {self.evidence})"
        return text


class TypeConversion(BaseModel):
    """A layer whose type a pass changed (``Convert layer type of <layer> from A to B``).

    Attributes:
        layer: the layer converted.
        from_type: its type before (``MATRIX_MULTIPLY``, ``FULLY_CONNECTED``, ``IDENTITY``...).
        to_type: its type after (``CONVOLUTION``, ``CAST``...).
        pass_name: the pass running at that line (``MatMulToConvTransform``), if any.
        line: the log line.
    """

    model_config = ConfigDict(frozen=True)

    layer: str
    from_type: str
    to_type: str
    pass_name: str | None = None
    line: int = 0

    def describe(self) -> str:
        """``converted from A to B by <pass> (line N)``."""
        by = f" by {self.pass_name}" if self.pass_name else ""
        return f"converted from {self.from_type} to {self.to_type}{by} (line {self.line})"


def encode_conversion(from_type: str, to_type: str, pass_name: str | None, line: int) -> str:
    """A type conversion as the text a graph node keeps (GraphML holds text, not tuples)."""
    return f"{from_type}\t{to_type}\t{pass_name or ''}\t{line}\n"


def _conversions(layer: str, text: str | None) -> list[TypeConversion]:
    """The conversions :func:`encode_conversion` wrote into a node's ``conversions``."""
    found = []
    for row in (text or "").splitlines():
        from_type, to_type, pass_name, line = row.split("\t")
        found.append(
            TypeConversion(
                layer=layer,
                from_type=from_type,
                to_type=to_type,
                pass_name=pass_name or None,
                line=int(line),
            )
        )
    return found


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
        reason: for ``unexplained``, why; for a node removed or folded without a message of
            the log (a shape computation, an identity, a duplicate), the inference that
            explains it; otherwise ``None``.
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
        conversions: the type conversions of the layers it holds (``MatMulToConvTransform``
            turning a MatMul into a convolution), in log order.
        passes: the passes that built it (its steps' and conversions'), in log order, without
            repeats.
    """

    model_config = ConfigDict(frozen=True)

    layer: str
    onnx_nodes: tuple[str, ...] = ()
    ops: tuple[str | None, ...] = ()
    initializers: tuple[str, ...] = ()
    original_layers: tuple[str, ...] = ()
    unparsed: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
    conversions: tuple[TypeConversion, ...] = ()
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
        if self.steps or self.conversions:
            lines.append("  built by:")
            # steps and conversions in log order (steps without a line, inferred, last)
            history = [(s.line == 0, s.line, 0, f"{s.source} {s.describe()}") for s in self.steps]
            history += [(False, c.line, 1, f"{c.layer} {c.describe()}") for c in self.conversions]
            lines += [f"    {text}" for *_, text in sorted(history)]
        return "\n".join(lines)


def _name_of(value: str | EngineLayer, call: str) -> str:
    """A node or layer name, from a name or an :class:`~trtlog.engine.EngineLayer`."""
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
    """The merge graph of a build (see the module docstring), with its queries.

    The builder and the queries read and write networkx's own dicts (``_succ``, ``_pred``,
    ``_node``, through :meth:`out_adjacency`, :meth:`in_adjacency` and :meth:`node_data`)
    rather than its views: a view object per node visited cost more than the walks
    themselves on a graph of 100,000 nodes.

    Example:
        >>> g = MergeGraph(source="b.log")
        >>> g.relate(g.layer("a"), g.layer("a + b"), "merged into", "Fusion", 7)
        >>> g.fate_edges("layer:a")[0], list(g.out_adjacency()["layer:a"])
        ('unexplained', ['layer:a + b'])
    """

    # networkx's own dicts (``DiGraph.__init__`` makes them; its stubs leave them out)
    _node: dict[str, dict[str, Any]]
    _succ: Adjacency
    _pred: Adjacency

    def out_adjacency(self) -> Adjacency:
        """Node id -> {target id -> edge data}: the graph's out-edges (read-only by contract)."""
        return self._succ

    def in_adjacency(self) -> Adjacency:
        """Node id -> {source id -> edge data}: the graph's in-edges (read-only by contract)."""
        return self._pred

    def node_data(self) -> dict[str, dict[str, Any]]:
        """Node id -> its attributes (the dict networkx keeps; read-only by contract)."""
        return self._node

    # -- building ------------------------------------------------------------------------

    def insert(self, node_id: str, attrs: dict[str, Any]) -> None:
        """Add the node ``node_id``, which is not in the graph yet, with ``attrs`` (taken over).

        What ``add_node`` does, written into networkx's dicts directly: the merge graph of a
        big build adds a hundred thousand nodes, and ``add_node``'s checks cost as much as
        the rest of its building.
        """
        self._succ[node_id] = {}
        self._pred[node_id] = {}
        self._node[node_id] = attrs
        _changed(self)

    def layer(self, name: str, line: int = 0) -> str:
        """The id of the layer node ``name`` (created as ``intermediate`` if new)."""
        node_id = "layer:" + name
        if node_id not in self._node:
            self.insert(node_id, {"kind": "intermediate", "name": name, "line": line})
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
        succ: Adjacency = self._succ
        targets = succ.get(source)
        current = targets.get(target) if targets is not None else None
        data = {"relation": relation, "pass_name": pass_name, "line": line, "evidence": evidence}
        if current is not None:
            if current["relation"] == relation or current["line"]:
                return
            current.update(data)  # as add_edge updates an edge's attributes in place
        elif targets is None or target not in succ:
            self.add_edge(source, target, **data)  # networkx's: adds the missing node(s) bare
            return
        else:  # add_edge of two nodes in the graph, written into networkx's dicts directly
            targets[target] = data
            self._pred[target][source] = data
        _changed(self)

    # -- queries -------------------------------------------------------------------------

    def find(self, name: str, kinds: Sequence[str] = ()) -> str | None:
        """The id of the node printed as ``name`` (ONNX nodes first), or ``None``."""
        order = kinds or ("onnx_node", "onnx_initializer", "engine_layer", "intermediate")
        ids = {
            "onnx_node": "onnx:" + name,
            "onnx_initializer": "init:" + name,
            "engine_layer": layer_id(name),
            "intermediate": layer_id(name),
        }
        for kind in order:
            node_id = ids.get(kind)
            found = self._node.get(node_id) if node_id is not None else None
            if found is not None and found["kind"] == kind:
                return node_id
        return None

    def fate_edges(
        self, start: str
    ) -> tuple[FateKind, str | None, list[str], list[tuple[str, str, dict[str, Any]]]]:
        """The fate of the node ``start`` (a node id) as the graph holds it.

        Its kind, reason, the ids of its final layers and the edges of its steps
        (``(source id, target id, edge data)``, in the order of :attr:`Fate.steps`): what
        :meth:`fate` makes a :class:`Fate` of, for a reader of thousands of fates that needs
        no models (the report page).
        """
        # networkx's dicts as attributes (a report reads tens of thousands of fates)
        nodes: dict[str, dict[str, Any]] = self._node
        succ: Adjacency = self._succ
        data = nodes[start]
        steps: list[tuple[str, str, dict[str, Any]]] = []
        reached = self._walk(start, steps)
        finals = [n for n in reached if nodes[n]["kind"] == "engine_layer"]
        kind: FateKind
        reason = None
        if finals:
            constant = is_constant(data["kind"], data.get("op"))
            kind = "folded" if constant and start not in finals else "fused"
        else:
            ends = [
                (n, target, edge)
                for n in reached
                for target, edge in succ[n].items()
                if edge["relation"] in ("removed by", "retargeted to")
            ]
            removal = next((e for e in ends if e[2]["relation"] == "removed by"), None)
            if removal is not None:
                constant = is_constant(data["kind"], data.get("op"))
                target_name = nodes[removal[1]]["name"]
                folding = constant or _FOLDING.search(target_name or "") is not None
                kind = "folded" if folding else "removed"
                steps.append(removal)
                if (removal[2].get("evidence") or "log") == "silent":
                    # the log names no pass: say why
                    reason = target_name
            elif ends:
                kind = "retargeted"
                steps.append(ends[0])
            else:
                kind = "unexplained"
                reason = self._why(start, reached)
        if len(steps) > 1:  # (most chains are one step)
            steps.sort(key=_step_order)
        return kind, reason, finals, steps

    def reach(self, start: str) -> list[str]:
        """Node ids reachable from ``start`` along :data:`FLOWS` edges, ``start`` first.

        In the order :meth:`fate` visits them (depth first, each node's edges in the order
        they were added).
        """
        return self._walk(start, None)

    def _walk(self, start: str, steps: list[tuple[str, str, dict[str, Any]]] | None) -> list[str]:
        """The walk of :meth:`reach`; appends each edge it follows to ``steps`` when given.

        Each edge as ``(source id, target id, edge data)``, what :meth:`fate_edges` returns.
        """
        succ: Adjacency = self._succ
        seen = {start}
        order = [start]
        stack = [start]
        while stack:
            current = stack.pop()
            for target, edge in succ[current].items():
                if target not in seen and edge["relation"] in FLOWS:
                    seen.add(target)
                    order.append(target)
                    stack.append(target)
                    if steps is not None:
                        steps.append((current, target, edge))
        return order

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
        last = self._node[reached[-1]]["name"]
        return f"last seen as {last!r}, which is neither an engine layer nor removed"

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

    def final_layers(self) -> list[str]:
        """Names of the engine layers, in engine order."""
        found = [
            (data.get("index", 0), data["name"])
            for _, data in self.nodes(data=True)
            if data["kind"] == "engine_layer"
        ]
        return [name for _, name in sorted(found)]

    def _step(self, source: str, target: str, data: dict[str, Any] | None = None) -> Step:
        """The step of the edge ``source -> target`` (``data``: its attributes, if at hand)."""
        if data is None:
            data = self.out_adjacency()[source][target]
        nodes = self.node_data()
        # assembled without validation: every value comes typed from the graph's builder
        return assemble(
            Step,
            {
                "relation": data["relation"],
                "source": nodes[source]["name"],
                "target": nodes[target]["name"],
                "pass_name": data.get("pass_name"),
                "line": data.get("line") or 0,
                "evidence": data.get("evidence") or "log",
            },
            None,
        )

    def fate(self, node: str | EngineLayer) -> Fate:
        """What became of the ONNX node (or initializer) ``node``.

        A layer name (or an :class:`~trtlog.engine.EngineLayer`) is accepted too (the logs
        without parser lines know nodes by the layers made of them).

        Raises:
            KeyError: no ONNX node, initializer or layer of that name in the build.
            TypeError: ``node`` is neither a name nor an engine layer.
        """
        node = _name_of(node, "fate")
        start = self.find(node, ("onnx_node", "onnx_initializer", "intermediate", "engine_layer"))
        if start is None:
            raise KeyError(f"no ONNX node, initializer or layer named {node!r} in this build")
        return self._fate(start)

    def _fate(self, start: str) -> Fate:
        """The fate of the node ``start`` (a node id)."""
        nodes = self.node_data()
        data = nodes[start]
        kind, reason, finals, edges = self.fate_edges(start)
        step = self._step
        steps = [step(a, b, edge) for a, b, edge in edges]
        passes = tuple(dict.fromkeys(s.pass_name for s in steps if s.pass_name))
        return assemble(
            Fate,
            {
                "node": data["name"],
                "op": data.get("op"),
                "kind": kind,
                "final_layers": tuple(nodes[n]["name"] for n in finals),
                "passes": passes,
                "lines": tuple(sorted({s.line for s in steps if s.line})),
                "steps": tuple(steps),
                "reason": reason,
            },
            None,
        )

    def onnx_ids(self) -> list[str]:
        """The node ids of the ONNX nodes, in parse order (the order of :meth:`fates`)."""
        nodes = [
            (data.get("order", 0), data["name"], node_id)
            for node_id, data in self.node_data().items()
            if data["kind"] == "onnx_node"
        ]
        return [node_id for _, _, node_id in sorted(nodes)]

    def fates(self) -> list[Fate]:
        """The fate of every ONNX node, in parse order."""
        # an ONNX node's id is "onnx:" + its name: find() would pick that node first
        return list(map(self._fate, self.onnx_ids()))

    def provenance(self, layer: str | EngineLayer) -> Provenance:
        """The ONNX nodes inside the engine (or intermediate) layer ``layer`` and the chain.

        ``layer`` is a name or an :class:`~trtlog.engine.EngineLayer`.

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
        # a total order: steps of one line come from a set of nodes (hash order otherwise)
        steps.sort(key=lambda s: (s.line == 0, s.line, s.source, s.target, s.relation, s.evidence))
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
        conversions = sorted(
            (
                c
                for n in seen
                if self.nodes[n].get("conversions")
                for c in _conversions(self.nodes[n]["name"], self.nodes[n]["conversions"])
            ),
            key=lambda c: (c.line, c.layer),
        )
        credited = [(s.line == 0, s.line, s.pass_name) for s in steps if s.pass_name]
        credited += [(False, c.line, c.pass_name) for c in conversions if c.pass_name]
        return Provenance(
            layer=self.nodes[start]["name"],
            onnx_nodes=tuple(name for _, name, _ in nodes),
            ops=tuple(op for _, _, op in nodes),
            initializers=tuple(initializers),
            original_layers=original,
            unparsed=tuple(n for n in original if n not in registered),
            steps=tuple(steps),
            conversions=tuple(conversions),
            passes=tuple(dict.fromkeys(name for *_, name in sorted(credited))),
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


# -- conveniences ------------------------------------------------------------------------------


def fate(build: Build, node: str | EngineLayer) -> Fate:
    """What became of the ONNX node ``node`` in ``build`` (see :meth:`MergeGraph.fate`)."""
    return build.merge_graph().fate(_name_of(node, "trtlog.fate"))


def provenance(build: Build, layer: str | EngineLayer) -> Provenance:
    """The ONNX nodes and passes behind ``layer`` (see :meth:`MergeGraph.provenance`)."""
    return build.merge_graph().provenance(_name_of(layer, "trtlog.provenance"))


def members(build: Build, layer: str | EngineLayer) -> list[tuple[str, str | None]]:
    """``(ONNX node, op type)`` of every node inside ``layer`` (a name or an engine layer)."""
    return build.merge_graph().members(_name_of(layer, "trtlog.members"))
