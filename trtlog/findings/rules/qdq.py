"""Q/DQ rules: quantizers left alone, INT8 layers writing float, lost and split fusions.

Part of the view package :mod:`trtlog.findings`. These rules encode how TensorRT processes an
explicitly quantized (Q/DQ) network: it moves DQ nodes forward and Q nodes backward across
layers that commute with quantization, fuses a DQ into the quantizable layer that reads it
(convolution, GEMM, pooling...) and a Q into the layer that writes it, and turns whatever
Q/DQ is left into a standalone copy (``QDQToCopy``). Every rule here is marked ``qdq=True``:
:func:`~trtlog.findings.lint` runs it only when the build has Q/DQ nodes.
"""

from __future__ import annotations

from collections.abc import Iterator

from trtlog._display import number
from trtlog.engine.model import Engine, EngineLayer
from trtlog.events import (
    ConvScaleFusion,
    Fusion,
    FusionInto,
    HorizontalMerge,
    LayerCount,
    MissingScale,
    QdqSwap,
)
from trtlog.findings.base import make, rule
from trtlog.findings.context import FLOAT_TYPES, LOW_TYPES, LintContext, fmt_ms, short
from trtlog.findings.models import Finding
from trtlog.names import is_qdq_node, normalize_name
from trtlog.tensors import Tensor

__all__ = [
    "check_int8_slower_than_reference",
    "check_qdq_blocked_fusion",
    "check_qdq_int8_float_output",
    "check_qdq_missing_scale",
    "check_qdq_residual_unquantized",
    "check_qdq_split_fusion",
    "check_qdq_unfused_quantizer",
    "check_reference_alignment_failed",
]

ACTIVATIONS = frozenset(
    {
        "Relu",
        "LeakyRelu",
        "PRelu",
        "Sigmoid",
        "Sigm",
        "Tanh",
        "Clip",
        "HardSigmoid",
        "HardSwish",
        "Elu",
        "Selu",
        "Softplus",
        "Gelu",
        "Mish",
        "Swish",
        "Activation",
    }
)
POINTWISE_TYPES = frozenset(
    {"Activation", "PointWise", "PointWiseV2", "ElementWise", "ExtendedElementWise", "kgen"}
)
ADDS = frozenset({"Add", "Sum"})
BLOCKERS = {
    "Pad": "a Pad",
    "Identity": "an Identity",
    "BatchNormalization": "a BatchNormalization",
    "Cast": "a Cast",
    "Transpose": "a Transpose",
    "Reshape": "a Reshape",
}
_BLOCKER_TYPES = {"Padding": "Pad", "Identity": "Identity", "Cast": "Cast"}
# layer types that can be a blocking op on its own: a Scale is an unfolded BatchNormalization,
# a Shuffle a Transpose or Reshape, a NoOp an Identity
_BLOCKER_LAYER_TYPES = frozenset({*_BLOCKER_TYPES, "Scale", "Shuffle", "NoOp"})
_FIXES = {
    "Pad": "fold the padding into the convolution's pads attribute, or put the Q/DQ pair "
    "after the Pad, directly in front of the convolution",
    "Identity": "remove the Identity nodes before building (onnx-simplifier, or polygraphy "
    "surgeon sanitize)",
    "BatchNormalization": "fold the BatchNormalization into the convolution before export "
    "(or place the Q/DQ pair after it): TensorRT folds a BN into a convolution only when "
    "nothing sits between them",
    "Cast": "remove the Cast, or move the Q/DQ pair after it",
    "Transpose": "move the Q/DQ pair after the Transpose, directly in front of the "
    "convolution/GEMM input",
    "Reshape": "move the Q/DQ pair after the Reshape, directly in front of the "
    "convolution/GEMM input",
}
_NOT_AT_IO = "every inference pays an extra pass over the tensor, usually small next to the network"


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _dtypes(tensors: tuple[Tensor, ...]) -> str:
    if len(tensors) == 1:  # most layers (thousands of findings on a big engine)
        return tensors[0].dtype or "?"
    types = [t.dtype for t in tensors if t.dtype]
    return "+".join(dict.fromkeys(types)) or "?"


def _convert(layer: EngineLayer) -> str:
    return f"{_dtypes(layer.inputs)}→{_dtypes(layer.outputs)}"


def _engine_complete(ctx: LintContext) -> bool:
    """Whether the engine is the whole engine (a blog excerpt's dump may not be)."""
    if ctx.engine is None:
        return False
    if ctx.engine.origin == "layer_json":
        return True
    counts = [e.layers for e in ctx.events(LayerCount)]
    return not counts or len(ctx.engine.layers) >= 0.5 * counts[-1]


def _merged_after(ctx: LintContext) -> dict[str, int]:
    """Layer name → the last line of a fusion that used it as an operand."""
    out: dict[str, int] = {}
    for e in ctx.events(Fusion, FusionInto, HorizontalMerge, ConvScaleFusion):
        if isinstance(e, Fusion):
            names: tuple[str, ...] = (e.first, e.second)
        elif isinstance(e, FusionInto):
            names = tuple(e.sources)
        elif isinstance(e, HorizontalMerge):
            names = tuple(e.layers)
        elif isinstance(e, ConvScaleFusion):
            names = (e.scale,)
        else:
            raise AssertionError(e.kind)
        for n in names:
            out[n] = max(out.get(n, 0), e.span[0])
    return out


