"""The inference performance of a run: throughput, latency statistics and the profile table.

A view over runtime events (pydantic only): :func:`performances` assembles, for every run of a
log, the timing trace (formats.md §L.1, §L.2), the performance summary (the 8.0+ summary of
§L.4/§L.5 or the 7.x block of §L.3) and the per-layer profile table (§M) into one typed
:class:`Performance`. Metric names follow the 8.0+ summary; the 7.x block is mapped onto them
(``Host Latency`` → ``Latency``, its ``end to end`` values → ``End-to-End Host Latency``,
``GPU Compute`` → ``GPU Compute Time``). :func:`times_statistics` computes the same statistics
from an ``--exportTimes`` file. ``trtlog summary`` shows both (``Performance.text_lines``).

Example:
    >>> from trtlog import parse_text
    >>> b = parse_text(
    ...     "[08/20/2024-19:31:57] [I] === Performance summary ===\\n"
    ...     "[08/20/2024-19:31:57] [I] Throughput: 7329.45 qps\\n"
    ...     "[08/20/2024-19:31:57] [I] Latency: min = 0.13 ms, max = 0.69 ms, mean = 0.134 ms, "
    ...     "median = 0.134 ms, percentile(99%) = 0.135 ms\\n"
    ... )
    >>> perf = performance(b.events)
    >>> perf.throughput_qps, perf.latency["Latency"].percentile(99)
    (7329.45, 0.135)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field

from trtlog._display import number
from trtlog.buildlog.header import Run, derive_header
from trtlog.buildlog.rounds import RunIndex
from trtlog.engine.model import Profile, ProfileRecord, ProfileRun
from trtlog.events import (
    Event,
    EventBase,
    PerfBlock7x,
    PerfScalar,
    PerfStat,
    PerfStat7x,
    PerfSummaryHeader,
    PerfWarning,
    ProfileAuxStreamWarning,
    ProfileColumns,
    ProfileHeader,
    ProfileRow,
    RunStart,
    TraceAverage,
    TraceAverages,
    TraceProlog,
)
from trtlog.numbers import trtexec_percentile

if TYPE_CHECKING:
    from trtlog.engine.model import Times

__all__ = [
    "METRICS",
    "PERFORMANCE_EVENTS",
    "LatencyStats",
    "Performance",
    "PerformanceWarning",
    "ProfileLayer",
    "ProfileTable",
    "TimesSummary",
    "performance",
    "performances",
    "profile_from_events",
    "profile_of",
    "split_runs",
    "times_statistics",
]

# every event class `performances` reads besides RunStart (which splits runs); it skips
# every other event
PERFORMANCE_EVENTS: tuple[type[EventBase], ...] = (
    TraceProlog,
    TraceAverages,
    TraceAverage,
    PerfSummaryHeader,
    PerfStat,
    PerfScalar,
    PerfBlock7x,
    PerfStat7x,
    PerfWarning,
    ProfileHeader,
    ProfileColumns,
    ProfileAuxStreamWarning,
    ProfileRow,
)

# 7.x sub-headers → the 8.0+ metric their stat lines describe.
_METRIC_7X = {
    "Host Latency": "Latency",
    "Host latency": "Latency",
    "Enqueue Time": "Enqueue Time",
    "GPU Compute": "GPU Compute Time",
}


class LatencyStats(BaseModel):
    """The statistics of one metric (``Latency``, ``GPU Compute Time``...), in milliseconds.

    Attributes:
        metric: the 8.0+ metric name.
        min_ms: the minimum.
        max_ms: the maximum.
        mean_ms: the mean (the 7.x ``Enqueue Time`` block prints none).
        median_ms: the median.
        percentiles: ``(percent, ms)`` pairs in printed order.
        line: the line the statistics start on.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    metric: str
    min_ms: float | None = None
    max_ms: float | None = None
    mean_ms: float | None = None
    median_ms: float | None = None
    percentiles: tuple[tuple[float, float], ...] = ()
    line: int

    def percentile(self, percent: float) -> float | None:
        """The value at ``percent`` (``99`` for ``percentile(99%)``), if printed."""
        for p, ms in self.percentiles:
            if p == percent:
                return ms
        return None

    def describe(self) -> str:
        """The statistics on one line, as printed (6 significant digits).

        Example:
            >>> LatencyStats(metric="Latency", min_ms=0.13, median_ms=0.134,
            ...              percentiles=((99.0, 0.135),), max_ms=0.69, line=1).describe()
            'min 0.13, median 0.134, p99 0.135, max 0.69 ms'
        """
        parts = [
            f"{name} {number(value, 6)}"
            for name, value in (
                ("min", self.min_ms),
                ("mean", self.mean_ms),
                ("median", self.median_ms),
            )
            if value is not None
        ]
        parts += [f"p{p:g} {number(ms, 6)}" for p, ms in self.percentiles]
        if self.max_ms is not None:
            parts.append(f"max {number(self.max_ms, 6)}")
        return ", ".join(parts) + " ms"


