"""One screen about a build: the data behind ``trtlog summary``.

A view over a :class:`~trtlog.buildlog.Build`: :func:`summarize` collects what a reader of a
verbose log looks for first (version, device, model, precisions, how the layer count went
down stage by stage, fusions and removals by pass, tactics timed and chosen, build times,
engine size and memory, the measured performance, warnings and errors) into a typed
:class:`Summary`, which the CLI renders as text or JSON.

Every figure is the one a frame of the same scope gives, counted by the same function (see
:mod:`trtlog.buildlog.passes`): fusions by pass are ``fusions_frame`` rows, removals are
``removals_frame`` rows, Q/DQ steps are ``qdq_frame`` rows, tactic figures come from
``tactics_frame`` itself. The scope is one trtexec run (the last one unless ``run`` says
otherwise; a file with several runs gets a table of all of them), one engine build of that run
(the last unless ``engine_build`` says otherwise; a run with several builds, a program calling
``build_serialized_network`` more than once, gets a table of them, :mod:`trtlog.buildlog.builds`),
and when the builder tried several backend strategies in that build
(:mod:`trtlog.buildlog.rounds`), the stage, fusion, removal, Q/DQ, tactic and memory figures
are those of the round that gave the engine (``Build.for_round``), with a table of every
round; times are then totals over the build's rounds, and say so. Only pandas-free work
happens here, except for the tactic figures, which read ``tactics_frame`` (pandas is imported
only when the log timed tactics).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from trtlog._display import clip, number, plural, visible
from trtlog.buildlog.performance import Performance, TimesSummary
from trtlog.summary.outcome import Outcome

if TYPE_CHECKING:
    pass

__all__ = [
    "AccuracyRow",
    "BuildRow",
    "PassRow",
    "RoundSummary",
    "RunRow",
    "StageCount",
    "Summary",
]

#: The key of fusions no pass is known for (7.x ``Fusing a with b`` outside any pass).
NO_PASS = "(no pass)"

#: The most passes the text lists one by one (the last row then sums the others).
_PASSES_SHOWN = 12


class StageCount(BaseModel):
    """The layer count after one optimization stage."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    stage: str
    layers: int
    line: int


class PassRow(BaseModel):
    """One optimization pass (a row of ``passes_frame``), for ``summary --passes``."""

    model_config = ConfigDict(frozen=True, defer_build=True)

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

    model_config = ConfigDict(frozen=True, defer_build=True)

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
        outcome: the outcome of the run's last engine build (``built``, ``failed``,
            ``killed``, ``incomplete``, ``no-build``: :mod:`trtlog.summary.outcome`).
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

    model_config = ConfigDict(frozen=True, defer_build=True)

    index: int
    first_line: int
    last_line: int
    status: str | None = None
    outcome: str | None = None
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


