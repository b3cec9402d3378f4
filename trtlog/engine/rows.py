"""An engine's layers as the columns of ``layers_frame``, without pandas.

:func:`layer_columns` makes, from an engine's layer objects, the columns
:func:`trtlog.frames.layers_frame` types into its frame, and the report reads as lists
(:func:`trtlog.buildlog.rows.type_columns`): a report of a log's layer dump needs no pandas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trtlog.engine.model import compute_precision
from trtlog.engine.modules import serve_reformats
from trtlog.names import common_module, parse_kernel_name
from trtlog.numbers import U64
from trtlog.tensors import dims_text

if TYPE_CHECKING:
    from trtlog.engine.model import Engine
    from trtlog.tensors import Tensor

__all__ = ["LAYER_SCHEMA", "join_known", "layer_columns"]

#: The columns and dtypes of ``layers_frame``.
LAYER_SCHEMA: dict[str, str] = {
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
}


def join_known(values: Sequence[str | None]) -> str | None:
    """The values that are not ``None``, comma-joined (``None`` when there is none)."""
    present = [v for v in values if v is not None]
    return ",".join(present) if present else None


def _dtypes_layouts(tensors: tuple[Tensor, ...]) -> tuple[str | None, str | None]:
    """The tensors' dtypes and layouts, each comma-joined (``None`` when none is known)."""
    if len(tensors) == 1:  # fast path: most layers have one input and one output
        return tensors[0].dtype, tensors[0].layout
    return join_known([t.dtype for t in tensors]), join_known([t.layout for t in tensors])


def _sparse(parameters: dict[str, Any]) -> bool | None:
    for key in ("HasSparseWeights", "ConvHasSparseWeights"):
        if key in parameters:
            return bool(parameters[key])
    return None


def layer_columns(engine: Engine) -> dict[str, Sequence[Any]]:
    """Every column of :data:`LAYER_SCHEMA`, one value per layer object, reformats served.

    Values as the layer objects hold them (``math.nan`` for a missing time): ``layers_frame``
    types them, :func:`trtlog.buildlog.rows.type_columns` reads them as the frame would.
    """
    # one tuple per layer in schema order, transposed at the end: a dict or 29 appends per
    # layer cost twice as much; fields are read from each layer's __dict__ (bench/engine_load.py)
    rows: list[tuple[Any, ...]] = []
    nan = math.nan
    no_time = (nan, nan, nan, nan, "no profile merged")
    for layer in engine.layers:
        d = layer.__dict__
        name = d["name"]
        inputs, outputs = d["inputs"], d["outputs"]
        tactic = d["tactic"]
        nodes = d["onnx_nodes"]
        time = d["time"]
        parameters = d["parameters"]
        layer_type = d["type"]
        kernel = parse_kernel_name(name)
        input_dtypes, input_layouts = _dtypes_layouts(inputs)
        output_dtypes, output_layouts = _dtypes_layouts(outputs)
        rows.append(
            (
                d["index"],
                name,
                layer_type,
                d["parameter_type"],
                compute_precision(layer) or next((t.dtype for t in outputs if t.dtype), None),
                input_dtypes,
                output_dtypes,
                input_layouts,
                output_layouts,
                dims_text(outputs[0].dims) if outputs and outputs[0].dims is not None else None,
                len(inputs),
                len(outputs),
                tactic,
                None if tactic is None else f"0x{tactic % U64:016x}",
                d["tactic_name"] or None,
                d["stream_id"],
                layer.origin,
                layer.is_reformat,
                _sparse(parameters),
                kernel.graph if kernel else None,
                nodes,
                len(nodes),
                d["onnx_source"],
                common_module(nodes),
            )
            + (
                no_time
                if time is None
                else (
                    time.average_ms,
                    time.total_ms,
                    nan if time.median_ms is None else time.median_ms,
                    time.percentage,
                    time.reason,
                )
            )
        )
    names = list(LAYER_SCHEMA)
    if not rows:
        return {name: () for name in names}
    columns: list[Sequence[Any]] = list(zip(*rows, strict=True))
    serve_reformats(columns)
    return dict(zip(names, columns, strict=True))
