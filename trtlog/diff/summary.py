"""The summary of a comparison: counts, groups, precision and tactic changes, times.

Part of the view package :mod:`trtlog.diff` (pydantic only).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from trtlog.diff.models import (
    Comparison,
    ComparisonSummary,
    LayerView,
    ModuleDelta,
    PrecisionChange,
    TacticChange,
)
from trtlog.diff.totals import key_totals
from trtlog.names import cut_module, parse_kernel_name

__all__ = ["auto_module_depth", "step_times", "sum_known", "summarize_comparison"]

# trtlog.summary.summarize summarises a build; this one a comparison


# -- summary -------------------------------------------------------------------------------


def step_times(
    cmp: Comparison,
) -> list[tuple[float | None, float | None, float | None, bool, bool]]:
    """Per step: A's time, B's time, the delta, and whether A's / B's layer repeats a row.

    A layer split over several rows carries its time on its first row only (later rows say
    ``repeated``), so the deltas add up to B's total minus A's. The delta is ``None`` when a
    side has no time for the row.

    Example:
        >>> from trtlog.diff import compare_engines
        >>> from trtlog.engine import Engine, EngineLayer, LayerTime
        >>> def eng(*layers):
        ...     return Engine(source="x", origin="layer_json", detailed=False, layers=tuple(
        ...         EngineLayer(index=i, name=n, onnx_nodes=tuple(n.split(" + ")),
        ...                     onnx_source="name", time=LayerTime(average_ms=t))
        ...         for i, (n, t) in enumerate(layers)))
        >>> cmp = compare_engines(eng(("c + r", 0.5)), eng(("c", 0.25), ("r", 0.125)))
        >>> step_times(cmp)
        [(0.5, 0.25, -0.25, False, False), (None, 0.125, 0.125, True, False)]
    """
    seen_a: set[int] = set()
    seen_b: set[int] = set()
    out: list[tuple[float | None, float | None, float | None, bool, bool]] = []
    for s in cmp.steps:
        rep_a = s.index_a is not None and s.index_a in seen_a
        rep_b = s.index_b is not None and s.index_b in seen_b
        ta = cmp.layers_a[s.index_a].time_ms if s.index_a is not None else None
        tb = cmp.layers_b[s.index_b].time_ms if s.index_b is not None else None
        part_a = 0.0 if s.index_a is None or rep_a else ta
        part_b = 0.0 if s.index_b is None or rep_b else tb
        delta = None if part_a is None or part_b is None else part_b - part_a
        out.append((None if rep_a else ta, None if rep_b else tb, delta, rep_a, rep_b))
        if s.index_a is not None:
            seen_a.add(s.index_a)
        if s.index_b is not None:
            seen_b.add(s.index_b)
    return out


def _layer_counts(views: Sequence[LayerView]) -> dict[str, int]:
    return {
        "layers": len(views),
        "reformats": sum(v.reformat for v in views),
        "qdq": sum(v.qdq for v in views),
        # a region shown whole, or listed as its kernels (one region per Myelin graph)
        "myelin_regions": sum(v.myelin == "region" for v in views)
        + len({_graph(v.name) for v in views if v.myelin == "kernel"}),
        "myelin_kernels": sum(v.myelin == "kernel" for v in views),
    }


def _graph(name: str) -> int:
    kernel = parse_kernel_name(name)
    return kernel.graph if kernel is not None else -1


def sum_known(values: Iterable[float | None]) -> float | None:
    """The sum of the values that are not ``None`` (``None`` when all are)."""
    known = [v for v in values if v is not None]
    return math.fsum(known) if known else None


def auto_module_depth(views: Sequence[LayerView]) -> int:
    """The shallowest module depth that tells the layers apart (at least two modules).

    Example:
        >>> from trtlog.diff.models import LayerView
        >>> depth = auto_module_depth([LayerView(index=0, name="a", module="/model/backbone0/conv"),
        ...                       LayerView(index=1, name="b", module="/model/head/fc")])
        >>> depth
        2
    """
    for depth in range(1, 8):
        if len({cut_module(v.module, depth) for v in views if v.module != "/"}) >= 2:
            return depth
    return 1


def summarize_comparison(cmp: Comparison, module_depth: int | None = None) -> ComparisonSummary:
    """The :class:`ComparisonSummary` of a comparison (``cmp.summary()``).

    ``module_depth`` cuts module paths for the per-module times (``2``: ``/model/backbone0``);
    by default the shallowest depth that gives at least two modules.
    """
    la, lb = cmp.layers_a, cmp.layers_b
    if module_depth is None:
        module_depth = auto_module_depth([*la, *lb])
    changes: list[PrecisionChange] = []
    tactics: list[TacticChange] = []
    for s in cmp.steps:
        if s.index_a is None or s.index_b is None:
            continue
        va, vb = la[s.index_a], lb[s.index_b]
        for reason in s.reasons:
            if reason.startswith("precision "):
                before, _arrow, after = reason[len("precision ") :].partition("→")
                changes.append(
                    PrecisionChange(
                        step=s.number,
                        index_a=va.index,
                        index_b=vb.index,
                        name=vb.name,
                        before=before,
                        after=after,
                    )
                )
            elif reason == "tactic":
                tactics.append(
                    TacticChange(
                        step=s.number,
                        index_a=va.index,
                        index_b=vb.index,
                        name=vb.name,
                        tactic_a=va.tactic_name or f"0x{va.tactic or 0:016x}",
                        tactic_b=vb.tactic_name or f"0x{vb.tactic or 0:016x}",
                        time_a_ms=va.time_ms,
                        time_b_ms=vb.time_ms,
                    )
                )
    transitions = Counter(f"{c.before}→{c.after}" for c in changes)
    time_a = sum_known(v.time_ms for v in la)
    time_b = sum_known(v.time_ms for v in lb)
    modules: dict[str, list[Any]] = {}
    for views, k in ((la, 0), (lb, 1)):
        for v in views:
            entry = modules.setdefault(cut_module(v.module, module_depth), [0, 0, [], []])
            entry[k] += 1
            entry[2 + k].append(v.time_ms)
    deltas = []
    for name, (na, nb, ta_list, tb_list) in modules.items():
        ta = sum_known(ta_list) if time_a is not None else None
        tb = sum_known(tb_list) if time_b is not None else None
        if time_a is not None and ta is None:
            ta = 0.0
        if time_b is not None and tb is None:
            tb = 0.0
        deltas.append(
            ModuleDelta(
                module=name,
                layers_a=na,
                layers_b=nb,
                time_a_ms=ta,
                time_b_ms=tb,
                delta_ms=None if ta is None or tb is None else tb - ta,
            )
        )
    deltas.sort(
        key=lambda m: (
            -abs(m.delta_ms)
            if m.delta_ms is not None
            else -max(m.time_a_ms or 0.0, m.time_b_ms or 0.0),
            -abs(m.layers_b - m.layers_a),
            m.module,
        )
    )
    groups = cmp.groups
    failed = cmp.alignment_failed
    if failed:  # pairs of unrelated layers: their changes and modules say nothing
        changes, tactics, deltas, transitions = [], [], [], Counter()
    paired, possible = cmp.alignment()
    return ComparisonSummary(
        compared=(
            cmp.a.describe(),
            cmp.b.describe(),
            *(
                ()
                if not cmp.aligned
                else ("ONNX nodes from Metadata on both sides",)
                if cmp.node_source == "metadata"
                else ("ONNX nodes from the layer names",)
            ),
        ),
        node_source=cmp.node_source,
        names_only=cmp.aligned and not (cmp.a.detailed and cmp.b.detailed),
        layers_a=_layer_counts(la),
        layers_b=_layer_counts(lb),
        markers=cmp.markers(),
        split=tuple(g for g in groups if g.kind == "split"),
        merged=tuple(g for g in groups if g.kind == "merged"),
        regrouped=tuple(g for g in groups if g.kind == "regrouped"),
        precision_changes=tuple(changes),
        precision_transitions=dict(transitions.most_common()),
        tactic_changes=tuple(tactics),
        reformats_added=tuple(lb[j] for j in cmp.unmatched_b if lb[j].reformat or lb[j].qdq),
        reformats_removed=tuple(la[i] for i in cmp.unmatched_a if la[i].reformat or la[i].qdq),
        passes=cmp.passes,
        time_a_ms=time_a,
        time_b_ms=time_b,
        delta_ms=None if time_a is None or time_b is None else time_b - time_a,
        module_depth=module_depth,
        modules=tuple(deltas),
        matches=dict(Counter(s.match for s in cmp.steps if s.match is not None).most_common()),
        alignment_failed=failed,
        alignment_reason=cmp.alignment_reason,
        same_model=cmp.same_model,
        model_evidence=cmp.model_evidence,
        paired=paired,
        possible=possible,
        by_type=key_totals(la, lb, "type") if cmp.aligned else (),
        by_precision=key_totals(la, lb, "precision") if cmp.aligned else (),
        totals=cmp.totals,
        notes=cmp.notes,
    )
