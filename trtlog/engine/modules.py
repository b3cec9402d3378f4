"""The module tree: an engine's layers, time and precision rolled up the ONNX name hierarchy.

Part of the engine package (pydantic only). :func:`module_tree` rolls layers up the module
hierarchy of their ONNX nodes (``/encoder/layers.0/mha/...``) so a big model reads like its
source modules; :func:`layer_modules` says, per layer, where its time goes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import chain, compress, filterfalse, repeat
from operator import and_, is_not, itemgetter, not_
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from trtlog._pydantic import assemble
from trtlog.engine.model import (
    LAYER_ROW_COLUMNS,
    MYELIN_LAYER_TYPES,
    Engine,
    EngineLayer,
    compute_precision,
    total_of,
)
from trtlog.engine.myelin import names_with
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
    "ModuleFigures",
    "ModuleNode",
    "layer_modules",
    "module_figures",
    "module_of_node",
    "module_rollup",
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
    #: each layer's ``common_module`` of its own nodes, as the loader read it (``None``: not
    #: kept, the layer objects answer)
    module: list[str] | None = None


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
            column("module"),
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


# the positions of the columns serve_reformats reads in a layer row (LAYER_ROW_COLUMNS)
_ROW_MODULE, _ROW_REFORMAT = (
    LAYER_ROW_COLUMNS.index("module"),
    LAYER_ROW_COLUMNS.index("is_reformat"),
)
_ROW_NAME, _ROW_NODES = LAYER_ROW_COLUMNS.index("name"), LAYER_ROW_COLUMNS.index("onnx_nodes")


def serve_reformats(columns: list[Sequence[Any]]) -> None:
    """A reformat row's module is that of the layer it serves (its own nodes are none).

    What ``trtlog.frames.layers_frame`` does to its rows, and the report's Layers section to
    its columns.

    ``columns`` are the frame's leading columns (:data:`LAYER_ROW_COLUMNS`); the module
    column is replaced by one with the served modules.
    """
    modules: Sequence[Any] = columns[_ROW_MODULE]
    pairs = zip(columns[_ROW_REFORMAT], modules, strict=True)
    wanted = [i for i, (reformat, module) in enumerate(pairs) if reformat and module == "/"]
    if not wanted:
        return
    # name -> position of its first row (inserted last to first, so the first one stays)
    names = columns[_ROW_NAME]
    index = dict(zip(reversed(names), range(len(names) - 1, -1, -1), strict=True))
    nodes_of = columns[_ROW_NODES]
    served_modules = list(modules)
    for i in wanted:
        if nodes_of[i]:  # a reformat with ONNX nodes of its own serves no other layer
            continue
        served, nodes = served_by_name(names[i], i, index)
        if served is not None:
            home = served_modules[served]
        else:
            home = module_of_node(nodes[0]) if len(nodes) == 1 else common_module(nodes)
        served_modules[i] = home
    columns[_ROW_MODULE] = served_modules


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
    figures = module_figures(engine)
    parent, time = figures.parent, figures.time
    made: list[ModuleNode] = []
    kids: list[list[ModuleNode]] = [[] for _ in parent]
    for key, layers, own, nodes, ms, split, precisions, children in zip(
        figures.keys,
        figures.layers,
        figures.own,
        figures.nodes,
        time,
        figures.split,
        figures.precisions,
        kids,
        strict=True,
    ):
        # assembled without validation: every value is already of its field's type; the
        # children are added below, the tree's modules being made parents first
        made.append(
            assemble(
                ModuleNode,
                {
                    "path": tuple(key[1:].split("/")) if key else (),
                    "layers": layers,
                    "own_layers": own,
                    "onnx_nodes": nodes,
                    "time_ms": math.nan if ms is None else ms,
                    "split_ms": split,
                    "precisions": dict(precisions),
                    "children": children,
                },
                None,
            )
        )
    for i in range(len(made) - 1, 0, -1):  # children first, each list then in order
        kids[parent[i]].append(made[i])
    for node, children in zip(made, kids, strict=True):
        node.__dict__["children"] = tuple(reversed(children))
    return made[0]


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


# -- the module tree's figures as columns (a report's tree: tens of thousands of modules) ------


class ModuleFigures(NamedTuple):
    """:func:`module_rollup`'s figures as columns, each module's times added up.

    The modules are in :func:`module_rollup`'s order (first appearance: position 0 is the
    root), each known by its key: ``/a/b`` for the path ``("a", "b")``, ``""`` for the root.

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


