"""Events of the runtime family: inference set-up, performance summary, profile table, late lines.

Execution context and bindings (formats.md §K.1, §K.4, §K.5), the timing trace and performance
summary (§L), the per-layer profile table (§M) and the late trtexec lines (§N). Each line is
its own event with its values parsed; :func:`trtlog.buildlog.performance.performance` assembles the
summary and the profile table of a build into one :class:`trtlog.buildlog.performance.Performance`.

Part of the data model (pydantic only). Times are milliseconds (``*_ms``) or seconds
(``*_s``, where trtexec prints seconds), dims are int tuples (``-1`` dynamic, ``()`` scalar).
"""

from typing import Literal

from trtlog.events.base import EventBase
from trtlog.events.fields import LayerName

__all__ = [
    "AccuracyCheck",
    "AccuracyFailed",
    "BindingCreated",
    "BindingDynamic",
    "BindingNameError",
    "CudaGraphCapture",
    "DefaultStreamWarning",
    "DeserializeTiming",
    "EngineCacheMiss",
    "EngineRefitted",
    "EnqueueApi",
    "ExecContextCreated",
    "InferenceStart",
    "InputFill",
    "Int8Fallback",
    "LoggerDiffers",
    "OptProfileHeader",
    "OptProfileInfo",
    "PerfBlock7x",
    "PerfExplanations",
    "PerfExplanationsHeader",
    "PerfNote",
    "PerfScalar",
    "PerfStat",
    "PerfStat7x",
    "PerfSummaryHeader",
    "PerfWarning",
    "PersistentCacheLimit",
    "ProfileAuxStreamWarning",
    "ProfileColumns",
    "ProfileHeader",
    "ProfileRow",
    "ProfilerNotice",
    "RawDump",
    "RefPair",
    "ReferenceOutputLoaded",
    "ReferenceOutputMissing",
    "RuntimeEvent",
    "SkipInferenceNotice",
    "TensorDumpDims",
    "TensorDumpValues",
    "TensorsDumpHeader",
    "TraceAverage",
    "TraceAverages",
    "TraceDetails",
    "TraceOmitted",
    "TraceProlog",
    "TuningBest",
    "TuningFailure",
    "TuningIteration",
    "TuningNote",
    "TuningPhase",
    "TuningRoute",
    "TuningSummary",
]

Dims = tuple[int, ...]
Direction = Literal["input", "output"]

# --- §K.1 context and input set-up -------------------------------------------------------------


class LoggerDiffers(EventBase):
    """``The logger passed into createInferRuntime differs from one already provided ...``.

    TensorRT keeps one logger per process; an application that creates a second runtime with
    another logger gets this [W] (8.x-10.x). Nothing changes in the engine.

    Attributes:
        text: the rest of the message after ``... already provided for``.
    """

    kind: Literal["logger_differs"] = "logger_differs"
    text: str


class Int8Fallback(EventBase):
    """An integration builds FP16 although INT8 was asked (DeepStream, jetson-inference).

    ``INT8 calibration file not specified. Trying FP16 mode.`` and ``INT8 not supported by
    platform. Trying FP16 mode.`` (DeepStream's model builder, [W] behind its source
    location), ``requested fasted precision for device GPU without providing valid
    calibrator, disabling INT8`` (jetson-inference).

    Attributes:
        reason: ``no_calibration_file``, ``platform`` or ``no_calibrator``.
        device: the device jetson-inference names (``GPU``, ``DLA``), if any.
        text: the message as printed (without the source location).
    """

    kind: Literal["int8_fallback"] = "int8_fallback"
    reason: Literal["no_calibration_file", "platform", "no_calibrator"]
    device: str | None = None
    text: str


class EngineCacheMiss(EventBase):
    """DeepStream found no engine file to load, so it builds the engine (and saves it).

    ``Deserialize engine failed because file path: <path> open error`` (its model builder,
    [W] behind its source location) and ``... deserialize engine from file :<path> failed``
    (nvinfer's warning through GStreamer's log).

    Attributes:
        stage: ``open`` (the file could not be opened) or ``deserialize``.
        path: the engine file.
    """

    kind: Literal["engine_cache_miss"] = "engine_cache_miss"
    stage: Literal["open", "deserialize"]
    path: str


