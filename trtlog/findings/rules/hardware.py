"""Hardware rules: what the GPU could run faster than the build asked for, or cannot run at all.

Part of the view package :mod:`trtlog.findings`. An FP32 engine on a GPU with tensor cores
(``fp32-on-tensor-core-gpu``), a quantized network on a GPU without the type's tensor cores
(``quantization-unsupported-gpu``, from the error TensorRT prints), and convolutions and GEMMs
whose channel counts are not the multiple their precision's tensor-core kernels want
(``channels-misaligned``, from the layer JSON, as TREx's convolution linter did).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trtlog.engine.model import EngineLayer
from trtlog.events import DeviceKv, ErrorRecorded, TrtError
from trtlog.findings.base import make, rule
from trtlog.findings.context import _WEIGHTED_OPS, LintContext, short
from trtlog.findings.models import Finding

__all__ = [
    "check_channels_misaligned",
    "check_fp32_on_tensor_core_gpu",
    "check_quantization_unsupported_gpu",
    "compute_capability",
]

#: the first compute capability with tensor cores (Volta)
_TENSOR_CORES = (7, 0)
#: the GPU families by their compute capability's major number, for messages
_ARCH = {7: "Volta/Turing", 8: "Ampere/Ada", 9: "Hopper", 10: "Blackwell", 12: "Blackwell"}
_CC = re.compile(r"(\d+)\.(\d+)")
# a kernel name says the SM it was compiled for: sm80_xmma_..., sm_89 ...
_SM_KERNEL = re.compile(r"(?:^|_)sm_?(\d)(\d)\d?(?=_|$)")


def _cc_text(cc: tuple[int, int]) -> str:
    return f"{cc[0]}.{cc[1]}"


def compute_capability(
    ctx: LintContext, *, exact: bool = False
) -> tuple[tuple[int, int], int | None] | None:
    """The GPU's compute capability and the log line that shows it, or ``None``.

    From the device block (``Compute Capability: 8.6``); failing that, unless ``exact``, the
    SM a chosen kernel was built for (``sm80_xmma_...``: a lower bound, since an 8.6 GPU
    runs sm80 kernels; no line).

    Example:
        >>> from trtlog import parse_text
        >>> from trtlog.findings.context import LintContext
        >>> b = parse_text("[I] === Device Information ===\\n[I] Compute Capability: 8.6\\n")
        >>> compute_capability(LintContext(b, None, None, None))
        ((8, 6), 2)
    """
    build = ctx.build
    if build is not None:
        for e in ctx.events(DeviceKv):
            if e.key == "Compute Capability" and (m := _CC.match(e.value.strip())):
                return (int(m.group(1)), int(m.group(2))), e.span[0]
        device = build.device
        if device is not None and device.compute_capability:
            m = _CC.match(device.compute_capability)
            if m:
                return (int(m.group(1)), int(m.group(2))), None
    if exact:
        return None
    for layer in ctx.layers:
        kernel = layer.tactic_name
        if kernel and (m := _SM_KERNEL.search(kernel)):
            return (int(m.group(1)), int(m.group(2))), None
    return None


def _has_errors(ctx: LintContext) -> bool:
    """Whether the log holds an error message (read from the kinds' rows, no event built)."""
    build = ctx.build
    return build is not None and any(
        "error" in severities or "fatal" in severities
        for _kind, _first, _last, severities in build.kind_rows()
    )


def _loads_engine(ctx: LintContext) -> bool:
    """A run that loaded a serialized engine (``Load engine: <path>``): it built nothing."""
    return bool((ctx.option("Load engine") or "").strip())


# -- fp32-on-tensor-core-gpu ------------------------------------------------------------------

_REDUCED = frozenset({"FP16", "BF16", "INT8", "FP8", "FP4", "INT4", "BEST"})


@rule(
    "fp32-on-tensor-core-gpu",
    "warning",
    "An FP32 engine on a GPU with tensor cores",
    "The build asked for no precision below FP32 (`Precision: FP32`) on a GPU with tensor "
    "cores (compute capability 7.0 or newer). Convolutions and matrix multiplies then run in "
    "FP32 (TF32 on Ampere and newer unless --noTF32), several times slower than in FP16 and "
    "with twice the memory traffic. Builds that load an engine, strongly typed builds (their "
    "types come from the model: see strongly-typed-fp32) and engines without convolutions "
    "or GEMMs are left alone.",
    needs=("log",),
    other_severities=(("info", "when the log does not list the engine's layers"),),
)
def check_fp32_on_tensor_core_gpu(ctx: LintContext) -> Iterator[Finding]:
    """A weakly typed FP32 build on compute capability 7.0+, with the fix for its version."""
    build = ctx.build
    if build is None or ctx.strongly_typed or _loads_engine(ctx):
        return
    precisions = {p.upper() for p in ctx.precisions}
    if not precisions or precisions & _REDUCED or not precisions <= {"FP32", "TF32"}:
        return
    found = compute_capability(ctx)
    if found is None or found[0] < _TENSOR_CORES:
        return
    cc, cc_line = found
    if _has_errors(ctx):
        return  # a failed build: its cause comes first (build-failed)
    weighted = list(ctx.weighted_layers)
    if ctx.layers and not weighted:
        return  # no convolution or GEMM: nothing that tensor cores speed up
    ops = set(ctx.ops.values())
    if not ctx.layers and ops and not ops & _WEIGHTED_OPS:
        return  # the parser's nodes (verbose logs) hold none either
    known = bool(weighted) or bool(ops & _WEIGHTED_OPS)
    line = ctx.option_lines.get("Precision")
    arch = _ARCH.get(cc[0], "")
    stake = ctx.times(weighted) if weighted else None
    share = ctx.share(stake)
    what = (
        f"{len(weighted)} convolution{'' if len(weighted) == 1 else 's'}/GEMM"
        f"{'' if len(weighted) == 1 else 's'} ("
        + ", ".join(short(x.name, 50) for x in weighted[:3])
        + (f" and {len(weighted) - 3} more" if len(weighted) > 3 else "")
        + ")"
        if weighted
        else "its convolutions and matrix multiplies"
        if known
        else "any convolutions and matrix multiplies of the model (the log does not list its "
        "layers)"
    )
    version = build.trt_version
    tf32 = " (TF32 tensor cores at best)" if cc >= (8, 0) else ""
    fix = (
        "add --fp16 to trtexec (BuilderFlag.FP16 in the API) and compare the outputs with the "
        "FP32 engine; --int8 with a calibrator or a Q/DQ model goes further"
    )
    if version is not None and version >= (10, 12):
        fix += (
            "; weak typing is deprecated from TensorRT 10.12 and gone in 11: the lasting fix "
            "is an FP16/BF16 (ModelOpt AutoCast) or Q/DQ-quantized model built with "
            "--stronglyTyped"
        )
    elif version is None:
        fix += (
            " (TensorRT 5-10; TensorRT 11 has no --fp16: export the model in FP16/BF16 or "
            "with Q/DQ nodes instead)"
        )
    yield make(
        ctx,
        check_fp32_on_tensor_core_gpu,
        f"Precision: {ctx.option('Precision') or 'FP32'}",
        f"the build enables no precision below FP32 on a GPU of compute capability "
        f"{_cc_text(cc)}{f' ({arch})' if arch else ''}, which has tensor cores: {what} run in "
        f"FP32{tf32}",
        "FP16 convolutions and GEMMs run on tensor cores at several times the FP32 rate and "
        "move half the bytes" + (f"; these layers take {share}" if share else ""),
        fix,
        severity=None if known else "info",
        lines=[n for n in (line, cc_line) if n],
        layers=weighted,
        time_ms=stake,
    )


# -- quantization-unsupported-gpu -------------------------------------------------------------

# the builder's refusal (Error Code 9), in its 8.6-10.x wordings:
# "Networks with FP8 Q/DQ layers require hardware with FP8 support."          (10.x)
# "Networks with FP8 precision require hardware with FP8 support."            (9.x, TRT-LLM)
# "Networks with QuantizeLayer/DequantizeLayer layers require hardware with Int8 support."
_NEEDS_HARDWARE = re.compile(
    r"Networks with (?P<what>.+?) require hardware with (?P<type>\w+) support"
)
#: the compute capability from which TensorRT runs each type on tensor cores
_FIRST_CC = {"INT8": (6, 1), "FP8": (8, 9), "FP4": (10, 0)}


def _hardware_type(text: str) -> str:
    upper = text.upper()
    return "INT8" if upper == "INT8" else upper


@rule(
    "quantization-unsupported-gpu",
    "error",
    "A quantized network on a GPU without that type",
    "TensorRT refuses to build a network with FP8 (or FP4, or INT8) quantize/dequantize "
    "layers on a GPU that has no tensor cores for the type: FP8 needs compute capability 8.9 "
    "(Ada) or newer, NVFP4 10.0 (Blackwell), INT8 6.1. It says so in one error "
    "(`Networks with FP8 Q/DQ layers require hardware with FP8 support`), and the build "
    "stops there.",
    needs=("log",),
)
def check_quantization_unsupported_gpu(ctx: LintContext) -> Iterator[Finding]:
    """The builder's ``Networks with ... require hardware with <type> support`` error."""
    hits: dict[str, list[int]] = {}
    what_of: dict[str, str] = {}
    for e in ctx.events(TrtError, ErrorRecorded):
        # an error's message is free text: read from the typed event's field, not the line
        m = _NEEDS_HARDWARE.search(e.message)
        if m is None:
            continue
        kind = _hardware_type(m.group("type"))
        hits.setdefault(kind, []).append(e.span[0])
        what_of.setdefault(kind, m.group("what"))
    if not hits:
        return
    found = compute_capability(ctx)
    for kind, lines in hits.items():
        first = _FIRST_CC.get(kind)
        gpu = f" (compute capability {_cc_text(found[0])})" if found else ""
        if kind == "FP8":
            fix = (
                "build on an Ada, Hopper or Blackwell GPU (compute capability 8.9+), or "
                "quantize the model to INT8 instead (ModelOpt --quantize_mode=int8), or "
                "build the unquantized model in FP16"
            )
        elif kind == "FP4":
            fix = (
                "build on a Blackwell GPU (compute capability 10.0+), or quantize to FP8 "
                "(Ada/Hopper) or INT8 instead"
            )
        else:
            fix = (
                "build on a GPU with fast INT8 (compute capability 6.1+, tensor cores from "
                "7.5), or remove the Q/DQ nodes and build in FP16/FP32"
            )
        yield make(
            ctx,
            check_quantization_unsupported_gpu,
            kind,
            f"TensorRT refused the network's {what_of[kind]}: this GPU{gpu} has no {kind} "
            "support" + (f" (it needs compute capability {_cc_text(first)}+)" if first else ""),
            "the build fails: no engine is written",
            fix,
            lines=lines[:20],
            line_count=len(lines),
        )


# -- channels-misaligned ------------------------------------------------------------------------

#: the channel multiple tensor-core kernels want, per compute precision: TREx's convolution
#: linter (8 for FP16, 16 for INT8); NVIDIA's tensor-core guide asks 8 for FP16/BF16 and
#: 16 for INT8/FP8 at least (32 for INT8 at best); see docs/rules.md
_ALIGN = {"FP16": 8, "BF16": 8, "INT8": 16, "FP8": 16}
_CONV = re.compile(r"conv", re.I)


def _channels(layer: EngineLayer) -> tuple[int | None, int | None]:
    """Input channels C and output channels K of a convolution (axis 1) or GEMM (last axis)."""
    if not layer.inputs or not layer.outputs:
        return None, None
    dims_in, dims_out = layer.inputs[0].dims, layer.outputs[0].dims
    if not dims_in or not dims_out:
        return None, None
    conv = _CONV.search(layer.type or "") is not None and len(dims_in) >= 4 and len(dims_out) >= 4
    c = dims_in[1] if conv else dims_in[-1]
    k = dims_out[1] if conv else dims_out[-1]
    return (c if c > 0 else None), (k if k > 0 else None)


def _is_head(ctx: LintContext, layer: EngineLayer) -> bool:
    """Whether no convolution or GEMM reads what the layer computes (an output head)."""
    seen = {layer.index}
    todo = ctx.downstream(layer)
    while todo:
        nxt = todo.pop()
        if nxt.index in seen:
            continue
        seen.add(nxt.index)
        if ctx.is_weighted(nxt):
            return False
        todo.extend(ctx.downstream(nxt))
    return True


def _compute_type(layer: EngineLayer) -> str | None:
    """The type a layer computes in: its first input's, else what its kernel or weights say.

    An INT8 convolution reads INT8 whatever it writes.
    """
    first = layer.inputs[0].dtype if layer.inputs else None
    return first if first is not None else layer.precision.compute


@rule(
    "channels-misaligned",
    "info",
    "Convolutions or GEMMs whose channel counts do not fit tensor cores",
    "Tensor-core kernels work on blocks of channels: 8 for FP16/BF16, 16 (best 32) for INT8 "
    "and FP8. A convolution or GEMM whose input or output channel count is not such a "
    "multiple is padded (the padding is computed and thrown away) or runs a slower kernel. "
    "Counts below one block (an image's 3 input channels) and the output width of a head "
    "(no convolution or GEMM reads it: 1000 classes) are left alone: the task sets them.",
    needs=("engine",),
)
def check_channels_misaligned(ctx: LintContext) -> Iterator[Finding]:
    """Weighted layers in FP16/BF16/INT8/FP8 whose C or K is not a multiple of the alignment."""
    found: list[tuple[EngineLayer, str]] = []
    for layer in ctx.weighted_layers:  # (no reformat among them)
        kind = _compute_type(layer)
        align = _ALIGN.get(kind or "")
        if align is None:
            continue
        c, k = _channels(layer)
        # a count below one block (an image's 3 channels, a 2-class head) is left alone: it
        # is what the model computes, and padding it cannot pay; so is the width of an output
        # head (1000 classes): the task sets it
        if k is not None and k % align and _is_head(ctx, layer):
            k = None
        bad = [
            f"{n}={v}" for n, v in (("C", c), ("K", k)) if v is not None and v > align and v % align
        ]
        if bad:
            found.append((layer, f"{', '.join(bad)} in {kind} (multiple of {align} wanted)"))
    if not found:
        return
    layers = [x for x, _w in found]
    stake = ctx.times(layers)
    share = ctx.share(stake)
    shown = "; ".join(f"{short(x.name, 50)}: {w}" for x, w in found[:3])
    more = f"; and {len(found) - 3} more" if len(found) > 3 else ""
    yield make(
        ctx,
        check_channels_misaligned,
        short(layers[0].name, 80) if len(layers) == 1 else f"{len(layers)} layers",
        f"{len(layers)} convolution{'' if len(layers) == 1 else 's'}/GEMM"
        f"{'' if len(layers) == 1 else 's'} with channel counts that tensor cores do not take "
        f"whole: {shown}{more}",
        "the channels are padded to the next multiple (work thrown away) or a slower kernel "
        "runs" + (f"; these layers take {share}" if share else ""),
        "round the channel counts of these layers up to the multiple in the model (pad the "
        "weights with zeros or change the layer widths), especially for the slowest ones",
        layers=layers,
        time_ms=stake,
    )