class PerformanceWarning(BaseModel):
    """A ``* ...`` warning of the summary (§L.5).

    Attributes:
        warning: ``enqueue_bound``, ``h2d_bound``, ``d2h_bound``, ``unstable``,
            ``multi_stream`` or ``other``.
        text: the bullet text.
        hint: the advice printed under it.
        coefficient_of_variance: the percentage of the ``unstable`` warning.
        line: the line of the bullet.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    warning: str
    text: str
    hint: str | None = None
    coefficient_of_variance: float | None = None
    line: int


class ProfileLayer(BaseModel):
    """One row of the profile table.

    Attributes:
        layer: the layer name as printed.
        total_ms: the time over all profiled iterations.
        avg_ms: the average time per iteration.
        median_ms: the median time per iteration (8.4+).
        percent: the share of the total time.
        line: the row's line.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    layer: str
    total_ms: float
    avg_ms: float
    median_ms: float | None = None
    percent: float
    line: int


class ProfileTable(BaseModel):
    """The ``--dumpProfile`` table (§M).

    Attributes:
        iterations: the iterations profiled (``=== Profile (<n> iterations ) ===``).
        layout: ``7x``, ``8.4`` or ``8.6`` (from the column header), if it was printed.
        layers: the layer rows in printed order (8.6+ omits zero-time layers, T21).
        total: the ``Total`` row.
        aux_streams: the auxiliary streams of the engine warning (8.6+): the total may
            over-count overlapping layers.
        line: the line of the table header.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    iterations: int | None = None
    layout: Literal["7x", "8.4", "8.6"] | None = None
    layers: tuple[ProfileLayer, ...] = ()
    total: ProfileLayer | None = None
    aux_streams: int | None = None
    line: int

    def top(self, n: int = 10) -> list[ProfileLayer]:
        """The ``n`` layers with the largest total time, largest first."""
        return sorted(self.layers, key=lambda r: r.total_ms, reverse=True)[:n]

    @property
    def total_ms(self) -> float:
        """The ``Total`` row's time, or the sum of the rows when it is missing."""
        if self.total is not None:
            return self.total.total_ms
        return sum(r.total_ms for r in self.layers)


