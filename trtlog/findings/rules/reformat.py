"""Reformat rules: every ``Reformatting CopyNode`` classified, with its share of time.

Part of the view package :mod:`trtlog.findings`. A reformat is a copy TensorRT inserts to
hand a tensor to a layer in another data type or memory layout. At a network binding it
converts the application's format (``reformat-io-boundary``); inside the network it either
changes the data type (``reformat-dtype``: a precision boundary) or only the
layout/vectorization (``reformat-layout``: two neighbouring kernels chose formats that do not
match).

Only the copies TensorRT inserted count: layers named ``Reformatting CopyNode for ...`` (or
``Reformatted ...``) and layers of ``Origin: REFORMAT``. Quantizers (``Origin: QDQ``) belong
to ``qdq-unfused-quantizer``; the model's own ``Cast`` layers and the copies TensorRT makes
for concatenations and slices (``..._copy_input``, ``Origin: SLICE``) are not reformats of
formats; ``NoOp`` reformats that take no time move no data.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from trtlog.engine.model import EngineLayer
from trtlog.events import (
    ReformatLayerAdded,
)
from trtlog.findings.base import make, rule
from trtlog.findings.context import NAME_COPY, LintContext, fmt_ms, short
from trtlog.findings.models import Finding, Severity
from trtlog.tensors import Tensor

__all__ = ["check_reformat_dtype", "check_reformat_io_boundary", "check_reformat_layout"]

_COPY_NODE = (
    "Reformatting CopyNode for ",
    "Reformatted Input Tensor ",
    "Reformatted Output Tensor ",
)
_LAYOUT_FLAG = {
    "linear": "chw",
    "chw2": "chw2",
    "chw4": "chw4",
    "chw16": "chw16",
    "chw32": "chw32",
    "hwc": "hwc",
    "hwc8": "hwc8",
    "hwc16": "hwc16",
    "dhwc8": "dhwc8",
    "cdhw32": "cdhw32",
}
_DTYPE_FLAG = {"FP32": "fp32", "FP16": "fp16", "INT8": "int8", "BF16": "bf16", "FP8": "fp8"}
_LOW = frozenset({"INT8", "FP8", "INT4", "FP4", "UINT8"})
#: A reformat (or group of them) taking this share of the layer time is a warning.
COSTLY_SHARE = 0.02
_COSTLY = f"when it takes {100 * COSTLY_SHARE:g}% or more of the layer time"


@dataclass(slots=True)
class Reformat:
    """One reformat copy node of the engine, classified.

    Attributes:
        index: the reformat layer's position in ``ctx.layers``.
        name: the reformat layer's name.
        src_dtype: the element type of its (first) input tensor.
        dst_dtype: the element type of its (first) output tensor.
        kind: ``io`` (at a network binding), ``dtype`` (changes the element type) or
            ``layout`` (same element type, another layout or vectorization).
        direction: ``input`` or ``output`` for ``io`` reformats, else ``""``.
        added: the log's ``Adding reformat layer`` event for it, if printed.
        src_name: the name of its (first) input tensor.
        dst_name: the name of its (first) output tensor.
        ctx: the lint context (the layer and its tensors are read from it when asked).

    Not changed once made (not frozen: an engine has thousands, and a frozen dataclass's
    ``__init__`` costs five times a plain one's).
    """

    index: int
    name: str
    src_dtype: str | None
    dst_dtype: str | None
    kind: str
    direction: str
    added: Any
    src_name: str
    dst_name: str
    ctx: LintContext = field(repr=False, compare=False)

    @property
    def layer(self) -> EngineLayer:
        """The reformat layer."""
        return self.ctx.layers[self.index]

    @property
    def src(self) -> Tensor:
        """Its (first) input tensor."""
        return self.ctx.layer_tensors(self.index)[0][0]

    @property
    def dst(self) -> Tensor:
        """Its (first) output tensor."""
        return self.ctx.layer_tensors(self.index)[1][0]

    def formats(self) -> tuple[str, str]:
        """The source and destination formats as text (``FP16/hwc8``; compact when unknown)."""
        if self.src.layout is None and self.dst.layout is None and self.added is not None:
            return self.added.from_format.text, self.added.to_format.text
        return _fmt(self.src), _fmt(self.dst)


def _fmt(t: Tensor) -> str:
    dtype = t.dtype or "?"
    return f"{dtype}/{t.layout}" if t.layout else dtype


def is_copy_node(layer: EngineLayer) -> bool:
    """Whether a layer is a reformat TensorRT inserted (not a quantizer, Cast or slice copy).

    Example:
        >>> from trtlog.engine import EngineLayer
        >>> is_copy_node(EngineLayer(index=0, name="Reformatting CopyNode for Input Tensor 0 to x"))
        True
        >>> is_copy_node(EngineLayer(index=0, name="/Cast", type="Reformat"))
        False
    """
    if layer.origin == "QDQ":
        return False
    return layer.name.startswith(_COPY_NODE) or layer.origin == "REFORMAT"


def reformats(ctx: LintContext) -> list[Reformat]:
    """The engine's reformat copy nodes, classified (computed once per lint run)."""
    return ctx.memo("reformats", _reformats)


def _reformats(ctx: LintContext) -> list[Reformat]:
    added = {e.layer: e for e in ctx.events(ReformatLayerAdded)}
    out: list[Reformat] = []
    columns = ctx.columns
    n_inputs, n_outputs, types = columns.n_inputs, columns.n_outputs, columns.types
    # is_copy_node, from the columns (NAME_COPY: a name starting as in _COPY_NODE)
    copies = [
        i
        for i, (flags, origin) in enumerate(zip(columns.name_flags, columns.origins, strict=True))
        if (flags & NAME_COPY or origin == "REFORMAT") and origin != "QDQ"
    ]
    for i in copies:
        if not n_inputs[i] or not n_outputs[i]:
            continue
        # by position, from the columns (no layer object: an engine has thousands of these)
        if ctx.qdq_role_at(i) is not None:
            continue
        t = ctx.time_at(i)
        if types[i] == "NoOp" and not t:
            continue  # a NoOp reformat moves no data
        inputs, outputs = ctx.layer_tensors(i)
        src_dtype, dst_dtype = inputs[0].dtype, outputs[0].dtype
        if src_dtype is None and dst_dtype is None:
            continue  # a names-only engine: nothing to classify
        src_name, dst_name = inputs[0].name, outputs[0].name
        if ctx.is_network_input_at(i, src_name):
            direction = "input"
        elif ctx.is_network_output_at(i, dst_name):
            direction = "output"
        else:
            direction = ""
        found = _classified(ctx, i, direction, src_dtype, dst_dtype, src_name, dst_name, added)
        if found is not None:
            out.append(found)
    return out


def _classified(
    ctx: LintContext,
    i: int,
    direction: str,
    src_dtype: str | None,
    dst_dtype: str | None,
    src_name: str,
    dst_name: str,
    added: dict[str, Any],
) -> Reformat | None:
    """The reformat at position ``i``, classified, or ``None`` for a copy that keeps its format.

    ``io`` at a network input or output (``direction``), else ``dtype`` when its first
    tensors' types differ, else ``layout``.
    """
    if direction:
        kind = "io"
    elif src_dtype and dst_dtype and src_dtype != dst_dtype:
        kind = "dtype"
    else:
        inputs, outputs = ctx.layer_tensors(i)
        src, dst = inputs[0], outputs[0]
        if src.layout is not None and src.layout == dst.layout and src.vector == dst.vector:
            return None  # the same format on both sides: a copy, not a reformat of formats
        kind = "layout"
    return Reformat(
        i,
        ctx.columns.names[i],
        src_dtype,
        dst_dtype,
        kind,
        direction,
        added.get(dst_name),
        src_name,
        dst_name,
        ctx,
    )


_COPY_TARGET = re.compile(
    r"^Reformatting CopyNode for (?P<side>Input|Output) Tensor \d+ to (?P<layer>.+)$"
)


def _where(name: str, width: int = 60) -> str:
    """``before <layer>``/``after <layer>`` for a copy node's name, else the name.

    Example:
        >>> _where("Reformatting CopyNode for Input Tensor 0 to /a/Conv")
        'before /a/Conv'
    """
    m = _COPY_TARGET.match(name)
    if m is None:
        return short(name, width)
    return f"{'before' if m['side'] == 'Input' else 'after'} {short(m['layer'], width)}"


def _lines(items: list[Reformat]) -> list[int]:
    return [r.added.span[0] for r in items if r.added is not None]


def _severity(ctx: LintContext, ms: float | None, base: Severity) -> Severity:
    total = ctx.total_ms
    if ms is not None and total and ms / total >= COSTLY_SHARE and base == "info":
        return "warning"
    return base


def _between(ctx: LintContext, layer: EngineLayer) -> tuple[str, list[EngineLayer]]:
    up = ctx.upstream(layer)
    down = ctx.downstream(layer)
    if up and down:
        return f" between {short(up[0].name, 70)} and {short(down[0].name, 70)}", [up[0], down[0]]
    if down:
        return f" for {short(down[0].name, 70)}", [down[0]]
    return "", []


def _flag(t: Tensor) -> str:
    dtype = _DTYPE_FLAG.get(t.dtype or "", (t.dtype or "?").lower())
    return f"{dtype}:{_LAYOUT_FLAG.get(t.layout or 'linear', t.layout or 'chw')}"


@rule(
    "reformat-io-boundary",
    "info",
    "A reformat converts a network input or output",
    "The application hands TensorRT its inputs (and gets its outputs) in the binding formats, "
    "FP32 linear by default. When the first or last layer wants another type or layout, a "
    "reformat converts at the boundary. `--inputIOFormats`/`--outputIOFormats` (or "
    "`ITensor.allowed_formats`/`dtype`) let the engine take and give the format its kernels "
    "use. Reformats of the same conversion are reported together; raised to warning when "
    "they take 2% or more of the layer time.",
    needs=("engine",),
    other_severities=(("warning", _COSTLY),),
)
def check_reformat_io_boundary(ctx: LintContext) -> Iterator[Finding]:
    """Reformats at network bindings, grouped by direction and conversion, with the flag."""
    groups: dict[tuple[str, str, str], list[Reformat]] = defaultdict(list)
    for r in reformats(ctx):
        if r.kind == "io":
            groups[(r.direction, *r.formats())].append(r)
    for (direction, src_fmt, dst_fmt), items in groups.items():
        layers = [r.layer for r in items]
        ms = ctx.times(layers)
        share = ctx.share(ms)
        tensors = [r.src.name if direction == "input" else r.dst.name for r in items]
        wanted = items[0].dst if direction == "input" else items[0].src
        option = "--inputIOFormats" if direction == "input" else "--outputIOFormats"
        what = f"{wanted.dtype or '?'}{' ' + wanted.layout if wanted.layout else ''}"
        layout_note = "" if wanted.layout else "; the layout is not printed, so check it"
        if len(items) == 1:
            subject = f"{tensors[0]} ({layers[0].name})"
            message = (
                f"{short(layers[0].name, 100)} converts the network {direction} {tensors[0]} "
                f"from {src_fmt} to {dst_fmt}"
            )
        else:
            shown = ", ".join(tensors[:5]) + (
                f" and {len(tensors) - 5} more" if len(tensors) > 5 else ""
            )
            subject = f"{len(items)} network {direction}s"
            message = (
                f"{len(items)} reformats convert network {direction}s ({shown}) from {src_fmt} "
                f"to {dst_fmt}"
            )
        yield make(
            ctx,
            check_reformat_io_boundary,
            subject,
            message,
            f"a copy of {'the tensor' if len(items) == 1 else 'each tensor'} on every inference"
            + (f" ({share})" if share else ""),
            f"if the application can {'provide' if direction == 'input' else 'take'} {what} "
            f"data, build with {option}={_flag(wanted)} (one format per {direction}, in "
            f"binding order{layout_note}) so the engine uses it directly",
            severity=_severity(ctx, ms, "info"),
            lines=_lines(items),
            layers=layers,
            names=tensors,
            time_ms=ms,
        )


@rule(
    "reformat-dtype",
    "info",
    "A reformat changes the data type inside the network",
    "A reformat between two layers that converts FP32↔FP16 or float↔INT8 marks a precision "
    "boundary: the layers on its two sides run in different precisions. In a Q/DQ network "
    "a float↔INT8 conversion that is not a Q/DQ node means a quantized layer is fed by an "
    "unquantized one (a missing Q/DQ, or an activation that was not fused); FP32↔FP16 "
    "conversions show layers that had no FP16 kernel or were pinned to FP32. Info, raised to "
    "warning for a float↔INT8 conversion in a Q/DQ network or a copy that takes 2% or more "
    "of the layer time.",
    needs=("engine",),
    other_severities=(("warning", "for float↔INT8 in a Q/DQ network, or " + _COSTLY),),
)
def check_reformat_dtype(ctx: LintContext) -> Iterator[Finding]:
    """Reformats that change the data type between two layers of the network."""
    # an engine may have thousands of these: what the findings share is worked out once (a
    # neighbour's short name, the cause and fix of a conversion)
    items = [r for r in reformats(ctx) if r.kind == "dtype"]
    for subject, message, why, fix, severity, lines, positions, t in _dtype_rows(ctx, items):
        yield make(
            ctx,
            check_reformat_dtype,
            subject,
            message,
            why,
            fix,
            severity=severity,
            lines=lines,
            layers=positions,
            time_ms=t,
        )


#: ``(subject, message, why, mitigation, severity, lines, layer positions, time)`` of a finding.
_Row = tuple[str, str, str, str, Severity, list[int], list[int], float | None]


def _dtype_rows(ctx: LintContext, items: list[Reformat]) -> Iterator[_Row]:
    """What :func:`make` takes for each ``reformat-dtype`` finding."""
    columns = ctx.columns
    names = columns.names
    n_inputs, n_outputs = columns.n_inputs, columns.n_outputs
    total = ctx.total_ms or 0.0
    timed = total > 0
    producers, consumers = ctx.producers, ctx.consumers
    shorts: dict[int, str] = {}
    # per conversion: the finding's why without the share, its fix, whether raised
    advice: dict[tuple[str | None, str | None], tuple[str, str, bool]] = {}
    for r in items:
        i = r.index
        src_dtype, dst_dtype = r.src_dtype, r.dst_dtype
        t = ctx.time_at(i)
        src, dst = r.src_name, r.dst_name
        if n_inputs[i] == 1 and n_outputs[i] == 1 and src[:5] != "__myl" and dst[:5] != "__myl":
            # upstream_at and downstream_at of one tensor each: the first of each is wanted
            u = producers.get(src)
            readers = consumers.get(dst)
            d = (readers[0] if len(readers) == 1 else min(readers)) if readers else None
        else:
            inputs, outputs = ctx.tensor_names_at(i)
            up = ctx.upstream_at(i, inputs)
            down = ctx.downstream_at(i, outputs)
            u = up[0] if up else None
            d = down[0] if down else None
        if d is not None:
            after = shorts.get(d)
            if after is None:
                after = shorts[d] = short(names[d], 70)
            if u is not None:
                before = shorts.get(u)
                if before is None:
                    before = shorts[u] = short(names[u], 70)
                between = f" between {before} and {after}"
                positions = [i, u, d]
            else:
                between = f" for {after}"
                positions = [i, d]
        else:
            between, positions = "", [i]
        found = advice.get((src_dtype, dst_dtype))
        if found is None:
            cause, fix, raised = _dtype_advice(ctx, src_dtype, dst_dtype)
            found = advice[src_dtype, dst_dtype] = (
                f"{cause}; the copy runs on every inference",
                fix,
                raised,
            )
        why, fix, raised = found
        name = r.name
        if t is not None and timed:
            # ctx.share(t) and _severity(ctx, t, "info"), inline
            why = f"{why} ({fmt_ms(t)}, {100 * t / total:.1f}% of the engine's layer time)"
            severity: Severity = "warning" if raised or t / total >= COSTLY_SHARE else "info"
        else:
            severity = "warning" if raised else "info"
        yield (
            name,
            f"{name if len(name) <= 100 else short(name, 100)} converts "
            f"{src_dtype}→{dst_dtype}{between}",
            why,
            fix,
            severity,
            [r.added.span[0]] if r.added is not None else [],
            positions,
            t,
        )


def _dtype_advice(
    ctx: LintContext, src_dtype: str | None, dst_dtype: str | None
) -> tuple[str, str, bool]:
    """The cause and fix of a ``reformat-dtype`` conversion, and whether it is a warning."""
    ints = {src_dtype, dst_dtype} & _LOW
    if ints and ctx.has_qdq:
        return (
            "a quantized layer is fed by (or feeds) an unquantized one without a Q/DQ "
            "pair: a missing Q/DQ, or an activation that was not fused",
            "add the missing Q/DQ pair (or fuse the activation) so both sides agree on "
            "INT8, or remove the Q/DQ of the quantized side",
            True,
        )
    if ints:
        return (
            "TensorRT picked INT8 for one side and a float precision for the other "
            "(implicit quantization chooses per layer by speed; plugins and layers without "
            "an INT8 kernel stay in float)",
            "nothing to fix if the float side is meant to be float; otherwise give it an "
            "INT8 implementation, or quantize the model explicitly with Q/DQ nodes",
            False,
        )
    return (
        f"the layers on its two sides run in {src_dtype} and {dst_dtype}: one had no "
        "kernel in the other precision, or was pinned to it",
        "let both sides run in the same precision (--precisionConstraints with "
        "--layerPrecisions for the pinned layer), or accept the copy",
        False,
    )


@rule(
    "reformat-layout",
    "info",
    "A reformat only changes the layout (vectorization) of a tensor",
    "A reformat that keeps the data type and changes only the memory layout (linear, CHW4, "
    "CHW32, HWC8...) exists because the kernels on its two sides chose formats that do not "
    "match: the autotuner judged the copy cheaper than the alternatives. It is informational "
    "unless it costs 2% or more of the layer time (then a warning): constraining the formats "
    "(fewer layout-changing ops such as Transpose/Reshape next to convolutions, channel "
    "counts that are multiples of 8 or 32) can avoid it.",
    needs=("engine",),
    other_severities=(("warning", _COSTLY),),
)
def check_reformat_layout(ctx: LintContext) -> Iterator[Finding]:
    """Reformats that change only the layout, one finding per conversion (``A → B``)."""
    groups: dict[tuple[str, str], list[Reformat]] = defaultdict(list)
    for r in reformats(ctx):
        if r.kind == "layout":
            groups[r.formats()].append(r)
    for (src_fmt, dst_fmt), items in groups.items():
        layers = [r.layer for r in items]
        ms = ctx.times(layers)
        share = ctx.share(ms)
        unknown = all(r.src.layout is None and r.dst.layout is None for r in items)
        if len(items) == 1:
            r = items[0]
            between, neighbours = _between(ctx, r.layer)
            if unknown and r.added is None:
                what = (
                    f"re-lays out a {r.src.dtype or '?'} tensor{between} (the layer information "
                    "does not print layouts)"
                )
            else:
                what = f"converts {src_fmt} to {dst_fmt}{between}"
            subject = r.layer.name
            message = f"{short(r.layer.name, 100)} {what}"
        else:
            costly = sorted(items, key=lambda r: -(ctx.time(r.layer) or 0.0))
            shown = ", ".join(_where(r.layer.name) for r in costly[:3])
            neighbours = []
            conversion = (
                f"re-lay out {items[0].src.dtype or '?'} tensors (the layer information does not "
                "print layouts)"
                if unknown and all(r.added is None for r in items)
                else f"convert {src_fmt} to {dst_fmt}"
            )
            subject = f"{len(items)} reformats {src_fmt}→{dst_fmt}"
            message = (
                f"{len(items)} reformats {conversion} between neighbouring layers"
                f" ({'the costliest: ' if ctx.timed else 'e.g. '}{shown})"
            )
        yield make(
            ctx,
            check_reformat_layout,
            subject,
            message,
            "the kernels on the two sides chose different layouts (a tactic-format mismatch); "
            f"{'the copy runs' if len(items) == 1 else 'the copies run'} on every inference"
            + (f" ({share})" if share else ""),
            "usually fine; when it is costly, look at the layers around the copy: a "
            "Shuffle/Transpose, a channel count that is not a multiple of the vector width, or a "
            "layer without a kernel in the vectorized layout forces it",
            severity=_severity(ctx, ms, "info"),
            lines=_lines(items),
            layers=[*layers, *neighbours],
            time_ms=ms,
        )
