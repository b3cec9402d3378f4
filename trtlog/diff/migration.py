"""The 10 → 11 migration check: what an upgrade to strongly typed TensorRT 11 changed.

Part of the view package :mod:`trtlog.diff` (pydantic only). TensorRT 11 builds only strongly
typed networks: ``--fp16``/``--int8`` are gone and every layer runs the type its ONNX model
gives it. The same FP32 model that TensorRT 10 built in FP16 with ``--fp16`` therefore builds
in FP32. :func:`migration_check` reads a comparison of the two builds (aligned by ONNX node)
and calls out, first, every node whose precision went up (FP16→FP32, INT8→FP16), every fusion
that split, and the time that moved, with one summary line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from trtlog._display import number, visible
from trtlog.diff.models import Comparison, FusionGroup, LayerView, SideInfo
from trtlog.diff.summary import sum_known
from trtlog.diff.text import fit
from trtlog.names import is_qdq_node, is_weights_name

__all__ = ["MigrationCheck", "RaisedNode", "is_migration", "migration_check"]

_FROZEN = ConfigDict(frozen=True)

#: Bits per value of the compute precisions, to tell which way a precision moved. TF32 is an
#: FP32 build's tensor-core mode, not a precision of its own here.
_BITS = {
    "FP4": 4,
    "INT4": 4,
    "FP8": 8,
    "INT8": 8,
    "FP16": 16,
    "BF16": 16,
    "TF32": 32,
    "FP32": 32,
}


class RaisedNode(BaseModel):
    """An ONNX node that runs in a higher precision in B than in A.

    Attributes:
        node: the ONNX node.
        before: A's precision (of the layer that holds the node).
        after: B's precision.
        index_a: A's layer holding it (the first, if several do).
        index_b: B's layer holding it.
        step: the comparison row of the pair, if the two layers were aligned with each other.
        time_a_ms: A's layer time (shared by all the nodes of the layer), if known.
        time_b_ms: B's layer time, if known.
    """

    model_config = _FROZEN

    node: str
    before: str
    after: str
    index_a: int
    index_b: int
    step: int | None = None
    time_a_ms: float | None = None
    time_b_ms: float | None = None


class MigrationCheck(BaseModel):
    """What changed between a reference build (A, e.g. TensorRT 10) and B (e.g. TensorRT 11).

    Attributes:
        a: A as one phrase (version, typing).
        b: B as one phrase.
        strongly_typed_a: whether A was built strongly typed.
        strongly_typed_b: whether B was.
        raised: the nodes whose precision went up, in A's layer order.
        transitions: ``FP16→FP32`` → how many nodes.
        split: the fusions of A that B split (:class:`FusionGroup` of kind ``split``).
        time_a_ms: A's time per inference (sum of its layer times), if known.
        time_b_ms: B's time.
        raised_a_ms: the time of A's layers that hold the raised nodes, if known.
        raised_b_ms: the time of B's layers that hold them.
        headline: the summary line: ``6 nodes now FP32, 0.1504 ms of the reference's
            0.1662 ms (0.4613 ms in B)``.
    """

    model_config = _FROZEN

    a: str
    b: str
    strongly_typed_a: bool = False
    strongly_typed_b: bool = False
    raised: tuple[RaisedNode, ...] = ()
    transitions: dict[str, int] = {}
    split: tuple[FusionGroup, ...] = ()
    time_a_ms: float | None = None
    time_b_ms: float | None = None
    raised_a_ms: float | None = None
    raised_b_ms: float | None = None
    headline: str

    def to_text(self, limit: int = 10) -> str:
        """The check as text, at most ``limit`` entries per list (see :func:`render`)."""
        return render(self, limit=limit)


def _major(side: SideInfo) -> int | None:
    if not side.trt_version:
        return None
    head = side.trt_version.split(".", 1)[0]
    return int(head) if head.isdigit() else None


def is_migration(cmp: Comparison) -> bool:
    """Whether the comparison crosses the strong-typing line (or TensorRT 10 → 11).

    True when the layers are aligned and one side was built strongly typed and the other not,
    or the two logs name different major versions, one of them 11 or later.
    """
    if not cmp.aligned:
        return False
    if cmp.a.strongly_typed != cmp.b.strongly_typed:
        return True
    ma, mb = _major(cmp.a), _major(cmp.b)
    return ma is not None and mb is not None and ma != mb and max(ma, mb) >= 11


def _phrase(side: SideInfo) -> str:
    kind = {"log": "log", "layer_json": "layer JSON", "engine": "engine"}[side.kind]
    name = side.source.replace("\\", "/").rsplit("/", 1)[-1]
    what = f"TensorRT {side.trt_version}" if side.trt_version else f"{kind} {visible(name)}"
    return f"{what}, {'strongly typed' if side.strongly_typed else 'not strongly typed'}"


def _compute(view: LayerView | None) -> str | None:
    """A layer's compute precision, if it has a rank (reformats and Q/DQ layers have none)."""
    if view is None or view.reformat or view.qdq or view.precision not in _BITS:
        return None
    return view.precision


