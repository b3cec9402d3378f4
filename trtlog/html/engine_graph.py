"""The report's engine graph and fusion bisection sections, as the page's data.

Part of the report package. The graph is :func:`trtlog.graph.engine_graph.engine_graph` (a
node per layer, an edge per tensor, Myelin kernels folded into their region) and its layouts
are the ones ``trtlog graph --engine -o x.svg`` draws (:func:`trtlog.graph.layout
.layered_layout`): the page draws the coordinates it is given, so a 1,309-layer engine is
usable as soon as its SVG is made. Each view is laid out here: every region folded, and each
region open on its own. A view of more than :data:`MAX_DRAWN` nodes, or past the
:data:`LAYOUT_BUDGET`, is left to the page, which then draws the neighbourhood of a layer the
user picks (laid out in the browser by the vendored dagre) instead of everything.

The data goes in its own ``<script type="application/json">`` block (``trtlog-engine-graph``):
``assets/engine_graph.js`` reads it, and the keys below are their contract.
"""

from __future__ import annotations

import heapq
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from trtlog._display import plural
from trtlog.html.data import num

if TYPE_CHECKING:
    from trtlog.buildlog.model import Build
    from trtlog.engine.model import Engine
    from trtlog.graph.engine_graph import EngineGraph, View

__all__ = [
    "BISECT_LAYERS",
    "LAYOUT_BUDGET",
    "MAX_DRAWN",
    "bisection_section",
    "engine_graph_section",
]

#: A view of more nodes than this is not drawn whole: the page draws a layer's neighbourhood.
MAX_DRAWN = 2500
#: Nodes laid out in all (the folded view, then each region open, in order) before the rest
#: of the views are left to the page's neighbourhood drawing.
LAYOUT_BUDGET = 40_000

_KINDS = {"layer": 0, "region": 1, "input": 2, "output": 3}


def engine_graph_section(
    engine: Engine, columns: Mapping[str, Sequence[Any]] | None = None
) -> dict[str, Any]:
    """The section's data: nodes, edges, regions and the laid-out views (see the module).

    ``columns``: the engine's :func:`~trtlog.engine.rows.layer_columns`, when made already
    (the layers section's).

    Example:
        >>> import trtlog
        >>> path = "fixtures/layer_info/trt11.5-like_smallnet-fp32_layers-detailed.json"
        >>> e = trtlog.load_engine(path)
        >>> section = engine_graph_section(e)
        >>> section["layers"], len(section["views"]["folded"]["nodes"])
        (6, 8)
    """
    from trtlog.graph.engine_graph import engine_graph

    graph = engine_graph(engine, columns)
    nodes = graph.nodes
    edges = graph.edges
    budget = [LAYOUT_BUDGET]
    folded = _view(graph, (), budget)
    opened = [_view(graph, (k,), budget) for k in range(len(graph.regions))]
    return {
        "v": 1,
        "layers": graph.layer_count,
        "maxDrawn": MAX_DRAWN,
        "tensors": any(layer.inputs or layer.outputs for layer in engine.layers),
        "timed": any(n.time_ms is not None for n in nodes),
        "nodes": {
            "label": [n.label for n in nodes],
            "kind": [_KINDS[n.kind] for n in nodes],
            "type": [n.layer_type for n in nodes],
            "precision": [n.precision for n in nodes],
            "ms": [num(n.time_ms) for n in nodes],
            "region": [-1 if n.region is None else n.region for n in nodes],
        },
        "edges": {
            "src": [e.source for e in edges],
            "dst": [e.target for e in edges],
            "tensor": [e.tensor for e in edges],
            "label": [e.label for e in edges],
        },
        "regions": [
            {"label": r.label, "graph": r.graph, "node": r.node, "members": list(r.members)}
            for r in graph.regions
        ],
        "views": {"folded": folded, "open": opened},
    }


def _view(graph: EngineGraph, opened: tuple[int, ...], budget: list[int]) -> dict[str, Any] | None:
    """One view's layout for the page, or ``None`` when it is too big (the page draws parts).

    ``budget``: nodes still allowed to be laid out (taken from).
    """
    size = _size(graph, opened)
    if size > MAX_DRAWN or size > budget[0]:
        return None
    budget[0] -= size
    view: View = graph.view(opened)
    layout = view.layout
    return {
        "nodes": view.nodes,
        "x": [round(x, 1) for x, _y in layout.nodes],
        "y": [round(y, 1) for _x, y in layout.nodes],
        "edges": view.edges,
        "ends": [list(pair) for pair in view.ends],
        "points": [[round(c, 1) for point in path for c in point] for path in layout.edges],
        "width": round(layout.width, 1),
        "height": round(layout.height, 1),
    }


def _size(graph: EngineGraph, opened: tuple[int, ...]) -> int:
    """How many nodes the view with ``opened`` regions shows (before laying it out)."""
    hidden = sum(len(r.members) for k, r in enumerate(graph.regions) if k not in opened)
    return len(graph.nodes) - hidden - len(opened)


#: Layers whose fusions the report's bisection section lists (the ones with most of them).
BISECT_LAYERS = 8
#: Layers looked at for it: the engine layers of the most composed names.
_BISECT_CANDIDATES = 40


