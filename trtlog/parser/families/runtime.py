"""Keyword rules and transformer of the runtime family (grammars/runtime.lark).

Part of the parser: execution context and bindings, start of inference, the timing trace, the
performance summary (8.0+ and the 7.x block), the profile table and the late trtexec lines
(formats.md §K.1, §K.4, §K.5, §L, §M, §N).

Sections keep the generic-looking lines apart (T24): ``=== Performance summary ===`` opens
``perf`` (left at ``Explanations of the performance metrics are printed ...``), the 7.x
``Host Latency`` sub-header opens ``perf7`` (left at ``total compute time:``), the ``[V]``
explanations header opens ``explanations``, ``=== Profile (...) ===`` opens ``profile`` whose
column header picks the row layout (``profile_7x``, ``profile_84``, ``profile_86``), and
``Input|Output Tensors:`` opens ``tensor_dump``. The banner (header family) leaves any section.
``Average on <n> runs`` lines are the most frequent of a run log and have an exclusive prefix
row, so they take the stream's hot path.
"""

from __future__ import annotations

import re

from lark import Token, v_args

from trtlog.parser.family import BaseTransformer, Continuation, Family, Fields, Rule

__all__ = ["FAMILY"]

_PERCENTILE = re.compile(r"percentile\(([^()%]*)%\) = (\S+) ms")


def _pnum(text: str) -> float:
    return float(text)


def _warning_kind(text: str) -> str:
    if text.startswith("Throughput may be bound by Enqueue Time"):
        return "enqueue_bound"
    if text.startswith("Throughput may be bound by host-to-device"):
        return "h2d_bound"
    if text.startswith("Throughput may be bound by device-to-host"):
        return "d2h_bound"
    if text.startswith("GPU compute time is unstable"):
        return "unstable"
    if text.startswith("Multiple inference streams are used"):
        return "multi_stream"
    return "other"


_COV = re.compile(r"coefficient of variance = ([-+0-9.eE]+|inf|nan)%")


