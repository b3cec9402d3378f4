"""What two builds compare as a whole: run and build figures, time by layer type and precision.

Part of the view package :mod:`trtlog.diff` (pydantic only). These figures need no layer
alignment: two logs without layer dumps still compare their throughput, latency, build time,
engine size and memory (each read by :func:`trtlog.summary.summarize`, the one place that
reads them), and two engines whose layers do not align still compare their time per layer
type and per precision (added up by :func:`trtlog.engine.model.time_by_key`, as every other
view adds them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from trtlog.engine.model import time_by_key

if TYPE_CHECKING:
    from trtlog.buildlog import Build
    from trtlog.diff.models import LayerView
    from trtlog.summary.model import Summary

__all__ = ["KeyTotal", "TotalRow", "key_totals", "run_totals"]

_FROZEN = ConfigDict(frozen=True)


class TotalRow(BaseModel):
    """One figure of each build (``throughput``, ``engine size``...).

    Attributes:
        metric: what is measured, as the summary names it.
        unit: ``qps``, ``ms``, ``s``, ``MiB`` or ``bytes``.
        a: A's value, ``None`` when A's log does not print it.
        b: B's value.
        better: whether a ``higher`` or a ``lower`` value is better.
    """

    model_config = _FROZEN

    metric: str
    unit: str
    a: float | None = None
    b: float | None = None
    better: Literal["higher", "lower"] = "lower"

    @property
    def delta(self) -> float | None:
        """B minus A, when both are known."""
        return None if self.a is None or self.b is None else self.b - self.a

    @property
    def ratio(self) -> float | None:
        """B over A, when both are known and A is not 0."""
        return None if self.a is None or self.b is None or not self.a else self.b / self.a


class KeyTotal(BaseModel):
    """Layers and time of one layer type (or precision) on each side.

    Attributes:
        key: the layer type or precision (``?`` when unknown).
        layers_a: A's layers of that key.
        layers_b: B's layers.
        time_a_ms: A's time per inference, ``None`` without a profile (or no timed layer).
        time_b_ms: B's time.
    """

    model_config = _FROZEN

    key: str
    layers_a: int = 0
    layers_b: int = 0
    time_a_ms: float | None = None
    time_b_ms: float | None = None


def key_totals(
    views_a: Sequence[LayerView], views_b: Sequence[LayerView], by: Literal["type", "precision"]
) -> tuple[KeyTotal, ...]:
    """Layers and time per layer type (or precision) of both sides, biggest time first.

    Example:
        >>> from trtlog.diff.models import LayerView
        >>> a = [LayerView(index=0, name="c", type="Conv", precision="FP16", time_ms=0.5)]
        >>> b = [LayerView(index=0, name="c", type="Conv", precision="INT8", time_ms=0.25)]
        >>> [(t.key, t.time_a_ms, t.time_b_ms) for t in key_totals(a, b, "precision")]
        [('FP16', 0.5, None), ('INT8', None, 0.25)]
    """
    found: dict[str, dict[str, object]] = {}
    for side, views in (("a", views_a), ("b", views_b)):
        keys = [getattr(v, by) for v in views]
        for key, layers, ms in time_by_key(keys, [v.time_ms for v in views]):
            entry = found.setdefault(key, {"key": key})
            entry[f"layers_{side}"] = layers
            entry[f"time_{side}_ms"] = ms
    rows = [KeyTotal.model_validate(e) for e in found.values()]
    rows.sort(
        key=lambda r: (
            -max(r.time_a_ms or 0.0, r.time_b_ms or 0.0),
            -max(r.layers_a, r.layers_b),
            r.key,
        )
    )
    return tuple(rows)


def _median(summary: Summary, metric: str) -> float | None:
    perf = summary.performance
    stats = perf.latency.get(metric) if perf is not None else None
    return stats.median_ms if stats is not None else None


def _figures(summary: Summary) -> list[tuple[str, str, float | None, Literal["higher", "lower"]]]:
    perf = summary.performance
    return [
        ("throughput", "qps", perf.throughput_qps if perf else None, "higher"),
        ("latency (median)", "ms", _median(summary, "Latency"), "lower"),
        ("GPU compute (median)", "ms", _median(summary, "GPU Compute Time"), "lower"),
        ("engine build", "s", summary.engine_build_seconds, "lower"),
        ("tactic selection", "s", summary.tactic_selection_seconds, "lower"),
        ("engine size", "MiB", summary.engine_size_mib, "lower"),
        ("activation memory", "bytes", _number(summary.activation_memory_bytes), "lower"),
        ("weights memory", "bytes", _number(summary.weights_memory_bytes), "lower"),
        ("peak GPU memory", "MiB", _number(summary.peak_gpu_mib), "lower"),
        ("layer time (profile)", "ms", summary.engine_time_ms, "lower"),
    ]


def _number(value: int | None) -> float | None:
    return None if value is None else float(value)


def run_totals(build_a: Build | None, build_b: Build | None) -> tuple[TotalRow, ...]:
    """The run and build figures either log prints, A's and B's side by side.

    Throughput and latency of the last trtexec run, build and tactic-selection time, engine
    size, activation and weights memory, peak GPU memory and the profiled layer time, each as
    ``trtlog summary`` reads it; figures neither side prints are left out.
    """
    if build_a is None and build_b is None:
        return ()
    from trtlog.summary.collect import summarize

    sides = [_figures(summarize(b)) if b is not None else None for b in (build_a, build_b)]
    names = next(s for s in sides if s is not None)
    rows = []
    for k, (metric, unit, _v, better) in enumerate(names):
        a = sides[0][k][2] if sides[0] is not None else None
        b = sides[1][k][2] if sides[1] is not None else None
        if a is not None or b is not None:
            rows.append(TotalRow(metric=metric, unit=unit, a=a, b=b, better=better))
    return tuple(rows)
