"""Precision rules: layers left in FP32 in a reduced-precision build.

Part of the view package :mod:`trtlog.findings`. An INT8 build without FP16 runs every layer
outside the quantized region in FP32; ``--layerPrecisions`` without precision constraints is
a hint TensorRT may ignore; FP16 on hardware without native FP16 is emulated. A strongly typed
build (TensorRT 11 builds nothing else) has none of these flags: it runs the types of its
model, and an FP32 model runs in FP32 (``strongly-typed-fp32``).
"""

from __future__ import annotations

from collections.abc import Iterator

from trtlog.engine.model import EngineLayer, layer_precision
from trtlog.events import (
    Fp16NoNativeSupport,
    NonconformingImplementation,
    StrictTypeViolation,
)
from trtlog.findings.advice import fp16_flag
from trtlog.findings.base import make, rule
from trtlog.findings.context import LintContext, fmt_ms, short
from trtlog.findings.models import Finding

__all__ = ["check_precision_fallback", "check_strongly_typed_fp32"]


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


_SHAPE_TYPES = frozenset({"Constant", "NoOp", "Shuffle", "Slice", "Gather", "Concatenation"})


def _fp32_compute(ctx: LintContext, layer: EngineLayer) -> bool:
    """A layer that computes in FP32 and writes FP32 (reformats and constants aside).

    Its precision is :func:`~trtlog.engine.model.layer_precision`'s (the kernel's, else the
    type it reads): an INT8 convolution writing FP32 is not one, whichever form of the
    engine's layers tells it.
    """
    if layer.is_reformat or layer.type in _SHAPE_TYPES or ctx.qdq_role(layer) is not None:
        return False
    if layer.type in ("signal", "wait", "shape_call"):
        return False
    outs = [t.dtype for t in layer.outputs if t.dtype]
    if not outs or not all(d == "FP32" for d in outs):
        return False
    precision = layer_precision(layer.tactic_name, layer.parameters, layer.inputs, layer.outputs)
    return precision in (None, "FP32")


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
    if ctx.strongly_typed:
        return  # no precision flags to fall back from: the model's types are the precision
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
                f"add {fp16_flag(ctx)} (trtexec) or BuilderFlag.FP16 so the non-quantized "
                "layers can run in FP16; quantize them if they should run in INT8",
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
        ignored = ctx.events(NonconformingImplementation)
        layers = list(dict.fromkeys(e.layer for e in ignored))
        shown = ", ".join(short(x, 60) for x in layers[:3]) + (
            f" and {len(layers) - 3} more" if len(layers) > 3 else ""
        )
        yield make(
            ctx,
            check,
            short(", ".join(layers), 120) if 0 < len(layers) <= 3 else "--layerPrecisions",
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
            line_count=len([n for n in (key, line) if n]) + len(ignored),
        )
    strict = ctx.events(StrictTypeViolation)
    if strict:
        layers = list(dict.fromkeys(e.layer for e in strict))
        shown = ", ".join(short(x, 60) for x in layers[:3]) + (
            f" and {len(layers) - 3} more" if len(layers) > 3 else ""
        )
        yield make(
            ctx,
            check,
            short(", ".join(layers), 120) if len(layers) <= 3 else _n(len(layers), "layer"),
            f"no implementation of {_n(len(layers), 'layer')} ({shown}) obeys the requested "
            "precisions in strict mode: TensorRT ignored them and used the fastest kernel",
            "the layers run in another precision than requested (7.x-8.2 strict types)",
            "check that the requested precision has kernels for these layers (an INT8 layer "
            "needs INT8 inputs and outputs, FP16 needs --fp16), or drop the per-layer request",
            lines=[e.span[0] for e in strict[:20]],
            line_count=len(strict),
            names=layers,
        )
    for e in ctx.events(Fp16NoNativeSupport):
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


# the types a strongly typed build gets only when the model asks for them
_REDUCED = frozenset({"FP16", "BF16", "FP8", "INT8", "FP4", "INT4"})


def _low_compute(layer: EngineLayer) -> bool:
    """A layer that computes or writes a reduced-precision type (``layer_precision``)."""
    precision = layer_precision(layer.tactic_name, layer.parameters, layer.inputs, layer.outputs)
    if precision in _REDUCED:
        return True
    return any(t.dtype in _REDUCED for t in layer.outputs)


@rule(
    "strongly-typed-fp32",
    "warning",
    "A strongly typed engine runs mostly in FP32",
    "A strongly typed network runs the types of its model: TensorRT 11 builds nothing else, "
    "and `--fp16`, `--int8`, `--best` and calibration are gone. An ONNX model exported in FP32, "
    "that nothing converted to FP16/BF16 or quantized, therefore builds an FP32 engine: the "
    "typical surprise of an upgrade from TensorRT 10, where `--fp16` made the same model run "
    "in FP16.",
    needs=("engine",),
)
def check_strongly_typed_fp32(ctx: LintContext) -> Iterator[Finding]:
    """Most of a strongly typed engine's time (or weighted layers) in FP32, without Q/DQ."""
    if not ctx.strongly_typed or ctx.has_qdq or not ctx.engine or not ctx.engine.detailed:
        return
    compute = [x for x in ctx.layers if _fp32_compute(ctx, x) or _low_compute(x)]
    fp32 = [x for x in compute if _fp32_compute(ctx, x)]
    weighted = [x for x in fp32 if ctx.is_weighted(x)]
    if not weighted:
        return  # no FP32 convolution or GEMM: nothing a lower precision would speed up much
    stake = ctx.times(fp32)
    total = ctx.times(compute)
    if stake is not None and total:
        if stake < 0.5 * total:
            return  # FP32 for a minority of the time: a choice (AutoCast keeps some in FP32)
        how = ctx.share(stake) or fmt_ms(stake)
    else:
        all_weighted = [x for x in compute if ctx.is_weighted(x)]
        if len(weighted) * 2 < len(all_weighted):
            return
        how = f"{len(weighted)} of {len(all_weighted)} convolutions/GEMMs"
    names = ", ".join(short(x.name, 60) for x in weighted[:3])
    more = f" and {len(weighted) - 3} more" if len(weighted) > 3 else ""
    line = ctx.option_lines.get("Precision")
    lines = [line] if line else []
    yield make(
        ctx,
        check_strongly_typed_fp32,
        f"{len(fp32)} FP32 layer{'s' if len(fp32) != 1 else ''}",
        f"{len(fp32)} of {len(compute)} compute layers run in FP32 ({how}), among them "
        f"{len(weighted)} convolution{'' if len(weighted) == 1 else 's'}/GEMM"
        f"{'' if len(weighted) == 1 else 's'} ({names}{more}): the build is strongly typed, "
        "so it runs the model's own types, and the model's tensors are FP32",
        "FP32 convolutions and GEMMs run several times slower than FP16 ones on tensor cores; "
        "under TensorRT 10, --fp16 let the builder run them in FP16 without changing the model",
        "convert the model before building: `python -m modelopt.onnx.autocast --onnx_path "
        "model.onnx --output_path model_fp16.onnx` (ModelOpt AutoCast; it keeps sensitive ops in "
        "FP32), or export it in FP16/BF16 from the framework, or quantize it with Q/DQ nodes "
        "(ModelOpt); TensorRT 11 has no --fp16 or --best flag. Nothing to do if FP32 is intended",
        lines=lines,
        layers=fp32,
        time_ms=stake,
    )
