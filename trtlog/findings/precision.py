"""Precision rules: layers left in FP32 in a reduced-precision build.

Part of the view package :mod:`trtlog.findings`. An INT8 build without FP16 runs every layer
outside the quantized region in FP32; ``--layerPrecisions`` without precision constraints is
a hint TensorRT may ignore; FP16 on hardware without native FP16 is emulated.
"""

from __future__ import annotations

from collections.abc import Iterator

from trtlog.findings.base import make, rule
from trtlog.findings.context import LintContext, short
from trtlog.findings.models import Finding
from trtlog.layers import EngineLayer

__all__ = ["check_precision_fallback"]


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


_SHAPE_TYPES = frozenset({"Constant", "NoOp", "Shuffle", "Slice", "Gather", "Concatenation"})


def _fp32_compute(ctx: LintContext, layer: EngineLayer) -> bool:
    """A layer that computes in FP32 (its outputs are FP32; reformats and constants aside)."""
    if layer.is_reformat or layer.type in _SHAPE_TYPES or ctx.qdq_role(layer) is not None:
        return False
    if layer.type in ("signal", "wait", "shape_call"):
        return False
    outs = [t.dtype for t in layer.outputs if t.dtype]
    if not outs or not all(d == "FP32" for d in outs):
        return False
    compute = layer.precision.compute
    return compute in (None, "FP32")


@rule(
    "precision-fallback",
    "warning",
    "Layers run in FP32 in an FP16/INT8 build",
    "Reduced precision only reaches the layers it is enabled for. An INT8 build without FP16 "
    "(`--int8` alone) runs every layer outside the quantized region (and every layer TensorRT "
    "found no INT8 kernel for) in FP32, often the slowest part of the engine. "
    "`--layerPrecisions` without `--precisionConstraints` is only a preference TensorRT may "
    "ignore. FP16 requested on a GPU without native FP16 runs emulated.",
    needs=("log", "engine"),
)
def check_precision_fallback(ctx: LintContext) -> Iterator[Finding]:
    """FP32 layers of an INT8 build without FP16, ignored layer precisions, emulated FP16."""
    check = check_precision_fallback
    precisions = ctx.precisions
    line = ctx.option_lines.get("Precision")
    lines = [line] if line else []
    if "INT8" in precisions and not {"FP16", "BF16"} & set(precisions):
        fp32 = [x for x in ctx.layers if _fp32_compute(ctx, x)]
        if fp32:
            stake = ctx.times(fp32)
            share = ctx.share(stake)
            names = ", ".join(short(x.name, 60) for x in fp32[:3])
            more = f" and {len(fp32) - 3} more" if len(fp32) > 3 else ""
            yield make(
                ctx,
                check,
                f"{len(fp32)} layer{'s' if len(fp32) != 1 else ''}",
                f"the build enables INT8 but not FP16 (Precision: {ctx.option('Precision')}): "
                f"{_n(len(fp32), 'layer')} outside the quantized region "
                f"run{'' if len(fp32) != 1 else 's'} in FP32 ({names}{more})",
                "layers without Q/DQ (or without an INT8 kernel) fall back to FP32, not FP16"
                + (f"; they take {share}" if share else ""),
                "add --fp16 (trtexec) or BuilderFlag.FP16 so the non-quantized layers can run in "
                "FP16; quantize them if they should run in INT8",
                lines=lines,
                layers=fp32,
                time_ms=stake,
            )
    layer_precisions = (ctx.option("LayerPrecisions") or "").strip()
    if (
        layer_precisions
        and ctx.build is not None
        and ctx.build.options.precision_constraints is None
    ):
        key = ctx.option_lines.get("LayerPrecisions")
        # "a non-conforming implementation was chosen" (8.0+): the layers that ignored them
        ignored = ctx.events("nonconforming_implementation")
        layers = list(dict.fromkeys(e.layer for e in ignored))
        shown = ", ".join(short(x, 60) for x in layers[:3]) + (
            f" and {len(layers) - 3} more" if len(layers) > 3 else ""
        )
        yield make(
            ctx,
            check,
            "--layerPrecisions",
            f"per-layer precisions are set ({short(layer_precisions, 80)}) without precision "
            "constraints"
            + (
                f"; TensorRT chose other precisions for {_n(len(layers), 'layer')} ({shown})"
                if layers
                else ""
            ),
            "without --precisionConstraints=obey|prefer TensorRT treats the requested precisions "
            "as hints and picks the fastest kernels, which may run in FP32",
            "add --precisionConstraints=prefer (or obey) so the per-layer precisions are applied",
            lines=[n for n in (key, line) if n] + [e.span[0] for e in ignored[:20]],
            names=layers,
        )
    for e in ctx.events("fp16_no_native_support"):
        yield make(
            ctx,
            check,
            "FP16",
            "FP16 was requested on hardware without native FP16 support",
            "TensorRT emulates FP16 or keeps FP32 kernels: no speed-up from --fp16 on this GPU",
            "build without --fp16 on this device, or use a GPU with native FP16",
            lines=[e.span[0]],
        )
        break