@v_args(inline=True)
class RuntimeTransformer(BaseTransformer):
    """Builds runtime events."""

    def logger_differs(self, rest: Token) -> Fields:
        return {"kind": "logger_differs", "text": str(rest)}

    def int8_fallback_no_calibration_file(self, _source: Token | None) -> Fields:
        text = "INT8 calibration file not specified. Trying FP16 mode."
        return {"kind": "int8_fallback", "reason": "no_calibration_file", "text": text}

    def int8_fallback_platform(self, _source: Token | None) -> Fields:
        text = "INT8 not supported by platform. Trying FP16 mode."
        return {"kind": "int8_fallback", "reason": "platform", "text": text}

    def engine_cache_miss_open(self, _source: Token | None, path: Token) -> Fields:
        return {"kind": "engine_cache_miss", "stage": "open", "path": str(path)}

    def engine_cache_miss_deserialize(self, _context: Token | None, path: Token) -> Fields:
        return {"kind": "engine_cache_miss", "stage": "deserialize", "path": str(path)}

    def int8_fallback_no_calibrator(self, device: Token) -> Fields:
        text = (
            f"requested fasted precision for device {device} without providing valid "
            "calibrator, disabling INT8"
        )
        return {
            "kind": "int8_fallback",
            "reason": "no_calibrator",
            "device": str(device),
            "text": text,
        }

    PNUM = staticmethod(_pnum)

    # -- §K.1 -------------------------------------------------------------------------------------

    def persistent_cache_limit(self, size: int) -> Fields:
        return {"kind": "persistent_cache_limit", "bytes": size}

    def exec_context_created(self, size: float) -> Fields:
        return {"kind": "exec_context_created", "size_mib": size}

    def input_fill_random(self, direction: Token, name: Token) -> Fields:
        return {
            "kind": "input_fill",
            "direction": str(direction),
            "name": str(name),
            "source": "random",
            "file": None,
        }

    def input_fill_file(self, file: Token, direction: Token, name: Token) -> Fields:
        return {
            "kind": "input_fill",
            "direction": str(direction),
            "name": str(name),
            "source": "file",
            "file": str(file),
        }

    def binding_type(self, dtype: Token) -> str:
        return str(dtype)

    def binding_created_legacy(
        self, direction: Token, name: Token, dims: tuple[int, ...]
    ) -> Fields:
        return {
            "kind": "binding_created",
            "direction": str(direction),
            "name": str(name),
            "dims": dims,
            "dtype": None,
        }

    def binding_created(
        self, direction: Token, name: Token, dims: tuple[int, ...], dtype: str | None
    ) -> Fields:
        return {
            "kind": "binding_created",
            "direction": str(direction).lower(),
            "name": str(name),
            "dims": dims,
            "dtype": dtype,
        }

    def binding_dynamic(self, _direction: Token, name: Token) -> Fields:
        return {"kind": "binding_dynamic", "name": str(name)}

    def binding_name_error(self, name: Token | None, _rest: Token | None) -> Fields:
        return {"kind": "binding_name_error", "name": str(name or "")}

    # -- §K.4, §K.5 -----------------------------------------------------------------------------

    def opt_profile_header(self) -> Fields:
        return {"kind": "opt_profile_header"}

    def opt_profile_info(
        self,
        name: Token,
        profile: int,
        low: tuple[int, ...],
        opt: tuple[int, ...],
        high: tuple[int, ...],
    ) -> Fields:
        return {
            "kind": "opt_profile_info",
            "name": str(name),
            "profile": profile,
            "min_dims": low,
            "opt_dims": opt,
            "max_dims": high,
        }

    def inference_start(self) -> Fields:
        return {"kind": "inference_start", "threads": False}

    def inference_start_threads(self) -> Fields:
        return {"kind": "inference_start", "threads": True}

    def cuda_graph_disabled(self, text: Token) -> Fields:
        return _notice("cuda_graph_disabled", text)

    def timing_inaccurate(self, text: Token) -> Fields:
        return _notice("timing_inaccurate", text)

    def separate_run_hint(self, text: Token) -> Fields:
        return _notice("separate_run_hint", text)

    def e2e_not_reported(self, text: Token) -> Fields:
        return _notice("e2e_not_reported", text)

    def e2e_hint(self, text: Token) -> Fields:
        return _notice("e2e_hint", text)

    def layer_timing_failed(self, text: Token) -> Fields:
        return _notice("layer_timing_failed", text)

    def graph_capture_skip(self, text: Token) -> Fields:
        return _notice("graph_capture_skip", text)

    def skip_inference_notice(self, flag: Token) -> Fields:
        return {"kind": "skip_inference_notice", "flag": str(flag)}

    def cuda_graph_capturing(self) -> Fields:
        return {"kind": "cuda_graph_capture", "captured": False}

    def cuda_graph_captured(self, _hint: Token | None = None) -> Fields:
        return {"kind": "cuda_graph_capture", "captured": True}

    def enqueue_api(self, api: Token) -> Fields:
        return {"kind": "enqueue_api", "api": str(api)}

    def default_stream_warning(self, api: Token, advice: Token) -> Fields:
        return {"kind": "default_stream_warning", "api": str(api), "advice": str(advice)}

    # -- §L trace and summary ------------------------------------------------------------------

    def trace_warmup(self, queries: int, ms: float) -> Fields:
        return {"kind": "trace_prolog", "phase": "warmup", "queries": queries, "seconds": ms / 1000}

    def trace_timing(self, queries: int, seconds: float) -> Fields:
        return {"kind": "trace_prolog", "phase": "timing", "queries": queries, "seconds": seconds}

    def trace_details(self) -> Fields:
        return {"kind": "trace_details"}

    def trace_averages(self, runs: int) -> Fields:
        return {"kind": "trace_averages", "runs": runs}

    # The three trace_average shapes return every field: a run log holds thousands of them
    # and a complete dict skips the merge with the class defaults.
    def trace_average(self, runs: int, gpu: float, host: float, enqueue: float) -> Fields:
        return {
            "kind": "trace_average",
            "runs": runs,
            "gpu_ms": gpu,
            "host_ms": host,
            "end_to_end_ms": None,
            "enqueue_ms": enqueue,
        }

    def trace_average_e2e_enqueue(
        self, runs: int, gpu: float, host: float, e2e: float, enqueue: float
    ) -> Fields:
        return {
            "kind": "trace_average",
            "runs": runs,
            "gpu_ms": gpu,
            "host_ms": host,
            "end_to_end_ms": e2e,
            "enqueue_ms": enqueue,
        }

    def trace_average_e2e(self, runs: int, gpu: float, host: float, e2e: float) -> Fields:
        return {
            "kind": "trace_average",
            "runs": runs,
            "gpu_ms": gpu,
            "host_ms": host,
            "end_to_end_ms": e2e,
            "enqueue_ms": None,
        }

    def trace_omitted(self, lines: int) -> Fields:
        return {"kind": "trace_omitted", "lines": lines}

    def perf_block_7x(self, metric: Token) -> Fields:
        return {"kind": "perf_block_7x", "metric": str(metric)}

    def end_to_end(self, ms: float) -> float:
        return ms

    def end_to_end_at(self, ms: float, _percent: float) -> float:
        return ms

    def perf_stat_7x(self, stat: Token, ms: float, e2e: float | None) -> Fields:
        return {"kind": "perf_stat_7x", "stat": str(stat), "ms": ms, "end_to_end_ms": e2e}

    def perf_percentile_7x(self, ms: float, percent: float, e2e: float | None) -> Fields:
        return {
            "kind": "perf_stat_7x",
            "stat": "percentile",
            "ms": ms,
            "percent": percent,
            "end_to_end_ms": e2e,
        }

    def perf_summary_header(self) -> Fields:
        return {"kind": "perf_summary_header"}

    def perf_stat(
        self,
        metric: Token,
        low: float,
        high: float,
        mean: float,
        median: float,
        percentiles: Token | None,
    ) -> Fields:
        pairs = tuple(
            (float(p), float(ms)) for p, ms in _PERCENTILE.findall(str(percentiles or ""))
        )
        return {
            "kind": "perf_stat",
            "metric": str(metric),
            "min_ms": low,
            "max_ms": high,
            "mean_ms": mean,
            "median_ms": median,
            "percentiles": pairs,
        }

    def perf_scalar(self, name: Token, value: float, unit: Token) -> Fields:
        return {"kind": "perf_scalar", "name": str(name), "value": value, "unit": str(unit)}

    def perf_note(self, text: Token) -> Fields:
        return {"kind": "perf_note", "text": str(text)}

    def perf_warning(self, bullet: Token, hint: Token | None) -> Fields:
        text = str(bullet).strip()
        cov = _COV.search(text)
        hints = [line.strip() for line in str(hint or "").split("\n")]
        return {
            "kind": "perf_warning",
            "warning": _warning_kind(text),
            "text": text,
            "hint": " ".join(h for h in hints if h) or None,
            "coefficient_of_variance": float(cov.group(1)) if cov else None,
        }

    def perf_explanations_header(self) -> Fields:
        return {"kind": "perf_explanations_header"}

    def perf_explanations(self, metric: Token, text: Token) -> Fields:
        return {"kind": "perf_explanations", "metric": str(metric), "text": str(text)}

    # -- §M profile -------------------------------------------------------------------------

    def profile_header(self, iterations: int) -> Fields:
        return {"kind": "profile_header", "iterations": iterations}

    def profile_columns_86(self, _text: Token) -> Fields:
        return {"kind": "profile_columns", "layout": "8.6"}

    def profile_columns_84(self, _text: Token) -> Fields:
        return {"kind": "profile_columns", "layout": "8.4"}

    def profile_columns_7x(self, _text: Token) -> Fields:
        return {"kind": "profile_columns", "layout": "7x"}

    def profile_row_86(
        self, total: float, avg: float, median: float, percent: float, name: Token
    ) -> Fields:
        return _row(str(name)[3:], total, avg, median, percent)

    def profile_row_84(
        self, name: Token, total: float, avg: float, median: float, percent: float
    ) -> Fields:
        return _row(str(name).strip(), total, avg, median, percent)

    def profile_row_7x(self, name: Token, total: float, avg: float, percent: float) -> Fields:
        return _row(str(name).strip(), total, avg, None, percent)

    def profile_aux_stream_warning(self, streams: int, _rest: Token | None) -> Fields:
        return {"kind": "profile_aux_stream_warning", "streams": streams}

    # -- §N -----------------------------------------------------------------------------------

    def tensors_dump_header(self, direction: Token) -> Fields:
        return {"kind": "tensors_dump_header", "direction": str(direction).lower()}

    def tensor_dump_dims(self, name: Token, dims: tuple[int, ...]) -> Fields:
        return {"kind": "tensor_dump_dims", "name": str(name), "dims": dims}

    def tensor_dump_values(self, values: Token) -> Fields:
        return {"kind": "tensor_dump_values", "values": tuple(map(float, str(values).split()))}

    def raw_dump(
        self, direction: Token, name: Token, dtype: Token, dims: tuple[int, ...], file: Token
    ) -> Fields:
        return {
            "kind": "raw_dump",
            "direction": str(direction),
            "name": str(name),
            "dtype": str(dtype),
            "dims": dims,
            "file": str(file),
        }

    def engine_refitted(self, ms: float) -> Fields:
        return {"kind": "engine_refitted", "ms": ms}

    def deserialize_begin(self) -> Fields:
        return {"kind": "deserialize_timing", "stage": "begin"}

    def deserialize_first(self, ms: float) -> Fields:
        return {"kind": "deserialize_timing", "stage": "first", "ms": ms}

    def deserialize_total(self, total: float, average: float, first: float) -> Fields:
        return {
            "kind": "deserialize_timing",
            "stage": "total",
            "ms": total,
            "average_ms": average,
            "first_ms": first,
        }

    def deserialize_bandwidth(self, gbps: float) -> Fields:
        return {"kind": "deserialize_timing", "stage": "bandwidth", "bandwidth_gbps": gbps}

    def deserialize_tolerance(self, ratio: float, tolerance: float) -> Fields:
        return {
            "kind": "deserialize_timing",
            "stage": "tolerance",
            "ratio": ratio,
            "tolerance": tolerance,
        }

    def accuracy_failed(self, _text: Token) -> Fields:
        return {"kind": "accuracy_failed"}

    def reference_output_loaded(
        self, tensor: Token, file: Token, volume: int, nbytes: int
    ) -> Fields:
        return {
            "kind": "reference_output_loaded",
            "tensor": str(tensor),
            "file": str(file),
            "volume": volume,
            "bytes": nbytes,
        }

    def accuracy_check(
        self, tensor: Token, metric: Token, value: float, fail: Token | None
    ) -> Fields:
        threshold = None
        if fail is not None:  # " [FAIL: >= threshold 0.010000]"
            threshold = float(str(fail).rsplit(" ", 1)[1].rstrip("]"))
        return {
            "kind": "accuracy_check",
            "tensor": str(tensor),
            "metric": str(metric),
            "value": value,
            "threshold": threshold,
            "verdict": "fail" if fail is not None else "pass",
        }

    def reference_output_missing(self, tensor: Token) -> Fields:
        return {"kind": "reference_output_missing", "tensor": str(tensor)}

    def ref_pairs_header(self) -> Fields:
        return {"kind": "ref_pair", "role": "header", "ref_pair": True}

    def ref_pairs_header_single(self) -> Fields:
        return {"kind": "ref_pair", "role": "header", "ref_pair": False}

    def ref_pair_start(self, _indent: Token, index: int) -> Fields:
        return {"kind": "ref_pair", "role": "pair", "index": index}

    def ref_pair_files(self, _indent: Token, role: Token, items: Token | None) -> Fields:
        # "name:file, name:file" as trtexec prints its map; a name or a (Windows) path may hold
        # ":" itself, so the items are kept as printed
        listed = tuple(i.strip() for i in str(items or "").split(", ") if i.strip())
        return {
            "kind": "ref_pair",
            "role": "inputs" if str(role) == "loadInputs" else "ref_outputs",
            "items": listed,
        }

    def tuning_iteration(self, iteration: int, route: Token | None) -> Fields:
        return {
            "kind": "tuning_iteration",
            "iteration": iteration,
            "route": str(route or "").strip() or None,
        }

    def tuning_expanded(self, count: int, _rest: Token | None) -> Fields:
        return {"kind": "tuning_iteration", "configurations": count}

    # -- the tuning loop of trtexec 11 (--tuneBuildRoutes) ------------------------------------

    def tuning_phase(self, phase: int, iterations: int, _rest: Token | None) -> Fields:
        return {"kind": "tuning_phase", "phase": phase, "iterations": iterations}

    def tuning_failure(self, iteration: int, reason: Token) -> Fields:
        return {"kind": "tuning_failure", "iteration": iteration, "reason": str(reason)}

    def tuning_best(self, route: Token, gpu_time_ms: float) -> Fields:
        return {"kind": "tuning_best", "route": str(route), "gpu_time_ms": gpu_time_ms}

    def tuning_summary(self, succeeded: int, total: int) -> Fields:
        return {"kind": "tuning_summary", "succeeded": succeeded, "total": total}

    def tuning_none(self, _rest: Token | None) -> Fields:
        return {"kind": "tuning_summary", "succeeded": 0, "total": None}

    def tuning_mixed_phase2(self, knobs: int) -> Fields:
        return {"kind": "tuning_note", "note": "mixed_search_phase2", "value": knobs}

    def tuning_mixed_skip(self, knobs: int) -> Fields:
        return {"kind": "tuning_note", "note": "mixed_search_no_phase2", "value": knobs}

    def tuning_timeout(self, seconds: int) -> Fields:
        return {"kind": "tuning_note", "note": "timeout", "value": seconds}

    def tuning_resume(self, iteration: int, args: int) -> Fields:
        return {"kind": "tuning_note", "note": "resume", "value": iteration, "args": args}

    def tuning_no_save(self) -> Fields:
        return {"kind": "tuning_note", "note": "no_save_engine"}

    def tuning_dry_run(self, routes: int) -> Fields:
        return {"kind": "tuning_note", "note": "dry_run", "value": routes}

    def tuning_route(self, index: int, route: Token | None) -> Fields:
        return {"kind": "tuning_route", "index": index, "route": str(route or "")}


