"""Frames over a comparison of two builds: one row per aligned step, one row per ONNX node.

Part of the view package :mod:`trtlog.frames` (pandas). Both frames are pure functions of a
:class:`~trtlog.diff.Comparison` with declared schemas (``diff`` and ``diff_onnx`` in
:data:`~trtlog.frames.SCHEMAS`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from trtlog.diff.summary import step_times
from trtlog.frames.schema import SCHEMAS, frame_from_records
from trtlog.names import is_qdq_node, is_weights_name, module_path
from trtlog.tensors import dims_text

if TYPE_CHECKING:
    from trtlog.diff import Comparison, LayerView

__all__ = ["diff_frame", "diff_onnx_frame"]

SCHEMAS.update(
    {
        "diff": {
            "step": "int64",
            "marker": "string",
            "index_a": "Int64",
            "index_b": "Int64",
            "name_a": "string",
            "name_b": "string",
            "type_a": "string",
            "type_b": "string",
            "precision_a": "string",
            "precision_b": "string",
            "shape_a": "string",
            "shape_b": "string",
            "tactic_a": "UInt64",
            "tactic_b": "UInt64",
            "kernel_a": "string",
            "kernel_b": "string",
            "module_a": "string",
            "module_b": "string",
            "reasons": "string",
            "match": "string",
            "confidence": "float64",
            "why": "string",
            "group": "Int64",
            "repeated_a": "bool",
            "repeated_b": "bool",
            "time_a_ms": "float64",
            "time_b_ms": "float64",
            "delta_ms": "float64",
        },
        "diff_onnx": {
            "node": "string",
            "kind": "string",
            "module": "string",
            "index_a": "Int64",
            "layer_a": "string",
            "layers_a": "int64",
            "index_b": "Int64",
            "layer_b": "string",
            "layers_b": "int64",
            "precision_a": "string",
            "precision_b": "string",
            "time_a_ms": "float64",
            "time_b_ms": "float64",
            "fusion": "string",
            "group": "Int64",
        },
    }
)


def _nan(value: float | None) -> float:
    return float("nan") if value is None else value


def diff_frame(cmp: Comparison) -> pd.DataFrame:
    """One row per step of the alignment, in row order.

    Columns: ``step``, ``marker`` (``=``, ``~``, ``-``, ``+``), ``index_a``/``index_b``,
    ``name_*``, ``type_*``, ``precision_*``, ``shape_*`` (first output, ``1x64x56x56``),
    ``tactic_*``, ``kernel_*`` (the tactic's kernel name), ``module_*`` (deepest ONNX module
    of the layer's nodes), ``reasons`` (``; ``-joined, for ``~``), ``match`` and
    ``confidence`` (how a pair was matched: ``name``, ``structure``, ``shape``, ``position``;
    see :class:`~trtlog.diff.Step`), ``why`` (why a one-sided layer found no counterpart),
    ``group`` (the fusion group), ``repeated_a``/``repeated_b``
    (the layer already appeared on an earlier row: a layer split over several rows), and
    ``time_a_ms``/``time_b_ms``/``delta_ms``: a layer's time on its first row only, so that
    the columns add up to each side's total and ``delta_ms`` to B's total minus A's.
    """
    records: list[dict[str, Any]] = []
    empty: dict[str, Any] = {
        "name": None,
        "type": None,
        "precision": None,
        "shape": None,
        "tactic": None,
        "kernel": None,
        "module": None,
    }

    def side(view: LayerView | None, suffix: str) -> dict[str, Any]:
        if view is None:
            return {f"{k}_{suffix}": v for k, v in empty.items()}
        return {
            f"name_{suffix}": view.name,
            f"type_{suffix}": view.type,
            f"precision_{suffix}": view.precision,
            f"shape_{suffix}": dims_text(view.shape) or None,
            f"tactic_{suffix}": view.tactic,
            f"kernel_{suffix}": view.tactic_name,
            f"module_{suffix}": view.module,
        }

    for s, (ta, tb, delta, rep_a, rep_b) in zip(cmp.steps, step_times(cmp), strict=True):
        va = cmp.layers_a[s.index_a] if s.index_a is not None else None
        vb = cmp.layers_b[s.index_b] if s.index_b is not None else None
        records.append(
            {
                "step": s.number,
                "marker": s.marker,
                "index_a": s.index_a,
                "index_b": s.index_b,
                **side(va, "a"),
                **side(vb, "b"),
                "reasons": "; ".join(s.reasons) or None,
                "match": s.match,
                "confidence": _nan(s.confidence),
                "why": s.why,
                "group": s.group,
                "repeated_a": rep_a,
                "repeated_b": rep_b,
                "time_a_ms": _nan(ta),
                "time_b_ms": _nan(tb),
                "delta_ms": _nan(delta),
            }
        )
    return frame_from_records("diff", records)


def _kind(node: str) -> str:
    if is_qdq_node(node):
        return "qdq"
    return "weights" if is_weights_name(node) else "node"


def diff_onnx_frame(cmp: Comparison) -> pd.DataFrame:
    """One row per ONNX node: the layer that holds it in A and in B.

    Columns: ``node``, ``kind`` (``node``, ``qdq``, ``weights``), ``module``, ``index_a`` and
    ``layer_a`` (the first A layer holding it), ``layers_a`` (how many A layers hold it),
    the same for B, ``precision_*`` and ``time_*_ms`` of those layers (a layer's time is
    shared by all its nodes), ``fusion``: ``same`` (fused alike), ``split``, ``merged`` or
    ``regrouped`` (its :class:`~trtlog.diff.FusionGroup` kind), ``only_a`` or ``only_b``;
    and ``group``. Nodes are in A's layer order, then B's nodes that A does not hold.

    ``frame.groupby("group")`` answers "these 7 nodes were one layer in A and 3 in B".
    """
    held_a: dict[str, list[int]] = {}
    held_b: dict[str, list[int]] = {}
    for views, held in ((cmp.layers_a, held_a), (cmp.layers_b, held_b)):
        for v in views:
            for n in v.onnx_nodes:
                held.setdefault(n, []).append(v.index)
    group_of: dict[str, tuple[int, str]] = {}
    for g in cmp.groups:
        for n in g.nodes:
            group_of[n] = (g.id, g.kind)
    records: list[dict[str, Any]] = []
    for node in dict.fromkeys([*held_a, *held_b]):
        in_a, in_b = held_a.get(node, []), held_b.get(node, [])
        va = cmp.layers_a[in_a[0]] if in_a else None
        vb = cmp.layers_b[in_b[0]] if in_b else None
        group = group_of.get(node)
        if not in_b:
            fusion = "only_a"
        elif not in_a:
            fusion = "only_b"
        else:
            fusion = group[1] if group else "same"
        records.append(
            {
                "node": node,
                "kind": _kind(node),
                "module": "/" + "/".join(module_path(node)),
                "index_a": va.index if va else None,
                "layer_a": va.name if va else None,
                "layers_a": len(in_a),
                "index_b": vb.index if vb else None,
                "layer_b": vb.name if vb else None,
                "layers_b": len(in_b),
                "precision_a": va.precision if va else None,
                "precision_b": vb.precision if vb else None,
                "time_a_ms": _nan(va.time_ms if va else None),
                "time_b_ms": _nan(vb.time_ms if vb else None),
                "fusion": fusion,
                "group": group[0] if group else None,
            }
        )
    return frame_from_records("diff_onnx", records)