def module_figures(engine: Engine) -> ModuleFigures:
    """The figures of :func:`module_tree` as columns, without a list of times per module.

    Equal to what :func:`module_rollup` gives (times added up with ``total_of``), from
    integer-coded modules (:func:`_fast_figures`) when every layer time is finite, else from
    :func:`module_rollup` itself.
    """
    cols = _columns(engine)
    fast = _fast_figures(cols)
    return fast if fast is not None else _figures_of_rollup(cols)


def _key(path: tuple[str, ...]) -> str:
    """A module's key (``/a/b``; ``""`` for the root)."""
    return "".join(["/" + p for p in path])


def _node_key(node: str) -> str:
    """The key of ``module_path(node)``."""
    if node[:1] == "/" and node[-1] != "/" and "//" not in node:  # /a/b/Op: no empty part
        return node[: node.rfind("/")]
    return _key(module_path(node))


def _node_keys(nodes: list[str]) -> list[str]:
    """:func:`_node_key` of each node: their folders, cut at C speed when all are plain."""
    n = len(nodes)
    if not n:
        return []
    joined = "\n".join(nodes)
    if (
        joined.count("\n") == n - 1  # no node holds a line break
        and joined.startswith("/")
        and joined.count("\n/") == n - 1  # every node starts with "/"
        and "//" not in joined
        and "/\n" not in joined
        and not joined.endswith("/")  # and none has an empty part
    ):
        return list(map(itemgetter(0), map(str.rpartition, nodes, repeat("/"))))
    return [_node_key(node) for node in nodes]


#: Split shares as keys: ``(module key, fraction)`` pairs.
_Shares = tuple[tuple[str, float], ...]


def _fast_homes(
    cols: _Columns, key_of: dict[str, str]
) -> tuple[list[str], dict[int, tuple[str, _Shares]]]:
    """Each layer's module key (:func:`_layer_modules`' ``home``), and the split layers.

    ``key_of`` maps every ONNX node to its module's key. Returns the homes (``"/"`` also
    stands for the root) and, by layer position, the ``(home, shares)`` of each layer whose
    time splits over several modules. Only the layers a Myelin region, kernel or merge may be
    (by type or name) and the reformats without nodes take a Python step each.
    """
    names, types, nodes = cols.name, cols.type, cols.nodes
    n_layers = len(names)
    homes = cols.module  # the loader's common_module of each layer's nodes ("/" for none)
    homes = [common_module(n) for n in nodes] if homes is None else list(homes)
    split_types = {t for t in set(types) if t == "Myelin" or t in MYELIN_LAYER_TYPES}
    maybe = set(compress(range(n_layers), map(split_types.__contains__, types)))
    maybe.update(names_with(names, ("_myl", " || ", "{ForeignNode[")))
    candidates = [i for i in sorted(maybe) if nodes[i] and _splits(types[i], names[i])]
    splits: dict[int, tuple[str, _Shares]] = {}
    paths_of = cols.paths
    folders = [set(map(key_of.__getitem__, nodes[i])) for i in candidates]
    for i, one in zip(candidates, folders, strict=True):
        if len(one) == 1:  # one module: the whole time there (what _by_nodes finds)
            homes[i] = one.pop()
            continue
        where = _by_nodes(nodes[i], True, paths_of)
        homes[i] = _key(where.home)
        if where.how == "split":
            splits[i] = (homes[i], tuple((_key(p), f) for p, f in where.shares))
    reformats = list(compress(range(n_layers), map(and_, cols.reformat, map(not_, nodes))))
    if not reformats:
        return homes, splits
    own, own_splits = list(homes), dict(splits)  # (a layer served is taken unserved)
    index = dict(zip(reversed(names), range(n_layers - 1, -1, -1), strict=True))  # name_index
    match, find = REFORMAT_NAME.match, index.get
    for i in reformats:
        name = names[i]
        found = match(name) if not name.endswith("]") else None
        if found is not None:  # served_by_name's fast path, inline (a reformat of a layer)
            target = found["target"]
            served = find(target)
            if served is None or served == i:
                if PLAIN_NAME(target) is None:
                    homes[i] = key_of.get(target) or _node_key(target)
                    continue
                served, served_nodes = served_by_name(name, i, index)
            else:
                served_nodes = ()
        else:
            served, served_nodes = served_by_name(name, i, index)
        if served is not None:
            homes[i] = own[served]
            if served in own_splits:
                splits[i] = own_splits[served]
        elif served_nodes:
            homes[i] = common_module(served_nodes)
    return homes, splits