# -- qdq-unfused-quantizer --------------------------------------------------------------------


@rule(
    "qdq-unfused-quantizer",
    "warning",
    "A Q or DQ node runs as its own engine layer",
    "TensorRT fuses a QuantizeLinear into the layer that writes its input and a "
    "DequantizeLinear into the layer that reads its output. A Q or DQ that no neighbour "
    "absorbed becomes a standalone layer (a Reformat of Q/DQ origin, a `*_quantize_scale_node`, "
    "a `QDQToCopy` copy, a Myelin quantize kernel): an extra pass over the tensor that an "
    "INT8 build was meant to avoid. At a network input or output it is expected and reported "
    "as info.",
    needs=("log", "engine"),
    qdq=True,
    other_severities=(("info", "for a Q or DQ at a network input or output"),),
)
def check_qdq_unfused_quantizer(ctx: LintContext) -> Iterator[Finding]:
    """Standalone Q/DQ layers of the engine, and Q/DQ nodes the log turned into copies."""
    check = check_qdq_unfused_quantizer
    swaps: dict[str, list[int]] = {}
    for e in ctx.events(QdqSwap):
        if e.to_type == "kQDQ":
            swaps.setdefault(normalize_name(e.layer), []).append(e.span[0])
    reported: set[str] = set()
    for layer in ctx.qdq_layers:
        role = ctx.qdq_role(layer)
        assert role is not None
        lines: list[int] = []
        if swaps:  # (the names are looked up only in a log with QDQToCopy conversions)
            keys = {normalize_name(layer.name), *ctx.nodes(layer)}
            reported |= keys
            lines = [n for k in keys for n in swaps.get(k, ())]
        yield _standalone(ctx, check, layer, role, lines)
    if not swaps:
        return
    complete = _engine_complete(ctx)
    names = {normalize_name(x.name) for x in ctx.layers}
    merged = _merged_after(ctx)
    for e in ctx.events(QdqSwap):
        key = normalize_name(e.layer)
        if e.to_type != "kQDQ" or key in reported:
            continue
        reported.add(key)
        if merged.get(e.layer, 0) > e.span[0] or (complete and key not in names):
            continue  # fused later, or not in the (whole) engine
        role = "DQ" if e.from_type.upper().startswith("DEQ") else "Q"
        placed = ctx.lines_of(e.layer)
        yield make(
            ctx,
            check,
            e.layer,
            f"the {role} node {e.layer} was left unfused and converted into a copy layer "
            f"(QDQToCopy, line {e.span[0]}): no neighbouring layer absorbed it",
            f"it runs as its own reformat ({'float→INT8' if role == 'Q' else 'INT8→float'}), an "
            "extra pass over the tensor; the layer next to it cannot run fused in INT8 here",
            _mitigation(role),
            lines=[e.span[0], *placed],
            names=[e.layer],
        )


def _mitigation(role: str) -> str:
    if role == "Q":
        return (
            "make the tensor's producer quantizable, or place the Q/DQ pair where TensorRT "
            "can fold the Q into the layer that writes the tensor (directly after a "
            "convolution/GEMM/pointwise op with a single consumer); remove the Q/DQ pair if "
            "the consumer is meant to run in float"
        )
    return (
        "give the consumer quantized inputs on every side (e.g. a Q/DQ pair on an Add's other "
        "input), or remove the Q/DQ pair so the producer writes float directly"
    )


def _label(ctx: LintContext, layer: EngineLayer) -> str:
    """A Myelin quantize kernel (``__myl_MulMinMaxRounCast_myl0_3``) by its Q/DQ node."""
    if layer.name.startswith("__myl") or "_myl" in layer.name:  # a Myelin kernel's name
        for node in ctx.nodes(layer):
            if is_qdq_node(node):
                return f"{node} ({layer.name})"
    return layer.name