class PersistentCacheLimit(EventBase):
    """``Setting persistentCacheLimit to <n> bytes.`` (8.5+).

    Attributes:
        bytes: the limit in bytes.
    """

    kind: Literal["persistent_cache_limit"] = "persistent_cache_limit"
    bytes: int


class ExecContextCreated(EventBase):
    """``Created execution context with device memory size: <num> MiB`` (9.x+).

    Attributes:
        size_mib: the device memory of the context, in MiB as printed.
    """

    kind: Literal["exec_context_created"] = "exec_context_created"
    size_mib: float


class InputFill(EventBase):
    """Where the values of a binding come from.

    ``Using random values for input <name>`` (8.6+), ``Using random values for <input|output>
    <name>`` (8.2-8.5), ``Using values loaded from <file> for input <name>`` (8.2+).

    Attributes:
        direction: ``input`` or ``output``.
        name: the tensor.
        source: ``random`` or ``file``.
        file: the file, for ``file``.
    """

    kind: Literal["input_fill"] = "input_fill"
    direction: Direction
    name: str
    source: Literal["random", "file"]
    file: str | None = None


class BindingCreated(EventBase):
    """A binding trtexec allocated, in all version shapes (§K.1).

    ``Created input binding for <name> with dimensions <dims>`` (8.0-8.5),
    ``Input binding for <name> with dimensions <dims> is created.`` (8.6-10.15),
    ``... with dimensions <dims> and type <dtype> is created.`` (10.16+).

    Attributes:
        direction: ``input`` or ``output``.
        name: the tensor.
        dims: its dimensions.
        dtype: its data type (``fp32``, ``int64``), 10.16+.
    """

    kind: Literal["binding_created"] = "binding_created"
    direction: Direction
    name: str
    dims: Dims
    dtype: str | None = None


class BindingDynamic(EventBase):
    """An output whose shape is only known at run time (8.6+).

    ``Output binding for <name> is dynamic and will be created during execution using
    OutputAllocator.``

    Attributes:
        name: the output tensor.
    """

    kind: Literal["binding_dynamic"] = "binding_dynamic"
    name: str


class BindingNameError(EventBase):
    """``Cannot find input tensor with name "<name>" in the network inputs! ...`` ([E], 8.x+).

    Attributes:
        name: the tensor name given on the command line.
    """

    kind: Literal["binding_name_error"] = "binding_name_error"
    name: str


# --- §K.4 optimization profiles ----------------------------------------------------------------


class OptProfileHeader(EventBase):
    """``Optimization Profile Information:`` (9.x+)."""

    kind: Literal["opt_profile_header"] = "opt_profile_header"


class OptProfileInfo(EventBase):
    """``Model input <name> (profile <i>): min=<dims>, opt=<dims>, max=<dims>`` (9.x+).

    Attributes:
        name: the input tensor.
        profile: the optimization profile index.
        min_dims: the minimum shape (``()`` for ``scalar``).
        opt_dims: the optimum shape.
        max_dims: the maximum shape.
    """

    kind: Literal["opt_profile_info"] = "opt_profile_info"
    name: str
    profile: int
    min_dims: Dims
    opt_dims: Dims
    max_dims: Dims


# --- §K.5 start of inference -----------------------------------------------------------------


class InferenceStart(EventBase):
    """``Starting inference`` (7.2+) / ``Starting inference threads`` (7.1).

    Attributes:
        threads: ``True`` for the 7.1 ``Starting inference threads``.
    """

    kind: Literal["inference_start"] = "inference_start"
    threads: bool = False


class ProfilerNotice(EventBase):
    """What the profiler changes about the run (§K.5 and the corpus).

    Attributes:
        notice: ``cuda_graph_disabled`` (8.0 ``Profiler does not work when CUDA graph is
            enabled. ...`` / 8.2+ ``Graph profiling only works with CUDA 11.1 and beyond.
            ...``), ``timing_inaccurate`` (8.2 ``The network timing report will not be
            accurate ...``), ``separate_run_hint`` (8.2 ``Add --separateProfileRun ...``),
            ``e2e_not_reported`` (8.4+ ``The e2e network timing is not reported ...``),
            ``e2e_hint`` (8.4+ ``To show e2e network timing report, ...``),
            ``layer_timing_failed`` (``Failed to collect layer timing info from previous
            enqueueV3()``) or ``graph_capture_skip`` (library: ``Skip layer timing collection
            in CUDA graph capture mode.``).
        text: the message as printed.
    """

    kind: Literal["profiler_notice"] = "profiler_notice"
    notice: Literal[
        "cuda_graph_disabled",
        "timing_inaccurate",
        "separate_run_hint",
        "e2e_not_reported",
        "e2e_hint",
        "layer_timing_failed",
        "graph_capture_skip",
    ]
    text: str


