"""Message rules: what one line of TensorRT (or an integration) says, whatever its envelope.

Part of the view package :mod:`trtlog.findings`. These rules need no engine and no
section of a whole log: one warning pasted alone is their whole evidence (docs/rules.md gives
each rule's smallest evidence). They read typed events (the parser's grammar knows each
message), never a line's text, through the build's per-kind index, so they cost little on a
50 MB verbose log.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from trtlog.events import (
    DlaProfileFallback,
    EmbeddedMemoryCap,
    EngineCacheMiss,
    EventBase,
    Int8Fallback,
    LibraryNote,
    LoggerDiffers,
    MaxBatchWarning,
    OnnxInt32Clamped,
    OnnxInt64Weights,
    OnnxParseNode,
    OnnxWeightsTransposed,
    PlanCrossDeviceWarning,
    ProfileSharingDeprecated,
    SetTypeNonIo,
    ShapeLayerInt32,
    TacticSkippedException,
    TensorTypeBuildTime,
    Tf32Unsupported,
    WeightsConversionWarning,
    WeightsFp16Issues,
)
from trtlog.findings.base import make, rule
from trtlog.findings.context import LintContext, short
from trtlog.findings.models import Finding

__all__ = [
    "check_benign_warning",
    "check_engine_from_other_device",
    "check_fp16_weights_converted",
    "check_int8_disabled_by_integration",
    "check_low_precision_unsupported_gpu",
]


# -- benign-warning ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Benign:
    """A harmless message: the event class that holds it, and why it needs nothing done."""

    key: str
    event: type[EventBase]
    why: str
    source: str


def _lazy_loading_off(event: EventBase) -> bool:
    return isinstance(event, LibraryNote) and event.note == "lazy_loading" and not event.enabled


_BENIGN = (
    _Benign(
        "unknown embedded device",
        EmbeddedMemoryCap,
        "TensorRT did not find the Jetson module in its table and used a default memory cap; "
        "the build goes on",
        "https://github.com/marcoslucianops/DeepStream-Yolo/issues/420",
    ),
    _Benign(
        "CUDA lazy loading",
        LibraryNote,  # only its lazy_loading note saying "not enabled" (_lazy_loading_off)
        "a start-up hint (set CUDA_MODULE_LOADING=LAZY to save device memory and start-up "
        "time), not a problem of the engine",
        "https://github.com/NVIDIA/TensorRT/issues/4058",
    ),
    _Benign(
        "INT64 weights cast to INT32",
        OnnxInt64Weights,
        "shape constants are cast down; harmless unless a value exceeds INT32 (TensorRT then "
        "says that weights were clamped)",
        "https://github.com/NVIDIA-AI-IOT/deepstream_lpr_app/issues/15",
    ),
    _Benign(
        "tensor data type determined at build time",
        TensorTypeBuildTime,
        "informational: TensorRT picks the types of inner tensors itself",
        "https://github.com/pytorch/TensorRT/issues/830",
    ),
    _Benign(
        "getMaxBatchSize() on an explicit-batch engine",
        MaxBatchWarning,
        "an application calls a deprecated query; the engine is not affected",
        "https://github.com/microsoft/onnxruntime/issues/13052",
    ),
    _Benign(
        "logger differs from the one already provided",
        LoggerDiffers,
        "TensorRT keeps one logger per process",
        "https://github.com/NVIDIA/TensorRT/issues/1475",
    ),
    _Benign(
        "profileSharing0806 deprecated",
        ProfileSharingDeprecated,
        "a flag that has no effect since 10.0 (TensorRT-LLM still sets it)",
        "https://github.com/NVIDIA/TensorRT-LLM/issues/2976",
    ),
    _Benign(
        "shape layer runs in INT32",
        ShapeLayerInt32,
        "shape computations are INT32 whatever precision the build asks for",
        "https://github.com/NVIDIA/TensorRT-LLM/issues/1054",
    ),
    _Benign(
        "setType on a non-I/O tensor",
        SetTypeNonIo,
        "an API call with no effect, as the message says",
        "https://github.com/NVIDIA/TensorRT-LLM/issues/341",
    ),
    _Benign(
        "TF32 unsupported by the GPU",
        Tf32Unsupported,
        "the GPU predates Ampere; FP32 runs without TF32",
        "https://github.com/NVIDIA/TensorRT/issues/3834",
    ),
    _Benign(
        "DLA profile note in a GPU build",
        DlaProfileFallback,
        "the build does not use DLA, so nothing fell back",
        "https://github.com/NVIDIA/TensorRT-LLM/issues/2976",
    ),
    _Benign(
        "weights transposed for the refitter",
        OnnxWeightsTransposed,
        "matters only when the weights are refitted later",
        "https://github.com/NVIDIA-AI-IOT/deepstream_lpr_app/issues/15",
    ),
    _Benign(
        "DeepStream engine cache miss",
        EngineCacheMiss,
        "the engine file does not exist yet: DeepStream builds it and saves it",
        "https://github.com/ml6team/deepstream-python/issues/19",
    ),
    _Benign(
        "tactic skipped on an exception",
        TacticSkippedException,  # read from the builds' outcomes: the layer kept a tactic
        "the autotuner skips a tactic that cannot run this layer; some integrations print it "
        "as an error",
        "https://github.com/microsoft/onnxruntime/issues/22164",
    ),
)
_DLA_BENIGN = "DLA profile note in a GPU build"
_SKIPPED = "tactic skipped on an exception"


@rule(
    "benign-warning",
    "info",
    "Messages that look alarming but need no action",
    "TensorRT and its integrations print some warnings (and a few errors) that worry users "
    "but need nothing done: a default memory cap on an unknown Jetson module, the CUDA lazy "
    "loading hint, INT64 shape constants cast to INT32, deprecated flags and queries, shape "
    "layers that always run INT32, a missing engine cache that DeepStream then builds, "
    "tactics skipped during autotuning. The finding counts each and says why it is harmless, "
    "so that the real causes stand out.",
    needs=("log",),
)
def check_benign_warning(ctx: LintContext) -> Iterator[Finding]:
    """Known harmless messages, by kind, with counts (read from their typed events)."""
    if ctx.build is None:
        return
    from trtlog.findings.rules.build_process import uses_dla

    # a line that shows why a build failed is never harmless: the line a failure quotes
    causes = {o.line for o in ctx.outcomes if o.value in ("failed", "killed") and o.line}
    found: dict[str, list[int]] = {}
    for benign in _BENIGN:
        if benign.key == _SKIPPED:
            # a tactic exception is harmless when its layer kept another tactic; the outcome
            # of each build judges it (typed skip lines and the error recorder's form alike)
            lines = [t.line for o in ctx.outcomes for t in o.exceptions if not t.fatal]
        else:
            lines = [
                e.span[0]
                for e in ctx.events(benign.event)
                if e.severity != "verbose"
                and (benign.event is not LibraryNote or _lazy_loading_off(e))
            ]
            if benign.event is EmbeddedMemoryCap:  # the cap is harmless at any severity
                lines = [e.span[0] for e in ctx.events(EmbeddedMemoryCap)]
        lines = [n for n in lines if n not in causes]
        if not lines:
            continue
        if benign.key == _DLA_BENIGN and uses_dla(ctx):  # read only when the note shows
            continue
        if benign.event is OnnxInt64Weights and ctx.events(OnnxInt32Clamped):
            continue  # values did not fit: not harmless
        found[benign.key] = sorted(lines)
    if not found:
        return
    # the memory cap first, then in the order the messages first appear
    found = dict(sorted(found.items(), key=lambda kv: (kv[0] != _BENIGN[0].key, kv[1][0])))
    by_key = {b.key: b for b in _BENIGN}
    parts = [f"{key} ({len(lines)} times): {by_key[key].why}" for key, lines in found.items()]
    count = sum(len(lines) for lines in found.values())
    lines = sorted(n for ns in found.values() for n in ns[:50])
    yield make(
        ctx,
        check_benign_warning,
        f"{count} harmless message{'s' if count != 1 else ''}",
        "; ".join(parts),
        "none: these messages do not change the engine",
        "nothing to do; look elsewhere for the cause of a problem",
        lines=lines,
        line_count=count,
    )


# -- engine-from-other-device -----------------------------------------------------------------


@rule(
    "engine-from-other-device",
    "info",
    "The engine was built on another GPU model",
    "TensorRT tunes an engine for the GPU it was built on; loading it on another model works "
    "but may be slower or fail. The message is known to appear between two boards of the "
    "same model too. Engines built with a hardware compatibility level are meant to move.",
    needs=("log",),
)
def check_engine_from_other_device(ctx: LintContext) -> Iterator[Finding]:
    """The runtime's warning that the plan file comes from another device model."""
    hits = ctx.events(PlanCrossDeviceWarning)
    if not hits:
        return
    level = (ctx.option("Hardware Compatibility Level") or "None").strip()
    command = (ctx.build.command_line or "") if ctx.build is not None else ""
    if level != "None" or "--hardwareCompatibilityLevel" in command:
        return  # engines built to move between GPUs
    yield make(
        ctx,
        check_engine_from_other_device,
        "engine plan file",
        f"the engine was built on another GPU model ({len(hits)} time"
        f"{'s' if len(hits) != 1 else ''})",
        "its tactics were timed on another GPU: it may run slower or fail",
        "build the engine on the GPU model it runs on (ignore the message if both are the "
        "same model), or build with --hardwareCompatibilityLevel when it must move",
        lines=[e.span[0] for e in hits[:20]],
        line_count=len(hits),
    )