def _standalone(
    ctx: LintContext, check: object, layer: EngineLayer, role: str, lines: list[int]
) -> Finding:
    t = ctx.time(layer)
    share = ctx.share(t)
    label = _label(ctx, layer)
    kind = f"{layer.type} layer" if layer.type else "engine layer"
    tensors = layer.inputs if role == "Q" else layer.outputs
    if tensors:
        at_io = all(
            ctx.is_network_input(layer, x.name)
            if role == "Q"
            else ctx.is_network_output(layer, x.name)
            for x in tensors
        )
    else:  # a names-only engine: the first layer reads the input, the last writes the output
        edge = 0 if role == "Q" else len(ctx.layers) - 1
        at_io = layer.index == edge
    convert = f" ({_convert(layer)})" if layer.inputs or layer.outputs else ""
    if at_io:
        where = "input" if role == "Q" else "output"
        names = ", ".join(x.name for x in tensors)
        flag = "--inputIOFormats=int8:chw" if role == "Q" else "--outputIOFormats=int8:chw"
        return make(
            ctx,
            check,  # type: ignore[arg-type]
            label,
            f"the {role} {layer.name} converts the network {where}"
            f"{' ' + names if names else ''}{convert} in a separate {kind}",
            f"{_NOT_AT_IO}{' (' + share + ')' if share else ''}; expected at the edge of a "
            "quantized network",
            f"nothing to fix unless the application can exchange INT8 data ({flag}, with the "
            "same scale)",
            severity="info",
            lines=lines,
            layers=[layer],
            time_ms=t,
        )
    neighbours = ctx.upstream(layer) if role == "Q" else ctx.downstream(layer)
    reason = ""
    if neighbours:
        n = neighbours[0]
        nkind = n.type or "layer"
        if role == "Q":
            tensor = layer.inputs[0].name if layer.inputs else ""
            others = [
                x
                for x in ctx.readers_of(layer, tensor)
                if x.index != layer.index and ctx.qdq_role(x) is None
            ]
            reason = f"; its producer {short(n.name, 70)} ({nkind}) writes {_dtypes(n.outputs)}"
            if ctx.is_network_output(n, tensor):
                reason += (
                    " because the tensor is also a network output, so the Q cannot be folded "
                    "into the producer"
                )
            elif others:
                reason += (
                    f" and the tensor also feeds {short(others[0].name, 70)} in float, so "
                    "the Q cannot be folded into the producer"
                )
        else:
            reason = (
                f"; its consumer {short(n.name, 70)} ({nkind}) runs in {_dtypes(n.outputs)}, so "
                "the DQ cannot be folded into it"
            )
    return make(
        ctx,
        check,  # type: ignore[arg-type]
        label,
        f"the {role} {label} runs as its own {kind}{convert}{reason}",
        "a Q/DQ that TensorRT cannot fuse costs an extra pass over the tensor and marks the "
        "place where the INT8 chain is broken" + (f" ({share})" if share else ""),
        _mitigation(role),
        lines=lines,
        layers=[layer, *neighbours[:1]],
        time_ms=t,
    )


# -- qdq-int8-float-output ---------------------------------------------------------------------


def _holds_quantizer(ctx: LintContext, layer: EngineLayer) -> bool:
    """A layer that quantizes: it reads float, writes INT8 and holds a QuantizeLinear node."""
    ins = {t.dtype for t in layer.inputs}
    outs = {t.dtype for t in layer.outputs}
    if not outs or not outs <= LOW_TYPES or not ins & FLOAT_TYPES or ctx.is_weighted(layer):
        return False
    return any(is_qdq_node(n) and "equantize" not in n for n in layer.onnx_nodes)


def _requantized(
    ctx: LintContext, layer: EngineLayer, depth: int = 3
) -> tuple[list[EngineLayer], list[EngineLayer]]:
    """Float layers after ``layer`` up to where the data is converted back to INT8.

    Returns the float layers in between and the layers that convert back: standalone Qs,
    float→INT8 reformats, and layers that apply an op and a Q together (a Myelin kernel
    ``__myl_ReluMulMinMaxRounCast``: the activation and the Q the convolution did not fuse).
    """
    between: list[EngineLayer] = []
    back: list[EngineLayer] = []
    seen = {layer.index}
    frontier = ctx.downstream(layer)
    for _ in range(depth):
        nxt: list[EngineLayer] = []
        for c in frontier:
            if c.index in seen:
                continue
            seen.add(c.index)
            outs = {t.dtype for t in c.outputs}
            requantizes = ctx.qdq_role(c) == "Q" or (c.is_reformat and outs & LOW_TYPES)
            if requantizes or _holds_quantizer(ctx, c):
                back.append(c)
            elif outs and outs <= FLOAT_TYPES and not ctx.is_weighted(c):
                between.append(c)
                nxt.extend(ctx.downstream(c))
        frontier = nxt
    return between, back


@rule(
    "qdq-int8-float-output",
    "warning",
    "An INT8 convolution/GEMM writes float that is quantized again",
    "A convolution or GEMM that reads INT8 should, in a well-placed Q/DQ network, also write "
    "INT8 to the next quantized layer. When it writes FP16/FP32 and the data is converted "
    "back to INT8 a layer or two later, the INT8 chain is broken: a float tensor is written "
    "and read, and a standalone quantizer runs. The finding names the cause when the engine "
    "shows it: an activation or pointwise op that was not fused, an Add whose residual input "
    "is not quantized, a BatchNormalization/Identity/Scale in between, or a tensor that is "
    "also a network output.",
    needs=("engine",),
    qdq=True,
)
def check_qdq_int8_float_output(ctx: LintContext) -> Iterator[Finding]:
    """INT8 weighted layers whose float output is converted back to INT8 downstream."""
    check = check_qdq_int8_float_output
    for layer in ctx.weighted_layers:
        outs = {t.dtype for t in layer.outputs}
        if not outs or not outs <= FLOAT_TYPES or not ctx.is_int8(layer):
            continue
        between, back = _requantized(ctx, layer)
        if not back:
            continue  # float by design: the quantized region ends here
        cause = _cause(ctx, layer, between, back)
        stake = ctx.times([*between, *back])
        share = ctx.share(stake)
        yield make(
            ctx,
            check,
            layer.name,
            f"{short(layer.name, 100)} ({layer.type or 'layer'}) reads INT8 but writes "
            f"{_dtypes(layer.outputs)}, which {short(back[0].name, 80)} quantizes again: {cause}",
            "the tensor makes a float round trip (written in float, read, converted back to "
            "INT8) instead of staying INT8"
            + (f"; the layers in between and the requantization cost {share}" if share else ""),
            _FLOAT_FIX.get(cause.split(":")[0], _FLOAT_FIX["other"]),
            layers=[layer, *between, *back],
            time_ms=stake,
        )


