"""Fusion bisection: which tensors to mark as outputs to break a fusion, in halving steps.

Part of the graph package (a view of the merge graph and the ONNX parser's lines). When an
engine loses accuracy, one way to find the fusion at fault is to stop TensorRT from making
it: a tensor marked as a network output must be written to memory, so the layers on either
side of it can no longer be fused into one kernel. :func:`bisect_plan` reads, from the merge
graph (:class:`~trtlog.graph.model.MergeGraph`), the fusions that built a region (an engine
layer, the layer an ONNX node ended in, or every layer a pass fused), and for each fusion the
smallest set of tensors at its boundary: the outputs of one fused part that another part
reads, named as the ONNX parser printed them (``[Conv] outputs: [t -> (1, 64, 56, 56)]``).
The fusions are then halved: break the first half, rebuild, check the accuracy, and keep the
half that holds the culprit (``trtlog bisect LOG --layer L --fusions 1-4``).

Each step comes with the command lines that mark its tensors:

* Polygraphy's ``--trt-outputs`` (``polygraphy run model.onnx --trt --onnxrt --trt-outputs t
  --onnx-outputs t`` compares them with ONNX Runtime), when the log names the tensors;
* the Python API's ``network.mark_output`` (every TensorRT version), by tensor name, or by the
  producing layer's name when the log does not print the parser's tensor lines;
* trtexec has no option that marks an ONNX tensor as an output in any version: its
  ``--output`` names Caffe and UFF outputs and is rejected for ONNX models; 10.x's
  ``--markDebug`` marks debug tensors, which are written out but are not network outputs.

A fusion of a constant into a layer (weights folded into a convolution, a scale into its
quantizer) is not a fusion of computations: no tensor between two layers can break it, and
it is listed as such, not proposed.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from trtlog.events.onnx import OnnxModelInfo, OnnxNodeIo
from trtlog.graph.model import _FOLDING, FLOWS, MergeGraph, is_constant
from trtlog.names import split_name

if TYPE_CHECKING:
    from trtlog.buildlog.model import Build
    from trtlog.engine.model import Engine

__all__ = ["BisectPlan", "Boundary", "Fusion", "Step", "bisect_plan", "bisect_plans"]

Target = Literal["layer", "node", "pass"]


@dataclass(frozen=True)
class Boundary:
    """A tensor whose marking breaks a fusion.

    Attributes:
        tensor: the tensor's name as the ONNX parser printed it, or ``None`` when the log does
            not print the parser's tensor lines (then :attr:`layer`'s outputs are marked).
        layer: the layer (ONNX node) that writes it.
        readers: the layers of the other fused part that read it.
        line: the log line that lists it among :attr:`layer`'s outputs (0 when not printed).
    """

    tensor: str | None
    layer: str
    readers: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class Fusion:
    """One fusion the builder made: parts joined into a layer, by a pass, on a line.

    Attributes:
        index: 1-based position among the region's fusions (in log order).
        result: the layer the parts became.
        parts: the layers (or nodes) joined.
        pass_name: the pass that fused them.
        line: the log line of the fusion.
        boundary: the tensors between its parts, upstream first; marking any one of them
            breaks it (empty for a constant folded in).
        why: why no boundary is proposed, when none is.
        evidence: how the merge graph knows it (``log``: the line says so; ``pass``: a part
            vanished while the pass ran on the result, see :mod:`trtlog.graph.model`).
    """

    index: int
    result: str
    parts: tuple[str, ...]
    pass_name: str | None
    line: int
    boundary: tuple[Boundary, ...] = ()
    why: str | None = None
    evidence: str = "log"


@dataclass(frozen=True)
class Step:
    """One halving step: break fusions ``first``..``last`` and check the accuracy.

    Attributes:
        first: the first fusion broken (1-based, inclusive); last: the last.
        low: the range being searched (1-based, inclusive), ``high`` its end.
        boundary: the tensors to mark: the first of each fusion's boundary.
        commands: ``(tool, command line)`` pairs that mark them.
    """

    first: int
    last: int
    low: int
    high: int
    boundary: tuple[Boundary, ...]
    commands: tuple[tuple[str, str], ...] = ()

    @property
    def if_recovered(self) -> tuple[int, int]:
        """The range to search next when breaking these fusions restores the accuracy."""
        return (self.first, self.last)

    @property
    def otherwise(self) -> tuple[int, int] | None:
        """The range to search next when it does not (``None``: no fusion here is at fault)."""
        return (self.last + 1, self.high) if self.last < self.high else None


@dataclass
class BisectPlan:
    """The fusions of a region and the halving steps over the breakable ones.

    Attributes:
        target: what was asked for (``layer``, ``node`` or ``pass``) and its name.
        layers: the engine layers of the region.
        fusions: every fusion that built them, in log order (:attr:`Fusion.index`).
        breakable: the indexes of the fusions a marked tensor can break.
        steps: the halving steps over ``breakable`` in the range asked for (the first step
            of each level, taking the "recovered" branch; each step says what to do next).
        trt_version: the build's TensorRT version, if printed.
        model: the ONNX file the build parsed, if printed.
        precisions: the precisions the build enabled (``FP16``, ``INT8``), for the commands.
        notes: what the reader should know (no tensor lines, a range cut to fit).
    """

    target: tuple[Target, str]
    layers: tuple[str, ...]
    fusions: list[Fusion]
    breakable: list[int]
    steps: list[Step] = field(default_factory=list)
    trt_version: tuple[int, ...] | None = None
    model: str | None = None
    precisions: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)

    def step_for(self, low: int, high: int) -> Step:
        """The step that halves the breakable fusions numbered ``low``..``high``."""
        chosen = [i for i in self.breakable if low <= i <= high]
        if not chosen:
            raise ValueError(f"no breakable fusion in {low}-{high}")
        half = chosen[: max(1, len(chosen) // 2)] if len(chosen) > 1 else chosen
        # one tensor breaks a fusion (it must be written out): the first (upstream) one each
        marks = _unique(self.fusions[i - 1].boundary[0] for i in half)
        last_of_range = chosen[-1]
        return Step(
            half[0],
            half[-1],
            chosen[0],
            last_of_range,
            marks,
            tuple(commands(marks, self.model, self.trt_version, self.precisions)),
        )


def _unique(items: Iterable[Boundary]) -> tuple[Boundary, ...]:
    seen: dict[tuple[str | None, str], Boundary] = {}
    for b in items:
        seen.setdefault((b.tensor, b.layer), b)
    return tuple(seen.values())


class _Tensors:
    """The ONNX parser's tensor lines: each node's outputs and inputs, with their line."""

    def __init__(self, build: Build) -> None:
        self.outputs: dict[str, list[tuple[str, int]]] = {}
        self.inputs: dict[str, set[str]] = {}
        for event in build.events_of("onnx_node_io"):
            assert isinstance(event, OnnxNodeIo)
            names = [t.name for t in event.tensors if t.name]
            if event.direction == "outputs":
                self.outputs[event.node] = [(n, event.span[0]) for n in names]
            else:
                self.inputs[event.node] = set(names)

    def __bool__(self) -> bool:
        return bool(self.outputs)


def _nodes_of(graph: MergeGraph, start: str) -> list[str]:
    """The computing ONNX nodes a part holds (its provenance; constants left out)."""
    data = graph.node_data()
    pred = graph.in_adjacency()
    seen = {start}
    stack = [start]
    while stack:
        for source, edge in pred[stack.pop()].items():
            if edge["relation"] in FLOWS and source not in seen:
                seen.add(source)
                stack.append(source)
    nodes = [
        data[n]["name"]
        for n in seen
        if data[n]["kind"] == "onnx_node" and not is_constant("onnx_node", data[n].get("op"))
    ]
    if not nodes:
        # a log that does not print the parser's lines for these nodes (an excerpt, 7.x):
        # the original layers stand for them
        nodes = [
            data[n]["name"]
            for n in seen
            if data[n]["kind"] in ("intermediate", "engine_layer")
            and split_name(data[n]["name"]).op == "leaf"
        ]
    return nodes


def _fusions_into(graph: MergeGraph, layers: Sequence[str]) -> list[tuple[str, list[str], Any]]:
    """``(result id, part ids, edge data)`` of every fusion that built ``layers``, by line."""
    pred = graph.in_adjacency()
    found: dict[tuple[str, int, str | None], list[str]] = {}
    seen: set[str] = set()
    stack = [graph.find(name, ("engine_layer", "intermediate")) for name in layers]
    edges: dict[tuple[str, int, str | None], Any] = {}
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for source, edge in pred[node].items():
            if edge["relation"] not in FLOWS:
                continue
            if edge["relation"] == "merged into":
                key = (node, edge.get("line") or 0, edge.get("pass_name"))
                found.setdefault(key, []).append(source)
                edges[key] = edge
            stack.append(source)
    ordered = sorted(found, key=lambda k: (k[1] == 0, k[1], k[0]))
    # (the parts in the order the merge graph met them: as the fusion line names them)
    return [(k[0], found[k], edges[k]) for k in ordered]


def _parts(graph: MergeGraph, result: str, sources: list[str]) -> list[list[str]]:
    """The computing ONNX nodes of each fused part (a node two parts share left out).

    ``fusing x into y`` keeps ``y``'s name (where ``Fusing a with b`` names the result
    ``a + b``): a result whose name does not hold every part's is a part too (its nodes but
    the others').
    """
    data = graph.node_data()
    parts = [_nodes_of(graph, p) for p in sources]
    name = data[result]["name"]
    if len(sources) == 1 or not all(data[p]["name"] in name for p in sources):
        taken = {n for part in parts for n in part}
        parts.append([n for n in _nodes_of(graph, result) if n not in taken])
    counts: dict[str, int] = {}
    for part in parts:
        for n in part:
            counts[n] = counts.get(n, 0) + 1
    return [[n for n in part if counts[n] == 1] for part in parts]


def _boundary(
    graph: MergeGraph,
    result: str,
    sources: list[str],
    tensors: _Tensors,
    registered: dict[str, str],
) -> tuple[tuple[Boundary, ...], str | None]:
    """The tensors between a fusion's parts (upstream first), or why there are none."""
    parts = _parts(graph, result, sources)
    if sum(1 for p in parts if p) < 2:
        return (), "a constant folded into a layer: no tensor between two layers to mark"
    data = graph.node_data()
    order = {n: _order(data, n) for part in parts for n in part}
    found = _tensor_boundary(parts, tensors, registered, order) if tensors else ()
    if found:
        return found, None
    if tensors and any(n in tensors.outputs for part in parts for n in part):
        return (), "the parser's lines name no tensor from one fused part to another"
    last = _feeder(data, result, sources, parts, order)
    if last is None:
        return (), (
            "the log prints no parser tensor lines for these nodes, and which of the "
            "layer's nodes feeds the other part is not known without them"
        )
    return (Boundary(None, registered.get(last, last)),), None