class SkipInferenceNotice(EventBase):
    """``Skipped inference phase since --buildOnly|--skipInference is added.`` (8.4+).

    Attributes:
        flag: the flag that skipped inference.
    """

    kind: Literal["skip_inference_notice"] = "skip_inference_notice"
    flag: str


class CudaGraphCapture(EventBase):
    """The CUDA graph capture of ``--useCudaGraph`` (10.x; the default in 11.x).

    ``Capturing CUDA graph for the current execution context`` and ``Successfully captured
    CUDA graph for the current execution context`` (11.x adds ``. When profiling with Nsight
    Systems, add "--cuda-graph-trace=node" to the nsys command ...``).

    Attributes:
        captured: ``False`` when the capture starts, ``True`` when it succeeded.
    """

    kind: Literal["cuda_graph_capture"] = "cuda_graph_capture"
    captured: bool


class EnqueueApi(EventBase):
    """``Using enqueueV3.`` ([V], 8.5+): the enqueue function trtexec uses.

    Attributes:
        api: ``enqueueV3``, ``enqueueV2``...
    """

    kind: Literal["enqueue_api"] = "enqueue_api"
    api: str


class DefaultStreamWarning(EventBase):
    """``Using default stream in enqueueV3() may lead to performance issues ...`` ([W], 10.x).

    The program enqueues inference on CUDA's default stream, so TensorRT synchronizes the
    stream after each call (the Python cookbook's and ModelOpt's runs print it).

    Attributes:
        api: the enqueue function called (``enqueueV3``).
        advice: the rest of the message (``due to additional calls to cudaStreamSynchronize()
            ...``), as printed.
    """

    kind: Literal["default_stream_warning"] = "default_stream_warning"
    api: str
    advice: str


# --- §L timing trace and performance summary -----------------------------------------------------


class TraceProlog(EventBase):
    """``Warmup completed <q> queries over <ms> ms`` / ``Timing trace has <q> queries over <s> s``.

    Attributes:
        phase: ``warmup`` or ``timing``.
        queries: the number of queries.
        seconds: the duration in seconds (the warm-up line prints milliseconds).
    """

    kind: Literal["trace_prolog"] = "trace_prolog"
    phase: Literal["warmup", "timing"]
    queries: int
    seconds: float


class TraceDetails(EventBase):
    """``=== Trace details ===`` (8.0+)."""

    kind: Literal["trace_details"] = "trace_details"


class TraceAverages(EventBase):
    """``Trace averages of <n> runs:``.

    Attributes:
        runs: how many inferences each average line covers.
    """

    kind: Literal["trace_averages"] = "trace_averages"
    runs: int


class TraceAverage(EventBase):
    """``Average on <n> runs - GPU latency: <ms> ms - Host latency: <ms> ms (...)``.

    The parenthesis holds ``end to end <ms> ms`` (7.0), ``end to end <ms> ms, enqueue <ms> ms``
    (7.1-8.2) or ``enqueue <ms> ms`` (8.4+).

    Attributes:
        runs: the inferences averaged.
        gpu_ms: the GPU latency.
        host_ms: the host latency.
        end_to_end_ms: the end-to-end latency (≤ 8.2).
        enqueue_ms: the enqueue time (7.1+).
    """

    kind: Literal["trace_average"] = "trace_average"
    runs: int
    gpu_ms: float
    host_ms: float
    end_to_end_ms: float | None = None
    enqueue_ms: float | None = None


class TraceOmitted(EventBase):
    """``... Omitting <n> lines`` (9.x+, when the trace is long).

    Attributes:
        lines: the average lines left out.
    """

    kind: Literal["trace_omitted"] = "trace_omitted"
    lines: int


class PerfSummaryHeader(EventBase):
    """``=== Performance summary ===`` (8.0+)."""

    kind: Literal["perf_summary_header"] = "perf_summary_header"


