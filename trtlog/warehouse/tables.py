"""The rows of one build's tables, as the ingest of a whole or a streamed log yields them.

The frames, findings, merge-graph fates and comparison of one run of a log (or of a build of
JSON files alone) as ``(table, Arrow table)`` pieces, and the ``builds`` row that sums them up.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from trtlog._version import __version__
from trtlog.diff.load import compare
from trtlog.engine.footprint import footprint_columns
from trtlog.findings.frame import findings_frame
from trtlog.findings.models import Finding
from trtlog.findings.registry import lint
from trtlog.summary.collect import inference_shape
from trtlog.warehouse.files import BuildSpec, Role, name_role
from trtlog.warehouse.schema import ROW_TABLES, TABLES

if TYPE_CHECKING:
    import pandas as pd

    from trtlog.buildlog.model import Build
    from trtlog.engine.from_log import PairedVersion
    from trtlog.engine.model import Engine, Profile, Times
    from trtlog.summary import Summary

__all__ = [
    "ABORT",
    "Loaded",
    "Piece",
    "StreamedTactics",
    "engine_precisions",
    "frame_table",
    "json_tables",
    "now",
    "rows_table",
    "run_tables",
    "target_run",
]

#: ``(table name, rows)``: what the per-build function yields.
Piece = tuple[str, pa.Table]


@dataclass
class StreamedTactics:
    """The tactic rows of one run of a streamed log, counted as the summary counts them."""

    rows: int = 0
    timed: int = 0
    cached: int = 0
    skipped: int = 0
    layers: set[str] = field(default_factory=set)


#: The table name of a piece that says: forget this build's rows so far (a streamed log
#: that failed after some of its tactic rows were yielded).
ABORT = "_abort"

_MODEL_SUFFIXES = (".onnx", ".prototxt", ".caffemodel", ".uff", ".engine", ".plan", ".trt")
_SEVERITIES = ("error", "warning", "info")


@dataclass
class Loaded:
    """A build's JSON files, read (and, for JSON alone, the version a partner log gives)."""

    engine: Engine | None = None
    profile: Profile | None = None
    times: Times | None = None
    paths: dict[Role, str] = field(default_factory=dict)
    paired: PairedVersion | None = None


def frame_table(table: str, frame: pd.DataFrame, build_id: str) -> pa.Table:
    """A trtlog frame as rows of warehouse ``table`` (its columns after ``build_id``)."""
    schema = TABLES[table]
    body = pa.schema(list(schema)[1:])
    rows = pa.Table.from_pandas(frame, schema=body, preserve_index=False)
    ids = pa.array([build_id] * rows.num_rows, pa.string())
    return rows.add_column(0, schema.field("build_id"), ids)


def rows_table(table: str, records: Sequence[dict[str, Any]]) -> pa.Table:
    """Rows (dicts) as warehouse ``table``."""
    return pa.Table.from_pylist(list(records), schema=TABLES[table])


def now() -> datetime:
    """The time of ingest (UTC)."""
    return datetime.now(UTC)


# -- a build with a log ----------------------------------------------------------------------


def target_run(build: Build, paths: dict[Role, str]) -> int:
    """The run the JSON files belong to: the one whose command line names one, else the last."""
    names = [os.path.basename(p) for p in paths.values()]
    for run in reversed(build.runs):
        command = run.command_line or ""
        if any(name and name in command for name in names):
            return run.index
    return max(len(build.runs) - 1, 0)


def _engine_of(build: Build | None, engine_json: Engine | None, profile: Profile | None) -> Any:
    engine = engine_json if engine_json is not None else (build.engine if build else None)
    if engine is not None and profile is not None:
        engine = engine.with_profile(profile)
    return engine