def _raised(node: str, va: LayerView, vb: LayerView, step: int | None) -> RaisedNode | None:
    """``node`` as a raised node when B's layer computes in more bits than A's, else ``None``."""
    before, after = _compute(va), _compute(vb)
    if before is None or after is None or _BITS[after] <= _BITS[before]:
        return None
    return RaisedNode(
        node=node,
        before=before,
        after=after,
        index_a=va.index,
        index_b=vb.index,
        step=step,
        time_a_ms=va.time_ms,
        time_b_ms=vb.time_ms,
    )


def _holders(views: Sequence[LayerView]) -> dict[str, list[LayerView]]:
    held: dict[str, list[LayerView]] = {}
    for v in views:
        for n in v.onnx_nodes:
            if not (is_qdq_node(n) or is_weights_name(n)):
                held.setdefault(n, []).append(v)
    return held


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{number(value)} ms"


def migration_check(cmp: Comparison) -> MigrationCheck:
    """The nodes whose precision went up from A to B, the fusions B split, the time moved.

    A node's precision is that of the first layer holding it on each side (Q/DQ nodes,
    weights, reformats and layers without a known compute precision are left out); a layer
    the alignment paired by structure (its nodes renamed in B) counts its nodes with the
    precision of its counterpart. Times are
    the layer times (a layer's time counts once, however many raised nodes it holds).

    Example:
        >>> from trtlog.diff import compare_engines
        >>> from trtlog.engine import Engine, EngineLayer, LayerTime
        >>> def eng(kernel, ms):
        ...     layer = EngineLayer(index=0, name="/c/Conv + /r/Relu", tactic_name=kernel,
        ...                         onnx_nodes=("/c/Conv", "/r/Relu"), onnx_source="name",
        ...                         time=LayerTime(average_ms=ms))
        ...     return Engine(source="x", origin="layer_json", detailed=True, layers=(layer,))
        >>> cmp = compare_engines(eng("sm80_xmma_fprop_f16f16_f16f16", 0.25),
        ...                       eng("sm80_xmma_fprop_f32f32_f32f32", 0.5))
        >>> migration_check(cmp).headline
        "2 nodes now FP32, 0.25 ms of the reference's 0.25 ms (0.5 ms in B)"
    """
    la, lb = cmp.layers_a, cmp.layers_b
    held_a, held_b = _holders(la), _holders(lb)
    step_of = {(s.index_a, s.index_b): s.number for s in cmp.steps}
    raised: list[RaisedNode] = []
    for node, in_a in held_a.items():
        in_b = held_b.get(node)
        if in_b:
            va, vb = in_a[0], in_b[0]
            found = _raised(node, va, vb, step_of.get((va.index, vb.index)))
            if found is not None:
                raised.append(found)
    # pairs the alignment made by structure (a re-export renamed their nodes): the nodes of A's
    # layer, with the precision of the layer B computes them in
    named = {r.index_a for r in raised} | {
        i for n in held_a for i in (v.index for v in held_a[n]) if n in held_b
    }
    for s in cmp.steps:
        if s.match not in ("structure", "shape") or s.index_a is None or s.index_b is None:
            continue
        va, vb = la[s.index_a], lb[s.index_b]
        first = None if va.index in named else _raised(va.name, va, vb, s.number)
        if first is not None:
            for node in [n for n in va.onnx_nodes if n in held_a] or [va.name]:
                raised.append(first.model_copy(update={"node": node}))
    transitions = Counter(f"{r.before}→{r.after}" for r in raised)
    time_a = sum_known(v.time_ms for v in la)
    time_b = sum_known(v.time_ms for v in lb)
    raised_a = sum_known(la[i].time_ms for i in dict.fromkeys(r.index_a for r in raised))
    raised_b = sum_known(lb[j].time_ms for j in dict.fromkeys(r.index_b for r in raised))
    split = tuple(g for g in cmp.groups if g.kind == "split")
    return MigrationCheck(
        a=_phrase(cmp.a),
        b=_phrase(cmp.b),
        strongly_typed_a=cmp.a.strongly_typed,
        strongly_typed_b=cmp.b.strongly_typed,
        raised=tuple(raised),
        transitions=dict(transitions.most_common()),
        split=split,
        time_a_ms=time_a,
        time_b_ms=time_b,
        raised_a_ms=raised_a if raised else None,
        raised_b_ms=raised_b if raised else None,
        headline=_headline(raised, transitions, split, time_a, raised_a, raised_b),
    )