class Performance(BaseModel):
    """The measured performance of one run.

    Attributes:
        run: the index of its trtexec run in the file (``Build.runs``; 0 in a log without
            runs).
        first_line: the first line that contributed.
        format: ``8.x`` (``=== Performance summary ===``) or ``7.x`` (the ``Host Latency``
            block); ``None`` when only a trace or a profile table was printed.
        warmup_queries: queries run during the warm-up.
        warmup_s: the warm-up time.
        queries: queries in the timing trace.
        trace_s: the duration of the timing trace.
        trace_averages: how many ``Average on <n> runs`` lines were printed.
        trace_runs: how many inferences each of them averages.
        throughput_qps: ``Throughput`` (``throughput`` in 7.x).
        host_walltime_s: ``Total Host Walltime`` (``walltime`` in 7.x).
        gpu_compute_s: ``Total GPU Compute Time`` (``total compute time`` in 7.x).
        latency: metric → statistics.
        warnings: the summary's warnings.
        profile: the profile table, if printed.
    """

    model_config = ConfigDict(frozen=True, defer_build=True, ser_json_inf_nan="constants")

    run: int = 0
    first_line: int
    format: Literal["8.x", "7.x"] | None = None
    warmup_queries: int | None = None
    warmup_s: float | None = None
    queries: int | None = None
    trace_s: float | None = None
    trace_averages: int = 0
    trace_runs: int | None = None
    throughput_qps: float | None = None
    host_walltime_s: float | None = None
    gpu_compute_s: float | None = None
    latency: dict[str, LatencyStats] = Field(default_factory=dict)
    warnings: tuple[PerformanceWarning, ...] = ()
    profile: ProfileTable | None = None

    def text_lines(self) -> list[str]:
        """The performance as the lines of ``trtlog summary``.

        Throughput, every metric in trtexec's order, the GPU's share of the walltime, the
        warnings, the profile table.
        """
        out: list[str] = []

        def row(label: str, value: str) -> None:
            out.append(f"{label:<22}{value}")

        if self.throughput_qps is not None:
            trace = ""
            if self.queries is not None and self.trace_s is not None:
                trace = f" ({self.queries} queries in {number(self.trace_s, 6)} s)"
            row("throughput", f"{number(self.throughput_qps, 6)} qps{trace}")
        order = [*METRICS, *(m for m in self.latency if m not in METRICS)]
        for metric in order:
            stats = self.latency.get(metric)
            if stats is not None:
                out.append(f"{'':<2}{metric:<24}{stats.describe()}")
        if self.gpu_compute_s is not None and self.host_walltime_s is not None:
            utilization = self.gpu_utilization
            share = f" ({100 * utilization:.1f}% busy)" if utilization is not None else ""
            compute, wall = number(self.gpu_compute_s, 6), number(self.host_walltime_s, 6)
            walltime = f"{compute} s of {wall} s host walltime"
            row("  GPU compute total", walltime + share)
        for warning in self.warnings:
            text = f"line {warning.line}: {warning.text}"
            row("  perf warning", text if len(text) <= 100 else text[:99] + "…")
        if self.profile is not None:
            row(
                "  profile table",
                f"line {self.profile.line}: {len(self.profile.layers)} layers, "
                f"{self.profile.total_ms:g} ms over {self.profile.iterations} iterations",
            )
        return out

    @property
    def gpu_utilization(self) -> float | None:
        """``Total GPU Compute Time / Total Host Walltime`` (low means host-bound, §L.6)."""
        if self.gpu_compute_s is None or not self.host_walltime_s:
            return None
        return self.gpu_compute_s / self.host_walltime_s


#: The metrics of the summary, in trtexec's order: ``Latency`` is H2D + GPU compute + D2H per
#: query (the host latency), ``End-to-End Host Latency`` (8.0-8.2, 7.x) from enqueue to output.
METRICS = (
    "Latency",
    "End-to-End Host Latency",
    "Enqueue Time",
    "H2D Latency",
    "GPU Compute Time",
    "D2H Latency",
)

_SCALARS = {
    "Throughput": "throughput_qps",
    "throughput": "throughput_qps",
    "Total Host Walltime": "host_walltime_s",
    "walltime": "host_walltime_s",
    "Total GPU Compute Time": "gpu_compute_s",
    "total compute time": "gpu_compute_s",
}


