"""Views over an :class:`~trtlog.layers.Engine`: profile merge, Myelin groups, module tree.

A view module (pydantic only, no pandas). :func:`merge_profile` puts a profile's times on the
layers, tolerant of the names the profiler changes; :func:`myelin_groups` gathers Myelin
kernels under the region they belong to; :func:`module_tree` rolls layers up the ONNX name
hierarchy (``/encoder/layers.0/mha/...``) so a big model reads like its source modules.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trtlog._moved import moved_names
from trtlog._pydantic import assemble
from trtlog.layers import MYELIN_LAYER_TYPES, Engine, EngineLayer, LayerTime, Profile, ProfileRecord
from trtlog.names import common_path, module_path, parse_kernel_name, placed_nodes, split_name

__all__ = [
    "LayerModules",
    "ModuleNode",
    "MyelinGroup",
    "layer_modules",
    "merge_profile",
    "module_tree",
    "myelin_groups",
    "name_index",
    "served_layer",
]

__getattr__ = moved_names(__name__, {"common_module": "trtlog.names"})


# -- profile merge -------------------------------------------------------------------------


_TIME_FIELDS_SET = frozenset(LayerTime.model_fields)
_LAYER_FIELDS_SET = frozenset(EngineLayer.model_fields)


def _record_time(r: ProfileRecord, reason: str | None = None) -> LayerTime:
    """The time of a layer that one profile record times."""
    data = {
        "average_ms": r.average_ms,
        "total_ms": r.time_ms,
        "median_ms": r.median_ms,
        "percentage": r.percentage,
        "profile_names": (r.name,),
        "reason": reason,
    }
    return assemble(LayerTime, data, {}, _TIME_FIELDS_SET)


def _time(records: Sequence[ProfileRecord], reason: str | None = None) -> LayerTime:
    if len(records) == 1:
        return _record_time(records[0], reason)
    data = {
        "average_ms": math.fsum(r.average_ms for r in records),
        "total_ms": math.fsum(r.time_ms for r in records),
        "median_ms": None,
        "percentage": math.fsum(r.percentage for r in records),
        "profile_names": tuple(r.name for r in records),
        "reason": reason,
    }
    return assemble(LayerTime, data, {}, _TIME_FIELDS_SET)


def _strip_profile(name: str) -> str:
    if not name.endswith("]"):  # fast path: a [profile N] suffix ends the name
        return name
    parts = split_name(name)
    return parts.parts[0].text if parts.op == "profile" and parts.parts else name


def merge_profile(engine: Engine, profile: Profile, *, in_place: bool = False) -> Engine:
    """The engine with each layer's time from ``profile`` (its first run).

    Matching, in order: the exact name (the k-th layer of a duplicated name takes the k-th
    record of that name); the name without a `` [profile N]`` suffix on either side; a
    ``{ForeignNode[...]}`` layer takes the sum of the Myelin kernel records (``*_myl<g>_<i>``)
    of one Myelin graph, graphs paired with regions in order. A layer without a record gets
    NaN times with a reason, never zero; a profile record that matches no layer is listed in
    the engine's notes. Layer percentages are the profile's, so they agree with the file.

    ``in_place=True`` sets the times on ``engine``'s own layer objects instead of copying them
    (a third of the merge time on a large engine); only for an engine nobody else holds yet,
    as :func:`trtlog.load_engine` does.

    Example:
        >>> from trtlog.layers import Engine, EngineLayer, Profile, ProfileRun, ProfileRecord
        >>> eng = Engine(source="x", origin="layer_json", detailed=False,
        ...              layers=(EngineLayer(index=0, name="a"), EngineLayer(index=1, name="b")))
        >>> prof = Profile(source="p", runs=(ProfileRun(records=(
        ...     ProfileRecord(name="a", time_ms=2.0, average_ms=0.2, percentage=100.0),)),))
        >>> [(l.time.average_ms, l.time.reason) for l in merge_profile(eng, prof).layers]
        [(0.2, None), (nan, 'not in the profile')]
    """
    records = list(profile.records)
    used = [False] * len(records)
    exact: dict[str, list[int]] = defaultdict(list)
    for i, record in enumerate(records):
        exact[record.name].append(i)

    def take(index: dict[str, list[int]], key: str) -> int | None:
        for i in index.get(key, ()):
            if not used[i]:
                used[i] = True
                return i
        return None

    times: list[LayerTime | None] = [None] * len(engine.layers)
    if len(exact) == len(records):  # fast path: no duplicated record name (the usual case)
        first = {name: hits[0] for name, hits in exact.items()}
        for li, layer in enumerate(engine.layers):
            hit = first.get(layer.name)
            if hit is not None and not used[hit]:
                used[hit] = True
                times[li] = _record_time(records[hit])
    else:
        for li, layer in enumerate(engine.layers):
            hit = take(exact, layer.name)
            if hit is not None:
                times[li] = _record_time(records[hit])
    # "None in times" would compare None with every LayerTime through pydantic's __eq__
    if any(t is None for t in times) and not all(used):
        stripped: dict[str, list[int]] = defaultdict(list)
        for i, record in enumerate(records):
            if not used[i]:
                stripped[_strip_profile(record.name)].append(i)
        for li, layer in enumerate(engine.layers):
            if times[li] is None:
                hit = take(stripped, _strip_profile(layer.name))
                if hit is not None:
                    times[li] = _record_time(records[hit], "matched without its [profile N] suffix")
    regions = [
        li
        for li, layer in enumerate(engine.layers)
        if times[li] is None and layer.name.startswith("{ForeignNode[")
    ]
    graphs: dict[int, list[int]] = {}
    for i, record in enumerate(records):
        kernel = None if used[i] else parse_kernel_name(record.name)
        if kernel is not None:
            graphs.setdefault(kernel.graph, []).append(i)
    if regions and graphs:
        paired = len(regions) == 1 and len(graphs) == 1
        for li, (graph, members) in zip(regions, graphs.items(), strict=False):
            for i in members:
                used[i] = True
            how = "" if paired else f", paired with the region by order (graph {graph})"
            times[li] = _time(
                [records[i] for i in members],
                f"sum of {len(members)} Myelin kernel records{how}",
            )
    region_names = [r.name for i, r in enumerate(records) if r.name.startswith("{ForeignNode[")]
    layers: list[EngineLayer] = []
    for li, layer in enumerate(engine.layers):
        time = times[li]
        if time is None:
            reason = "not in the profile"
            if layer.myelin is not None and region_names:
                reason = "the profile times the whole Myelin region, not its kernels"
            time = LayerTime(reason=reason)
        if in_place:  # frozen for users; this engine is still being built
            layer.__dict__["time"] = time
            layers.append(layer)
        else:
            data = layer.__dict__.copy()
            data["time"] = time
            layers.append(assemble(EngineLayer, data, layer.__pydantic_extra__, _LAYER_FIELDS_SET))
    unmatched = [r.name for i, r in enumerate(records) if not used[i]]
    notes = list(engine.notes)
    if unmatched:
        shown = ", ".join(repr(n) for n in unmatched[:5])
        more = f" and {len(unmatched) - 5} more" if len(unmatched) > 5 else ""
        notes.append(f"{len(unmatched)} profile record(s) match no layer: {shown}{more}")
    return engine.model_copy(
        update={"layers": tuple(layers), "profile": profile, "notes": tuple(notes)}
    )


# -- Myelin groups -------------------------------------------------------------------------


class MyelinGroup(BaseModel):
    """The kernels of one Myelin region.

    Attributes:
        graph: the Myelin graph number (``_myl<graph>_`` in kernel names), ``None`` for a
            region the engine shows as one ``{ForeignNode[...]}`` layer.
        region: the ``{ForeignNode[...]}`` name when the engine (or profile) shows it.
        kernels: the layer names of the kernels, in execution order.
        kernel_types: how many kernels of each layer type (``kgen``, ``gemm``...).
        ops: for each generated kernel, the operations its name lists.
        onnx_nodes: the ONNX nodes the region computes (from kernel metadata).
        time_ms: the region's time per inference when the layers carry times (NaN otherwise).
    """

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    graph: int | None
    region: str | None = None
    kernels: tuple[str, ...] = ()
    kernel_types: dict[str, int] = Field(default_factory=dict)
    ops: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    onnx_nodes: tuple[str, ...] = ()
    time_ms: float = math.nan

    @property
    def summary(self) -> str:
        """One sentence: what this group is and why it shows as many layers."""
        label = self.region or f"Myelin graph {self.graph}"
        if not self.kernels:
            return f"{label}: one engine layer (a default build shows a Myelin region whole)"
        types = ", ".join(
            f"{n} {t}" for t, n in sorted(self.kernel_types.items(), key=lambda kv: -kv[1])
        )
        return (
            f"{label}: {len(self.kernels)} kernels ({types}) — the same region a default build "
            "shows as one {ForeignNode[...]} layer; --profilingVerbosity=detailed lists its kernels"
        )


def _is_kernel(layer: EngineLayer) -> bool:
    return layer.myelin is not None or (layer.type in MYELIN_LAYER_TYPES and layer.type != "Myelin")


def myelin_groups(engine: Engine, regions: Sequence[str] | None = None) -> list[MyelinGroup]:
    """Myelin kernels grouped by region, and ``{ForeignNode[...]}`` layers as their own group.

    Explains why one build of a model "has 2 layers" and another "has 90": a detailed 10.x
    engine lists a Myelin region's kernels (``kgen``, ``gemm``, ...) where a default build
    shows one ``{ForeignNode[...]}`` layer. ``regions`` (default: ``engine.regions``) label the
    kernel groups, in graph order.
    """
    labels = list(regions if regions is not None else engine.regions)
    by_graph: dict[int, list[EngineLayer]] = {}
    loose: list[EngineLayer] = []
    groups: list[MyelinGroup] = []
    for layer in engine.layers:
        kernel = layer.myelin
        if kernel is not None:
            by_graph.setdefault(kernel.graph, []).append(layer)
        elif _is_kernel(layer):
            loose.append(layer)
        elif layer.name.startswith("{ForeignNode[") or layer.type == "Myelin":
            groups.append(
                MyelinGroup(
                    graph=None,
                    region=layer.name,
                    kernels=tuple(layer.time.profile_names)
                    if layer.time and len(layer.time.profile_names) > 1
                    else (),
                    onnx_nodes=layer.onnx_nodes,
                    time_ms=layer.time.average_ms if layer.time else math.nan,
                )
            )
    if loose:
        by_graph.setdefault(-1, []).extend(loose)
    named = iter(labels)
    for graph, layers in sorted(by_graph.items()):
        times = [lay.time.average_ms for lay in layers if lay.time and lay.time.known]
        ops = {}
        for lay in layers:
            kernel = lay.myelin
            if kernel is not None and kernel.generated:
                ops[lay.name] = kernel.ops
        groups.append(
            MyelinGroup(
                graph=graph if graph >= 0 else None,
                region=next(named, None) if graph >= 0 else None,
                kernels=tuple(lay.name for lay in layers),
                kernel_types=dict(Counter(lay.type or "?" for lay in layers)),
                ops=ops,
                onnx_nodes=tuple(dict.fromkeys(n for lay in layers for n in lay.onnx_nodes)),
                time_ms=math.fsum(times) if times else math.nan,
            )
        )
    return groups


# -- module tree ---------------------------------------------------------------------------


#: How a layer's time reaches the module tree (:class:`LayerModules`).
Attribution = Literal["nodes", "split", "served", "none"]


class LayerModules(BaseModel):
    """Where one engine layer's time goes in the module tree.

    Attributes:
        home: the deepest module holding all the layer's placed ONNX nodes (see
            :func:`placed_nodes`); a reformat's home is that of the layer it serves.
        shares: ``(module path, fraction)`` pairs that add up to 1: the layer's time splits
            this way among modules.
        how: ``nodes`` (the whole time at ``home``), ``split`` (a Myelin region or kernel, or
            a horizontal merge ``a || b``, whose nodes lie in several modules: its time split
            evenly over its placed ONNX nodes, as the engine does not say which node took
            what), ``served`` (a reformat, attributed
            like the layer it feeds or drains), ``none`` (no ONNX node known: the root).
        served: for ``served``, the index of the layer served, when the engine has it.
    """

    model_config = ConfigDict(frozen=True)

    home: tuple[str, ...] = ()
    shares: tuple[tuple[tuple[str, ...], float], ...] = (((), 1.0),)
    how: Attribution = "none"
    served: int | None = None


def _splits(layer: EngineLayer) -> bool:
    """Whether a layer's time splits over its nodes' modules (:func:`layer_modules`)."""
    return (
        layer.type == "Myelin"
        or layer.name.startswith("{ForeignNode[")
        or _is_kernel(layer)
        or (" || " in layer.name and layer.parts.op == "merge")
    )


def _by_nodes(nodes: Sequence[str], region: bool) -> LayerModules:
    if not nodes:
        return LayerModules()
    placed = placed_nodes(nodes)
    paths = [module_path(n) for n in placed]
    home = common_path(paths)
    if region and any(p != home for p in paths):
        weight = 1.0 / len(paths)
        shares: dict[tuple[str, ...], float] = {}
        for p in paths:
            shares[p] = shares.get(p, 0.0) + weight
        return LayerModules(home=home, shares=tuple(shares.items()), how="split")
    return LayerModules(home=home, shares=((home, 1.0),), how="nodes")


def served_layer(
    layers: Sequence[EngineLayer], position: int, index: dict[str, int]
) -> tuple[int | None, tuple[str, ...]]:
    """The layer a reformat serves: its position in ``layers``, else the target's own nodes.

    ``index`` maps layer names to positions (first wins). Returns ``(None, ())`` for a layer
    that is not a reformat of a layer (network inputs and outputs included).
    """
    layer = layers[position]
    if layer.onnx_nodes or not layer.is_reformat:
        return None, ()
    parts = layer.parts
    suffix = ""
    if parts.op == "profile" and parts.parts:
        suffix = layer.name[len(parts.parts[0].text) :]
        parts = parts.parts[0]
    target = parts.target
    if target is None or (parts.detail or "").startswith("network_"):
        return None, ()
    served = index.get(target.text + suffix, index.get(target.text))
    if served is not None and served != position:
        return served, ()
    return None, tuple(target.members())


def layer_modules(engine: Engine) -> tuple[LayerModules, ...]:
    """Where each layer's time goes in the module tree, in layer order.

    A layer goes to the deepest module holding its placed ONNX nodes. A Myelin region (a
    ``{ForeignNode[...]}`` layer, or a kernel of a detailed 10.x engine, which is then
    attributed by kernel) or a horizontal merge (``a || b``) whose nodes lie in several
    modules splits its time evenly over those nodes. A reformat goes where the layer it serves goes
    (``Reformatting CopyNode for Input Tensor 0 to x`` feeds ``x``, ``... Output Tensor 0 to
    x`` drains it); a reformat of a network input or output, or one whose layer is unknown,
    stays at the root.

    Example:
        >>> from trtlog.layers import EngineLayer
        >>> eng = Engine(source="x", origin="layer_json", detailed=False, layers=(
        ...     EngineLayer(index=0, name="Reformatting CopyNode for Input Tensor 0 to /a/Conv"),
        ...     EngineLayer(index=1, name="/a/Conv", onnx_nodes=("a.weight", "/a/Conv"))))
        >>> [(m.home, m.how) for m in layer_modules(eng)]
        [(('a',), 'served'), (('a',), 'nodes')]
    """
    layers = engine.layers
    own = [_by_nodes(lay.onnx_nodes, _splits(lay)) for lay in layers]
    index = name_index(layers)
    out = []
    for i, mine in enumerate(own):
        served, nodes = served_layer(layers, i, index)
        found = own[served] if served is not None else _by_nodes(nodes, False)
        if found.how == "none":
            out.append(mine)
            continue
        out.append(
            LayerModules(
                home=found.home,
                shares=found.shares,
                how="served",
                served=None if served is None else layers[served].index,
            )
        )
    return tuple(out)


def name_index(layers: Sequence[EngineLayer]) -> dict[str, int]:
    """Layer name → position of its first layer."""
    index: dict[str, int] = {}
    for i, lay in enumerate(layers):
        index.setdefault(lay.name, i)
    return index


class ModuleNode(BaseModel):
    """One module of the ONNX name hierarchy with what the engine spends in it.

    A layer belongs to the deepest module that holds all its placed ONNX nodes; its time
    counts there and in every module above. A Myelin region whose nodes lie in several modules
    splits its time evenly over them, and a reformat counts where the layer it serves does
    (see :func:`layer_modules`).

    Attributes:
        path: the module path (``("encoder", "layers.0", "mha")``; ``()`` is the root).
        layers: engine layers in this module and below.
        own_layers: engine layers whose deepest common module is exactly this one.
        onnx_nodes: ONNX nodes in this module and below.
        time_ms: their time per inference (ms), NaN when no layer below has a time.
        split_ms: the part of ``time_ms`` that is an even share of a layer whose nodes lie in
            several modules (a Myelin region or kernel, a horizontal merge): an estimate, as
            the engine times such a layer as a whole; 0 at and above the layer's own module,
            where its whole time counts.
        precisions: how many layers below compute in each precision.
        children: the sub-modules, in first-appearance order.
    """

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    path: tuple[str, ...]
    layers: int = 0
    own_layers: int = 0
    onnx_nodes: int = 0
    time_ms: float = math.nan
    split_ms: float = 0.0
    precisions: dict[str, int] = Field(default_factory=dict)
    children: tuple[ModuleNode, ...] = ()

    @property
    def name(self) -> str:
        """``/encoder/layers.0`` style (``/`` for the root)."""
        return "/" + "/".join(self.path)

    def walk(self) -> Iterable[ModuleNode]:
        """This node and every node below, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def find(self, path: str | Sequence[str]) -> ModuleNode:
        """The node at ``path`` (``"/encoder/layers.0"`` or a tuple).

        Raises:
            KeyError: no module has that path.
        """
        wanted = tuple(p for p in path.split("/") if p) if isinstance(path, str) else tuple(path)
        for node in self.walk():
            if node.path == wanted:
                return node
        raise KeyError(path)


