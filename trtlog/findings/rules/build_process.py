"""Build-process rules: failed builds, memory-starved tactics, DLA fallback, timing cache.

Part of the view package :mod:`trtlog.findings`. These rules read the log alone: the errors
and the end banner, the autotuner's skipped tactics, the DLA placement warnings, the timing
cache messages and the INT8 calibration warnings.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from trtlog.events import (
    AccuracyCheck,
    AccuracyFailed,
    AppError,
    CachedTactic,
    CalibratorNotUsed,
    DefaultQuantization,
    DlaFallback,
    DlaOffloaded,
    DlaOffloadSummary,
    DynamicRangeSet,
    EngineBuilt,
    EngineGenerated,
    EngineLayerInfoHeader,
    EngineSize,
    ErrorRecorded,
    EventBase,
    GraphBuildDone,
    InternalError,
    LayerCostsHeader,
    MyelinMemBudget,
    OnnxNodeError,
    PlacementDla,
    PreOptionNotice,
    RunEnd,
    TacticsDone,
    TacticSkipped,
    TacticSkippedMemory,
    TimingCacheMode,
    TimingCacheSaved,
    TimingCacheSerialized,
    TimingCacheWarning,
    TimingRunner,
    TrtError,
    Unrecognized,
    WorkspaceHint,
)
from trtlog.findings.base import make, rule
from trtlog.findings.context import NAME_BRACED, NAME_FOREIGN, LintContext, short
from trtlog.findings.models import Finding
from trtlog.names import is_qdq_node, split_name

__all__ = [
    "check_build_failed",
    "check_dla_fallback",
    "check_int8_no_calibration",
    "check_slow_build_no_timing_cache",
    "check_tactic_memory_skip",
]

_MIB = 1024 * 1024
_LONG_TACTICS_S = 60.0


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _mib(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n / _MIB:,.1f} MiB" if n >= _MIB else f"{n:,} bytes"


def _workspace(pools: str | None) -> str | None:
    """``4096 MiB`` out of ``workspace: 4096 MiB, dlaSRAM: default, ...``."""
    if not pools:
        return None
    for part in pools.split(","):
        key, _, value = part.partition(":")
        if key.strip() == "workspace":
            return value.strip() or None
    return None


# -- tactic-memory-skip -----------------------------------------------------------------------


@rule(
    "tactic-memory-skip",
    "info",
    "Tactics were skipped for insufficient memory",
    "The autotuner skips a tactic whose scratch (workspace) request exceeds what it may "
    "allocate: the workspace pool limit or the device's free memory. A skipped tactic may have "
    "been the fastest, so a build short of memory can be slower than it needs to be. The "
    "finding counts the skipped tactics and compares the largest request with the configured "
    "workspace and the device memory.",
    needs=("log",),
)
def check_tactic_memory_skip(ctx: LintContext) -> Iterator[Finding]:
    """Tactics skipped for want of scratch or device memory, aggregated."""
    skipped = [
        e
        for e in ctx.events(TacticSkippedMemory, TacticSkipped)
        if isinstance(e, TacticSkippedMemory) or e.requested_bytes is not None
    ]
    hints = ctx.events(WorkspaceHint)
    # 10.x Myelin: "(foreignNode) [pass.cpp:2131: run_passes] Exceeded mem budget of <b>. Need <n>"
    budgets = ctx.events(MyelinMemBudget)
    if not skipped and not hints and not budgets:
        return
    requests = [e.requested_bytes for e in skipped if e.requested_bytes is not None]
    available = [e.available_bytes for e in skipped if e.available_bytes is not None]
    largest = max(requests) if requests else None
    workspace = _workspace(ctx.option("Memory Pools")) or ctx.option("Workspace")
    device = ctx.build.device if ctx.build is not None else None
    device_mib = device.global_memory_mib if device is not None else None
    parts = []
    if skipped:
        parts.append(f"{len(skipped)} tactic{'s were' if len(skipped) != 1 else ' was'} skipped")
    elif hints:
        parts.append("TensorRT reports that some tactics lacked workspace memory")
    if budgets:
        need = max(e.needed_bytes for e in budgets)
        parts.append(
            f"Myelin exceeded its memory budget {len(budgets)} time"
            f"{'s' if len(budgets) != 1 else ''} (budget {_mib(budgets[0].budget_bytes)}, "
            f"largest need {_mib(need)})"
        )
        largest_need: int | None = need
    else:
        largest_need = None
    if largest is not None:
        avail = f", {_mib(max(available))} available" if available else ""
        parts.append(f"the largest asked for {_mib(largest)}{avail}")
    config = f"workspace: {workspace}" if workspace else "workspace not printed"
    if device_mib:
        config += f"; device memory {device_mib:,} MiB"
    lines = [e.span[0] for e in [*skipped[:50], *hints[:3], *budgets[:10]]]
    wanted = max((n for n in (largest, largest_need) if n is not None), default=None)
    if wanted is not None and device_mib and wanted > device_mib * _MIB:
        fix = "the largest requests exceed the device's memory: nothing to gain from a larger pool"
    else:
        size = f"{-(-wanted // _MIB)}" if wanted else "<MiB>"
        version = ctx.build.trt_version if ctx.build is not None else None
        old = (version is not None and version < (8, 4)) or (
            ctx.option("Workspace") is not None and ctx.option("Memory Pools") is None
        )
        # --memPoolSize came with 8.4; before it, trtexec printed "Workspace: 16 MB"
        flag = f"--workspace={size}" if old else f"--memPoolSize=workspace:{size}"
        fix = (
            f"allow a larger workspace (trtexec {flag}, in MiB, or "
            "IBuilderConfig.set_memory_pool_limit) if the device has the memory to spare"
        )
    yield make(
        ctx,
        check_tactic_memory_skip,
        f"{len(skipped)} tactics" if skipped else "workspace",
        "; ".join(parts) + f" ({config})",
        "the autotuner could not time the skipped tactics; one of them may have been faster",
        fix,
        lines=lines,
    )


# -- dla-fallback -------------------------------------------------------------------------------

_DLA_REASONS = {
    "not_supported": "not supported on DLA",
    "unsupported_type": "layer type unsupported on DLA",
    "precision": "DLA runs only FP16/INT8",
    "dynamic_shape": "DLA needs static shapes",
    "no_dla_layer": "no layer can run on DLA",
    "operation": "operation unsupported on DLA",
}
_SUBGRAPH = re.compile(r"subgraphs? per DLA|DLA.*subgraph|too many.*DLA", re.IGNORECASE)
_NVM = re.compile(r" (?:to|from) nvm$| copy finish$")
_SWITCHED = re.compile(r"Switching to GPU for layer (?P<layer>.+?)\.?$")


def _is_dla_layer(name: str, type_: str | None, placed: frozenset[str] = frozenset()) -> bool:
    if name in placed:
        return True
    if type_ is not None and "dla" in type_.lower():
        return True
    # 7.x names a DLA subgraph by its layers in braces: "{conv1,pool1,...}"
    return name.startswith("{") and name.endswith("}") and not name.startswith("{ForeignNode[")


def uses_dla(ctx: LintContext) -> bool:
    """Whether the build asked for DLA (``--useDLACore``, DLA layers, or DLA warnings)."""
    core = (ctx.option("DLACore") or "").strip()
    if core and core != "-1":
        return True
    if ctx.events(PlacementDla, DlaFallback, DlaOffloaded):
        return True
    columns = ctx.columns
    # _is_dla_layer over the columns: the type test once per type, the name test inline
    if any(_is_dla_layer("", t) for t in set(columns.types)):
        return True
    return any(f & NAME_BRACED and not f & NAME_FOREIGN for f in columns.name_flags)


@rule(
    "dla-fallback",
    "warning",
    "Layers fell back from DLA to the GPU",
    "On Jetson/DRIVE, layers that DLA cannot run (unsupported types or parameters, FP32, "
    "dynamic shapes) fall back to the GPU when GPU fallback is allowed. Each fallback splits "
    "the network into more DLA subgraphs (DLA allows only a few per core) and adds DLA↔GPU "
    "transitions, each with a reformat and a synchronization, often costing more than the "
    "layer saved. Constants that fall back are harmless and only counted.",
    needs=("log", "engine"),
    other_severities=(("info", "when only constants fell back"),),
)
def check_dla_fallback(ctx: LintContext) -> Iterator[Finding]:
    """DLA fallbacks by reason, subgraph limits, offload counts, DLA↔GPU transitions."""
    check = check_dla_fallback
    if not uses_dla(ctx):
        return  # DLA's summary lines are printed by every 8.4+ build, DLA or not
    fallbacks = ctx.events(DlaFallback)
    offload = [e for e in ctx.events(DlaOffloadSummary) if e.offloaded < e.candidates]
    offload_text = (
        f"; only {offload[-1].offloaded} of {offload[-1].candidates} DLA candidate nodes were "
        "offloaded"
        if offload
        else ""
    )
    if fallbacks:
        constants = [e for e in fallbacks if (e.layer_type or "").upper() == "CONSTANT"]
        real = [e for e in fallbacks if e not in constants]
        reasons = Counter(e.reason for e in real)
        first: dict[str, Any] = {}
        for e in real:
            if e.layer:
                first.setdefault(e.layer, e)  # the first warning names the reason best
        named = list(first.values())
        shown = ", ".join(
            f"{short(e.layer, 50)} ({_DLA_REASONS.get(e.reason, e.reason)}"
            + (f": {e.layer_type or e.detail}" if e.layer_type or e.detail else "")
            + ")"
            for e in named[:5]
        )
        more = f" and {len(named) - 5} more" if len(named) > 5 else ""
        by_reason = ", ".join(f"{n} {_DLA_REASONS.get(r, r)}" for r, n in reasons.most_common())
        if constants:
            by_reason += (", " if by_reason else "") + f"{len(constants)} constants (harmless)"
        fixes = []
        if "precision" in reasons:
            fixes.append("build with --fp16 or --int8 so DLA can take the layers")
        if "dynamic_shape" in reasons:
            fixes.append("use static shapes for the DLA part")
        if reasons.keys() & {"not_supported", "unsupported_type", "operation"}:
            fixes.append(
                "replace the unsupported ops with DLA-supported ones, or move them to the "
                "start/end of the network so the DLA part stays one subgraph"
            )
        if "no_dla_layer" in reasons:
            fixes.append("no layer can run on DLA: build for the GPU alone")
        yield make(
            ctx,
            check,
            short(named[0].layer, 120)
            if len(named) == 1
            else f"{len(named) or len(real) or len(constants)} layers",
            f"{len(fallbacks)} DLA fallback warnings ({by_reason})"
            + (f": {shown}{more}" if shown else "")
            + offload_text,
            "every fallback layer runs on the GPU and cuts the DLA part into more subgraphs, "
            "with a DLA↔GPU transition at each cut",
            "; ".join(fixes) or "nothing to fix: only constants fell back",
            severity="warning" if real else "info",
            lines=[e.span[0] for e in [*fallbacks[:100], *offload[-1:]]],
            names=[e.layer for e in named],
        )
    elif offload:
        summary = offload[-1]
        yield make(
            ctx,
            check,
            "DLA offload",
            f"only {summary.offloaded} of {summary.candidates} DLA candidate nodes were "
            "offloaded to DLA",
            "the rest runs on the GPU",
            "rebuild with --verbose and look for the DLA messages before this line",
            lines=[summary.span[0]],
        )
    limits = [e for e in ctx.events(Unrecognized) if _SUBGRAPH.search(e.message)]
    if limits:
        moved = [m.group("layer") for e in limits if (m := _SWITCHED.search(e.message))]
        shown = ", ".join(short(x, 50) for x in moved[:5]) + (
            f" and {len(moved) - 5} more" if len(moved) > 5 else ""
        )
        yield make(
            ctx,
            check,
            "DLA subgraphs",
            f"the DLA subgraph limit was hit: {short(limits[0].message.split('. ')[0], 100)}"
            + (f"; {len(moved)} layers DLA supports went to the GPU ({shown})" if moved else ""),
            "layers beyond the limit run on the GPU even though DLA supports them",
            "reduce the number of DLA subgraphs (fewer fallback layers in the middle of the "
            "network) or split the model across both DLA cores",
            lines=[e.span[0] for e in limits[:50]],
            names=moved,
        )
    placed = frozenset(e.layer for e in ctx.events(PlacementDla))
    devices = [
        ("DLA" if _is_dla_layer(x.name, x.type, placed) else "GPU", x)
        for x in ctx.layers
        if not x.is_reformat and "reformatter" not in x.name
    ]
    # the profiler's DLA boundary rows: "<tensor> to nvm", "<tensor> from nvm" (8.x)
    profile = ctx.engine.profile if ctx.engine is not None else None
    transfers = [r for r in (profile.records if profile is not None else ()) if _NVM.search(r.name)]
    if any(d == "DLA" for d, _ in devices) or transfers:
        switches = sum(1 for (a, _), (b, _) in itertools.pairwise(devices) if a != b)
        moves = [r for r in transfers if not r.name.endswith(" copy finish")]
        if switches > 1 or len(moves) > 2:
            reformats = [x for x in ctx.layers if x.is_reformat or "reformatter" in x.name]
            known = [t for t in (ctx.times(reformats), math.fsum(r.average_ms for r in transfers))]
            t = math.fsum(v for v in known if v) or None
            share = ctx.share(t)
            counted = (
                f"the engine switches between DLA and GPU {switches} times "
                f"({sum(d == 'DLA' for d, _ in devices)} DLA layers, "
                f"{sum(d == 'GPU' for d, _ in devices)} GPU layers)"
                if switches > 1
                else f"the engine moves tensors between DLA and GPU {len(moves)} times"
            )
            if moves:
                counted += (
                    f"; the profile shows {len(moves)} DLA transfers "
                    f"({', '.join(short(r.name, 50) for r in moves[:3])}"
                    f"{', ...' if len(moves) > 3 else ''})"
                )
            yield make(
                ctx,
                check,
                "DLA↔GPU transitions",
                counted,
                "each transition copies the tensor into the other device's format and "
                "synchronizes" + (f"; the reformats and transfers take {share}" if share else ""),
                "keep the DLA part contiguous: move unsupported layers to the start or end of "
                "the network, or run the whole network on one device",
                layers=[x for d, x in devices if d == "DLA"][:50] + reformats[:50],
                names=[r.name for r in moves[:20]],
                time_ms=t,
            )


# -- slow-build-no-timing-cache ------------------------------------------------------------------


@rule(
    "slow-build-no-timing-cache",
    "info",
    "The build uses no persistent timing cache",
    "The autotuner times every candidate kernel of every layer, which takes most of a build. "
    "A timing cache file stores those timings so that later builds of the same (or a similar) "
    "model on the same GPU and TensorRT version reuse them. `Local timing cache in use` (no "
    "cache file) and `Detected invalid timing cache` mean every build times everything again. "
    "Info, raised to warning when tactic selection took a minute or more.",
    needs=("log",),
    other_severities=(("warning", f"when tactic selection took {_LONG_TACTICS_S:g} s or more"),),
)
def check_slow_build_no_timing_cache(ctx: LintContext) -> Iterator[Finding]:
    """A build without a persistent (or with an invalid) timing cache."""
    invalid = [e for e in ctx.events(TimingCacheWarning) if e.reason == "invalid"]
    local = [e for e in ctx.events(TimingCacheMode) if e.mode == "local"]
    if not invalid and not local:
        return
    if not invalid and (
        ctx.option("timingCacheFile")
        or ctx.events(TimingCacheSaved, TimingCacheSerialized, CachedTactic)
    ):
        return  # a cache file is in use (the local cache was a pass of its own)
    built = ctx.events(TacticsDone, LayerCostsHeader, TimingRunner, GraphBuildDone)
    if not built and not invalid:
        return  # an invalid cache alone is enough: the builder says it starts from scratch
    seconds = sum(e.seconds for e in ctx.events(TacticsDone))
    long = seconds >= _LONG_TACTICS_S
    took = f"; tactic selection took {seconds:.1f} s" if seconds else ""
    if invalid:
        what = (
            "the timing cache given to the builder was invalid (made by another TensorRT "
            "version or GPU, or corrupt) and was replaced by a local cache"
        )
    else:
        what = "no timing cache file was given: the build used a local cache it throws away"
    yield make(
        ctx,
        check_slow_build_no_timing_cache,
        "timing cache",
        what + took,
        "every build times every tactic again"
        + (", which is most of this build's time" if long else ""),
        "pass --timingCacheFile=<file> to trtexec (IBuilderConfig.create_timing_cache/"
        "set_timing_cache in the API) and keep the file between builds on the same GPU and "
        "TensorRT version",
        severity="warning" if long else "info",
        lines=[x.span[0] for x in [*invalid, *local][:3]]
        + [x.span[0] for x in ctx.events(TacticsDone)[:1]],
    )


# -- build-failed --------------------------------------------------------------------------------

_NO_IMPL = re.compile(r"Could not find any implementation for node (?P<node>.+?)(?:\.\s*$|\.\s|$)")
_PLUGIN = re.compile(
    r"Plugin not found|getPluginCreator could not find|Could not find plugin|plugin creator",
    re.IGNORECASE,
)
_NO_IMPORTER = re.compile(r"No importer registered for op|UNSUPPORTED_NODE", re.IGNORECASE)
_UNSUPPORTED = re.compile(r"unsupported|not supported", re.IGNORECASE)
_MEMORY = re.compile(r"out of memory|OutOfMemory|could not be allocated|cudaErrorMemory", re.I)
_CRASH = re.compile(
    r"Assertion .*failed|Aborted|Segmentation fault|core dumped|terminate called|"
    r"Assertion failed"
)
_FAILED_TEXT = re.compile(
    r"Could not find any implementation|Engine could not be created|Network validation failed|"
    r"buildSerializedNetwork|Building engine failed|Failed to parse onnx file|"
    r"Unable to create engine|Network must have at least one output|"
    # an internal assertion reported as an error ends the build (NVIDIA/TensorRT#2098: the
    # fatal "Unknown embedded device" form; TF-TRT's "Assertion Error in fromSymbolic")
    r"Assertion \S.* failed|^Assertion$",
    re.IGNORECASE,
)
# a tactic skipped because it threw is autotuning noise, not a crash (NVIDIA/TensorRT#4008)
_TACTIC_EXCEPTION = re.compile(r"Skipping tactic \S+ due to exception")
_ERRORS: tuple[type[EventBase], ...] = (
    OnnxNodeError,
    ErrorRecorded,
    TrtError,
    InternalError,
    AppError,
    PreOptionNotice,
)
# the order in which errors are quoted: the node the parser rejected says most
_PRIORITY = {cls.model_fields["kind"].default: i for i, cls in enumerate(_ERRORS)}
_BUILT = (EngineBuilt, EngineGenerated, EngineLayerInfoHeader, EngineSize)
_WORKING_ON = (TimingRunner, LayerCostsHeader)


def _text(e: EventBase) -> str:
    """What an error event says, in words (the error classes name their text differently)."""
    if isinstance(e, InternalError) and e.what == "assertion":
        where = f" at {e.source_file}:{e.source_line}" if e.source_file else ""
        return f"Assertion `{e.message}' failed{where}"
    for attr in ("description", "message", "node_text", "text"):
        value = getattr(e, attr, None)
        if value:
            return str(value)
    return ""


def _is_error(e: EventBase) -> bool:
    if isinstance(e, OnnxNodeError):
        return True
    return e.severity in ("error", "fatal") or (isinstance(e, InternalError) and e.severity is None)


def _segments(ctx: LintContext) -> list[tuple[int, int, str | None, str]]:
    """``(first line, last line, status, label)`` per trtexec run, or the whole log."""
    assert ctx.build is not None
    runs = ctx.build.runs
    if not runs:
        return [(1, ctx.build.line_count, None, "build")]
    many = len(runs) > 1
    return [
        (r.first_line, r.last_line, r.status, f"run {r.index + 1}" if many else "build")
        for r in runs
    ]


@rule(
    "build-failed",
    "error",
    "The build failed",
    "The run ended without an engine: an error of the library or of trtexec, an ONNX node the "
    "parser could not import, an internal assertion, or a crash. The finding quotes the first "
    "error, names the layer or node it mentions (with the parts of a fused name) and the cause "
    "when the message identifies one: no kernel for a fused Q/DQ combination, an unsupported "
    "op, a missing plugin, memory, or a bad command line. A TensorRT 11 run that failed only "
    "its accuracy check (`--refPair`) is reported with the tensors that exceeded the threshold.",
    needs=("log",),
)
def check_build_failed(ctx: LintContext) -> Iterator[Finding]:
    """The first error of a failed (or crashed) run, its node or layer, and the known cause."""
    if ctx.build is None:
        return
    errors = [e for e in ctx.events(*_ERRORS) if _is_error(e)]
    crashes: list[EventBase] = [
        e
        for e in ctx.events(Unrecognized)
        if _CRASH.search(e.message) and not _TACTIC_EXCEPTION.search(e.message)
    ]
    # a paste without trtexec runs: an unknown error line that ends a build counts too
    loose = [
        e
        for e in ctx.events(Unrecognized)
        if e.severity in ("error", "fatal") and _FAILED_TEXT.search(e.message)
    ]
    built_lines = [e.span[0] for e in ctx.events(*_BUILT)]
    for first_line, last_line, status, label in _segments(ctx):

        def inside(e: Any, lo: int = first_line, hi: int = last_line) -> bool:
            return bool(lo <= e.span[0] <= hi)

        errs = sorted((e for e in errors if inside(e)), key=lambda e: e.span[0])
        if status is None and loose:
            errs = sorted([*errs, *(e for e in loose if inside(e))], key=lambda e: e.span[0])
        crash = [e for e in crashes if inside(e)]
        crash += [e for e in errs if isinstance(e, InternalError) and e.aborting]
        built = any(first_line <= n <= last_line for n in built_lines)
        # a log without a trtexec footer (a crash, a Python API build) fails on a crash line
        # or on an error that ends a build, when no engine followed
        stopped = not built and any(
            _FAILED_TEXT.search(_text(e)) or _FAILED_TEXT.search(getattr(e, "category", "") or "")
            for e in errs
        )
        if status != "failed" and not (status is None and (crash or stopped)):
            continue
        accuracy = [e for e in ctx.events(AccuracyFailed) if inside(e)]
        if accuracy and not crash and all(e.span[0] in accuracy_lines(accuracy) for e in errs):
            yield _accuracy_failure(ctx, label, (first_line, last_line), accuracy)
            continue
        yield _failure(ctx, label, (first_line, last_line), errs, crash)


def accuracy_lines(events: list[Any]) -> set[int]:
    """The lines of ``Accuracy validation FAILED`` events."""
    return {e.span[0] for e in events}


def _accuracy_failure(
    ctx: LintContext, label: str, segment: tuple[int, int], failed: list[Any]
) -> Finding:
    """A run that failed only its accuracy check (11.x ``--refPair``/``--loadRefOutputs``)."""
    first_line, last_line = segment
    checks = [
        e
        for e in ctx.events(AccuracyCheck)
        if first_line <= e.span[0] <= last_line and e.verdict == "fail"
    ]
    shown = ", ".join(
        f"{e.tensor} ({e.metric} {e.value:g} >= {e.threshold:g}, line {e.span[0]})"
        if e.threshold is not None
        else f"{e.tensor} ({e.metric} {e.value:g}, line {e.span[0]})"
        for e in checks[:5]
    )
    more = f" and {len(checks) - 5} more" if len(checks) > 5 else ""
    tensors = list(dict.fromkeys(e.tensor for e in checks))
    what = f": {shown}{more}" if checks else ""
    return make(
        ctx,
        check_build_failed,
        short(", ".join(tensors), 120) if tensors else label,
        f"the {'run' if label == 'build' else label} failed its accuracy check{what}",
        "the engine ran, but its outputs differ from the reference outputs by more than "
        "--accuracyThreshold allows",
        "find the layers that run in a lower precision than the reference (trtlog layers; "
        "trtlog diff against the reference build) and keep the sensitive ones in a higher "
        "precision in the model (AutoCast, Q/DQ placement); raise --accuracyThreshold if the "
        "loss is expected; compare an engine loaded with --loadEngine (builds from --onnx are "
        "not deterministic)",
        lines=sorted({*(e.span[0] for e in checks[:10]), *accuracy_lines(failed)}),
        names=tensors,
    )


def _failure(
    ctx: LintContext, label: str, segment: tuple[int, int], errs: list[Any], crash: list[Any]
) -> Finding:
    assert ctx.build is not None
    first_line, last_line = segment
    ends = [e for e in ctx.events(RunEnd) if first_line <= e.span[0] <= last_line]
    quoted_events = sorted(errs, key=lambda e: (_PRIORITY.get(e.kind, len(_PRIORITY)), e.span[0]))
    first = quoted_events[0] if quoted_events else (crash[0] if crash else None)
    lines = sorted({e.span[0] for e in [*errs[:10], *crash[:3], *ends[:1]]})
    if first is None:
        end = ends[0] if ends else None
        stop = end.span[0] if end is not None else last_line
        last = ctx.last_event(first_line, stop, ("unrecognized", "log_line"))
        after = (
            f" after line {last.span[0]}: {short(ctx.build.lines_text(last.span[0]).strip(), 120)}"
            if last
            else ""
        )
        return make(
            ctx,
            check_build_failed,
            label,
            f"the run failed without printing an error{after}",
            "no engine was built, and the log does not say why",
            "rerun with --verbose to see the failing step; check that the model file exists "
            "and parses, and that the shape options match the model's inputs",
            lines=[*([last.span[0]] if last else []), *([stop] if end is not None else [])],
        )
    all_text = " ".join(_text(e) for e in [*errs, *crash])
    node = next((e.node_name for e in errs if isinstance(e, OnnxNodeError) and e.node_name), None)
    m = _NO_IMPL.search(all_text)
    if m:
        node = m.group("node").strip()
    working_on = None
    if crash and node is None:
        # a crash names nothing: the layer the autotuner was timing when it happened
        before = [e for e in ctx.events(*_WORKING_ON) if first_line <= e.span[0] < crash[0].span[0]]
        if before and before[-1].layer:
            working_on = before[-1].layer
            lines = sorted({*lines, before[-1].span[0]})
    op = next((e.node_op_type or e.op for e in errs if isinstance(e, OnnxNodeError)), None)
    cause, fix = _cause(all_text, node, op, [e.kind for e in errs], bool(crash))
    named = node or working_on
    parts = split_name(named).members() if named else []
    part_text = f" (parts: {', '.join(short(p, 60) for p in parts[:6])})" if len(parts) > 1 else ""
    quoted = short(" ".join(_text(first).split()), 220)
    if node:
        names = f"; it names {short(node, 100)}{f' [{op}]' if op else ''}{part_text}"
    elif working_on:
        names = f"; the builder was autotuning {short(working_on, 100)}{part_text}"
    else:
        names = ""
    return make(
        ctx,
        check_build_failed,
        short(named or label, 120),
        f"{'the build' if label == 'build' else label} failed: {quoted}{names}",
        cause,
        fix,
        lines=lines,
        names=[n for n in [named, *parts] if n],
    )


def _cause(
    text: str, node: str | None, op: str | None, kinds: list[str], crashed: bool
) -> tuple[str, str]:
    if _NO_IMPL.search(text):
        members = split_name(node).members() if node else []
        if any(is_qdq_node(m) for m in members):
            return (
                "no kernel implements this fused layer with its Q/DQ nodes: TensorRT fused the "
                "quantizers into a combination it has no INT8 implementation for",
                "move or remove the Q/DQ nodes around this layer (let it run in FP16), or try "
                "another TensorRT version; a larger workspace does not help here",
            )
        return (
            "no kernel (tactic) could run this layer with the formats and memory available",
            "give the builder more workspace (--memPoolSize=workspace:<MiB>), allow FP16/FP32 for "
            "this layer, or change the layer's parameters",
        )
    if _PLUGIN.search(text):
        return (
            "a plugin the model needs is not registered: the ONNX node has no importer and no "
            "plugin creator of its name, version and namespace was found",
            "load the plugin library (trtexec --staticPlugins/--dynamicPlugins, or --plugins "
            "before 10.x) and check that its name, version and namespace match the node",
        )
    if _NO_IMPORTER.search(text):
        return (
            f"the ONNX parser has no importer for this op{f' ({op})' if op else ''}: this "
            "TensorRT version does not support it",
            "replace the op (onnx-graphsurgeon, polygraphy surgeon), implement it as a plugin, "
            "or use a TensorRT version that supports it",
        )
    if "onnx_node_error" in kinds:
        return (
            f"the ONNX parser could not import the node{f' ({op})' if op else ''}: the quoted "
            "check failed on its inputs or attributes",
            "check the node in the model (polygraphy inspect model, onnx.checker); constant-fold "
            "and simplify the model (polygraphy surgeon sanitize --fold-constants, "
            "onnx-simplifier) or export it with another opset",
        )
    if _MEMORY.search(text):
        return (
            "the build ran out of device memory",
            "reduce the workspace or the batch/shape ranges, or build on a device with more memory",
        )
    if "pre_option_notice" in kinds:
        return (
            "trtexec rejected its command line before building anything",
            "fix the option (trtexec --help lists the options of this version)",
        )
    if crashed:
        where = "the Myelin compiler" if "myelin" in text.lower() else "TensorRT"
        return (
            f"{where} crashed on an internal assertion",
            "report it with the model to NVIDIA; meanwhile try another TensorRT version, or "
            "change the subgraph the builder was working on (exclude it from Myelin, or give it "
            "other precisions)",
        )
    if _UNSUPPORTED.search(text):
        return (
            "the model uses an op, attribute or data type this TensorRT version does not support",
            "replace the op (onnx-graphsurgeon / polygraphy surgeon), write a plugin, or use a "
            "newer TensorRT",
        )
    return ("no engine was built", "read the quoted error; rerun with --verbose for context")


# -- int8-no-calibration --------------------------------------------------------------------------


@rule(
    "int8-no-calibration",
    "warning",
    "INT8 is enabled without calibration or Q/DQ nodes",
    "With `--int8` (or `--best`) and neither a calibrator nor Q/DQ nodes, TensorRT gives "
    "every tensor placeholder dynamic ranges (`Setting a default quantization params because "
    "quantization data is missing`, `Calibrator is not being used`). The engine's speed is "
    "representative, its INT8 accuracy is not: the outputs are meaningless.",
    needs=("log",),
)
def check_int8_no_calibration(ctx: LintContext) -> Iterator[Finding]:
    """INT8 builds that used placeholder ranges (implicit quantization without calibration)."""
    if ctx.has_qdq:
        return  # explicit quantization carries its own scales
    if ctx.strongly_typed:
        return  # no implicit quantization: INT8 comes from Q/DQ nodes only (TensorRT 11)
    calibration = (ctx.option("Calibration") or "").strip()
    if calibration and calibration != "Dynamic":
        return  # a calibration cache was given
    ranges = ctx.events(DynamicRangeSet)
    # trtexec without --calib gives every tensor [-4,4] (layer inputs [-2,2]): placeholders
    placeholder = all(e.low == -e.high and e.high in (2.0, 4.0) for e in ranges)
    if ranges and not placeholder:
        return  # ranges that differ per tensor were given on purpose
    defaults = [e for e in ctx.events(DefaultQuantization) if e.layer]
    notes = ctx.events(CalibratorNotUsed)
    dynamic = calibration == "Dynamic" and "INT8" in ctx.precisions
    if not defaults and not notes and not ranges and not dynamic:
        return
    n = len({e.layer for e in defaults})
    parts = []
    if dynamic:
        parts.append("no calibration cache was given (Calibration: Dynamic)")
    if ranges:
        parts.append(f"{len(ranges)} tensors got trtexec's placeholder dynamic ranges ([-4,4])")
    if defaults:
        parts.append(f"TensorRT set default quantization parameters for {_n(n, 'layer')}")
    if notes and not parts:
        parts.append("no calibrator was used and no dynamic ranges were given")
    calib_line = ctx.option_lines.get("Calibration")
    yield make(
        ctx,
        check_int8_no_calibration,
        "INT8 calibration",
        f"INT8 is enabled without calibration data: {'; '.join(parts)}",
        "the engine runs INT8 kernels on made-up ranges: fine for measuring speed, wrong for "
        "its outputs",
        "calibrate (--calib=<cache>), give real dynamic ranges, or quantize the model with Q/DQ "
        "nodes (QAT, or PTQ with TensorRT Model Optimizer); for accurate FP16 results build "
        "without --int8",
        lines=[
            *([calib_line] if dynamic and calib_line else []),
            *[e.span[0] for e in [*notes[:1], *ranges[:5], *defaults[:20]]],
        ],
        names=[e.layer for e in defaults[:50]],
    )
