"""An engine's layers as the columns of ``layers_frame``, without pandas.

:func:`layer_columns` makes, from an engine's layer objects, the columns
:func:`trtlog.frames.layers_frame` types into its frame, and the report reads as lists
(:func:`trtlog.buildlog.rows.type_columns`): a report of a log's layer dump needs no pandas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trtlog.engine.footprint import footprint_columns
from trtlog.engine.model import is_reformat_layer, layer_precision
from trtlog.names import _DECORATED, _REFORMAT, common_module, parse_kernel_name, split_name
from trtlog.numbers import U64
from trtlog.tensors import dims_text

if TYPE_CHECKING:
    from trtlog.engine.footprint import Footprint
    from trtlog.engine.model import Engine
    from trtlog.tensors import Tensor

__all__ = [
    "LAYER_SCHEMA",
    "join_known",
    "layer_columns",
    "module_of_node",
    "serve_reformats",
    "served_by_name",
]

# the expressions split_name uses: a reformat's target, and a name it leaves whole
_REFORMAT_NAME = _REFORMAT
_PLAIN_NAME = _DECORATED.search

# the columns of the engine's footprint (trtlog.engine.footprint), made apart
_FOOTPRINT = ("weights_bytes", "activation_bytes")

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
    "weights_bytes": "Int64",
    "activation_bytes": "Int64",
}


def join_known(values: Sequence[str | None]) -> str | None:
    """The values that are not ``None``, comma-joined (``None`` when there is none)."""
    present = [v for v in values if v is not None]
    return ",".join(present) if present else None


def _dtypes_layouts(tensors: tuple[Tensor, ...]) -> tuple[str | None, str | None]:
    """The tensors' dtypes and layouts, each comma-joined (``None`` when none is known)."""
    if len(tensors) == 1:  # most layers have one input and one output
        return tensors[0].dtype, tensors[0].layout
    if not tensors:
        return None, None
    return join_known([t.dtype for t in tensors]), join_known([t.layout for t in tensors])


def layer_columns(engine: Engine, footprint: Footprint | None = None) -> dict[str, Sequence[Any]]:
    """Every column of :data:`LAYER_SCHEMA`, one value per layer object, reformats served.

    Values as the layer objects hold them (``math.nan`` for a missing time): ``layers_frame``
    types them, :func:`trtlog.buildlog.rows.type_columns` reads them as the frame would.
    ``footprint``: the engine's :func:`~trtlog.engine.footprint.engine_footprint`, when made
    already.
    """
    # one tuple per layer in schema order, transposed at the end; the fields are read from
    # each layer's __dict__ (no attribute lookup each), and what an engine repeats (a
    # tactic's hex text) is worked out once
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    nan = math.nan
    hex_of: dict[int, str] = {}
    for layer in engine.layers:
        d = layer.__dict__
        name = d["name"]
        inputs, outputs = d["inputs"], d["outputs"]
        tactic = d["tactic"]
        nodes = d["onnx_nodes"]
        time = d["time"]
        parameters = d["parameters"]
        layer_type = d["type"]
        kernel_name = d["tactic_name"]
        if tactic is None:
            tactic_hex = None
        else:
            tactic_hex = hex_of.get(tactic)
            if tactic_hex is None:
                tactic_hex = hex_of[tactic] = f"0x{tactic % U64:016x}"
        precision = layer_precision(kernel_name, parameters, inputs, outputs)
        if parameters:
            origin = parameters.get("Origin")
            if origin is not None and type(origin) is not str:
                origin = str(origin)
            sparse = _sparse(parameters)
        else:
            origin = sparse = None
        if len(outputs) == 1:  # (most layers)
            first = outputs[0]
            output_dtypes, output_layouts = first.dtype, first.layout
            dims = first.dims
        else:
            output_dtypes, output_layouts = _dtypes_layouts(outputs)
            dims = outputs[0].dims if outputs else None
        input_dtypes, input_layouts = _dtypes_layouts(inputs)
        n_nodes = len(nodes)
        if time is None:
            times: tuple[Any, ...] = (nan, nan, nan, nan, "no profile merged")
        else:
            median = time.median_ms
            times = (
                time.average_ms,
                time.total_ms,
                nan if median is None else median,
                time.percentage,
                time.reason,
            )
        append(
            (
                d["index"],
                name,
                layer_type,
                d["parameter_type"],
                precision,
                input_dtypes,
                output_dtypes,
                input_layouts,
                output_layouts,
                None if dims is None else dims_text(dims),
                len(inputs),
                len(outputs),
                tactic,
                tactic_hex,
                kernel_name or None,
                d["stream_id"],
                origin,
                is_reformat_layer(layer_type, name),
                sparse,
                kernel.graph if "_myl" in name and (kernel := parse_kernel_name(name)) else None,
                nodes,
                n_nodes,
                d["onnx_source"],
                module_of_node(nodes[0]) if n_nodes == 1 else common_module(nodes),
                *times,
            )
        )
    if not rows:
        return {name: () for name in LAYER_SCHEMA}
    names = [n for n in LAYER_SCHEMA if n not in _FOOTPRINT]  # (added below)
    columns: dict[str, Sequence[Any]] = dict(zip(names, zip(*rows, strict=True), strict=True))
    columns["module"] = serve_reformats(
        columns["name"], columns["onnx_nodes"], columns["is_reformat"], list(columns["module"])
    )
    columns["weights_bytes"], columns["activation_bytes"] = footprint_columns(engine, footprint)
    return columns