_FLOAT_FIX = {
    "the tensor is also a network output": "if the output is only for debugging, unmark it; "
    "otherwise accept the float copy or add a separate output branch",
    "an Add reads it as its residual input without Q/DQ": "quantize the Add's other (skip) "
    "input with a Q/DQ pair so TensorRT fuses the add into the convolution in INT8",
    "a normalization sits in between": "fold BatchNormalization/Scale into the convolution "
    "before export and remove Identity nodes, so the Q after them can be fused",
    "the activation was not fused": "check why the activation stayed separate (an "
    "unsupported activation for INT8 fusion, or a Q/DQ pair between the convolution and it) "
    "and put the Q/DQ pair after the activation",
    "other": "place the Q/DQ pair directly after the convolution's fused activation, with no "
    "float consumer of the convolution's output left",
}


def _cause(
    ctx: LintContext, layer: EngineLayer, between: list[EngineLayer], back: list[EngineLayer]
) -> str:
    out_names = [t.name for t in layer.outputs]
    if any(ctx.is_network_output(layer, n) for n in out_names):
        return "the tensor is also a network output: it must stay float"
    if ctx.layer_ops(layer) & ADDS and any(t.dtype in FLOAT_TYPES for t in layer.inputs[1:]):
        skip = next(t for t in layer.inputs[1:] if t.dtype in FLOAT_TYPES)
        return (
            f"an Add reads it as its residual input without Q/DQ: the layer fuses an Add whose "
            f"skip input {short(skip.name, 60)} is {skip.dtype}, so the sum stays float"
        )
    direct = ctx.downstream(layer)
    for c in direct:
        if ctx.layer_ops(c) & ADDS and len(c.inputs) >= 2 and not ctx.is_weighted(c):
            return (
                f"an Add reads it as its residual input without Q/DQ: {short(c.name, 80)} adds "
                "it in float, so the conv output cannot be quantized in place"
            )
    for c in between:
        ops = ctx.layer_ops(c)
        if ops & {"BatchNormalization", "Identity", "Scale"} or c.type == "Scale":
            return f"a normalization sits in between: {short(c.name, 80)} ({c.type or '?'})"
    for c in [*between, *back]:
        ops = ctx.layer_ops(c)
        if ops & ACTIVATIONS or (c in between and c.type in POINTWISE_TYPES):
            return (
                f"the activation was not fused: {short(c.name, 80)} ({c.type or '?'}) runs "
                "separately"
            )
    floats = [c for c in direct if c not in back and ctx.qdq_role(c) is None]
    if floats:
        return (
            f"the output also feeds {short(floats[0].name, 80)} in float, so the Q could not be "
            "folded into the convolution"
        )
    return "the Q after it was not folded into the convolution"


# -- qdq-residual-unquantized ------------------------------------------------------------------


@rule(
    "qdq-residual-unquantized",
    "warning",
    "A residual Add's skip input has no Q/DQ",
    "TensorRT fuses a residual Add (and the activation after it) into the INT8 convolution "
    "that produces one of its inputs when the other (skip) input is quantized too. When the "
    "skip branch carries no Q/DQ, either the add is fused with a float residual, so the "
    "convolution writes float and a standalone Q follows, or the add is not fused at all: the "
    "convolution's INT8 output is dequantized and the add runs as its own float layer. "
    "TensorRT's placement guidance is to quantize the residual input of the add.",
    needs=("engine",),
    qdq=True,
)
def check_qdq_residual_unquantized(ctx: LintContext) -> Iterator[Finding]:
    """Residual adds whose skip input is float in a Q/DQ network (fused or not)."""
    check = check_qdq_residual_unquantized
    layers = ctx.layers
    for i, n_inputs in enumerate(ctx.columns.n_inputs):
        if n_inputs < 2:
            continue
        layer = layers[i]
        if not ctx.layer_ops(layer) & ADDS:
            continue
        if ctx.is_weighted(layer):
            yield from _fused_residual(ctx, check, layer)
        else:
            yield from _separate_residual(ctx, check, layer)


