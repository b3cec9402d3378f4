"""Frames over an engine: layers, tensor edges, profile, timing trace, module tree.

Part of the view package :mod:`trtlog.frames` (pandas). The same columns come out whether the
engine was read from a layer JSON or from a log's layer dump.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from trtlog.frames.schema import SCHEMAS, frame_from_records
from trtlog.layers import Profile, Times
from trtlog.numbers import format_tactic

if TYPE_CHECKING:
    from trtlog.engine import ModuleNode
    from trtlog.layers import Engine, EngineLayer

__all__ = ["layers_frame", "modules_frame", "profile_frame", "tensors_frame", "times_frame"]

SCHEMAS.update(
    {
        "layers": {
            "index": "int64",
            "name": "string",
            "type": "string",
            "parameter_type": "string",
            "precision": "string",
            "input_dtypes": "string",
            "output_dtypes": "string",
            "input_layouts": "string",
            "output_layouts": "string",
            "output_dims": "string",
            "n_inputs": "int64",
            "n_outputs": "int64",
            "tactic": "UInt64",
            "tactic_hex": "string",
            "tactic_name": "string",
            "stream_id": "Int64",
            "origin": "string",
            "is_reformat": "bool",
            "sparse_weights": "boolean",
            "myelin_graph": "Int64",
            "onnx_nodes": "object",
            "n_onnx_nodes": "int64",
            "onnx_source": "string",
            "module": "string",
            "time_ms": "float64",
            "total_ms": "float64",
            "median_ms": "float64",
            "percentage": "float64",
            "time_reason": "string",
        },
        "tensors": {
            "tensor": "string",
            "producer_index": "Int64",
            "producer": "string",
            "consumer_index": "Int64",
            "consumer": "string",
            "dtype": "string",
            "layout": "string",
            "vector_width": "Int64",
            "dims": "string",
            "element_bits": "Int64",
            "bytes": "Int64",
        },
        "profile": {
            "run": "int64",
            "index": "int64",
            "name": "string",
            "time_ms": "float64",
            "average_ms": "float64",
            "median_ms": "float64",
            "percentage": "float64",
        },
        "times": {
            "run": "int64",
            "index": "int64",
            "enqueue_start_ms": "float64",
            "enqueue_end_ms": "float64",
            "h2d_start_ms": "float64",
            "h2d_end_ms": "float64",
            "compute_start_ms": "float64",
            "compute_end_ms": "float64",
            "d2h_start_ms": "float64",
            "d2h_end_ms": "float64",
            "h2d_ms": "float64",
            "compute_ms": "float64",
            "d2h_ms": "float64",
            "latency_ms": "float64",
            "end_to_end_ms": "float64",
        },
        "modules": {
            "module": "string",
            "depth": "int64",
            "parent": "string",
            "layers": "int64",
            "own_layers": "int64",
            "onnx_nodes": "int64",
            "time_ms": "float64",
            "percentage": "float64",
            "precisions": "string",
        },
    }
)


def _join(values: Any) -> str | None:
    items = [str(v) for v in values if v is not None]
    return ",".join(items) if items else None


def _dims(dims: tuple[int, ...] | None) -> str | None:
    if dims is None:
        return None
    return "x".join(str(d) for d in dims) if dims else "scalar"


def _module(layer: EngineLayer) -> str:
    from trtlog.engine import module_path

    paths = [module_path(n) for n in layer.onnx_nodes]
    if not paths:
        return "/"
    common = paths[0]
    for other in paths[1:]:
        n = 0
        while n < min(len(common), len(other)) and common[n] == other[n]:
            n += 1
        common = common[:n]
    return "/" + "/".join(common)


def _sparse(layer: EngineLayer) -> bool | None:
    for key in ("HasSparseWeights", "ConvHasSparseWeights"):
        if key in layer.parameters:
            return bool(layer.parameters[key])
    return None


def layers_frame(engine: Engine) -> pd.DataFrame:
    """One row per engine layer, in execution order.

    Columns: ``index``, ``name``, ``type``, ``parameter_type``, ``precision`` (compute
    precision when the kernel or weights tell it, else the first output type),
    ``input_dtypes``/``output_dtypes``/``input_layouts``/``output_layouts`` (comma-joined),
    ``output_dims`` (``1x64x56x56``, first output), ``n_inputs``, ``n_outputs``, ``tactic``
    and ``tactic_hex``, ``tactic_name``, ``stream_id``, ``origin`` (reformats), ``is_reformat``,
    ``sparse_weights``, ``myelin_graph``, ``onnx_nodes`` (tuple), ``n_onnx_nodes``,
    ``onnx_source``, ``module`` (deepest module holding all its ONNX nodes), and from a merged
    profile ``time_ms`` (per inference), ``total_ms``, ``median_ms``, ``percentage``,
    ``time_reason`` (why a time is missing, or how it was matched).
    """
    records = []
    for layer in engine.layers:
        precision = layer.precision
        time = layer.time
        kernel = layer.myelin
        records.append(
            {
                "index": layer.index,
                "name": layer.name,
                "type": layer.type,
                "parameter_type": layer.parameter_type,
                "precision": precision.compute or next((t for t in precision.outputs if t), None),
                "input_dtypes": _join(precision.inputs),
                "output_dtypes": _join(precision.outputs),
                "input_layouts": _join(t.layout for t in layer.inputs),
                "output_layouts": _join(t.layout for t in layer.outputs),
                "output_dims": _dims(layer.outputs[0].dims) if layer.outputs else None,
                "n_inputs": len(layer.inputs),
                "n_outputs": len(layer.outputs),
                "tactic": layer.tactic,
                "tactic_hex": None if layer.tactic is None else format_tactic(layer.tactic),
                "tactic_name": layer.tactic_name or None,
                "stream_id": layer.stream_id,
                "origin": layer.origin,
                "is_reformat": layer.is_reformat,
                "sparse_weights": _sparse(layer),
                "myelin_graph": kernel.graph if kernel else None,
                "onnx_nodes": layer.onnx_nodes,
                "n_onnx_nodes": len(layer.onnx_nodes),
                "onnx_source": layer.onnx_source,
                "module": _module(layer),
                "time_ms": time.average_ms if time else math.nan,
                "total_ms": time.total_ms if time else math.nan,
                "median_ms": time.median_ms if time and time.median_ms is not None else math.nan,
                "percentage": time.percentage if time else math.nan,
                "time_reason": (time.reason if time else "no profile merged"),
            }
        )
    return frame_from_records("layers", records)


def tensors_frame(engine: Engine) -> pd.DataFrame:
    """One row per tensor edge: a producer layer's output read by a consumer layer.

    A tensor no layer reads (a network output) has one row with no consumer; a tensor no layer
    writes (a network input) one row per consumer with no producer. Columns: ``tensor``,
    ``producer_index``/``producer``, ``consumer_index``/``consumer``, ``dtype``, ``layout``,
    ``vector_width``, ``dims``, ``element_bits`` and ``bytes`` (dims x element size; ``<NA>``
    for dynamic or unknown dims).
    """
    producers: dict[str, tuple[int, str, Any]] = {}
    for layer in engine.layers:
        for tensor in layer.outputs:
            producers.setdefault(tensor.name, (layer.index, layer.name, tensor))
    consumed: set[str] = set()
    records = []

    def row(tensor: Any, producer: tuple[int, str, Any] | None, consumer: Any) -> dict[str, Any]:
        dims = tensor.dims
        size = None
        if dims is not None and tensor.element_bits and all(d >= 0 for d in dims):
            count = math.prod(dims)
            size = (count * tensor.element_bits + 7) // 8
        return {
            "tensor": tensor.name,
            "producer_index": producer[0] if producer else None,
            "producer": producer[1] if producer else None,
            "consumer_index": consumer.index if consumer is not None else None,
            "consumer": consumer.name if consumer is not None else None,
            "dtype": tensor.dtype,
            "layout": tensor.layout,
            "vector_width": tensor.vector_width,
            "dims": _dims(dims),
            "element_bits": tensor.element_bits,
            "bytes": size,
        }

    for layer in engine.layers:
        for tensor in layer.inputs:
            consumed.add(tensor.name)
            records.append(row(tensor, producers.get(tensor.name), layer))
    for name, producer in producers.items():
        if name not in consumed:
            records.append(row(producer[2], producer, None))
    return frame_from_records("tensors", records)


def profile_frame(profile: Profile | None) -> pd.DataFrame:
    """One row per profile record of every run.

    Columns: ``run``, ``index``, ``name``, ``time_ms``, ``average_ms``, ``median_ms`` (NaN
    before 8.4), ``percentage``.
    """
    records = []
    for run_index, run in enumerate(profile.runs if profile else ()):
        for i, r in enumerate(run.records):
            records.append(
                {
                    "run": run_index,
                    "index": i,
                    "name": r.name,
                    "time_ms": r.time_ms,
                    "average_ms": r.average_ms,
                    "median_ms": math.nan if r.median_ms is None else r.median_ms,
                    "percentage": r.percentage,
                }
            )
    return frame_from_records("profile", records)


_TIME_FIELDS = [c for c in SCHEMAS["times"] if c not in ("run", "index")]


def times_frame(times: Times | None) -> pd.DataFrame:
    """One row per inference of every run of a timing trace.

    The columns do not depend on the version; NaN for what a version does not write.
    """
    records = []
    for run_index, run in enumerate(times.runs if times else ()):
        for i, r in enumerate(run.records):
            record: dict[str, Any] = {"run": run_index, "index": i}
            for field in _TIME_FIELDS:
                value = getattr(r, field)
                record[field] = math.nan if value is None else value
            records.append(record)
    return frame_from_records("times", records)


def modules_frame(tree: ModuleNode) -> pd.DataFrame:
    """The module tree as rows, depth first.

    Columns: ``module`` (``/encoder/layers.0``), ``depth``,
    ``parent``, ``layers``, ``own_layers``, ``onnx_nodes``, ``time_ms``, ``percentage`` (of the
    root's time), ``precisions`` (``FP16:10,INT8:4``).
    """
    total = tree.time_ms
    records = []
    stack: list[tuple[ModuleNode, str | None]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        records.append(
            {
                "module": node.name,
                "depth": len(node.path),
                "parent": parent,
                "layers": node.layers,
                "own_layers": node.own_layers,
                "onnx_nodes": node.onnx_nodes,
                "time_ms": node.time_ms,
                "percentage": 100.0 * node.time_ms / total
                if total and not math.isnan(total)
                else math.nan,
                "precisions": _join(f"{k}:{v}" for k, v in sorted(node.precisions.items())),
            }
        )
        stack.extend((child, node.name) for child in reversed(node.children))
    return frame_from_records("modules", records)