#: The optimizer's lines that say which layers a fusion joined (the merge graph's edges).
_FUSION_KINDS = ("fusion", "fusion_into", "horizontal_merge", "conv_scale_fusion")


def bisection_section(build: Build | None, engine: Engine | None = None) -> dict[str, Any]:
    """The report's fusion bisection section: the layers of the most breakable fusions.

    For each, its fusions (pass, line, parts, the tensor that breaks it) and the first
    halving step with its commands (:func:`trtlog.graph.bisect.bisect_plans`); the section
    says how to go on with ``trtlog bisect``. The fusions come from the log (``build``, its
    optimizer's lines), the final layers from ``engine`` when the layers came apart from the
    log (a ``--layers`` JSON: the merge graph then ends in them, as the merge graph section's
    does), else from the log (its layer dump, placement lines or the layers its autotuner
    timed: :func:`~trtlog.engine.from_log.final_layers`). Without layers to show, ``layers``
    is empty and ``why`` says what the section needs (and which input lacks it).
    """
    from trtlog.engine.from_log import final_layers
    from trtlog.graph.bisect import bisect_plans
    from trtlog.names import split_shape

    if build is None:
        return _no_bisection(
            "needs the --verbose build log: which layers each fusion joined is known only "
            "from the optimizer's lines, and this report was made from JSON only"
        )
    if not build.events_of(*_FUSION_KINDS):
        if build.events_of("pass_run"):  # a verbose build log: its passes ran
            return _no_bisection(
                "found no fusion line in this log: its optimizer passes ran, but none printed "
                "which layers it joined (nothing to fuse, or fusions made inside Myelin "
                "regions, which TensorRT does not print)"
            )
        return _no_bisection(
            "needs a --verbose build log: this log prints none of the optimizer's lines "
            "(Running: ..., Fusing ...), which say which layers each fusion joined"
        )
    layers = engine if engine is not None else final_layers(build)
    if layers is None:
        return _no_bisection(
            "needs the engine's layers: build with --dumpLayerInfo --profilingVerbosity=detailed, "
            "or pass the --exportLayerInfo JSON (--layers)"
        )
    index = {layer.name: i for i, layer in enumerate(layers.layers)}
    graph = build.merge_graph(engine) if engine is not None else build.merge_graph()
    # the layers that joined the most parts are where fusions are (a name per part; the
    # names split as tuples, as the merge graph just split the composed ones: split_name's
    # tree without a model per part); the first candidates of the names sorted so
    ranked = heapq.nsmallest(
        _BISECT_CANDIDATES, index, key=lambda n: (-len(split_shape(n).members()), index[n])
    )
    known = [n for n in ranked if graph.find(n, ("engine_layer", "intermediate")) is not None]
    every = bisect_plans(build, known, engine)
    plans = sorted(
        (p for p in every if p.breakable), key=lambda p: (-len(p.breakable), index[p.target[1]])
    )
    if not plans:
        return _no_bisection(_why_none(every, len(layers.layers), engine is not None))
    command = ["trtlog", "bisect", build.source.name]
    if engine is not None:  # (the names the commands give are the JSON's)
        command += ["--layers", engine.source]
    out = []
    for plan in plans[:BISECT_LAYERS]:
        name = plan.target[1]
        step = plan.steps[0]
        out.append(
            {
                "name": name,
                "index": index[name],
                "fusions": [
                    {
                        "index": f.index,
                        "pass": f.pass_name,
                        "line": f.line,
                        "parts": list(f.parts),
                        "tensor": f.boundary[0].tensor if f.boundary else None,
                        "layer": f.boundary[0].layer if f.boundary else None,
                        "tensorLine": f.boundary[0].line if f.boundary else 0,
                        "why": f.why,
                    }
                    for f in plan.fusions
                    if f.boundary or f.evidence == "log"
                ],
                "step": {
                    "first": step.first,
                    "last": step.last,
                    "low": step.low,
                    "high": step.high,
                    "commands": [list(c) for c in step.commands],
                },
                "command": shlex.join([*command, "--layer", name]),
                "notes": list(plan.notes),
            }
        )
    version = ".".join(map(str, build.trt_version)) if build.trt_version else None
    return {
        "layers": out,
        "version": version,
        "more": max(0, len(plans) - BISECT_LAYERS),
        "why": None,
    }


def _why_none(plans: list[Any], layers: int, given: bool) -> str:
    """Why none of the fusions that built an engine's layers can be broken (the commonest)."""
    of = f"the {plural(layers, 'layer')} of {'the layer JSON' if given else 'the log'}"
    fusions = [f for p in plans for f in p.fusions if f.line]
    if not fusions:
        return f"found no fusion line of the log that built one of {of}" + (
            ": is the JSON of the build this log made?" if given else ""
        )
    reasons = Counter(f.why for f in fusions if f.why)
    reason = reasons.most_common(1)[0][0] if reasons else "no tensor between their parts"
    return (
        f"found no fusion to break among the {plural(len(fusions), 'fusion')} that built {of}: "
        f"{reason}"
    )


def _no_bisection(why: str) -> dict[str, Any]:
    """The section without layers: what it needs, said in the page."""
    return {"layers": [], "version": None, "more": 0, "why": why}