class _Run:
    """The performance data of one run while the events go by."""

    def __init__(self, run: int) -> None:
        self.run = run
        self.data: dict[str, Any] = {"run": run, "trace_averages": 0}
        self.first_line: int | None = None
        self.latency: dict[str, dict[str, Any]] = {}
        self.warnings: list[PerformanceWarning] = []
        self.block: str | None = None  # the 7.x metric of the stat lines that follow
        self.profile: dict[str, Any] | None = None
        self.rows: list[ProfileLayer] = []

    def touch(self, line: int) -> None:
        if self.first_line is None:
            self.first_line = line

    def feed(self, ev: Event) -> None:
        line = ev.span[0]
        if isinstance(ev, TraceProlog):
            self.touch(line)
            if ev.phase == "warmup":
                self.data["warmup_queries"], self.data["warmup_s"] = ev.queries, ev.seconds
            else:
                self.data["queries"], self.data["trace_s"] = ev.queries, ev.seconds
        elif isinstance(ev, TraceAverages):
            self.touch(line)
            self.data["trace_runs"] = ev.runs
        elif isinstance(ev, TraceAverage):
            self.touch(line)
            self.data["trace_averages"] += 1
        elif isinstance(ev, PerfSummaryHeader):
            self.touch(line)
            self.data["format"] = "8.x"
        elif isinstance(ev, PerfStat):
            self.touch(line)
            self.data.setdefault("format", "8.x")
            self.latency[ev.metric] = {
                "metric": ev.metric,
                "min_ms": ev.min_ms,
                "max_ms": ev.max_ms,
                "mean_ms": ev.mean_ms,
                "median_ms": ev.median_ms,
                "percentiles": tuple(ev.percentiles),
                "line": line,
            }
        elif isinstance(ev, PerfScalar):
            self.touch(line)
            field = _SCALARS.get(ev.name)
            if field is not None:
                self.data[field] = ev.value
        elif isinstance(ev, PerfBlock7x):
            self.touch(line)
            self.data["format"] = "7.x"
            self.block = _METRIC_7X.get(ev.metric, ev.metric)
        elif isinstance(ev, PerfStat7x) and self.block is not None:
            self.stat_7x(ev, line)
        elif isinstance(ev, PerfWarning):
            self.touch(line)
            self.warnings.append(
                PerformanceWarning(
                    warning=ev.warning,
                    text=ev.text,
                    hint=ev.hint,
                    coefficient_of_variance=ev.coefficient_of_variance,
                    line=line,
                )
            )
        elif isinstance(ev, ProfileHeader | ProfileColumns | ProfileAuxStreamWarning):
            self.profile_line(ev, line)
        elif isinstance(ev, ProfileRow):
            if self.profile is None:
                self.profile_line(ev, line)
            row = ProfileLayer(
                layer=ev.layer,
                total_ms=ev.total_ms,
                avg_ms=ev.avg_ms,
                median_ms=ev.median_ms,
                percent=ev.percent,
                line=line,
            )
            if ev.is_total:
                assert self.profile is not None
                self.profile["total"] = row
            else:
                self.rows.append(row)

    def stat_7x(self, ev: PerfStat7x, line: int) -> None:
        assert self.block is not None
        stats = self.latency.setdefault(self.block, {"metric": self.block, "line": line})
        if ev.stat == "percentile":
            stats["percentiles"] = (*stats.get("percentiles", ()), (ev.percent, ev.ms))
        else:
            stats[f"{ev.stat}_ms"] = ev.ms
        if ev.end_to_end_ms is not None:
            e2e = self.latency.setdefault(
                "End-to-End Host Latency", {"metric": "End-to-End Host Latency", "line": line}
            )
            if ev.stat == "percentile":
                e2e["percentiles"] = (*e2e.get("percentiles", ()), (ev.percent, ev.end_to_end_ms))
            else:
                e2e[f"{ev.stat}_ms"] = ev.end_to_end_ms

    def profile_line(
        self, ev: ProfileHeader | ProfileColumns | ProfileAuxStreamWarning | ProfileRow, line: int
    ) -> None:
        self.touch(line)
        if self.profile is None or (isinstance(ev, ProfileHeader) and self.rows):
            # a second table in the same run replaces the first (the last one printed wins)
            self.profile, self.rows = {"line": line}, []
        if isinstance(ev, ProfileHeader):
            self.profile["iterations"] = ev.iterations
        elif isinstance(ev, ProfileColumns):
            self.profile["layout"] = ev.layout
        elif isinstance(ev, ProfileAuxStreamWarning):
            self.profile["aux_streams"] = ev.streams

    def result(self) -> Performance | None:
        if self.first_line is None:
            return None
        profile = None
        if self.profile is not None:
            profile = ProfileTable(**self.profile, layers=tuple(self.rows))
        return Performance(
            **self.data,
            first_line=self.first_line,
            latency={k: LatencyStats(**v) for k, v in self.latency.items()},
            warnings=tuple(self.warnings),
            profile=profile,
        )


