"""Every memory figure of a log, with its stage.

Part of the view package :mod:`trtlog.frames` (pandas). TensorRT reports memory in many shapes
(formats.md §B.7, §B.8, §H, §I.4): ``[MemUsageChange]`` deltas and totals per phase, snapshots,
allocator statistics, the block assignment, activation, persistent and scratch memory, memory
per layer, engine sizes and the runtime's verbose figures. :func:`memory_frame` puts them in one
long table, sizes in bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from trtlog.buildlog.memory import MEMORY_SCHEMA, memory_records
from trtlog.frames.schema import SCHEMAS, frame_from_records

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = ["memory_frame"]

SCHEMAS["memory"] = MEMORY_SCHEMA


def memory_frame(build: Build) -> pd.DataFrame:
    """One row per memory figure, in log order.

    Columns: ``line``, ``run`` (the trtexec run), ``stage`` (the ``[MemUsageChange]`` phase as
    printed — ``Init CUDA``, ``Init builder kernel library``... —, or ``block assignment``,
    ``engine``, ``layers``, ``runtime``, ``serialization``, ``allocators``), ``kind`` (the event),
    ``metric`` (``cpu``/``gpu`` totals and ``cpu_delta``/``gpu_delta`` of a phase,
    ``activation``, ``host_persistent``, ``device_persistent``, ``scratch``, ``weights``,
    ``engine_created``...), ``layer`` (per-layer figures), ``bytes`` and ``mib``. Figures TensorRT
    prints in MiB become exact bytes (``x 2**20``).
    """
    return frame_from_records("memory", memory_records(build))
