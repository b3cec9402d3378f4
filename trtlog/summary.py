"""One screen about a build: the data behind ``trtlog summary``.

A view over a :class:`~trtlog.build.Build` (pydantic only): :func:`summarize` collects what a
reader of a verbose log looks for first (version, device, model, precisions, how the layer
count went down stage by stage, fusions and removals by pass, tactics timed and chosen, build
times, engine size and memory, warnings and errors) into a typed :class:`Summary`, which the CLI
renders as text or JSON.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from trtlog.build import Build
from trtlog.events import (
    ConvScaleFusion,
    EngineBuilt,
    Fusion,
    FusionInto,
    HorizontalMerge,
    LayerCount,
    QdqSwap,
    RunnerProfiled,
    TimingRunner,
    Unrecognized,
)

__all__ = ["AccuracyRow", "StageCount", "Summary", "summarize"]


class StageCount(BaseModel):
    """The layer count after one optimization stage."""

    model_config = ConfigDict(frozen=True)

    stage: str
    layers: int
    line: int


class AccuracyRow(BaseModel):
    """One accuracy check of a run with reference outputs (11.x ``--refPair``).

    Attributes:
        tensor: the output tensor compared.
        pair: the reference pair (0-based: the n-th check of this tensor).
        metric: the accuracy algorithm (``L0``, ``L1``, ``L2``, ``LInf``, ``Cosine``).
        value: the accuracy loss.
        threshold: the threshold: printed on a failure, else the options' ``Accuracy
            Threshold``.
        verdict: ``pass`` or ``fail``.
        line: the log line.
    """

    model_config = ConfigDict(frozen=True)

    tensor: str
    pair: int
    metric: str
    value: float
    threshold: float | None = None
    verdict: str
    line: int


class Summary(BaseModel):
    """What ``trtlog summary`` shows (all fields optional: logs differ a lot)."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    source: str
    lines: int
    runs: int
    trt_version: str | None = None
    command_line: str | None = None
    device: str | None = None
    compute_capability: str | None = None
    model: str | None = None
    precision: str | None = None
    strongly_typed: bool = False
    accuracy: list[AccuracyRow] = Field(default_factory=list)
    accuracy_failed: bool = False
    layer_counts: list[StageCount] = Field(default_factory=list)
    fusions_by_pass: dict[str, int] = Field(default_factory=dict)
    removals: int = 0
    qdq_events: int = 0
    layers_timed: int = 0
    tactics_timed: int = 0
    runners_chosen: int = 0
    tactic_selection_seconds: float | None = None
    graph_seconds: float | None = None
    engine_build_seconds: float | None = None
    engine_size_mib: float | None = None
    activation_memory_bytes: int | None = None
    weights_memory_bytes: int | None = None
    peak_gpu_mib: int | None = None
    gpu_in_use_mib: int | None = None
    engine_layers: int | None = None
    warnings: int = 0
    errors: int = 0
    first_errors: list[str] = Field(default_factory=list)
    status: str | None = None
    stopped_after: str | None = None
    last_line: str | None = None
    unrecognized: int = 0
    unrecognized_enveloped: int = 0
    events: int = 0

    def to_text(self) -> str:
        """The summary as aligned text, a screen long."""
        out: list[str] = []

        def row(label: str, value: Any) -> None:
            if value is not None and value != "" and value != [] and value != {}:
                out.append(f"{label:<22}{value}")

        row("log", f"{self.source} ({self.lines} lines, {self.runs or 1} run(s))")
        row("TensorRT", self.trt_version)
        row("status", self.status)
        row("stopped after", self.stopped_after)
        row("last line", self.last_line)
        dev = self.device
        if dev and self.compute_capability:
            dev = f"{dev} (compute {self.compute_capability})"
        row("device", dev)
        row("model", self.model)
        row("precision", self.precision)
        if self.strongly_typed:
            row("typing", "strongly typed: the precision follows the model's own types")
        if self.accuracy:
            fails = sum(1 for a in self.accuracy if a.verdict == "fail")
            verdict = "FAILED" if self.accuracy_failed or fails else "passed"
            row(
                "accuracy",
                f"{verdict}: {len(self.accuracy)} check(s), {len(self.accuracy) - fails} pass, "
                f"{fails} fail",
            )
            for a in self.accuracy:
                limit = f" (threshold {a.threshold:g})" if a.threshold is not None else ""
                out.append(
                    f"{'':<24}{a.verdict.upper():<5} {a.tensor} pair {a.pair}: {a.metric} "
                    f"{a.value:g}{limit}, line {a.line}"
                )
        if self.command_line:
            row("command", _clip(self.command_line, 100))
        if self.layer_counts:
            first, last = self.layer_counts[0], self.layer_counts[-1]
            row("layers", f"{first.layers} ({first.stage}) -> {last.layers} ({last.stage})")
            # only the stages that changed the count (the JSON output keeps every stage)
            previous = None
            hidden = 0
            for stage in self.layer_counts:
                if stage.layers == previous:
                    hidden += 1
                    continue
                previous = stage.layers
                out.append(f"{'':<24}{stage.layers:>7}  {stage.stage}")
            if hidden:
                out.append(f"{'':<24}{'':>7}  ({hidden} stage(s) that changed nothing not shown)")
        if self.fusions_by_pass:
            total = sum(self.fusions_by_pass.values())
            row("fusions", f"{total} in {len(self.fusions_by_pass)} pass(es)")
            for name, count in sorted(self.fusions_by_pass.items(), key=lambda kv: -kv[1])[:8]:
                out.append(f"{'':<24}{count:>7}  {name}")
        row("layers removed", self.removals or None)
        row("Q/DQ events", self.qdq_events or None)
        if self.tactics_timed:
            row(
                "tactics",
                f"{self.tactics_timed} timed for {self.layers_timed} layer(s), "
                f"{self.runners_chosen} runner choice(s)",
            )
        row("graph time", _seconds(self.graph_seconds))
        row("tactic selection", _seconds(self.tactic_selection_seconds))
        row("engine build", _seconds(self.engine_build_seconds))
        row("engine layers", self.engine_layers)
        row("engine size", f"{self.engine_size_mib:g} MiB" if self.engine_size_mib else None)
        row("activation memory", _mib(self.activation_memory_bytes))
        row("weights memory", _mib(self.weights_memory_bytes))
        row(
            "GPU memory in use", f"{self.gpu_in_use_mib} MiB (max)" if self.gpu_in_use_mib else None
        )
        row("TRT allocators peak", f"{self.peak_gpu_mib} MiB GPU" if self.peak_gpu_mib else None)
        row("warnings / errors", f"{self.warnings} / {self.errors}")
        for err in self.first_errors:
            out.append(f"{'':<24}{_clip(err, 100)}")
        row(
            "unrecognized",
            f"{self.unrecognized} line(s), {self.unrecognized_enveloped} with a TensorRT envelope",
        )
        return "\n".join(out) + "\n"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _seconds(value: float | None) -> str | None:
    return None if value is None else f"{value:.3g} s"