def _feeder(
    data: dict[str, dict[str, Any]],
    result: str,
    sources: list[str],
    parts: list[list[str]],
    order: dict[str, int],
) -> str | None:
    """The node whose outputs feed the other part, without the parser's tensor lines.

    ONNX nodes are parsed in topological order: when every node's parse order is known, the
    last node of the part whose last node comes first. Else as the builder prints fusions:
    ``Fusing a with b`` names the producer first (its last member feeds ``b``); a pass
    running on a layer of one node absorbs what follows it (``Running: QConvScaleFusion on
    conv`` then ``Removing bn + relu``), and ``fusing (a and b) into c`` fuses inputs of
    ``c``. ``None`` when these do not tell (a layer of several nodes).
    """
    live = [part for part in parts if part]
    if all(data.get("onnx:" + n) is not None for part in live for n in part):
        upstream = min(live, key=lambda part: max(order[n] for n in part))
        return max(upstream, key=order.__getitem__)
    name = data[result]["name"]
    first = data[sources[0]]["name"]
    if len(sources) > 1 and all(data[p]["name"] in name for p in sources):
        members = split_name(first).members()
        return members[-1] if members else first
    own = parts[-1] if len(parts) > len(sources) else []
    if len(sources) == 1:
        return own[0] if len(own) == 1 else None
    return parts[0][0] if len(parts[0]) == 1 else None


