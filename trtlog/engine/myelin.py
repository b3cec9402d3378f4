"""Myelin groups: the kernels of a Myelin region gathered under the region they belong to.

Part of the engine package (pydantic only). A default build shows a Myelin region as one
``{ForeignNode[...]}`` layer; a ``--profilingVerbosity=detailed`` 10.x build lists its
kernels (``kgen``, ``gemm``...), named after the region's graph
(:func:`trtlog.names.parse_kernel_name`). :func:`myelin_groups` puts the two views of a region
side by side.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from trtlog.engine.model import Engine, EngineLayer, total_of

__all__ = ["MyelinGroup", "engine_groups", "myelin_groups"]


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

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")

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
        label = self.region or f"Myelin graph {self.graph}"
        if not self.kernels:
            return f"{label}: one engine layer (a default build shows a Myelin region whole)"
        types = ", ".join(
            f"{n} {t}" for t, n in sorted(self.kernel_types.items(), key=lambda kv: -kv[1])
        )
        return (
            f"{label}: {len(self.kernels)} kernels ({types}) — the same region a default build "
            "shows as one {ForeignNode[...]} layer; --profilingVerbosity=detailed lists its kernels"
        )


def myelin_groups(engine: Engine, regions: Sequence[str] | None = None) -> list[MyelinGroup]:
    """Myelin kernels grouped by region, and ``{ForeignNode[...]}`` layers as their own group.

    Explains why one build of a model "has 2 layers" and another "has 90": a detailed 10.x
    engine lists a Myelin region's kernels (``kgen``, ``gemm``, ...) where a default build
    shows one ``{ForeignNode[...]}`` layer. ``regions`` (default: ``engine.regions``) label the
    kernel groups, in graph order.
    """
    labels = list(regions if regions is not None else engine.regions)
    by_graph: dict[int, list[EngineLayer]] = {}
    loose: list[EngineLayer] = []
    groups: list[MyelinGroup] = []
    for layer in engine.layers:
        kernel = layer.myelin
        if kernel is not None:
            by_graph.setdefault(kernel.graph, []).append(layer)
        elif layer.is_myelin_kernel:
            loose.append(layer)
        elif layer.name.startswith("{ForeignNode[") or layer.type == "Myelin":
            groups.append(
                MyelinGroup(
                    graph=None,
                    region=layer.name,
                    kernels=tuple(layer.time.profile_names)
                    if layer.time and len(layer.time.profile_names) > 1
                    else (),
                    onnx_nodes=layer.onnx_nodes,
                    time_ms=layer.time.average_ms if layer.time else math.nan,
                )
            )
    if loose:
        by_graph.setdefault(-1, []).extend(loose)
    named = iter(labels)
    for graph, layers in sorted(by_graph.items()):
        times = [lay.time.average_ms for lay in layers if lay.time and lay.time.known]
        ops = {}
        for lay in layers:
            kernel = lay.myelin
            if kernel is not None and kernel.generated:
                ops[lay.name] = kernel.ops
        groups.append(
            MyelinGroup(
                graph=graph if graph >= 0 else None,
                region=next(named, None) if graph >= 0 else None,
                kernels=tuple(lay.name for lay in layers),
                kernel_types=dict(Counter(lay.type or "?" for lay in layers)),
                ops=ops,
                onnx_nodes=tuple(dict.fromkeys(n for lay in layers for n in lay.onnx_nodes)),
                time_ms=total_of(times) if times else math.nan,
            )
        )
    return groups


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
