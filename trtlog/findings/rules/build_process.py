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
    CachedTactic,
    CalibratorNotUsed,
    DefaultQuantization,
    DlaFallback,
    DlaOffloaded,
    DlaOffloadSummary,
    DlaSubgraphLimit,
    DynamicRangeSet,
    EngineBuilt,
    EngineGenerated,
    LayerCostsHeader,
    MyelinMemBudget,
    OnnxNodeError,
    PlacementDla,
    PreOptionNotice,
    RunEnd,
    TacticsDone,
    TacticSkipped,
    TacticSkippedMemory,
    TimingCacheLoaded,
    TimingCacheMode,
    TimingCacheSaved,
    TimingCacheSerialized,
    TimingCacheWarning,
    TimingRunner,
    WorkspaceHint,
)
from trtlog.findings.advice import workspace_flag
from trtlog.findings.base import make, rule
from trtlog.findings.context import NAME_BRACED, NAME_FOREIGN, LintContext, short
from trtlog.findings.models import Finding
from trtlog.names import is_qdq_node, split_name
from trtlog.summary.outcome import ERROR_EVENTS, Outcome, event_text

__all__ = [
    "check_build_failed",
    "check_dla_fallback",
    "check_int8_no_calibration",
    "check_slow_build_no_timing_cache",
    "check_tactic_memory_skip",
]