def _fused_residual(ctx: LintContext, check: object, layer: EngineLayer) -> Iterator[Finding]:
    if not ctx.is_int8(layer) or not {t.dtype for t in layer.outputs} <= FLOAT_TYPES:
        return
    skip = [t for t in layer.inputs[1:] if t.dtype in FLOAT_TYPES]
    if not skip or not layer.outputs:
        return
    between, back = _requantized(ctx, layer)
    if not back:
        return
    producer = ctx.producer_of(layer, skip[0].name)
    source = f" (from {short(producer.name, 70)})" if producer is not None else ""
    stake = ctx.times([*between, *back])
    share = ctx.share(stake)
    yield make(
        ctx,
        check,  # type: ignore[arg-type]
        layer.name,
        f"{short(layer.name, 100)} fuses the residual Add, but its skip input {skip[0].name}"
        f"{source} is {skip[0].dtype}: the fused layer writes {_dtypes(layer.outputs)} and "
        f"{short(back[0].name, 80)} quantizes it again",
        "the residual block leaves INT8 at its output: a float tensor and a standalone Q per "
        "block" + (f" ({share})" if share else ""),
        "quantize the skip (residual) input of the Add with a Q/DQ pair, so that TensorRT fuses "
        "an INT8 residual add and the convolution writes INT8",
        layers=[layer, *between, *back],
        time_ms=stake,
    )


def _separate_residual(ctx: LintContext, check: object, add: EngineLayer) -> Iterator[Finding]:
    if not {t.dtype for t in add.outputs} <= FLOAT_TYPES or not add.outputs:
        return
    dq: EngineLayer | None = None
    conv: EngineLayer | None = None
    skip = None
    for t in add.inputs:
        producer = ctx.producer_of(add, t.name)
        if producer is not None and ctx.qdq_role(producer) == "DQ":
            up = [u for u in ctx.upstream(producer) if ctx.is_weighted(u)]
            if up and dq is None:
                dq, conv = producer, up[0]
                continue
        if t.dtype in FLOAT_TYPES and skip is None:
            skip = (t, producer)
    if dq is None or conv is None or skip is None:
        return
    if not dq.inputs or len(ctx.readers_of(dq, dq.inputs[0].name)) > 1:
        return  # the convolution's output has other readers: the add could not fuse anyway
    tensor, producer = skip
    source = f" (from {short(producer.name, 70)})" if producer is not None else ""
    stake = ctx.times([add, dq])
    share = ctx.share(stake)
    yield make(
        ctx,
        check,  # type: ignore[arg-type]
        add.name,
        f"the residual Add {short(add.name, 80)} runs as its own {_dtypes(add.outputs)} layer: "
        f"the INT8 output of {short(conv.name, 80)} is dequantized by {short(dq.name, 70)}, and "
        f"its skip input {tensor.name}{source} has no Q/DQ",
        "TensorRT cannot fuse the add into the INT8 convolution, so the block runs as three "
        "layers (convolution, DQ, add) instead of one" + (f"; {share} at stake" if share else ""),
        "quantize the Add's skip input with a Q/DQ pair and do not quantize the convolution's "
        "output: TensorRT then fuses the add (and a following ReLU) into the convolution",
        layers=[add, dq, conv, *([producer] if producer is not None else [])],
        time_ms=stake,
    )


# -- qdq-blocked-fusion -----------------------------------------------------------------------


def _blocker(ctx: LintContext, layer: EngineLayer) -> str | None:
    if layer.type is not None and layer.type not in _BLOCKER_LAYER_TYPES:
        return None  # only a layer that is the blocking op itself (not a fused kernel)
    if ctx.is_weighted(layer) or ctx.qdq_role(layer) is not None or layer.is_reformat:
        return None
    found = _BLOCKER_TYPES.get(layer.type or "")
    if found:
        return found
    ops = ctx.layer_ops(layer)
    for op in BLOCKERS:
        if op in ops:
            return op
    return None


@rule(
    "qdq-blocked-fusion",
    "warning",
    "An op between a DQ and its convolution, or between a convolution and its activation, "
    "kept them apart",
    "TensorRT moves a DQ forward to the convolution or GEMM it feeds and fuses an activation "
    "into the convolution before it, but only across ops it can commute or fold. A Pad, "
    "Identity, BatchNormalization, Cast, Transpose or Reshape in between stops that: the "
    "convolution reads float (or a separate layer quantizes for it), or the activation runs "
    "as its own layer. A Q/DQ pair on a convolution's output in front of its residual Add "
    "does the same to the add, which then runs as a separate kernel.",
    needs=("engine",),
    qdq=True,
)
def check_qdq_blocked_fusion(ctx: LintContext) -> Iterator[Finding]:
    """Blocking ops next to Q/DQ and convolutions, and adds kept out of INT8 convolutions."""
    check = check_qdq_blocked_fusion
    layers = ctx.layers
    columns = ctx.columns
    for i, (kind, n_inputs) in enumerate(zip(columns.types, columns.n_inputs, strict=True)):
        if kind is not None and kind not in _BLOCKER_LAYER_TYPES and n_inputs < 2:
            continue  # neither a blocking op (see _blocker) nor an add of two tensors
        layer = layers[i]
        op = _blocker(ctx, layer)
        if op is not None:
            yield from _blocked(ctx, check, layer, op)
        elif (
            len(layer.inputs) >= 2
            and all(t.dtype in LOW_TYPES for t in layer.inputs)
            and ctx.layer_ops(layer) & ADDS
            and not ctx.is_weighted(layer)
        ):
            yield from _add_after_quantized_conv(ctx, check, layer)