# -- int8-disabled-by-integration -------------------------------------------------------------


@rule(
    "int8-disabled-by-integration",
    "warning",
    "The integration built a non-INT8 engine although INT8 was asked",
    "DeepStream and jetson-inference fall back to FP16 on their own when INT8 cannot be used: "
    "no calibration file, a GPU without fast INT8 (TX2), no calibrator. The engine then is "
    "FP16 and the only trace is one warning.",
    needs=("log",),
)
def check_int8_disabled_by_integration(ctx: LintContext) -> Iterator[Finding]:
    """DeepStream's and jetson-inference's silent fall back from INT8 to FP16."""
    hits = ctx.events(Int8Fallback)
    if not hits:
        return
    first = hits[0].text
    if hits[0].reason == "no_calibration_file":
        fix = "give the INT8 calibration file (int8-calib-file) in the nvinfer config"
    elif hits[0].reason == "platform":
        fix = "run INT8 on a GPU with fast INT8, or ask for FP16 explicitly (network-mode=2)"
    else:
        fix = "provide a calibrator (or a calibration cache), or ask for FP16 explicitly"
    yield make(
        ctx,
        check_int8_disabled_by_integration,
        "INT8",
        f"INT8 was disabled: {first}",
        "the engine runs FP16, slower than the INT8 engine asked for, and its file name may "
        "still say int8",
        fix,
        lines=[e.span[0] for e in hits[:20]],
        line_count=len(hits),
    )