def _order(data: dict[str, dict[str, Any]], name: str) -> int:
    """Where a node comes in the model: its parse order (a layer's line without one)."""
    node = data.get("onnx:" + name)
    if node is not None:
        return int(node.get("order", 0))
    return int(data.get("layer:" + name, {}).get("line", 0))


def _tensor_boundary(
    parts: list[list[str]], tensors: _Tensors, registered: dict[str, str], order: dict[str, int]
) -> tuple[Boundary, ...]:
    """The tensors one part's nodes write and another's read (upstream first)."""
    out: list[tuple[int, Boundary]] = []
    for i, producer in enumerate(parts):
        others = {n for j, part in enumerate(parts) if j != i for n in part}
        for node in producer:
            for tensor, line in tensors.outputs.get(node, ()):
                readers = tuple(sorted(r for r in others if tensor in tensors.inputs.get(r, ())))
                if readers:
                    boundary = Boundary(tensor, registered.get(node, node), readers, line)
                    out.append((order[node], boundary))
    out.sort(key=lambda item: item[0])
    return _unique(b for _, b in out)


def bisect_plan(
    build: Build,
    *,
    layer: str | None = None,
    node: str | None = None,
    pass_name: str | None = None,
    fusions: tuple[int, int] | None = None,
    engine: Engine | None = None,
) -> BisectPlan:
    """The fusions of a region and the halving steps that find the one at fault.

    Give one of ``layer`` (an engine layer, or any layer the log names), ``node`` (an ONNX
    node: the region is the layer it ended in) or ``pass_name`` (every layer that pass
    fused). ``fusions``: the range (1-based, inclusive) left after earlier steps.
    ``engine``: the engine's layers when they come apart from the log (its
    ``--exportLayerInfo`` JSON); the merge graph then ends in them
    (:meth:`~trtlog.buildlog.Build.merge_graph`), else in the log's own layers.

    Raises:
        KeyError: no such layer, node or pass in the build (the message says what exists).
        ValueError: not exactly one of ``layer``, ``node``, ``pass_name``, or an empty range.
    """
    given = [(k, v) for k, v in (("layer", layer), ("node", node), ("pass", pass_name)) if v]
    if len(given) != 1:
        raise ValueError("give exactly one of layer, node or pass_name")
    kind, name = given[0]
    return _plan(_Context(build, engine), kind, name, fusions)  # type: ignore[arg-type]


