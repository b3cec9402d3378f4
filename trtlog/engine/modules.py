"""The module tree: an engine's layers, time and precision rolled up the ONNX name hierarchy.

Part of the engine package (pydantic only). :func:`module_tree` rolls layers up the module
hierarchy of their ONNX nodes (``/encoder/layers.0/mha/...``) so a big model reads like its
source modules; :func:`layer_modules` says, per layer, where its time goes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from trtlog._pydantic import assemble
from trtlog.engine.model import (
    MYELIN_LAYER_TYPES,
    Engine,
    EngineLayer,
    is_reformat_layer,
    layer_precision,
    total_of,
)
from trtlog.engine.rows import module_of_node, serve_reformats, served_by_name
from trtlog.names import (
    MODULE_DEPTH,
    common_path,
    module_path,
    parse_kernel_name,
    placed_nodes,
    split_name,
)

__all__ = [
    "Attribution",
    "LayerModules",
    "ModuleFigures",
    "ModuleNode",
    "layer_modules",
    "module_figures",
    "module_of_node",
    "module_tree",
    "name_index",
    "serve_reformats",
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

    model_config = ConfigDict(frozen=True, defer_build=True)

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
    """What the module tree reads of each layer, in layer order."""

    layer_index: list[int]
    name: list[str]
    type: list[str | None]
    nodes: list[tuple[str, ...]]
    reformat: list[bool]
    precision: list[str | None]
    time: list[float | None]  # the profile's average ms, None when it has none
    #: ONNX node → module path (:func:`_path_of`), filled as nodes are met
    paths: dict[str, tuple[str, ...]]


def _columns(engine: Engine, made: Mapping[str, Sequence[Any]] | None = None) -> _Columns:
    """The layers' :class:`_Columns`, read from the layer objects.

    ``made``: the engine's :func:`~trtlog.engine.rows.layer_columns`, when made already
    (the same values: its index, name, type, ONNX nodes, reformat flag and precision, and
    its time with NaN for none).
    """
    if made is not None:
        return _Columns(
            list(made["index"]),
            list(made["name"]),
            list(made["type"]),
            list(made["onnx_nodes"]),
            list(made["is_reformat"]),
            list(made["precision"]),
            [None if ms != ms else ms for ms in made["time_ms"]],
            {},
        )
    fields = [layer.__dict__ for layer in engine.layers]  # (no attribute lookup each)
    names = [d["name"] for d in fields]
    types = [d["type"] for d in fields]
    # the layer's precision (LayerPrecision.precision) without making the LayerPrecision model
    precisions = [
        layer_precision(d["tactic_name"], d["parameters"], d["inputs"], d["outputs"])
        for d in fields
    ]
    times: list[float | None] = []
    for d in fields:
        time = d["time"]
        ms = None if time is None else time.average_ms
        times.append(None if ms is None or ms != ms else ms)  # (NaN: LayerTime.known)
    return _Columns(
        [d["index"] for d in fields],
        names,
        types,
        [d["onnx_nodes"] for d in fields],
        list(map(is_reformat_layer, types, names)),
        precisions,
        times,
        {},
    )


#: Where a layer's time goes, before it is a :class:`LayerModules`: its fields in order
#: (``home``, ``shares``, ``how``, ``served``).
_Where = tuple[tuple[str, ...], tuple[tuple[tuple[str, ...], float], ...], Attribution, int | None]

#: A layer with no ONNX node (its defaults: the root).
_AT_ROOT: _Where = ((), (((), 1.0),), "none", None)


def _by_nodes(
    nodes: Sequence[str],
    region: bool,
    paths_of: dict[str, tuple[str, ...]] | None = None,
    homes: dict[tuple[str, ...], _Where] | None = None,
) -> _Where:
    """Where a layer with ONNX ``nodes`` goes (see :func:`layer_modules`).

    ``homes``: the ``nodes`` attributions made so far, by home (the layers of one module
    share one).
    """
    if not nodes:
        return _AT_ROOT
    if len(nodes) == 1:  # (most layers: one node, one module)
        node = nodes[0]
        home = (
            module_path(node)
            if paths_of is None
            else paths_of.get(node) or _path_of(node, paths_of)
        )
    else:
        placed = placed_nodes(nodes)
        if paths_of is None:
            paths = [module_path(n) for n in placed]
        else:
            get = paths_of.get
            paths = [get(n) or _path_of(n, paths_of) for n in placed]
        home = paths[0]
        if paths.count(home) != len(paths):  # (tuples equal by value: one module)
            home = common_path(paths)
            if region:
                weight = 1.0 / len(paths)
                shares: dict[tuple[str, ...], float] = {}
                for p in paths:
                    shares[p] = shares.get(p, 0.0) + weight
                return home, tuple(shares.items()), "split", None
    if homes is None:
        return home, ((home, 1.0),), "nodes", None
    found = homes.get(home)
    if found is None:
        found = homes[home] = (home, ((home, 1.0),), "nodes", None)
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
    made: dict[int, LayerModules] = {}  # (one model per attribution: the layers share them)
    out = []
    for where in _layer_modules(_columns(engine)):
        found = made.get(id(where))
        if found is None:
            found = made[id(where)] = _model(where)
        out.append(found)
    return tuple(out)


def _model(where: _Where) -> LayerModules:
    """The :class:`LayerModules` of an attribution (the root's: every field its default)."""
    if where is _AT_ROOT:
        return _ROOT_MODEL
    # assembled without validation: the values are typed (a fresh set of the fields given,
    # as validation makes: model_copy updates it)
    home, shares, how, served = where
    data = {"home": home, "shares": shares, "how": how, "served": served}
    given = {"home", "shares", "how", "served"} if how == "served" else {"home", "shares", "how"}
    return assemble(LayerModules, data, None, given)


#: A layer with no ONNX node (frozen, so one instance serves every such layer): every field
#: its default, none set.
_ROOT_MODEL = assemble(
    LayerModules, {"home": (), "shares": (((), 1.0),), "how": "none", "served": None}, None, set()
)


def _layer_modules(cols: _Columns) -> list[_Where]:
    """Where each layer goes (:func:`layer_modules`), as :data:`_Where` values."""
    names, nodes = cols.name, cols.nodes
    paths_of = cols.paths
    homes: dict[tuple[str, ...], _Where] = {}
    # (one node is in one module: whether the layer would split does not matter)
    own = [
        _by_nodes(n, len(n) > 1 and _splits(t, name), paths_of, homes) if n else _AT_ROOT
        for n, t, name in zip(nodes, cols.type, names, strict=True)
    ]
    reformats = [i for i, r in enumerate(cols.reformat) if r and not nodes[i]]
    if not reformats:
        return own
    index: dict[str, int] = {}  # name_index
    for i, name in enumerate(names):
        index.setdefault(name, i)
    out = list(own)
    for i in reformats:  # served_layer: a reformat without nodes of its own serves a layer
        served, served_nodes = served_by_name(names[i], i, index)
        found = own[served] if served is not None else _by_nodes(served_nodes, False)
        if found[2] != "none":
            at = None if served is None else cols.layer_index[served]
            out[i] = (found[0], found[1], "served", at)
    return out


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

    model_config = ConfigDict(frozen=True, defer_build=True, ser_json_inf_nan="constants")

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
    figures = module_figures(engine)
    parent = figures.parent
    kids: list[list[ModuleNode]] = [[] for _ in parent]
    node: ModuleNode | None = None
    # children first (a module comes after its parent): each is made with its children, and
    # assembled without validation (every value is already of its field's type)
    for i in range(len(parent) - 1, -1, -1):
        key, ms = figures.keys[i], figures.time[i]
        data = {
            "path": tuple(key[1:].split("/")) if key else (),
            "layers": figures.layers[i],
            "own_layers": figures.own[i],
            "onnx_nodes": figures.nodes[i],
            "time_ms": math.nan if ms is None else ms,
            "split_ms": figures.split[i],
            "precisions": dict(figures.precisions[i]),
            "children": tuple(reversed(kids[i])),
        }
        node = assemble(ModuleNode, data, None)
        if i:
            kids[parent[i]].append(node)
    assert node is not None  # (the root: there is always one)
    return node


#: One module's figures as they are added up: layers, own layers, ONNX nodes, the times (ms)
#: and the split times to add up, and the layers per precision.
ModuleStats = list[Any]


def _path_of(node: str, paths_of: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """``module_path(node)``, kept in ``paths_of``."""
    if (  # /a/b/Op: no empty part, no deeper than module_path keeps
        node[:1] == "/"
        and node[-1] != "/"
        and "//" not in node
        and node.count("/") <= MODULE_DEPTH + 1
    ):
        path = tuple(node[1:].split("/")[:-1])
    else:
        path = module_path(node)
    paths_of[node] = path
    return path


def _rollup(cols: _Columns, wheres: list[_Where]) -> dict[tuple[str, ...], ModuleStats]:
    """The module tree's figures, layer by layer (each module's times in layer order).

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
        home, shares = where[0], where[1]
        if len(shares) == 1 and shares[0][1] == 1.0 and shares[0][0] == home:
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
            home_depth = len(home)
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
            node(home)[1] += 1
        for n in nodes:
            if n in counted:  # its modules exist and count it already
                continue
            counted.add(n)
            for entry in above(paths_of.get(n) or _path_of(n, paths_of)):
                entry[2] += 1
    return stats


# -- the module tree's figures as columns (a report's tree: thousands of modules) -------------


class ModuleFigures(NamedTuple):
    """The module tree's figures as columns, each module's times added up.

    The modules are in first-appearance order (position 0 is the root), each known by its
    key: ``/a/b`` for the path ``("a", "b")``, ``""`` for the root.

    Attributes:
        keys: the modules' keys.
        names: their names (the last part of the path; ``/`` for the root).
        parent: each module's parent's position (``-1`` for the root).
        preorder: the positions depth first, children in order (the tree's walk).
        layers: engine layers in the module and below (:attr:`ModuleNode.layers`).
        own: layers whose module is exactly this one.
        nodes: ONNX nodes in the module and below.
        time: ``total_of`` of the module's times, ``None`` when no layer below has a time.
        split: ``total_of`` of the module's split times.
        precisions: layers per precision, in the order first met.
    """

    keys: list[str]
    names: list[str]
    parent: list[int]
    preorder: list[int]
    layers: list[int]
    own: list[int]
    nodes: list[int]
    time: list[float | None]
    split: list[float]
    precisions: list[dict[str, int]]


def module_figures(
    engine: Engine, columns: Mapping[str, Sequence[Any]] | None = None
) -> ModuleFigures:
    """The figures of :func:`module_tree` as columns (a report's tree, without its models).

    ``columns``: the engine's :func:`~trtlog.engine.rows.layer_columns`, when made already.
    """
    cols = _columns(engine, columns)
    stats = _rollup(cols, _layer_modules(cols))
    paths = list(stats)  # (the root first, then each module after its parent)
    at = {path: i for i, path in enumerate(paths)}
    parent = [-1, *(at[p[:-1]] for p in paths[1:])]
    names = ["/", *(p[-1] for p in paths[1:])]
    keys = [""] * len(paths)
    kids: list[list[int]] = [[] for _ in paths]
    for i in range(1, len(paths)):
        up = parent[i]
        keys[i] = f"{keys[up]}/{names[i]}"
        kids[up].append(i)
    walk: list[int] = []
    stack = [0]
    while stack:
        i = stack.pop()
        walk.append(i)
        stack.extend(reversed(kids[i]))
    entries = list(stats.values())
    return ModuleFigures(
        keys,
        names,
        parent,
        walk,
        [e[0] for e in entries],
        [e[1] for e in entries],
        [e[2] for e in entries],
        [total_of(e[3]) if e[3] else None for e in entries],
        [total_of(e[4]) for e in entries],
        [e[5] for e in entries],
    )
