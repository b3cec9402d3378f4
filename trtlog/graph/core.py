"""The merge graph's dicts and the queries that read them, without networkx.

Part of the graph package. :class:`GraphCore` holds a merge graph as networkx keeps one (node
id -> attributes, out-edges and in-edges as dicts of dicts sharing one dict per edge) with the
queries a reader of thousands of fates needs (:meth:`GraphCore.fate_edges`,
:meth:`GraphCore.fate_table`); :class:`~trtlog.graph.model.MergeGraph` is a
``networkx.DiGraph`` with the same queries (it adopts a core's dicts when built). The report
page reads a core and never imports networkx (a fifth of a second of its time).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

__all__ = ["FLOWS", "FateKind", "GraphCore", "Relation", "is_constant", "layer_id"]

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


class GraphCore:
    """A merge graph's dicts and queries (see :mod:`trtlog.graph.model` for its contents).

    Example:
        >>> g = GraphCore(source="b.log")
        >>> g.relate(g.layer("a"), g.layer("a + b"), "merged into", "Fusion", 7)
        >>> g.fate_edges("layer:a")[0], list(g.out_adjacency()["layer:a"])
        ('unexplained', ['layer:a + b'])
    """

    #: Whether the in-edges are kept (a class attribute: networkx's ``__init__`` makes a
    #: :class:`~trtlog.graph.model.MergeGraph`, which keeps them; see :meth:`without_in_edges`).
    keeps_in_edges: bool = True

    def __init__(self, **attr: Any) -> None:
        self.graph: dict[str, Any] = dict(attr)
        # the three dicts hold the same keys in the same order (a node is added to all three at
        # once, and none is removed), as networkx's do: readers zip them
        self._node: dict[str, dict[str, Any]] = {}
        self._succ: Adjacency = {}
        self._pred: Adjacency = {}

    @classmethod
    def without_in_edges(cls, **attr: Any) -> GraphCore:
        """An empty core that keeps no in-edges, for a reader of out-edges only.

        The report page's merge graph section reads nodes, out-edges and fates (walks along
        out-edges); the in-edge dicts of a big engine's graph (a dict per node, an entry per
        edge: 104,600 and 87,200 on the benchmark) cost it time and memory for nothing.
        :meth:`in_adjacency` of such a core raises; a networkx graph cannot adopt it.
        """
        core = cls(**attr)
        core.keeps_in_edges = False
        return core

    def out_adjacency(self) -> Adjacency:
        """Node id -> {target id -> edge data}: the graph's out-edges (read-only by contract)."""
        return self._succ

    def in_adjacency(self) -> Adjacency:
        """Node id -> {source id -> edge data}: the graph's in-edges (read-only by contract).

        Raises:
            RuntimeError: the core keeps no in-edges (:meth:`without_in_edges`).
        """
        if not self.keeps_in_edges:
            raise RuntimeError("this merge graph keeps no in-edges (GraphCore.without_in_edges)")
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
        if self.keeps_in_edges:
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
            self._add_edge(source, target, data)  # adds the missing node(s) too
            return
        else:  # add_edge of two nodes in the graph, written into networkx's dicts directly
            targets[target] = data
            if self.keeps_in_edges:
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

    def _add_edge(self, source: str, target: str, data: dict[str, Any]) -> None:
        """``networkx.DiGraph.add_edge(source, target, **data)``: missing nodes added bare."""
        succ, pred, node = self._succ, self._pred, self._node
        keeps = self.keeps_in_edges
        for n in (source, target):
            if n not in succ:
                succ[n] = {}
                if keeps:
                    pred[n] = {}
                node[n] = {}
        edge = succ[source].get(target, {})
        edge.update(data)
        succ[source][target] = edge
        if keeps:
            pred[target][source] = edge
        _changed(self)

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
                    # the log names no pass: say why (issue 17)
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

    def fate_table(
        self, starts: Sequence[str]
    ) -> list[tuple[FateKind, str | None, list[str], list[tuple[str, str, dict[str, Any]]]]]:
        """:meth:`fate_edges` of each of ``starts`` (node ids), in one pass.

        The same answers: a node whose only edge flows into a layer that flows nowhere (most
        nodes of a big engine: its metadata ties them to their layer) is answered without a
        walk; every other node takes :meth:`fate_edges`.
        """
        nodes: dict[str, dict[str, Any]] = self._node
        succ: Adjacency = self._succ
        flows = FLOWS
        # layer id -> whether no edge flows out of it (a fate's walk ends there), per layer
        ends: dict[str, bool] = {}
        fate_edges = self.fate_edges
        out: list[tuple[FateKind, str | None, list[str], list[tuple[str, str, dict[str, Any]]]]]
        out = []
        for start in starts:
            edges = succ[start]
            if len(edges) == 1:
                ((target, edge),) = edges.items()
                end = ends.get(target)
                if end is None:
                    for d in succ[target].values():
                        if d["relation"] in flows:
                            end = ends[target] = False
                            break
                    else:
                        end = ends[target] = True
                data = nodes[start]
                if (
                    end
                    and edge["relation"] in flows
                    and target != start
                    and nodes[target]["kind"] == "engine_layer"
                    and data["kind"] != "engine_layer"
                ):
                    constant = is_constant(data["kind"], data.get("op"))
                    kind: FateKind = "folded" if constant else "fused"
                    out.append((kind, None, [target], [(start, target, edge)]))
                    continue
            out.append(fate_edges(start))
        return out

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
