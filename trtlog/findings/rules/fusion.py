"""Fusion rules: an activation left apart from its convolution, a requested precision fused away.

Part of the view package :mod:`trtlog.findings`. Both read the engine's layers (a
record or an engine-listing line each, any version's notation) and, for the precision rule,
the option lines and the fusion lines of the log.
"""

from __future__ import annotations

from collections.abc import Iterator

from trtlog.engine.model import EngineLayer
from trtlog.events import Fusion, HorizontalMerge
from trtlog.findings.base import make, rule
from trtlog.findings.context import LintContext, short
from trtlog.findings.models import Finding
from trtlog.names import op_of, split_name

__all__ = ["check_activation_not_fused", "check_layer_precision_overridden"]

# -- activation-not-fused ---------------------------------------------------------------------

#: ONNX ops of an activation TensorRT can fuse into the convolution or GEMM before it
_ACTIVATIONS = frozenset(
    {
        "Relu",
        "LeakyRelu",
        "Sigmoid",
        "Mul",
        "HardSwish",
        "HardSigmoid",
        "Gelu",
        "Clip",
        "PRelu",
        "Elu",
        "Selu",
        "Tanh",
        "Softplus",
        "Swish",
        "Silu",
        "Activation",
    }
)
# words of the activation ops in layer and node names (a cheap test before the op lookup)
_ACTIVATION_WORDS = (
    "relu", "sigmoid", "swish", "silu", "clip", "gelu", "elu", "tanh", "softplus", "activation",
)  # fmt: skip
_POINTWISE_TYPES = frozenset({"Activation", "PointWise", "PointWiseV2", "ElementWise"})


_CONV_OPS = frozenset({"Conv", "ConvTranspose"})


def _convolution(ctx: LintContext, layer: EngineLayer) -> bool:
    """A convolution, also under a 7.x kernel type (``i8816cudnn``, ``scudnn``...).

    GEMMs are left out: a MatMul/Gemm epilogue with SiLU or GELU is not a fusion TensorRT
    promises (a diffusion model's time embedding keeps its SiLU apart in FP16, corpus
    controlnet engine), so a split there is no finding.
    """
    nodes = ctx.compute_nodes(layer) or split_name(layer.name).members()
    first = (ctx.op(nodes[0]) or op_of(nodes[0])) if nodes else None
    if first in _CONV_OPS:
        return True
    kind = (layer.type or "").lower()
    return "conv" in kind and "gemm" not in kind and first not in ("MatMul", "Gemm")


def _activation_ops(ctx: LintContext, layer: EngineLayer) -> list[str] | None:
    """The ops of a layer that is only an activation, or ``None``."""
    if layer.type is not None and layer.type not in _POINTWISE_TYPES:
        return None
    nodes = [n for n in ctx.compute_nodes(layer)] or list(split_name(layer.name).members())
    ops = [ctx.op(n) or op_of(n) or "" for n in nodes]
    if not ops or not all(op in _ACTIVATIONS for op in ops):
        return None
    if ops == ["Mul"]:
        return None  # a lone Mul is a scale, not an activation
    return ops