def bisect_plans(
    build: Build, layers: Iterable[str], engine: Engine | None = None
) -> list[BisectPlan]:
    """:func:`bisect_plan` of each of ``layers`` (the log's tensor lines read once).

    Raises:
        KeyError: a layer the build does not have.
    """
    context = _Context(build, engine)
    return [_plan(context, "layer", name, None) for name in layers]


class _Context:
    """What every plan of a build reads: its merge graph, tensor lines and layer names."""

    def __init__(self, build: Build, engine: Engine | None = None) -> None:
        self.build = build
        self.graph = build.merge_graph(engine) if engine is not None else build.merge_graph()
        data = self.graph.node_data()
        self.tensors = _Tensors(build)
        # (networkx's edge view, read from its dicts: a view per edge of a big graph cost
        # more than the plans)
        self.registered = {
            data[a]["name"]: data[b]["name"]
            for a, out in self.graph.out_adjacency().items()
            for b, edge in out.items()
            if edge["relation"] == "registered as"
        }
        self.model = _model_of(build)


def _plan(
    context: _Context, kind: Target, name: str, fusions: tuple[int, int] | None
) -> BisectPlan:
    """The plan of one region (see :func:`bisect_plan`)."""
    build, graph = context.build, context.graph
    tensors, registered = context.tensors, context.registered
    data = graph.node_data()
    if kind == "layer":
        if graph.find(name, ("engine_layer", "intermediate")) is None:
            raise KeyError(f"no layer named {name!r} in this build")
        layers = [name]
    elif kind == "node":
        fate = graph.fate(name)  # (KeyError for an unknown node)
        if not fate.final_layers:
            raise KeyError(f"ONNX node {name!r} ended in no layer ({fate.kind}): nothing fused")
        layers = list(fate.final_layers)
    else:
        layers = sorted(
            {
                data[target]["name"]
                for _source, target, edge in graph.edges(data=True)
                if edge.get("pass_name") == name and edge["relation"] == "merged into"
            }
        )
        if not layers:
            passes = sorted(
                {e["pass_name"] for *_, e in graph.edges(data=True) if e.get("pass_name")}
            )
            raise KeyError(
                f"no fusion by pass {name!r}; passes that fused: {', '.join(passes) or 'none'}"
            )
    made: list[Fusion] = []
    boundary: tuple[Boundary, ...]
    why: str | None
    for result, parts, edge in _fusions_into(graph, layers):
        if kind == "pass" and edge.get("pass_name") != name:
            continue
        if edge.get("pass_name") and _FOLDING.search(edge["pass_name"]):
            # (the merge graph's fates call these folding, not fusing)
            boundary, why = (), "a constant folded in (the pass folds constants)"
        elif not edge.get("line"):
            # a fusion known from a composed name or metadata, not from a builder line
            boundary, why = (), "known from the layer's name only: no fusion line to break"
        else:
            boundary, why = _boundary(graph, result, parts, tensors, registered)
        made.append(
            Fusion(
                len(made) + 1,
                data[result]["name"],
                tuple(data[p]["name"] for p in parts),
                edge.get("pass_name"),
                edge.get("line") or 0,
                boundary,
                why,
                edge.get("evidence", "log"),
            )
        )
    plan = BisectPlan(
        (kind, name),
        tuple(layers),
        made,
        [f.index for f in made if f.boundary],
        trt_version=build.trt_version,
        model=context.model,
        precisions=build.options.precisions,
    )
    if any(f.boundary and f.boundary[0].tensor is None for f in made):
        plan.notes.append(
            "the log prints no ONNX parser tensor lines for some fused nodes ([Conv] outputs: "
            "[...]; --verbose builds of TensorRT 8.x and later print them): their boundaries "
            "are the outputs of the layer that feeds the other part"
        )
    if plan.breakable:
        low, high = fusions or (plan.breakable[0], plan.breakable[-1])
        if low > high or not any(low <= i <= high for i in plan.breakable):
            raise ValueError(
                f"no breakable fusion in {low}-{high}; the breakable ones: "
                + ", ".join(map(str, plan.breakable))
            )
        while True:
            step = plan.step_for(low, high)
            plan.steps.append(step)
            if step.first == step.last == step.high == step.low:
                break
            low, high = step.if_recovered
    return plan


