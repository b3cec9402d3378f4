"""Reformat rules: every ``Reformatting CopyNode`` classified, with its share of time.

Part of the view package :mod:`trtlog.findings`. A reformat copies a tensor to another data
type or memory layout. At a network binding it converts the application's format
(``reformat-io-boundary``); inside the network it either changes the data type
(``reformat-dtype``: a precision boundary) or only the layout/vectorization
(``reformat-layout``: two neighbouring kernels chose formats that do not match). Reformats of
Q/DQ origin are quantizers, reported by ``qdq-unfused-quantizer``; ``NoOp`` reformats that
take no time are left out.
"""

from __future__ import annotations

from collections.abc import Iterator

from trtlog.findings.base import make, rule
from trtlog.findings.context import LintContext, short
from trtlog.findings.models import Finding, Severity
from trtlog.layers import EngineLayer
from trtlog.tensors import Tensor

__all__ = ["check_reformat_dtype", "check_reformat_io_boundary", "check_reformat_layout"]

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


def _fmt(t: Tensor) -> str:
    return f"{t.dtype or '?'}/{t.layout or '?'}"


def _reformats(ctx: LintContext) -> Iterator[tuple[EngineLayer, Tensor, Tensor, str]]:
    """Reformat layers (not Q/DQ), their first input and output, and their class."""
    for layer in ctx.layers:
        if not layer.is_reformat or ctx.qdq_role(layer) is not None:
            continue
        if not layer.inputs or not layer.outputs:
            continue
        t = ctx.time(layer)
        if layer.type == "NoOp" and (t is None or t == 0.0):
            continue  # a NoOp reformat moves no data
        src, dst = layer.inputs[0], layer.outputs[0]
        if ctx.is_network_input(src.name) or ctx.is_network_output(dst.name):
            kind = "io"
        elif src.dtype and dst.dtype and src.dtype != dst.dtype:
            kind = "dtype"
        else:
            kind = "layout"
        yield layer, src, dst, kind


def _severity(ctx: LintContext, layer: EngineLayer, base: Severity) -> Severity:
    t = ctx.time(layer)
    total = ctx.total_ms
    if t is not None and total and t / total >= 0.02 and base == "info":
        return "warning"
    return base


@rule(
    "reformat-io-boundary",
    "info",
    "A reformat converts a network input or output",
    "The application hands TensorRT its inputs (and gets its outputs) in the binding formats, "
    "FP32 linear by default. When the first or last layer wants another type or layout, a "
    "reformat converts at the boundary. `--inputIOFormats`/`--outputIOFormats` (or "
    "`ITensor.allowed_formats`/`dtype`) let the engine take and give the format its kernels "
    "use. Raised to warning when the reformat takes 2% or more of the layer time.",
    needs=("engine",),
)
def check_reformat_io_boundary(ctx: LintContext) -> Iterator[Finding]:
    """Reformats at network bindings, with the I/O format flag that would remove them."""
    for layer, src, dst, kind in _reformats(ctx):
        if kind != "io":
            continue
        t = ctx.time(layer)
        share = ctx.share(t)
        if ctx.is_network_input(src.name):
            flag = "--inputIOFormats"
            wanted = dst
            where = f"network input {src.name}"
        else:
            flag = "--outputIOFormats"
            wanted = src
            where = f"network output {dst.name}"
        dtype = _DTYPE_FLAG.get(wanted.dtype or "", "?")
        fmt = f"{dtype}:{_LAYOUT_FLAG.get(wanted.layout or '', 'chw')}"
        yield make(
            ctx,
            check_reformat_io_boundary,
            layer.name,
            f"{short(layer.name, 100)} converts the {where} from {_fmt(src)} to {_fmt(dst)}",
            "a copy of the tensor on every inference" + (f" ({share})" if share else ""),
            f"if the application can exchange {wanted.dtype} {wanted.layout or ''} data, build "
            f"with {flag}={fmt} so the engine uses it directly",
            severity=_severity(ctx, layer, "info"),
            layers=[layer],
            time_ms=t,
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
)
def check_reformat_dtype(ctx: LintContext) -> Iterator[Finding]:
    """Reformats that change the data type between two layers of the network."""
    for layer, src, dst, kind in _reformats(ctx):
        if kind != "dtype":
            continue
        t = ctx.time(layer)
        share = ctx.share(t)
        up = ctx.upstream(layer)
        down = ctx.downstream(layer)
        between = ""
        if up and down:
            between = f" between {short(up[0].name, 70)} and {short(down[0].name, 70)}"
        ints = {src.dtype, dst.dtype} & {"INT8", "FP8"}
        severity = _severity(ctx, layer, "info")
        if ints and ctx.has_qdq:
            severity = "warning"
            cause = (
                "a quantized layer is fed by (or feeds) an unquantized one without a Q/DQ "
                "pair: a missing Q/DQ, or an activation that was not fused"
            )
            fix = (
                "add the missing Q/DQ pair (or fuse the activation) so both sides agree on "
                "INT8, or remove the Q/DQ of the quantized side"
            )
        elif ints:
            cause = "TensorRT chose INT8 for one side and float for the other"
            fix = "check the calibration ranges of the layers on both sides"
        else:
            cause = (
                f"the layers on its two sides run in {src.dtype} and {dst.dtype}: one had no "
                "kernel in the other precision, or was pinned to it"
            )
            fix = (
                "let both sides run in the same precision (--precisionConstraints with "
                "--layerPrecisions for the pinned layer), or accept the copy"
            )
        yield make(
            ctx,
            check_reformat_dtype,
            layer.name,
            f"{short(layer.name, 100)} converts {src.dtype}→{dst.dtype}{between}",
            f"{cause}; the copy runs on every inference" + (f" ({share})" if share else ""),
            fix,
            severity=severity,
            layers=[layer, *up[:1], *down[:1]],
            time_ms=t,
        )


@rule(
    "reformat-layout",
    "info",
    "A reformat only changes the layout (vectorization) of a tensor",
    "A reformat that keeps the data type and changes only the memory layout (linear, CHW4, "
    "CHW32, HWC8...) exists because the kernels on its two sides chose formats that do not "
    "match: the autotuner judged the copy cheaper than the alternatives. It is informational "
    "unless it costs 2% or more of the layer time (then a warning): constraining the formats "
    "(`--precisionConstraints`, fewer layout-changing ops such as Transpose/Reshape next to "
    "convolutions) can avoid it.",
    needs=("engine",),
)
def check_reformat_layout(ctx: LintContext) -> Iterator[Finding]:
    """Reformats that change only the layout between two layers."""
    for layer, src, dst, kind in _reformats(ctx):
        if kind != "layout":
            continue
        t = ctx.time(layer)
        share = ctx.share(t)
        up = ctx.upstream(layer)
        down = ctx.downstream(layer)
        between = ""
        if up and down:
            between = f" between {short(up[0].name, 70)} and {short(down[0].name, 70)}"
        yield make(
            ctx,
            check_reformat_layout,
            layer.name,
            f"{short(layer.name, 100)} converts {_fmt(src)} to {_fmt(dst)}{between}",
            "the kernels on the two sides chose different layouts (a tactic-format mismatch); "
            "the copy runs on every inference" + (f" ({share})" if share else ""),
            "usually fine; when it is costly, look at the layer before it: a Shuffle/Transpose "
            "or a layer without a kernel in the vectorized layout forces the copy",
            severity=_severity(ctx, layer, "info"),
            layers=[layer, *up[:1], *down[:1]],
            time_ms=t,
        )
