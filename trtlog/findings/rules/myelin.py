"""Myelin and attention rules: kernels of one region explained, attention left unfused.

Part of the view package :mod:`trtlog.findings`. A detailed 10.x engine lists a Myelin
region's kernels one by one (``kgen``, ``gemm``, ``__myl_...``, ``_myl<g>_<i>`` names): many
rows that are one ``{ForeignNode[...]}`` of a default build, not a fusion that failed. An
attention block whose MatMul, Softmax and MatMul are separate layers did not become a fused
multi-head-attention kernel.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trtlog.engine.model import MYELIN_LAYER_TYPES, EngineLayer
from trtlog.findings.base import make, rule
from trtlog.findings.context import (
    LOW_TYPES,
    NAME_FOREIGN,
    NAME_MYELIN,
    NAME_SOFT,
    LintContext,
    short,
)
from trtlog.findings.models import Finding
from trtlog.names import is_qdq_node, is_weights_name

__all__ = ["check_attention_not_fused", "check_myelin_subkernels"]

_GEMM_KERNELS = frozenset({"gemm", "correlation", "conv", "conv_act_pool", "deconv", "fusion"})
_MATMUL_OPS = frozenset({"MatMul", "Gemm", "Fc", "Einsum"})
_SOFTMAX_OPS = frozenset({"Softmax", "Soft", "SoftMax"})


_SYNC_KERNELS = frozenset({"signal", "wait", "shape_call"})


def _is_gemm(kernel: EngineLayer) -> bool:
    """A Myelin kernel that multiplies matrices (a GEMM, convolution, or fused FC)."""
    t = kernel.type or ""
    if t == "fusion":  # a fused FC kernel (`__myl_Fc...`) or a GEMM tactic
        ops = kernel.myelin.ops if kernel.myelin else ()
        return "Gemm" in ops or "gemm" in (kernel.tactic_name or "").lower()
    return t in _GEMM_KERNELS


_ATTENTION_KERNEL = re.compile(r"mha|flash|attention", re.IGNORECASE)


def _is_attention(kernel: EngineLayer) -> bool:
    """A fused attention kernel (``_gemm_mha_v2_myl0_3``, an ``fmha`` tactic)."""
    parsed = kernel.myelin
    tactic = kernel.tactic_name or ""
    if tactic and (kernel.type or "") == "gemm" and not _ATTENTION_KERNEL.search(tactic):
        # a plain GEMM named after an attention module (Torch-TensorRT's
        # "[MATRIX_MULTIPLY]_[scaled_dot_product_attention]_..." in NVIDIA/TensorRT#3665)
        return False
    body = parsed.body if parsed is not None else kernel.name
    if "/" not in body and _ATTENTION_KERNEL.search(body):
        return True  # the kernel's own name, not an ONNX path with an "mha" module in it
    return bool(kernel.tactic_name and _ATTENTION_KERNEL.search(kernel.tactic_name))


def _may_have_kernel_groups(ctx: LintContext) -> bool:
    """Whether a Myelin group of the engine can list two kernels or more.

    Without it the rule has nothing to say, and the groups (one per ``{ForeignNode[...]}``
    layer) are not built: a kernel group needs a Myelin kernel (a ``_myl<g>_<i>`` name or a
    Myelin layer type, see :func:`trtlog.engine.myelin_groups`), a region's group the several
    profile records of its time.
    """
    layers = ctx.layers
    columns = ctx.columns
    for i, (kind, flags) in enumerate(zip(columns.types, columns.name_flags, strict=True)):
        kernel = flags & NAME_MYELIN or (kind in MYELIN_LAYER_TYPES and kind != "Myelin")
        if kernel and layers[i].is_myelin_kernel:
            return True
        if kind == "Myelin" or flags & NAME_FOREIGN:
            time = layers[i].time
            if time is not None and len(time.profile_names) > 1:
                return True
    return False


@rule(
    "myelin-subkernels",
    "info",
    "Many engine rows are the kernels of one Myelin region",
    "TensorRT compiles transformer blocks (and, in 10.x, whole subgraphs) with its Myelin "
    "compiler. An 8.x engine reports such a region as one `{ForeignNode[...]}` layer; a 10.x "
    "engine's layer information (detailed, and often names-only too) and a profile list its "
    "kernels: `kgen` "
    "generated kernels (`__myl_AddCastMean..._myl0_5`), `gemm` kernels named after their "
    "MatMuls, `_gemm_mha_v2` attention kernels. An engine that 'split into many layers' this "
    "way is not missing fusions. For quantized builds the finding also says whether the "
    "region's GEMM/convolution kernels really read INT8 (their inputs' Format/Datatype).",
    needs=("engine",),
)
def check_myelin_subkernels(ctx: LintContext) -> Iterator[Finding]:
    """One finding per Myelin region listed kernel by kernel."""
    if ctx.engine is None or not _may_have_kernel_groups(ctx):
        return
    by_name = dict(zip(ctx.columns.names, ctx.layers, strict=True))
    for group in ctx.engine.groups("myelin"):
        if len(group.kernels) < 2:
            continue  # a region that is one kernel needs no explaining
        kernels = [by_name[k] for k in group.kernels if k in by_name]
        label = group.region or (
            f"Myelin graph {group.graph}" if group.graph is not None else "Myelin kernels"
        )
        time = None if group.time_ms != group.time_ms else group.time_ms
        if not kernels:  # a region whose profile lists the kernels
            yield make(
                ctx,
                check_myelin_subkernels,
                short(label, 120),
                f"the profile lists {len(group.kernels)} Myelin kernel records for the region "
                f"{short(label, 100)}; their times add up to the region's time",
                "the records are the parts of one engine layer, not separate layers",
                "nothing to fix; compare regions, not kernel records",
                layers=[x for x in ctx.layers if x.name == group.region],
                names=group.kernels[:20],
                time_ms=time,
            )
            continue
        compute = [k for k in kernels if (k.type or "") not in _SYNC_KERNELS]
        if len(compute) < 2:
            continue  # one kernel and its synchronisation: nothing that looks like a split
        types = ", ".join(
            f"{n} {t}"
            for t, n in sorted(group.kernel_types.items(), key=lambda kv: -kv[1])
            if t != "?"
        )
        why, fix = _explained(ctx)
        details = []
        attention = [k for k in kernels if _is_attention(k)]
        if attention:
            details.append(
                f"{len(attention)} of them are fused attention kernels "
                f"({short(attention[0].name, 40)})"
            )
        gemms = [k for k in kernels if _is_gemm(k)]
        if gemms and ctx.quantized:
            int8 = [k for k in gemms if any(t.dtype in LOW_TYPES for t in k.inputs)]
            text = (
                f"{len(int8)} of its {len(gemms)} GEMM/convolution kernels read INT8 "
                "(inputs' Format/Datatype)"
            )
            quantized_float = [
                k for k in gemms if k not in int8 and any(is_qdq_node(n) for n in k.onnx_nodes)
            ]
            if quantized_float:
                read = sorted({t.dtype or "?" for k in quantized_float for t in k.inputs})
                text += (
                    f", and {len(quantized_float)} hold Q/DQ nodes but read "
                    f"{'+'.join(read)} (e.g. {short(quantized_float[0].name, 70)}): those run "
                    "in float"
                )
            details.append(text)
        yield make(
            ctx,
            check_myelin_subkernels,
            short(label, 120),
            f"{len(kernels)} engine rows{f' ({types})' if types else ''} are the kernels of "
            "one Myelin region "
            f"({short(label, 100)})" + "".join(f"; {d}" for d in details),
            why,
            fix,
            layers=kernels,
            time_ms=time,
        )


def _explained(ctx: LintContext) -> tuple[str, str]:
    """Why a region shows kernel by kernel, said for what the input is (detailed or names)."""
    if ctx.engine is not None and not ctx.engine.detailed:
        return (
            "this export holds layer names only and still lists the region's kernels: TensorRT "
            "10 names a Myelin region's kernels at every profiling verbosity (8.x showed one "
            "{ForeignNode[...]} layer); these rows are not separate layers and their number is "
            "not a missing fusion",
            "group the rows with `trtlog layers --group-by myelin`; look inside the region "
            "only for kernels that dominate its time",
        )
    return (
        "the layer information lists a Myelin region kernel by kernel (an 8.x engine shows one "
        "{ForeignNode[...]} layer for it): these rows are not separate layers and their "
        "number is not a missing fusion",
        "group the rows with `trtlog layers --group-by myelin`; look inside the region only "
        "for kernels that dominate its time",
    )


_SOFTMAX_TYPES = frozenset({"SoftMax", "CudaSoftMax", "Softmax"})
_MATMUL_TYPES = frozenset({"gemm", "MatrixMultiply", "CublasMatrixMultiply", "CaskGemm"})


def _softmax_kernel(layer: EngineLayer) -> bool:
    """A Myelin kernel generated for a softmax: its name lists ``Exp`` and a sum over a row.

    10.x/11.x compile a Softmax that did not fuse into attention as one generated kernel
    (``__myl_MaxrSubExpSumDiv_myl0_5``: max, subtract, exp, sum, divide), often without ONNX
    metadata; an activation with ``Exp`` (Sigmoid, SiLU: ``__myl_NegExpAddDivMul``) has no
    reduction, a LayerNorm no ``Exp``.
    """
    kernel = layer.myelin
    if kernel is None or not kernel.generated:
        return False
    ops = kernel.ops
    return "Exp" in ops and ("Sum" in ops or "ReduceSum" in ops)


def _ops(ctx: LintContext, layer: EngineLayer) -> frozenset[str]:
    ops = ctx.layer_ops(layer)
    if layer.type in _SOFTMAX_TYPES or _softmax_kernel(layer):
        ops |= {"Softmax"}
    if layer.type in _MATMUL_TYPES:
        ops |= {"MatMul"}
    return ops


def _activations(ctx: LintContext, layer: EngineLayer) -> int:
    """How many of a layer's inputs are activations (not constants)."""
    n = 0
    for t in layer.inputs:
        producer = ctx.producer_of(layer, t.name)
        if producer is None:
            # outside the engine (or the paste): a binding, or, with no bindings known (a
            # pasted fragment), any tensor whose name is not a weight's (fragments §7.2)
            if ctx.bindings:
                n += t.name in ctx.bindings
            else:
                n += not is_weights_name(t.name) and "onstant" not in t.name
        elif producer.type != "Constant":
            n += 1
    return n


