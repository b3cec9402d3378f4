"""Myelin groups: the kernels of a Myelin region gathered under the region they belong to.

Part of the engine package (pydantic only). A default build shows a Myelin region as one
``{ForeignNode[...]}`` layer; a ``--profilingVerbosity=detailed`` 10.x build lists its
kernels (``kgen``, ``gemm``...), named after the region's graph
(:func:`trtlog.names.parse_kernel_name`). :func:`myelin_groups` puts the two views of a region
side by side.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import accumulate, compress, repeat
from operator import add
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from trtlog.engine.model import MYELIN_LAYER_TYPES, Engine, total_of
from trtlog.names import MyelinKernel, parse_kernel_name

__all__ = [
    "GroupValues",
    "MyelinGroup",
    "engine_groups",
    "group_summary",
    "group_values",
    "myelin_groups",
    "names_with",
]


class MyelinGroup(BaseModel):
    """The kernels of one Myelin region.

    Attributes:
        graph: the Myelin graph number (``_myl<graph>_`` in kernel names), ``None`` for a
            region the engine shows as one ``{ForeignNode[...]}`` layer.
        region: the ``{ForeignNode[...]}`` name when the engine (or profile) shows it.
        kernels: the layer names of the kernels, in execution order.
        kernel_types: how many kernels of each layer type (``kgen``, ``gemm``...).
        ops: for each generated kernel, the operations its name lists.
        onnx_nodes: the ONNX nodes the region computes (from kernel metadata).
        time_ms: the region's time per inference when the layers carry times (NaN otherwise).
    """

    model_config = ConfigDict(frozen=True, defer_build=True, ser_json_inf_nan="constants")

    graph: int | None
    region: str | None = None
    kernels: tuple[str, ...] = ()
    kernel_types: dict[str, int] = Field(default_factory=dict)
    ops: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    onnx_nodes: tuple[str, ...] = ()
    time_ms: float = math.nan

    @property
    def summary(self) -> str:
        """One sentence: what this group is and why it shows as many layers."""
        return group_summary(self.region, self.graph, self.kernels, self.kernel_types)


def group_summary(
    region: str | None, graph: int | None, kernels: Sequence[str], kernel_types: dict[str, int]
) -> str:
    """:attr:`MyelinGroup.summary` of a group's values (no model needed)."""
    label = region or f"Myelin graph {graph}"
    if not kernels:
        return f"{label}: one engine layer (a default build shows a Myelin region whole)"
    types = ", ".join(f"{n} {t}" for t, n in sorted(kernel_types.items(), key=lambda kv: -kv[1]))
    return (
        f"{label}: {len(kernels)} kernels ({types}) — the same region a default build "
        "shows as one {ForeignNode[...]} layer; --profilingVerbosity=detailed lists its kernels"
    )


def names_with(names: list[str], needles: Sequence[str]) -> list[int]:
    """The positions of the names holding any of ``needles`` (a few among many, say).

    Searched in the names joined (a C scan per needle), each hit found back by its offset.
    """
    joined = "\n".join(names)
    hits: list[int] = []
    for needle in needles:
        at = joined.find(needle)
        while at >= 0:
            hits.append(at)
            at = joined.find(needle, at + 1)
    if not hits:
        return []
    # name i ends at ends[i] (its line break included); a needle holds no line break, so
    # each hit lies inside one name
    ends = list(accumulate(map(add, map(len, names), repeat(1))))
    return sorted({bisect_right(ends, at) for at in hits})


#: The layer types that make a layer a Myelin group's (a kernel, a region).
_GROUPED_TYPES = MYELIN_LAYER_TYPES | {"Myelin"}


class GroupValues(NamedTuple):
    """A :class:`MyelinGroup`'s field values, before the model is made (see its fields)."""

    graph: int | None
    region: str | None
    kernels: tuple[str, ...]
    kernel_types: dict[str, int]
    ops: dict[str, tuple[str, ...]]
    onnx_nodes: tuple[str, ...]
    time_ms: float