def performances(events: Iterable[Event], runs: Sequence[Run] | None = None) -> list[Performance]:
    """The performance of every run of a log that printed some (in file order).

    Runs are the log's trtexec runs (``Build.runs``; derived from the events' ``&&&& RUNNING``
    banners when not given), a line belonging to a run as :class:`~trtlog.buildlog.rounds.RunIndex`
    says: ``Performance.run`` is the index of the run in the file. Runs that printed no trace,
    summary or profile table are left out.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[02/21/2021-22:49:52] [I] Host Latency\\n"
        ...                "[02/21/2021-22:49:52] [I] min: 1.99 ms (end to end 2.0 ms)\\n"
        ...                "[02/21/2021-22:49:52] [I] throughput: 479.452 qps\\n")
        >>> [(p.format, p.throughput_qps) for p in performances(b.events)]
        [('7.x', 479.452)]
    """
    events = events if isinstance(events, Sequence) else list(events)
    if runs is None:
        runs = derive_header(events, events[-1].span[1] if events else 0).runs
    index = RunIndex(runs)
    found: dict[int, _Run] = {}
    for ev in events:
        if isinstance(ev, RunStart):
            continue
        run = index.at(ev.span[0])
        number = run.index if run is not None else 0
        current = found.get(number)
        if current is None:
            current = found[number] = _Run(number)
        current.feed(ev)
    out = [r.result() for r in found.values()]
    return [p for p in out if p is not None]


def performance(events: Iterable[Event]) -> Performance | None:
    """The performance of the first run that printed some, or ``None``.

    Example:
        >>> performance([]) is None
        True
    """
    found = performances(events)
    return found[0] if found else None