def _model_of(build: Build) -> str | None:
    for event in build.events_of("onnx_model_info"):
        assert isinstance(event, OnnxModelInfo)
        return event.input_filename
    line = build.command_line or ""
    for word in line.split():
        if word.startswith("--onnx="):
            return word.split("=", 1)[1]
    return None


def commands(
    marks: Sequence[Boundary],
    model: str | None,
    version: tuple[int, ...] | None,
    precisions: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """Command lines that mark ``marks`` as outputs (see the module docstring)."""
    onnx = model or "model.onnx"
    out: list[tuple[str, str]] = []
    named = [b.tensor for b in marks if b.tensor]
    flags = [f"--{p.lower()}" for p in precisions if p in ("FP16", "INT8", "BF16", "FP8")]
    if named and len(named) == len(marks):
        words = ["polygraphy", "run", onnx, "--trt", *flags, "--onnxrt", "--trt-outputs"]
        words += [*named, "--onnx-outputs", *named]
        out.append(("polygraphy", shlex.join(words)))
    by_tensor = [repr(t) for t in named]
    by_layer = [repr(b.layer) for b in marks if not b.tensor]
    lines = []
    if by_tensor:
        lines.append(f"tensors = {{{', '.join(by_tensor)}}}")
    if by_layer:
        lines.append(f"layers = {{{', '.join(by_layer)}}}")
    lines.append("for i in range(network.num_layers):")
    lines.append("    layer = network.get_layer(i)")
    lines.append("    for j in range(layer.num_outputs):")
    lines.append("        t = layer.get_output(j)")
    test = []
    if by_tensor:
        test.append("t.name in tensors")
    if by_layer:
        test.append("layer.name in layers")
    lines.append(f"        if ({' or '.join(test)}) and not t.is_network_output:")
    lines.append("            network.mark_output(t)")
    version_text = ".".join(map(str, version)) if version else "any version"
    out.append((f"python (TensorRT {version_text}, after parsing)", "\n".join(lines)))
    return out