def _mib(value: int | None) -> str | None:
    return None if value is None else f"{value / 1048576:.1f} MiB"


def _version(build: Build) -> str | None:
    return ".".join(str(p) for p in build.trt_version) if build.trt_version else None


def _last(build: Build, kind: str, field: str) -> Any:
    """A field of the last event of a kind (``None`` when the log has none)."""
    events: list[Any] = build.events_of(kind)
    return getattr(events[-1], field) if events else None


def summarize(build: Build) -> Summary:
    """Collect the summary of a parsed log.

    Example:
        >>> from trtlog import parse_text
        >>> log = "[V] [TRT] Original: 9 layers\\n[V] [TRT] After vertical fusions: 4 layers\\n"
        >>> s = summarize(parse_text(log))
        >>> [(c.stage, c.layers) for c in s.layer_counts]
        [('Original', 9), ('vertical fusions', 4)]
    """
    fusions: Counter[str] = Counter()
    for fusion in build.of(Fusion):
        fusions[fusion.pass_name or "(unnamed pass)"] += 1
    for into in build.of(FusionInto):
        fusions[into.pass_name] += 1
    if build.of(ConvScaleFusion):
        fusions["ConvScaleFusion"] += len(build.of(ConvScaleFusion))
    if build.of(HorizontalMerge):
        fusions["horizontal merge"] += len(build.of(HorizontalMerge))
    layers_timed = {e.layer for e in build.of(TimingRunner) if e.layer}
    layers_timed |= {e.layer for e in build.of(RunnerProfiled) if e.layer}
    warnings = sum(1 for e in build.events if e.severity == "warning")
    errors = [e for e in build.events if e.severity in ("error", "fatal")]
    unrec = build.of(Unrecognized)
    status: str | None = build.runs[-1].status if build.runs else None
    # a run that printed its &&&& RUNNING banner but no result line crashed or was cut off
    cut_off = bool(build.runs) and status is None and build.runs[-1].test is not None
    if cut_off:
        status = "no &&&& result line (crashed or cut off)"
    first_errors = [build.text_of(e).splitlines()[0].strip() for e in errors[:3]]
    device = build.device
    stats: list[Any] = build.events_of("memory_stats")
    peak = max((getattr(e, "gpu_mib", 0) or 0 for e in stats), default=0) or None
    in_use = [
        getattr(e, "gpu_mib", 0)
        for e in build.events_of("memory_change", "memory_snapshot")
        if not str(getattr(e, "phase", "")).startswith("TensorRT-managed")
    ]
    weights = [
        e for e in build.events_of("persistent_memory") if getattr(e, "memory", "") == "weights"
    ]
    engine = build.engine
    weights_bytes: int | None = getattr(weights[-1], "bytes", None) if weights else None
    return Summary(
        source=build.source.name,
        lines=build.line_count,
        runs=len(build.runs),
        trt_version=_version(build),
        command_line=build.command_line,
        device=device.name if device else None,
        compute_capability=device.compute_capability if device else None,
        model=build.options.model,
        precision=build.options.precision,
        strongly_typed=_strongly_typed(build),
        accuracy=_accuracy(build),
        accuracy_failed=bool(build.events_of("accuracy_failed")),
        layer_counts=[
            StageCount(stage=e.stage, layers=e.layers, line=e.span[0]) for e in build.of(LayerCount)
        ],
        fusions_by_pass=dict(fusions),
        removals=len(build.events_of("layer_removed")),
        qdq_events=_qdq_events(build),
        layers_timed=len(layers_timed),
        tactics_timed=len(build.events_of("tactic_timing")),
        runners_chosen=len(build.events_of("runner_choice")),
        tactic_selection_seconds=_last(build, "tactics_done", "seconds"),
        graph_seconds=_last(build, "graph_build_done", "seconds"),
        engine_build_seconds=next(  # "Engine loaded in" (loaded=True) is no build time
            (e.seconds for e in reversed(build.of(EngineBuilt)) if not e.loaded), None
        ),
        engine_size_mib=_last(build, "engine_size", "size_mib")
        or _last(build, "engine_load_size", "size_mib"),
        activation_memory_bytes=_last(build, "activation_memory", "bytes"),
        weights_memory_bytes=weights_bytes,
        peak_gpu_mib=peak,
        gpu_in_use_mib=max(in_use, default=0) or None,
        engine_layers=len(engine.layers) if engine is not None else None,
        warnings=warnings,
        errors=len(errors),
        first_errors=first_errors,
        status=status,
        stopped_after=_stopped_after(build) if status == "failed" or cut_off else None,
        last_line=_last_line(build) if cut_off else None,
        unrecognized=len(unrec),
        unrecognized_enveloped=sum(1 for e in unrec if e.envelope is not None),
        events=len(build.events),
    )