@rule(
    "activation-not-fused",
    "warning",
    "An activation runs as its own kernel after a convolution",
    "TensorRT fuses an activation into the convolution or GEMM that feeds it when a kernel "
    "with that epilogue exists: ReLU always in FP16/FP32, LeakyReLU in FP16 and in INT8 only "
    "on Turing/Ampere kernels, SiLU as PWN(Sigmoid, Mul) from 8.4 on. When the pair runs as "
    "two kernels the activation costs a full extra read and write of the tensor. Depthwise "
    "convolutions keep their point-wise ops apart on purpose (their standalone kernel is "
    "faster).",
    needs=("engine",),
)
def check_activation_not_fused(ctx: LintContext) -> Iterator[Finding]:
    """A convolution whose only reader is a separate activation layer."""
    layers = ctx.layers
    columns = ctx.columns
    types, n_inputs = columns.types, columns.n_inputs
    # cheapest tests first, on the columns (the type test once per type): this runs over
    # 20,000-layer engines
    conv_types = {
        kind: kind is None or "onv" in kind or "cudnn" in kind.lower() for kind in set(types)
    }
    candidates = [
        i
        for i, (kind, n_outputs) in enumerate(zip(types, columns.n_outputs, strict=True))
        if n_outputs == 1 and conv_types[kind]
    ]
    if not candidates:
        return
    consumers = ctx.consumers
    for i in candidates:
        key = ctx.first_output_key(i)
        readers = consumers.get(key, ()) if key is not None else ()
        if len(readers) != 1:
            continue
        reader = readers[0]
        kind = types[reader]  # the reader's input count and type, from the columns
        if n_inputs[reader] != 1 or (kind is not None and kind not in _POINTWISE_TYPES):
            continue
        conv = layers[i]
        tensor = conv.outputs[0].name
        act = layers[reader]
        text = act.name.lower()
        if not any(k in text for k in _ACTIVATION_WORDS) and not any(
            k in n.lower() for n in act.onnx_nodes for k in _ACTIVATION_WORDS
        ):
            continue  # no activation named: the common point-wise layer
        ops = _activation_ops(ctx, act)
        if ops is None or conv.is_myelin_kernel or not _convolution(ctx, conv):
            continue
        if ctx.bindings and ctx.is_network_output(conv, tensor):
            continue
        int8 = ctx.is_int8(conv)
        if ops == ["Relu"] and int8:
            continue  # a plain ReLU is remarkable only in FP16/FP32, where it always fuses
        groups = conv.parameters.get("Groups")
        depthwise = (
            isinstance(groups, int) and groups > 1 and groups == conv.parameters.get("OutMaps")
        ) or "depthwise" in (conv.tactic_name or "")
        if depthwise:
            why = (
                "a depthwise convolution: TensorRT keeps its point-wise ops apart because the "
                "standalone depthwise kernel is faster than one with the activation chained"
            )
        elif int8 and "LeakyRelu" in ops:
            why = "INT8 LeakyReLU fuses only with Turing/Ampere INT8 kernels"
        else:
            why = f"no {'INT8' if int8 else 'fused'} kernel with this epilogue was chosen"
        stake = ctx.times([act])
        share = ctx.share(stake)
        yield make(
            ctx,
            check_activation_not_fused,
            short(act.name, 120),
            f"{short(act.name, 80)} ({'+'.join(dict.fromkeys(ops))}) runs as a separate kernel "
            f"after {short(conv.name, 80)}: {why}",
            "the activation reads and writes the whole tensor once more"
            + (f"; it takes {share}" if share else ""),
            "keep the activation directly after the convolution (no Cast/Reshape between), "
            "build with FP16, or use an activation the GPU fuses (ReLU instead of "
            "LeakyReLU/SiLU) where no fused kernel exists; with Q/DQ, quantize after the "
            "activation, not between",
            layers=[conv, act],
            time_ms=stake,
        )


# -- layer-precision-overridden ---------------------------------------------------------------

_TYPES = {
    "fp32": "FP32",
    "fp16": "FP16",
    "bf16": "BF16",
    "int8": "INT8",
    "fp8": "FP8",
    "int32": "INT32",
}


def _requests(text: str | None) -> dict[str, str]:
    """``MatMul_14:fp32,/x:fp16`` → {layer: type}; a ``*`` entry is a default, not a layer."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        layer, _, kind = part.strip().rpartition(":")
        dtype = _TYPES.get(kind.strip().lower())
        if layer and dtype and layer != "*":
            out[layer] = dtype
    return out


@rule(
    "layer-precision-overridden",
    "warning",
    "A requested layer precision was lost in a fusion",
    "With precision constraints on (obey/prefer), --layerPrecisions and --layerOutputTypes pin "
    "a layer's precision. TensorRT versions have fused such a layer with its neighbours "
    "anyway (ConstShuffleFusion of a constant pinned to FP32, a horizontal merge of parallel "
    "GEMMs) into a layer that runs another precision, so the request has no effect.",
    needs=("log", "engine"),
)
def check_layer_precision_overridden(ctx: LintContext) -> Iterator[Finding]:
    """A layer with a requested precision inside a fused layer of another precision."""
    build = ctx.build
    if build is None or build.options.precision_constraints is None:
        return  # without constraints the request is a hint (precision-fallback's business)
    requests = {
        **_requests(ctx.option("LayerOutputTypes")),
        **_requests(ctx.option("LayerPrecisions")),
    }
    if not requests:
        return
    option_lines = [
        n for n in (ctx.option_lines.get(k) for k in ("LayerPrecisions", "LayerOutputTypes")) if n
    ]
    fusions = ctx.events(Fusion, HorizontalMerge)
    for layer in ctx.layers:
        members = split_name(layer.name).members()
        if len(members) < 2:
            continue
        for requested, dtype in requests.items():
            if requested not in members:
                continue
            got = {t.dtype for t in layer.outputs if t.dtype is not None}
            if not got or dtype in got or got <= {"INT32", "BOOL"}:
                continue  # unknown type, obeyed, or a shape layer (INT32 by nature)
            lines = [
                e.span[0]
                for e in fusions
                if requested
                in (
                    e.layers
                    if isinstance(e, HorizontalMerge)
                    else (*split_name(e.first).members(), *split_name(e.second).members())
                )
            ]
            yield make(
                ctx,
                check_layer_precision_overridden,
                short(requested, 120),
                f"{requested} was asked to run in {dtype}, but TensorRT fused it into "
                f"{short(layer.name, 80)}, which writes {'/'.join(sorted(got))}",
                "the requested precision has no effect: the fused layer runs in the precision "
                "of the fusion",
                "request the precision on every member of the fusion, mark the tensor as a "
                "network output, or keep the layers apart when the precision matters for "
                "accuracy (e.g. a no-op between them)",
                lines=[*option_lines, *lines[:10]],
                layers=[layer],
                line_count=len(option_lines) + len(lines),
            )
