"""The module tree: an engine's layers, time and precision rolled up the ONNX name hierarchy.

Part of the engine package (pydantic only). :func:`module_tree` rolls layers up the module
hierarchy of their ONNX nodes (``/encoder/layers.0/mha/...``) so a big model reads like its
source modules; :func:`layer_modules` says, per layer, where its time goes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from trtlog._pydantic import assemble
from trtlog.engine.model import (
    MYELIN_LAYER_TYPES,
    Engine,
    EngineLayer,
    compute_precision,
    total_of,
)
from trtlog.names import (
    _DECORATED,
    _REFORMAT,
    common_module,
    common_path,
    module_path,
    parse_kernel_name,
    placed_nodes,
    split_name,
)

# the expressions split_name uses: a reformat's target, and a name it leaves whole
REFORMAT_NAME = _REFORMAT
PLAIN_NAME = _DECORATED.search

__all__ = [
    "Attribution",
    "LayerModules",
    "ModuleNode",
    "layer_modules",
    "module_of_node",
    "module_rollup",
    "module_tree",
    "name_index",
    "served_by_name",
    "served_layer",
]


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


def _splits(layer_type: str | None, name: str) -> bool:
    """Whether a layer's time splits over its nodes' modules (:func:`layer_modules`)."""
    return (
        layer_type == "Myelin"
        or name.startswith("{ForeignNode[")
        or parse_kernel_name(name) is not None  # EngineLayer.is_myelin_kernel
        or (layer_type in MYELIN_LAYER_TYPES and layer_type != "Myelin")
        or (" || " in name and split_name(name).op == "merge")
    )


class _Columns(NamedTuple):
    """What the module tree reads of each layer, in layer order (no layer object needed)."""

    layer_index: list[int]
    name: list[str]
    type: list[str | None]
    nodes: list[tuple[str, ...]]
    reformat: list[bool]
    precision: list[str | None]
    time: list[float | None]  # the profile's average ms, None when it has none
    #: ONNX node → module path (:func:`_path_of`), filled as nodes are met
    paths: dict[str, tuple[str, ...]]


def _columns(engine: Engine) -> _Columns:
    """The layers' :class:`_Columns` (without layer objects when the loader kept them).

    The values the loader read straight from the JSON (:meth:`Engine.layer_table`, those of
    the layers frame), else the layer objects'.
    """
    table = engine.layer_table()
    if table is not None:
        column = table.column
        return _Columns(
            column("index"),
            column("name"),
            column("type"),
            column("onnx_nodes"),
            column("is_reformat"),
            column("precision"),
            table.average_ms(),
            {},
        )
    layers = engine.layers
    return _Columns(
        [lay.index for lay in layers],
        [lay.name for lay in layers],
        [lay.type for lay in layers],
        [lay.onnx_nodes for lay in layers],
        [lay.is_reformat for lay in layers],
        # the layer's precision (LayerPrecision.compute, else its first output type) without
        # making the LayerPrecision model
        [
            compute_precision(lay) or next((t.dtype for t in lay.outputs if t.dtype), None)
            for lay in layers
        ],
        [lay.time.average_ms if lay.time and lay.time.known else None for lay in layers],
        {},
    )


#: A layer with no ONNX node (frozen, so one instance serves every such layer).
_AT_ROOT = LayerModules()


def _attribution(
    home: tuple[str, ...],
    shares: tuple[tuple[tuple[str, ...], float], ...],
    how: Attribution,
    served: int | None = None,
) -> LayerModules:
    # assembled without validation (tens of thousands per engine): the values are typed here
    # (a fresh set of the fields given, as validation makes: model_copy updates it)
    data = {"home": home, "shares": shares, "how": how, "served": served}
    given = {"home", "shares", "how", "served"} if how == "served" else {"home", "shares", "how"}
    return assemble(LayerModules, data, None, given)


def _by_nodes(
    nodes: Sequence[str],
    region: bool,
    paths_of: dict[str, tuple[str, ...]] | None = None,
    homes: dict[tuple[str, ...], LayerModules] | None = None,
) -> LayerModules:
    """Where a layer with ONNX ``nodes`` goes (see :func:`layer_modules`).

    ``homes``: the ``nodes`` attributions made so far, by home (frozen models: the layers
    of one module share one).
    """
    if not nodes:
        return _AT_ROOT
    placed = placed_nodes(nodes)
    if paths_of is None:
        paths = [module_path(n) for n in placed]
    else:
        get = paths_of.get
        paths = [get(n) or _path_of(n, paths_of) for n in placed]
    first = paths[0]
    if paths.count(first) == len(paths):  # (tuples equal by value: one module)
        home = first
    else:
        home = common_path(paths)
        if region:
            weight = 1.0 / len(paths)
            shares: dict[tuple[str, ...], float] = {}
            for p in paths:
                shares[p] = shares.get(p, 0.0) + weight
            return _attribution(home, tuple(shares.items()), "split")
    if homes is None:
        return _attribution(home, ((home, 1.0),), "nodes")
    found = homes.get(home)
    if found is None:
        found = homes[home] = _attribution(home, ((home, 1.0),), "nodes")
    return found


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
    return served_by_name(layer.name, position, index)


def served_by_name(
    name: str, position: int, index: dict[str, int]
) -> tuple[int | None, tuple[str, ...]]:
    """:func:`served_layer` of a reformat layer (no ONNX node of its own) known by its name."""
    if not name.endswith("]"):  # fast path: the target's name as split_name cuts it out
        m = REFORMAT_NAME.match(name)
        if m is not None:
            target = m["target"]
            served = index.get(target)
            if served is not None and served != position:
                return served, ()
            if PLAIN_NAME(target) is None:  # a plain name: it is its only member
                return None, (target,)
    parts = split_name(name)
    suffix = ""
    if parts.op == "profile" and parts.parts:
        suffix = name[len(parts.parts[0].text) :]
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
        >>> from trtlog.engine import EngineLayer
        >>> eng = Engine(source="x", origin="layer_json", detailed=False, layers=(
        ...     EngineLayer(index=0, name="Reformatting CopyNode for Input Tensor 0 to /a/Conv"),
        ...     EngineLayer(index=1, name="/a/Conv", onnx_nodes=("a.weight", "/a/Conv"))))
        >>> [(m.home, m.how) for m in layer_modules(eng)]
        [(('a',), 'served'), (('a',), 'nodes')]
    """
    return _layer_modules(_columns(engine))