def _notice(notice: str, text: Token) -> Fields:
    return {"kind": "profiler_notice", "notice": notice, "text": str(text)}


def _row(name: str, total: float, avg: float, median: float | None, percent: float) -> Fields:
    return {
        "kind": "profile_row",
        "layer": name,
        "total_ms": total,
        "avg_ms": avg,
        "median_ms": median,
        "percent": percent,
        "is_total": name == "Total",
    }


def _is_warning_hint(message: str) -> bool:
    """An indented continuation line of a ``* ...`` performance warning (§L.5)."""
    return message.startswith("  ") and not message.isspace()


def _never(_text: str) -> bool:
    return False


_PERF = "perf"
_PERF7 = "perf7"
_EXPLANATIONS = "explanations"
_PROFILE = "profile"
_TENSOR_DUMP = "tensor_dump"
_TUNING_ROUTES = "tuning_routes"  # after "--dryRun: <n> build routes would be tried:"
# The metrics of the summary (§L.4) and of its explanations (§L.6).
_METRICS = (
    "Latency",
    "End-to-End Host Latency",
    "Enqueue Time",
    "H2D Latency",
    "GPU Compute Time",
    "D2H Latency",
)
_EXPLAINED = (*_METRICS, "Total Host Walltime", "Total GPU Compute Time", "Throughput")