class BuildRow(BaseModel):
    """One engine build of a run that holds several (a row of the summary's build table).

    A program that calls ``build_serialized_network`` more than once prints several builds in
    one run (:mod:`trtlog.buildlog.builds`); each row holds that build's own figures.

    Attributes:
        index: 0-based position in the file (``Build.builds``).
        number: 0-based position within its run (the text shows it 1-based, as ``--build``
            takes it).
        first_line: its first line.
        last_line: its last line.
        outcome: ``built``, ``failed``, ``killed``, ``incomplete`` or ``no-build``: the one
            decision of :mod:`trtlog.summary.outcome` for this build.
        first_stage: its first layer count (``Original``), if printed.
        last_stage: its last layer count, if printed.
        rounds: its builder rounds (backend strategies tried).
        graph_seconds: ``Graph construction completed in``.
        graph_optimization_seconds: the sum of its ``Graph optimization time`` lines.
        tactic_selection_seconds: the sum of its ``Total time taken for tactic selection``.
        engine_generation_seconds: the sum of its ``Engine generation completed in``.
        engine_size_mib: the size of the engine it made, or of the engine loaded after it.
        warnings: its warning events.
        errors: its error events.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    index: int
    number: int
    first_line: int
    last_line: int
    outcome: str | None = None
    first_stage: StageCount | None = None
    last_stage: StageCount | None = None
    rounds: int = 1
    graph_seconds: float | None = None
    graph_optimization_seconds: float | None = None
    tactic_selection_seconds: float | None = None
    engine_generation_seconds: float | None = None
    engine_size_mib: float | None = None
    warnings: int = 0
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

    model_config = ConfigDict(frozen=True, defer_build=True)

    tensor: str
    pair: int
    metric: str
    value: float
    threshold: float | None = None
    verdict: str
    line: int


class Summary(BaseModel):
    """What ``trtlog summary`` shows (all fields optional: logs differ a lot).

    The figures describe one run (``run``; the last by default), one engine build of it
    (``build``: the last by default, when the run built more than once) and, when that build
    tried several backend strategies, the round that gave the engine (``round``);
    ``runs_table``, ``builds_table`` and ``rounds`` list all of them. Times of a build with
    several rounds are totals over its rounds.
    """

    model_config = ConfigDict(frozen=True, defer_build=True, ser_json_inf_nan="constants")

    source: str
    lines: int
    runs: int
    run: int | None = None
    run_first_line: int | None = None
    run_last_line: int | None = None
    runs_table: list[RunRow] = Field(default_factory=list)
    runs_differ_in: list[str] = Field(default_factory=list)
    builds: int = 1
    build: int | None = None
    build_first_line: int | None = None
    build_last_line: int | None = None
    build_outcome: str | None = None
    builds_table: list[BuildRow] = Field(default_factory=list)
    times_run: int | None = None
    trt_version: str | None = None
    product: str = "TensorRT"
    rtx_version: str | None = None
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
    outcome: Outcome | None = None
    stopped_after: str | None = None
    last_line: str | None = None
    unrecognized: int = 0
    unrecognized_enveloped: int = 0
    events: int = 0

    def version_row(self) -> tuple[str, str | None]:
        """The product and version, as the summary and the report show them.

        ``("TensorRT", "10.16.1")``; a TensorRT-RTX log is named so, with its own version
        or ``version not printed`` (its releases number from 1.0: never a TensorRT version).

        Example:
            >>> Summary(source="a.log", lines=1, runs=0, product="TensorRT-RTX").version_row()
            ('TensorRT-RTX', 'version not printed')
        """
        if self.product == "TensorRT-RTX":
            return self.product, self.rtx_version or "version not printed"
        return self.product, self.trt_version

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
        # a path is one line whatever it holds (a newline, ESC): escaped as every printed path is
        row("log", f"{visible(self.source)} ({self.lines} lines, {runs})")
        if self.runs_table:
            self._runs_text(out)
        if self.builds_table:
            self._builds_text(out)
        row(*self.version_row())
        row("status", self.status)
        if self.outcome is not None:
            row("outcome", self.outcome.to_text())
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
            row("command", clip(self.command_line, 100))
        if self.rounds:
            self._rounds_text(out)
        if self.layer_counts:
            # only the stages that changed the count (the JSON output keeps every stage); the
            # header names the same stage as the list for each count: the one that reached it
            changes = _count_changes(self.layer_counts)
            first, last = changes[0], changes[-1]
            row("layers", f"{first.layers} ({first.stage}) -> {last.layers} ({last.stage})")
            for stage in changes:
                out.append(f"{'':<24}{stage.layers:>7}  {stage.stage}")
            hidden = len(self.layer_counts) - len(changes)
            if hidden:
                final = self.layer_counts[-1].stage
                through = f"; the count holds through {final}" if final != last.stage else ""
                out.append(
                    f"{'':<24}{'':>7}  ({hidden} stage(s) that changed nothing not shown{through})"
                )
        if passes:
            self._passes_text(out)
        elif self.fusions_by_pass:
            self._fusions_text(out)
        row("layers removed", self.removals or None)
        if self.qdq_events:
            parts = ", ".join(_qdq_label(k, n) for k, n in self.qdq_by_kind.items())
            row("Q/DQ optimizer", f"{plural(self.qdq_events, 'step')} (qdq_frame rows): {parts}")
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
                clip(f"{number(self.engine_time_ms)} ms per inference ({self.engine_profile})"),
            )
        size = self.engine_size_mib
        row("engine size", f"{number(size, 6)} MiB" if size else None)
        row("activation memory", _mib(self.activation_memory_bytes))
        row("weights memory", _mib(self.weights_memory_bytes))
        row(
            "GPU memory in use", f"{self.gpu_in_use_mib} MiB (max)" if self.gpu_in_use_mib else None
        )
        row("TRT allocators peak", f"{self.peak_gpu_mib} MiB GPU" if self.peak_gpu_mib else None)
        if self.performance is not None:
            out.extend(self.performance.text_lines())
        if self.times is not None:
            which = ""
            if self.times_run is not None:
                which = f" (its array {self.times_run + 1}: the run shown)"
            row(
                "--exportTimes",
                f"{visible(self.times.source)}{which}: {self.times.inferences} inferences",
            )
            for stats in self.times.metrics.values():
                out.append(f"{'':<2}{stats.metric:<24}{stats.describe()}")
        row("warnings / errors", f"{self.warnings} / {self.errors}")
        for err in self.first_errors:
            out.append(f"{'':<24}{clip(err, 100)}")
        row(
            "unrecognized",
            f"{self.unrecognized} line(s), {self.unrecognized_enveloped} with a TensorRT envelope",
        )
        return "\n".join(out) + "\n"

    def stage_reached(self) -> StageCount | None:
        """The stage that reached the final layer count (later stages may keep it).

        The summary's text and the report name this stage for the final count.
        """
        changes = _count_changes(self.layer_counts)
        return changes[-1] if changes else None

    def _runs_text(self, out: list[str]) -> None:
        shown = self.run + 1 if self.run is not None else len(self.runs_table)
        differ = f"; they differ in {', '.join(self.runs_differ_in)}" if self.runs_differ_in else ""
        out.append(f"{'runs':<22}{len(self.runs_table)} trtexec runs{differ}")
        headers = [
            "run",
            "lines",
            "outcome",
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
            engine = None if r.engine_seconds is None else number(r.engine_seconds, 3)
            if engine and r.engine_loaded:
                engine += " (load)"
            rows.append(
                [
                    f"{r.index + 1}{mark}",
                    f"{r.first_line}-{r.last_line}",
                    r.outcome or r.status or "-",
                    clip(r.model or "", 32),
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

    def _builds_text(self, out: list[str]) -> None:
        shown = self.build + 1 if self.build is not None else len(self.builds_table)
        where = f"run {self.run + 1}" if self.run is not None and self.runs > 1 else "the run"
        out.append(
            f"{'engine builds':<22}{len(self.builds_table)} in {where} (build_serialized_network "
            "calls or trtexec builds)"
        )
        headers = ["build", "lines", "outcome", "layers", "rounds", "graph s", "graph opt s"]
        headers += ["tactics s", "engine gen s", "engine MiB", "warn/err"]
        rows = []
        for b in self.builds_table:
            layers = ""
            if b.first_stage and b.last_stage:
                layers = f"{b.first_stage.layers} -> {b.last_stage.layers}"
            rows.append(
                [
                    f"{b.number + 1}{'*' if b.number + 1 == shown else ''}",
                    f"{b.first_line}-{b.last_line}",
                    b.outcome or "-",
                    layers,
                    str(b.rounds),
                    _num(b.graph_seconds),
                    _num(b.graph_optimization_seconds),
                    _num(b.tactic_selection_seconds),
                    _num(b.engine_generation_seconds),
                    "" if b.engine_size_mib is None else f"{b.engine_size_mib:g}",
                    f"{b.warnings}/{b.errors}",
                ]
            )
        out.extend("  " + line for line in _table(headers, rows))
        out.append(
            f"{'':<2}* below: build {shown} of {len(self.builds_table)} "
            f"(lines {self.build_first_line}-{self.build_last_line}); --build N shows another"
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


# (one, many): "1 Q/DQ type swap", "3 Q/DQ type swaps".
_QDQ_LABELS = {
    "fusion_into": ("Q/DQ layer fused into its consumer", "Q/DQ layers fused into their consumer"),
    "layer_swap": ("swap with a neighbour", "swaps with a neighbour"),
    "qdq_dedup": ("duplicate eliminated", "duplicates eliminated"),
    "qdq_phase": ("optimizer phase line", "optimizer phase lines"),
    "qdq_swap": ("Q/DQ type swap", "Q/DQ type swaps"),
}


def _qdq_label(kind: str, n: int) -> str:
    one, many = _QDQ_LABELS.get(kind, (kind, kind))
    return f"{n} {one if n == 1 else many}"


_OUTCOMES = {
    "initial": "initial choice",
    "chosen": "chosen (faster)",
    "skipped": "skipped (not faster)",
}


def _count_changes(counts: Sequence[StageCount]) -> list[StageCount]:
    """The stages whose layer count differs from the stage before (the first always)."""
    out: list[StageCount] = []
    for stage in counts:
        if not out or stage.layers != out[-1].layers:
            out.append(stage)
    return out


def _table(headers: list[str], rows: Sequence[Sequence[str | None]]) -> list[str]:
    cells = [headers] + [["" if c is None else c for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]


def _num(value: float | None) -> str:
    return "" if value is None else number(value)


def _seconds(value: float | None) -> str:
    return "" if value is None else f"{number(value, 3)} s"


def _mib(value: int | None) -> str | None:
    return None if value is None else f"{value / 1048576:.1f} MiB"