def _strongly_typed(build: Build) -> bool:
    """``Precision: Strongly Typed``, or TensorRT 11 (which builds nothing else)."""
    return build.options.strongly_typed or (build.trt_version or (0,)) >= (11,)


def _accuracy(build: Build) -> list[AccuracyRow]:
    """The accuracy checks, with their reference pair and the threshold they were held to."""
    option = build.options.get("Accuracy Threshold", "Inference")
    try:
        default = float(option) if option else None
    except ValueError:
        default = None
    seen: Counter[str] = Counter()
    rows = []
    for e in build.events_of("accuracy_check"):
        tensor = str(getattr(e, "tensor", ""))
        rows.append(
            AccuracyRow(
                tensor=tensor,
                pair=seen[tensor],
                metric=str(getattr(e, "metric", "")),
                value=float(getattr(e, "value", 0.0)),
                threshold=getattr(e, "threshold", None) or default,
                verdict=str(getattr(e, "verdict", "")),
                line=e.span[0],
            )
        )
        seen[tensor] += 1
    return rows


_QDQ_TYPES = ("QUANTIZE", "DEQUANTIZE", "kQDQ")


def _qdq_events(build: Build) -> int:
    """Q/DQ optimizer events: swaps to and from Q/DQ types, de-duplications, moves, phases.

    ``Swap the layer type of ... from ELEMENTWISE to POINTWISE`` shares the ``qdq_swap`` kind
    but has nothing to do with quantization, so it is not counted.
    """
    swaps = sum(
        1 for e in build.of(QdqSwap) if e.from_type in _QDQ_TYPES or e.to_type in _QDQ_TYPES
    )
    return swaps + len(build.events_of("qdq_dedup", "layer_swap", "qdq_phase"))


def _stopped_after(build: Build) -> str | None:
    """The last step a failed or cut-off run reached: its last non-verbose message.

    A build that fails without an error line (8.2 ends with ``&&&& FAILED`` right after
    ``Finish parsing network model``) or a log that stops mid-build still tells how far it got.
    """
    for event in reversed(build.events):
        if event.kind in ("run_end", "unrecognized") or event.severity in (None, "verbose"):
            continue
        text = build.text_of(event).splitlines()[0].strip()
        return f"line {event.span[0]}: {_clip(text, 100)}"
    return None


def _last_line(build: Build) -> str | None:
    """The log's last non-blank line, when it is not a TensorRT message (a crash's text)."""
    for event in reversed(build.events):
        text = build.text_of(event).strip()
        if not text:
            continue
        if event.kind != "unrecognized":
            return None
        return f"line {event.span[1]}: {_clip(text.splitlines()[-1], 100)}"
    return None