def myelin_groups(engine: Engine, regions: Sequence[str] | None = None) -> list[MyelinGroup]:
    """Myelin kernels grouped by region, and ``{ForeignNode[...]}`` layers as their own group.

    Explains why one build of a model "has 2 layers" and another "has 90": a detailed 10.x
    engine lists a Myelin region's kernels (``kgen``, ``gemm``, ...) where a default build
    shows one ``{ForeignNode[...]}`` layer. ``regions`` (default: ``engine.regions``) label the
    kernel groups, in graph order.
    """
    out = []
    for g in group_values(engine, regions):
        values = g._asdict()
        if not g.kernel_types:  # a {ForeignNode[...]} layer: its kernel types and ops unset
            del values["kernel_types"], values["ops"]
        out.append(MyelinGroup(**values))
    return out


def group_values(engine: Engine, regions: Sequence[str] | None = None) -> list[GroupValues]:
    """:func:`myelin_groups` as :class:`GroupValues` (a report's thousands of regions)."""
    labels = list(regions if regions is not None else engine.regions)
    names, types, nodes, times, profile_names = _layer_columns(engine)
    by_graph: dict[int, list[int]] = {}
    loose: list[int] = []
    groups: list[GroupValues] = []
    kernels: dict[int, MyelinKernel] = {}
    # the layers that may belong (by type, or by a name with "_myl" or "{ForeignNode[" in it)
    maybe = set(compress(range(len(names)), map(_GROUPED_TYPES.__contains__, types)))
    maybe.update(names_with(names, ("_myl", "{ForeignNode[")))
    for i in sorted(maybe):
        name, kind = names[i], types[i]
        kernel = parse_kernel_name(name)  # EngineLayer.myelin
        if kernel is not None:
            kernels[i] = kernel
            by_graph.setdefault(kernel.graph, []).append(i)
        elif kind in MYELIN_LAYER_TYPES and kind != "Myelin":  # EngineLayer.is_myelin_kernel
            loose.append(i)
        elif name.startswith("{ForeignNode[") or kind == "Myelin":
            time = times[i]
            groups.append(
                GroupValues(
                    None,
                    name,
                    profile_names(i),
                    {},
                    {},
                    nodes[i],
                    math.nan if time is None else time,
                )
            )
    if loose:
        by_graph.setdefault(-1, []).extend(loose)
    named = iter(labels)
    for graph, members in sorted(by_graph.items()):
        known = [t for i in members if (t := times[i]) is not None]
        ops = {}
        for i in members:
            found = kernels.get(i)
            if found is not None and found.generated:
                ops[names[i]] = found.ops
        groups.append(
            GroupValues(
                graph if graph >= 0 else None,
                next(named, None) if graph >= 0 else None,
                tuple(names[i] for i in members),
                dict(Counter(types[i] or "?" for i in members)),
                ops,
                tuple(dict.fromkeys(n for i in members for n in nodes[i])),
                total_of(known) if known else math.nan,
            )
        )
    return groups


def _layer_columns(
    engine: Engine,
) -> tuple[
    list[str],
    list[str | None],
    list[tuple[str, ...]],
    list[float | None],
    Callable[[int], tuple[str, ...]],
]:
    """Each layer's name, type, ONNX nodes and known time (``None``: the profile gave none).

    And a function of a layer's position: the profile records that time it, when several do
    (a region whose kernels the profile lists), else ``()``.
    """
    layers = engine.layers
    fields = [layer.__dict__ for layer in layers]  # (no attribute lookup each)
    times = [d["time"] for d in fields]

    def profile_names(i: int) -> tuple[str, ...]:
        time = times[i]
        return tuple(time.profile_names) if time and len(time.profile_names) > 1 else ()

    known: list[float | None] = []
    for time in times:
        ms = None if time is None else time.average_ms
        known.append(None if ms is None or ms != ms else ms)  # (NaN: LayerTime.known)
    return (
        [d["name"] for d in fields],
        [d["type"] for d in fields],
        [d["onnx_nodes"] for d in fields],
        known,
        profile_names,
    )


def engine_groups(
    engine: Engine, kind: Literal["myelin"] = "myelin", regions: Sequence[str] | None = None
) -> list[MyelinGroup]:
    """Layers grouped by ``kind`` (what ``Engine.groups`` returns; only ``"myelin"`` so far).

    Raises:
        ValueError: an unknown kind.
    """
    if kind != "myelin":
        raise ValueError(f"unknown group kind {kind!r}; known: 'myelin'")
    return myelin_groups(engine, regions)
