"""Every memory figure of a log, with its stage, as rows (no pandas).

TensorRT reports memory in many shapes (formats.md §B.7, §B.8, §H, §I.4): ``[MemUsageChange]``
deltas and totals per phase, snapshots, allocator statistics, the block assignment,
activation, persistent and scratch memory, memory per layer, engine sizes and the runtime's
verbose figures. :func:`memory_records` puts them in one long table, sizes in bytes: the rows
of :func:`trtlog.frames.memory_frame`, which the report reads without making the frame.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = ["MEMORY_KINDS", "MEMORY_SCHEMA", "MIB", "memory_records"]

MIB = 1 << 20


_Row = tuple[str, str, float, str | None]

#: The kinds of event that hold memory figures (:func:`_rows` gives none for the others).
MEMORY_KINDS = (
    "memory_change",
    "memory_snapshot",
    "memory_stats",
    "block_size",
    "block_assignment_done",
    "activation_memory",
    "activation_reservation",
    "persistent_memory",
    "layer_memory",
    "engine_size",
    "engine_load_size",
    "runtime_memory_verbose",
    "cache_serialized",
)


def _rows(event: Any) -> list[_Row]:
    """``(stage, metric, bytes, layer)`` of one memory event (empty for other kinds)."""
    kind = event.kind
    if kind == "memory_change":
        return [
            (event.phase, "cpu_delta", event.cpu_delta_mib * MIB, None),
            (event.phase, "gpu_delta", event.gpu_delta_mib * MIB, None),
            (event.phase, "cpu", event.cpu_mib * MIB, None),
            (event.phase, "gpu", event.gpu_mib * MIB, None),
        ]
    if kind == "memory_snapshot":
        return [
            (event.phase, "cpu", event.cpu_mib * MIB, None),
            (event.phase, "gpu", event.gpu_mib * MIB, None),
        ]
    if kind == "memory_stats":
        stage = event.scope.replace("_", " ")
        out: list[_Row] = [(stage, "cpu", event.cpu_mib * MIB, None)]
        if event.gpu_mib is not None:
            out.append((stage, "gpu", event.gpu_mib * MIB, None))
        return out
    if kind == "block_size":
        return [("block assignment", "block", event.bytes, None)]
    if kind == "block_assignment_done":
        return [("block assignment", "assigned_blocks", event.bytes, None)]
    if kind == "activation_memory":
        return [("engine", "activation", event.bytes, None)]
    if kind == "activation_reservation":
        return [
            ("engine", "activation_host_reserved", event.host_bytes, None),
            ("engine", "activation_device_reserved", event.device_bytes, None),
        ]
    if kind == "persistent_memory":
        return [("engine", event.memory, event.bytes, None)]
    if kind == "layer_memory":
        out = [
            ("layers", "host_persistent", event.host_persistent_bytes, event.layer),
            ("layers", "device_persistent", event.device_persistent_bytes, event.layer),
        ]
        if event.scratch_bytes is not None:
            out.append(("layers", "scratch", event.scratch_bytes, event.layer))
        return out
    if kind == "engine_size":
        return [("engine", f"engine_{event.phase}", event.size_mib * MIB, None)]
    if kind == "engine_load_size":
        unit = MIB if event.unit == "MiB" else 1_000_000
        return [("engine", "engine_loaded", event.size_mib * unit, None)]
    if kind == "runtime_memory_verbose":
        return [("runtime", event.memory, event.bytes, None)]
    if kind == "cache_serialized" and event.bytes is not None:
        return [("serialization", f"{event.cache}_cache", event.bytes, None)]
    return []


#: The columns and dtypes of ``memory_frame``.
MEMORY_SCHEMA: dict[str, str] = {
    "line": "int64",
    "run": "Int64",
    "stage": "string",
    "kind": "string",
    "metric": "string",
    "layer": "string",
    "bytes": "Int64",
    "mib": "float64",
}


def memory_records(build: Build) -> list[dict[str, Any]]:
    """One record per memory figure, in log order: the rows of ``memory_frame``.

    Keys: those of :data:`MEMORY_SCHEMA` (see :func:`trtlog.frames.memory_frame`).
    """
    records: list[dict[str, Any]] = []
    for event in build.events_of(*MEMORY_KINDS):  # a lazy build builds only these
        rows = _rows(event)
        if not rows:
            continue
        line = event.span[0]
        found = build.run_of(event)
        run = None if found is None else found.index
        for stage, metric, size, layer in rows:
            # "nan MiB", "inf MiB" (trtexec prints what it computed): no byte count
            value = round(size) if math.isfinite(size) else None
            records.append(
                {
                    "line": line,
                    "run": run,
                    "stage": stage,
                    "kind": event.kind,
                    "metric": metric,
                    "layer": layer,
                    "bytes": value,
                    "mib": value / MIB if value is not None else size,
                }
            )
    return records
