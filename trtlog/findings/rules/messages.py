"""Message rules: what one line of TensorRT (or an integration) says, whatever its envelope.

Part of the view package :mod:`trtlog.findings`. These rules need no engine and no
section of a whole log: one warning pasted alone is their whole evidence (docs/rules.md gives
each rule's smallest evidence). They read the text of the log's warning, error and info lines
(and of lines without a severity, pasted without their envelope), never the verbose lines, so
they cost little on a 50 MB verbose log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from trtlog.events import (
    DeviceKv,
    DlaProfileFallback,
    EmbeddedMemoryCap,
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
    TensorTypeBuildTime,
    Tf32Unsupported,
    TimingCacheWarning,
    TrtError,
    Unrecognized,
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
    "message_lines",
]


#: the event classes whose lines the message rules read (with every non-verbose unrecognized
#: line): the messages of their tables that the grammars know
_MESSAGE_EVENTS: tuple[type[EventBase], ...] = (
    Unrecognized,
    TrtError,
    DeviceKv,
    LibraryNote,
    OnnxInt64Weights,
    WeightsConversionWarning,
    PlanCrossDeviceWarning,
    TensorTypeBuildTime,
    MaxBatchWarning,
    ShapeLayerInt32,
    SetTypeNonIo,
    TimingCacheWarning,
    # typed since; benign-warning still reads their text
    Tf32Unsupported,
    ProfileSharingDeprecated,
    LoggerDiffers,
    DlaProfileFallback,
    OnnxWeightsTransposed,
)


def message_lines(ctx: LintContext) -> list[tuple[int, str]]:
    """``(line, text)`` of the lines the message rules read, in file order.

    Non-verbose unrecognized lines (pasted lines without severity too) and the lines of the
    few known kinds in :data:`_MESSAGE_EVENTS`, read from the build's per-kind index: never a
    walk over every event of a 50 MB log. Computed once per lint run.
    """

    def compute(c: LintContext) -> list[tuple[int, str]]:
        build = c.build
        if build is None:
            return []
        text = build.lines_text
        out: list[tuple[int, str]] = []
        for e in c.events(*_MESSAGE_EVENTS):
            if e.severity == "verbose":
                continue
            first, last = e.span
            out.extend((n, text(n).rstrip("\r\n")) for n in range(first, last + 1))
        return out

    return ctx.memo("message_lines", compute)


def _find(ctx: LintContext, pattern: re.Pattern[str]) -> list[tuple[int, re.Match[str]]]:
    return [(n, m) for n, text in message_lines(ctx) if (m := pattern.search(text)) is not None]


# -- benign-warning ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Benign:
    key: str
    pattern: re.Pattern[str]
    why: str
    source: str


_BENIGN = (
    _Benign(
        "CUDA lazy loading",
        re.compile(r"CUDA lazy loading is not enabled\. "),
        "a start-up hint (set CUDA_MODULE_LOADING=LAZY to save device memory and start-up "
        "time), not a problem of the engine",
        "https://github.com/NVIDIA/TensorRT/issues/4058",
    ),
    _Benign(
        "INT64 weights cast to INT32",
        re.compile(
            r"Your ONNX model has been generated with INT64 weights, while TensorRT does not "
            r"natively support INT64\. Attempting to cast down to INT32\."
        ),
        "shape constants are cast down; harmless unless a value exceeds INT32 (TensorRT then "
        "says that weights were clamped)",
        "https://github.com/NVIDIA-AI-IOT/deepstream_lpr_app/issues/15",
    ),
    _Benign(
        "tensor data type determined at build time",
        re.compile(
            r"Tensor DataType is determined at build time for tensors not marked as input or "
            r"output\."
        ),
        "informational: TensorRT picks the types of inner tensors itself",
        "https://github.com/pytorch/TensorRT/issues/830",
    ),
    _Benign(
        "getMaxBatchSize() on an explicit-batch engine",
        re.compile(r"The getMaxBatchSize\(\) function should not be used with an engine built"),
        "an application calls a deprecated query; the engine is not affected",
        "https://github.com/microsoft/onnxruntime/issues/13052",
    ),
    _Benign(
        "logger differs from the one already provided",
        re.compile(r"The logger passed into createInferRuntime differs from one already provided"),
        "TensorRT keeps one logger per process",
        "https://github.com/NVIDIA/TensorRT/issues/1475",
    ),
    _Benign(
        "profileSharing0806 deprecated",
        re.compile(
            r"profileSharing0806 is on by default in TensorRT 10\.0\. This flag is deprecated"
        ),
        "a flag that has no effect since 10.0 (TensorRT-LLM still sets it)",
        "https://github.com/NVIDIA/TensorRT-LLM/issues/2976",
    ),
    _Benign(
        "shape layer runs in INT32",
        re.compile(r"A shape layer can only run in INT32 precision"),
        "shape computations are INT32 whatever precision the build asks for",
        "https://github.com/NVIDIA/TensorRT-LLM/issues/1054",
    ),
    _Benign(
        "setType on a non-I/O tensor",
        re.compile(
            r"ITensor::setType\([^)]*\) was called on non I/O tensor: .*This will have no effect"
        ),
        "an API call with no effect, as the message says",
        "https://github.com/NVIDIA/TensorRT-LLM/issues/341",
    ),
    _Benign(
        "TF32 unsupported by the GPU",
        re.compile(
            r"BuilderFlag::kTF32 is set but hardware does not support TF32\. Disabling TF32"
        ),
        "the GPU predates Ampere; FP32 runs without TF32",
        "https://github.com/NVIDIA/TensorRT/issues/3834",
    ),
    _Benign(
        "DLA profile note in a GPU build",
        re.compile(
            r"DLA requests all profiles have same min, max, and opt value\. All dla layers are "
            r"falling back to GPU"
        ),
        "the build does not use DLA, so nothing fell back",
        "https://github.com/NVIDIA/TensorRT-LLM/issues/2976",
    ),
    _Benign(
        "weights transposed for the refitter",
        re.compile(r"has been transposed with permutation of \(1, 0\)! If you plan on overwriting"),
        "matters only when the weights are refitted later",
        "https://github.com/NVIDIA-AI-IOT/deepstream_lpr_app/issues/15",
    ),
    _Benign(
        "DeepStream engine cache miss",
        re.compile(
            r"Deserialize engine failed because file path: .* open error"
            r"|deserialize engine from file :\S+ failed"
        ),
        "the engine file does not exist yet: DeepStream builds it and saves it",
        "https://github.com/ml6team/deepstream-python/issues/19",
    ),
    _Benign(
        "tactic skipped on an exception",
        re.compile(r"Skipping tactic 0x[0-9a-fA-F]+ due to exception "),
        "the autotuner skips a tactic that cannot run this layer; some integrations print it "
        "as an error",
        "https://github.com/microsoft/onnxruntime/issues/22164",
    ),
)
# read from its typed event (embedded_memory_cap), not from the text
_EMBEDDED = _Benign(
    "unknown embedded device",
    re.compile(r"(?!)"),
    "TensorRT did not find the Jetson module in its table and used a default memory cap; "
    "the build goes on",
    "https://github.com/marcoslucianops/DeepStream-Yolo/issues/420",
)
_BENIGN_ANY = re.compile("|".join(f"(?:{b.pattern.pattern})" for b in _BENIGN))
_DLA_BENIGN = "DLA profile note in a GPU build"
# the fatal form of the embedded-device message stops the build (NVIDIA/TensorRT#2098)
_FATAL_EMBEDDED = re.compile(r"Assertion upperBound != 0 failed\. Unknown embedded device")


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
    """Known harmless messages, by kind, with counts."""
    texts = message_lines(ctx)
    if not texts and not ctx.events(EmbeddedMemoryCap):
        return
    from trtlog.findings.rules.build_process import uses_dla

    # a line that shows why a build failed is never harmless: a tactic exception that left its
    # layer without a tactic, the line a failure quotes, a failed build's error lines
    causes = {t.line for o in ctx.outcomes for t in o.exceptions if t.fatal}
    causes.update(o.line for o in ctx.outcomes if o.value in ("failed", "killed") and o.line)
    found: dict[str, list[int]] = {}
    caps = [e.span[0] for e in ctx.events(EmbeddedMemoryCap)]
    if caps:
        found[_EMBEDDED.key] = caps
    for n, text in texts:
        if n in causes:
            continue
        if _BENIGN_ANY.search(text) is None:
            continue  # one search for the common line that is none of them
        for benign in _BENIGN:
            if benign.pattern.search(text) is None:
                continue
            if benign.key == _DLA_BENIGN and uses_dla(ctx):  # read only when the note shows
                continue
            if _FATAL_EMBEDDED.search(text):
                continue
            found.setdefault(benign.key, []).append(n)
            break
    if "INT64 weights cast to INT32" in found and ctx.events(OnnxInt32Clamped):
        del found["INT64 weights cast to INT32"]  # values did not fit: not harmless
    if not found:
        return
    by_key = {b.key: b for b in (_EMBEDDED, *_BENIGN)}
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
