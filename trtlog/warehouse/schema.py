"""The warehouse tables: one declared Arrow schema per table (documented in docs/warehouse.md).

The tables that hold a trtlog frame (``layers``, ``tactics``, ``passes``, ``fusions``,
``memory``, ``findings``, ``profile``) have exactly that frame's columns from
:data:`trtlog.frames.SCHEMAS`, after a ``build_id`` column; ``builds``, ``onnx_nodes`` and
``errors`` are the warehouse's own. Every row of every table carries its ``build_id``.

Missing values are nulls in Parquet: a frame's NaN time (a layer without a profile record)
is ``NULL`` in SQL, so ``avg(time_ms)`` averages the known times.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from trtlog.frames import SCHEMAS as FRAME_SCHEMAS

__all__ = ["FRAME_TABLES", "TABLES", "arrow_type", "schema"]

#: Warehouse table → the trtlog frame it stores.
FRAME_TABLES: dict[str, str] = {
    "layers": "layers",
    "tactics": "tactics",
    "passes": "passes",
    "fusions": "fusions",
    "memory": "memory",
    "findings": "findings",
    "profile": "profile",
}

_PANDAS_TO_ARROW: dict[str, pa.DataType] = {
    "int64": pa.int64(),
    "Int64": pa.int64(),
    "UInt64": pa.uint64(),
    "float64": pa.float64(),
    "string": pa.string(),
    "bool": pa.bool_(),
    "boolean": pa.bool_(),
}

# frame columns of Python objects: tuples of names
_OBJECT_COLUMNS: dict[tuple[str, str], pa.DataType] = {
    ("layers", "onnx_nodes"): pa.list_(pa.string()),
    ("fusions", "inputs"): pa.list_(pa.string()),
}

_STRINGS = pa.list_(pa.string())

#: Per table whose rows count into ``builds.table_rows``.
ROW_TABLES = (*FRAME_TABLES, "onnx_nodes")

_BUILDS: list[tuple[str, pa.DataType]] = [
    ("build_id", pa.string()),
    ("source_id", pa.string()),
    ("run", pa.int32()),
    ("runs", pa.int32()),
    ("paths", _STRINGS),
    ("roles", _STRINGS),
    ("file_hashes", _STRINGS),
    ("input_bytes", pa.int64()),
    ("grouping", pa.string()),
    ("model", pa.string()),
    ("model_path", pa.string()),
    ("trt_version", pa.string()),
    ("trt_version_parts", pa.list_(pa.int32())),
    ("version_source", pa.string()),
    ("product", pa.string()),
    ("rtx_version", pa.string()),
    ("device", pa.string()),
    ("compute_capability", pa.string()),
    ("precision", pa.string()),
    ("precisions", _STRINGS),
    ("engine_precisions", pa.string()),
    ("batch", pa.string()),
    ("shapes", pa.string()),
    ("fp16", pa.bool_()),
    ("bf16", pa.bool_()),
    ("int8", pa.bool_()),
    ("fp8", pa.bool_()),
    ("int4", pa.bool_()),
    ("strongly_typed", pa.bool_()),
    ("status", pa.string()),
    ("outcome", pa.string()),
    ("loaded_engine", pa.bool_()),
    ("log_errors", pa.int64()),
    ("log_warnings", pa.int64()),
    ("graph_optimization_seconds", pa.float64()),
    ("tactic_selection_seconds", pa.float64()),
    ("engine_generation_seconds", pa.float64()),
    ("engine_build_seconds", pa.float64()),
    ("engine_size_mib", pa.float64()),
    ("activation_memory_bytes", pa.int64()),
    ("weights_memory_bytes", pa.int64()),
    ("peak_gpu_mib", pa.int64()),
    ("layers_original", pa.int64()),
    ("layers_final", pa.int64()),
    ("engine_layers", pa.int64()),
    ("fusions", pa.int64()),
    ("removals", pa.int64()),
    ("qdq_steps", pa.int64()),
    ("lone_qdq", pa.int64()),
    ("reformats", pa.int64()),
    ("tactics_timed", pa.int64()),
    ("tactics_cached", pa.int64()),
    ("tactics_skipped", pa.int64()),
    ("layers_timed", pa.int64()),
    ("findings_error", pa.int64()),
    ("findings_warning", pa.int64()),
    ("findings_info", pa.int64()),
    ("throughput_qps", pa.float64()),
    ("latency_median_ms", pa.float64()),
    ("gpu_compute_median_ms", pa.float64()),
    ("engine_time_ms", pa.float64()),
    ("engine_weights_bytes", pa.int64()),
    ("engine_activation_bytes", pa.int64()),
    ("lines", pa.int64()),
    ("events", pa.int64()),
    ("event_lines", pa.int64()),
    ("unrecognized", pa.int64()),
    ("unrecognized_lines", pa.int64()),
    ("table_rows", pa.struct([(t, pa.int64()) for t in ROW_TABLES])),
    ("streamed", pa.bool_()),
    ("notes", _STRINGS),
    ("labels", pa.map_(pa.string(), pa.string())),
    ("parse_seconds", pa.float64()),
    ("ingest_seconds", pa.float64()),
    ("trtlog_version", pa.string()),
    ("ingested_at", pa.timestamp("us", tz="UTC")),
    ("engine_build", pa.int32()),
    ("engine_builds", pa.int32()),
]

_ONNX_NODES: list[tuple[str, pa.DataType]] = [
    ("build_id", pa.string()),
    ("node", pa.string()),
    ("op", pa.string()),
    ("kind", pa.string()),
    ("module", pa.string()),
    ("fate", pa.string()),
    ("reason", pa.string()),
    ("passes", _STRINGS),
    ("lines", pa.list_(pa.int64())),
    ("final_layers", _STRINGS),
    ("layer", pa.string()),
    ("layer_index", pa.int64()),
    ("layers", pa.int64()),
    ("precision", pa.string()),
    ("time_ms", pa.float64()),
]

_ERRORS: list[tuple[str, pa.DataType]] = [
    ("build_id", pa.string()),
    ("source_id", pa.string()),
    ("path", pa.string()),
    ("role", pa.string()),
    ("paths", _STRINGS),
    ("error_type", pa.string()),
    ("message", pa.string()),
    ("trtlog_version", pa.string()),
    ("ingested_at", pa.timestamp("us", tz="UTC")),
]

#: Columns whose values depend on when and how fast an ingest ran (left out when two ingests
#: are compared for equal content).
VOLATILE = frozenset({"parse_seconds", "ingest_seconds", "ingested_at", "trtlog_version"})


def arrow_type(table: str, column: str, dtype: str) -> pa.DataType:
    """The Arrow type of a frame column (its pandas dtype, or the list type of an object).

    Raises:
        KeyError: a dtype (or object column) the warehouse does not know how to store.
    """
    if dtype == "object":
        return _OBJECT_COLUMNS[table, column]
    return _PANDAS_TO_ARROW[dtype]


def _frame_schema(table: str) -> pa.Schema:
    frame = FRAME_TABLES[table]
    fields: list[pa.Field[Any]] = [pa.field("build_id", pa.string())]
    fields += [
        pa.field(col, arrow_type(frame, col, dtype)) for col, dtype in FRAME_SCHEMAS[frame].items()
    ]
    return pa.schema(fields)


def _make_tables() -> dict[str, pa.Schema]:
    import trtlog.findings.frame  # noqa: F401  (importing it declares SCHEMAS["findings"])

    tables = {"builds": pa.schema(_BUILDS)}
    tables.update({t: _frame_schema(t) for t in FRAME_TABLES})
    tables["onnx_nodes"] = pa.schema(_ONNX_NODES)
    tables["errors"] = pa.schema(_ERRORS)
    return tables


#: Every warehouse table's Arrow schema, in documentation order.
TABLES: dict[str, pa.Schema] = _make_tables()


def schema(table: str) -> pa.Schema:
    """The Arrow schema of a warehouse table.

    Raises:
        KeyError: no such table.

    Example:
        >>> schema("tactics").names[:3]
        ['build_id', 'line', 'layer']
    """
    return TABLES[table]