def module_tree(engine: Engine) -> ModuleNode:
    """Roll the engine's layers (count, time, precision mix) up the ONNX module hierarchy.

    Each layer's time goes where :func:`layer_modules` says: its nodes' deepest common
    module, an even split of a Myelin region over its nodes' modules (``split_ms`` says how
    much of a module's time that is), a reformat with the layer it serves.
    """
    stats: dict[tuple[str, ...], dict[str, Any]] = {}
    order: list[tuple[str, ...]] = []

    def node(path: tuple[str, ...]) -> dict[str, Any]:
        if path not in stats:
            stats[path] = {
                "layers": 0,
                "own": 0,
                "nodes": set(),
                "times": [],
                "split": [],
                "precisions": Counter(),
            }
            order.append(path)
        return stats[path]

    node(())
    for layer, where in zip(engine.layers, layer_modules(engine), strict=True):
        paths = [module_path(n) for n in layer.onnx_nodes]
        precision = layer.precision.compute or next((t for t in layer.precision.outputs if t), None)
        time = layer.time.average_ms if layer.time and layer.time.known else None
        touched: dict[tuple[str, ...], None] = {}
        for path, fraction in where.shares:
            for depth in range(len(path) + 1):
                above = path[:depth]
                touched[above] = None
                if time is None:
                    continue
                entry = node(above)
                entry["times"].append(time * fraction)
                if len(above) > len(where.home):
                    entry["split"].append(time * fraction)
        for path in touched:
            entry = node(path)
            entry["layers"] += 1
            if precision:
                entry["precisions"][precision] += 1
        node(where.home)["own"] += 1
        for n, path in zip(layer.onnx_nodes, paths, strict=True):
            for depth in range(len(path) + 1):
                node(path[:depth])["nodes"].add(n)

    kids: dict[tuple[str, ...], list[tuple[str, ...]]] = defaultdict(list)
    for path in order:
        if path:
            kids[path[:-1]].append(path)

    def build(path: tuple[str, ...]) -> ModuleNode:
        entry = stats[path]
        children = kids.get(path, [])
        return ModuleNode(
            path=path,
            layers=entry["layers"],
            own_layers=entry["own"],
            onnx_nodes=len(entry["nodes"]),
            time_ms=math.fsum(entry["times"]) if entry["times"] else math.nan,
            split_ms=math.fsum(entry["split"]),
            precisions=dict(entry["precisions"]),
            children=tuple(build(c) for c in children),
        )

    return build(())