class TimesSummary(BaseModel):
    """Statistics of an ``--exportTimes`` file (see :func:`times_statistics`).

    Attributes:
        source: the file.
        inferences: the records of its first run.
        metrics: ``Latency``, ``GPU Compute Time``, ``H2D Latency``, ``D2H Latency``,
            ``Enqueue Time``, ``End-to-End Host Latency``: the statistics of each duration
            the file holds, in milliseconds (percentiles 90, 95, 99).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    source: str
    inferences: int
    metrics: dict[str, LatencyStats] = Field(default_factory=dict)


X = TypeVar("X", bound="Profile | Times")


def split_runs(value: X | None, runs: int) -> list[X] | None:
    """An export with one array per run of its log, as one export per run (else ``None``).

    trtexec appends one array to ``--exportTimes``/``--exportProfile`` per run when a file's
    runs export to the same path (the 7.1 Jetson sweeps: 7 runs, 7 arrays). The arrays pair
    with the runs in order only when their counts match; otherwise ``None`` (the caller pairs
    the whole export with the run it names). The one pairing rule of ``summary --times``,
    the report and the warehouse.

    Example:
        >>> from trtlog.engine import Times, TimingRun, TimingRecord
        >>> run = lambda v: TimingRun(keys="8.4", records=(TimingRecord(compute_ms=v),))
        >>> t = Times(source="t.json", runs=(run(1.0), run(2.0)))
        >>> [p.records[0].compute_ms for p in split_runs(t, 2)], split_runs(t, 3)
        ([1.0, 2.0], None)
    """
    if value is None or runs < 2 or len(value.runs) != runs:
        return None
    return [cast(X, value.model_copy(update={"runs": (r,)})) for r in value.runs]


def times_statistics(times: Times) -> TimesSummary:
    """Statistics of an ``--exportTimes`` file's first run, per duration.

    ``Latency`` (H2D + compute + D2H, ``latencyMs``), ``GPU Compute Time`` (``computeMs``),
    ``H2D Latency``, ``D2H Latency``, ``Enqueue Time`` (end minus start of the enqueue
    call) and, up to 8.2, ``End-to-End Host Latency``: minimum, mean, median (the mean of
    the two middle values for an even count, as trtexec), percentiles 90, 95 and 99 (as
    trtexec computes them: :func:`trtlog.numbers.trtexec_percentile`, as
    ``times_stats_frame`` does) and maximum.

    Example:
        >>> from trtlog.engine import Times, TimingRun, TimingRecord
        >>> records = tuple(TimingRecord(compute_ms=float(v)) for v in range(1, 11))
        >>> run = TimingRun(keys="8.4", records=records)
        >>> s = times_statistics(Times(source="t.json", runs=(run,)))
        >>> stats = s.metrics["GPU Compute Time"]
        >>> stats.mean_ms, stats.median_ms, stats.percentile(90), stats.max_ms
        (5.5, 5.5, 9.0, 10.0)
    """
    records = times.records
    columns: dict[str, list[float]] = {}

    def add(metric: str, value: float | None) -> None:
        if value is not None and not math.isnan(value):
            columns.setdefault(metric, []).append(value)

    for r in records:
        add("Latency", r.latency_ms)
        add("End-to-End Host Latency", r.end_to_end_ms)
        if r.enqueue_start_ms is not None and r.enqueue_end_ms is not None:
            add("Enqueue Time", r.enqueue_end_ms - r.enqueue_start_ms)
        add("H2D Latency", r.h2d_ms)
        add("GPU Compute Time", r.compute_ms)
        add("D2H Latency", r.d2h_ms)
    metrics = {}
    for metric, values in columns.items():
        ordered = sorted(values)
        n = len(ordered)
        middle = n // 2
        median = ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2
        metrics[metric] = LatencyStats(
            metric=metric,
            min_ms=ordered[0],
            max_ms=ordered[-1],
            mean_ms=math.fsum(ordered) / n,
            median_ms=median,
            percentiles=tuple((float(p), trtexec_percentile(ordered, p)) for p in (90, 95, 99)),
            line=0,
        )
    return TimesSummary(source=times.source, inferences=len(records), metrics=metrics)


def profile_from_events(events: Sequence[Event], source: str) -> Profile | None:
    """The log's own ``--dumpProfile`` table as a :class:`Profile`, or ``None`` without one.

    The last table printed (a run that prints two keeps the second, as
    :func:`trtlog.buildlog.performance.performances` does); its ``Total`` row is not a layer.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text(
        ...     "[I] === Profile (10 iterations ) ===\\n"
        ...     "[I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer\\n"
        ...     "[I]        2.00       0.2000       0.2000     100.0   conv1\\n"
        ... )
        >>> p = profile_from_events(b.events, "x.log")
        >>> p.iterations, [(r.name, r.average_ms) for r in p.records]
        (10, [('conv1', 0.2)])
    """
    return profile_of(performances(events), source)


def profile_of(found: Sequence[Performance], source: str) -> Profile | None:
    """The ``--dumpProfile`` table of the last of ``found`` that printed one, as a Profile.

    ``found``: runs' performances (:func:`performances`); ``source``: the log's name.
    """
    tables = [p.profile for p in found if p.profile is not None]
    if not tables:
        return None
    table = tables[-1]
    records = tuple(
        ProfileRecord(
            name=row.layer,
            time_ms=row.total_ms,
            average_ms=row.avg_ms,
            median_ms=row.median_ms,
            percentage=row.percent,
        )
        for row in table.layers
    )
    return Profile(
        source=f"{source} (--dumpProfile, line {table.line})",
        runs=(ProfileRun(iterations=table.iterations, records=records),),
    )