class PerfStat(EventBase):
    """The statistics of one metric in the 8.0+ summary (§L.4).

    ``<metric>: min = <ms> ms, max = <ms> ms, mean = <ms> ms, median = <ms> ms,
    percentile(<p>%) = <ms> ms, ...``

    Attributes:
        metric: ``Latency``, ``End-to-End Host Latency`` (8.0-8.2), ``Enqueue Time``,
            ``H2D Latency``, ``GPU Compute Time`` or ``D2H Latency``.
        min_ms: the minimum.
        max_ms: the maximum.
        mean_ms: the mean.
        median_ms: the median.
        percentiles: ``(percent, ms)`` pairs in printed order (one in 8.0-8.4, ``90,95,99`` by
            default in 8.5+).
    """

    kind: Literal["perf_stat"] = "perf_stat"
    metric: str
    min_ms: float
    max_ms: float
    mean_ms: float
    median_ms: float
    percentiles: tuple[tuple[float, float], ...] = ()


class PerfScalar(EventBase):
    """One number of the summary (§L.3, §L.4).

    ``Throughput: <n> qps``, ``Total Host Walltime: <s> s``, ``Total GPU Compute Time: <s> s``
    (8.0+), and the 7.x ``throughput: <n> qps``, ``walltime: <s> s``, ``total compute time:
    <s> s``.

    Attributes:
        name: the label as printed.
        value: the number.
        unit: ``qps`` or ``s``.
    """

    kind: Literal["perf_scalar"] = "perf_scalar"
    name: str
    value: float
    unit: Literal["qps", "s"]


class PerfBlock7x(EventBase):
    """A sub-header of the 7.x performance block (§L.3).

    ``Host Latency`` (``Host latency`` in 7.0), ``Enqueue Time`` (7.1+) or ``GPU Compute``;
    stat lines follow it (:class:`PerfStat7x`).

    Attributes:
        metric: the sub-header as printed.
    """

    kind: Literal["perf_block_7x"] = "perf_block_7x"
    metric: str


class PerfStat7x(EventBase):
    """A stat line of the 7.x block (§L.3).

    ``min: <ms> ms (end to end <ms> ms)``, ``percentile: <ms> ms at <p>% (end to end <ms> ms
    at <p>%)``, ``median: <ms> ms``...

    Attributes:
        stat: ``min``, ``max``, ``mean``, ``median`` or ``percentile``.
        ms: the value.
        percent: the percentile, for ``percentile``.
        end_to_end_ms: the end-to-end value (Host Latency lines).
    """

    kind: Literal["perf_stat_7x"] = "perf_stat_7x"
    stat: Literal["min", "max", "mean", "median", "percentile"]
    ms: float
    percent: float | None = None
    end_to_end_ms: float | None = None


class PerfWarning(EventBase):
    """A ``* ...`` warning of the summary and its indented lines, one event (§L.5, [W], 8.0+).

    Attributes:
        warning: ``enqueue_bound``, ``h2d_bound``, ``d2h_bound``, ``unstable``,
            ``multi_stream`` or ``other``.
        text: the bullet text (without ``* ``).
        hint: the continuation lines, stripped and joined by a blank.
        coefficient_of_variance: the percentage of the ``unstable`` warning.
    """

    kind: Literal["perf_warning"] = "perf_warning"
    warning: Literal["enqueue_bound", "h2d_bound", "d2h_bound", "unstable", "multi_stream", "other"]
    text: str
    hint: str | None = None
    coefficient_of_variance: float | None = None


class PerfNote(EventBase):
    """``Explanations of the performance metrics are printed in the verbose logs.`` (8.0+).

    Attributes:
        text: the note as printed.
    """

    kind: Literal["perf_note"] = "perf_note"
    text: str


class PerfExplanationsHeader(EventBase):
    """``=== Explanations of the performance metrics ===`` ([V], 8.0+)."""

    kind: Literal["perf_explanations_header"] = "perf_explanations_header"


class PerfExplanations(EventBase):
    """``<Metric>: <sentence>`` under the explanations header ([V], 8.0+; T24).

    Attributes:
        metric: the metric explained (``Latency``, ``Throughput``...).
        text: the explanation.
    """

    kind: Literal["perf_explanations"] = "perf_explanations"
    metric: str
    text: str


# --- §M profile table --------------------------------------------------------------------------


class ProfileHeader(EventBase):
    """``=== Profile (<n> iterations ) ===`` (note the blank before the parenthesis).

    Attributes:
        iterations: the profiled iterations.
    """

    kind: Literal["profile_header"] = "profile_header"
    iterations: int