_MIB = 1024 * 1024


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
        api = (
            "IBuilderConfig.max_workspace_size"
            if version is not None and version < (8, 4)
            else "IBuilderConfig.set_memory_pool_limit"
            if version is not None
            else "IBuilderConfig.set_memory_pool_limit, max_workspace_size before 8.4"
        )
        fix = (
            f"allow a larger workspace (trtexec {workspace_flag(ctx, size)}, in MiB, or "
            f"{api}) if the device has the memory to spare"
        )
    yield make(
        ctx,
        check_tactic_memory_skip,
        f"{len(skipped)} tactics" if skipped else "workspace",
        "; ".join(parts) + f" ({config})",
        "the autotuner could not time the skipped tactics; one of them may have been faster",
        fix,
        lines=lines,
        # every line that matched (the evidence keeps the first of each kind)
        line_count=len(skipped) + len(hints) + len(budgets),
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
_NVM = re.compile(r" (?:to|from) nvm$| copy finish$")


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
    if ctx.events(PlacementDla, DlaFallback, DlaOffloaded, DlaSubgraphLimit):
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
    limits = ctx.events(DlaSubgraphLimit)
    if limits:
        moved = list(dict.fromkeys(e.layer for e in limits))
        shown = ", ".join(short(x, 50) for x in moved[:5]) + (
            f" and {len(moved) - 5} more" if len(moved) > 5 else ""
        )
        yield make(
            ctx,
            check,
            "DLA subgraphs",
            f"the DLA subgraph limit was hit: DLA supports only {limits[0].limit} subgraphs per "
            "DLA core"
            + (f"; {len(moved)} layers DLA supports went to the GPU ({shown})" if moved else ""),
            "layers beyond the limit run on the GPU even though DLA supports them",
            "reduce the number of DLA subgraphs (fewer fallback layers in the middle of the "
            "network) or split the model across both DLA cores",
            lines=[e.span[0] for e in limits[:50]],
            names=moved,
            line_count=len(limits),
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

#: A build at least this long without a persistent timing cache is a warning: below it a cache
#: saves too little to matter (a minute is where rebuilding in CI or on a device hurts).
SLOW_BUILD_S = 60.0


def _build_seconds(ctx: LintContext) -> tuple[float | None, str, list[int]]:
    """How long the build took, from what the log has, with what says it and its lines.

    trtexec's ``Engine built in`` (the whole build), else ``Engine generation completed in``
    (summed over builder rounds), else the tactic selection time.
    """
    built = [e for e in ctx.events(EngineBuilt) if not e.loaded]
    if built:
        return built[-1].seconds, "Engine built in", [built[-1].span[0]]
    generated = ctx.events(EngineGenerated)
    if generated:
        total = math.fsum(e.seconds for e in generated)
        return total, "engine generation", [e.span[0] for e in generated[:3]]
    tactics = ctx.events(TacticsDone)
    if tactics:
        total = math.fsum(e.seconds for e in tactics)
        return total, "tactic selection", [e.span[0] for e in tactics[:3]]
    return None, "", []


@rule(
    "slow-build-no-timing-cache",
    "warning",
    "A long build without a persistent timing cache",
    "The autotuner times every candidate kernel of every layer, which takes most of a build. "
    "A timing cache file stores those timings so that later builds of the same (or a similar) "
    "model on the same GPU and TensorRT version reuse them. `Local timing cache in use`, an "
    "empty `timingCacheFile:` and `Detected invalid timing cache` mean every build times "
    "everything again. The finding gives the build time (`Engine built in`, else engine "
    "generation, else tactic selection) and is a warning from 60 seconds on; shorter builds "
    "get no finding, builds that loaded cache entries neither; an invalid cache given to a "
    "short build is an info.",
    needs=("log",),
    other_severities=(
        ("info", f"an invalid timing cache given to a build shorter than {SLOW_BUILD_S:g} s"),
    ),
)
def check_slow_build_no_timing_cache(ctx: LintContext) -> Iterator[Finding]:
    """A long build without a persistent (or with an invalid) timing cache."""
    invalid = [e for e in ctx.events(TimingCacheWarning) if e.reason == "invalid"]
    local = [e for e in ctx.events(TimingCacheMode) if e.mode == "local"]
    empty_file = ctx.option("timingCacheFile") == "" or (
        (ctx.option("timingCacheMode") or "").strip() == "local"
    )
    if not invalid and not local and not empty_file:
        return
    if not invalid and (
        ctx.option("timingCacheFile")
        or ctx.events(TimingCacheSaved, TimingCacheSerialized, TimingCacheLoaded, CachedTactic)
    ):
        return  # a cache file is in use (the local cache was a pass of its own)
    seconds, source, time_lines = _build_seconds(ctx)
    if seconds is None and not invalid:
        return  # no build time: nothing says the build was slow
    slow = seconds is not None and seconds >= SLOW_BUILD_S
    if not slow and not invalid:
        return  # a short build: a cache would save seconds
    tactics = math.fsum(e.seconds for e in ctx.events(TacticsDone))
    took = f"; the build took {seconds:.1f} s ({source})" if seconds is not None else ""
    if invalid:
        what = (
            "the timing cache given to the builder was invalid (made by another TensorRT "
            "version or GPU, or corrupt) and was replaced by a local cache"
        )
    else:
        what = "no timing cache file was given: the build used a local cache it throws away"
    if tactics and seconds:
        saves = (
            f"a rebuild with a cache file skips most of the {tactics:.1f} s of tactic timing "
            f"({min(tactics / seconds, 1.0):.0%} of this build)"
        )
    elif slow:
        saves = "a rebuild with a cache file skips most of the autotuning, usually most of a build"
    else:
        saves = "every build times every tactic again"
    cache_lines = [x.span[0] for x in [*invalid, *local][:3]]
    option_line = ctx.option_lines.get("timingCacheFile")
    yield make(
        ctx,
        check_slow_build_no_timing_cache,
        "timing cache",
        what + took,
        saves,
        "pass --timingCacheFile=<file> to trtexec (IBuilderConfig.create_timing_cache/"
        "set_timing_cache in the API) and keep the file between builds on the same GPU and "
        "TensorRT version",
        severity="warning" if slow else "info",
        lines=[*cache_lines, *([option_line] if option_line else []), *time_lines],
    )


# -- build-failed --------------------------------------------------------------------------------

_PLUGIN = re.compile(
    r"Plugin not found|getPluginCreator could not find|Could not find plugin|plugin creator",
    re.IGNORECASE,
)
_NO_IMPORTER = re.compile(r"No importer registered for op|UNSUPPORTED_NODE", re.IGNORECASE)
_UNSUPPORTED = re.compile(r"unsupported|not supported", re.IGNORECASE)
_WORKING_ON = (TimingRunner, LayerCostsHeader)


@rule(
    "build-failed",
    "error",
    "The build failed",
    "The run ended without an engine: an error of the library or of trtexec, an ONNX node the "
    "parser could not import, a layer whose every tactic threw during timing, an internal "
    "assertion, a crash, or the operating system killing the process (`Killed`: the host ran "
    "out of memory). The outcome comes from trtlog's one decision per build (built, failed, "
    "killed, incomplete, no-build: docs/rules.md). The finding quotes the line that shows the "
    "failure, names the layer or node it mentions (with the parts of a fused name) and the "
    "cause with the fix for the input's TensorRT version. A TensorRT 11 run that failed only "
    "its accuracy check (`--refPair`) is reported with the tensors that exceeded the threshold.",
    needs=("log",),
)
def check_build_failed(ctx: LintContext) -> Iterator[Finding]:
    """Every failed or killed build, its cause, the line that shows it and the fix."""
    if ctx.build is None:
        return
    many = len(ctx.outcomes) > 1
    per_run = Counter(o.run for o in ctx.outcomes)
    for outcome in ctx.outcomes:
        if outcome.value not in ("failed", "killed"):
            continue
        label = f"run {outcome.run + 1}" if many and outcome.run is not None else "build"
        if per_run[outcome.run] > 1:  # a program that built several engines in one run
            label += f" {outcome.build + 1}" if label == "build" else f" build {outcome.build + 1}"
        if outcome.cause == "accuracy":
            segment = (outcome.first_line, outcome.last_line)
            accuracy = [
                e for e in ctx.events(AccuracyFailed) if segment[0] <= e.span[0] <= segment[1]
            ]
            yield _accuracy_failure(ctx, label, segment, accuracy)
            continue
        yield _failure(ctx, label, outcome)


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


def _failure(ctx: LintContext, label: str, outcome: Outcome) -> Finding:
    """The finding of a failed or killed build, from its outcome."""
    assert ctx.build is not None
    first_line, last_line = outcome.first_line, outcome.last_line
    ends = [e for e in ctx.events(RunEnd) if first_line <= e.span[0] <= last_line]
    fatal = [t for t in outcome.exceptions if t.fatal]
    lines = sorted(
        {
            *outcome.errors[:10],
            *(t.line for t in fatal[:10]),
            *([outcome.line] if outcome.line is not None else []),
            *(e.span[0] for e in ends[:1]),
        }
    )
    node = outcome.node
    working_on = None
    if node is None and outcome.cause in ("crash", "killed") and outcome.line is not None:
        # a crash names nothing: the layer the autotuner was timing when it happened
        before = [e for e in ctx.events(*_WORKING_ON) if first_line <= e.span[0] < outcome.line]
        if before and before[-1].layer:
            working_on = before[-1].layer
            lines = sorted({*lines, before[-1].span[0]})
    errors = [e for e in ctx.events(*ERROR_EVENTS) if e.span[0] in set(outcome.errors)]
    op = next((e.node_op_type or e.op for e in errors if isinstance(e, OnnxNodeError)), None)
    all_text = " ".join(event_text(e) for e in errors)
    cause, fix = _cause(ctx, outcome, all_text, op)
    named = node or working_on
    parts = split_name(named).members() if named else []
    part_text = f" (parts: {', '.join(short(p, 60) for p in parts[:6])})" if len(parts) > 1 else ""
    what = "the build" if label == "build" else label
    if outcome.value == "killed":
        message = f"{what} was killed (line {outcome.line}: {outcome.text})"
    elif outcome.cause == "no-error":
        shown = short(outcome.text or "", 120)
        after = f" after line {outcome.line}: {shown}" if outcome.line else ""
        message = f"{what} failed without printing an error{after}"
    else:
        message = f"{what} failed: {short(outcome.text or '', 220)}"
    if fatal:
        exceptions = list(dict.fromkeys(short(t.exception, 100) for t in fatal))
        message += (
            f"; {_n(len(fatal), 'tactic')} of {short(fatal[-1].layer or 'the layer', 100)} "
            f"threw during timing ({'; '.join(exceptions[:2])}) and none was left"
        )
    if node:
        message += f"; it names {short(node, 100)}{f' [{op}]' if op else ''}{part_text}"
    elif working_on:
        message += f"; the builder was autotuning {short(working_on, 100)}{part_text}"
    return make(
        ctx,
        check_build_failed,
        short(named or label, 120),
        message,
        cause,
        fix,
        lines=lines,
        names=[n for n in [named, *parts] if n],
    )


def _cause(ctx: LintContext, outcome: Outcome, text: str, op: str | None) -> tuple[str, str]:
    """Why the build failed and what to do, for the outcome's cause and the input's version."""
    cause = outcome.cause
    node = outcome.node
    if cause == "killed":
        return (
            "the operating system killed the process: nearly always the host ran out of memory "
            "(RAM, not GPU memory) while the builder held the network, its weights and the "
            "engine being serialized",
            "build on a host with more RAM or swap (a container's memory limit counts), close "
            "other programs, lower --builderOptimizationLevel or the shape ranges; check `dmesg` "
            "for the OOM killer's line",
        )
    if cause == "tactic-exception":
        fatal = [t for t in outcome.exceptions if t.fatal]
        kinds = {t.kind for t in fatal}
        if "myelin" in kinds:
            return (
                "the Myelin compiler threw while compiling this subgraph, so the layer was left "
                "with no tactic: a defect of Myelin for this graph, not of the model or the "
                "settings",
                "try another TensorRT version (newer first) or --builderOptimizationLevel "
                "(8.6+) lower than the default; change the subgraph (constant-fold it with "
                "polygraphy surgeon sanitize, split it with a non-fusable op); report it to "
                "NVIDIA with the model and the exception text",
            )
        if "memory" in kinds:
            return (
                "every tactic of the layer failed for want of memory",
                f"give the builder more workspace ({workspace_flag(ctx)}) or reduce the "
                "shape ranges; free device memory used by other processes",
            )
        if "precision" in kinds:
            return (
                "no kernel of the requested precision (BF16/FP8/FP4) could run this layer on "
                "this GPU",
                "run this layer in FP16/FP32 (remove its Q/DQ nodes or cast, or set its "
                "precision with --layerPrecisions), or build on a GPU that supports the type",
            )
        return (
            "every tactic of the layer threw during timing (a kernel that fails on this "
            "GPU, driver or input shape), so the layer has no implementation",
            "update the driver and try another TensorRT version; change the layer's "
            "parameters or input shapes; exclude the failing tactic source "
            "(--tacticSources) if one library's kernels all fail",
        )
    if cause == "no-implementation":
        members = split_name(node).members() if node else []
        if any(is_qdq_node(m) for m in members):
            return (
                "no kernel implements this fused layer with its Q/DQ nodes: TensorRT fused the "
                "quantizers into a combination it has no INT8 implementation for",
                "move or remove the Q/DQ nodes around this layer (let it run in FP16), or try "
                "another TensorRT version; a larger workspace does not help here",
            )
        if node and node.startswith("{ForeignNode["):
            return (
                "Myelin found no implementation for this region (its profile ends with `Time: "
                "inf` in a verbose log): the region holds an op or shape Myelin cannot compile "
                "in this version, or it needs more memory",
                f"give the builder more workspace ({workspace_flag(ctx)}), try another TensorRT "
                "version, or simplify the region (polygraphy surgeon sanitize --fold-constants)",
            )
        return (
            "no kernel (tactic) could run this layer with the formats and memory available",
            f"give the builder more workspace ({workspace_flag(ctx)}), allow FP16/FP32 for "
            "this layer, or change the layer's parameters",
        )
    if cause == "quantization":
        return (
            "TensorRT could not quantize a Q/DQ node: the Q/DQ pattern around it is one its "
            "quantization passes do not accept (a QuantizeLinear without a DQ before its "
            "consumer, or one on a tensor that cannot be INT8)",
            "add the missing DequantizeLinear after the node or remove the Q/DQ pair (re-export "
            "with the quantization toolkit's recommended placement); newer TensorRT versions "
            "accept more patterns",
        )
    if cause == "tensor-volume":
        return (
            "a tensor has more than 2^31-1 elements: TensorRT indexes tensors with 32-bit integers",
            "reduce the batch or shape ranges (--maxShapes) so that no tensor passes 2^31-1 "
            "elements, or split the op (chunk the attention or the large MatMul)",
        )
    if cause == "command-line":
        notices = [
            e
            for e in ctx.events(PreOptionNotice)
            if e.notice == "unknown_option" and outcome.first_line <= e.span[0] <= outcome.last_line
        ]
        if notices and all(not e.flag for e in notices):
            return (
                f"trtexec read {_n(len(notices), 'empty option')} from its command line: a "
                "doubled blank (or a stray quote or line continuation) between two options "
                "becomes an option with no name, and trtexec prints its help and stops",
                "remove the doubled blanks from the command line (check the script that builds "
                "it); trtexec --help lists the options of this version",
            )
        return (
            "trtexec rejected its command line before building anything",
            "fix the option (trtexec --help lists the options of this version)",
        )
    if cause == "crash":
        where = "the Myelin compiler" if "myelin" in (text + (outcome.text or "")).lower() else ""
        return (
            f"{where or 'TensorRT'} crashed"
            + (" on an internal assertion" if "ssert" in (outcome.text or text) else ""),
            "report it with the model to NVIDIA; meanwhile try another TensorRT version, or "
            "change the subgraph the builder was working on (exclude it from Myelin, or give it "
            "other precisions)",
        )
    if cause == "no-error":
        return (
            "no engine was built, and the log does not say why",
            (
                "the log is verbose already: the lines before the failure show the last step "
                "that ran; check that the model file exists and parses, and that the shape "
                "options match the model's inputs"
            )
            if outcome.verbose
            else (
                "rerun with --verbose to see the failing step; check that the model file "
                "exists and parses, and that the shape options match the model's inputs"
            ),
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
    if cause == "onnx-parse":
        return (
            f"the ONNX parser could not import the node{f' ({op})' if op else ''}: the quoted "
            "check failed on its inputs or attributes",
            "check the node in the model (polygraphy inspect model, onnx.checker); constant-fold "
            "and simplify the model (polygraphy surgeon sanitize --fold-constants, "
            "onnx-simplifier) or export it with another opset",
        )
    if cause == "memory":
        return (
            "the build ran out of device memory",
            "reduce the workspace or the batch/shape ranges, or build on a device with more memory",
        )
    if "MyelinCheckException" in text or "Myelin" in (outcome.text or ""):
        return (
            "the Myelin compiler failed an internal check while compiling a subgraph: a defect "
            "of Myelin for this graph",
            "try another TensorRT version (newer first) or a lower --builderOptimizationLevel "
            "(8.6+); report it to NVIDIA with the model and the check's text",
        )
    if _UNSUPPORTED.search(text):
        return (
            "the model uses an op, attribute or data type this TensorRT version does not support",
            "replace the op (onnx-graphsurgeon / polygraphy surgeon), write a plugin, or use a "
            "newer TensorRT",
        )
    return (
        "no engine was built",
        "read the quoted error"
        + ("" if outcome.verbose else "; rerun with --verbose for the steps before it"),
    )


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