def _sparse(parameters: dict[str, Any]) -> bool | None:
    for key in ("HasSparseWeights", "ConvHasSparseWeights"):
        if key in parameters:
            return bool(parameters[key])
    return None


def served_by_name(
    name: str, position: int, index: dict[str, int]
) -> tuple[int | None, tuple[str, ...]]:
    """The layer a reformat (no ONNX node of its own) known by its name serves.

    Its position, found through ``index`` (layer names to positions, first wins), else the
    nodes its target names; ``(None, ())`` for a reformat of a network input or output (see
    :func:`trtlog.engine.modules.served_layer`).
    """
    if not name.endswith("]"):  # fast path: the target's name as split_name cuts it out
        m = _REFORMAT_NAME.match(name)
        if m is not None:
            target = m["target"]
            served = index.get(target)
            if served is not None and served != position:
                return served, ()
            if _PLAIN_NAME(target) is None:  # a plain name: it is its only member
                return None, (target,)
    parts = split_name(name)
    suffix = ""
    if parts.op == "profile" and parts.parts:
        suffix = name[len(parts.parts[0].text) :]
        parts = parts.parts[0]
    target = parts.target
    if target is None or (parts.detail or "").startswith("network_"):
        return None, ()
    served = index.get(target.text + suffix, index.get(target.text))
    if served is not None and served != position:
        return served, ()
    return None, tuple(target.members())


def serve_reformats(
    names: Sequence[str],
    nodes: Sequence[tuple[str, ...]],
    reformat: Sequence[bool],
    modules: list[str],
) -> list[str]:
    """The layers' modules (``common_module`` of their nodes), a reformat's its served layer's.

    What the ``module`` column of ``trtlog.frames.layers_frame`` shows: a reformat without ONNX
    nodes of its own (its module ``/``) takes the module of the layer it serves (see
    :func:`served_by_name`), else that of the nodes its name targets. ``modules`` is not
    changed; the list returned is it when no row changes.
    """
    wanted = [
        i
        for i, (is_reformat, module) in enumerate(zip(reformat, modules, strict=True))
        if is_reformat and module == "/" and not nodes[i]
    ]
    if not wanted:
        return modules
    # name -> position of its first row (inserted last to first, so the first one stays)
    index = dict(zip(reversed(names), range(len(names) - 1, -1, -1), strict=True))
    served_modules = list(modules)
    for i in wanted:
        served, target = served_by_name(names[i], i, index)
        if served is not None:
            home = served_modules[served]
        else:
            home = module_of_node(target[0]) if len(target) == 1 else common_module(target)
        served_modules[i] = home
    return served_modules


def module_of_node(node: str) -> str:
    """``common_module([node])``, without building a list (a large engine asks 20,000 times).

    Example:
        >>> module_of_node("/enc/l0/attn/MatMul"), module_of_node("conv1")
        ('/enc/l0/attn', '/')
    """
    if node.startswith("/") and "//" not in node and "\n" not in node and node[-1] != "/":
        return node[: node.rfind("/")] or "/"
    return common_module((node,))
