"""Frames over an engine: layers, tensor edges, profile, timing trace, module tree.

Part of the view package :mod:`trtlog.frames` (pandas). The same columns come out whether the
engine was read from a layer JSON or from a log's layer dump.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from trtlog._pydantic import gc_paused
from trtlog.engine.footprint import bytes_by_key, tensor_bytes
from trtlog.engine.model import Profile, Times, total_of
from trtlog.engine.rows import LAYER_SCHEMA, join_known, layer_columns
from trtlog.frames.schema import SCHEMAS, frame_from_columns, frame_from_records
from trtlog.numbers import trtexec_percentile
from trtlog.tensors import dims_text

if TYPE_CHECKING:
    from trtlog.engine.model import Engine
    from trtlog.engine.modules import ModuleNode

__all__ = [
    "footprint_frame",
    "layers_frame",
    "modules_frame",
    "profile_frame",
    "tensors_frame",
    "times_frame",
    "times_stats_frame",
    "trtexec_percentile",
]

SCHEMAS["layers"] = LAYER_SCHEMA
SCHEMAS.update(
    {
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
        "footprint": {
            "key": "string",
            "layers": "int64",
            "weights_bytes": "Int64",
            "activation_bytes": "Int64",
            "largest_tensor": "string",
            "largest_tensor_bytes": "Int64",
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
        "times_stats": {
            "run": "int64",
            "measure": "string",
            "column": "string",
            "count": "int64",
            "mean_ms": "float64",
            "median_ms": "float64",
            "p90_ms": "float64",
            "p95_ms": "float64",
            "p99_ms": "float64",
            "min_ms": "float64",
            "max_ms": "float64",
            "total_ms": "float64",
        },
        "modules": {
            "module": "string",
            "depth": "int64",
            "parent": "string",
            "layers": "int64",
            "own_layers": "int64",
            "onnx_nodes": "int64",
            "time_ms": "float64",
            "split_ms": "float64",
            "percentage": "float64",
            "precisions": "string",
        },
    }
)


def _dims(dims: tuple[int, ...] | None) -> str | None:
    return None if dims is None else dims_text(dims)


@gc_paused()
def layers_frame(engine: Engine) -> pd.DataFrame:
    """One row per engine layer, in execution order.

    Columns: ``index``, ``name``, ``type``, ``parameter_type``, ``precision`` (the layer's
    precision, :func:`trtlog.engine.model.layer_precision`: the kernel's when its name or
    weights tell it, else its inputs' type, never an index or mask type when another is
    read), ``input_dtypes``/``output_dtypes`` (the types read and written, separate columns)
    and ``input_layouts``/``output_layouts`` (comma-joined),
    ``output_dims`` (``1x64x56x56``, first output), ``n_inputs``, ``n_outputs``, ``tactic``
    and ``tactic_hex``, ``tactic_name``, ``stream_id``, ``origin`` (reformats), ``is_reformat``,
    ``sparse_weights``, ``myelin_graph``, ``onnx_nodes`` (tuple), ``n_onnx_nodes``,
    ``onnx_source``, ``module`` (deepest module holding all its placed ONNX nodes; a
    reformat's is that of the layer it serves, see :func:`trtlog.engine.layer_modules`), and
    from a merged
    profile ``time_ms`` (per inference), ``total_ms``, ``median_ms``, ``percentage``,
    ``time_reason`` (why a time is missing, or how it was matched).
    """
    return frame_from_columns("layers", layer_columns(engine))


def footprint_frame(
    engine: Engine, by: Literal["type", "precision", "layer"] = "type"
) -> pd.DataFrame:
    """Weights and activation bytes per layer type, precision or layer, biggest first.

    ``key`` is the layer type, the precision (the layers frame's ``precision`` column) or,
    ``by="layer"``, the layer name. Columns: ``layers``, ``weights_bytes`` and
    ``activation_bytes`` (the sums of the layers frame's columns of the same names; see
    :mod:`trtlog.engine.footprint` for what they count), ``largest_tensor`` and
    ``largest_tensor_bytes`` (the biggest tensor the key's layers write). Sorted by weights
    plus activations. ``footprint_frame(e, "layer").head(10)`` lists the largest layers.

    Example:
        >>> from trtlog.engine import Engine, EngineLayer
        >>> from trtlog.tensors import Tensor
        >>> out = Tensor(name="t", dims=(1, 8), dtype="FP16", element_bits=16)
        >>> layer = EngineLayer(index=0, name="fc", type="Gemm", outputs=(out,),
        ...                     parameters={"Weights": {"Type": "Half", "Count": 64}})
        >>> engine = Engine(source="x", origin="layer_json", detailed=True, layers=(layer,))
        >>> footprint_frame(engine)[["key", "weights_bytes", "activation_bytes"]].to_dict("records")
        [{'key': 'Gemm', 'weights_bytes': 128, 'activation_bytes': 16}]
    """
    columns = layer_columns(engine)
    weights, activations = columns["weights_bytes"], columns["activation_bytes"]
    keys = columns["name"] if by == "layer" else columns[by]
    largest: dict[str, tuple[int, str]] = {}
    for key, layer in zip(keys, engine.layers, strict=True):
        name = "?" if key is None else str(key)
        for tensor in layer.outputs:
            size = tensor_bytes(tensor)
            if size is not None and size > largest.get(name, (-1, ""))[0]:
                largest[name] = (size, tensor.name)
    records = [
        {
            "key": key,
            "layers": layers,
            "weights_bytes": w,
            "activation_bytes": a,
            "largest_tensor": largest[key][1] if key in largest else None,
            "largest_tensor_bytes": largest[key][0] if key in largest else None,
        }
        for key, layers, w, a in bytes_by_key(keys, weights, activations)
    ]
    return frame_from_records("footprint", records)


@gc_paused()
def tensors_frame(engine: Engine) -> pd.DataFrame:
    """One row per tensor edge: a producer layer's output read by a consumer layer.

    A tensor no layer reads (a network output) has one row with no consumer; a tensor no layer
    writes (a network input) one row per consumer with no producer. Columns: ``tensor``,
    ``producer_index``/``producer``, ``consumer_index``/``consumer``, ``dtype``, ``layout``,
    ``vector_width``, ``dims``, ``element_bits`` and ``bytes`` (dims x element size, the
    vectorized channel axis padded to the vector width as TensorRT stores it: 3 channels in
    ``chw32`` take 32; ``<NA>`` for dynamic or unknown dims).
    """
    producers: dict[str, tuple[int, str, Any]] = {}
    for layer in engine.layers:
        for tensor in layer.outputs:
            producers.setdefault(tensor.name, (layer.index, layer.name, tensor))
    consumed: set[str] = set()
    records = []

    def row(tensor: Any, producer: tuple[int, str, Any] | None, consumer: Any) -> dict[str, Any]:
        dims = tensor.dims
        size = tensor_bytes(tensor)
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


#: The durations of a timing trace, with trtexec's names for them (its performance summary).
_MEASURES = (
    ("latency_ms", "Latency"),
    ("end_to_end_ms", "End-to-End Host Latency"),
    ("h2d_ms", "H2D Latency"),
    ("compute_ms", "GPU Compute Time"),
    ("d2h_ms", "D2H Latency"),
)


def times_stats_frame(times: Times | None) -> pd.DataFrame:
    """Statistics of a timing trace, one row per run and measure (trtexec's summary names).

    Columns: ``run``, ``measure`` (``Latency``, ``End-to-End Host Latency``, ``H2D Latency``,
    ``GPU Compute Time``, ``D2H Latency``), ``column`` (of :func:`times_frame`), ``count``,
    ``mean_ms``, ``median_ms``, ``p90_ms``, ``p95_ms``, ``p99_ms`` (trtexec's percentile,
    :func:`trtexec_percentile`), ``min_ms``, ``max_ms``, ``total_ms``. A measure the file does
    not hold has no row.
    """
    records = []
    for run_index, run in enumerate(times.runs if times is not None else ()):
        for column, measure in _MEASURES:
            values = sorted(
                v for r in run.records if (v := getattr(r, column)) is not None and v == v
            )
            if not values:
                continue
            n = len(values)
            median = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
            records.append(
                {
                    "run": run_index,
                    "measure": measure,
                    "column": column,
                    "count": n,
                    "mean_ms": total_of(values) / n,
                    "median_ms": median,
                    "p90_ms": trtexec_percentile(values, 90),
                    "p95_ms": trtexec_percentile(values, 95),
                    "p99_ms": trtexec_percentile(values, 99),
                    "min_ms": values[0],
                    "max_ms": values[-1],
                    "total_ms": total_of(values),
                }
            )
    return frame_from_records("times_stats", records)


def modules_frame(tree: ModuleNode) -> pd.DataFrame:
    """The module tree as rows, depth first.

    Columns: ``module`` (``/encoder/layers.0``), ``depth``,
    ``parent``, ``layers``, ``own_layers``, ``onnx_nodes``, ``time_ms``, ``split_ms`` (the part
    of ``time_ms`` that is an even share of a Myelin region spread over several modules),
    ``percentage`` (of the root's time), ``precisions`` (``FP16:10,INT8:4``).
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
                "split_ms": node.split_ms,
                "percentage": 100.0 * node.time_ms / total
                if total and not math.isnan(total)
                else math.nan,
                "precisions": join_known([f"{k}:{v}" for k, v in sorted(node.precisions.items())]),
            }
        )
        stack.extend((child, node.name) for child in reversed(node.children))
    return frame_from_records("modules", records)