def _near(ctx: LintContext, layer: EngineLayer, up: bool, hops: int = 2) -> EngineLayer | None:
    frontier = [layer]
    seen = {layer.index}
    for _ in range(hops):
        nxt = []
        for x in frontier:
            for y in ctx.upstream(x) if up else ctx.downstream(x):
                if y.index in seen:
                    continue
                seen.add(y.index)
                if _ops(ctx, y) & _MATMUL_OPS:
                    # attention multiplies two activations (Q·Kᵀ, P·V), not weights
                    return y if _activations(ctx, y) >= 2 else None
                nxt.append(y)
        frontier = nxt
    return None


@rule(
    "attention-not-fused",
    "warning",
    "MatMul, Softmax and MatMul of an attention block run as separate layers",
    "TensorRT fuses scaled dot-product attention (MatMul → scale/mask → Softmax → MatMul) "
    "into one multi-head-attention kernel (`_gemm_mha_v2`, `fmha`), which keeps the attention "
    "matrix on chip. When the Softmax is its own layer between the two MatMuls, the full "
    "attention matrix is written to and read from memory. Casts to FP32 around the Softmax, "
    "unsupported mask ops, Q/DQ nodes in the wrong places or FP32 precision break the pattern.",
    needs=("engine",),
)
def check_attention_not_fused(ctx: LintContext) -> Iterator[Finding]:
    """Softmax layers with a MatMul layer before and after them (not one fused kernel)."""
    named = frozenset(n for n, op in ctx.ops.items() if op in _SOFTMAX_OPS)
    layers = ctx.layers
    columns = ctx.columns
    for i, (kind, flags, nodes) in enumerate(
        zip(columns.types, columns.name_flags, columns.onnx_nodes, strict=True)
    ):
        # a cheap test before the op lookup, on the columns: a Softmax type, "Soft" in a name, a
        # parsed Softmax node, a Myelin softmax kernel (the layer object only for a kernel
        # name). A {ForeignNode[...]} region is one layer whatever it holds: never a separate
        # Softmax. ("oft" holds no space: it matches inside one node of the joined text.)
        if kind == "Myelin" or flags & NAME_FOREIGN:
            continue
        if not (
            kind in _SOFTMAX_TYPES
            or flags & NAME_SOFT
            or (nodes and ("oft" in " ".join(nodes) or not named.isdisjoint(nodes)))
            or (flags & NAME_MYELIN and _softmax_kernel(layers[i]))
        ):
            continue
        layer = layers[i]
        ops = _ops(ctx, layer)
        if not ops & _SOFTMAX_OPS or ops & _MATMUL_OPS or "mha" in layer.name.lower():
            continue
        before = _near(ctx, layer, up=True)
        after = _near(ctx, layer, up=False)
        if before is None or after is None:
            continue
        t = ctx.times([before, layer, after])
        share = ctx.share(t)
        yield make(
            ctx,
            check_attention_not_fused,
            layer.name,
            f"the Softmax {short(layer.name, 80)} ({layer.type or '?'}) runs between "
            f"{short(before.name, 70)} and {short(after.name, 70)} as separate layers: the "
            "attention was not fused into one kernel",
            "the attention matrix (sequence by sequence per head) goes through memory twice"
            + (f"; the three layers take {share}" if share else ""),
            "keep the attention pattern plain (MatMul, scale, mask Add, Softmax, MatMul) in "
            "FP16 or with Q/DQ only on the MatMul inputs, without Casts to FP32 around the "
            "Softmax; use a TensorRT version whose Myelin backend fuses attention (8.6+/10.x)",
            layers=[before, layer, after],
            time_ms=t,
        )