def _layer_modules(cols: _Columns) -> tuple[LayerModules, ...]:
    names, nodes = cols.name, cols.nodes
    paths_of = cols.paths
    homes: dict[tuple[str, ...], LayerModules] = {}
    own = [
        _by_nodes(n, _splits(t, name), paths_of, homes) if n else _AT_ROOT
        for n, t, name in zip(nodes, cols.type, names, strict=True)
    ]
    index: dict[str, int] = {}  # name_index
    for i, name in enumerate(names):
        index.setdefault(name, i)
    out = []
    for i, mine in enumerate(own):
        if nodes[i] or not cols.reformat[i]:  # served_layer: no layer served
            out.append(mine)
            continue
        served, served_nodes = served_by_name(names[i], i, index)
        found = own[served] if served is not None else _by_nodes(served_nodes, False)
        if found.how == "none":
            out.append(mine)
            continue
        out.append(
            _attribution(
                found.home,
                found.shares,
                "served",
                None if served is None else cols.layer_index[served],
            )
        )
    return tuple(out)


def module_of_node(node: str) -> str:
    """``common_module([node])``, without building a list (a large engine asks 20,000 times).

    Example:
        >>> module_of_node("/enc/l0/attn/MatMul"), module_of_node("conv1")
        ('/enc/l0/attn', '/')
    """
    if node.startswith("/") and "//" not in node and "\n" not in node and node[-1] != "/":
        return node[: node.rfind("/")] or "/"
    return common_module((node,))


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
    stats, kids = module_rollup(engine)

    def build(path: tuple[str, ...]) -> ModuleNode:
        layers, own, nodes, times, split, precisions = stats[path]
        # assembled without validation: every value above is already of its field's type
        return assemble(
            ModuleNode,
            {
                "path": path,
                "layers": layers,
                "own_layers": own,
                "onnx_nodes": nodes,
                "time_ms": total_of(times) if times else math.nan,
                "split_ms": total_of(split),
                "precisions": dict(precisions),
                "children": tuple(build(c) for c in kids.get(path, ())),
            },
            None,
        )

    return build(())


