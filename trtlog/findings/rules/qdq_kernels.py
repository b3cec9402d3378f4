"""Q/DQ rules read from one layer record: unquantized weights, a float kernel under DQ nodes.

Part of the view package :mod:`trtlog.findings`. Both judge a convolution or GEMM
from its record alone (types of its inputs and weights, its kernel name, the ONNX nodes of
its ``Metadata`` or name), so they work on a pasted record of any version, and on TensorRT
10/11 Myelin kernels (``gemm`` records with ``Metadata``), where the log prints few fusion
lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trtlog.engine.model import EngineLayer
from trtlog.findings.base import make, rule
from trtlog.findings.context import FLOAT_TYPES, LOW_TYPES, LintContext, short
from trtlog.findings.models import Finding
from trtlog.names import is_qdq_node

__all__ = [
    "check_qdq_gemm_float_kernel",
    "check_qdq_myelin_split",
    "check_qdq_weights_unquantized",
]

# kernel-name markers (docs/fragments-research.md §3.3)
_LOW_KERNEL = re.compile(
    r"i8i8|int8|_s8_|imma|e4m3|e5m2|fp8|i8816|int4|fp4|nvfp4|e2m1|mxf[468]", re.I
)
_FLOAT_KERNEL = re.compile(r"f16f16|h1688|h884|hmma|tf32|f32f32|bf16bf16|_f16_|fp16", re.I)
_WEIGHT_ONLY = re.compile(r"TRT_(?:INT4|FP4|MXFP8)\w*DequantizeLinear|INT4|weight_only", re.I)


def _dequantizers(ctx: LintContext, layer: EngineLayer) -> list[str]:
    return [n for n in ctx.nodes(layer) if "equantize" in n and is_qdq_node(n)]


def _weights_type(layer: EngineLayer) -> str | None:
    weights = layer.parameters.get("Weights")
    if isinstance(weights, dict):
        kind = weights.get("Type")
        return str(kind) if kind is not None else None
    return None


def _is_weight_dq(name: str) -> bool:
    lowered = name.lower()
    return "weight" in lowered or "onnx::" in lowered or _WEIGHT_ONLY.search(name) is not None


@rule(
    "qdq-weights-unquantized",
    "warning",
    "A convolution/GEMM's input is quantized but its weights are not",
    "TensorRT fuses a DequantizeLinear into a convolution or GEMM only when both the input "
    "and the weights are quantized: it needs INT8 (or FP8) on both sides to pick a quantized "
    "kernel. A Q/DQ pair on the activation alone leaves the DQ standalone and the layer "
    "computing in float with float weights, so the quantizers only add work.",
    needs=("engine",),
    qdq=True,
)
def check_qdq_weights_unquantized(ctx: LintContext) -> Iterator[Finding]:
    """A weighted layer fed by a standalone DQ, whose weights have no quantizer and are float."""
    for layer in ctx.weighted_layers:
        weights = _weights_type(layer)
        if weights not in ("Half", "Float", "BFloat16"):
            continue  # unknown (a names-only dump) or quantized weights
        if layer.is_myelin_kernel or ctx.is_int8(layer):
            continue
        if any(_is_weight_dq(n) or "uantize" in n for n in ctx.nodes(layer)):
            continue  # a quantizer of its own: the weights are quantized
        dqs = [x for x in ctx.upstream(layer) if ctx.qdq_role(x) == "DQ"]
        if not dqs:
            continue
        yield make(
            ctx,
            check_qdq_weights_unquantized,
            short(layer.name, 120),
            f"{short(layer.name, 80)} reads a dequantized input ({short(dqs[0].name, 80)}) "
            f"but its weights have no Q/DQ pair and stay {weights}: TensorRT cannot fuse the "
            "DQ and runs the layer in float",
            "the DQ runs as its own kernel and the layer gets none of INT8's speed",
            "quantize the weights too (a per-channel Q/DQ pair on the weight initializer), or "
            "remove the activation's Q/DQ to leave the layer in float on purpose",
            layers=[*dqs[:1], layer],
        )


@rule(
    "qdq-gemm-float-kernel",
    "warning",
    "A quantized GEMM or convolution runs a float kernel",
    "The layer holds the DequantizeLinear nodes of both its operands, yet it reads FP16/FP32 "
    "tensors and its kernel is a float kernel: TensorRT dequantized to float and ran an "
    "ordinary GEMM. In TensorRT 10/11 Myelin regions this is the usual reason an INT8 or FP8 "
    "model is not faster: the scale scheme has no quantized kernel (per-channel weights with "
    "dynamic per-token activations), a Cast sits between the DQ and the GEMM, or the GPU lacks "
    "the type.",
    needs=("engine",),
    qdq=True,
)
def check_qdq_gemm_float_kernel(ctx: LintContext) -> Iterator[Finding]:
    """A GEMM/convolution with activation and weight DQ nodes that reads float and runs float."""
    for layer in ctx.weighted_layers:
        if "equantize" not in (layer.metadata or layer.name):
            continue  # most layers hold no DQ node
        dqs = _dequantizers(ctx, layer)
        if len(dqs) < 2:
            continue
        activation = [n for n in dqs if not _is_weight_dq(n)]
        if not activation or all(_WEIGHT_ONLY.search(n) for n in dqs):
            continue  # weight-only quantization: float activations by design
        types = {t.dtype for t in layer.inputs}
        if not types or None in types or not types <= FLOAT_TYPES or types & LOW_TYPES:
            continue  # unknown, or a quantized input
        kernel = layer.tactic_name or ""
        if _LOW_KERNEL.search(kernel) or (kernel and not _FLOAT_KERNEL.search(kernel)):
            continue  # a quantized kernel, or one whose name says nothing
        stake = ctx.times([layer])
        share = ctx.share(stake)
        node = next((n for n in ctx.compute_nodes(layer) if not is_qdq_node(n)), layer.name)
        yield make(
            ctx,
            check_qdq_gemm_float_kernel,
            short(node, 120),
            f"{short(layer.name, 80)} holds the DQ nodes of its operands "
            f"({', '.join(short(n, 60) for n in dqs[:2])}) but reads "
            f"{'/'.join(sorted(x for x in types if x))}"
            + (f" and runs the float kernel {short(kernel, 60)}" if kernel else ""),
            "the quantization buys nothing here: the GEMM runs in float after dequantizing"
            + (f"; it takes {share}" if share else ""),
            "give the GEMM a scale scheme TensorRT has a kernel for (per-tensor or block "
            "scales on both operands), remove Casts between the DQ and the GEMM (FP16 "
            "conversion inserts them), and check that the GPU supports the type",
            layers=[layer],
            time_ms=stake,
        )


#: ops that only move or retype data: a kernel of a DQ and these still only dequantizes
_MOVES = frozenset(
    {"Transpose", "Reshape", "Cast", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Copy"}
)


def _dequantizes(ctx: LintContext, layer: EngineLayer) -> list[str]:
    """The activation DQ nodes a kernel runs while turning a quantized tensor into float.

    Its ONNX nodes name a DequantizeLinear that is not a weight's, it reads a quantized tensor
    and writes only float ones: a Myelin kernel that dequantizes (``__myl_CastMul``), alone or
    with pointwise ops after it.
    """
    if "equantize" not in (layer.metadata or layer.name):
        return []  # one substring test first: most kernels hold no DQ node
    if not any(t.dtype in LOW_TYPES for t in layer.inputs):
        return []
    outs = {t.dtype for t in layer.outputs}
    if not outs or not outs <= FLOAT_TYPES:
        return []
    if any(ctx.op(n) not in _MOVES for n in ctx.compute_nodes(layer)):
        return []  # the DQ feeds a computation of this kernel (an Add), not the next GEMM
    return [
        n
        for n in ctx.nodes(layer)
        if "equantize" in n
        and is_qdq_node(n)
        and not _is_weight_dq(n)
        and not _WEIGHT_ONLY.search(n)
    ]


@rule(
    "qdq-myelin-split",
    "warning",
    "Myelin dequantized a GEMM's input in a kernel of its own and ran the GEMM in float",
    "In a quantized network the DequantizeLinear in front of a GEMM or convolution belongs "
    "to that layer: TensorRT fuses the DQ into it and runs a quantized kernel. In TensorRT "
    "10/11 Myelin compiles such regions into kernels of its own choosing; when it puts the DQ "
    "into a separate kernel (a generated `__myl_Cast...Mul` kernel whose `Metadata` names the "
    "DQ node, writing FP16/FP32) the GEMM kernel after it reads float and runs a float "
    "kernel. The Q/DQ region was split: the tensor is quantized, dequantized and multiplied "
    "in float, which is slower than no quantization at all. Usual causes: an op between the "
    "DQ and the MatMul (a Transpose, Reshape or Cast the exporter left there), a scale scheme "
    "without a quantized kernel, or a type the GPU lacks.",
    needs=("engine",),
    qdq=True,
)
def check_qdq_myelin_split(ctx: LintContext) -> Iterator[Finding]:
    """A Myelin GEMM/convolution that reads float from a separate dequantizing kernel."""
    for layer in ctx.weighted_layers:
        if layer.myelin is None:
            continue
        types = {t.dtype for t in layer.inputs}
        if not types or None in types or not types <= FLOAT_TYPES:
            continue  # unknown, or a quantized input: the DQ is in the GEMM's kernel
        kernel = layer.tactic_name or ""
        if _LOW_KERNEL.search(kernel):
            continue
        own = [n for n in _dequantizers(ctx, layer) if not _is_weight_dq(n)]
        if own:
            continue  # the GEMM holds its activation DQ itself: qdq-gemm-float-kernel's case
        for producer in ctx.upstream(layer):
            if producer.myelin is None or producer.myelin.graph != layer.myelin.graph:
                continue  # another region (or not a Myelin kernel): not a split of this one
            dqs = _dequantizes(ctx, producer)
            if not dqs:
                continue
            stake = ctx.times([producer, layer])
            share = ctx.share(stake)
            node = next((n for n in ctx.compute_nodes(layer) if not is_qdq_node(n)), layer.name)
            yield make(
                ctx,
                check_qdq_myelin_split,
                short(node, 120),
                f"{short(producer.name, 80)} runs the DQ node {short(dqs[0], 80)} on its own "
                f"and writes {'/'.join(sorted(t.dtype or '?' for t in producer.outputs))}; the "
                f"GEMM kernel {short(layer.name, 80)} then reads "
                f"{'/'.join(sorted(x for x in types if x))}"
                + (f" and runs the float kernel {short(kernel, 60)}" if kernel else ""),
                "the Q/DQ region was split across kernels: the tensor is dequantized in memory "
                "and the GEMM computes in float"
                + (f"; the two kernels take {share}" if share else ""),
                "put the DQ directly in front of the MatMul/Conv (no Transpose, Reshape or Cast "
                "between them), quantize the weights with a scheme TensorRT has a kernel for "
                "(per-tensor or per-channel INT8/FP8), and check the GPU supports the type; or "
                "remove the Q/DQ pair if the layer is meant to run in float",
                layers=[producer, layer],
                time_ms=stake,
            )
            break