FAMILY = Family(
    name="runtime",
    transformer=RuntimeTransformer,
    rules=(
        # §K.1
        Rule("exec_context_created", prefix="Created execution context with device memory"),
        Rule("binding", prefix="Created input binding for "),
        Rule("binding", prefix="Created output binding for "),
        Rule("binding", prefix="Input binding for "),
        Rule("binding", prefix="Output binding for "),
        Rule("binding_name_error", prefix="Cannot find input tensor with name "),
        # §K.4, §K.5
        Rule("inference_start", prefix="Starting inference"),
        Rule("profiler_notice", prefix="Profiler does not work when CUDA graph is enabled"),
        Rule("profiler_notice", prefix="Graph profiling only works with CUDA "),
        Rule("profiler_notice", prefix="The network timing report will not be accurate "),
        Rule("profiler_notice", prefix="Add --separateProfileRun to profile layer timing"),
        Rule("profiler_notice", prefix="The e2e network timing is not reported "),
        Rule("profiler_notice", prefix="To show e2e network timing report, "),
        Rule("profiler_notice", prefix="Failed to collect layer timing info from previous "),
        Rule("profiler_notice", prefix="Skip layer timing collection in CUDA graph capture"),
        Rule("cuda_graph_capture", prefix="Capturing CUDA graph for the current "),
        Rule("cuda_graph_capture", prefix="Successfully captured CUDA graph for the current "),
        Rule("enqueue_api", prefix="Using enqueue"),
        # §L.1, §L.2
        # §L.3 the 7.x block
        Rule("perf_block_7x", prefix="Host Latency", enters=_PERF7),
        Rule("perf_block_7x", prefix="Host latency", enters=_PERF7),
        Rule("perf_block_7x", prefix="Enqueue Time", section=_PERF7),
        Rule("perf_block_7x", prefix="GPU Compute", section=_PERF7),
        *(Rule("perf_stat_7x", prefix=f"{s}: ", section=_PERF7) for s in ("min", "max", "mean")),
        Rule("perf_stat_7x", prefix="median: ", section=_PERF7),
        Rule("perf_stat_7x", prefix="percentile: ", section=_PERF7),
        Rule("perf_scalar", prefix="throughput: ", section=_PERF7),
        Rule("perf_scalar", prefix="walltime: ", section=_PERF7),
        Rule("perf_scalar", prefix="total compute time: ", section=_PERF7, leaves=True),
        # §L.4 - §L.6 the 8.0+ summary
        Rule("perf_summary_header", prefix="=== Performance summary ===", enters=_PERF),
        *(Rule("perf_stat", prefix=f"{m}: min = ") for m in _METRICS),
        Rule("perf_stat", contains=": min = ", section=_PERF),
        Rule("perf_scalar", prefix="Throughput: "),
        Rule("perf_scalar", prefix="Total Host Walltime: "),
        Rule("perf_scalar", prefix="Total GPU Compute Time: "),
        Rule("perf_warning", prefix="* ", section=_PERF, then="perf_warning_hint"),
        Rule("perf_warning", prefix="* Throughput may be bound by ", then="perf_warning_hint"),
        Rule("perf_warning", prefix="* GPU compute time is unstable", then="perf_warning_hint"),
        Rule("perf_warning", prefix="* Multiple inference streams", then="perf_warning_hint"),
        Rule("perf_note", prefix="Explanations of the performance metrics are printed"),
        Rule(
            "perf_note",
            prefix="Explanations of the performance metrics are printed",
            section=_PERF,
            leaves=True,
        ),
        Rule(
            "perf_explanations_header",
            prefix="=== Explanations of the performance metrics ===",
            enters=_EXPLANATIONS,
        ),
        *(Rule("perf_explanations", prefix=f"{m}: ", section=_EXPLANATIONS) for m in _EXPLAINED),
        # §M the profile table
        Rule("profile_header", prefix="=== Profile (", enters=_PROFILE),
        Rule("profile_columns_86", prefix="   Time(ms)", section=_PROFILE, enters="profile_86"),
        Rule(
            "profile_columns_84",
            contains="Avg. Time (ms)   Median Time (ms)",
            section=_PROFILE,
            enters="profile_84",
        ),
        Rule(
            "profile_columns_7x",
            contains="Layer   Time (ms)   Avg. Time (ms)   Time %",
            section=_PROFILE,
            enters="profile_7x",
        ),
        Rule("profile_row_86", section="profile_86"),
        Rule("profile_row_84", section="profile_84"),
        Rule("profile_row_7x", section="profile_7x"),
        Rule("profile_aux_stream_warning", prefix="The engine uses ", contains=" auxiliary stream"),
        # §N
        Rule("tensors_dump_header", prefix="Input Tensors:", enters=_TENSOR_DUMP),
        Rule("tensors_dump_header", prefix="Output Tensors:", enters=_TENSOR_DUMP),
        Rule("tensor_dump_line", section=_TENSOR_DUMP),
        Rule("deserialize_timing", prefix="Begin deserialization engine"),
        Rule("deserialize_timing", prefix="First deserialization time "),
        Rule("accuracy_failed", prefix="Accuracy validation FAILED"),
        Rule("ref_pair", prefix="  refPair["),
        Rule("ref_pair", prefix="    loadInputs: {"),
        Rule("ref_pair", prefix="    loadRefOutputs: {"),
        Rule("ref_pair", prefix="  loadInputs: {"),
        Rule("ref_pair", prefix="  loadRefOutputs: {"),
        # DeepStream's source location comes first: found by the text after it (pasted
        # without an envelope too: the text is specific)
        Rule(
            "int8_fallback",
            contains="INT8 calibration file not specified. Trying FP16 mode.",
            bare=True,
        ),
        Rule(
            "int8_fallback", contains="INT8 not supported by platform. Trying FP16 mode.", bare=True
        ),
        Rule("int8_fallback", prefix="requested fasted precision for device ", bare=True),
        Rule(
            "engine_cache_miss",
            contains="Deserialize engine failed because file path: ",
            bare=True,
        ),
        Rule("engine_cache_miss_nvinfer", contains="deserialize engine from file :", bare=True),
        Rule("tuning_iteration", prefix="Expanded to ", contains=" build route configurations"),
        # --dryRun lists the routes as "[<i>]:<route>" lines, until the &&&& banner
        Rule("tuning_dry_run", prefix="--dryRun: ", enters=_TUNING_ROUTES),
        Rule("tuning_route", prefix="[", contains="]:", section=_TUNING_ROUTES),
    ),
    routed=(
        "default_stream_warning",
        "logger_differs",
        "persistent_cache_limit",
        "input_fill",
        "opt_profile_header",
        "opt_profile_info",
        "skip_inference_notice",
        "trace_prolog",
        "trace_details",
        "trace_averages",
        "trace_average",
        "trace_omitted",
        "raw_dump",
        "engine_refitted",
        "deserialize_timing",
        "reference_output_loaded",
        "accuracy_check",
        "reference_output_missing",
        "ref_pair",
        "tuning_iteration",
        "tuning_line",
    ),
    continuations=(
        # blank=True: a paste's blank line between a bullet and its hint does not end it (T5)
        Continuation(
            "perf_warning_hint", bare=_never, enveloped=_is_warning_hint, blank=True, max_lines=8
        ),
    ),
)