def run_tables(
    spec: BuildSpec,
    build_id: str,
    run_build: Build,
    summary: Summary,
    engine_json: Engine | None,
    profile: Profile | None,
    *,
    run_index: int | None,
    n_runs: int,
    parse_seconds: float,
    started: float,
    streamed: StreamedTactics | None = None,
    bulk: tuple[int, int] = (0, 0),
    engine_build: int | None = None,
    engine_builds: int = 1,
) -> Iterator[Piece]:
    """The rows of one run of a log.

    ``streamed``: the run's tactic rows were written already (a streamed log, see
    :mod:`trtlog.warehouse.stream`), counted there; ``bulk`` are the events and lines of
    the tactic lines the streamed ``run_build`` leaves out.
    """
    engine = _engine_of(run_build, engine_json, profile)
    frames: dict[str, pd.DataFrame] = {
        "passes": run_build.passes_frame(),
        "fusions": run_build.fusions_frame(),
        "memory": run_build.memory_frame(),
    }
    if streamed is None:
        frames["tactics"] = run_build.tactics_frame()
    findings = lint(run_build, engine_json, profile=profile)
    frames["findings"] = findings_frame(findings)
    if engine is not None:
        frames["layers"] = engine.layers_frame()
    frames.update(_profile_frames(engine, profile))
    graph = run_build.merge_graph(engine_json) if engine_json else run_build.merge_graph()
    comparison = compare(engine, engine) if engine is not None else None
    nodes = _onnx_nodes(build_id, graph.fates(), comparison)
    pieces = {t: frame_table(t, f, build_id) for t, f in frames.items() if len(f)}
    if nodes:
        pieces["onnx_nodes"] = rows_table("onnx_nodes", nodes)
    counts = {t: (pieces[t].num_rows if t in pieces else 0) for t in ROW_TABLES}
    row = _log_row(spec, build_id, run_build, summary, engine, comparison, findings)
    if streamed is not None:
        counts["tactics"] = streamed.rows
        row.update(
            tactics_timed=streamed.timed,
            tactics_cached=streamed.cached,
            tactics_skipped=streamed.skipped,
            layers_timed=len(streamed.layers),
            events=row["events"] + bulk[0],
            event_lines=row["event_lines"] + bulk[1],
            streamed=True,
        )
    row["engine_precisions"] = engine_precisions(frames.get("layers"))
    row.update(
        run=run_index,
        runs=n_runs,
        engine_build=engine_build,
        engine_builds=engine_builds,
        table_rows=counts,
        parse_seconds=parse_seconds,
        ingest_seconds=time.perf_counter() - started,
    )
    yield "builds", rows_table("builds", [row])
    yield from pieces.items()


def _profile_frames(engine: Engine | None, profile: Profile | None) -> dict[str, pd.DataFrame]:
    if engine is not None and engine.profile is not None:
        return {"profile": engine.profile_frame()}
    if profile is not None:
        from trtlog.frames import profile_frame

        return {"profile": profile_frame(profile)}
    return {}


def _base_row(spec: BuildSpec, build_id: str) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(TABLES["builds"].names)
    row.update(
        build_id=build_id,
        source_id=spec.source_id,
        paths=[f.path for f in spec.files],
        roles=[f.role for f in spec.files],
        file_hashes=[f.digest for f in spec.files],
        input_bytes=spec.size,
        grouping=spec.grouping,
        model=spec.model,
        labels=list(spec.labels),
        streamed=False,
        notes=[],
        trtlog_version=__version__,
        ingested_at=now(),
    )
    return row


def model_name(path: str | None) -> str | None:
    """A model's name from its file: ``/m/yolov8s.onnx`` → ``yolov8s``.

    Example:
        >>> model_name("/data/models/yolov8s.onnx"), model_name("r18.onnx.engine")
        ('yolov8s', 'r18')
    """
    if not path:
        return None
    name = re.split(r"[\\/]", path.strip())[-1]
    while True:
        lower = name.lower()
        suffix = next((s for s in _MODEL_SUFFIXES if lower.endswith(s)), None)
        if suffix is None or len(name) == len(suffix):
            return name or None
        name = name[: -len(suffix)]


_PRECISION_FLAGS = {"FP16": "fp16", "BF16": "bf16", "INT8": "int8", "FP8": "fp8", "INT4": "int4"}


