"""Models of trtexec's JSON exports: per-layer profiles and per-inference timing traces.

Part of the data model (pydantic only). ``--exportProfile`` (formats.md JSON-2) becomes a
:class:`Profile`, ``--exportTimes`` (JSON-1) a :class:`Times`. Models keep keys they do not
know (``extra="allow"``), so nothing a newer TensorRT writes is dropped. The loaders live in
:mod:`trtlog.parse.layer_info`.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "Profile",
    "ProfileRecord",
    "ProfileRun",
    "Times",
    "TimingRecord",
    "TimingRun",
]

_MODEL = ConfigDict(frozen=True, extra="allow", ser_json_inf_nan="constants")


class ProfileRecord(BaseModel):
    """One layer of an ``--exportProfile`` file.

    Attributes:
        name: the layer name as the profiler reports it (can differ from the layer JSON:
            ``[profile N]`` suffixes, Myelin kernel names, reformat names).
        time_ms: total time over all iterations (ms).
        average_ms: time per iteration (ms).
        median_ms: median time per iteration (ms), 8.4+; ``None`` before.
        percentage: share of the total layer time (%).
    """

    model_config = _MODEL

    name: str
    time_ms: float
    average_ms: float
    median_ms: float | None = None
    percentage: float


class ProfileRun(BaseModel):
    """One top-level array of a profile file (looped 7.x scripts append one per run).

    Attributes:
        iterations: the ``{"count": N}`` header, if present.
        records: the layers in execution order, zero-time layers included.
    """

    model_config = _MODEL

    iterations: int | None = None
    records: tuple[ProfileRecord, ...] = ()

    @property
    def total_ms(self) -> float:
        """Sum of the per-iteration averages (ms), i.e. the layer time of one inference."""
        return math.fsum(r.average_ms for r in self.records)


class Profile(BaseModel):
    """An ``--exportProfile`` file.

    Attributes:
        source: where it was read from.
        runs: one entry per top-level array (usually one).

    Example:
        >>> p = Profile(source="x", runs=(ProfileRun(iterations=10, records=(
        ...     ProfileRecord(name="a", time_ms=1.0, average_ms=0.1, percentage=100.0),)),))
        >>> p.iterations, p.records[0].name, p.has_median
        (10, 'a', False)
    """

    model_config = _MODEL

    source: str
    runs: tuple[ProfileRun, ...]

    @property
    def records(self) -> tuple[ProfileRecord, ...]:
        """The records of the first run (see ``runs`` for the others)."""
        return self.runs[0].records if self.runs else ()

    @property
    def iterations(self) -> int | None:
        """The iteration count of the first run."""
        return self.runs[0].iterations if self.runs else None

    @property
    def has_median(self) -> bool:
        """Whether the records carry ``medianMs`` (TensorRT 8.4+)."""
        return any(r.median_ms is not None for r in self.records)

    @property
    def total_ms(self) -> float:
        """Layer time of one inference in the first run (ms)."""
        return self.runs[0].total_ms if self.runs else 0.0


TimesKeys = Literal["7.0", "7.1", "8.0", "8.4"]


class TimingRecord(BaseModel):
    """One inference of an ``--exportTimes`` file, with version-independent field names.

    Times are milliseconds on the benchmark clock; ``*_start_ms``/``*_end_ms`` are absolute
    (6 significant digits, so prefer the durations, JSON-1), the others durations. Fields a
    version does not write are ``None``. The 7.1/7.2 files swap the enqueue and input values
    under their keys; the loader puts them back where they belong.

    Attributes:
        enqueue_start_ms: start of the enqueue call.
        enqueue_end_ms: end of the enqueue call.
        h2d_start_ms: start of the host-to-device (input) copy.
        h2d_end_ms: end of the host-to-device copy.
        compute_start_ms: start of GPU compute.
        compute_end_ms: end of GPU compute.
        d2h_start_ms: start of the device-to-host (output) copy.
        d2h_end_ms: end of the device-to-host copy.
        h2d_ms: input copy duration.
        compute_ms: GPU compute duration.
        d2h_ms: output copy duration.
        latency_ms: h2d + compute + d2h.
        end_to_end_ms: end-to-end host latency (≤ 8.2 only).
    """

    model_config = _MODEL

    enqueue_start_ms: float | None = None
    enqueue_end_ms: float | None = None
    h2d_start_ms: float | None = None
    h2d_end_ms: float | None = None
    compute_start_ms: float | None = None
    compute_end_ms: float | None = None
    d2h_start_ms: float | None = None
    d2h_end_ms: float | None = None
    h2d_ms: float | None = None
    compute_ms: float | None = None
    d2h_ms: float | None = None
    latency_ms: float | None = None
    end_to_end_ms: float | None = None


class TimingRun(BaseModel):
    """One top-level array of a times file.

    Attributes:
        keys: which key set the file uses (``7.0``, ``7.1`` (7.1-7.2), ``8.0`` (8.0-8.2),
            ``8.4`` (8.4+)).
        records: one per inference, in order.
    """

    model_config = _MODEL

    keys: TimesKeys
    records: tuple[TimingRecord, ...] = ()


class Times(BaseModel):
    """An ``--exportTimes`` file.

    Attributes:
        source: where it was read from.
        runs: one entry per top-level array (usually one).
    """

    model_config = _MODEL

    source: str
    runs: tuple[TimingRun, ...]

    @property
    def records(self) -> tuple[TimingRecord, ...]:
        """The records of the first run (see ``runs`` for the others)."""
        return self.runs[0].records if self.runs else ()