def _headline(
    raised: Sequence[RaisedNode],
    transitions: Counter[str],
    split: Sequence[FusionGroup],
    time_a: float | None,
    raised_a: float | None,
    raised_b: float | None,
) -> str:
    n = len(raised)
    nodes = f"{n} node{'' if n == 1 else 's'}"
    if not raised:
        text = "no node runs in a higher precision than in the reference"
    elif {r.after for r in raised} == {"FP32"}:
        text = f"{nodes} now FP32"
    else:
        ways = ", ".join(f"{k} x{v}" for k, v in transitions.most_common())
        text = f"{nodes} now in a higher precision ({ways})"
    if raised and raised_a is not None and time_a:
        text += f", {_ms(raised_a)} of the reference's {_ms(time_a)}"
        if raised_b is not None:
            text += f" ({_ms(raised_b)} in B)"
    if split:
        text += f"; {len(split)} fusion{'' if len(split) == 1 else 's'} of the reference split"
    return text


def render(check: MigrationCheck, limit: int = 10) -> str:
    """The migration check as text: the headline, the raised nodes, the split fusions, time."""
    out = [
        "Migration check",
        f"  A: {check.a}",
        f"  B: {check.b}",
        f"  {check.headline}",
    ]

    def more(items: Sequence[Any]) -> None:
        if len(items) > limit:
            out.append(f"    ... and {len(items) - limit} more")

    if check.raised:
        ways = ", ".join(f"{k} x{v}" for k, v in check.transitions.items())
        out += ["", f"  Precision went up ({len(check.raised)} nodes: {ways})"]
        pairs: dict[tuple[int, int], list[RaisedNode]] = {}
        for r in check.raised:
            pairs.setdefault((r.index_a, r.index_b), []).append(r)
        for (i, j), nodes in list(pairs.items())[:limit]:
            first = nodes[0]
            times = ""
            if first.time_a_ms is not None and first.time_b_ms is not None:
                times = f"  {number(first.time_a_ms)} → {_ms(first.time_b_ms)}"
            names = fit(", ".join(r.node for r in nodes), 80)
            out.append(f"    {first.before}→{first.after}  A[{i}] → B[{j}]{times}  {names}")
        more(list(pairs))
    if check.split:
        out += ["", f"  Fusions of A split in B ({len(check.split)})"]
        for g in check.split[:limit]:
            out.append(f"    group {g.id}: {g.describe()}")
            out += [
                f"      A[{i}] {fit(n, 90)}" for i, n in zip(g.layers_a, g.names_a, strict=True)
            ]
            out += [
                f"      B[{j}] {fit(n, 90)}" for j, n in zip(g.layers_b, g.names_b, strict=True)
            ]
        more(check.split)
    else:
        out += ["", "  No fusion of A is split in B"]
    if check.time_a_ms is not None or check.time_b_ms is not None:
        line = f"  Time per inference: A {_ms(check.time_a_ms)}, B {_ms(check.time_b_ms)}"
        if check.time_a_ms and check.time_b_ms is not None:
            delta = check.time_b_ms - check.time_a_ms
            line += f" ({number(delta, sign=True)} ms, {100.0 * delta / check.time_a_ms:+.1f}%)"
        out += ["", line]
    if check.strongly_typed_b and any(r.after == "FP32" for r in check.raised):
        out += [
            "  B runs the model's own types: convert the model to FP16/BF16 (ModelOpt AutoCast:",
            "  python -m modelopt.onnx.autocast --onnx_path model.onnx --output_path "
            "model_fp16.onnx)",
            "  or quantize it with Q/DQ nodes; TensorRT 11 has no --fp16. `trtlog lint` reports",
            "  it as strongly-typed-fp32.",
        ]
    return "\n".join(out) + "\n"
