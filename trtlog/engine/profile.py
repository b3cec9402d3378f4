"""Putting a profile's layer times on an engine's layers, tolerant of the names a profiler changes.

Part of the engine package (pydantic only): :func:`merge_profile` is what
``Engine.with_profile`` and ``trtlog.load_engine(..., profile=...)`` do.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from trtlog._pydantic import assemble
from trtlog.engine.model import Engine, EngineLayer, LayerTime, Profile, ProfileRecord, total_of
from trtlog.names import parse_kernel_name, split_name

__all__ = ["layer_times", "merge_profile", "record_time"]


_TIME_FIELDS_SET = frozenset(LayerTime.model_fields)
_LAYER_FIELDS_SET = frozenset(EngineLayer.model_fields)


def record_time(r: ProfileRecord, reason: str | None = None) -> LayerTime:
    """The time of a layer that one profile record times (``reason``: why it matched).

    Example:
        >>> from trtlog.engine.model import ProfileRecord
        >>> r = ProfileRecord(name="conv1", time_ms=2.0, average_ms=0.5, percentage=100.0)
        >>> record_time(r).average_ms
        0.5
    """
    data = {
        "average_ms": r.average_ms,
        "total_ms": r.time_ms,
        "median_ms": r.median_ms,
        "percentage": r.percentage,
        "profile_names": (r.name,),
        "reason": reason,
    }
    return assemble(LayerTime, data, {}, _TIME_FIELDS_SET)


def _time(records: Sequence[ProfileRecord], reason: str | None = None) -> LayerTime:
    if len(records) == 1:
        return record_time(records[0], reason)
    data = {
        "average_ms": total_of(r.average_ms for r in records),
        "total_ms": total_of(r.time_ms for r in records),
        "median_ms": None,
        "percentage": total_of(r.percentage for r in records),
        "profile_names": tuple(r.name for r in records),
        "reason": reason,
    }
    return assemble(LayerTime, data, {}, _TIME_FIELDS_SET)


def _strip_profile(name: str) -> str:
    if not name.endswith("]"):  # fast path: a [profile N] suffix ends the name
        return name
    parts = split_name(name)
    return parts.parts[0].text if parts.op == "profile" and parts.parts else name


def _no_time(reason: str) -> LayerTime:
    """The time of a layer the profile does not time: NaN, and why."""
    data = {
        "average_ms": math.nan,
        "total_ms": math.nan,
        "median_ms": None,
        "percentage": math.nan,
        "profile_names": (),
        "reason": reason,
    }
    return assemble(LayerTime, data, {}, {"reason"})


def _unmatched_notes(unmatched: list[str]) -> list[str]:
    if not unmatched:
        return []
    shown = ", ".join(repr(n) for n in unmatched[:5])
    more = f" and {len(unmatched) - 5} more" if len(unmatched) > 5 else ""
    return [f"{len(unmatched)} profile record(s) match no layer: {shown}{more}"]


def merge_profile(engine: Engine, profile: Profile) -> Engine:
    """The engine with each layer's time from ``profile`` (its first run).

    Matching, in order: the exact name (the k-th layer of a duplicated name takes the k-th
    record of that name); the name without a `` [profile N]`` suffix on either side; a
    ``{ForeignNode[...]}`` layer takes the sum of the Myelin kernel records (``*_myl<g>_<i>``)
    of one Myelin graph, graphs paired with regions in order. A layer without a record gets
    NaN times with a reason, never zero; a profile record that matches no layer is listed in
    the engine's notes. Layer percentages are the profile's, so they agree with the file.

    Example:
        >>> from trtlog.engine import Engine, EngineLayer, Profile, ProfileRun, ProfileRecord
        >>> eng = Engine(source="x", origin="layer_json", detailed=False,
        ...              layers=(EngineLayer(index=0, name="a"), EngineLayer(index=1, name="b")))
        >>> prof = Profile(source="p", runs=(ProfileRun(records=(
        ...     ProfileRecord(name="a", time_ms=2.0, average_ms=0.2, percentage=100.0),)),))
        >>> [(l.time.average_ms, l.time.reason) for l in merge_profile(eng, prof).layers]
        [(0.2, None), (nan, 'not in the profile')]
    """
    times, notes = layer_times([layer.name for layer in engine.layers], profile)
    layers = []
    for layer, time in zip(engine.layers, times, strict=True):
        data = layer.__dict__.copy()
        data["time"] = time
        layers.append(assemble(EngineLayer, data, layer.__pydantic_extra__, _LAYER_FIELDS_SET))
    return engine.model_copy(
        update={
            "layers": tuple(layers),
            "profile": profile,
            "notes": (*engine.notes, *notes),
        }
    )


def layer_times(names: Sequence[str], profile: Profile) -> tuple[list[LayerTime], list[str]]:
    """The time of each layer called ``names`` (in order), and the notes of what is left over.

    How :func:`merge_profile` matches the layers with the records; the notes list the records
    that match no layer.
    """
    records = list(profile.records)
    used = [False] * len(records)
    exact: dict[str, list[int]] = defaultdict(list)
    for i, record in enumerate(records):
        exact[record.name].append(i)

    def take(index: dict[str, list[int]], key: str) -> int | None:
        for i in index.get(key, ()):
            if not used[i]:
                used[i] = True
                return i
        return None

    times: list[LayerTime | None] = [None] * len(names)
    if len(exact) == len(records):  # fast path: no duplicated record name (the usual case)
        first = {name: hits[0] for name, hits in exact.items()}
        for li, name in enumerate(names):
            hit = first.get(name)
            if hit is not None and not used[hit]:
                used[hit] = True
                times[li] = record_time(records[hit])
    else:
        for li, name in enumerate(names):
            hit = take(exact, name)
            if hit is not None:
                times[li] = record_time(records[hit])
    # "None in times" would compare None with every LayerTime through pydantic's __eq__
    if any(t is None for t in times) and not all(used):
        stripped: dict[str, list[int]] = defaultdict(list)
        for i, record in enumerate(records):
            if not used[i]:
                stripped[_strip_profile(record.name)].append(i)
        for li, name in enumerate(names):
            if times[li] is None:
                hit = take(stripped, _strip_profile(name))
                if hit is not None:
                    times[li] = record_time(records[hit], "matched without its [profile N] suffix")
    regions = [
        li
        for li, name in enumerate(names)
        if times[li] is None and name.startswith("{ForeignNode[")
    ]
    graphs: dict[int, list[int]] = {}
    for i, record in enumerate(records):
        kernel = None if used[i] else parse_kernel_name(record.name)
        if kernel is not None:
            graphs.setdefault(kernel.graph, []).append(i)
    if regions and graphs:
        paired = len(regions) == 1 and len(graphs) == 1
        for li, (graph, members) in zip(regions, graphs.items(), strict=False):
            for i in members:
                used[i] = True
            how = "" if paired else f", paired with the region by order (graph {graph})"
            times[li] = _time(
                [records[i] for i in members],
                f"sum of {len(members)} Myelin kernel records{how}",
            )
    region_names = [r.name for i, r in enumerate(records) if r.name.startswith("{ForeignNode[")]
    found: list[LayerTime] = []
    for time, name in zip(times, names, strict=True):
        if time is None:
            reason = "not in the profile"
            if region_names and parse_kernel_name(name) is not None:  # EngineLayer.myelin
                reason = "the profile times the whole Myelin region, not its kernels"
            time = _no_time(reason)
        found.append(time)
    unmatched = [r.name for i, r in enumerate(records) if not used[i]]
    return found, _unmatched_notes(unmatched)