def _blocked(ctx: LintContext, check: object, layer: EngineLayer, op: str) -> Iterator[Finding]:
    up = ctx.upstream(layer)
    down = ctx.downstream(layer)
    t = ctx.time(layer)
    dq = next((u for u in up if ctx.qdq_role(u) == "DQ"), None)
    conv_after = next((d for d in down if ctx.is_weighted(d)), None)
    if conv_after is None:
        conv_after = next(
            (
                d2
                for d in down
                if ctx.qdq_role(d) is not None or d.is_reformat
                for d2 in ctx.downstream(d)
                if ctx.is_weighted(d2)
            ),
            None,
        )
    if dq is not None and conv_after is not None:
        what = _weighted_word(ctx, conv_after)
        after = (
            f"quantized again for the {what}"
            if ctx.is_int8(conv_after)
            else f"the {what} runs in {_dtypes(conv_after.outputs)} instead of INT8"
        )
        share = ctx.share(t)
        yield make(
            ctx,
            check,  # type: ignore[arg-type]
            layer.name,
            f"{BLOCKERS[op]} ({short(layer.name, 80)}) sits between the DQ {short(dq.name, 70)} "
            f"and {short(conv_after.name, 80)}: TensorRT did not move the DQ past it into the "
            f"{what}, so the {op} runs in {_dtypes(layer.outputs)} as its own layer",
            f"the data is dequantized, processed in float and {after}"
            + (f" ({share})" if share else ""),
            _FIXES[op],
            layers=[layer, dq, conv_after],
            time_ms=t,
        )
        return
    conv_before = next((u for u in up if ctx.is_weighted(u) and ctx.is_int8(u)), None)
    act = next((d for d in down if ctx.layer_ops(d) & ACTIVATIONS and not ctx.is_weighted(d)), None)
    if conv_before is not None and act is not None:
        stake = ctx.times([layer, act])
        share = ctx.share(stake)
        what = _weighted_word(ctx, conv_before)
        yield make(
            ctx,
            check,  # type: ignore[arg-type]
            layer.name,
            f"{BLOCKERS[op]} ({short(layer.name, 80)}) separates {short(conv_before.name, 80)} "
            f"from its activation {short(act.name, 80)}: they run as three layers",
            f"the {what} cannot fuse its activation (and the Q after it), so it writes "
            f"{_dtypes(conv_before.outputs)} and two more layers run"
            + (f" ({share})" if share else ""),
            _FIXES[op],
            layers=[layer, conv_before, act],
            time_ms=stake,
        )


def _weighted_word(ctx: LintContext, layer: EngineLayer) -> str:
    """``GEMM`` for a matrix multiplication, else ``convolution``."""
    text = f"{layer.type or ''} {' '.join(ctx.layer_ops(layer))}".lower()
    return "GEMM" if "gemm" in text or "matmul" in text or "matrix" in text else "convolution"


def _add_after_quantized_conv(
    ctx: LintContext, check: object, add: EngineLayer
) -> Iterator[Finding]:
    if len(add.inputs) < 2 or not all(t.dtype in LOW_TYPES for t in add.inputs):
        return
    convs = [u for u in ctx.upstream(add) if ctx.is_weighted(u) and ctx.is_int8(u)]
    if not convs:
        return
    conv = convs[-1]
    fed = [readers for t in conv.outputs if add in (readers := ctx.readers_of(conv, t.name))]
    if not fed or any(len(readers) > 1 for readers in fed):
        return  # the convolution's output has other readers: the add could not fuse anyway
    dqs = [n for n in ctx.nodes(add) if is_qdq_node(n) and "equantize" in n]
    t = ctx.time(add)
    yield make(
        ctx,
        check,  # type: ignore[arg-type]
        add.name,
        f"the residual Add in {short(add.name, 80)} runs as its own kernel after "
        f"{short(conv.name, 80)}: the convolution's output is quantized (it writes INT8) and "
        f"the add reads it back through a DQ{' (' + short(dqs[0], 80) + ')' if dqs else ''}",
        "a Q/DQ pair on a convolution's output keeps the add (and its activation) out of the "
        "convolution: one more kernel and one more pass over the tensor per block"
        + (f" ({ctx.share(t)})" if t is not None else ""),
        "do not quantize the convolution's output; quantize the Add's residual (skip) input "
        "instead, so TensorRT can fuse the add into the convolution",
        layers=[add, conv],
        time_ms=t,
    )


# -- qdq-missing-scale ------------------------------------------------------------------------


