"""Build-process rules: failed builds, memory-starved tactics, DLA fallback, timing cache.

Part of the view package :mod:`trtlog.findings`. These rules read the log alone: the errors
and the end banner, the autotuner's skipped tactics, the DLA placement warnings, the timing
cache messages and the INT8 calibration warnings.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from trtlog.diff.align import is_qdq_node
from trtlog.findings.base import make, rule
from trtlog.findings.context import LintContext, short
from trtlog.findings.models import Finding
from trtlog.names import split_name

__all__ = [
    "check_build_failed",
    "check_dla_fallback",
    "check_int8_no_calibration",
    "check_slow_build_no_timing_cache",
    "check_tactic_memory_skip",
]

_MIB = 1024 * 1024
_LONG_TACTICS_S = 60.0


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
        for e in ctx.events("tactic_skipped_memory", "tactic_skipped")
        if e.kind == "tactic_skipped_memory" or e.requested_bytes is not None
    ]
    hints = ctx.events("workspace_hint")
    if not skipped and not hints:
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
    else:
        parts.append("TensorRT reports that some tactics lacked workspace memory")
    if largest is not None:
        avail = f", {_mib(max(available))} available" if available else ""
        parts.append(f"the largest asked for {_mib(largest)}{avail}")
    config = f"workspace: {workspace}" if workspace else "workspace not printed"
    if device_mib:
        config += f"; device memory {device_mib:,} MiB"
    lines = [e.span[0] for e in skipped[:50]] + [e.span[0] for e in hints[:3]]
    if largest is not None and device_mib and largest > device_mib * _MIB:
        fix = "the largest requests exceed the device's memory: nothing to gain from a larger pool"
    else:
        size = f"{-(-largest // _MIB)}" if largest else "<MiB>"
        fix = (
            f"allow a larger workspace (trtexec --memPoolSize=workspace:{size}M, or "
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


def _is_dla_layer(name: str, type_: str | None) -> bool:
    if type_ is not None and "dla" in type_.lower():
        return True
    return name.startswith("{") and name.endswith("}") and not name.startswith("{ForeignNode[")


@rule(
    "dla-fallback",
    "warning",
    "Layers fell back from DLA to the GPU",
    "On Jetson/DRIVE, layers that DLA cannot run (unsupported types or parameters, FP32, "
    "dynamic shapes) fall back to the GPU when GPU fallback is allowed. Each fallback splits "
    "the network into more DLA subgraphs (DLA allows only a few per core) and adds DLA↔GPU "
    "transitions, each with a reformat and a synchronization, often costing more than the "
    "layer saved.",
    needs=("log", "engine"),
)
def check_dla_fallback(ctx: LintContext) -> Iterator[Finding]:
    """DLA fallbacks by reason, DLA↔GPU transitions, subgraph limits, offload counts."""
    check = check_dla_fallback
    fallbacks = ctx.events("dla_fallback")
    if fallbacks:
        reasons = Counter(e.reason for e in fallbacks)
        named = [e for e in fallbacks if e.layer]
        shown = ", ".join(
            f"{short(e.layer, 50)} ({_DLA_REASONS.get(e.reason, e.reason)}"
            + (f": {e.layer_type or e.detail}" if e.layer_type or e.detail else "")
            + ")"
            for e in named[:5]
        )
        more = f" and {len(named) - 5} more" if len(named) > 5 else ""
        by_reason = ", ".join(f"{n} {_DLA_REASONS.get(r, r)}" for r, n in reasons.most_common())
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
        yield make(
            ctx,
            check,
            f"{len(named) or len(fallbacks)} layers",
            f"{len(fallbacks)} DLA fallback warnings ({by_reason})"
            + (f": {shown}{more}" if shown else ""),
            "every fallback layer runs on the GPU and cuts the DLA part into more subgraphs, "
            "with a DLA↔GPU transition at each cut",
            "; ".join(fixes) or "check the DLA support matrix for these layers",
            lines=[e.span[0] for e in fallbacks[:100]],
            names=[e.layer for e in named],
        )
    limits = [e for e in ctx.events("unrecognized") if _SUBGRAPH.search(getattr(e, "message", ""))]
    if limits:
        yield make(
            ctx,
            check,
            "DLA subgraphs",
            f"the DLA subgraph limit was hit ({len(limits)} message"
            f"{'s' if len(limits) != 1 else ''}): {short(limits[0].message, 160)}",
            "layers beyond the limit run on the GPU even though DLA supports them",
            "reduce the number of DLA subgraphs (fewer fallback layers in the middle of the "
            "network) or split the model across both DLA cores",
            lines=[e.span[0] for e in limits[:50]],
        )
    for e in ctx.events("dla_offload_summary"):
        if e.offloaded < e.candidates:
            yield make(
                ctx,
                check,
                "DLA offload",
                f"only {e.offloaded} of {e.candidates} DLA candidate nodes were offloaded",
                "the rest runs on the GPU",
                "see the fallback warnings above it for the reasons",
                lines=[e.span[0]],
            )
    devices = [
        ("DLA" if _is_dla_layer(x.name, x.type) else "GPU", x)
        for x in ctx.layers
        if not x.is_reformat and "reformatter" not in x.name
    ]
    if any(d == "DLA" for d, _ in devices):
        switches = sum(1 for (a, _), (b, _) in itertools.pairwise(devices) if a != b)
        if switches > 1:
            reformats = [x for x in ctx.layers if x.is_reformat or "reformatter" in x.name]
            t = ctx.times(reformats)
            share = ctx.share(t)
            yield make(
                ctx,
                check,
                f"{switches} transitions",
                f"the engine switches between DLA and GPU {switches} times",
                "each transition copies the tensor into the other device's format and "
                "synchronizes" + (f"; the reformats take {share}" if share else ""),
                "keep the DLA part contiguous: move unsupported layers to the start or end of "
                "the network, or run the whole network on one device",
                layers=reformats[:50],
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
)
def check_slow_build_no_timing_cache(ctx: LintContext) -> Iterator[Finding]:
    """A build without a persistent (or with an invalid) timing cache."""
    invalid = [e for e in ctx.events("timing_cache_warning")]
    local = [e for e in ctx.events("timing_cache_mode") if e.mode == "local"]
    if not invalid and not local:
        return
    built = ctx.events("tactics_done", "layer_costs_header", "timing_runner", "graph_build_done")
    if not built:
        return
    seconds = sum(e.seconds for e in ctx.events("tactics_done"))
    long = seconds >= _LONG_TACTICS_S
    took = f"; tactic selection took {seconds:.1f} s" if seconds else ""
    if invalid:
        e = invalid[0]
        what = (
            "the timing cache file was invalid (built by another TensorRT version or GPU) and "
            "was ignored"
            if e.reason == "invalid"
            else f"the timing cache file {e.path or ''} could not be read"
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
        "pass --timingCacheFile=<file> to trtexec (IBuilderConfig.set_timing_cache in the API) "
        "and keep the file between builds on the same GPU and TensorRT version",
        severity="warning" if long else "info",
        lines=[x.span[0] for x in [*invalid, *local][:3]]
        + [x.span[0] for x in ctx.events("tactics_done")[:1]],
    )


# -- build-failed --------------------------------------------------------------------------------

_NO_IMPL = re.compile(r"Could not find any implementation for node (?P<node>.+?)(?:\.$|\.\s|$)")
_PLUGIN = re.compile(
    r"Plugin not found|getPluginCreator could not find|No importer registered for op|"
    r"Could not find plugin|fallback plugin|plugin creator",
    re.IGNORECASE,
)
_UNSUPPORTED = re.compile(r"unsupported|not supported|UNSUPPORTED_NODE", re.IGNORECASE)
_MEMORY = re.compile(r"out of memory|OutOfMemory|could not be allocated|cudaErrorMemory", re.I)
_CRASH = re.compile(r"Assertion .*failed|Aborted|Segmentation fault|core dumped|terminate called")
_ERROR_KINDS = ("trt_error", "error_recorded", "internal_error", "onnx_node_error", "app_error")
_BUILD_APP_ERRORS = frozenset(
    {
        "engine_build",
        "engine_create",
        "engine_setup",
        "onnx_parse",
        "model_parse",
        "network_create",
        "builder_create",
        "config_create",
        "config_setup",
        "load_library",
    }
)


def _text(e: Any) -> str:
    for attr in ("description", "message", "node_text"):
        value = getattr(e, attr, None)
        if value:
            return str(value)
    return ""


@rule(
    "build-failed",
    "error",
    "The build failed",
    "The run ended without an engine: an error of the library or of trtexec, an ONNX node the "
    "parser could not import, an internal assertion, or a crash. The finding quotes the first "
    "error, names the layer or node it mentions (with the parts of a fused name) and the cause "
    "when the message identifies one: no kernel for a fused Q/DQ combination, an unsupported "
    "op, a missing plugin, or memory.",
    needs=("log",),
)
def check_build_failed(ctx: LintContext) -> Iterator[Finding]:
    """The first error of a failed run, its node or layer, and the known cause."""
    if ctx.build is None:
        return
    failed_runs = [e for e in ctx.events("run_end") if e.status == "failed"]
    errors = [
        e
        for e in ctx.events(*_ERROR_KINDS)
        if e.kind != "app_error" or e.error in _BUILD_APP_ERRORS
    ]
    errors = [
        e for e in errors if e.kind == "onnx_node_error" or e.severity in ("error", "fatal", None)
    ]
    built = bool(ctx.events("engine_built", "engine_generated", "engine_layer_info_header"))
    crash = []
    if not failed_runs and not ctx.events("run_end"):
        crash = [
            e for e in ctx.events("unrecognized")[-20:] if _CRASH.search(getattr(e, "message", ""))
        ]
        crash += [e for e in ctx.events("internal_error") if e.aborting]
    if not failed_runs and not crash and (built or not errors):
        return
    if (
        not failed_runs
        and not crash
        and not any(e.kind in ("app_error", "onnx_node_error") for e in errors)
    ):
        return  # errors the build recovered from
    first = errors[0] if errors else (crash[0] if crash else None)
    lines = [e.span[0] for e in [*errors[:10], *crash[:3], *failed_runs[:1]]]
    if first is None:
        end = failed_runs[0]
        previous = [
            e for e in ctx.build.events if e.span[1] < end.span[0] and e.kind != "unrecognized"
        ]
        last = previous[-1] if previous else None
        after = (
            f" after line {last.span[0]}: {short(ctx.build.lines[last.span[0] - 1].strip(), 120)}"
            if last
            else ""
        )
        yield make(
            ctx,
            check_build_failed,
            "build",
            f"the run failed without printing an error{after}",
            "no engine was built, and the log does not say why",
            "rerun with --verbose (and without --skipInference shortcuts) to see the failing "
            "step; check that the model file and the shapes options are valid",
            lines=[end.span[0], *([last.span[0]] if last else [])],
        )
        return
    all_text = " ".join(_text(e) for e in [*errors, *crash])
    node = getattr(first, "node_name", None)
    m = _NO_IMPL.search(all_text)
    if m:
        node = m.group("node").strip()
    cause, fix = _cause(all_text, node)
    parts = split_name(node).members() if node else []
    part_text = f" (parts: {', '.join(short(p, 60) for p in parts[:6])})" if len(parts) > 1 else ""
    quoted = short(_text(first).replace("\n", " "), 220)
    subject = node or (getattr(first, "op", None) or "build")
    yield make(
        ctx,
        check_build_failed,
        short(subject, 120),
        f"the build failed: {quoted}"
        + (f"; it names {short(node, 100)}{part_text}" if node else ""),
        cause,
        fix,
        lines=lines,
        names=[n for n in [node, *parts] if n],
    )


def _cause(text: str, node: str | None) -> tuple[str, str]:
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
    if _MEMORY.search(text):
        return (
            "the build ran out of device memory",
            "reduce the workspace or the batch/shape ranges, or build on a device with more memory",
        )
    if _UNSUPPORTED.search(text):
        return (
            "the model uses an op or attribute this TensorRT version does not support",
            "replace the op (onnx-graphsurgeon / polygraphy surgeon), write a plugin, or use a "
            "newer TensorRT",
        )
    if _CRASH.search(text):
        return (
            "TensorRT crashed on an internal assertion",
            "report it with the model to NVIDIA; meanwhile try another TensorRT version or "
            "change the failing subgraph (the last layer autotuned before the crash)",
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
        return
    defaults = ctx.events("default_quantization")
    notes = ctx.events("calibrator_not_used")
    if not defaults and not notes:
        return
    n = len({e.layer for e in defaults})
    what = (
        f"TensorRT set default quantization parameters for {n} tensors/layers"
        if defaults
        else "no calibrator was used and no dynamic ranges were given"
    )
    yield make(
        ctx,
        check_int8_no_calibration,
        f"{n} tensors" if defaults else "INT8",
        f"INT8 is enabled without calibration data: {what}",
        "the engine runs INT8 kernels on made-up ranges: fine for measuring speed, wrong for "
        "its outputs",
        "calibrate (--calib=<cache>), give dynamic ranges, or quantize the model with Q/DQ "
        "nodes (QAT, or PTQ with TensorRT Model Optimizer); for accurate FP16 results build "
        "without --int8",
        lines=[e.span[0] for e in [*notes[:1], *defaults[:20]]],
        names=[e.layer for e in defaults[:50]],
    )