def _log_row(
    spec: BuildSpec,
    build_id: str,
    run_build: Build,
    s: Summary,
    engine: Engine | None,
    comparison: Any,
    findings: Sequence[Finding],
) -> dict[str, Any]:
    row = _base_row(spec, build_id)
    options = run_build.options
    precisions = list(options.precisions)
    latency = _stat(s, "Latency")
    compute = _stat(s, "GPU Compute Time")
    events = run_build.events
    first = s.run_first_line or 1
    last = s.run_last_line or run_build.line_count
    unrecognized = run_build.events_of("unrecognized")
    # a log without optimizer stages (not --verbose, or a --loadEngine run) says nothing about
    # fusions: NULL, not 0
    optimized = bool(s.layer_counts or s.fusions_by_pass)
    batch, shapes = inference_shape(options)
    row.update(
        batch=batch,
        shapes=shapes,
        model=spec.model or model_name(s.model) or model_name(s.loaded_engine),
        model_path=s.model or s.loaded_engine,
        trt_version=s.trt_version,
        trt_version_parts=list(run_build.trt_version) if run_build.trt_version else None,
        version_source=run_build.version_source,
        product=run_build.product,
        rtx_version=s.rtx_version,
        device=s.device,
        compute_capability=s.compute_capability,
        precision=(s.precision or "").split(" (", 1)[0] or None,
        precisions=precisions,
        strongly_typed=s.strongly_typed,
        status=_status(s.status),
        outcome=s.outcome.value if s.outcome is not None else None,
        loaded_engine=s.loaded_engine is not None,
        log_errors=s.errors,
        log_warnings=s.warnings,
        graph_optimization_seconds=s.graph_optimization_seconds,
        tactic_selection_seconds=s.tactic_selection_seconds,
        engine_generation_seconds=s.engine_generation_seconds,
        engine_build_seconds=s.engine_build_seconds,
        engine_size_mib=s.engine_size_mib,
        activation_memory_bytes=s.activation_memory_bytes,
        weights_memory_bytes=s.weights_memory_bytes,
        peak_gpu_mib=s.peak_gpu_mib,
        layers_original=s.layer_counts[0].layers if s.layer_counts else None,
        layers_final=s.layer_counts[-1].layers if s.layer_counts else None,
        fusions=sum(s.fusions_by_pass.values()) if optimized else None,
        removals=s.removals if optimized else None,
        qdq_steps=s.qdq_events if optimized else None,
        tactics_timed=s.tactics_timed,
        tactics_cached=s.tactics_cached,
        tactics_skipped=s.tactics_skipped,
        layers_timed=s.layers_timed,
        throughput_qps=s.performance.throughput_qps if s.performance else None,
        latency_median_ms=latency,
        gpu_compute_median_ms=compute,
        lines=last - first + 1,
        events=len(events),
        event_lines=sum(e.span[1] - e.span[0] + 1 for e in events),
        unrecognized=len(unrecognized),
        unrecognized_lines=sum(e.span[1] - e.span[0] + 1 for e in unrecognized),
    )
    for name, flag in _PRECISION_FLAGS.items():
        row[flag] = name in precisions
    _engine_figures(row, engine, comparison)
    if row["engine_time_ms"] is None and s.engine_time_ms is not None:
        row["engine_time_ms"] = s.engine_time_ms
    _finding_counts(row, findings)
    return row


def engine_precisions(layers: pd.DataFrame | None) -> str | None:
    """The precisions of an engine's layers, most layers first: ``FP16+INT8+FP32``.

    From the ``precision`` column of the layers frame (the ``layers`` table's), so that a
    build of JSON exports alone, without a ``Precision:`` option, still tells an FP16
    engine from an FP32 one. ``None`` without layers or without any known precision.
    """
    if layers is None or not len(layers):
        return None
    counts = layers["precision"].dropna().value_counts(sort=False)
    ranked = sorted(counts.items(), key=lambda kv: (-int(kv[1]), str(kv[0])))
    return "+".join(str(p) for p, _ in ranked) or None


def _stat(s: Summary, metric: str) -> float | None:
    """The median of a latency metric: the log's performance summary, else ``--exportTimes``."""
    if s.performance is not None and metric in s.performance.latency:
        return s.performance.latency[metric].median_ms
    if s.times is not None and metric in s.times.metrics:
        return s.times.metrics[metric].median_ms
    return None


def _status(status: str | None) -> str | None:
    """``passed``, ``failed``, ``waived``, ``cut_off`` (a banner without result line)."""
    if status is None or status in ("passed", "failed", "waived"):
        return status
    return "cut_off"


def _engine_figures(row: dict[str, Any], engine: Engine | None, comparison: Any) -> None:
    if engine is None:
        return
    row["engine_layers"] = len(engine.layers)
    counts = comparison.summary().layers_a
    row["lone_qdq"] = counts.get("qdq")
    row["reformats"] = counts.get("reformats")
    total = engine.total_ms
    row["engine_time_ms"] = total if total == total else None
    weights, activations = footprint_columns(engine)  # the layers table's columns, summed
    known_w = [w for w in weights if w is not None]
    known_a = [a for a in activations if a is not None]
    row["engine_weights_bytes"] = sum(known_w) if known_w else None
    row["engine_activation_bytes"] = sum(known_a) if known_a else None
    row["notes"] = list(row["notes"] or []) + list(engine.notes)


def _finding_counts(row: dict[str, Any], findings: Sequence[Finding]) -> None:
    for severity in _SEVERITIES:
        row[f"findings_{severity}"] = sum(1 for f in findings if f.severity == severity)