# -- fp16-weights-converted -------------------------------------------------------------------


def _span(event: EventBase) -> tuple[int, int]:
    """The event's lines as a range's bounds."""
    return event.span[0], event.span[1] + 1


@rule(
    "fp16-weights-converted",
    "info",
    "Weights lost precision when converted to FP16",
    "When an FP16 engine stores FP32 weights as FP16, values too small for FP16 (subnormal) "
    "lose precision and values too large are clamped. Subnormal values rarely matter; "
    "compare the FP16 engine's outputs with FP32 if accuracy dropped.",
    needs=("log",),
)
def check_fp16_weights_converted(ctx: LintContext) -> Iterator[Finding]:
    """``Weights [name=...] had the following issues`` and the 8.5+ summary, per layer."""
    layers: dict[str, list[int]] = {}
    for e in ctx.events(WeightsFp16Issues):
        name = e.weights.removesuffix(".weight").removesuffix(".bias")
        layers.setdefault(name, []).extend(range(e.span[0], e.span[1] + 1))
    # the 8.5+ summary: its issue lines belong to the event (and the verbose weights lists)
    summary = [n for e in ctx.events(WeightsConversionWarning) for n in range(*_span(e))]
    if not layers and not summary:
        return
    names = list(layers)
    shown = ", ".join(short(x, 60) for x in names[:5]) + (
        f" and {len(names) - 5} more" if len(names) > 5 else ""
    )
    subject = (
        short(names[0], 80) if len(names) == 1 else f"{len(names)} layers" if names else "weights"
    )
    message = (
        f"weights of {shown} lost precision in FP16"
        if names
        else "TensorRT reports weights that lost precision in FP16"
    )
    yield make(
        ctx,
        check_fp16_weights_converted,
        subject,
        message,
        "subnormal FP16 values become less precise (or zero); clamped values change the "
        "layer's result",
        "compare the FP16 outputs with FP32; if accuracy dropped, keep the named layers in FP32 "
        "(--layerPrecisions with --precisionConstraints=obey) or retrain with weight "
        "regularization",
        lines=sorted({*[n for ns in layers.values() for n in ns[:5]], *summary[:50]}),
        names=names,
    )


