"""The Overview's figures: layer time, performance, a cut-off log, the reference headline.

The layer time named once, the run's throughput and latency as a figure, where a cut-off
log ends, and this build side by side with a reference. Part of the report package (called
by :mod:`trtlog.html.data`, rendered by the ``overview.html.j2`` template). Pure functions
of the summary, the engine and the performance the rest of trtlog computes; no figure is
computed a second way here, only chosen, scaled for the drawing and named once.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from trtlog._display import number

if TYPE_CHECKING:
    from trtlog.buildlog.performance import Performance
    from trtlog.engine.model import Engine
    from trtlog.summary.model import Summary

__all__ = ["PERF_WIDTH", "cut_off", "layer_time", "performance_figure", "versus"]

#: The width, in pixels, of the range strip drawn for each latency metric.
PERF_WIDTH = 320


def layer_time(summary: Summary | None, engine: Engine | None) -> dict[str, Any] | None:
    """The engine's layer time per inference: one figure, one name, and where it comes from.

    The profile the page's Layers section uses (the engine's) is the figure; the log's own
    ``--dumpProfile`` table, when it is another profile and gives another total, is named
    beside it rather than shown as a second "layer time".
    """
    total: float | None = None
    if engine is not None and engine.profile is not None:
        summed = engine.total_ms  # (a sum over the layers: read once)
        total = summed if summed == summed else None
    logged = summary.engine_time_ms if summary is not None else None
    if total is None or engine is None or engine.profile is None:
        if logged is None or summary is None:
            return None
        return {"ms": logged, "source": summary.engine_profile, "other": None}
    other = None
    if logged is not None and not math.isclose(logged, total, rel_tol=1e-3):
        other = f"{number(logged)} ms in {summary.engine_profile if summary else 'the log'}"
    return {"ms": total, "source": engine.profile.source, "other": other}


def cut_off(summary: Summary | None) -> dict[str, Any] | None:
    """Where a log that lacks trtexec's result line ends (crashed or cut off), or ``None``."""
    if summary is None or summary.status is None or not summary.status.startswith("no &&&&"):
        return None
    last = summary.run_last_line or summary.lines
    return {"line": last, "lines": summary.lines, "stopped_after": summary.stopped_after}


def performance_figure(perf: Performance | None) -> dict[str, Any] | None:
    """The run's throughput and latency statistics, scaled for the Overview's figure.

    One row per latency metric trtexec printed: its statistics as printed, and the x of
    each (min, median, mean, the highest percentile, max) on one scale shared by the rows
    (0 to the largest max), :data:`PERF_WIDTH` pixels wide.
    """
    if perf is None or (perf.throughput_qps is None and not perf.latency):
        return None
    stats = list(perf.latency.values())  # in the order trtexec printed them
    top = max((s.max_ms for s in stats if s.max_ms is not None), default=0.0) or 1.0

    def x(value: float | None) -> float | None:
        return None if value is None else round(PERF_WIDTH * value / top, 2)

    rows = []
    for s in stats:
        high = s.percentiles[-1] if s.percentiles else None
        parts = [("median", s.median_ms), ("mean", s.mean_ms)]
        if high is not None:
            parts.append((f"p{high[0]:g}", high[1]))
        parts += [("min", s.min_ms), ("max", s.max_ms)]
        rows.append(
            {
                "metric": s.metric,
                "line": s.line,
                "text": ", ".join(f"{k} {number(v, 6)}" for k, v in parts if v is not None) + " ms",
                "min": x(s.min_ms),
                "max": x(s.max_ms),
                "median": x(s.median_ms),
                "mean": x(s.mean_ms),
                "high": x(high[1]) if high is not None else None,
            }
        )
    busy = None
    if perf.gpu_compute_s is not None and perf.host_walltime_s:
        busy = 100 * perf.gpu_compute_s / perf.host_walltime_s
    latency = perf.latency.get("Latency")
    return {
        "line": perf.first_line,
        "throughput": number(perf.throughput_qps, 6) if perf.throughput_qps is not None else None,
        "latency": number(latency.median_ms, 6)
        if latency is not None and latency.median_ms is not None
        else None,
        "busy": f"{busy:.1f}" if busy is not None else None,
        "scale": number(top, 4),
        "width": PERF_WIDTH,
        "rows": rows,
    }


def _figures(summary: Summary | None, engine: Engine | None) -> dict[str, float | None]:
    perf = summary.performance if summary is not None else None
    latency = perf.latency.get("Latency") if perf is not None else None
    layers: float | None = None
    if engine is not None:
        layers = float(len(engine.layers))
    elif summary is not None and summary.engine_layers is not None:
        layers = float(summary.engine_layers)
    timed = layer_time(summary, engine)
    return {
        "latency": latency.median_ms if latency is not None else None,
        "throughput": perf.throughput_qps if perf is not None else None,
        "layer_time": timed["ms"] if timed is not None else None,
        "size": summary.engine_size_mib if summary is not None else None,
        "build": summary.engine_build_seconds if summary is not None else None,
        "layers": layers,
    }


#: The headline's rows: key, label, unit, whether more is better (``None``: neither), and
#: whether the row shows when neither side has the figure (the five a reader looks for).
_VERSUS: tuple[tuple[str, str, str, bool | None, bool], ...] = (
    ("latency", "latency (median)", "ms", False, True),
    ("throughput", "throughput", "qps", True, True),
    ("layer_time", "engine layer time", "ms", False, False),
    ("size", "engine size", "MiB", False, True),
    ("build", "build time", "s", False, True),
    ("layers", "engine layers", "", None, True),
)


def versus(
    summary: Summary | None,
    engine: Engine | None,
    ref_summary: Summary | None,
    ref_engine: Engine | None,
) -> list[dict[str, Any]]:
    """This build against the reference, row by row.

    The five headline figures always, the engine layer time when a side has it. Each row:
    ``label``, ``this`` and ``reference`` (text with the unit, an en dash when missing),
    ``change`` (``+12.5%``, or ``""``) and ``verdict`` (``better``, ``worse`` or ``""``).
    """
    mine, theirs = _figures(summary, engine), _figures(ref_summary, ref_engine)
    rows = []
    for key, label, unit, more_is_better, always in _VERSUS:
        a, b = mine[key], theirs[key]
        if a is None and b is None and not always:
            continue
        change, verdict = "", ""
        if a is not None and b is not None and b != 0:
            rel = (a - b) / abs(b)
            change = f"{100 * rel:+.1f}%"
            # (half a percent: noise in a build time or a latency)
            if more_is_better is not None and abs(rel) >= 0.005:
                verdict = "better" if (rel > 0) == more_is_better else "worse"
        rows.append(
            {
                "key": key,
                "label": label,
                "this": _with_unit(a, unit, key),
                "reference": _with_unit(b, unit, key),
                "change": change,
                "verdict": verdict,
            }
        )
    return rows


def _with_unit(value: float | None, unit: str, key: str) -> str:
    if value is None:
        return "\u2013"
    text = str(int(value)) if key == "layers" else number(value, 6 if key == "throughput" else 4)
    return f"{text} {unit}".strip()