def _onnx_nodes(build_id: str, fates: Sequence[Any], comparison: Any) -> list[dict[str, Any]]:
    """One row per ONNX node: its fate (from the log) and the layer holding it (the engine).

    The layer comes from ``trtlog.compare`` of the engine with itself: its ONNX-node view is
    exactly the one ``compare`` aligns builds by (clone suffixes removed, Q/DQ and weights
    told apart), which is what :func:`trtlog.warehouse.compare` lines builds up by.
    """
    rows: dict[str, dict[str, Any]] = {}
    for fate in fates:
        kind = "qdq" if fate.op in ("QuantizeLinear", "DequantizeLinear") else "node"
        rows[fate.node] = {
            "build_id": build_id,
            "node": fate.node,
            "op": fate.op,
            "kind": kind,
            "module": None,
            "fate": fate.kind,
            "reason": fate.reason,
            "passes": list(fate.passes),
            "lines": list(fate.lines),
            "final_layers": list(fate.final_layers),
            "layer": fate.final_layers[0] if fate.final_layers else None,
            "layer_index": None,
            "layers": len(fate.final_layers) if fate.final_layers else None,
            "precision": None,
            "time_ms": None,
        }
    if comparison is not None:
        frame = comparison.onnx_frame()
        for rec in frame.to_dict("records"):
            node = rec["node"]
            row = rows.get(node)
            if row is None:
                row = rows[node] = dict.fromkeys(TABLES["onnx_nodes"].names)
                row.update(build_id=build_id, node=node)
            time_ms = rec["time_a_ms"]
            row.update(
                kind=rec["kind"],
                module=rec["module"],
                layer=rec["layer_a"],
                layer_index=_int(rec["index_a"]),
                layers=_int(rec["layers_a"]),
                precision=_str(rec["precision_a"]),
                time_ms=None if time_ms is None or time_ms != time_ms else float(time_ms),
            )
    return list(rows.values())


def _int(value: Any) -> int | None:
    try:
        return None if value is None or value != value else int(value)
    except TypeError:  # pandas.NA
        return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# -- a build of JSON files alone --------------------------------------------------------------


def json_tables(
    spec: BuildSpec, loaded: Loaded, started: float, errors: list[dict[str, Any]]
) -> Iterator[Piece]:
    """Every table's rows for a build of JSON files alone (no log)."""
    build_id = spec.source_id
    engine = _engine_of(None, loaded.engine, loaded.profile)
    frames: dict[str, pd.DataFrame] = {}
    findings: list[Finding] = []
    if engine is not None:
        frames["layers"] = engine.layers_frame()
        findings = lint(engine)
        frames["findings"] = findings_frame(findings)
    frames.update(_profile_frames(engine, loaded.profile))
    comparison = compare(engine, engine) if engine is not None else None
    pieces = {t: frame_table(t, f, build_id) for t, f in frames.items() if len(f)}
    nodes = _onnx_nodes(build_id, (), comparison)
    if nodes:
        pieces["onnx_nodes"] = rows_table("onnx_nodes", nodes)
    row = _base_row(spec, build_id)
    first = spec.files[0].path
    stem = name_role(os.path.basename(first))[0]
    row.update(
        model=spec.model or model_name(stem),
        runs=0,
        table_rows={t: (pieces[t].num_rows if t in pieces else 0) for t in ROW_TABLES},
        ingest_seconds=time.perf_counter() - started,
    )
    if spec.model is None:
        row["notes"] = [f"the model name is the file name's stem ({stem})"]
    paired = loaded.paired
    if paired is not None:
        proof = "its layers" if paired.how == "paired_log" else "its name"
        row.update(
            trt_version=".".join(map(str, paired.version)),
            trt_version_parts=list(paired.version),
            version_source=paired.how,
            product="TensorRT",
        )
        row["notes"] = [
            *(row["notes"] or []),
            f"the TensorRT version is the one of {paired.log} (paired by {proof})",
        ]
    if engine is not None and engine.trt11_shape:
        row["strongly_typed"] = True
    _engine_figures(row, engine, comparison)
    row["engine_precisions"] = engine_precisions(frames.get("layers"))
    _finding_counts(row, findings)
    if loaded.times is not None:
        from trtlog.frames import times_stats_frame

        stats = times_stats_frame(loaded.times)
        first_run = stats[stats["run"] == 0].set_index("measure")["median_ms"]
        row["latency_median_ms"] = _float(first_run.get("Latency"))
        row["gpu_compute_median_ms"] = _float(first_run.get("GPU Compute Time"))
    yield "builds", rows_table("builds", [row])
    yield from pieces.items()


def _float(value: Any) -> float | None:
    return None if value is None or value != value else float(value)