class ProfileColumns(EventBase):
    """The column header of the profile table, which tells its layout (§M.2).

    Attributes:
        layout: ``7x`` (7.x-8.2: name, total, average, percent), ``8.4`` (8.4-8.5: a median
            column is added) or ``8.6`` (8.6+: numbers first, the name last).
    """

    kind: Literal["profile_columns"] = "profile_columns"
    layout: Literal["7x", "8.4", "8.6"]


class ProfileRow(EventBase):
    """One row of the profile table, in any of the three layouts (§M.2, T21).

    Attributes:
        layer: the layer name (``Total`` for the last row).
        total_ms: the total time over all iterations.
        avg_ms: the average time per iteration.
        median_ms: the median time (8.4+).
        percent: the share of the total time.
        is_total: ``True`` for the ``Total`` row.
    """

    kind: Literal["profile_row"] = "profile_row"
    layer: LayerName
    total_ms: float
    avg_ms: float
    median_ms: float | None = None
    percent: float
    is_total: bool = False


class ProfileAuxStreamWarning(EventBase):
    """The engine runs layers on auxiliary streams, so the profile total may mislead ([W], 8.6+).

    ``The engine uses <n> auxiliary streams, so the "Total" latency may not be accurate
    because some layers may have run in parallel!``

    Attributes:
        streams: the auxiliary streams.
    """

    kind: Literal["profile_aux_stream_warning"] = "profile_aux_stream_warning"
    streams: int


# --- §N output dump and other late lines ---------------------------------------------------------


class TensorsDumpHeader(EventBase):
    """``Input Tensors:`` / ``Output Tensors:`` (``--dumpInput``/``--dumpOutput``).

    Attributes:
        direction: ``input`` or ``output``.
    """

    kind: Literal["tensors_dump_header"] = "tensors_dump_header"
    direction: Direction


class TensorDumpDims(EventBase):
    """``<name>: (<dims>)`` before a dumped tensor's values.

    Attributes:
        name: the tensor.
        dims: its dimensions.
    """

    kind: Literal["tensor_dump_dims"] = "tensor_dump_dims"
    name: str
    dims: Dims


class TensorDumpValues(EventBase):
    """All values of a dumped tensor, printed on one line (T27: can be megabytes long).

    Attributes:
        values: the values, in printed order.
    """

    kind: Literal["tensor_dump_values"] = "tensor_dump_values"
    values: tuple[float, ...]


class RawDump(EventBase):
    """A binding written to a file (8.6+, ``--dumpRawBindingsToFile``).

    ``Writing file for <input|output> binding <name> (with datatype <dt> and dimensions
    <dims>) to <file>``

    Attributes:
        direction: ``input`` or ``output``.
        name: the tensor.
        dtype: the data type as printed.
        dims: the dimensions.
        file: the file written.
    """

    kind: Literal["raw_dump"] = "raw_dump"
    direction: Direction
    name: str
    dtype: str
    dims: Dims
    file: str


class EngineRefitted(EventBase):
    """``Engine refitted in <ms> ms.`` (8.0+, ``--timeRefit``: the average of 10 refits).

    Attributes:
        ms: the refit time.
    """

    kind: Literal["engine_refitted"] = "engine_refitted"
    ms: float


class DeserializeTiming(EventBase):
    """The ``--timeDeserialize`` lines (8.0+).

    ``Begin deserialization engine...``, ``First deserialization time = <ms> milliseconds``,
    ``Total deserialization time = <ms> milliseconds, average time = <ms>, first time = <ms>.``,
    ``Deserialization Bandwidth = <n> GB/s`` and ``First deserialization time divided by
    average time is <r>. Exceeds tolerance of <t>x.``

    Attributes:
        stage: ``begin``, ``first``, ``total``, ``bandwidth`` or ``tolerance``.
        ms: the first (``first``) or total (``total``) time.
        average_ms: the average time, for ``total``.
        first_ms: the first time, for ``total``.
        bandwidth_gbps: the bandwidth in GB/s, for ``bandwidth``.
        ratio: first time / average time, for ``tolerance``.
        tolerance: the tolerance factor, for ``tolerance``.
    """

    kind: Literal["deserialize_timing"] = "deserialize_timing"
    stage: Literal["begin", "first", "total", "bandwidth", "tolerance"]
    ms: float | None = None
    average_ms: float | None = None
    first_ms: float | None = None
    bandwidth_gbps: float | None = None
    ratio: float | None = None
    tolerance: float | None = None