def _fast_figures(cols: _Columns) -> ModuleFigures | None:
    """:func:`module_figures` with the modules numbered and their figures added up by numpy.

    Each distinct module path is cut once (a node's folder), each module knows its parent's
    number, and counts go up the tree level by level (``np.add.at``). A module's times are
    those of the layers below it (plus its shares of split layers): the layers sorted by
    their module's place in the tree's walk, each module's layers are one slice, and
    ``math.fsum`` of it is ``total_of`` of :func:`module_rollup`'s list (an exact sum: the
    order does not matter). ``None`` when a time is not finite or too large for that
    (``total_of`` then adds as IEEE does, in order): :func:`module_rollup` answers.
    """
    import numpy as np

    times = cols.time
    timed = [t for t in times if t is not None]
    if timed:
        values = np.array(timed, dtype=float)
        if not np.isfinite(values).all() or float(np.abs(values).max()) >= 1e300:
            return None
    precision = cols.precision
    codes = dict.fromkeys(filter(None, precision))  # (a layer with no precision counts none)
    if len(codes) > 15:  # (a mix is numbered by its precisions in order, base 16 below 2**63)
        return None
    nodes = cols.nodes
    flat_nodes = list(chain.from_iterable(nodes))
    distinct = list(dict.fromkeys(flat_nodes))
    node_keys = _node_keys(distinct)
    homes, splits = _fast_homes(cols, dict(zip(distinct, node_keys, strict=True)))
    share_keys = [k for _, shares in splits.values() for k, _ in shares]

    # every module: the keys met, then their parents up to the root (each key cut once)
    known = dict.fromkeys(chain(("",), homes, node_keys, share_keys))
    known.pop("/", None)
    fresh = list(known)[1:]
    parent_keys: list[str] = []
    tails = ["/"]  # the modules' names (the root's is "/")
    while fresh:
        cut = list(map(str.rpartition, fresh, repeat("/")))
        heads = list(map(itemgetter(0), cut))
        parent_keys += heads
        tails += map(itemgetter(2), cut)
        fresh = list(filterfalse(known.__contains__, dict.fromkeys(heads)))
        known.update(dict.fromkeys(fresh))
    keys = list(known)  # (the root, then each batch of parents in the order cut above)
    m = len(keys)
    ids = dict(zip(keys, range(m), strict=True))
    ids["/"] = 0
    parent = np.zeros(m, dtype=np.int64)
    parent[1:] = list(map(ids.__getitem__, parent_keys))
    depth = np.zeros(m, dtype=np.int64)
    above = parent
    while True:  # each module's depth: the steps up to the root
        deeper = above != 0
        if not deeper.any():
            break
        depth += deeper
        above = parent[above]
    depth[1:] += 1
    levels = [np.flatnonzero(depth == d) for d in range(int(depth.max()) + 1)]
    n_layers = len(homes)
    home = np.fromiter(map(ids.__getitem__, homes), np.int64, n_layers)
    whole = np.ones(n_layers, dtype=bool)
    whole[list(splits)] = False
    node_of = np.fromiter(map(ids.__getitem__, node_keys), np.int64, len(node_keys))

    # first appearance: layer i touches its module(s), then its nodes' modules (in order)
    lengths = np.fromiter(map(len, nodes), np.int64, n_layers)
    width = int(lengths.max(initial=0)) + max((len(s) for _, s in splits.values()), default=1)
    big = np.iinfo(np.int64).max
    first = np.full(m, big, dtype=np.int64)
    np.minimum.at(first, home[whole], np.arange(n_layers, dtype=np.int64)[whole] * width)
    for i, (_, shares) in splits.items():
        for j, (k, _) in enumerate(shares):
            first[ids[k]] = min(first[ids[k]], i * width + j)
    if flat_nodes:
        if len(flat_nodes) == len(distinct):  # each node in one layer: they are in order
            flat = node_of
        else:
            slot = dict(zip(distinct, range(len(distinct)), strict=True))
            flat = node_of[np.fromiter(map(slot.__getitem__, flat_nodes), np.int64)]
        owner = np.repeat(np.arange(n_layers, dtype=np.int64), lengths)
        offset = np.arange(len(flat), dtype=np.int64) - (np.cumsum(lengths) - lengths)[owner]
        touches = np.ones(n_layers, dtype=np.int64)
        for i, (_, shares) in splits.items():
            touches[i] = len(shares)
        np.minimum.at(first, flat, owner * width + touches[owner] + offset)
    first[0] = -1
    for level in reversed(levels[1:]):
        np.minimum.at(first, parent[level], first[level])
    order = np.lexsort((depth, first))  # the order module_rollup makes them in
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)

    # from here on, the modules are numbered in that order
    parent = rank[parent[order]]
    depth = depth[order]
    levels = [rank[level] for level in levels]
    home = rank[home]
    node_of = rank[node_of]
    back = order.tolist()
    keys = list(map(keys.__getitem__, back))
    tails = list(map(tails.__getitem__, back))
    ids = dict(zip(keys, range(m), strict=True))
    ids["/"] = 0

    # the walk: each module's ancestors, root first, compared in turn
    lines = np.full((len(levels), m), -1, dtype=np.int64)
    above = np.arange(m)
    everyone = np.arange(m)
    for steps in range(len(levels)):
        deep = depth >= steps
        lines[depth[deep] - steps, everyone[deep]] = above[deep]
        above = parent[above]
    walk = np.lexsort(lines[::-1])
    pre = np.empty(m, dtype=np.int64)
    pre[walk] = np.arange(m)

    def up(values: Any, add: bool = True) -> Any:
        """Per-module values summed (or their minimum taken) over each module's subtree."""
        for level in reversed(levels[1:]):
            if add:
                np.add.at(values, parent[level], values[level])
            else:
                np.minimum.at(values, parent[level], values[level])
        return values

    def chain_of(key: str) -> list[int]:
        """The numbers of the modules from the root down to ``key``."""
        out = [ids[key]]
        while key:
            key = key.rpartition("/")[0]
            out.append(ids[key])
        return out[::-1]

    own = np.bincount(home, minlength=m)
    layers = up(np.bincount(home[whole], minlength=m))
    onnx = up(np.bincount(node_of, minlength=m))

    # precisions: per precision, layers below and the first of them
    code_of: dict[str | None, int] = dict(zip(codes, range(len(codes)), strict=True))
    code = np.fromiter(map(code_of.get, precision, repeat(-1)), np.int64, n_layers)
    counts = np.zeros((len(codes), m), dtype=np.int64)
    firsts = np.full((len(codes), m), big, dtype=np.int64)
    positions = np.arange(n_layers, dtype=np.int64)
    for c in range(len(codes)):
        mine = whole & (code == c)
        counts[c] = up(np.bincount(home[mine], minlength=m))
        np.minimum.at(firsts[c], home[mine], positions[mine])
        up(firsts[c], add=False)

    # split layers, one by one (their modules count them once, whatever their shares)
    extra_times: dict[int, list[float]] = {}
    extra_split: dict[int, list[float]] = {}
    for i, (home_key, shares) in splits.items():
        time = times[i]
        home_depth = home_key.count("/")
        touched: dict[int, None] = {}
        for k, fraction in shares:
            for d, at in enumerate(chain_of(k)):
                touched[at] = None
                if time is None:
                    continue
                extra_times.setdefault(at, []).append(time * fraction)
                if d > home_depth:
                    extra_split.setdefault(at, []).append(time * fraction)
        at_list = list(touched)
        layers[at_list] += 1
        c = int(code[i])
        if c >= 0:
            counts[c, at_list] += 1
            firsts[c, at_list] = np.minimum(firsts[c, at_list], i)

    # times: the whole layers sorted by their module's place in the walk, a slice per module
    has_time = whole & np.fromiter(map(is_not, times, repeat(None)), bool, n_layers)
    which = np.flatnonzero(has_time)
    where = pre[home[which]]
    by_walk = np.argsort(where, kind="stable")
    sorted_at = where[by_walk]
    sorted_values = [times[i] * 1.0 for i in which[by_walk].tolist()]
    size = up(np.ones(m, dtype=np.int64))
    lo = np.searchsorted(sorted_at, pre)
    hi = np.searchsorted(sorted_at, pre + size)
    total = np.full(m, None, dtype=object)
    one = np.flatnonzero(hi - lo == 1)  # fsum([x]) is x + 0.0 (-0.0 becomes 0.0)
    total[one] = (np.array(sorted_values, dtype=float)[lo[one]] + 0.0).tolist()
    fsum = math.fsum
    many = np.flatnonzero(hi - lo > 1)
    for at, a, b in zip(many.tolist(), lo[many].tolist(), hi[many].tolist(), strict=True):
        total[at] = fsum(sorted_values[a:b])
    for at, extra in extra_times.items():
        total[at] = fsum(sorted_values[int(lo[at]) : int(hi[at])] + extra)
    split_total = [0.0] * m
    for at, extra in extra_split.items():
        split_total[at] = fsum(extra)

    # the precision mixes, grouped by the precisions a module has (in the order first met)
    mixes: list[dict[str, int]] = [{} for _ in range(m)]
    if codes:
        names = list(codes)
        present = counts > 0
        by_first = np.argsort(np.where(present, firsts, big), axis=0, kind="stable")
        present_sorted = np.take_along_axis(present, by_first, axis=0)
        base = len(codes) + 1
        signature = np.zeros(m, dtype=np.int64)
        for j in range(len(codes)):
            signature = signature * base + np.where(present_sorted[j], by_first[j] + 1, 0)
        groups, inverse = np.unique(signature, return_inverse=True)
        inverse = inverse.ravel()
        for g, sig in enumerate(groups.tolist()):
            if not sig:
                continue
            digits = []
            while sig:
                sig, d = divmod(sig, base)
                digits.append(d)
            wanted = [d - 1 for d in reversed(digits) if d]
            members = np.flatnonzero(inverse == g)
            labels = [names[c] for c in wanted]
            if len(wanted) == 1:  # (most modules: one precision)
                label = labels[0]
                column = counts[wanted[0]][members].tolist()
                for at, count in zip(members.tolist(), column, strict=True):
                    mixes[at] = {label: count}
                continue
            rows = zip(*[counts[c][members].tolist() for c in wanted], strict=True)
            for at, row in zip(members.tolist(), rows, strict=True):
                mixes[at] = dict(zip(labels, row, strict=True))

    parent_list = parent.tolist()
    parent_list[0] = -1
    return ModuleFigures(
        keys,
        tails,
        parent_list,
        walk.tolist(),
        layers.tolist(),
        own.tolist(),
        onnx.tolist(),
        total.tolist(),
        split_total,
        mixes,
    )


def _figures_of_rollup(cols: _Columns) -> ModuleFigures:
    """:class:`ModuleFigures` of :func:`module_rollup`'s dictionaries (the general path)."""
    stats = _rollup(cols, _layer_modules(cols))
    paths = list(stats)
    at = {path: i for i, path in enumerate(paths)}
    kids: dict[int, list[int]] = defaultdict(list)
    for i, path in enumerate(paths):
        if path:
            kids[at[path[:-1]]].append(i)
    walk: list[int] = []
    stack = [0]
    while stack:
        i = stack.pop()
        walk.append(i)
        stack.extend(reversed(kids.get(i, ())))
    entries = list(stats.values())
    return ModuleFigures(
        [_key(p) for p in paths],
        [p[-1] if p else "/" for p in paths],
        [at[p[:-1]] if p else -1 for p in paths],
        walk,
        [e[0] for e in entries],
        [e[1] for e in entries],
        [e[2] for e in entries],
        [total_of(e[3]) if e[3] else None for e in entries],
        [total_of(e[4]) for e in entries],
        [e[5] for e in entries],
    )