@rule(
    "qdq-missing-scale",
    "warning",
    "Tensors without scale and zero-point fall back to non-INT8",
    "TensorRT warns `Missing scale and zero-point for tensor ...` for every tensor whose "
    "quantization parameters it does not know; the layers that read or write such a tensor "
    "cannot run in INT8 and fall back to FP16/FP32, with reformats around them. The warnings "
    "are aggregated into one finding listing the tensors.",
    needs=("log",),
)
def check_qdq_missing_scale(ctx: LintContext) -> Iterator[Finding]:
    """The ``Missing scale and zero-point`` warnings, aggregated."""
    events = ctx.events(MissingScale)
    if not events:
        return
    tensors = list(dict.fromkeys(e.tensor for e in events))
    shown = ", ".join(tensors[:5]) + (f" and {len(tensors) - 5} more" if len(tensors) > 5 else "")
    n = len(tensors)
    yield make(
        ctx,
        check_qdq_missing_scale,
        ", ".join(tensors) if n <= 3 else f"{n} tensors",
        f"TensorRT has no scale and zero-point for {n} tensor{'s' if n != 1 else ''} ({shown}) "
        "and runs the layers that read or write them in a non-INT8 precision",
        "each such tensor breaks the INT8 chain: the layers around it run in FP16/FP32 and "
        "reformats convert in and out of INT8",
        "add Q/DQ nodes for these tensors (every input of a layer meant to run in INT8 needs "
        "one), or give them dynamic ranges/calibration; accept float where that is intended",
        lines=[e.span[0] for e in events],
        names=tensors,
    )


# -- comparing with a reference build ----------------------------------------------------------


@rule(
    "qdq-split-fusion",
    "warning",
    "Nodes fused into one layer in the reference are split around Q/DQ nodes",
    "With `--reference` (an FP16 build of the same model), the two engines are aligned by "
    "the ONNX nodes their layers hold. A group of nodes that the reference ran as one fused "
    "layer and this build runs as several layers, with Q/DQ nodes between the pieces, is a "
    "fusion that quantization cut: each piece writes its tensor to memory and the Q/DQ "
    "nodes in between become reformats.",
    needs=("engine", "reference"),
    qdq=True,
)
def check_qdq_split_fusion(ctx: LintContext) -> Iterator[Finding]:
    """Fusion groups of the reference that this build splits at Q/DQ nodes."""
    cmp = ctx.comparison
    if cmp is None or cmp.alignment_failed:
        return  # groups of unrelated layers: reference-alignment-failed says so instead
    for g in cmp.groups:
        if len(g.layers_b) <= len(g.layers_a) or not g.qdq_nodes:
            continue
        pieces = [ctx.layer(i) for i in g.layers_b if i < len(ctx.layers)]
        cut = {normalize_name(q) for q in g.qdq_nodes}
        inside = {x.index for x in pieces}
        quantizers = [
            x
            for x in ctx.qdq_layers
            if x.index not in inside and cut & {normalize_name(x.name), *ctx.nodes(x)}
        ]
        ta = _sum(cmp.layers_a[i].time_ms for i in g.layers_a)
        tb = ctx.times([*pieces, *quantizers])
        delta = tb - ta if ta is not None and tb is not None else None
        when = (
            f"; here the pieces{' and the Q/DQ layers between them' if quantizers else ''} take "
            f"{fmt_ms(tb)} against {fmt_ms(ta)} for the fused layer ({number(delta, sign=True)} ms)"
            if delta is not None
            else ""
        )
        fused = g.names_a[0] if g.names_a else "?"
        nodes = ", ".join(short(n, 50) for n in g.nodes[:4]) + (
            f" and {len(g.nodes) - 4} more" if len(g.nodes) > 4 else ""
        )
        cuts = ", ".join(short(q, 70) for q in g.qdq_nodes[:3]) + (
            f" and {len(g.qdq_nodes) - 3} more" if len(g.qdq_nodes) > 3 else ""
        )
        n = len(pieces) + len(quantizers)
        plus = f" plus {_n(len(quantizers), 'Q/DQ layer')}" if quantizers else ""
        yield make(
            ctx,
            check_qdq_split_fusion,
            short(fused, 120),
            f"the reference runs {nodes} as one layer ({short(fused, 90)}); this build runs "
            f"them as {len(pieces)} layers{plus}, cut at {cuts}",
            "quantization cut the fusion: every piece writes its tensor to memory, and the Q/DQ "
            f"nodes between the pieces run as reformats ({n} kernels instead of 1){when}",
            f"move or remove the Q/DQ nodes that cut the group ({cuts}): quantize the inputs "
            "of convolutions/GEMMs and the residual (skip) input of an Add, not the outputs of "
            "the layers inside the fused group",
            layers=[*pieces, *quantizers],
            names=g.qdq_nodes,
            reference_layers=g.layers_a,
            time_ms=delta,
        )


def _engine_total(engine: Engine) -> float:
    """An engine's time per inference: its profile's total, else the sum of layer times."""
    if engine.profile is not None and engine.profile.total_ms > 0:
        return engine.profile.total_ms
    return engine.total_ms


