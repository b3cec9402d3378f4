"""One screen about a build: the data behind ``trtlog summary``.

A view over a :class:`~trtlog.build.Build`: :func:`summarize` collects what a reader of a
verbose log looks for first (version, device, model, precisions, how the layer count went
down stage by stage, fusions and removals by pass, tactics timed and chosen, build times,
engine size and memory, the measured performance, warnings and errors) into a typed
:class:`Summary`, which the CLI renders as text or JSON.

Every figure is the one a frame of the same scope gives, counted by the same function (see
:mod:`trtlog.build.passes`): fusions by pass are ``fusions_frame`` rows, removals are
``removals_frame`` rows, Q/DQ steps are ``qdq_frame`` rows, tactic figures come from
``tactics_frame`` itself. The scope is one trtexec run (the last one unless ``run`` says
otherwise; a file with several runs gets a table of all of them), and when TensorRT built
the network several times in that run (backend strategies, :mod:`trtlog.build.rounds`), the stage,
fusion, removal, Q/DQ, tactic and memory figures are those of the round that gave the engine
(``Build.for_round``), with a table of every round; times are then totals over the rounds,
and say so. Only pandas-free work happens here, except for the tactic figures, which read
``tactics_frame`` (pandas is imported only when the log timed tactics).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from trtlog.build import Build
from trtlog.build.passes import (
    FUSION_KINDS,
    QDQ_KINDS,
    REMOVAL_KINDS,
    pass_records,
    qdq_events,
    removal_events,
)
from trtlog.build.performance import Performance, TimesSummary, performances, times_statistics
from trtlog.events import LayerCount, Unrecognized

if TYPE_CHECKING:
    from trtlog.engine.model import Times

__all__ = [
    "AccuracyRow",
    "PassRow",
    "RoundSummary",
    "RunRow",
    "StageCount",
    "Summary",
    "summarize",
]

#: The key of fusions no pass is known for (7.x ``Fusing a with b`` outside any pass).
NO_PASS = "(no pass)"

#: The most passes the text lists one by one (the last row then sums the others).
_PASSES_SHOWN = 12

# the event kinds that are errors whatever their envelope (a library's assert() on stderr has
# none: the 8.4.10 Myelin crash's last line)
_ERROR_KINDS = frozenset({"trt_error", "error_recorded", "internal_error", "app_error"})


class StageCount(BaseModel):
    """The layer count after one optimization stage."""

    model_config = ConfigDict(frozen=True)

    stage: str
    layers: int
    line: int


class PassRow(BaseModel):
    """One optimization pass (a row of ``passes_frame``), for ``summary --passes``."""

    model_config = ConfigDict(frozen=True)

    pass_name: str
    runs: int
    fusions: int
    removals: int
    swaps: int
    description: str


class RoundSummary(BaseModel):
    """One builder round of the run (TensorRT 8.6+ builds once per backend strategy tried).

    Attributes:
        number: 0-based within the run (the text shows it 1-based).
        first_line: its first line.
        last_line: its last line.
        strategy: the backend strategy.
        outcome: ``initial``, ``chosen``, ``skipped`` or ``None``.
        estimated_time: the builder's estimate of the engine's inference time, as printed.
        kept: whether the engine comes from this round.
        stages: its layer counts, stage by stage.
        first_stage: its first layer count.
        last_stage: its last layer count.
        fusions: the fusions it printed.
        graph_optimization_seconds: ``Graph optimization time`` (10.x).
        tactic_selection_seconds: ``Formats and tactics selection completed in``.
        engine_generation_seconds: ``Engine generation completed in``.
        activation_memory_bytes: ``Total Activation Memory`` of its engine.
    """

    model_config = ConfigDict(frozen=True)

    number: int
    first_line: int
    last_line: int
    strategy: int | None = None
    outcome: str | None = None
    estimated_time: float | None = None
    kept: bool = False
    stages: list[StageCount] = Field(default_factory=list)
    first_stage: StageCount | None = None
    last_stage: StageCount | None = None
    fusions: int = 0
    graph_optimization_seconds: float | None = None
    tactic_selection_seconds: float | None = None
    engine_generation_seconds: float | None = None
    activation_memory_bytes: int | None = None


class RunRow(BaseModel):
    """One trtexec run of a file that holds several (a row of the summary's run table).

    Attributes:
        index: 0-based (the text shows it 1-based, as ``--run`` takes it).
        first_line: its first line.
        last_line: its last line.
        status: ``passed``, ``failed``, ``waived``, or ``None`` without a result line.
        model: the model file.
        precision: the ``Precision:`` option.
        batch: the ``Batch:`` option (implicit batch, 7.x), if printed.
        shapes: the inference shapes (``x:4x1x28x28``), if given.
        engine_seconds: trtexec's ``Engine built in`` (or ``Engine loaded in``).
        engine_loaded: whether the engine was loaded from a file rather than built.
        throughput_qps: the measured throughput.
        latency_median_ms: the median ``Latency`` (H2D + GPU compute + D2H).
        gpu_compute_median_ms: the median ``GPU Compute Time``.
        errors: the error events.
    """

    model_config = ConfigDict(frozen=True)

    index: int
    first_line: int
    last_line: int
    status: str | None = None
    model: str | None = None
    precision: str | None = None
    batch: str | None = None
    shapes: str | None = None
    engine_seconds: float | None = None
    engine_loaded: bool = False
    throughput_qps: float | None = None
    latency_median_ms: float | None = None
    gpu_compute_median_ms: float | None = None
    errors: int = 0


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
    """What ``trtlog summary`` shows (all fields optional: logs differ a lot).

    The figures describe one run (``run``; the last by default) and, when that run built
    the network more than once, the round that gave the engine (``round``); ``runs_table``
    and ``rounds`` list all of them. Times of a run with several rounds are totals.
    """

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

    source: str
    lines: int
    runs: int
    run: int | None = None
    run_first_line: int | None = None
    run_last_line: int | None = None
    runs_table: list[RunRow] = Field(default_factory=list)
    runs_differ_in: list[str] = Field(default_factory=list)
    trt_version: str | None = None
    command_line: str | None = None
    device: str | None = None
    compute_capability: str | None = None
    model: str | None = None
    precision: str | None = None
    loaded_engine: str | None = None
    rounds: list[RoundSummary] = Field(default_factory=list)
    round: int | None = None
    strongly_typed: bool = False
    accuracy: list[AccuracyRow] = Field(default_factory=list)
    accuracy_failed: bool = False
    layer_counts: list[StageCount] = Field(default_factory=list)
    fusions_by_pass: dict[str, int] = Field(default_factory=dict)
    passes: list[PassRow] = Field(default_factory=list)
    removals: int = 0
    qdq_events: int = 0
    qdq_by_kind: dict[str, int] = Field(default_factory=dict)
    layers_timed: int = 0
    reformat_layers_timed: int = 0
    tactics_timed: int = 0
    tactics_cached: int = 0
    tactics_skipped: int = 0
    runners_chosen: int = 0
    graph_seconds: float | None = None
    graph_includes_optimization: bool = False
    graph_optimization_seconds: float | None = None
    tactic_selection_seconds: float | None = None
    engine_generation_seconds: float | None = None
    engine_build_seconds: float | None = None
    engine_load_seconds: float | None = None
    engine_deserialize_seconds: float | None = None
    engine_size_mib: float | None = None
    activation_memory_bytes: int | None = None
    weights_memory_bytes: int | None = None
    peak_gpu_mib: int | None = None
    gpu_in_use_mib: int | None = None
    engine_layers: int | None = None
    engine_time_ms: float | None = None
    engine_profile: str | None = None
    performance: Performance | None = None
    times: TimesSummary | None = None
    warnings: int = 0
    errors: int = 0
    first_errors: list[str] = Field(default_factory=list)
    status: str | None = None
    stopped_after: str | None = None
    last_line: str | None = None
    unrecognized: int = 0
    unrecognized_enveloped: int = 0
    events: int = 0

    def to_text(self, *, passes: bool = False) -> str:
        """The summary as aligned text, a screen long.

        Args:
            passes: list every optimization pass with what it ran, did and what it is for,
                instead of the fusions by pass.
        """
        out: list[str] = []

        def row(label: str, value: Any) -> None:
            if value is not None and value != "" and value != [] and value != {}:
                out.append(f"{label:<22}{value}")

        runs = f"{self.runs} runs" if self.runs > 1 else "1 run" if self.runs else "no run banner"
        row("log", f"{self.source} ({self.lines} lines, {runs})")
        if self.runs_table:
            self._runs_text(out)
        row("TensorRT", self.trt_version)
        row("status", self.status)
        row("stopped after", self.stopped_after)
        row("last line", self.last_line)
        dev = self.device
        if dev and self.compute_capability:
            dev = f"{dev} (compute {self.compute_capability})"
        row("device", dev)
        row("model", self.model)
        row("loaded engine", self.loaded_engine)
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
        if self.rounds:
            self._rounds_text(out)
        if self.layer_counts:
            first, last = self.layer_counts[0], self.layer_counts[-1]
            row(
                "layers",
                f"{first.layers} ({first.stage}) -> {last.layers} ({last.stage})",
            )
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
        if passes:
            self._passes_text(out)
        elif self.fusions_by_pass:
            self._fusions_text(out)
        row("layers removed", self.removals or None)
        if self.qdq_events:
            parts = ", ".join(f"{n} {_QDQ_LABELS.get(k, k)}" for k, n in self.qdq_by_kind.items())
            row("Q/DQ optimizer", f"{self.qdq_events} steps (qdq_frame rows): {parts}")
        if self.tactics_timed or self.tactics_cached or self.tactics_skipped:
            reformats = self.reformat_layers_timed
            layers = f"{self.layers_timed} layer(s)"
            if reformats:
                layers += f" ({reformats} of them reformats)"
            extra = [
                f"{n} {what}"
                for n, what in (
                    (self.tactics_cached, "from the timing cache"),
                    (self.tactics_skipped, "skipped"),
                )
                if n
            ]
            more = f"; {', '.join(extra)}" if extra else ""
            row(
                "tactics",
                f"{self.tactics_timed} timed for {layers}{more}; "
                f"{self.runners_chosen} runner choice(s)",
            )
        total = f" in all ({len(self.rounds)} rounds)" if self.rounds else ""
        label = "graph construction"
        if self.graph_includes_optimization:
            label = "graph build + optim."
        row(label, _seconds(self.graph_seconds))
        if self.graph_optimization_seconds is not None:
            row("graph optimization", _seconds(self.graph_optimization_seconds) + total)
        if self.tactic_selection_seconds is not None:
            row("tactic selection", _seconds(self.tactic_selection_seconds) + total)
        if self.engine_generation_seconds is not None:
            row("engine generation", _seconds(self.engine_generation_seconds) + total)
        row("engine build", _seconds(self.engine_build_seconds))
        row("engine load", _seconds(self.engine_load_seconds))
        row("engine deserialized", _seconds(self.engine_deserialize_seconds))
        row("engine layers", self.engine_layers)
        if self.engine_time_ms is not None:
            row(
                "engine layer time",
                _clip(f"{self.engine_time_ms:.4g} ms per inference ({self.engine_profile})", 100),
            )
        row("engine size", f"{self.engine_size_mib:g} MiB" if self.engine_size_mib else None)
        row("activation memory", _mib(self.activation_memory_bytes))
        row("weights memory", _mib(self.weights_memory_bytes))
        row(
            "GPU memory in use", f"{self.gpu_in_use_mib} MiB (max)" if self.gpu_in_use_mib else None
        )
        row("TRT allocators peak", f"{self.peak_gpu_mib} MiB GPU" if self.peak_gpu_mib else None)
        if self.performance is not None:
            out.extend(self.performance.text_lines())
        if self.times is not None:
            row("--exportTimes", f"{self.times.source}: {self.times.inferences} inferences")
            for stats in self.times.metrics.values():
                out.append(f"{'':<2}{stats.metric:<24}{stats.describe()}")
        row("warnings / errors", f"{self.warnings} / {self.errors}")
        for err in self.first_errors:
            out.append(f"{'':<24}{_clip(err, 100)}")
        row(
            "unrecognized",
            f"{self.unrecognized} line(s), {self.unrecognized_enveloped} with a TensorRT envelope",
        )
        return "\n".join(out) + "\n"

    def _runs_text(self, out: list[str]) -> None:
        shown = self.run + 1 if self.run is not None else len(self.runs_table)
        differ = f"; they differ in {', '.join(self.runs_differ_in)}" if self.runs_differ_in else ""
        out.append(f"{'runs':<22}{len(self.runs_table)} trtexec runs{differ}")
        headers = [
            "run",
            "lines",
            "status",
            "model",
            "precision",
            "batch/shapes",
            "engine s",
            "qps",
            "latency ms",
            "GPU ms",
        ]
        rows = []
        for r in self.runs_table:
            mark = "*" if r.index + 1 == shown else ""
            engine = None if r.engine_seconds is None else f"{r.engine_seconds:.3g}"
            if engine and r.engine_loaded:
                engine += " (load)"
            rows.append(
                [
                    f"{r.index + 1}{mark}",
                    f"{r.first_line}-{r.last_line}",
                    r.status or "-",
                    _clip(r.model or "", 32),
                    r.precision or "",
                    r.shapes or r.batch or "",
                    engine,
                    _num(r.throughput_qps),
                    _num(r.latency_median_ms),
                    _num(r.gpu_compute_median_ms),
                ]
            )
        out.extend("  " + line for line in _table(headers, rows))
        out.append(
            f"{'':<2}* below: run {shown} of {len(self.runs_table)} "
            f"(lines {self.run_first_line}-{self.run_last_line}); --run N shows another"
        )

    def _rounds_text(self, out: list[str]) -> None:
        kept = next((r for r in self.rounds if r.kept), None)
        strategies = ", ".join(str(r.strategy) for r in self.rounds if r.strategy is not None)
        which = f"; the engine is round {kept.number + 1}'s" if kept is not None else ""
        out.append(
            f"{'builder rounds':<22}{len(self.rounds)} (backend strategies {strategies}){which}"
        )
        headers = ["round", "strategy", "lines", "layers", "fusions", "graph opt s"]
        headers += ["tactics s", "engine gen s", "estimate", "outcome"]
        rows = []
        for r in self.rounds:
            layers = ""
            if r.first_stage and r.last_stage:
                layers = f"{r.first_stage.layers} -> {r.last_stage.layers}"
            rows.append(
                [
                    f"{r.number + 1}{'*' if r.kept else ''}",
                    "" if r.strategy is None else str(r.strategy),
                    f"{r.first_line}-{r.last_line}",
                    layers,
                    str(r.fusions),
                    _num(r.graph_optimization_seconds),
                    _num(r.tactic_selection_seconds),
                    _num(r.engine_generation_seconds),
                    "" if r.estimated_time is None else f"{r.estimated_time:g}",
                    _OUTCOMES.get(r.outcome or "", ""),
                ]
            )
        out.extend("  " + line for line in _table(headers, rows))
        if kept is not None:
            out.append(
                f"{'':<2}* the engine's round: the layer counts, fusions, removals, Q/DQ steps, "
                "tactics and memory below are its own (with the stages before the rounds); "
                "times are totals"
            )

    def _fusions_text(self, out: list[str]) -> None:
        total = sum(self.fusions_by_pass.values())
        out.append(f"{'fusions':<22}{total} in {len(self.fusions_by_pass)} pass(es)")
        ranked = sorted(self.fusions_by_pass.items(), key=lambda kv: -kv[1])
        shown = ranked if len(ranked) <= _PASSES_SHOWN else ranked[: _PASSES_SHOWN - 1]
        for name, count in shown:
            out.append(f"{'':<24}{count:>7}  {name}")
        rest = ranked[len(shown) :]
        if rest:
            more = sum(count for _, count in rest)
            out.append(f"{'':<24}{more:>7}  in {len(rest)} more pass(es) (--passes lists all)")

    def _passes_text(self, out: list[str]) -> None:
        if not self.passes:
            out.append(f"{'passes':<22}none printed (the log has no Running: lines)")
            return
        out.append(f"{'passes':<22}{len(self.passes)}, in the order they first ran")
        headers = ["pass", "runs", "fusions", "removals", "swaps", "what it does"]
        rows = [
            [p.pass_name, str(p.runs), str(p.fusions), str(p.removals), str(p.swaps), p.description]
            for p in self.passes
        ]
        out.extend("  " + line for line in _table(headers, rows))


_QDQ_LABELS = {
    "fusion_into": "Q/DQ layers fused into their consumer",
    "layer_swap": "swaps with a neighbour",
    "qdq_dedup": "duplicates eliminated",
    "qdq_phase": "optimizer phase lines",
    "qdq_swap": "Q/DQ type swaps",
}

_OUTCOMES = {
    "initial": "initial choice",
    "chosen": "chosen (faster)",
    "skipped": "skipped (not faster)",
}


def _table(headers: list[str], rows: Sequence[Sequence[str | None]]) -> list[str]:
    cells = [headers] + [["" if c is None else c for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.4g}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.3g} s"


def _mib(value: int | None) -> str | None:
    return None if value is None else f"{value / 1048576:.1f} MiB"


def _version(build: Build) -> str | None:
    return ".".join(str(p) for p in build.trt_version) if build.trt_version else None


def _last(build: Build, kind: str, field: str) -> Any:
    """A field of the last event of a kind (``None`` when the log has none)."""
    events: list[Any] = build.events_of(kind)
    return getattr(events[-1], field) if events else None


def _total(build: Build, kind: str) -> float | None:
    """The sum of the ``seconds`` of every event of a kind (``None`` when there is none)."""
    values: list[float] = [getattr(e, "seconds", 0.0) for e in build.events_of(kind)]
    return math.fsum(values) if values else None


def summarize(build: Build, run: int | None = None, *, times: Times | None = None) -> Summary:
    """Collect the summary of a parsed log.

    Args:
        build: the parsed log.
        run: which trtexec run to describe (0-based; negative counts from the end). Default:
            the last run. A file with several runs also gets a table of every run.
        times: an ``--exportTimes`` file of the same run, summarised under the performance.

    Raises:
        IndexError: there is no such run.

    Example:
        >>> from trtlog import parse_text
        >>> log = "[V] [TRT] Original: 9 layers\\n[V] [TRT] After vertical fusions: 4 layers\\n"
        >>> s = summarize(parse_text(log))
        >>> [(c.stage, c.layers) for c in s.layer_counts]
        [('Original', 9), ('vertical fusions', 4)]
    """
    runs_table: list[RunRow] = []
    differ: list[str] = []
    if len(build.runs) > 1:
        index = len(build.runs) - 1 if run is None else run
        scope_run = build.for_run(index)
        runs_table = [_run_row(build.for_run(i)) for i in range(len(build.runs))]
        differ = _differences([build.for_run(i) for i in range(len(build.runs))])
    else:
        scope_run = build.for_run(run) if run is not None else build
    current = scope_run.runs[0] if scope_run.runs else None
    rounds = scope_run.rounds if len(scope_run.rounds) > 1 else ()
    kept = next((r for r in rounds if r.kept), None)
    scope = scope_run.for_round(kept.index) if kept is not None else scope_run
    round_rows = [_round_summary(scope_run, r) for r in rounds]

    index_ = scope.pass_index
    fusions = Counter(index_.of(e) or NO_PASS for e in scope.events_of(*FUSION_KINDS))
    qdq = _qdq_rows(scope)
    tactics = _tactic_figures(scope)
    warnings = sum(1 for e in scope_run.events if e.severity == "warning")
    errors = [e for e in scope_run.events if _is_error(e)]
    unrec = scope_run.of(Unrecognized)
    status: str | None = current.status if current is not None else None
    # a run that printed its &&&& RUNNING banner but no result line crashed or was cut off
    cut_off = current is not None and status is None and current.test is not None
    if cut_off:
        status = "no &&&& result line (crashed or cut off)"
    first_errors = [scope_run.text_of(e).splitlines()[0].strip() for e in errors[:3]]
    device = scope_run.device
    stats: list[Any] = scope_run.events_of("memory_stats")
    peak = max((getattr(e, "gpu_mib", 0) or 0 for e in stats), default=0) or None
    in_use = [
        getattr(e, "gpu_mib", 0)
        for e in scope_run.events_of("memory_change", "memory_snapshot")
        if not str(getattr(e, "phase", "")).startswith("TensorRT-managed")
    ]
    weights = [
        e for e in scope.events_of("persistent_memory") if getattr(e, "memory", "") == "weights"
    ]
    engine = scope_run.engine
    built = [e for e in scope_run.events_of("engine_built") if not getattr(e, "loaded", False)]
    loaded = [e for e in scope_run.events_of("engine_built") if getattr(e, "loaded", False)]
    graph: list[Any] = scope_run.events_of("graph_build_done")
    found = performances(scope_run.events, scope_run.runs)
    return Summary(
        source=build.source.name,
        lines=build.line_count,
        runs=len(build.runs),
        run=current.index if current is not None else None,
        run_first_line=_first_line(build, current),
        run_last_line=current.last_line if current is not None else None,
        runs_table=runs_table,
        runs_differ_in=differ,
        trt_version=_version(scope_run),
        command_line=scope_run.command_line,
        device=device.name if device else None,
        compute_capability=device.compute_capability if device else None,
        model=scope_run.options.model,
        precision=scope_run.options.precision,
        loaded_engine=scope_run.options.loaded_engine,
        rounds=round_rows,
        round=kept.number if kept is not None else None,
        strongly_typed=_strongly_typed(scope_run),
        accuracy=_accuracy(scope_run),
        accuracy_failed=bool(scope_run.events_of("accuracy_failed")),
        layer_counts=[
            StageCount(stage=e.stage, layers=e.layers, line=e.span[0]) for e in scope.of(LayerCount)
        ],
        fusions_by_pass=dict(fusions),
        passes=[PassRow(**{k: r[k] for k in PassRow.model_fields}) for r in pass_records(scope)],
        removals=len(removal_events(scope.events_of(*REMOVAL_KINDS, "pass_run"))),
        qdq_events=sum(qdq.values()),
        qdq_by_kind=qdq,
        **tactics,
        graph_seconds=graph[0].seconds if graph else None,
        graph_includes_optimization=bool(graph and graph[0].includes_optimization),
        graph_optimization_seconds=_total(scope_run, "graph_opt_time"),
        tactic_selection_seconds=_total(scope_run, "tactics_done"),
        engine_generation_seconds=_total(scope_run, "engine_generated"),
        engine_build_seconds=built[-1].seconds if built else None,  # type: ignore[union-attr]
        engine_load_seconds=loaded[-1].seconds if loaded else None,  # type: ignore[union-attr]
        engine_deserialize_seconds=_last(scope_run, "engine_deserialized", "seconds"),
        engine_size_mib=_last(scope_run, "engine_size", "size_mib")
        or _last(scope_run, "engine_load_size", "size_mib"),
        activation_memory_bytes=_last(scope, "activation_memory", "bytes"),
        weights_memory_bytes=getattr(weights[-1], "bytes", None) if weights else None,
        peak_gpu_mib=peak,
        gpu_in_use_mib=max(in_use, default=0) or None,
        engine_layers=len(engine.layers) if engine is not None else None,
        engine_time_ms=engine.profile.runs[0].total_ms
        if engine is not None and engine.profile is not None and engine.profile.runs
        else None,
        engine_profile=_profile_source(scope_run, engine),
        performance=found[-1] if found else None,
        times=times_statistics(times) if times is not None else None,
        warnings=warnings,
        errors=len(errors),
        first_errors=first_errors,
        status=status,
        stopped_after=_stopped_after(scope_run) if status == "failed" or cut_off else None,
        last_line=_last_line(scope_run) if status == "failed" or cut_off else None,
        unrecognized=len(unrec),
        unrecognized_enveloped=sum(1 for e in unrec if e.envelope is not None),
        events=len(scope_run.events),
    )


def _profile_source(build: Build, engine: Any) -> str | None:
    """Where the engine's layer times come from (the log's own table, said briefly)."""
    if engine is None or engine.profile is None:
        return None
    source: str = engine.profile.source
    if source.startswith(build.source.name + " ("):
        return "the log's " + source[len(build.source.name) + 2 : -1]
    return source


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


def _first_line(build: Build, run: Any) -> int | None:
    if run is None:
        return None
    return 1 if run.index == 0 else int(run.first_line)


def _is_error(event: Any) -> bool:
    """An error: an ``[E]``/``[F]`` line, or an error event without envelope.

    A library's ``assert()`` prints on stderr without an envelope (8.4.10 Myelin crash).
    """
    return event.severity in ("error", "fatal") or (
        event.severity is None and event.kind in _ERROR_KINDS
    )


def _qdq_rows(build: Build) -> dict[str, int]:
    """The rows ``qdq_frame`` has for each kind (a Q/DQ fusion has one row per Q/DQ layer)."""
    counts: Counter[str] = Counter()
    for event in qdq_events(build.events_of(*QDQ_KINDS)):
        counts[event.kind] += len(event.sources) if event.kind == "fusion_into" else 1
    return dict(counts.most_common())


_TACTIC_KINDS = ("tactic_timing", "tactic_skipped", "tactic_skipped_memory", "cached_tactic")


def _tactic_figures(build: Build) -> dict[str, int]:
    """Tactics timed, cached, skipped and the layers timed, from ``tactics_frame`` itself.

    ``tactics_timed`` are its rows measured in this build (not skipped, not from the timing
    cache), ``layers_timed`` the distinct ``layer`` values of its rows with a time (timed or
    cached; the ``Optimizer Reformat(...)`` layers of reformat timings among them, counted
    in ``reformat_layers_timed``).
    """
    runners = len(build.events_of("runner_choice", "legacy_runner_choice"))
    if not build.events_of(*_TACTIC_KINDS):
        return {"runners_chosen": runners}
    frame = build.tactics_frame()
    timed = frame[~frame["skipped"]]
    return {
        "tactics_timed": int((~timed["cached"]).sum()),
        "tactics_cached": int(timed["cached"].sum()),
        "tactics_skipped": int(frame["skipped"].sum()),
        "layers_timed": int(timed["layer"].nunique()),
        "reformat_layers_timed": int(timed.loc[timed["reformat"], "layer"].nunique()),
        "runners_chosen": runners,
    }


def _round_summary(build: Build, r: Any) -> RoundSummary:
    events = [e for e in build.events if r.contains(e.span[0])]
    stages = [e for e in events if isinstance(e, LayerCount)]

    def total(kind: str) -> float | None:
        values = [getattr(e, "seconds", 0.0) for e in events if e.kind == kind]
        return math.fsum(values) if values else None

    activation = [getattr(e, "bytes", None) for e in events if e.kind == "activation_memory"]
    return RoundSummary(
        number=r.number,
        first_line=r.first_line,
        last_line=r.last_line,
        strategy=r.strategy,
        outcome=r.outcome,
        estimated_time=r.estimated_time,
        kept=r.kept,
        stages=[_stage(e) for e in stages],
        first_stage=_stage(stages[0]) if stages else None,
        last_stage=_stage(stages[-1]) if stages else None,
        fusions=sum(1 for e in events if e.kind in FUSION_KINDS),
        graph_optimization_seconds=total("graph_opt_time"),
        tactic_selection_seconds=total("tactics_done"),
        engine_generation_seconds=total("engine_generated"),
        activation_memory_bytes=activation[-1] if activation else None,
    )


def _stage(event: LayerCount) -> StageCount:
    return StageCount(stage=event.stage, layers=event.layers, line=event.span[0])


def _run_row(build: Build) -> RunRow:
    run = build.runs[0]
    options = build.options
    found = performances(build.events, build.runs)
    perf = found[-1] if found else None

    def median(metric: str) -> float | None:
        stats = perf.latency.get(metric) if perf is not None else None
        return stats.median_ms if stats is not None else None

    engine: list[Any] = build.events_of("engine_built")
    shapes = [s for s in options.shapes if s.phase == "inference" and not s.model]
    return RunRow(
        index=run.index,
        first_line=1 if run.index == 0 else run.first_line,
        last_line=run.last_line,
        status=run.status,
        model=options.model,
        precision=options.precision,
        batch=options.get("Batch", "Inference") or options.get("Max batch", "Build"),
        shapes=",".join(
            f"{s.tensor}:{'x'.join(map(str, s.dims or s.opt_dims or ()))}" for s in shapes
        )
        or None,
        engine_seconds=engine[-1].seconds if engine else None,
        engine_loaded=bool(engine and engine[-1].loaded),
        throughput_qps=perf.throughput_qps if perf is not None else None,
        latency_median_ms=median("Latency"),
        gpu_compute_median_ms=median("GPU Compute Time"),
        errors=sum(1 for e in build.events if _is_error(e)),
    )


def _differences(builds: list[Build]) -> list[str]:
    """The option labels whose values differ between runs (``Batch``, ``Prototxt``...).

    Only labels every run printed: an option a run leaves out is unknown, not different.
    """
    labels: dict[str, None] = {}
    for b in builds:
        for block in b.options.blocks.values():
            labels.update(dict.fromkeys(block))
    out = []
    for label in labels:
        values = [b.options.get(label) for b in builds]
        if None not in values and len(set(values)) > 1:
            out.append(label)
    return out


def _stopped_after(build: Build) -> str | None:
    """The last line a failed or cut-off run reached: its last TensorRT or trtexec message.

    Whatever its severity: a cut-off verbose log's last ``Timing Runner`` line says how far
    the build got (8.4.10 Myelin crash: line 347), a build that fails without an error line
    (8.2.3: ``&&&& FAILED`` right after ``Finish parsing network model``) its last step.
    Blank lines, the ``&&&&`` footer and text without an envelope are left out (the crash's
    own text is ``last line``).
    """
    for event in reversed(build.events):
        if event.kind in ("run_end", "log_line") or event.severity is None:
            continue  # the footer, an empty message, text without an envelope
        text = build.text_of(event).splitlines()[0].strip()
        return f"line {event.span[0]}: {_clip(text, 100)}"
    return None


def _last_line(build: Build) -> str | None:
    """The log's last non-blank line when it is not a TensorRT message (a crash's text)."""
    for event in reversed(build.events):
        if event.kind == "run_end":
            continue
        text = build.text_of(event).strip()
        if not text:
            continue
        if event.severity is not None:
            return None
        return f"line {event.span[1]}: {_clip(text.splitlines()[-1], 100)}"
    return None