class AccuracyFailed(EventBase):
    """``Accuracy validation FAILED: one or more tensors exceeded the threshold.`` ([E], 11.x)."""

    kind: Literal["accuracy_failed"] = "accuracy_failed"


class ReferenceOutputLoaded(EventBase):
    """``Loaded reference output for tensor <t> from <file> (volume=<n>, bytes=<n>)`` (11.x).

    trtexec prints one per reference output of each ``--refPair`` (or ``--loadRefOutputs``).

    Attributes:
        tensor: the engine output the reference is for.
        file: the reference file.
        volume: the number of elements.
        bytes: the size read, in bytes.
    """

    kind: Literal["reference_output_loaded"] = "reference_output_loaded"
    tensor: str
    file: str
    volume: int
    bytes: int


class AccuracyCheck(EventBase):
    """``Accuracy loss for tensor <t> (<metric>): <value>[ [FAIL: >= threshold <thr>]]`` (11.x).

    One per output tensor and reference pair, when trtexec compares the engine's outputs with
    reference outputs (``--loadRefOutputs``, ``--refPair``). trtexec requires a positive
    ``--accuracyThreshold`` then, so a line without the ``[FAIL: ...]`` mark passed; the
    threshold is only printed on a failure (the options block's ``Accuracy Threshold:`` has it
    for the others).

    Attributes:
        tensor: the output tensor.
        metric: the accuracy algorithm (``--accuracyAlgorithm``): ``L0`` (share of elements
            outside ``atol``/``rtol``), ``L1``, ``L2``, ``LInf`` or ``Cosine`` (1 - cosine
            similarity).
        value: the accuracy loss (0 is a perfect match).
        threshold: the threshold the loss reached, on a failure.
        verdict: ``pass`` or ``fail`` (``value >= threshold``).
    """

    kind: Literal["accuracy_check"] = "accuracy_check"
    tensor: str
    metric: Literal["L0", "L1", "L2", "LInf", "Cosine", "Unknown"]
    value: float
    threshold: float | None = None
    verdict: Literal["pass", "fail"]


class ReferenceOutputMissing(EventBase):
    """``Reference output tensor <t> not found in output bindings`` ([W], 11.x): not checked.

    Attributes:
        tensor: the tensor named in ``--loadRefOutputs``/``--refPair`` that the engine lacks.
    """

    kind: Literal["reference_output_missing"] = "reference_output_missing"
    tensor: str


class RefPair(EventBase):
    """The ``[V]`` echo of the reference pairs trtexec read (11.x ``--refPair``).

    ``Parsed refPairs:`` (or ``Parsed inputs/refOutputs (no --refPair):``), then per pair
    ``  refPair[<i>]:`` and its ``loadInputs: {<name>:<file>, ...}`` and
    ``loadRefOutputs: {...}`` lines.

    Attributes:
        role: ``header``, ``pair`` (``refPair[<i>]:``), ``inputs`` or ``ref_outputs``.
        ref_pair: for ``header``: whether ``--refPair`` was used.
        index: for ``pair``: the pair's index.
        items: for ``inputs``/``ref_outputs``: the ``<name>:<file>`` items as printed (a name or
            a Windows path may hold ``:`` itself, so they are not split).
    """

    kind: Literal["ref_pair"] = "ref_pair"
    role: Literal["header", "pair", "inputs", "ref_outputs"]
    ref_pair: bool | None = None
    index: int | None = None
    items: tuple[str, ...] = ()


class TuningIteration(EventBase):
    """``Tuning iteration [<i>]: <route>`` / ``Expanded to <n> build route configurations`` (11.x).

    Attributes:
        iteration: the tuning iteration, for ``Tuning iteration``.
        route: the build route, for ``Tuning iteration``.
        configurations: the number of configurations, for ``Expanded to``.
    """

    kind: Literal["tuning_iteration"] = "tuning_iteration"
    iteration: int | None = None
    route: str | None = None
    configurations: int | None = None


class TuningPhase(EventBase):
    """``Tuning phase<n>: <i> iterations.`` (11.x ``--tuneBuildRoutes``): a phase starts.

    Attributes:
        phase: the phase (1; 2 for the second phase of the ``mixed`` search).
        iterations: how many build routes the phase tries.
    """

    kind: Literal["tuning_phase"] = "tuning_phase"
    phase: int
    iterations: int