# -- low-precision-unsupported-gpu ------------------------------------------------------------

_KERNEL_MARK = {"FP8": ("e4m3", "e5m2"), "FP4": ("e2m1",)}


def _low_precision_lines(ctx: LintContext, names: list[str]) -> dict[str, int]:
    """The first line that shows each of ``names`` (``FP8``, ``FP4``) in use.

    0 for a layer of a JSON engine. The precision option, a parser node of the type
    (``TRT_FP8QuantizeLinear``, ``TRT_FP4DynamicQuantize``), an engine tensor of the type or
    a kernel named for it.
    Indexed reads and one pass over the engine's layers: never a scan of the log's lines.
    """
    found: dict[str, int] = {}
    line = ctx.option_lines.get("Precision")
    asked = (ctx.option("Precision") or "").upper().split("+")
    ops = set(ctx.ops.values())  # distinct parser ops: a handful
    for name in names:
        if line is not None and name in asked:
            found[name] = line
            continue
        marker = f"TRT_{name}"
        if any(marker in op for op in ops):
            found[name] = next(e.span[0] for e in ctx.events(OnnxParseNode) if marker in e.op)
    rest = [n for n in names if n not in found]
    if not rest or not ctx.has_qdq:
        return found  # FP8/FP4 tensors come from Q/DQ nodes (explicit quantization) only
    if line is not None and not ctx.strongly_typed:
        return found  # a weakly typed build runs FP8/FP4 only when its precision asks for it
    marks = {m: n for n in rest for m in _KERNEL_MARK[n]}
    for layer in ctx.layers:
        hit: str | None = None
        for t in layer.outputs:  # a tensor of the type is written by some layer
            if t.dtype is not None and t.dtype in rest:
                hit = t.dtype
        kernel = layer.tactic_name
        if hit is None and kernel is not None and "e" in kernel:
            hit = next((n for m, n in marks.items() if m in kernel), None)
        if hit is not None and hit not in found:
            lines = ctx.lines_of(layer.name)
            found[hit] = lines[0] if lines else 0
            if len(found) == len(names):
                break
    return found


@rule(
    "low-precision-unsupported-gpu",
    "warning",
    "FP8 or FP4 asked for on a GPU that does not run it",
    "TensorRT runs FP8 on Ada (compute capability 8.9) and newer, NVFP4 on Blackwell "
    "(10.0) and newer. On an older GPU the FP8/FP4 layers fall back to higher precision, or "
    "the build fails, so the quantized model gains nothing.",
    needs=("log",),
)
def check_low_precision_unsupported_gpu(ctx: LintContext) -> Iterator[Finding]:
    """FP8 below SM 8.9, FP4 below SM 10.0, from the device line and one FP8/FP4 line."""
    build = ctx.build
    if build is None:
        return
    from trtlog.findings.rules.hardware import compute_capability

    found_cc = compute_capability(ctx, exact=True)
    if found_cc is None:
        return
    cc, n_cc_line = found_cc
    n_cc = n_cc_line or 0
    needs = {"FP4": (10, 0), "FP8": (8, 9)}
    wanted = [name for name, needed in needs.items() if cc < needed]  # else the GPU runs it
    shown = _low_precision_lines(ctx, wanted) if wanted else {}
    found = [(name, shown[name], needs[name]) for name in wanted if name in shown]
    for name, line, needed in found:
        if cc >= needed:
            continue
        yield make(
            ctx,
            check_low_precision_unsupported_gpu,
            name,
            f"{name} is used{f' (line {line})' if line else ''} on a GPU of compute "
            f"capability {cc[0]}.{cc[1]}; "
            f"TensorRT runs {name} from {needed[0]}.{needed[1]} on",
            f"the {name} layers run in higher precision (or the build fails): the quantized "
            "model gains nothing",
            f"build on a GPU with {name} (compute capability {needed[0]}.{needed[1]} or newer), "
            "or quantize to INT8 / use FP16 on this one",
            lines=sorted({n_cc, line} - {0}),
        )
        return
