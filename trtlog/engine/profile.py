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

__all__ = ["exact_times", "layer_time", "merge_profile", "record_time"]


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


TimeValues = tuple[float, float, float, float, str | None]


def exact_times(
    names: Sequence[str], kernels: Sequence[bool], profile: Profile
) -> tuple[list[int | str], list[TimeValues], list[str]] | None:
    """What :func:`merge_profile` gives when exact names match every layer or every record.

    The loader's fast path (a profile written with its layer JSON matches name for name):
    ``names`` are the layer names in order, ``kernels`` whether each is a Myelin kernel
    (:attr:`EngineLayer.myelin`). Returns each layer's time (the index of its record, or why it
    has none: see :func:`layer_time`), the same as frame values ``(average_ms, total_ms,
    median_ms, percentage, reason)``, and the notes
    :func:`merge_profile` adds; ``None`` when its tolerant matching is needed (a duplicated
    record name, or layers and records both left over).
    """
    records = profile.records
    # each record's position by name; a record a layer takes leaves it (a second layer of the
    # same name then has none), so what is left are the records no layer matched, in order
    left = {r.__dict__["name"]: i for i, r in enumerate(records)}
    if len(left) != len(records):  # a duplicated record name
        return None
    nan = math.nan
    times: list[int | str | None] = []
    values: list[TimeValues | None] = []
    take = left.pop
    missing = 0
    for name in names:
        hit = take(name, None)
        if hit is not None:
            times.append(hit)
            r = records[hit].__dict__
            median = r["median_ms"]
            values.append((r["average_ms"], r["time_ms"], nan if median is None else median,
                           r["percentage"], None))  # fmt: skip
        else:
            times.append(None)
            values.append(None)
            missing += 1
    if missing:
        if left:
            return None
        regions = any(r.name.startswith("{ForeignNode[") for r in records)
        for i, (time, kernel) in enumerate(zip(times, kernels, strict=True)):
            if time is None:
                reason = "not in the profile"
                if kernel and regions:
                    reason = "the profile times the whole Myelin region, not its kernels"
                times[i] = reason
                values[i] = (nan, nan, nan, nan, reason)
    unmatched = list(left)
    # every None was replaced above
    return times, values, _unmatched_notes(unmatched)  # type: ignore[return-value]


def layer_time(profile: Profile, time: int | str) -> LayerTime:
    """A layer's time from :func:`exact_times`: that of a record (its index), or none (why)."""
    if isinstance(time, str):
        return LayerTime(reason=time)
    return record_time(profile.records[time])


def _unmatched_notes(unmatched: list[str]) -> list[str]:
    if not unmatched:
        return []
    shown = ", ".join(repr(n) for n in unmatched[:5])
    more = f" and {len(unmatched) - 5} more" if len(unmatched) > 5 else ""
    return [f"{len(unmatched)} profile record(s) match no layer: {shown}{more}"]


def merge_profile(engine: Engine, profile: Profile, *, in_place: bool = False) -> Engine:
    """The engine with each layer's time from ``profile`` (its first run).

    Matching, in order: the exact name (the k-th layer of a duplicated name takes the k-th
    record of that name); the name without a `` [profile N]`` suffix on either side; a
    ``{ForeignNode[...]}`` layer takes the sum of the Myelin kernel records (``*_myl<g>_<i>``)
    of one Myelin graph, graphs paired with regions in order. A layer without a record gets
    NaN times with a reason, never zero; a profile record that matches no layer is listed in
    the engine's notes. Layer percentages are the profile's, so they agree with the file.

    ``in_place=True`` sets the times on ``engine``'s own layer objects instead of copying them
    (a third of the merge time on a large engine); only for an engine nobody else holds yet,
    as :func:`trtlog.load_engine` does.

    Example:
        >>> from trtlog.engine import Engine, EngineLayer, Profile, ProfileRun, ProfileRecord
        >>> eng = Engine(source="x", origin="layer_json", detailed=False,
        ...              layers=(EngineLayer(index=0, name="a"), EngineLayer(index=1, name="b")))
        >>> prof = Profile(source="p", runs=(ProfileRun(records=(
        ...     ProfileRecord(name="a", time_ms=2.0, average_ms=0.2, percentage=100.0),)),))
        >>> [(l.time.average_ms, l.time.reason) for l in merge_profile(eng, prof).layers]
        [(0.2, None), (nan, 'not in the profile')]
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

    times: list[LayerTime | None] = [None] * len(engine.layers)
    if len(exact) == len(records):  # fast path: no duplicated record name (the usual case)
        first = {name: hits[0] for name, hits in exact.items()}
        for li, layer in enumerate(engine.layers):
            hit = first.get(layer.name)
            if hit is not None and not used[hit]:
                used[hit] = True
                times[li] = record_time(records[hit])
    else:
        for li, layer in enumerate(engine.layers):
            hit = take(exact, layer.name)
            if hit is not None:
                times[li] = record_time(records[hit])
    # "None in times" would compare None with every LayerTime through pydantic's __eq__
    if any(t is None for t in times) and not all(used):
        stripped: dict[str, list[int]] = defaultdict(list)
        for i, record in enumerate(records):
            if not used[i]:
                stripped[_strip_profile(record.name)].append(i)
        for li, layer in enumerate(engine.layers):
            if times[li] is None:
                hit = take(stripped, _strip_profile(layer.name))
                if hit is not None:
                    times[li] = record_time(records[hit], "matched without its [profile N] suffix")
    regions = [
        li
        for li, layer in enumerate(engine.layers)
        if times[li] is None and layer.name.startswith("{ForeignNode[")
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
    layers: list[EngineLayer] = []
    for li, layer in enumerate(engine.layers):
        time = times[li]
        if time is None:
            reason = "not in the profile"
            if layer.myelin is not None and region_names:
                reason = "the profile times the whole Myelin region, not its kernels"
            time = LayerTime(reason=reason)
        if in_place:  # frozen for users; this engine is still being built
            layer.__dict__["time"] = time
            layers.append(layer)
        else:
            data = layer.__dict__.copy()
            data["time"] = time
            layers.append(assemble(EngineLayer, data, layer.__pydantic_extra__, _LAYER_FIELDS_SET))
    unmatched = [r.name for i, r in enumerate(records) if not used[i]]
    notes = list(engine.notes) + _unmatched_notes(unmatched)
    return engine.model_copy(
        update={"layers": tuple(layers), "profile": profile, "notes": tuple(notes)}
    )