#: One module of :func:`module_rollup`: layers, own layers, ONNX nodes, the times (ms) and the
#: split times to add up, and the layers per precision.
ModuleStats = list[Any]


def module_rollup(
    engine: Engine,
) -> tuple[dict[tuple[str, ...], ModuleStats], dict[tuple[str, ...], list[tuple[str, ...]]]]:
    """The figures of :func:`module_tree` before they become models (a report's tree).

    Returns every module's :data:`ModuleStats` by path, in first-appearance order, and each
    module's children (paths, in that order).
    """
    cols = _columns(engine)
    stats = _rollup(cols, _layer_modules(cols))
    kids: dict[tuple[str, ...], list[tuple[str, ...]]] = defaultdict(list)
    for path in stats:
        if path:
            kids[path[:-1]].append(path)
    return stats, kids


def _path_of(node: str, paths_of: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """``module_path(node)``, kept in ``paths_of``."""
    if node[:1] == "/" and node[-1] != "/" and "//" not in node:  # /a/b/Op: no empty part
        path = tuple(node[1:].split("/")[:-1])
    else:
        path = module_path(node)
    paths_of[node] = path
    return path


def _rollup(cols: _Columns, wheres: tuple[LayerModules, ...]) -> dict[tuple[str, ...], ModuleStats]:
    """:func:`module_rollup`'s figures, layer by layer (each module's times in layer order).

    The modules are made in the order the walk meets them (the tree's order). A layer whose
    time goes to one module (all but split ones) adds to each module above it through the
    list of their entries, made once per module path.
    """
    stats: dict[tuple[str, ...], ModuleStats] = {}
    entries: dict[tuple[str, ...], list[ModuleStats]] = {}

    def above(path: tuple[str, ...]) -> list[ModuleStats]:
        """The entries of the modules from the root down to ``path`` (made root first)."""
        found = entries.get(path)
        if found is None:
            found = entries[path] = [*above(path[:-1]), node(path)] if path else [node(path)]
        return found

    def node(path: tuple[str, ...]) -> ModuleStats:
        entry = stats.get(path)
        if entry is None:
            entry = stats[path] = [0, 0, 0, [], [], {}]
        return entry

    node(())
    counted: set[str] = set()  # ONNX nodes counted (a node is in one module, whatever layer)
    paths_of = cols.paths
    for where, time, precision, nodes in zip(
        wheres, cols.time, cols.precision, cols.nodes, strict=True
    ):
        shares = where.shares
        if len(shares) == 1 and shares[0][1] == 1.0 and shares[0][0] == where.home:
            # the whole time at home (no split below it)
            chain = above(shares[0][0])
            for entry in chain:
                entry[0] += 1
                if time is not None:
                    entry[3].append(time * 1.0)
                if precision:
                    mix = entry[5]
                    mix[precision] = mix.get(precision, 0) + 1
            chain[-1][1] += 1
        else:
            home_depth = len(where.home)
            touched: dict[int, ModuleStats] = {}
            for path, fraction in shares:
                for depth, entry in enumerate(above(path)):
                    touched[id(entry)] = entry
                    if time is None:
                        continue
                    entry[3].append(time * fraction)
                    if depth > home_depth:
                        entry[4].append(time * fraction)
            for entry in touched.values():
                entry[0] += 1
                if precision:
                    mix = entry[5]
                    mix[precision] = mix.get(precision, 0) + 1
            node(where.home)[1] += 1
        for n in nodes:
            if n in counted:  # its modules exist and count it already
                continue
            counted.add(n)
            for entry in above(paths_of.get(n) or _path_of(n, paths_of)):
                entry[2] += 1
    return stats
