"""Collecting a Summary: every figure counted by the function the frames use.

Part of the summary package: :func:`summarize` reads one run of a build (the last one unless
asked otherwise), the round that gave its engine when the builder built several, and fills a
:class:`~trtlog.summary.model.Summary`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from trtlog._display import clip
from trtlog._pydantic import put
from trtlog.buildlog import Build
from trtlog.buildlog.builds import EngineBuild
from trtlog.buildlog.passes import (
    FUSION_KINDS,
    QDQ_KINDS,
    pass_records,
    qdq_events,
)
from trtlog.buildlog.performance import (
    split_runs,
    times_statistics,
)
from trtlog.buildlog.tactics import column_array, column_take, column_texts, tactic_rows
from trtlog.events import (
    AccuracyCheck,
    AccuracyFailed,
    ActivationMemory,
    CachedTactic,
    EngineBuilt,
    EngineDeserialized,
    EngineGenerated,
    EngineLoadSize,
    EngineSize,
    Event,
    EventBase,
    GraphBuildDone,
    GraphOptTime,
    LayerCount,
    LegacyRunnerChoice,
    MemoryChange,
    MemorySnapshot,
    MemoryStats,
    PersistentMemory,
    RunnerChoice,
    TacticsDone,
    TacticSkipped,
    TacticSkippedMemory,
    TacticTiming,
    Unrecognized,
)

if TYPE_CHECKING:
    import pandas as pd

    from trtlog.buildlog.header import Options
    from trtlog.engine.model import Times

from trtlog.summary.model import (
    NO_PASS,
    AccuracyRow,
    BuildRow,
    PassRow,
    RoundSummary,
    RunRow,
    StageCount,
    Summary,
)
from trtlog.summary.outcome import outcome_of

__all__ = ["inference_shape", "summarize"]

E = TypeVar("E", bound=EventBase)

# the event kinds that are errors whatever their envelope (a library's assert() on stderr has
# none: the 8.4.10 Myelin crash's last line)
_ERROR_KINDS = frozenset({"trt_error", "error_recorded", "internal_error", "app_error"})


def _version(build: Build) -> str | None:
    return ".".join(str(p) for p in build.trt_version) if build.trt_version else None


def _last(events: Sequence[E]) -> E | None:
    """The last of some events (``None`` when there is none)."""
    return events[-1] if events else None


def _total(events: Sequence[GraphOptTime | TacticsDone | EngineGenerated]) -> float | None:
    """The sum of the ``seconds`` of the events (``None`` when there is none)."""
    return math.fsum(e.seconds for e in events) if events else None


def summarize(
    build: Build,
    run: int | None = None,
    *,
    engine_build: int | None = None,
    times: Times | None = None,
    tactics: pd.DataFrame | Mapping[str, Any] | None = None,
    runs_table: bool = True,
) -> Summary:
    """Collect the summary of a parsed log.

    Args:
        build: the parsed log.
        run: which trtexec run to describe (0-based; negative counts from the end). Default:
            the last run. A file with several runs also gets a table of every run.
        engine_build: which engine build of that run to describe (0-based within the run;
            negative counts from the end; :attr:`Build.builds <trtlog.buildlog.Build.builds>`).
            Default: the last. A run with several builds (a program that calls
            ``build_serialized_network`` more than once) also gets a table of every build.
        times: an ``--exportTimes`` file of the same run, summarised under the performance.
            When it holds one array per run of the log (trtexec appends one per run), the
            array of the run described (``Summary.times_run`` says which).
        tactics: the ``tactics_frame()`` of the build summarized (the run's engine build, and
            the round that gave the engine when the builder tried several), when the caller
            has made it already, or its columns
            (:func:`trtlog.buildlog.tactics.tactic_columns` of the same build: ``trtlog
            report`` reads them without making the frame); by default summarize makes them.
            The tactic figures are counted from it, so it must be that frame.
        runs_table: ``False`` leaves the table of every run (``runs_table``,
            ``runs_differ_in``) empty. A caller that summarizes each run of a log in turn
            (the warehouse: one row per run) reads each run's own figures only, and the
            table in every summary would make its work runs x runs.

    Raises:
        IndexError: there is no such run or build.
        ValueError: ``tactics`` is not a tactics frame.

    Example:
        >>> from trtlog import parse_text
        >>> log = "[V] [TRT] Original: 9 layers\\n[V] [TRT] After vertical fusions: 4 layers\\n"
        >>> s = summarize(parse_text(log))
        >>> [(c.stage, c.layers) for c in s.layer_counts]
        [('Original', 9), ('vertical fusions', 4)]
    """
    table: list[RunRow] = []
    differ: list[str] = []
    n_runs = len(build.runs)
    if n_runs > 1:
        index = n_runs - 1 if run is None else run
        scope_run = build.for_run(index)
        if runs_table:
            table, differ = _runs_table(build)
    else:
        scope_run = build.for_run(run) if run is not None else build
    current = scope_run.runs[0] if scope_run.runs else None
    run_builds = build.builds_of_run(current.index if current is not None else None)
    chosen = _chosen_build(run_builds, engine_build)
    # the one decision of how the build described ended: the chosen build's, else the run's
    # last build's (a run's result line speaks for its last build)
    decided = outcome_of(build, chosen or (run_builds[-1] if run_builds else None))
    scope_build = scope_run
    builds_table: list[BuildRow] = []
    if chosen is not None:
        scope_build = build.for_build(chosen.index)
        builds_table = [
            _build_row(build.for_build(b.index), b, outcome_of(build, b).value) for b in run_builds
        ]
    rounds = scope_build.rounds if len(scope_build.rounds) > 1 else ()
    kept = next((r for r in rounds if r.kept), None)
    scope = scope_build.for_round(kept.index) if kept is not None else scope_build
    round_rows = [_round_summary(scope_build, r) for r in rounds]
    times_run: int | None = None
    per_run = split_runs(times, n_runs)
    if per_run is not None and current is not None:
        # one array per run (a sweep exporting to one file): the array of the run shown
        times, times_run = per_run[current.index], current.index

    index_ = scope.pass_index
    fusions = Counter(index_.of(e) or NO_PASS for e in scope.events_of(*FUSION_KINDS))
    qdq = _qdq_rows(scope)
    tactic_figures = _tactic_figures(scope, tactics)
    warnings, errors = _warnings_and_errors(scope_build)
    unrec = scope_build.of(Unrecognized)
    status: str | None = current.status if current is not None else None
    # a run that printed its &&&& RUNNING banner but no result line crashed or was cut off
    cut_off = current is not None and status is None and current.test is not None
    if cut_off:
        status = "no &&&& result line (crashed or cut off)"
    first_errors = [scope_build.text_of(e).splitlines()[0].strip() for e in errors[:3]]
    device = scope_run.device
    peak = max((e.gpu_mib or 0 for e in scope_build.of(MemoryStats)), default=0) or None
    in_use = [
        e.gpu_mib
        for e in scope_build.events_of("memory_change", "memory_snapshot")
        if isinstance(e, MemoryChange | MemorySnapshot)
        and not e.phase.startswith("TensorRT-managed")
    ]
    weights = [e for e in scope.of(PersistentMemory) if e.memory == "weights"]
    engine = scope_build.engine
    engine_layers = None if engine is None else len(engine.layers)
    engine_profile = None if engine is None else engine.profile
    built = [e for e in scope_build.of(EngineBuilt) if not e.loaded]
    loaded = [e for e in scope_build.of(EngineBuilt) if e.loaded]
    graph = scope_build.of(GraphBuildDone)
    built_size = _last(scope_build.of(EngineSize))
    loaded_size = _last(scope_build.of(EngineLoadSize))
    deserialized = _last(scope_build.of(EngineDeserialized))
    activation = _last(scope.of(ActivationMemory))
    found = scope_run.performances()
    return Summary(
        source=build.source.name,
        lines=build.line_count,
        runs=len(build.runs),
        run=current.index if current is not None else None,
        run_first_line=_first_line(build, current),
        run_last_line=current.last_line if current is not None else None,
        builds=max(len(run_builds), 1),
        build=chosen.number if chosen is not None else None,
        build_first_line=chosen.first_line if chosen is not None else None,
        build_last_line=chosen.last_line if chosen is not None else None,
        build_outcome=decided.value if chosen is not None else None,
        builds_table=builds_table,
        runs_table=table,
        runs_differ_in=differ,
        trt_version=_version(scope_run),
        product=scope_run.product,
        rtx_version=".".join(map(str, scope_run.rtx_version)) if scope_run.rtx_version else None,
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
        accuracy_failed=bool(scope_run.of(AccuracyFailed)),
        layer_counts=[
            StageCount(stage=e.stage, layers=e.layers, line=e.span[0]) for e in scope.of(LayerCount)
        ],
        fusions_by_pass=dict(fusions),
        passes=[PassRow(**{k: r[k] for k in PassRow.model_fields}) for r in pass_records(scope)],
        removals=len(scope._removal_events),
        qdq_events=sum(qdq.values()),
        qdq_by_kind=qdq,
        **tactic_figures,
        graph_seconds=graph[0].seconds if graph else None,
        graph_includes_optimization=bool(graph and graph[0].includes_optimization),
        graph_optimization_seconds=_total(scope_build.of(GraphOptTime)),
        tactic_selection_seconds=_total(scope_build.of(TacticsDone)),
        engine_generation_seconds=_total(scope_build.of(EngineGenerated)),
        engine_build_seconds=built[-1].seconds if built else None,
        engine_load_seconds=loaded[-1].seconds if loaded else None,
        engine_deserialize_seconds=deserialized.seconds if deserialized else None,
        engine_size_mib=(built_size.size_mib if built_size else None)
        or (loaded_size.size_mib if loaded_size else None),
        activation_memory_bytes=activation.bytes if activation else None,
        weights_memory_bytes=weights[-1].bytes if weights else None,
        peak_gpu_mib=peak,
        gpu_in_use_mib=max(in_use, default=0) or None,
        engine_layers=engine_layers,
        engine_time_ms=engine_profile.runs[0].total_ms
        if engine_profile is not None and engine_profile.runs
        else None,
        engine_profile=_profile_source(scope_build, engine_profile),
        performance=found[-1] if found else None,
        times=times_statistics(times) if times is not None else None,
        times_run=times_run,
        warnings=warnings,
        errors=len(errors),
        first_errors=first_errors,
        status=status,
        outcome=decided,
        stopped_after=_stopped_after(scope_run) if status == "failed" or cut_off else None,
        last_line=_last_line(scope_run) if status == "failed" or cut_off else None,
        unrecognized=len(unrec),
        unrecognized_enveloped=sum(1 for e in unrec if e.envelope is not None),
        events=scope_build.event_count,
    )


def _profile_source(build: Build, profile: Any) -> str | None:
    """Where the engine's layer times come from (the log's own table, said briefly)."""
    if profile is None:
        return None
    source: str = profile.source
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
    for e in build.of(AccuracyCheck):
        rows.append(
            AccuracyRow(
                tensor=e.tensor,
                pair=seen[e.tensor],
                metric=e.metric,
                value=e.value,
                threshold=e.threshold or default,
                verdict=e.verdict,
                line=e.span[0],
            )
        )
        seen[e.tensor] += 1
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


def _warnings_and_errors(build: Build) -> tuple[int, list[Event]]:
    """The number of warnings, and the errors (see :func:`_is_error`) in file order.

    Counted from the kinds and severities of the events (``Build.kind_rows``): only the
    kinds that hold an error are built.
    """
    warnings = 0
    error_kinds: list[str] = []
    for kind, _first, _last, severities in build.kind_rows():
        warnings += severities.count("warning")
        if (
            "error" in severities
            or "fatal" in severities
            or (kind in _ERROR_KINDS and None in severities)
        ):
            error_kinds.append(kind)
    return warnings, [e for e in build.events_of(*error_kinds) if _is_error(e)]


def _any_of(build: Build, classes: Sequence[type[EventBase]]) -> bool:
    """Whether the build has an event of one of ``classes`` (counted, not built)."""
    counts = build.counts()
    return any(counts.get(cls.model_fields["kind"].default) for cls in classes)


def _qdq_rows(build: Build) -> dict[str, int]:
    """The rows ``qdq_frame`` has for each kind (a Q/DQ fusion has one row per Q/DQ layer)."""
    counts: Counter[str] = Counter()
    for event in qdq_events(build.events_of(*QDQ_KINDS)):
        counts[event.kind] += len(event.sources) if event.kind == "fusion_into" else 1
    return dict(counts.most_common())


_TACTIC_EVENTS = (TacticTiming, TacticSkipped, TacticSkippedMemory, CachedTactic)


#: The columns of ``tactics_frame`` the tactic figures read.
_TACTIC_COLUMNS = ("layer", "skipped", "cached", "reformat")


def _tactic_figures(
    build: Build, frame: pd.DataFrame | Mapping[str, Any] | None = None
) -> dict[str, int]:
    """Tactics timed, cached, skipped and the layers timed, from the rows of ``tactics_frame``.

    ``tactics_timed`` are its rows measured in this build (not skipped, not from the timing
    cache), ``layers_timed`` the distinct ``layer`` values of its rows with a time (timed or
    cached; the ``Optimizer Reformat(...)`` layers of reformat timings among them, counted
    in ``reformat_layers_timed``). ``frame`` is that frame when the caller has it; otherwise
    the rows come from :func:`trtlog.buildlog.tactics.tactic_rows`, the columns the frame is
    made of, so ``trtlog summary`` loads no pandas.
    """
    runners = len(build.of(RunnerChoice)) + len(build.of(LegacyRunnerChoice))
    if not _any_of(build, _TACTIC_EVENTS):
        return {"runners_chosen": runners}
    if frame is None:
        rows = tactic_rows(build)
        layer, skipped, cached, reformat = rows.layer, rows.skipped, rows.cached, rows.reformat
    elif isinstance(frame, Mapping):
        if any(c not in frame for c in _TACTIC_COLUMNS):
            raise ValueError(
                "summarize(tactics=...) takes the build's tactic_columns(); these have no "
                + ", ".join(c for c in _TACTIC_COLUMNS if c not in frame)
            )
        return {**_column_figures(frame), "runners_chosen": runners}
    elif any(c not in frame.columns for c in _TACTIC_COLUMNS):
        raise ValueError(
            "summarize(tactics=...) takes the build's tactics_frame(); this frame has no "
            + ", ".join(c for c in _TACTIC_COLUMNS if c not in frame.columns)
        )
    elif all(frame[c].dtype == bool for c in _TACTIC_COLUMNS[1:]):
        # the frame's own columns (bool flags, a string layer): counted as columns, the same
        # figures as the rows below (nunique leaves missing layers out, as they are)
        flags = [frame[c].to_numpy() for c in _TACTIC_COLUMNS[1:]]
        skipped_rows, cached_rows, reformat_rows = flags
        timed_rows = ~skipped_rows
        names = frame["layer"]
        return {
            "tactics_timed": int((timed_rows & ~cached_rows).sum()),
            "tactics_cached": int((timed_rows & cached_rows).sum()),
            "tactics_skipped": int(skipped_rows.sum()),
            "layers_timed": int(names[timed_rows].nunique()),
            "reformat_layers_timed": int(names[timed_rows & reformat_rows].nunique()),
            "runners_chosen": runners,
        }
    else:
        layer, skipped, cached, reformat = (frame[c].tolist() for c in _TACTIC_COLUMNS)
    timed = [i for i, s in enumerate(skipped) if not s]
    # distinct layers as pandas' nunique() counts them: missing values (None, pd.NA) left out
    layers = {layer[i] for i in timed if isinstance(layer[i], str)}
    return {
        "tactics_timed": sum(1 for i in timed if not cached[i]),
        "tactics_cached": sum(1 for i in timed if cached[i]),
        "tactics_skipped": len(skipped) - len(timed),
        "layers_timed": len(layers),
        "reformat_layers_timed": len(
            {layer[i] for i in timed if reformat[i] and isinstance(layer[i], str)}
        ),
        "runners_chosen": runners,
    }


def _column_figures(columns: Mapping[str, Any]) -> dict[str, int]:
    """The tactic figures from :func:`~trtlog.buildlog.tactics.tactic_columns` (no frame made).

    What the frame branch of :func:`_tactic_figures` counts: the distinct layers of the
    timed rows, missing ones left out, as the frame holds the texts.
    """
    import numpy as np

    skipped, cached, reformat = (
        column_array(columns[c], bool) for c in ("skipped", "cached", "reformat")
    )
    timed = ~skipped
    layer = columns["layer"]

    def distinct(rows: Any) -> int:
        texts = column_texts(column_take(layer, np.flatnonzero(rows)))
        return len({t for t in texts if t is not None})

    return {
        "tactics_timed": int((timed & ~cached).sum()),
        "tactics_cached": int((timed & cached).sum()),
        "tactics_skipped": int(skipped.sum()),
        "layers_timed": distinct(timed),
        "reformat_layers_timed": distinct(timed & reformat),
    }


def _runs_table(build: Build) -> tuple[list[RunRow], list[str]]:
    """The run table of a file of several runs, and the options that differ between them.

    Made once per build and kept with it: the warehouse summarizes every run of a file, and
    each summary shows the same table (a second walk per run would cost runs x events).
    """
    found = build.__dict__.get("_runs_table")
    if found is None:
        rows: list[RunRow] = []
        options: list[Options] = []
        for i in range(len(build.runs)):
            view = build.for_run(i)
            rows.append(_run_row(view))
            options.append(view.options)
            # a row and the options are all the table needs: the view (with what its row
            # computed on it) is let go, so memory holds one run's view at a time
            build.forget_views(run=i)
        found = (rows, _differences(options))
        put(build, "_runs_table", found)
    rows, differ = found
    return list(rows), list(differ)


def _chosen_build(builds: Sequence[EngineBuild], number: int | None) -> EngineBuild | None:
    """The build ``number`` (0-based within its run, negative from the end) of a run's builds.

    ``None`` for a run of one build when no number (or 0, or -1) is asked for.
    """
    if number is None:
        return builds[-1] if len(builds) > 1 else None
    if not -len(builds) <= number < max(len(builds), 1):
        raise IndexError(
            f"build {number} out of range: the run has {max(len(builds), 1)} engine build(s)"
        )
    return builds[number] if len(builds) > 1 else None


def _build_row(view: Build, b: EngineBuild, outcome: str) -> BuildRow:
    """The figures of one engine build.

    ``view`` is ``Build.for_build`` of it; ``outcome`` its
    :func:`~trtlog.summary.outcome.outcome_of`.
    """
    stages = view.of(LayerCount)
    graph = view.of(GraphBuildDone)
    size = _last(view.of(EngineSize)) or _last(view.of(EngineLoadSize))
    warnings, errors = _warnings_and_errors(view)
    return BuildRow(
        index=b.index,
        number=b.number,
        first_line=b.first_line,
        last_line=b.last_line,
        outcome=outcome,
        first_stage=_stage(stages[0]) if stages else None,
        last_stage=_stage(stages[-1]) if stages else None,
        rounds=max(len(view.rounds), 1),
        graph_seconds=graph[0].seconds if graph else None,
        graph_optimization_seconds=_total(view.of(GraphOptTime)),
        tactic_selection_seconds=_total(view.of(TacticsDone)),
        engine_generation_seconds=_total(view.of(EngineGenerated)),
        engine_size_mib=size.size_mib if size else None,
        warnings=warnings,
        errors=len(errors),
    )


def _round_summary(build: Build, r: Any) -> RoundSummary:
    events = build.events_between(r.first_line, r.last_line)
    stages = [e for e in events if isinstance(e, LayerCount)]

    activation = [e.bytes for e in events if isinstance(e, ActivationMemory)]
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
        graph_optimization_seconds=_total([e for e in events if isinstance(e, GraphOptTime)]),
        tactic_selection_seconds=_total([e for e in events if isinstance(e, TacticsDone)]),
        engine_generation_seconds=_total([e for e in events if isinstance(e, EngineGenerated)]),
        activation_memory_bytes=activation[-1] if activation else None,
    )


def _stage(event: LayerCount) -> StageCount:
    return StageCount(stage=event.stage, layers=event.layers, line=event.span[0])


def inference_shape(options: Options) -> tuple[str | None, str | None]:
    """A run's ``Batch:`` option (implicit batch, 7.x) and inference shapes (``x:4x1x28x28``).

    What the summary's run table shows and the warehouse's ``batch`` and ``shapes`` hold.
    """
    batch = options.get("Batch", "Inference") or options.get("Max batch", "Build")
    shapes = [s for s in options.shapes if s.phase == "inference" and not s.model]
    text = ",".join(f"{s.tensor}:{'x'.join(map(str, s.dims or s.opt_dims or ()))}" for s in shapes)
    return batch, text or None


def _run_row(build: Build) -> RunRow:
    run = build.runs[0]
    options = build.options
    found = build.performances()
    perf = found[-1] if found else None

    def median(metric: str) -> float | None:
        stats = perf.latency.get(metric) if perf is not None else None
        return stats.median_ms if stats is not None else None

    engine: list[Any] = build.events_of("engine_built")
    batch, shapes = inference_shape(options)
    return RunRow(
        index=run.index,
        first_line=1 if run.index == 0 else run.first_line,
        last_line=run.last_line,
        status=run.status,
        outcome=outcome_of(build).value,
        model=options.model,
        precision=options.precision,
        batch=batch,
        shapes=shapes,
        engine_seconds=engine[-1].seconds if engine else None,
        engine_loaded=bool(engine and engine[-1].loaded),
        throughput_qps=perf.throughput_qps if perf is not None else None,
        latency_median_ms=median("Latency"),
        gpu_compute_median_ms=median("GPU Compute Time"),
        errors=sum(1 for e in build.events if _is_error(e)),
    )


def _differences(runs: list[Options]) -> list[str]:
    """The option labels whose values differ between runs (``Batch``, ``Prototxt``...).

    ``runs``: each run's options. Only labels every run printed: an option a run leaves out
    is unknown, not different.
    """
    labels: dict[str, None] = {}
    for options in runs:
        for block in options.blocks.values():
            labels.update(dict.fromkeys(block))
    out = []
    for label in labels:
        values = [options.get(label) for options in runs]
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
    # the footer, an empty message, text without an envelope
    found = _last_event(
        build, ("run_end", "log_line"), lambda _span, severity: severity is not None
    )
    if found is None:
        return None
    text = build.text_of(found).splitlines()[0].strip()
    return f"line {found.span[0]}: {clip(text, 100)}"


def _last_line(build: Build) -> str | None:
    """The log's last non-blank line when it is not a TensorRT message (a crash's text)."""
    found = _last_event(
        build, ("run_end",), lambda span, _severity: bool(build.lines_text(*span).strip())
    )
    if found is None or found.severity is not None:
        return None
    text = build.text_of(found).strip()
    return f"line {found.span[1]}: {clip(text.splitlines()[-1], 100)}"


class _Span(NamedTuple):
    """An event's lines and severity (what ``Build.text_of`` and the readers above read)."""

    span: tuple[int, int]
    severity: str | None = None


def _last_event(
    build: Build, skip: Sequence[str], keep: Callable[[tuple[int, int], str | None], bool]
) -> _Span | None:
    """The last event not of ``skip`` kinds that ``keep(span, severity)`` keeps.

    Read from the kinds and severities of the events (``Build.kind_rows``), none built: the
    last such event of each kind, the latest of those.
    """
    best: _Span | None = None
    for kind, firsts, lasts, severities in build.kind_rows():
        if kind in skip:
            continue
        for i in range(len(firsts) - 1, -1, -1):
            if best is not None and firsts[i] < best.span[0]:
                break  # every earlier event of this kind is before the best one
            span = (firsts[i], lasts[i])
            if keep(span, severities[i]):
                best = _Span(span, severities[i])
                break
    return best