def _quantized(ctx: LintContext) -> bool:
    """Whether the build is quantized: Q/DQ nodes, ``--int8``, or INT8 layers."""
    return ctx.has_qdq or "INT8" in ctx.precisions or any(ctx.is_int8(x) for x in ctx.layers)


def _totals(ctx: LintContext) -> tuple[float | None, float | None]:
    """The reference's and this build's time per inference (``None`` where not known)."""
    ta = _engine_total(ctx.reference_engine) if ctx.reference_engine is not None else None
    return (None if ta is None or ta != ta or ta <= 0 else ta), ctx.total_ms


def _sum(values: object) -> float | None:
    known = [v for v in values if v is not None]  # type: ignore[attr-defined]
    return sum(known) if known else None


@rule(
    "int8-slower-than-reference",
    "warning",
    "The quantized build is slower than the reference",
    "With `--reference` and both profiles, the layer times of the two builds are compared: "
    "a quantized build whose layers take longer than the FP16 reference's lost more to "
    "reformats, split fusions and float round trips than INT8 kernels won. The finding gives "
    "the total difference and the aligned layers that added the most time.",
    needs=("engine", "profile", "reference"),
)
def check_int8_slower_than_reference(ctx: LintContext) -> Iterator[Finding]:
    """The build's total layer time against the reference's, with the worst steps."""
    cmp = ctx.comparison
    if cmp is None or cmp.alignment_failed or ctx.reference_engine is None or not ctx.timed:
        return  # (a failed alignment: no verdict, see reference-alignment-failed)
    if not _quantized(ctx):
        return
    ta, tb = _totals(ctx)
    if tb is None or ta is None or tb <= ta:
        return
    from trtlog.diff.summary import step_times  # (with a reference only: 0.04 s to import)

    rows = []
    for s, (_, _, delta, _, _) in zip(cmp.steps, step_times(cmp), strict=True):
        if delta is not None and delta > 0:
            name = cmp.layers_b[s.index_b].name if s.index_b is not None else "?"
            rows.append((delta, name, s.index_b))
    rows.sort(key=lambda r: -r[0])
    worst = "; ".join(f"{short(n, 60)} {number(d, sign=True)} ms" for d, n, _ in rows[:3])
    yield make(
        ctx,
        check_int8_slower_than_reference,
        "engine time",
        f"the layers take {fmt_ms(tb)} per inference against {fmt_ms(ta)} in the reference "
        f"({number(tb - ta, sign=True)} ms, {100 * (tb - ta) / ta:+.1f}%)",
        "quantization made this engine slower: reformats, split fusions and float round "
        f"trips cost more than the INT8 kernels saved (biggest additions: {worst or '?'})",
        "fix the qdq-* findings first; leave the layers where INT8 does not pay off in FP16 "
        "(remove their Q/DQ nodes) and compare again",
        layers=[ctx.layer(i) for _, _, i in rows[:3] if i is not None and i < len(ctx.layers)],
        time_ms=tb - ta,
    )


@rule(
    "reference-alignment-failed",
    "info",
    "The build and the reference do not align: no comparison verdict",
    "The comparison rules (`qdq-split-fusion`, `int8-slower-than-reference`) judge this build "
    "against `--reference` layer by layer. When the two engines are not builds of one model "
    "(their convolutions or weight totals differ, or nothing, not even their ONNX names, "
    "shows they are one model) or fewer than half the computing layers of the smaller side "
    "find a counterpart, a fusion split or a slowdown read from their pairs would compare "
    "unrelated layers, so those rules stay silent and this finding says why, as `trtlog diff` "
    "and the report's comparison do (docs/comparison.md).",
    needs=("engine", "reference"),
)
def check_reference_alignment_failed(ctx: LintContext) -> Iterator[Finding]:
    """Why the reference rules made no verdict: the layers of the two builds did not align."""
    cmp = ctx.comparison
    if cmp is None or not cmp.alignment_failed:
        return
    paired, possible = cmp.alignment()
    different = cmp.same_model is False
    ta, tb = _totals(ctx)
    totals = (
        f"; in total, this build's layers take {fmt_ms(tb)} per inference against "
        f"{fmt_ms(ta)} in the reference"
        if ta is not None and tb is not None
        else ""
    )
    yield make(
        ctx,
        check_reference_alignment_failed,
        "another model" if different else f"{paired} of {possible} layers paired",
        f"the reference and this build do not align: {cmp.alignment_reason}; no comparison "
        f"verdict is made{totals}",
        "pairs of unrelated layers would make up split fusions and per-layer slowdowns, so "
        "qdq-split-fusion and int8-slower-than-reference say nothing about this reference"
        + (
            " (whether quantization made the engine slower needs a reference of the same model)"
            if _quantized(ctx)
            else ""
        ),
        "check that --reference is a build of the same model (the same ONNX export, built at "
        "the reference precision); `trtlog diff REFERENCE BUILD` shows what paired and the "
        "totals by layer type and precision",
        reference_layers=cmp.unmatched_a[:20],
        layers=[i for i in cmp.unmatched_b[:20] if i < len(ctx.layers)],
    )
