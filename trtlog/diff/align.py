"""Aligning two engines' layers by the ONNX nodes they hold.

Part of the view package :mod:`trtlog.diff` (pydantic only). Each layer gets a signature
(its ONNX nodes without clone and profile suffixes, Q/DQ and weight names apart, reformat
target, type, precision, output shape); the alignment is the edit distance over the two layer
sequences with a substitution cost from those signatures, solved exactly as a maximum-weight
increasing chain over the candidate pairs that share a node, a name or a reformat target
(O(K log n), no quadratic table), then completed in the gaps between sure pairs (reformats,
layers without nodes, Myelin regions against kernels), with reordered layers and the pieces of
a layer that became several.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from trtlog._pydantic import assemble, gc_paused
from trtlog.diff.models import (
    Comparison,
    FusionGroup,
    GroupKind,
    LayerView,
    Marker,
    MatchKind,
    NodeSource,
    SideInfo,
    Step,
)
from trtlog.diff.structure import (
    fingerprint,
    geometry,
    graph_places,
    is_transparent,
    judge_model,
    op_class,
    op_kinds,
)
from trtlog.engine.model import MYELIN_LAYER_TYPES, Engine, EngineLayer, layer_precision
from trtlog.names import (
    common_module,
    is_qdq_node,
    is_weights_name,
    normalize_name,
    onnx_nodes_of_name,
    split_name,
)
from trtlog.tensors import dims_text

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = ["compare_engines", "has_passes", "side_of_engine"]


# -- layer signatures ----------------------------------------------------------------------

_MAX_HOLDERS = 64  # a key held by more layers identifies none of them
_MAX_WEAK = 20000  # weak candidate pairs per bucket and gap


@dataclass(slots=True, eq=False)
class _Sig:
    """What identifies one layer across builds (internal to the alignment)."""

    index: int
    name: str
    norm: str
    nodes: tuple[str, ...]
    main: frozenset[str]
    aux: frozenset[str]
    target: frozenset[str]
    weight_qdq: frozenset[str]
    type: str | None
    compute: str | None
    out_dtype: str | None
    label: str | None
    shape: tuple[int, ...] | None
    layout: str | None
    tactic: int | None
    tactic_name: str | None
    reformat: bool
    qdq: bool
    myelin: Literal["region", "kernel"] | None
    graph: int | None
    body: str | None
    module: str
    time: float | None
    op: str | None = None
    kind_nodes: tuple[str, ...] = ()
    parameters: dict[str, Any] = field(default_factory=dict)
    fused: tuple[str, ...] | None = None  # op_kinds, made when first asked (_kinds)
    geometry: tuple[object, ...] | None = None
    preds: tuple[int, ...] = ()
    succs: tuple[int, ...] = ()
    rank: float = 0.0


def _kinds(s: _Sig) -> tuple[str, ...]:
    """The ONNX op types the layer fused (:func:`op_kinds`), made once when first asked."""
    if s.fused is None:
        s.fused = op_kinds(s.kind_nodes, s.parameters)
    return s.fused


def _quantized(node: str) -> str:
    """A Q/DQ node stands for the module it quantizes (its ``*_quantizer`` part dropped).

    Example:
        >>> _quantized("/m/conv/_input_quantizer/QuantizeLinear")
        '/m/conv/QuantizeLinear'
    """
    parts = node.split("/")
    if len(parts) > 2 and parts[-2].endswith("quantizer"):
        del parts[-2]
    return "/".join(parts)


# names that 10.x Myelin kernels carry instead of ONNX nodes
_NOT_NODES = ("__myl_", "__mye", "dummy_shape_call")


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(normalize_name(n) for n in names if not n.startswith(_NOT_NODES)))


def _signature(layer: EngineLayer, source: NodeSource) -> _Sig:
    name = layer.name
    parts = split_name(name)
    kernel = layer.myelin
    if layer.onnx_source in ("name", "range"):
        named: tuple[str, ...] = layer.onnx_nodes
    elif kernel is not None and (kernel.generated or kernel.body.startswith(("__", "dummy_"))):
        named = ()  # generated kernel names list ops, not nodes
    else:
        named = onnx_nodes_of_name(name)[0]
    if source == "metadata" and layer.onnx_nodes:
        nodes = _unique(layer.onnx_nodes)
    else:  # nodes from the name on both sides, so that they compare alike
        nodes = _unique(named or layer.onnx_nodes)
    keys = set(nodes)
    keys.update(_unique(layer.onnx_nodes))
    keys.update(_unique(named))
    if kernel is not None and kernel.generated:  # its ops identify it across builds
        keys.add(kernel.body)
    aux = frozenset(k for k in keys if is_weights_name(k) or is_qdq_node(k))
    main = frozenset(keys) - aux
    target: frozenset[str] = frozenset()
    if parts.op == "reformat" and parts.target is not None:
        target = frozenset(normalize_name(n) for n in parts.target.members())
    members = parts.members()
    weight_qdq = {k for k in aux if is_qdq_node(k) and "weight" in k.lower()}
    for before, node in itertools.pairwise(members):
        if is_qdq_node(node) and is_weights_name(before):
            weight_qdq.add(normalize_name(node))
    reformat = layer.is_reformat or parts.op == "reformat"
    out_dtype = next((t.dtype for t in layer.outputs if t.dtype), None)
    in_dtype = next((t.dtype for t in layer.inputs if t.dtype), None)
    # the layer's precision (trtlog.engine.model.layer_precision); a reformat shows both types
    compute = layer_precision(layer.tactic_name, layer.parameters, layer.inputs, layer.outputs)
    if reformat and in_dtype and out_dtype:
        label: str | None = f"{in_dtype}→{out_dtype}"
    else:
        label = compute
    first = layer.outputs[0] if layer.outputs else None
    region = name.startswith("{ForeignNode[") or layer.type == "Myelin"
    kernel_like = kernel is not None or (
        layer.type in MYELIN_LAYER_TYPES and layer.type != "MyelinReformat"
    )
    time = layer.time.average_ms if layer.time is not None and layer.time.known else None
    qdq = not main and any(is_qdq_node(k) for k in aux)
    return _Sig(
        index=layer.index,
        name=name,
        norm=normalize_name(name),
        nodes=nodes,
        main=main,
        aux=aux,
        target=target,
        weight_qdq=frozenset(weight_qdq),
        type=layer.type,
        compute=compute,
        out_dtype=out_dtype,
        label=label,
        shape=first.dims if first is not None else None,
        layout=first.layout if first is not None else None,
        tactic=layer.tactic,
        tactic_name=layer.tactic_name or None,
        reformat=reformat,
        qdq=qdq,
        myelin="region" if region else "kernel" if kernel_like else None,
        graph=kernel.graph if kernel is not None else None,
        body=kernel.body if kernel is not None else None,
        module=common_module(sorted(main) or [_quantized(n) for n in aux] or sorted(target)),
        time=time,
        op=op_class(layer, reformat, qdq),
        kind_nodes=named or layer.onnx_nodes,
        parameters=layer.parameters,
        geometry=geometry(layer),
    )


def _same_shape(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> bool:
    """Equal dimensions, the batch (first) dimension aside; negative (dynamic) dims match any.

    Example:
        >>> _same_shape((1, 32, 28, 28), (-1, 32, 28, 28)), _same_shape((1, 64), (1, 32))
        (True, False)
    """
    if a is None or b is None:
        return True
    if len(a) == len(b):
        a, b = a[1:], b[1:]
    elif abs(len(a) - len(b)) == 1:  # implicit-batch engines (7.x) omit the batch
        a, b = (a, b[1:]) if len(a) < len(b) else (a[1:], b)
    else:
        return False
    return all(x == y or x < 0 or y < 0 for x, y in zip(a, b, strict=True))


def _penalty(a: _Sig, b: _Sig) -> float:
    p = 0.0
    if a.type and b.type and a.type != b.type:
        p += 0.1
    if a.label and b.label and a.label != b.label:
        p += 0.1
    if not _same_shape(a.shape, b.shape):
        p += 0.15
    if a.reformat != b.reformat:
        p += 0.3
    if a.geometry is not None and b.geometry is not None and a.geometry[:3] != b.geometry[:3]:
        p += 0.3  # another kernel size, stride or grouping
    return p


def _overlap(ka: frozenset[str], kb: frozenset[str]) -> float | None:
    inter = len(ka & kb)
    if not inter:
        return None
    return 1.0 - 0.5 * (inter / len(ka | kb) + inter / min(len(ka), len(kb)))


def _cost(a: _Sig, b: _Sig) -> float | None:
    """Substitution cost (below 2, the cost of a deletion plus an insertion), or ``None``.

    ``None`` when nothing says the two layers are the same: no shared node, name or reformat
    target. 0 for the same nodes, type, precision and shape.
    """
    if a.norm == b.norm:
        base: float | None = 0.0
    elif a.main or b.main:
        base = _overlap(a.main, b.main) if a.main and b.main else None
        wa = frozenset(w for w in a.aux if is_weights_name(w))
        wb = frozenset(w for w in b.aux if is_weights_name(w))
        if wa and wb:  # weights keep their names when a re-export renumbers the nodes
            weights = _overlap(wa, wb)
            if weights is None:
                base = None if base is None else base + 0.6
            else:
                base = weights if base is None else min(base, weights)
    elif a.aux or b.aux:
        base = _overlap(a.aux, b.aux) if a.aux and b.aux else None
    elif a.target and b.target:
        inter = _overlap(a.target, b.target)
        base = None if inter is None else 0.3 + 0.5 * inter
    else:
        base = None
    return None if base is None else base + _penalty(a, b)


# -- alignment -----------------------------------------------------------------------------

Pair = tuple[int, int, float]
_PIECE = frozenset(("split", "merged"))


def _candidates(sa: Sequence[_Sig], sb: Sequence[_Sig]) -> list[Pair]:
    """Pairs that share a node, a name or a reformat target, with their cost."""
    by_key: dict[str, list[int]] = defaultdict(list)
    by_target: dict[str, list[int]] = defaultdict(list)
    by_norm: dict[str, list[int]] = defaultdict(list)
    for b in sb:
        for k in b.main or b.aux:
            by_key[k].append(b.index)
        if not b.main and not b.aux:
            for k in b.target:
                by_target[k].append(b.index)
        by_norm[b.norm].append(b.index)
    out: list[Pair] = []
    for a in sa:
        js: set[int] = set()
        index = by_key if a.main or a.aux else by_target
        for k in a.main or a.aux or a.target:
            holders = index.get(k)
            if holders and len(holders) <= _MAX_HOLDERS:
                js.update(holders)
        holders = by_norm.get(a.norm)
        if holders and len(holders) <= _MAX_HOLDERS:
            js.update(holders)
        for j in js:
            c = _cost(a, sb[j])
            if c is not None:
                out.append((a.index, j, c))
    return out


def _chain(cands: Sequence[Pair], size_b: int, size_a: int | None = None) -> list[Pair]:
    """The chain of pairs, increasing on both sides, of maximum total ``2 - cost``.

    Maximising it minimises the edit distance (each unpaired layer costs 1, a pair its cost);
    a Fenwick tree of prefix maxima over B positions makes it O(K log n) for K candidates.
    Between equally good chains, the one closer to the diagonal wins (a tie-break far below
    any cost difference), so that of two identical kernels the first pairs with the first.

    Example:
        >>> _chain([(0, 1, 0.0), (1, 0, 0.0), (1, 1, 0.5), (2, 2, 0.0)], 3)
        [(0, 1, 0.0), (2, 2, 0.0)]
    """
    if not cands:
        return []
    order = sorted(range(len(cands)), key=lambda k: (cands[k][0], -cands[k][1]))
    n = size_b + 1
    scale_a = 1.0 / max(size_a or max(c[0] for c in cands) + 1, 1)
    scale_b = 1.0 / max(size_b, 1)
    tree_value = [0.0] * (n + 1)
    tree_index = [-1] * (n + 1)
    prev = [-1] * len(cands)
    best_k, best_v = -1, 0.0
    for k in order:
        i, j, c = cands[k]
        value, parent = 0.0, -1
        x = j
        while x > 0:
            if tree_value[x] > value:
                value, parent = tree_value[x], tree_index[x]
            x -= x & -x
        w = value + (2.0 - c) - 1e-6 * abs(i * scale_a - j * scale_b)
        prev[k] = parent
        x = j + 1
        while x <= n:
            if w > tree_value[x]:
                tree_value[x], tree_index[x] = w, k
            x += x & -x
        if w > best_v:
            best_v, best_k = w, k
    chain: list[Pair] = []
    k = best_k
    while k >= 0:
        chain.append(cands[k])
        k = prev[k]
    chain.reverse()
    return chain


def _weak(ua: Sequence[_Sig], ub: Sequence[_Sig]) -> list[Pair]:
    """Pairs inside a gap between sure pairs that share no node but play the same part.

    Reformats (and lone Q/DQ layers) of compatible shape, layers without any node of the same
    type and shape, and a ``{ForeignNode[...]}`` region with the first kernel of a Myelin
    graph (the same region listed kernel by kernel).
    """
    out: list[Pair] = []

    def pairs(xs: list[_Sig], ys: list[_Sig], base: float) -> None:
        if len(xs) * len(ys) > _MAX_WEAK:
            return
        for x in xs:
            for y in ys:
                out.append((x.index, y.index, base + _penalty(x, y)))

    ra = [a for a in ua if not a.main and (a.reformat or a.qdq)]
    rb = [b for b in ub if not b.main and (b.reformat or b.qdq)]
    pairs(ra, rb, 0.7)
    plain_a: dict[str | None, list[_Sig]] = defaultdict(list)
    for a in ua:
        if not (a.main or a.aux or a.target or a.reformat) and a.type and a.myelin != "region":
            plain_a[a.type].append(a)
    for kind, xs in plain_a.items():
        ys = [
            b
            for b in ub
            if b.type == kind and not (b.main or b.aux or b.target or b.reformat) and b.shape
        ]
        pairs([x for x in xs if x.shape], ys, 0.8)
    for regions, others, flip in ((ua, ub, False), (ub, ua, True)):
        firsts: dict[int, _Sig] = {}
        for s in others:
            if s.myelin == "kernel" and s.graph is not None:
                firsts.setdefault(s.graph, s)
        for r in regions:
            if r.myelin == "region":
                for k in firsts.values():
                    out.append((k.index, r.index, 0.9) if flip else (r.index, k.index, 0.9))
    return [p for p in out if p[2] < 2.0]


@dataclass
class _Alignment:
    """Which rows the alignment makes (internal)."""

    anchors: list[tuple[int, int]] = field(default_factory=list)
    moved: list[tuple[int, int]] = field(default_factory=list)
    split: dict[int, int] = field(default_factory=dict)  # B index -> A layer it is a piece of
    merged: dict[int, int] = field(default_factory=dict)  # A index -> B layer it went into
    struct: dict[tuple[int, int], float] = field(default_factory=dict)  # structural costs


def _gaps(
    anchors: Sequence[tuple[int, int]], size_a: int, size_b: int
) -> Iterable[tuple[range, range]]:
    pi, pj = -1, -1
    for i, j in [*anchors, (size_a, size_b)]:
        if i - pi > 1 and j - pj > 1:
            yield range(pi + 1, i), range(pj + 1, j)
        pi, pj = i, j


# -- structure -----------------------------------------------------------------------------

_STRUCT_BASE = 0.3  # same kind of op, shape and geometry: below a name match with doubts
_MAX_STRUCT = 48  # structural candidates per layer (the nearest along the graph)


def _struct_cost(a: _Sig, b: _Sig) -> float:
    """The cost of pairing two computing layers by what they are, names aside."""
    c = _STRUCT_BASE
    if not _same_shape(a.shape, b.shape):
        c += 0.4
    if a.geometry is not None and b.geometry is not None and a.geometry[:3] != b.geometry[:3]:
        c += 0.4  # another kernel size, stride or grouping: another convolution
    ka, kb = _kinds(a), _kinds(b)
    if ka and kb and set(ka) != set(kb):
        c += 0.1
    if len(a.preds) != len(b.preds):
        c += 0.05
    return c


def _structural(sa: Sequence[_Sig], sb: Sequence[_Sig]) -> dict[tuple[int, int], float]:
    """Pairs of computing layers of the same kind of op, near each other along the graph.

    Each layer of A gets at most ``_MAX_STRUCT`` candidates of B: those of its kind of op
    nearest its relative position among the computing layers.
    """
    by_op: dict[str, list[_Sig]] = defaultdict(list)
    for b in sb:
        if b.op is not None and not is_transparent(b.op):
            by_op[b.op].append(b)
    out: dict[tuple[int, int], float] = {}
    for a in sa:
        if a.op is None or is_transparent(a.op):
            continue
        ys = by_op.get(a.op, [])
        if len(ys) > _MAX_STRUCT:
            ranks = [y.rank for y in ys]
            k = bisect.bisect_left(ranks, a.rank)
            ys = ys[max(0, k - _MAX_STRUCT // 2) : k + _MAX_STRUCT // 2]
        for b in ys:
            out[(a.index, b.index)] = _struct_cost(a, b)
    return out


def _agreement(a: _Sig, b: _Sig, partner: dict[int, int]) -> tuple[int, int]:
    """How many of a pair's graph neighbours are paired with each other, and of how many."""
    agree = sum(1 for p in a.preds if partner.get(p, -1) in b.preds)
    agree += sum(1 for p in a.succs if partner.get(p, -1) in b.succs)
    total = max(len(a.preds), len(b.preds)) + max(len(a.succs), len(b.succs))
    return agree, total


