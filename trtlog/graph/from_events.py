"""Building the merge graph from a build's events, in log order.

Part of the graph package (networkx). One walk over the events adds a node per ONNX node,
initializer and layer name and an edge per thing the log says happened to it (registered,
fused, removed, swapped, retargeted...), each with its pass (from ``Build.pass_index``) and
its line; the final layers come from the engine (its layer dump, its placement lines or the
layers the autotuner timed). Silences are then explained from the ONNX data flow.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import chain, islice
from typing import TYPE_CHECKING, Any

from trtlog.engine.from_log import final_layers
from trtlog.engine.model import Engine
from trtlog.events import (
    ConcatElimination,
    ConvScaleFusion,
    CopyGenerated,
    Event,
    EventBase,
    ForeignNodeMetadata,
    Fusion,
    FusionInto,
    HorizontalMerge,
    InputReplaced,
    LayerCount,
    LayerRemoved,
    LayerSwap,
    LayerTypeChange,
    OnnxImportInitializer,
    OnnxNodeIo,
    OnnxParseNode,
    OnnxRegisterConstant,
    OnnxRegisterLayer,
    PassRun,
    QdqDedup,
    QdqPhase,
    QdqSwap,
    Retarget,
    SliceElimination,
)
from trtlog.graph.model import FLOWS, MergeGraph, Relation, _changed, encode_conversion, layer_id
from trtlog.names import Shape, decorated, split_shape

if TYPE_CHECKING:
    from trtlog.buildlog import Build
    from trtlog.buildlog.passes import PassIndex

__all__ = ["merge_graph"]

#: Relations that say where a node went: it flowed on, was removed or was retargeted.
_ENDS = FLOWS | {"removed by", "retargeted to"}

# what split_name looks for: a name without any of it is plain (a leaf), no model needed
_COMPOSED = decorated

# passes that delete layers rather than fuse them into the layer they run on
_ERASING = re.compile(r"Erasure|Elimination|Removal|DeadLayer|Dead", re.IGNORECASE)


def _result_name(pass_name: str | None, first: str, second: str) -> str:
    """The name TensorRT gives the layer ``Fusing first with second`` produces."""
    if pass_name == "PointWiseFusion":
        return f"PWN({first}, {second})"
    return f"{first} + {second}"


# events that say what the running pass did
_EFFECTS: frozenset[type[EventBase]] = frozenset(
    {
        Fusion,
        FusionInto,
        ConvScaleFusion,
        HorizontalMerge,
        LayerRemoved,
        QdqDedup,
        LayerSwap,
        QdqSwap,
        LayerTypeChange,
        SliceElimination,
        ConcatElimination,
        CopyGenerated,
        Retarget,
    }
)


class _Builder:
    """Walks the events once, in log order, and adds nodes and edges."""

    def __init__(self, graph: MergeGraph, passes: PassIndex) -> None:
        self.g = graph
        # networkx's own dicts (the graph mutates them, never replaces them): a view object
        # per node visited cost more than the work
        self.nodes, self.succ = graph.node_data(), graph.out_adjacency()
        self.pred = graph.in_adjacency()
        self.passes = passes  # which pass was running at a line (Build.pass_index)
        self.running: PassRun | None = None  # the last "Running: <pass> on <x>" still in scope
        self.pass_acted = True  # whether the running pass has printed what it did
        self.silent: dict[str, list[tuple[str, int]]] = defaultdict(list)  # layer -> passes
        self.order: list[str] = []  # ONNX nodes in parse order
        self.order_index: dict[str, int] = {}  # ONNX node -> its position in self.order
        # their node ids, in the same order (the graph's keys: made and hashed once)
        self.onnx_ids: list[str] = []
        self.layer_order: dict[str, int] = {}  # TensorRT layers in the order the parser made them
        self.layer_names: list[str] = []  # the same, as a list
        self.foreign: dict[str, tuple[str, ...]] = {}  # Myelin region -> its ONNX nodes
        self.foreign_lines: dict[str, int] = {}  # Myelin region -> its first metadata line
        self.producers: dict[str, str] = {}  # tensor -> ONNX node that outputs it
        self.inputs: dict[str, list[str]] = defaultdict(list)  # ONNX node -> input tensors
        self.consumers: dict[str, list[str]] = defaultdict(list)  # tensor -> ONNX nodes
        # the method that reads each kind of event (a dict lookup per event of the log)
        self.handlers: dict[type[EventBase], Callable[[Any], None]] = {
            OnnxParseNode: self._parse_node,
            OnnxImportInitializer: self._initializer,
            OnnxNodeIo: self._node_io,
            OnnxRegisterLayer: self._register_layer,
            ForeignNodeMetadata: self._foreign_metadata,
            OnnxRegisterConstant: self._register_constant,
            PassRun: self._pass_run,
            LayerCount: self._pass_over,
            QdqPhase: self._pass_over,
            Fusion: self._fusion,
            FusionInto: self._fusion_into,
            ConvScaleFusion: self._conv_scale,
            HorizontalMerge: self._horizontal_merge,
            LayerRemoved: self._layer_removed,
            QdqDedup: self._duplicate,
            LayerSwap: self._swap,
            QdqSwap: self._type_change,
            LayerTypeChange: self._type_change,
            SliceElimination: self._slice,
            ConcatElimination: self._concat,
            CopyGenerated: self._copy,
            InputReplaced: self._input_replaced,
        }
        self.replaced: list[InputReplaced] = []  # dupe layer removal (silent fates)
        self.settled: set[str] = set()  # nodes whose fate the log tells (_settles), as found
        self.initializers: list[str] = []  # the initializers' node ids, as added
        self.bare: list[str] = []  # layers finish adds without an edge out of them, as added
        # the ONNX nodes of op Constant (an op is set when its node is added, never changed;
        # the nodes a final layer lists are added without one)
        self.constant_ops: set[str] = set()
        # the edges _infer and _silent_fates have added so far (a node found unsettled stays
        # so while none is added: edges are only ever added)
        self.inferred = 0

    def kinds(self) -> list[str]:
        """The event kinds the walk reads: those with a handler and the pass effects."""
        return _kinds((*self.handlers, *_EFFECTS))

    def onnx_node(self, name: str, op: str | None, line: int) -> None:
        node_id = "onnx:" + name
        if node_id not in self.nodes:
            self.g.insert(
                node_id,
                {
                    "kind": "onnx_node",
                    "name": name,
                    "op": op,
                    "line": line,
                    "order": len(self.order),
                },
            )
            self.order_index[name] = len(self.order)
            self.order.append(name)
            self.onnx_ids.append(node_id)
            if op == "Constant":
                self.constant_ops.add(name)

    def event(self, e: Event) -> None:
        """Add what one event says (events of other kinds say nothing to the graph)."""
        cls = type(e)
        if cls in _EFFECTS:
            self.pass_acted = True
        handler = self.handlers.get(cls)
        if handler is not None:
            handler(e)

    # -- one method per kind of event the graph reads -------------------------------------

    def _parse_node(self, e: OnnxParseNode) -> None:
        self.onnx_node(e.node, e.op, e.span[0])

    def _initializer(self, e: OnnxImportInitializer) -> None:
        node_id = "init:" + e.name
        if node_id not in self.nodes:
            attrs = {"kind": "onnx_initializer", "name": e.name, "line": e.span[0]}
            self.g.insert(node_id, attrs)
            self.initializers.append(node_id)

    def _node_io(self, e: OnnxNodeIo) -> None:
        names = [t.name for t in e.tensors if t.name]
        if e.direction == "outputs":
            for tensor in names:
                self.producers.setdefault(tensor, e.node)
        else:
            self.inputs[e.node].extend(names)
            for tensor in names:
                self.consumers[tensor].append(e.node)

    def _register_layer(self, e: OnnxRegisterLayer) -> None:
        if e.layer not in self.layer_order:
            self.layer_order[e.layer] = len(self.layer_order)
            self.layer_names.append(e.layer)
        if e.node:
            self._register(e.node, e.layer, e.span[0])

    def _foreign_metadata(self, e: ForeignNodeMetadata) -> None:
        if e.onnx_layers:
            self.foreign[e.layer] = tuple(e.onnx_layers)
            self.foreign_lines.setdefault(e.layer, e.span[0])

    def _register_constant(self, e: OnnxRegisterConstant) -> None:
        g, line = self.g, e.span[0]
        init = "init:" + e.initializer
        if init not in self.nodes:
            g.insert(init, {"kind": "onnx_initializer", "name": e.initializer, "line": line})
            self.initializers.append(init)
        g.relate(init, g.layer(e.layer, line), "registered as", None, line)

    def _pass_run(self, e: PassRun) -> None:
        self._close_pass()
        self.running = e
        self.pass_acted = False

    def _pass_over(self, e: LayerCount | QdqPhase) -> None:
        self._close_pass()  # a layer count or a Q/DQ phase line ends the pass before it

    def _fusion(self, e: Fusion) -> None:
        g, line = self.g, e.span[0]
        name = self.passes.of(e)
        result = g.layer(_result_name(name, e.first, e.second), line)
        g.relate(g.layer(e.first, line), result, "merged into", name, line)
        g.relate(g.layer(e.second, line), result, "merged into", name, line)

    def _fusion_into(self, e: FusionInto) -> None:
        g, line = self.g, e.span[0]
        target = g.layer(e.target, line)
        for source in e.sources:
            g.relate(g.layer(source, line), target, "merged into", self.passes.of(e), line)

    def _conv_scale(self, e: ConvScaleFusion) -> None:
        g, line = self.g, e.span[0]
        scale, conv = g.layer(e.scale, line), g.layer(e.conv, line)
        g.relate(scale, conv, "merged into", self.passes.of(e), line)

    def _horizontal_merge(self, e: HorizontalMerge) -> None:
        g, line = self.g, e.span[0]
        result = g.layer(" || ".join(e.layers), line)
        name = self.passes.of(e)  # HorizontalMerge
        for part in e.layers:
            g.relate(g.layer(part, line), result, "merged into", name, line)

    def _layer_removed(self, e: LayerRemoved) -> None:
        self._removed(e.layer, e.span[0])

    def _duplicate(self, e: QdqDedup) -> None:
        g, line = self.g, e.span[0]
        a, b = g.layer(e.layer, line), g.layer(e.duplicate_of, line)
        g.relate(a, b, "duplicate of", self.passes.at(line), line)

    def _swap(self, e: LayerSwap) -> None:
        g, line = self.g, e.span[0]
        a, b = g.layer(e.first, line), g.layer(e.second, line)
        g.relate(a, b, "swapped with", self.passes.at(line), line)

    def _type_change(self, e: QdqSwap | LayerTypeChange) -> None:
        line = e.span[0]
        node = self.nodes[self.g.layer(e.layer, line)]
        node["types"] = (node.get("types") or "") + f"{e.from_type}->{e.to_type};"
        # the layer's history (MergeGraph.provenance): which pass converted it, at which line
        # (a text attribute, as GraphML holds them)
        node["conversions"] = (node.get("conversions") or "") + encode_conversion(
            e.from_type, e.to_type, self.passes.at(line), line
        )

    def _slice(self, e: SliceElimination) -> None:
        self._retarget(e.slice, e.to_tensor, "SliceElimination", e.span[0])

    def _concat(self, e: ConcatElimination) -> None:
        self._retarget(e.concat, None, "ConcatElimination", e.span[0])

    def _copy(self, e: CopyGenerated) -> None:
        g, line = self.g, e.span[0]
        copy = g.layer(f"copy of {e.tensor} for {e.target}", line)
        producer = self.producers.get(e.target)
        if producer is not None:
            g.relate(copy, g.layer(producer, line), "copied for", self.passes.at(line), line)

    def _register(self, node: str, layer: str, line: int) -> None:
        g, nodes = self.g, self.nodes
        if "init:" + node in nodes:  # a constant layer made of an initializer
            g.relate("init:" + node, g.layer(layer, line), "registered as", None, line)
            return
        # 8.4/8.5 name a Constant node after its output tensor ("Registering layer: 174 for
        # ONNX node: 174", made when a later node first reads 174): the node is its producer
        if "onnx:" + node not in nodes and node in self.producers:
            node = self.producers[node]
        # ... and when the log has no parser line for that Constant (an excerpt, yolov8 seed
        # line 104), the tensor a parsed node reads is still a constant's output
        op = None
        if "onnx:" + node not in nodes and node == layer and node in self.consumers:
            op = "Constant"
            self.producers.setdefault(node, node)
        self.onnx_node(node, op, line)
        g.relate("onnx:" + node, g.layer(layer, line), "registered as", None, line)

    def _close_pass(self) -> None:
        """Remember a pass that ran on a layer and printed nothing about what it did."""
        run = self.running
        if not self.pass_acted and run is not None and run.layer is not None:
            self.silent[run.layer].append((run.pass_name, run.span[0]))
        self.pass_acted = True
        self.running = None

    def _removed(self, name: str, line: int) -> None:
        g = self.g
        node = g.layer(name, line)
        if any(d["relation"] in FLOWS for d in self.succ[node].values()):
            return  # already merged into something: the removal is the fusion's clean-up
        run = self.passes.run_at(line)
        holder = run.layer if run is not None else None
        if (
            run is not None
            and holder is not None
            and holder != name
            and _ERASING.search(run.pass_name) is None
        ):
            g.relate(node, self._current(g.layer(holder, line)), "merged into", run.pass_name, line)
        elif run is not None:
            g.relate(node, self._pass(run.pass_name), "removed by", run.pass_name, line)
        else:  # outside any pass: the stage that the next layer count closes
            stage = self.passes.stage_after(line)
            target = self._pass(stage or "dead-layer removal")
            g.relate(node, target, "removed by", stage, line)

    def _current(self, node_id: str) -> str:
        """The layer that holds ``node_id`` now: fusions printed since may have renamed it.

        ``Running: QuantizeConvWithResidualAdd on Conv_34`` can print ``Fusing ... Conv_34
        with Add_42 + Relu_43`` before ``Removing DequantizeLinear_41`` (8.5.10 resnet18-QAT
        lines 2619-2628): the DQ goes into the layer Conv_34 has become.
        """
        succ = self.succ
        seen = {node_id}
        while True:
            later = [
                (d["line"], b)
                for b, d in succ[node_id].items()
                if d["relation"] == "merged into" and d["line"] and b not in seen
            ]
            if not later:
                return node_id
            node_id = max(later)[1]
            seen.add(node_id)

    def _pass(self, name: str) -> str:
        node_id = "pass:" + name
        if node_id not in self.nodes:
            self.g.insert(node_id, {"kind": "pass", "name": name})
        return node_id

    def _retarget(self, name: str, tensor: str | None, pass_name: str, line: int) -> None:
        g = self.g
        node = g.layer(name, line)
        producer = self.producers.get(tensor) if tensor else None
        target = g.layer(producer, line) if producer else self._pass(pass_name)
        g.relate(node, target, "retargeted to", pass_name, line)

    def finish(self, engine: Engine | None) -> None:
        g = self.g
        nodes, succ = self.nodes, self.succ
        self._close_pass()
        # an initializer without a "Registering ..." line is the constant layer of its name,
        # when one appears (the initializers in the order they were added, as the graph's)
        for node_id in self.initializers:
            if not succ[node_id]:
                layer = layer_id(nodes[node_id]["name"])
                if layer in nodes:
                    g.relate(node_id, layer, "registered as", None, 0, "name")
        # an ONNX node without a "Registering layer" line became the layer of its own name
        for name in self.order:
            node_id = "onnx:" + name
            for d in succ[node_id].values():
                if d["relation"] == "registered as":
                    break
            else:  # (a for-else: no generator per node of a big graph)
                g.relate(node_id, g.layer(name), "registered as", None, 0, "name")
        finals = self._finals(engine)
        g.graph["final_layers_known"] = bool(finals)
        # the nodes before the engine's (_engine_layers adds each new node with an edge that
        # ends its walk, or as an engine layer or ONNX node, but a reformat's target: bare)
        before = len(nodes)
        self.bare.clear()
        by_member = self._engine_layers(finals)
        _changed(g)
        # the dead ends first: _held only adds edges out of the dead end it is given
        dead: list[tuple[str, str]] = []
        # (the node and edge dicts share one key order: the builder adds a node to both at once);
        # a dead end is a node from before the engine's layers or a bare one the loop added
        # (in node order: the loop's nodes come after, each bare one as added); edges are only
        # added, and those of the loop's nodes only ever changed into ones that end a walk
        olds = islice(zip(nodes.items(), succ.values(), strict=True), before)
        bares = (((n, nodes[n]), succ[n]) for n in self.bare)
        for (node_id, data), out in chain(olds, bares):
            if data["kind"] != "intermediate":
                continue
            for d in out.values():
                if d["relation"] in _ENDS:
                    break
            else:  # a dead end (a for-else: no generator per node of a big graph)
                dead.append((node_id, data["name"]))
        for node_id, name in dead:
            self._held(node_id, name, by_member)
        self._infer()

    def _engine_layers(
        self, finals: list[tuple[str, tuple[str, ...], str]]
    ) -> dict[str, list[str]]:
        """Each final layer's node and the edges its metadata and composed name say.

        Returns the final layers by member (:meth:`_held` reads it). New nodes that get no
        edge out of them (a reformat's target) are added to :attr:`bare`.
        """
        nodes, succ = self.nodes, self.succ
        order = self.order_index
        # the engine's layers and what their names and metadata say, written into networkx's
        # dicts directly (MergeGraph.layer and relate, without a call per node and edge: an
        # engine of 20,000 layers adds a hundred thousand of each); the graph's cache is
        # dropped once, below
        pred = self.pred
        compose = self._compose
        names, onnx_ids = self.order, self.onnx_ids
        settle = self.settled.add
        # intermediate dead ends whose parts an engine layer lists (the log cut the fusion
        # lines, or the pass named its result differently): each final layer by its members,
        # gathered here, from the names split once (only read as sets: the order of each
        # list does not matter)
        by_member: dict[str, list[str]] = defaultdict(list)
        listed: set[str] = set()
        for index, (name, onnx_nodes, source) in enumerate(finals):
            node_id = "layer:" + name
            found = nodes.get(node_id)
            if found is None:
                found = nodes[node_id] = {"kind": "intermediate", "name": name, "line": 0}
                succ[node_id] = {}
                pred[node_id] = {}
            found["kind"] = "engine_layer"
            found["index"] = index
            if source in ("metadata", "range"):
                into = pred[node_id]
                for member in onnx_nodes:
                    member_id = "onnx:" + member
                    if member_id not in nodes:  # (a node of self.order is in the graph)
                        # self.onnx_node(member, None, 0), inline: an engine of 20,000 layers
                        # lists tens of thousands of nodes the log never parsed
                        nodes[member_id] = {
                            "kind": "onnx_node",
                            "name": member,
                            "op": None,
                            "line": 0,
                            "order": len(names),
                        }
                        # its one edge, into this layer: _infer's first look finds it settled
                        # (an edge is never taken away, nor a layer's kind)
                        edge = {
                            "relation": "merged into",
                            "pass_name": None,
                            "line": 0,
                            "evidence": source,
                        }
                        succ[member_id] = {node_id: edge}
                        pred[member_id] = {}
                        into[member_id] = edge
                        order[member] = len(names)
                        names.append(member)
                        onnx_ids.append(member_id)
                        settle(member_id)
                        continue
                    out = succ[member_id]
                    current = out.get(node_id)
                    if current is None:  # _merged_into, inline: most edges are new
                        edge = {
                            "relation": "merged into",
                            "pass_name": None,
                            "line": 0,
                            "evidence": source,
                        }
                        out[node_id] = edge
                        into[member_id] = edge
                    else:
                        _merged_into(out, into, member_id, node_id, source)
            if not _COMPOSED(name):  # a plain name: a leaf, its only member is itself
                if name not in listed:
                    listed.add(name)
                    by_member[name].append(node_id)
                continue
            shape = compose(node_id, name)
            if name not in listed:
                listed.add(name)
                for member in (name,) if shape.op == "leaf" else shape.members():
                    by_member[member].append(node_id)
        return by_member

    def _held(self, node_id: str, name: str, by_member: dict[str, list[str]]) -> None:
        """Edges from an intermediate dead end to the engine layers that list its parts."""
        g = self.g
        parts = self._shape(name) if _COMPOSED(name) else None
        if parts is None or parts.op == "leaf":
            holders = set(by_member.get(name, ()))
        else:
            holders = {h for m in parts.members() for h in by_member.get(m, ())}
        for holder in sorted(holders):
            g.relate(node_id, holder, "merged into", None, 0, "name")

    def _dead_end(self, node_id: str) -> bool:
        return not any(d["relation"] in _ENDS for d in self.succ[node_id].values())

    def _registered(self, node_id: str) -> list[str]:
        # a reader named only as a consumer (its "Parsing node" line is garbled) has no node
        edges = self.succ.get(node_id, {}).items()
        return [b for b, d in edges if d["relation"] == "registered as"]

    def _infer(self) -> None:
        """Explain dead ends the log is silent about, from the ONNX data flow.

        For an ONNX node (or initializer) whose layers reach no engine layer and no removal:

        - a constant (a ``Constant`` node, an initializer, or a node that only reads
          constants) was folded into the layers of the nodes that read it (``dataflow``);
        - a node reading the output of a layer that a fusion pass ran on without printing
          what it fused (``Running: ConvReshapeBiasAddFusion on MatMul-9`` and nothing else)
          was fused into that layer by that pass (``pass``).
        """
        nodes = self.nodes
        succ = self.succ
        initializers = {nodes[node_id]["name"] for node_id in self.initializers}
        # what the dead ends need, made at the first one (most graphs have few or none)
        constant: set[str] | None = None
        outputs: dict[str, list[str]] = {}
        starts = [("init:" + n, n) for n in sorted(initializers)]
        starts += zip(self.onnx_ids, self.order, strict=True)
        settled = self.settled
        settles = self._settles
        for start, name in starts:
            if start in settled:  # (a final layer's new member: settled as added)
                continue
            data = nodes.get(start)
            if data is None:
                continue
            # _settles' look one step ahead, inline (most nodes: registered as, or merged
            # into, an engine layer)
            if data["kind"] == "engine_layer":
                settled.add(start)
                continue
            for target, edge in succ[start].items():
                relation = edge["relation"]
                if (
                    relation == "removed by"
                    or relation == "retargeted to"
                    or (relation in FLOWS and nodes[target]["kind"] == "engine_layer")
                ):
                    settled.add(start)
                    break
            else:
                if settles(start):
                    settled.add(start)
                    continue
                if constant is None:
                    constant, outputs = self._constants(initializers)
                self._infer_one(start, name, constant, outputs)
        self._silent_fates()

    def _constants(self, initializers: set[str]) -> tuple[set[str], dict[str, list[str]]]:
        """The constant ONNX nodes (and initializers), and each node's output tensors."""
        outputs: dict[str, list[str]] = defaultdict(list)
        for tensor, node in self.producers.items():
            outputs[node].append(tensor)
        constant: set[str] = set(initializers)
        inputs_of = self.inputs.get
        # only a node of op Constant or one with inputs can be constant: those, in parse order
        # (topological), not every node of the graph (a big engine lists tens of thousands
        # the log never parsed, with neither)
        index = self.order_index
        candidates = [n for n in self.constant_ops.union(self.inputs) if n in index]
        candidates.sort(key=index.__getitem__)
        for name in candidates:
            inputs = inputs_of(name, [])
            if name in self.constant_ops or (
                inputs
                and all(t in initializers or self.producers.get(t) in constant for t in inputs)
            ):
                constant.add(name)
        return constant, outputs

    def _infer_one(
        self, start: str, name: str, constant: set[str], outputs: dict[str, list[str]]
    ) -> None:
        """:meth:`_infer` of one node whose fate the log does not tell."""
        g = self.g
        tensors = [name] if start.startswith("init:") else outputs.get(name, [])
        if name in constant:
            ends = self._ends(start)
            readers = list(dict.fromkeys(c for t in tensors for c in self.consumers.get(t, ())))
            targets = [
                (x, self._bias_fusion(r, x, tensors))
                for r in readers
                for x in self._registered("onnx:" + r)
            ]
            for end in ends:
                for target, by in targets:
                    # a reader fused with the constant already holds it (no cycle)
                    if end not in g.reach(target):
                        self.inferred += 1
                        if by is None:
                            g.relate(end, target, "merged into", None, 0, "dataflow")
                        else:
                            g.relate(end, target, "merged into", by[0], by[1], "pass")
            return
        found = self._silent_fusion(name)
        if found is not None:
            target, pass_name, line = found
            for end in self._ends(start):
                self.inferred += 1
                g.relate(end, target, "merged into", pass_name, line, "pass")

    def _ends(self, start: str) -> list[str]:
        """The dead ends ``start`` flows to (itself included), in :meth:`reach`'s order.

        Asked only once an edge is to be added from them (most nodes the log is silent about
        get none: no walk for those).
        """
        return [n for n in self.g.reach(start) if self._dead_end(n)]

    # -- silent fates: nodes the log never names again -----------------------------------------
    # Kept apart from the event handlers above: these only read what the handlers collected.

    def _input_replaced(self, e: InputReplaced) -> None:
        self.replaced.append(e)

    def _silent_fates(self) -> None:
        """Explain the dead ends left after :meth:`_infer` where the parser lines allow it.

        In this order (docs/fragments-research.md §6.2): a duplicate removed by ``dupe layer
        removal`` (``Replacing input i of c with t (output of p)``: the node that wrote the
        replaced input), a node whose layer has a derived name (``If_6`` registered as
        ``If_6_OutputLayer``), a shape computation TensorRT evaluates at build time (nodes
        whose outputs reach only the shape input of ``Reshape``/``Expand``/``Resize``/
        ``Slice``...), an identity-like node (``Identity``, ``Dropout``) that vanishes
        without a message, and a node a Myelin region's metadata lists that none of the
        region's kernels lists (compiled away by Myelin). Each gets an edge to a reason node
        (``evidence="silent"``), so its fate says why; anything else stays ``unexplained``.
        """
        g = self.g
        settled = self.settled
        # edges are only ever added: a node settled before stays settled
        left = [
            name
            for node_id, name in zip(self.onnx_ids, self.order, strict=True)
            if node_id not in settled
        ]
        if not left:
            return
        duplicates = self._duplicates()
        shape = _shape_computations(
            self.order, self.inputs, self.consumers, self.producers, self._op
        )
        registered = set(self.layer_order)
        regions = {m: r for r, members in reversed(self.foreign.items()) for m in members}
        for name in left:
            start = "onnx:" + name
            # (_infer found each node of left unsettled: it stays so while neither _infer
            # nor this loop has added an edge)
            if start in settled or (self.inferred and self._settles(start)):
                continue
            target: str | None = None
            relation: Relation = "removed by"
            evidence = "silent"
            if name in duplicates:
                kept, at = duplicates[name]
                target = self._pass(f"duplicate of {kept} (dupe layer removal, line {at})")
            elif (derived := _derived_layer(name, registered)) is not None:
                target, relation, evidence = g.layer(derived), "merged into", "name"
            elif name in shape:
                target = self._pass(
                    "shape computation folded at build time (feeds only the shape input of "
                    f"{shape[name]})"
                )
            elif self._op(name) in _IDENTITY_OPS:
                target = self._pass("identity-like node removed without a message")
            elif name in regions:
                # the region's metadata lists it, and the engine lists the region's kernels
                # (a detailed dump), none of which names it: Myelin compiled it away (a
                # Reshape between two GEMMs is a view of its input)
                region = regions[name]
                target = self._pass(
                    f"folded by the Myelin compiler: listed in {region}'s metadata (line "
                    f"{self.foreign_lines[region]}), but in no kernel of the engine"
                )
            if target is None:
                continue
            # (the target, when new, has no edge yet: no walk from the start reaches it)
            for end in self._ends(start):
                if end not in g.reach(target):
                    self.inferred += 1
                    g.relate(end, target, relation, None, 0, evidence)

    def _op(self, name: str) -> str | None:
        # a reader named only by its inputs line (no "Parsing node" line) has no node
        data = self.nodes.get("onnx:" + name)
        op = data.get("op") if data is not None else None
        return op if isinstance(op, str) else None

    def _duplicates(self) -> dict[str, tuple[str, int]]:
        """ONNX node → (the node kept instead, line) from ``Replacing input ...`` lines."""
        found: dict[str, tuple[str, int]] = {}
        for e in self.replaced:
            inputs = self.inputs.get(e.layer, [])
            if not 0 <= e.index < len(inputs):
                continue
            old = self.producers.get(inputs[e.index])
            if old is not None and old != e.producer and old != e.layer:
                found.setdefault(old, (e.producer, e.span[0]))
        return found

    def _settles(self, start: str) -> bool:
        """Whether the log already tells where ``start`` went.

        Some node it flows to (itself included) is an engine layer, or was removed or
        retargeted; the walk stops at the first such node.
        """
        nodes, succ = self.nodes, self.succ
        # the answer does not depend on the order of the walk: look one step ahead first
        # (most nodes are registered as, or merged into, an engine layer)
        if nodes[start]["kind"] == "engine_layer":
            return True
        for target, edge in succ[start].items():
            relation = edge["relation"]
            if relation == "removed by" or relation == "retargeted to":
                return True
            if relation in FLOWS and nodes[target]["kind"] == "engine_layer":
                return True
        seen = {start}
        stack = [start]
        while stack:
            current = stack.pop()
            if nodes[current]["kind"] == "engine_layer":
                return True
            for target, edge in succ[current].items():
                relation = edge["relation"]
                if relation == "removed by" or relation == "retargeted to":
                    return True
                if relation in FLOWS and target not in seen:
                    seen.add(target)
                    stack.append(target)
        return False

    def _bias_fusion(
        self, reader: str, layer_id: str, tensors: list[str]
    ) -> tuple[str, int] | None:
        """The silent bias fusion that folded a constant into ``reader``'s layer, if any.

        A ``Gemm`` node's third input is its bias; TensorRT adds it with a layer of its own,
        which ``ConvReshapeBiasAddFusion`` (``Running: ... on <the Gemm>``, and nothing else
        printed; after ``MatMulToConvTransform``) folds into the convolution the Gemm became
        (8.5.10 bevformer log lines 453-465). ``(pass, line of its Running: line)``.
        """
        if self._op(reader) != "Gemm":
            return None
        inputs = self.inputs.get(reader, [])
        if len(inputs) < 3 or inputs[2] not in tensors:
            return None
        for pass_name, line in self.silent.get(self.nodes[layer_id]["name"], ()):
            if "Bias" in pass_name and "Fusion" in pass_name:
                return pass_name, line
        return None

    def _silent_fusion(self, name: str) -> tuple[str, str, int] | None:
        """A producer layer of ``name``'s inputs that a fusion pass ran on silently."""
        for tensor in self.inputs.get(name, ()):
            producer = self.producers.get(tensor)
            if producer is None:
                continue
            for target in self._registered("onnx:" + producer):
                runs = self.silent.get(self.nodes[target]["name"], [])
                for pass_name, line in runs:
                    if "Fusion" in pass_name:
                        return target, pass_name, line
        return None

    def _finals(self, engine: Engine | None) -> list[tuple[str, tuple[str, ...], str]]:
        """Each engine layer's name, ONNX nodes and their source."""
        if engine is None:
            return []
        return [(x.name, x.onnx_nodes, x.onnx_source) for x in engine.layers]

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
        return any(d["relation"] in FLOWS for d in self.succ[node_id].values())

    def _shape(self, name: str) -> Shape:
        """:func:`~trtlog.names.split_shape` of ``name`` (cached: split once)."""
        return split_shape(name)

    def _name_edge(
        self,
        name: str,
        node_id: str,
        relation: Relation,
        pass_name: str | None,
        evidence: str,
        out: bool = False,
    ) -> None:
        """``g.relate(g.layer(name), node_id, relation, pass_name, 0, evidence)``.

        Or the edge from ``node_id`` to the layer ``name`` when ``out``. A new layer node and
        its one edge are written into the graph's dicts directly (a big engine's Myelin ranges
        and reformats name tens of thousands); the caller drops the graph's cache.
        """
        layer = "layer:" + name
        nodes = self.nodes
        if layer in nodes:
            if out:
                self.g.relate(node_id, layer, relation, pass_name, 0, evidence)
            else:
                self.g.relate(layer, node_id, relation, pass_name, 0, evidence)
            return
        nodes[layer] = {"kind": "intermediate", "name": name, "line": 0}
        edge = {"relation": relation, "pass_name": pass_name, "line": 0, "evidence": evidence}
        succ, pred = self.succ, self.pred
        if out:
            succ[layer] = {}
            pred[layer] = {node_id: edge}
            succ[node_id][layer] = edge
            self.bare.append(layer)
        else:
            succ[layer] = {node_id: edge}
            pred[layer] = {}
            pred[node_id][layer] = edge

    def _compose(self, node_id: str, name: str) -> Shape:
        """Edges from the parts of a composed final name into the layer, recursively.

        Returns the name's tree (:meth:`_shape`).
        """
        parts = self._shape(name)
        op = parts.op
        if op == "leaf":  # most parts: nothing composed
            return parts
        g = self.g
        if op in ("fusion", "merge", "pointwise"):
            nodes, succ, pred = self.nodes, self.succ, self.pred
            into = pred[node_id]
            for part in parts.parts:
                text = part.text
                part_id = "layer:" + text
                out = succ.get(part_id)
                if out is None:  # MergeGraph.layer, inline (see finish)
                    nodes[part_id] = {"kind": "intermediate", "name": text, "line": 0}
                    out = succ[part_id] = {}
                    pred[part_id] = {}
                    # a new node has no edge yet: MergeGraph.relate, inline
                    edge = {
                        "relation": "merged into",
                        "pass_name": None,
                        "line": 0,
                        "evidence": "name",
                    }
                    out[node_id] = into[part_id] = edge
                # the log did not say where it went: MergeGraph.relate, inline (a for-else:
                # no generator per part)
                elif part_id != node_id:
                    for d in out.values():
                        if d["relation"] in FLOWS:
                            break
                    else:
                        _merged_into(out, into, part_id, node_id, "name")
                # a part of a name split from the top has the op its own split has (the
                # splitter's depth bound is far below)
                if part.op != "leaf":
                    self._compose(part_id, text)
        elif op == "clone" and parts.parts:
            base = parts.parts[0].text
            g.relate(g.layer(base), node_id, "cloned as", None, 0, "name")
        elif op == "foreign" and name in self.foreign:
            for member in self.foreign[name]:
                if "onnx:" + member not in self.nodes:
                    self.onnx_node(member, None, 0)
                g.relate("onnx:" + member, node_id, "merged into", "Myelin", 0, "metadata")
        elif op == "foreign" and parts.detail == "range" and len(parts.parts) == 2:
            first, last = parts.parts[0].members(), parts.parts[1].members()
            members = self._range(first[0], last[-1]) if first and last else None
            if members is not None:
                for member in members:
                    self._name_edge(member, node_id, "merged into", "Myelin", "order")
            else:
                for member in first + last:
                    self._name_edge(member, node_id, "merged into", "Myelin", "name")
        elif op == "foreign":
            for member in parts.members():
                self._name_edge(member, node_id, "merged into", "Myelin", "name")
        elif op == "reformat" and parts.parts:
            self._name_edge(parts.parts[0].text, node_id, "copied for", None, "name", out=True)
        elif op in ("profile", "myelin") and parts.parts:
            g.relate(g.layer(parts.parts[0].text), node_id, "merged into", None, 0, "name")
        return parts


# -- silent fates: the ops and input positions of shape computations ---------------------------

#: ops that compute shapes when all their outputs end in shape inputs
_SHAPE_OPS = frozenset(
    {
        "Shape", "Gather", "Slice", "Concat", "Unsqueeze", "Squeeze", "Constant", "Cast",
        "Reshape", "Size", "Range", "Add", "Sub", "Mul", "Div", "ReduceProd", "Floor", "Ceil",
        "Equal", "Where", "Identity", "ConstantOfShape", "Expand", "Max", "Min", "Neg",
    }
)  # fmt: skip
#: the input positions that are shapes (or shape-like parameters) of a reader
_SHAPE_INPUTS: dict[str, frozenset[int]] = {
    "Reshape": frozenset({1}),
    "Expand": frozenset({1}),
    "Resize": frozenset({1, 2, 3}),
    "Upsample": frozenset({1}),
    "Slice": frozenset({1, 2, 3, 4}),
    "Tile": frozenset({1}),
    "ConstantOfShape": frozenset({0}),
    "Range": frozenset({0, 1, 2}),
    "Pad": frozenset({1, 2, 3}),
    "TopK": frozenset({1}),
}
_IDENTITY_OPS = frozenset({"Identity", "Dropout"})


def _shape_computations(
    order: list[str],
    inputs: dict[str, list[str]],
    consumers: dict[str, list[str]],
    producers: dict[str, str],
    op_of: Callable[[str], str | None],
) -> dict[str, str]:
    """Nodes whose outputs reach only shape inputs → the reader whose shape they feed.

    A fixed point: a candidate (an op of :data:`_SHAPE_OPS`) stays while each of its outputs
    is read, and each reader is a staying candidate or reads the tensor at a shape position
    (:data:`_SHAPE_INPUTS`: the second input of ``Reshape``...). Parse order is topological,
    so the readers are settled walking it backwards.
    """
    writes: dict[str, list[str]] = defaultdict(list)
    for tensor, node in producers.items():
        writes[node].append(tensor)
    shape: dict[str, str] = {}
    for name in reversed(order):
        if not writes.get(name) or op_of(name) not in _SHAPE_OPS:  # (the cheaper test first)
            continue
        fed: str | None = None
        for tensor in writes[name]:
            readers = consumers.get(tensor, [])
            if not readers:
                fed = None
                break
            for reader in readers:
                if reader in shape:
                    fed = fed or shape[reader]
                    continue
                positions = _SHAPE_INPUTS.get(op_of(reader) or "", frozenset())
                at = [i for i, t in enumerate(inputs.get(reader, ())) if t == tensor]
                if at and all(i in positions for i in at):
                    fed = fed or reader
                    continue
                fed = None
                break
            if fed is None:
                break
        if fed is not None:
            shape[name] = fed
    return shape


def _derived_layer(name: str, registered: set[str]) -> str | None:
    """The layer registered for ``name`` under a derived name, if any.

    ``If_6`` is registered as ``If_6_OutputLayer`` (corpus 8.4.10 crash log line 233).
    """
    derived = name + "_OutputLayer"
    return derived if derived in registered else None


# Engine.origin of a log's engine -> the graph's final_layers_from
_FINALS_FROM = {
    "log_inspector": "layer dump",
    "log_listing": "layer dump",
    "log_names": "layer dump",
    "log_placement": "placement",
    "log_autotuned": "autotuned layers",
    "layer_json": "engine",
}

#: The kinds of event that say the build made an engine.
_FINISHED = ("engine_built", "engine_generated", "engine_layer_info_header")


def _kinds(classes: Iterable[type[EventBase]]) -> list[str]:
    return list(dict.fromkeys(cls.model_fields["kind"].default for cls in classes))


def merge_graph(build: Build, engine: Engine | None = None) -> MergeGraph:
    """The merge graph of ``build`` (see :mod:`trtlog.graph.model`).

    Args:
        build: a parsed log.
        engine: the built engine whose layers are final (default: the log's own layer dump;
            without one, the layers of its placement lines, else the layers the builder
            autotuned).

    Example:
        >>> import trtlog
        >>> build = trtlog.parse_text("[V] [TRT] Parsing node: Conv_0 [Conv]\\n")
        >>> merge_graph(build).fate("Conv_0").kind
        'unexplained'
    """
    graph = MergeGraph(source=build.source.name)
    builder = _Builder(graph, build.pass_index)
    # only the events the walk reads (every other event says nothing to the graph): a lazy
    # build builds no other event
    for event in build.events_of(*builder.kinds()):
        builder.event(event)
    finals = "engine"
    if engine is None:
        engine = final_layers(build)
        finals = _FINALS_FROM[engine.origin] if engine is not None else "none"
    graph.graph["final_layers_from"] = finals
    graph.graph["build_finished"] = bool(build.events_of(*_FINISHED))
    builder.finish(engine)
    return graph


def _merged_into(
    out: dict[str, Any], into: dict[str, Any], source: str, target: str, evidence: str
) -> None:
    """``MergeGraph.relate(source, target, "merged into", None, 0, evidence)``, inline.

    ``out`` is ``source``'s successor dict and ``into`` ``target``'s predecessor dict (both
    nodes are in the graph, and differ); the caller drops the graph's cache once, after many
    edges (an engine of 20,000 layers adds a hundred thousand).
    """
    current = out.get(target)
    if current is None:
        edge = {"relation": "merged into", "pass_name": None, "line": 0, "evidence": evidence}
        out[target] = edge
        into[source] = edge
    elif current["relation"] != "merged into" and not current["line"]:
        current.update(relation="merged into", pass_name=None, line=0, evidence=evidence)