class TuningFailure(EventBase):
    """``Iteration [<i>] failed: <reason>`` ([W], 11.x): a tuning child crashed or failed.

    Attributes:
        iteration: the iteration (the ``[iter=]`` of its ``&&&& TASK_ABORT`` banner).
        reason: what trtexec says (``child killed by signal 11 (Segmentation fault)``,
            ``missing tuning result file ...``, ``child exited with status 1``).
    """

    kind: Literal["tuning_failure"] = "tuning_failure"
    iteration: int
    reason: str


class TuningBest(EventBase):
    """``Best iteration: <route> (gpu_time_ms=<t>)`` (11.x): the route whose engine is kept.

    Attributes:
        route: the build route of the fastest successful iteration.
        gpu_time_ms: its mean GPU compute time (ms).
    """

    kind: Literal["tuning_best"] = "tuning_best"
    route: str
    gpu_time_ms: float


class TuningSummary(EventBase):
    """``Tuning summary: <s> / <n> iterations succeeded.`` (11.x), or the error that none did.

    The error ([E]) reads ``No tuning iteration succeeded; no engine written.``

    Attributes:
        succeeded: the iterations that succeeded (0 for the error).
        total: the iterations of the search; ``None`` for the error, which does not say.
    """

    kind: Literal["tuning_summary"] = "tuning_summary"
    succeeded: int
    total: int | None = None


class TuningNote(EventBase):
    """The other lines of the 11.x tuning loop, each with its one number.

    Attributes:
        note: ``mixed_search_phase2`` (``Mixed search: <n> positive knobs identified;
            entering phase 2.``), ``mixed_search_no_phase2`` (``... positive knob(s);
            skipping phase 2 (need >1).``), ``timeout`` (``Tuning timeout reached (<s>s);
            stopping early.``), ``resume`` (``--continue: resuming from iteration <i> using
            <n> args reconstructed from cache header.``), ``dry_run`` (``--dryRun: <n> build
            routes would be tried:``), ``no_save_engine`` ([W] ``--tuneBuildRoutes without
            --saveEngine: best engine will not be saved.``).
        value: the knobs, the seconds, the iteration resumed from, or the routes.
        args: for ``resume``, the arguments read back from the cache header.
    """

    kind: Literal["tuning_note"] = "tuning_note"
    note: Literal[
        "mixed_search_phase2",
        "mixed_search_no_phase2",
        "timeout",
        "resume",
        "dry_run",
        "no_save_engine",
    ]
    value: int | None = None
    args: int | None = None


class TuningRoute(EventBase):
    """``[<i>]:<route>``: one route of a ``--dryRun`` listing (11.x), after its ``--dryRun:`` line.

    Attributes:
        index: the iteration that would try the route.
        route: the build route as printed.
    """

    kind: Literal["tuning_route"] = "tuning_route"
    index: int
    route: str


RuntimeEvent = (
    LoggerDiffers
    | EngineCacheMiss
    | DefaultStreamWarning
    | Int8Fallback
    | PersistentCacheLimit
    | ExecContextCreated
    | InputFill
    | BindingCreated
    | BindingDynamic
    | BindingNameError
    | OptProfileHeader
    | OptProfileInfo
    | InferenceStart
    | ProfilerNotice
    | SkipInferenceNotice
    | CudaGraphCapture
    | EnqueueApi
    | TraceProlog
    | TraceDetails
    | TraceAverages
    | TraceAverage
    | TraceOmitted
    | PerfSummaryHeader
    | PerfStat
    | PerfScalar
    | PerfBlock7x
    | PerfStat7x
    | PerfWarning
    | PerfNote
    | PerfExplanationsHeader
    | PerfExplanations
    | ProfileHeader
    | ProfileColumns
    | ProfileRow
    | ProfileAuxStreamWarning
    | TensorsDumpHeader
    | TensorDumpDims
    | TensorDumpValues
    | RawDump
    | EngineRefitted
    | DeserializeTiming
    | AccuracyFailed
    | ReferenceOutputLoaded
    | AccuracyCheck
    | ReferenceOutputMissing
    | RefPair
    | TuningIteration
    | TuningPhase
    | TuningFailure
    | TuningBest
    | TuningSummary
    | TuningNote
    | TuningRoute
)