def _propagated(
    cands: dict[tuple[int, int], float], sa: Sequence[_Sig], sb: Sequence[_Sig], pairs: list[Pair]
) -> list[Pair]:
    """Candidate costs lowered where the neighbours agree, raised where none does."""
    partner = {i: j for i, j, _c in pairs}
    out: list[Pair] = []
    for (i, j), c in cands.items():
        agree, total = _agreement(sa[i], sb[j], partner)
        if total:
            c = max(0.0, c - 0.2 * agree / total) if agree else c + 0.1
        out.append((i, j, c))
    return out


def _uncross(
    chain: Sequence[Pair], cost: dict[tuple[int, int], float]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The chain's pairs, with two near pairs swapped where crossing them costs clearly less.

    Two branches of a block can run in another order in the other build (a residual's
    downsample before or after the main convolution); the increasing chain cannot cross,
    so it may pair each with the other's counterpart. Swapped pairs come back as moved.
    """
    pairs = [(i, j) for i, j, _c in chain]
    swapped: list[tuple[int, int]] = []
    taken: set[int] = set()
    for k, (i1, j1) in enumerate(pairs):
        if k in taken:
            continue
        for m in range(k + 1, min(k + 4, len(pairs))):
            if m in taken:
                continue
            i2, j2 = pairs[m]
            c12, c21 = cost.get((i1, j2)), cost.get((i2, j1))
            if c12 is None or c21 is None:
                continue
            if c12 + c21 + 0.2 < cost.get((i1, j1), 2.0) + cost.get((i2, j2), 2.0):
                swapped += [(i1, j2), (i2, j1)]
                taken.update((k, m))
                break
    return [p for k, p in enumerate(pairs) if k not in taken], swapped


def _align(sa: Sequence[_Sig], sb: Sequence[_Sig]) -> _Alignment:
    named = {(i, j): c for i, j, c in _candidates(sa, sb)}
    # names first: structure places the layers that no good name match places
    placed_a = {i for (i, _j), c in named.items() if c <= 0.5}
    placed_b = {j for (_i, j), c in named.items() if c <= 0.5}
    struct = _structural(
        [a for a in sa if a.index not in placed_a], [b for b in sb if b.index not in placed_b]
    )
    cands = dict(struct)
    for key, c in named.items():  # a name match keeps its own cost unless structure is surer
        cands[key] = min(c, cands.get(key, c))
    final = [(i, j, c) for (i, j), c in cands.items()]
    chain = _chain(final, len(sb), len(sa))
    if struct:  # the neighbours decide between structural candidates (twice: they settle)
        final = _propagated(cands, sa, sb, chain)
        final = _propagated(cands, sa, sb, _chain(final, len(sb), len(sa)))
        chain = _chain(final, len(sb), len(sa))
    anchors, swapped = _uncross(chain, {(i, j): c for i, j, c in final})
    extra: list[tuple[int, int]] = []
    for ra, rb in _gaps(anchors, len(sa), len(sb)):
        weak = _weak([sa[i] for i in ra], [sb[j] for j in rb])
        extra.extend((i, j) for i, j, _c in _chain(weak, len(sb), len(sa)))
    result = _Alignment(anchors=sorted(anchors + extra), moved=swapped, struct=struct)
    used_a = {i for i, _j in result.anchors + swapped}
    used_b = {j for _i, j in result.anchors + swapped}
    # reordered layers: sure pairs the monotone chain could not take
    partner = dict(result.anchors)
    for i, j, c in sorted(final, key=lambda p: p[2]):
        if c <= 0.5 and i not in used_a and j not in used_b:
            if (i, j) not in named and not _agreement(sa[i], sb[j], partner)[0]:
                continue  # moved by structure alone needs a neighbour that agrees
            result.moved.append((i, j))
            used_a.add(i)
            used_b.add(j)
    _attach(sa, sb, result, used_a, used_b)
    return result


def _holders(sigs: Sequence[_Sig]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = defaultdict(list)
    for s in sigs:
        for k in s.main | s.aux:
            index[k].append(s.index)
    return index


def _attach(
    sa: Sequence[_Sig], sb: Sequence[_Sig], result: _Alignment, used_a: set[int], used_b: set[int]
) -> None:
    """Pieces of a layer that became several: one row per piece, on the layer's row."""
    anchor_b = [j for _i, j in result.anchors]
    anchor_a = [i for i, _j in result.anchors]

    def near(position: int, anchors: list[int], partners: list[int]) -> int:
        k = bisect.bisect_right(anchors, position) - 1
        return partners[k] if k >= 0 else 0

    for mine, theirs, used_mine, used_theirs, forward in (
        (sb, sa, used_b, used_a, True),
        (sa, sb, used_a, used_b, False),
    ):
        holders = _holders(theirs)
        anchors_mine, anchors_theirs = (anchor_b, anchor_a) if forward else (anchor_a, anchor_b)
        for s in mine:
            if s.index in used_mine:
                continue
            scores: Counter[int] = Counter()
            for k in s.main or s.aux:
                held = holders.get(k, ())
                if len(held) <= _MAX_HOLDERS:
                    scores.update(held)
            if not scores:
                continue
            expect = near(s.index, anchors_mine, anchors_theirs)
            other = max(scores, key=lambda t: (scores[t], -abs(t - expect)))
            pair = (other, s.index) if forward else (s.index, other)
            if other not in used_theirs:
                result.moved.append(pair)
                used_theirs.add(other)
            elif forward:
                result.split[s.index] = other
            else:
                result.merged[s.index] = other
            used_mine.add(s.index)
    # the other kernels of a Myelin graph whose kernel was paired with a region
    partner_b: dict[int, int] = {j: i for i, j in result.anchors + result.moved}
    partner_b.update(result.split)
    partner_a: dict[int, int] = {i: j for i, j in result.anchors + result.moved}
    partner_a.update(result.merged)
    for mine, theirs, partner, attached, used in (
        (sb, sa, partner_b, result.split, used_b),
        (sa, sb, partner_a, result.merged, used_a),
    ):
        region_of: dict[int, int] = {}
        for s in mine:
            partner_index = partner.get(s.index)
            if (
                s.graph is not None
                and partner_index is not None
                and theirs[partner_index].myelin == "region"
            ):
                region_of.setdefault(s.graph, partner_index)
        for s in mine:
            if s.index not in used and s.graph is not None and s.graph in region_of:
                attached[s.index] = region_of[s.graph]
                used.add(s.index)


# -- rows, reasons, groups -----------------------------------------------------------------


def _reasons(a: _Sig, b: _Sig, split: bool, merged: bool, moved: bool) -> tuple[str, ...]:
    out: list[str] = []
    if moved:
        out.append("order")
    if split:
        out.append("split")
    if merged:
        out.append("merged")
    if (a.myelin == "region") != (b.myelin == "region"):
        out.append("myelin")
    pieces = split or merged
    if not pieces:
        shared = set(a.nodes) & set(b.nodes)
        only = [n for n in (*a.nodes, *b.nodes) if n not in shared]
        if any(not (is_qdq_node(n) or is_weights_name(n)) for n in only):
            out.append("nodes")
    qa = {n for n in a.nodes if is_qdq_node(n)}
    qb = {n for n in b.nodes if is_qdq_node(n)}
    if qa != qb and not (a.qdq and b.qdq and a.norm == b.norm):
        out.append("q/dq")
    if a.name != b.name and not (pieces or set(out) & {"nodes", "q/dq", "myelin"}):
        same = a.norm == b.norm or (a.body is not None and a.body == b.body)
        out.append("renamed" if same else "name")
    retyped = bool(a.type and b.type and a.type != b.type)
    if retyped and not pieces:
        out.append(f"type {a.type}→{b.type}")
    ka, kb = _kinds(a), _kinds(b)
    if ka and kb and set(ka) != set(kb) and not pieces:
        out.append(f"fusion {'+'.join(ka)}→{'+'.join(kb)}")
    if a.reformat and b.reformat:
        if a.label and b.label and a.label != b.label:
            out.append(f"reformat {a.label} vs {b.label}")
    elif {a.myelin, b.myelin} == {"region", "kernel"}:
        pass  # one kernel of a region says nothing of the region's precision (an INT64 index)
    elif a.compute and b.compute and a.compute != b.compute:
        out.append(f"precision {a.compute}→{b.compute}")
    elif a.out_dtype and b.out_dtype and a.out_dtype != b.out_dtype:
        # the same precision writing another type (an INT8 convolution now writing FP16):
        # not a precision change
        out.append(f"output type {a.out_dtype}→{b.out_dtype}")
    if a.layout and b.layout and a.layout != b.layout and not pieces:
        out.append(f"format {a.layout}→{b.layout}")
    if not pieces and not _same_shape(a.shape, b.shape):
        out.append(f"shape {dims_text(a.shape)}→{dims_text(b.shape)}")
    if not (pieces or retyped):
        if a.tactic is not None and b.tactic is not None:
            if a.tactic != b.tactic:
                out.append("tactic")
        elif a.tactic_name and b.tactic_name and a.tactic_name != b.tactic_name:
            out.append("tactic")
    return tuple(out)


Row = tuple[Marker, int | None, int | None, tuple[str, ...], MatchKind | None, float | None]


def _how(a: _Sig, b: _Sig, pieces: bool, partner: dict[int, int]) -> tuple[MatchKind, float]:
    """How a pair was matched and how sure that is (0 to 1).

    ``name``: they share ONNX nodes, a name or a reformat target (surer the fewer other
    differences); ``structure``: the same kind of op whose graph neighbours are paired with
    each other (a quarter of them at least); ``shape``: the same kind of op and output shape at
    about the same place, neighbours not confirming; ``position``: layers that play the same
    part between two pairs (reformats, Q/DQ layers, a Myelin region and its kernels).
    """
    name_cost = _cost(a, b)
    agree, total = _agreement(a, b, partner)
    share = agree / total if total else 0.0
    if name_cost is not None and name_cost < 1.0:
        return "name", round(max(0.5, 1.0 - name_cost / 2.0), 2)
    same_shape = _same_shape(a.shape, b.shape)
    if a.op is not None and a.op == b.op and not is_transparent(a.op):
        if agree and share >= 0.25:
            return "structure", round(0.55 + 0.4 * share - (0.0 if same_shape else 0.15), 2)
        return "shape", 0.45 if same_shape else 0.3
    if pieces and {a.myelin, b.myelin} == {"region", "kernel"}:
        return "structure", 0.5
    if agree:
        return "structure", round(0.5 + 0.3 * share, 2)
    return "position", 0.3


_NAME_REASONS = frozenset(("nodes", "name", "renamed"))


def _rows(sa: Sequence[_Sig], sb: Sequence[_Sig], al: _Alignment) -> list[Row]:
    """The alignment's rows in display order, with markers, reasons and how each was matched."""
    anchor_a = [i for i, _j in al.anchors]
    anchor_b = [j for _i, j in al.anchors]
    moved_a = {i for i, _j in al.moved}
    keyed: list[tuple[tuple[int, int, int], int | None, int | None, bool]] = []
    for k, (i, j) in enumerate(al.anchors):
        keyed.append(((k, 3, 0), i, j, False))
    for j, i in al.split.items():
        keyed.append(((bisect.bisect_left(anchor_b, j), 0, j), i, j, False))
    for i, j in al.moved:
        keyed.append(((bisect.bisect_left(anchor_b, j), 2, j), i, j, True))
    paired_a = set(anchor_a) | moved_a
    for i in range(len(sa)):
        if i not in paired_a:
            j2 = al.merged.get(i)
            keyed.append(((bisect.bisect_left(anchor_a, i), 1, i), i, j2, False))
    paired_b = set(anchor_b) | {j for _i, j in al.moved} | set(al.split)
    for j in range(len(sb)):
        if j not in paired_b:
            keyed.append(((bisect.bisect_left(anchor_b, j), 2, j), None, j, False))
    keyed.sort(key=lambda r: r[0])
    count_a = Counter(i for _k, i, j, _m in keyed if i is not None and j is not None)
    count_b = Counter(j for _k, i, j, _m in keyed if i is not None and j is not None)
    partner = {i: j for _k, i, j, _m in keyed if i is not None and j is not None}
    rows: list[Row] = []
    for _key, ia, jb, moved in keyed:
        if ia is None:
            rows.append(("+", None, jb, (), None, None))
        elif jb is None:
            rows.append(("-", ia, None, (), None, None))
        else:
            split, merged = count_a[ia] > 1, count_b[jb] > 1
            reasons = _reasons(sa[ia], sb[jb], split, merged, moved)
            how, sure = _how(sa[ia], sb[jb], split or merged, partner)
            if how != "name":  # other names and nodes: one reason, ``name``
                kept = [r for r in reasons if r not in _NAME_REASONS]
                if sa[ia].name != sb[jb].name and not {"q/dq", "myelin"} & set(kept):
                    kept.insert(1 if kept[:1] == ["order"] else 0, "name")
                reasons = tuple(kept)
            rows.append(("~" if reasons else "=", ia, jb, reasons, how, sure))
    return rows


def _why(s: _Sig, theirs: Sequence[_Sig], partner: dict[int, int], other: str) -> str:
    """Why a layer found no counterpart on the ``other`` side, in a few words."""
    if s.op == "qdq" or s.qdq:
        return f"a Q/DQ layer: {other} quantizes no tensor here"
    if s.op == "reformat":
        return f"a reformat {s.label or ''} that {other} does not need".replace("  ", " ")
    if s.op == "copy":
        return f"a copy or reshape ({s.type}) that {other} does without"
    if s.op is None:
        return f"no layer of {other} holds its ONNX nodes (names only: nothing to match by)"
    for p in (*s.preds, *s.succs):  # fused into a neighbour's counterpart
        q = partner.get(p)
        if q is not None and _kinds(s) and set(_kinds(s)) <= set(_kinds(theirs[q])):
            return f"fused into {other}[{q}] {theirs[q].name}"
    same = [t for t in theirs if t.op == s.op]
    if not same:
        return f"{other} has no {s.op} layer"
    if not any(_same_shape(s.shape, t.shape) for t in same):
        return f"{other} has no {s.op} layer of shape {dims_text(s.shape)}"
    return f"the {s.op} layers of {other} with its shape are paired with other layers"


def _groups(
    sa: Sequence[_Sig], sb: Sequence[_Sig], pieces: Iterable[tuple[int, int]] = ()
) -> list[tuple[list[int], list[int]]]:
    """Connected layers (A, B) whose shared ONNX nodes are grouped differently.

    Layers connect through the nodes both sides hold, and through ``pieces`` (rows of a
    layer split over several rows: a Myelin region against its kernels has no node in common
    with them, yet one became many).
    """
    held_a: dict[str, list[int]] = defaultdict(list)
    held_b: dict[str, list[int]] = defaultdict(list)
    for s in sa:
        for n in s.nodes:
            held_a[n].append(s.index)
    for s in sb:
        for n in s.nodes:
            held_b[n].append(s.index)
    shared = [n for n in held_a if n in held_b]
    parent = list(range(len(sa) + len(sb)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(members: list[int]) -> None:
        root = find(members[0])
        for m in members[1:]:
            parent[find(m)] = root

    for n in shared:
        union(held_a[n] + [len(sa) + j for j in held_b[n]])
    forced = list(pieces)
    for i, j in forced:
        union([i, len(sa) + j])
    comps: dict[int, tuple[set[int], set[int]]] = {}
    for n in shared:
        comp = comps.setdefault(find(held_a[n][0]), (set(), set()))
        comp[0].update(held_a[n])
        comp[1].update(held_b[n])
    for i, j in forced:
        comp = comps.setdefault(find(i), (set(), set()))
        comp[0].add(i)
        comp[1].add(j)
    forced_roots = {find(i) for i, _j in forced}
    shared_set = set(shared)
    out: list[tuple[list[int], list[int]]] = []
    for root, (layers_a, layers_b) in comps.items():
        sets_a = sorted(sorted(shared_set.intersection(sa[i].nodes)) for i in layers_a)
        sets_b = sorted(sorted(shared_set.intersection(sb[j].nodes)) for j in layers_b)
        if sets_a != sets_b or root in forced_roots:
            out.append((sorted(layers_a), sorted(layers_b)))
    out.sort()
    return out


def _group_model(
    gid: int, layers_a: list[int], layers_b: list[int], sa: Sequence[_Sig], sb: Sequence[_Sig]
) -> FusionGroup:
    nodes_b = {n for j in layers_b for n in sb[j].nodes}
    nodes = tuple(dict.fromkeys(n for i in layers_a for n in sa[i].nodes if n in nodes_b))
    qdq: dict[str, None] = {}
    for layers, sigs in ((layers_a, sa), (layers_b, sb)):
        members = set(layers)
        first, last = min(layers), max(layers)
        for k in range(first, last + 1):
            s = sigs[k]
            if k in members:  # the Q/DQ nodes on the cut: after a piece, before the next
                core = [p for p, n in enumerate(s.nodes) if not is_qdq_node(n)]
                if not core:
                    found = list(s.nodes)
                else:
                    found = list(s.nodes[: core[0]]) if k != first else []
                    found += s.nodes[core[-1] + 1 :] if k != last else ()
            elif s.qdq or s.reformat:
                found = list(s.nodes)
            else:
                found = []
            for n in found:
                if is_qdq_node(n) and n not in s.weight_qdq:
                    qdq[n] = None
    if len(layers_a) == 1 and len(layers_b) > 1:
        kind: GroupKind = "split"
    elif len(layers_b) == 1 and len(layers_a) > 1:
        kind = "merged"
    else:
        kind = "regrouped"
    return FusionGroup(
        id=gid,
        kind=kind,
        nodes=nodes,
        layers_a=tuple(layers_a),
        layers_b=tuple(layers_b),
        names_a=tuple(sa[i].name for i in layers_a),
        names_b=tuple(sb[j].name for j in layers_b),
        qdq_nodes=tuple(qdq),
    )


_VIEW_FIELDS = frozenset(LayerView.model_fields)
_STEP_FIELDS = frozenset(Step.model_fields)


def _view(s: _Sig) -> LayerView:
    data: dict[str, Any] = {
        "index": s.index,
        "name": s.name,
        "type": s.type,
        "precision": s.label,
        "shape": s.shape,
        "layout": s.layout,
        "tactic": s.tactic,
        "tactic_name": s.tactic_name,
        "reformat": s.reformat,
        "qdq": s.qdq,
        "myelin": s.myelin,
        "onnx_nodes": s.nodes,
        "module": s.module,
        "time_ms": s.time,
    }
    return assemble(LayerView, data, None, _VIEW_FIELDS)  # the values are typed already


def _place(layers: Sequence[EngineLayer], sigs: Sequence[_Sig]) -> None:
    """Each signature's graph neighbours and its relative position among computing layers."""
    places = graph_places(layers, [s.op for s in sigs])
    for s, place in zip(sigs, places, strict=True):
        s.preds, s.succs = place.preds, place.succs
    core = [s for s in sigs if s.op is not None and not is_transparent(s.op)]
    for k, s in enumerate(core):
        s.rank = k / max(len(core) - 1, 1)


@gc_paused()  # thousands of small objects and no cycles: the collector only rescans
def compare_engines(
    engine_a: Engine, engine_b: Engine, a: SideInfo | None = None, b: SideInfo | None = None
) -> Comparison:
    """Align two engines' layers (the layer part of :func:`compare`).

    Example:
        >>> from trtlog.engine import Engine, EngineLayer
        >>> def eng(*names):
        ...     return Engine(source="x", origin="layer_json", detailed=False, layers=tuple(
        ...         EngineLayer(index=i, name=n, onnx_nodes=tuple(n.split(" + ")),
        ...                     onnx_source="name") for i, n in enumerate(names)))
        >>> cmp = compare_engines(eng("c1 + r1", "c2 + add + r2"), eng("c1 + r1", "c2", "add + r2"))
        >>> [(s.marker, s.index_a, s.index_b, s.reasons) for s in cmp.steps]
        [('=', 0, 0, ()), ('~', 1, 1, ('split',)), ('~', 1, 2, ('split',))]
        >>> cmp.groups[0].describe()
        '3 nodes were 1 layer in A and 2 layers in B'
    """
    a = a or side_of_engine("A", engine_a, "engine")
    b = b or side_of_engine("B", engine_b, "engine")
    with_metadata = all(
        any(layer.onnx_source == "metadata" for layer in e.layers) for e in (engine_a, engine_b)
    )
    source: NodeSource = "metadata" if with_metadata else "name"
    sa = [_signature(layer, source) for layer in engine_a.layers]
    sb = [_signature(layer, source) for layer in engine_b.layers]
    for engine, sigs in ((engine_a, sa), (engine_b, sb)):
        for k, s in enumerate(sigs):  # indexes are positions (an engine from elsewhere may differ)
            s.index = k
        _place(engine.layers, sigs)
    al = _align(sa, sb)
    rows = _rows(sa, sb, al)
    pieces = [
        (i, j) for _m, i, j, r, *_h in rows if i is not None and j is not None and _PIECE & set(r)
    ]
    partner_a = {i: j for _m, i, j, *_r in rows if i is not None and j is not None}
    partner_b = {j: i for i, j in partner_a.items()}
    raw_groups = _groups(sa, sb, pieces)
    group_of_a: dict[int, int] = {}
    group_of_b: dict[int, int] = {}
    for k, (la, lb) in enumerate(raw_groups):
        group_of_a.update(dict.fromkeys(la, k))
        group_of_b.update(dict.fromkeys(lb, k))
    numbering: dict[int, int] = {}
    steps: list[Step] = []
    for number, (marker, ia, jb, reasons, how, sure) in enumerate(rows, start=1):
        raw = group_of_a.get(ia) if ia is not None else None
        if raw is None and jb is not None:
            raw = group_of_b.get(jb)
        gid = numbering.setdefault(raw, len(numbering) + 1) if raw is not None else None
        why = None
        if marker == "-" and ia is not None:
            why = _why(sa[ia], sb, partner_a, "B")
        elif marker == "+" and jb is not None:
            why = _why(sb[jb], sa, partner_b, "A")
        data = {
            "number": number,
            "marker": marker,
            "index_a": ia,
            "index_b": jb,
            "reasons": reasons,
            "group": gid,
            "match": how,
            "confidence": sure,
            "why": why,
        }
        steps.append(assemble(Step, data, None, _STEP_FIELDS))
    groups = [
        _group_model(numbering[k], raw_groups[k][0], raw_groups[k][1], sa, sb)
        for k in sorted(numbering, key=lambda k: numbering[k])
    ]
    notes: list[str] = []
    if not (engine_a.detailed and engine_b.detailed):
        sides = [s.label for s, e in ((a, engine_a), (b, engine_b)) if not e.detailed]
        notes.append(
            f"{' and '.join(sides)} {'is' if len(sides) == 1 else 'are'} names-only: layers "
            "are compared by names and ONNX nodes only (no types, precisions, shapes or "
            "tactics); rebuild with --profilingVerbosity=detailed for those"
        )
    if source == "name":
        notes.append(
            "ONNX nodes come from the layer names (Metadata is missing on at least one side)"
        )
    cmp = Comparison(
        a=a,
        b=b,
        node_source=source,
        layers_a=tuple(_view(s) for s in sa),
        layers_b=tuple(_view(s) for s in sb),
        steps=tuple(steps),
        groups=tuple(groups),
        unmatched_a=tuple(s.index_a for s in steps if s.marker == "-" and s.index_a is not None),
        unmatched_b=tuple(s.index_b for s in steps if s.marker == "+" and s.index_b is not None),
        notes=tuple(notes),
    )
    by_name, computing = _by_name(cmp)
    names = [layer.name for layer in engine_a.layers]
    identical = len(names) if names == [layer.name for layer in engine_b.layers] else 0
    judgment = judge_model(
        fingerprint(engine_a.layers), fingerprint(engine_b.layers), by_name, computing, identical
    )
    update = {"same_model": judgment.same, "model_evidence": judgment.evidence}
    cmp = cmp.model_copy(update={**update, "paired_by_name": by_name})
    if cmp.alignment_failed:
        note = (
            f"alignment failed: {cmp.alignment_reason}; are these builds of the same model? "
            "Per-layer deltas and tactic changes are left out: compare the totals by layer "
            "type and precision"
        )
        cmp = cmp.model_copy(update={"notes": (*notes, note)})
    return cmp


def _moves(view: LayerView) -> bool:
    return view.reformat or view.qdq


def _copy(view: LayerView) -> bool:
    """Whether the layer is the copy a build makes for optimization profile 1, 2..."""
    parts = split_name(view.name)
    return parts.op == "profile" and bool(parts.index)


def _by_name(cmp: Comparison) -> tuple[int, tuple[int, int]]:
    """Computing layers paired by shared ONNX nodes, and each side's computing layers with nodes.

    Generated Myelin kernels (``__myl_AddMulSum...``) pair by the ops they run, which any two
    models share, so they do not count as names; a reformat counts when its counterpart
    computes (a build that runs an identity as a reformat, another as a Myelin region). The
    copies of layers for optimization profiles 1, 2... are not counted again.
    """
    computing_a = [v for v in cmp.layers_a if v.onnx_nodes and not (_moves(v) or _copy(v))]
    computing_b = [v for v in cmp.layers_b if v.onnx_nodes and not (_moves(v) or _copy(v))]
    named = {
        (s.index_a, s.index_b)
        for s in cmp.steps
        if s.match == "name"
        and s.index_a is not None
        and s.index_b is not None
        and cmp.layers_a[s.index_a].onnx_nodes
        and cmp.layers_b[s.index_b].onnx_nodes
        and not (_moves(cmp.layers_a[s.index_a]) and _moves(cmp.layers_b[s.index_b]))
        and not _copy(cmp.layers_a[s.index_a])
    }
    paired = min(len({i for i, _j in named}), len({j for _i, j in named}))
    counts = (len(computing_a), len(computing_b))
    # (a reformat paired with a computing layer counts on one side only)
    return min(paired, max(counts)), counts


_PASS_KINDS = ("fusion", "fusion_into", "horizontal_merge", "conv_scale_fusion", "pass_run")


def has_passes(build: Build | None) -> bool:
    """Whether a build holds the optimizer's verbose lines (fusions, ``Running:`` lines)."""
    return build is not None and bool(build.events_of(*_PASS_KINDS))


def _version(build: Build | None) -> str | None:
    return ".".join(map(str, build.trt_version)) if build and build.trt_version else None


#: trtexec's ``Profiling verbosity: <n>`` (8.2+; formats.md §B): ProfilingVerbosity values
_VERBOSITY = {"0": "layer names only", "1": "none", "2": "detailed"}


def _verbosity(build: Build | None) -> str | None:
    if build is None:
        return None
    value = build.options.blocks.get("Build", {}).get("Profiling verbosity")
    return _VERBOSITY.get(str(value).strip(), str(value)) if value is not None else None


def side_of_engine(
    label: Literal["A", "B"],
    engine: Engine | None,
    kind: Literal["log", "layer_json", "engine"],
    build: Build | None = None,
    source: str | None = None,
) -> SideInfo:
    """The :class:`SideInfo` of an engine (and the build it came from)."""
    return SideInfo(
        label=label,
        source=source or (engine.source if engine is not None else "<engine>"),
        kind=kind,
        engine_origin=engine.origin if engine is not None else None,
        detailed=engine.detailed if engine is not None else None,
        verbosity=_verbosity(build),
        layers=len(engine.layers) if engine is not None else 0,
        trt_version=_version(build),
        profile=engine.profile.source if engine is not None and engine.profile else None,
        passes=has_passes(build),
    )
