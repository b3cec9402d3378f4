"""Events of builder set-up and autotuning (formats.md §F, §G).

Part of the data model (pydantic only). Tactic ids are unsigned 64-bit integers whatever the
version printed (decimal or hex, T26; :func:`trtlog.numbers.format_tactic` gives the 8.4+
spelling); times are milliseconds as floats (``inf`` occurs).
"""

from typing import Literal

from trtlog.events.base import EventBase
from trtlog.events.fields import LayerName, LayerNames
from trtlog.tensors import CompactFormat

__all__ = [
    "AutotuneCombination",
    "AutotuneCombinationSymbolic",
    "AutotuneEvent",
    "AutotuneReformat",
    "BackendStrategy",
    "BuilderNote",
    "CachedTactic",
    "CompilerBackend",
    "FastestTactic",
    "ForeignNodeMetadata",
    "FusionsEnabled",
    "HostIoReservation",
    "KernelNote",
    "LayerCostsHeader",
    "LegacyRunnerChoice",
    "LegacyTimingHeader",
    "MlirCodegen",
    "MyelinAutotuneOp",
    "MyelinMemBudget",
    "MyelinNote",
    "MyelinPassSkipped",
    "MyelinScalesToFp32",
    "MyelinTableColumns",
    "MyelinTactic",
    "NonconformingImplementation",
    "ProfileStart",
    "ProfilingWorkspace",
    "ReformatCostsHeader",
    "ReformatLayerAdded",
    "RunnerChoice",
    "RunnerProfiled",
    "RunnerSkipped",
    "SparsityChosen",
    "SparsityEligible",
    "StrictTypeViolation",
    "SubgraphCompiled",
    "TacticCountSet",
    "TacticFastSkipped",
    "TacticGpuError",
    "TacticNameSet",
    "TacticPruning",
    "TacticSkipped",
    "TacticSkippedException",
    "TacticSkippedMemory",
    "TacticSource",
    "TacticTiming",
    "TacticsDone",
    "TimingCacheDeleted",
    "TimingCacheLoaded",
    "TimingCacheMode",
    "TimingCacheSaved",
    "TimingCacheSerialized",
    "TimingCacheWarning",
    "TimingRunner",
    "WorkspaceAdvice",
    "WorkspaceHint",
]


class TacticSource(EventBase):
    """``Using <src> as a tactic source`` / ``Disabling unused tactic source: <SRC>, <SRC>``.

    8.0.3 prints ``Using cublas a tactic source`` (sic); 8.5 prints ``Using cublas as plugin
    tactic source`` and ``Using cuDNN as core library tactic source``.

    Attributes:
        sources: the tactic sources named (``cublasLt``, ``CUBLAS``...).
        enabled: ``True`` for ``Using``, ``False`` for ``Disabling``.
        role: ``plugin`` or ``core library`` when the line names one (8.5).
    """

    kind: Literal["tactic_source"] = "tactic_source"
    sources: tuple[str, ...]
    enabled: bool
    role: Literal["plugin", "core library"] | None = None


class TimingCacheMode(EventBase):
    """``Local|Global timing cache in use. ...`` (8.2+)."""

    kind: Literal["timing_cache_mode"] = "timing_cache_mode"
    mode: Literal["local", "global"]


class TimingCacheWarning(EventBase):
    """The timing cache could not be used.

    ``Could not read timing cache from: <path>. ...`` (10.4) and ``Could not read cache from:
    <path>. A new cache will be generated and written.`` (10.16) are both ``unreadable``.

    Attributes:
        reason: ``invalid`` (``Detected invalid timing cache...``) or ``unreadable``.
        path: the cache file, for ``unreadable``.
    """

    kind: Literal["timing_cache_warning"] = "timing_cache_warning"
    reason: Literal["invalid", "unreadable"]
    path: str | None = None


class TimingCacheDeleted(EventBase):
    """The builder drops its timing cache: ``Deleting timing cache: <n> entries, <h> hits``.

    8.0 - 8.2 print ``<h> hits``, 8.4+ ``served <h> hits since creation.``.

    Attributes:
        entries: the cache entries.
        hits: the cache hits served.
    """

    kind: Literal["timing_cache_deleted"] = "timing_cache_deleted"
    entries: int
    hits: int


class TimingCacheSerialized(EventBase):
    """``Serializing timing cache. UUID = <uuid>, commit ID = <id>`` (10.x).

    Attributes:
        uuid: the GPU's UUID (``GPU-31e9692b-...``).
        commit_id: the TensorRT build's commit id.
    """

    kind: Literal["timing_cache_serialized"] = "timing_cache_serialized"
    uuid: str
    commit_id: str


class TimingCacheSaved(EventBase):
    """``Saved <n> bytes of timing cache to <path>`` ([I], 10.x).

    Attributes:
        bytes: the size written.
        path: the cache file.
    """

    kind: Literal["timing_cache_saved"] = "timing_cache_saved"
    bytes: int
    path: str


class TimingCacheLoaded(EventBase):
    """``Loaded <n> bytes of timing cache from <path>`` ([I], trtexec ``--timingCacheFile``).

    Attributes:
        bytes: the size read.
        path: the cache file.
    """

    kind: Literal["timing_cache_loaded"] = "timing_cache_loaded"
    bytes: int
    path: str


class ProfileStart(EventBase):
    """``Constructing optimization profile number <i> [<k>/<n>].`` (or ``out of <n>``)."""

    kind: Literal["profile_start"] = "profile_start"
    profile: int
    position: int | None = None
    count: int


class HostIoReservation(EventBase):
    """``Reserving memory for host IO tensors. Host: <n> bytes`` (8.6)."""

    kind: Literal["host_io_reservation"] = "host_io_reservation"
    bytes: int


class CompilerBackend(EventBase):
    """``Compiler backend is used during engine build|execution.`` (10.x)."""

    kind: Literal["compiler_backend"] = "compiler_backend"
    phase: Literal["build", "execution"]


class WorkspaceHint(EventBase):
    """``Some tactics do not have sufficient workspace memory to run. ...``."""

    kind: Literal["workspace_hint"] = "workspace_hint"


class ReformatCostsHeader(EventBase):
    """``=============== Computing reformatting costs`` (often several in a row)."""

    kind: Literal["reformat_costs_header"] = "reformat_costs_header"


class LayerCostsHeader(EventBase):
    """``=============== Computing costs for <layer>`` (the name can be empty)."""

    kind: Literal["layer_costs_header"] = "layer_costs_header"
    layer: LayerName


class AutotuneReformat(EventBase):
    """``*************** Autotuning Reformat: <from> -> <to> ***************``.

    8.0 prints no blank after the colon; 8.5 marks a format `` long-strided``.

    Attributes:
        from_format: the source format.
        to_format: the target format.
        from_long_strided: the source format is marked `` long-strided``.
        to_long_strided: the target format is marked `` long-strided``.
    """

    kind: Literal["autotune_reformat"] = "autotune_reformat"
    from_format: CompactFormat
    to_format: CompactFormat
    from_long_strided: bool = False
    to_long_strided: bool = False


class AutotuneCombination(EventBase):
    """``*************** Autotuning format combination: <ins> -> <outs> ***************``.

    Attributes:
        inputs: input formats (strides, not dims; T15); may be empty.
        outputs: output formats; may be empty.
        long_strided_inputs: positions in ``inputs`` of formats marked `` long-strided`` (8.5).
        long_strided_outputs: positions in ``outputs`` of formats marked `` long-strided``.
    """

    kind: Literal["autotune_combination"] = "autotune_combination"
    inputs: tuple[CompactFormat, ...]
    outputs: tuple[CompactFormat, ...]
    long_strided_inputs: tuple[int, ...] = ()
    long_strided_outputs: tuple[int, ...] = ()


class TacticSkippedException(EventBase):
    """``Skipping tactic <id> due to exception <what>`` (or ``due to Myelin error``).

    A tactic the autotuner could not run ([V], [W]; 8.6 - 10.x). Harmless when the layer
    keeps another tactic; the failure's cause when none is left
    (:func:`trtlog.summary.outcome.tactic_exceptions` judges which). The same message as an
    error of the error recorder (``Error[9]: Error Code: 9: Skipping tactic ...``) stays a
    ``trt_error``.

    Attributes:
        tactic: the tactic id.
        cause: ``exception`` or ``myelin_error``.
        exception: what the exception says, as printed (may be empty).
    """

    kind: Literal["tactic_skipped_exception"] = "tactic_skipped_exception"
    tactic: int
    cause: Literal["exception", "myelin_error"]
    exception: str


class AutotuneCombinationSymbolic(EventBase):
    """A format combination with symbolic strides (dynamic shapes; 10.16, TensorRT-RTX).

    ``*************** Autotuning format combination: Float((* (# 1 (SHAPE x)) ...),...,1) ->
    ... where E0=(...) ***************``: the strides are expressions of the input shapes,
    kept as printed (no :class:`~trtlog.tensors.CompactFormat` holds them).

    Attributes:
        inputs: the input formats as printed.
        outputs: the output formats as printed.
        symbols: the definitions after ``where`` (``E0=(* ...)``), if printed.
    """

    kind: Literal["autotune_combination_symbolic"] = "autotune_combination_symbolic"
    inputs: str
    outputs: str
    symbols: str | None = None


class CachedTactic(EventBase):
    """A timing-cache hit: ``<layer> [<ins> -> <outs>] got cached result: <runner>, ...``.

    ``... got cached result: <runner>, tactic <id>, <t> ms`` (10.x). It stands for a timing:
    the tactic the cache holds for this layer and format combination, with the time measured
    when the entry was made.

    Attributes:
        layer: the layer (``Optimizer Reformat(<tensor> -> <out>)`` texts for reformats).
        inputs: input formats; may be empty.
        outputs: output formats; may be empty.
        runner: the runner (``CaskPooling``, ``Reformat``...).
        tactic: the tactic id (unsigned 64-bit).
        time_ms: the cached time in milliseconds.
    """

    kind: Literal["cached_tactic"] = "cached_tactic"
    layer: LayerName
    inputs: tuple[CompactFormat, ...]
    outputs: tuple[CompactFormat, ...]
    runner: str
    tactic: int
    time_ms: float


class TacticPruning(EventBase):
    """Tactics pruned before timing (8.5/8.6, gemm layers).

    ``<layer>: <n> available tactics, <u> unparsable, <p> pruned, <r> remaining after tactic
    pruning.``

    Attributes:
        layer: the layer (names may hold ``: `` and `` || ``).
        available: tactics available.
        unparsable: tactics whose description did not parse.
        pruned: tactics pruned.
        remaining: tactics left to time.
    """

    kind: Literal["tactic_pruning"] = "tactic_pruning"
    layer: LayerName
    available: int
    unparsable: int
    pruned: int
    remaining: int


class ReformatLayerAdded(EventBase):
    """``Adding reformat layer: <layer> (<tensor>) from <fmt> to <fmt>`` (8.0 - 10.x).

    Attributes:
        layer: the reformat layer (``Reformatted Input Tensor 0 to <consumer>``).
        tensor: the tensor it reformats (the last top-level parenthesised group), if found.
        from_format: the source format.
        to_format: the target format.
    """

    kind: Literal["reformat_layer_added"] = "reformat_layer_added"
    layer: LayerName
    tensor: LayerName | None = None
    from_format: CompactFormat
    to_format: CompactFormat


class StrictTypeViolation(EventBase):
    """``No implementation of layer <layer> obeys the requested constraints in strict mode. ...``.

    7.x-8.2 with ``kSTRICT_TYPES`` ([W]): no kernel of the requested precision exists for the
    layer, so TensorRT ignored the request and used the fastest implementation.

    Attributes:
        layer: the layer.
    """

    kind: Literal["strict_type_violation"] = "strict_type_violation"
    layer: LayerName


class NonconformingImplementation(EventBase):
    """``For layer <layer> a non-conforming implementation was chosen than was requested ...``.

    The layer's requested precisions were ignored because another implementation was faster
    (8.0 - 10.x).

    Attributes:
        layer: the layer.
        advice: the closing sentence (``Enable strict mode ...`` in 8.0,
            ``Set BuilderFlag::kPREFER_PRECISION_CONSTRAINTS ...`` from 8.2 on).
    """

    kind: Literal["nonconforming_implementation"] = "nonconforming_implementation"
    layer: LayerName
    advice: str


class TimingRunner(EventBase):
    """``--------------- Timing Runner: <layer> (<runner>[<id>])``.

    Attributes:
        layer: the layer timed; for reformats a synthetic text such as
            ``Optimizer Reformat(<in> -> x)``.
        runner: the runner (``CaskConvolution``, ``Reformat``...).
        runner_id: the 10.x runner id (``0x80000009``), if printed.
    """

    kind: Literal["timing_runner"] = "timing_runner"
    layer: LayerName
    runner: str
    runner_id: int | None = None


class LegacyTimingHeader(EventBase):
    """``--------------- Timing <layer>(<runnerId>)`` (TRT ≤ 6)."""

    kind: Literal["legacy_timing_header"] = "legacy_timing_header"
    layer: LayerName
    runner_id: int


class TacticTiming(EventBase):
    """One timed tactic: ``Tactic: <id> Time: <ms>`` and all its version shapes (G.7).

    Attributes:
        tactic: the tactic id (unsigned 64-bit).
        time_ms: the measured time in milliseconds.
        tactic_name: the kernel name, for the 8.5+ ``Tactic Name: <k> Tactic: ...`` shape.
        split_k: ``numSplitK`` of gemm kernels, when printed.
    """

    kind: Literal["tactic_timing"] = "tactic_timing"
    tactic: int
    time_ms: float
    tactic_name: str | None = None
    split_k: int | None = None


class TacticNameSet(EventBase):
    """A tactic's kernel name: ``<layer> Set Tactic Name: <kernel> Tactic: <id>`` (G.6).

    Also ``Tactic Name: <kernel>`` alone (8.5, ``ConvActPool`` runner; the tactic's
    ``Tactic: <id> Time: <t>`` line follows).

    Attributes:
        layer: the layer, when printed.
        tactic_name: the kernel name.
        tactic: the tactic id, when printed (7.x prints an implementation name instead).
        implementation: the 7.x implementation in parentheses (``h1688cudnn``).
        split_k: ``numSplitK`` of gemm kernels, when printed.
    """

    kind: Literal["tactic_name_set"] = "tactic_name_set"
    layer: LayerName | None = None
    tactic_name: str
    tactic: int | None = None
    implementation: str | None = None
    split_k: int | None = None


class TacticSkipped(EventBase):
    """A tactic skipped for want of scratch memory, or the only option (G.8).

    Attributes:
        tactic: the tactic id.
        requested_bytes: scratch memory requested, if printed.
        available_bytes: scratch memory available, if printed.
        only_option: ``Tactic <id> is the only option, timing skipped`` (TRT ≤ 6).
    """

    kind: Literal["tactic_skipped"] = "tactic_skipped"
    tactic: int
    requested_bytes: int | None = None
    available_bytes: int | None = None
    only_option: bool = False


class TacticFastSkipped(EventBase):
    """A tactic dropped after its pre-run: it was already slower than the time limit (G.8).

    ``Fast skip Tactic:<id> which exceed time limit during pre-run`` ([V], 8.6+): the
    autotuner stops timing a tactic whose first run exceeds the limit the fastest tactic so
    far sets; the tactic's ``Tactic Name: ... Time:`` line that follows still prints the
    pre-run time.

    Attributes:
        tactic: the tactic id.
    """

    kind: Literal["tactic_fast_skipped"] = "tactic_fast_skipped"
    tactic: int


class SparsityEligible(EventBase):
    """``(Sparsity) Found <n> layer(s) eligible to use sparse tactics: <layers>`` ([V], 8.0+).

    Printed once per build (and once more by Myelin, with `` (foreignNode)`` in front) when
    sparsity is enabled: the layers whose weights have the 2:4 structured-sparsity pattern.

    Attributes:
        count: the number TensorRT printed.
        layers: the layers it lists (comma-separated in the log).
        myelin: the Myelin compiler's line (`` (foreignNode) (Sparsity) ...``).
    """

    kind: Literal["sparsity_eligible"] = "sparsity_eligible"
    count: int
    layers: LayerNames = ()
    myelin: bool = False


class SparsityChosen(EventBase):
    """``(Sparsity) Chose <n> layer(s) using sparse tactics: <layers>`` ([V], 8.0+).

    The eligible layers whose fastest tactic was a sparse one (the others run dense).

    Attributes:
        count: the number TensorRT printed.
        layers: the layers it lists (none when ``count`` is 0).
        myelin: the Myelin compiler's line (`` (foreignNode) (Sparsity) ...``).
    """

    kind: Literal["sparsity_chosen"] = "sparsity_chosen"
    count: int
    layers: LayerNames = ()
    myelin: bool = False


class TacticSkippedMemory(EventBase):
    """A tactic skipped for insufficient device memory ([W], G.9), in all its shapes.

    Attributes:
        variant: ``skipping`` (``Skipping tactic <i> due to ...``), ``device_request``
            (``Tactic Device request: <n>MB Available: <m>MB ...``) or ``allocation``
            (``Requested amount of GPU memory (<n> bytes) could not be allocated ...``).
        index: the tactic's index in the runner (``skipping``).
        tactic: the tactic id (``skipping``).
        requested_bytes: the memory requested (``MB`` values converted to bytes).
        available_bytes: the memory available (``device_request``).
        error_code: ``UNSUPPORTED_STATE`` when the message carries it (9.x+).
        hint: the continuation line of 8.x (``Try decreasing the workspace size ...``).
    """

    kind: Literal["tactic_skipped_memory"] = "tactic_skipped_memory"
    variant: Literal["skipping", "device_request", "allocation"]
    index: int | None = None
    tactic: int | None = None
    requested_bytes: int | None = None
    available_bytes: int | None = None
    error_code: str | None = None
    hint: str | None = None


class FastestTactic(EventBase):
    """``Fastest Tactic: <id> Time: <ms>`` (7.x - 9.x)."""

    kind: Literal["fastest_tactic"] = "fastest_tactic"
    tactic: int
    time_ms: float


class RunnerProfiled(EventBase):
    """``<layer> (<runner>[<id>]) profiling completed in <s> seconds. Fastest Tactic: ...``.

    The 10.x form that folds ``fastest_tactic`` into one line.
    """

    kind: Literal["runner_profiled"] = "runner_profiled"
    layer: LayerName
    runner: str
    runner_id: int | None = None
    seconds: float
    tactic: int
    time_ms: float


class RunnerChoice(EventBase):
    """``>>>>>>>>>>>>>>> Chose Runner Type: <runner> Tactic: <id>``."""

    kind: Literal["runner_choice"] = "runner_choice"
    runner: str
    tactic: int


class LegacyRunnerChoice(EventBase):
    """``--------------- Chose <runnerId> (<tactic>)`` (TRT ≤ 6)."""

    kind: Literal["legacy_runner_choice"] = "legacy_runner_choice"
    runner_id: int
    tactic: int


class RunnerSkipped(EventBase):
    """``<Runner> has no valid tactics for this config, skipping`` / ``Skipping <R>: ...``."""

    kind: Literal["runner_skipped"] = "runner_skipped"
    runner: str
    layer: LayerName | None = None


class TacticGpuError(EventBase):
    """``GPU error during getBestTactic: <layer> : <message>`` ([W])."""

    kind: Literal["tactic_gpu_error"] = "tactic_gpu_error"
    layer: LayerName
    message: str


class TacticsDone(EventBase):
    """``Formats and tactics selection completed in <s> seconds.``."""

    kind: Literal["tactics_done"] = "tactics_done"
    seconds: float


class MyelinTactic(EventBase):
    """One row of Myelin's ``Sorted table of all evaluated tactics`` (10.x).

    `` (foreignNode)    0, 0.0188384, 1.00000, 0.92564, <kernel>, 0x4841c72cefae1,``

    Attributes:
        tactic_id: Myelin's tactic index (not a TensorRT tactic id).
        time_ms: the cost in milliseconds.
        relative: the cost over the fastest cost (``1.0`` for the fastest).
        correlation: the prediction correlation.
        kernel: the kernel name.
        tactic_hash: the tactic hash.
        tunable: the tunable parameter, ``None`` when empty.
        extra_columns: the values of further columns (``conv_w2c_input_fold``), as printed.
    """

    kind: Literal["myelin_tactic"] = "myelin_tactic"
    tactic_id: int
    time_ms: float
    relative: float
    correlation: float
    kernel: str
    tactic_hash: int
    tunable: str | None = None
    extra_columns: tuple[str, ...] = ()


class MyelinTableColumns(EventBase):
    """`` (foreignNode) tactic_id, cost(in ms), ...``: the columns of Myelin's tactic table.

    Attributes:
        columns: the column names, in order.
    """

    kind: Literal["myelin_table_columns"] = "myelin_table_columns"
    columns: tuple[str, ...]


class MyelinNote(EventBase):
    """A fixed Myelin message (8.5 - 10.x).

    `` (foreignNode) Sorted table of all evaluated tactics:`` and
    `` (foreignNode) Set user's cuda kernel library``.

    Attributes:
        text: the message without its `` (foreignNode) `` prefix.
    """

    kind: Literal["myelin_note"] = "myelin_note"
    text: str


class MyelinScalesToFp32(EventBase):
    """`` (foreignNode) Converting conv activation|weight scales to fp32.`` ([W], 10.x).

    Myelin converts the quantization scales of a convolution to FP32 (the FP8 convolutions
    of a ModelOpt-quantized model print it once per kind of scale).

    Attributes:
        scales: ``activation`` or ``weight``.
    """

    kind: Literal["myelin_scales_to_fp32"] = "myelin_scales_to_fp32"
    scales: Literal["activation", "weight"]


class MyelinAutotuneOp(EventBase):
    """`` (foreignNode) Autotuning op <op>: [ONNX Layer: <node>]...`` (10.x).

    Attributes:
        op: the Myelin op being tuned.
        onnx_layers: the ONNX nodes it implements (metadata groups, T18).
    """

    kind: Literal["myelin_autotune_op"] = "myelin_autotune_op"
    op: LayerName
    onnx_layers: LayerNames


class MyelinPassSkipped(EventBase):
    """`` (foreignNode) Pass <pass> is currently skipped for <reason>`` (8.5).

    Attributes:
        pass_name: the Myelin pass (``fuse_conv_padding``).
        reason: what it is skipped for (``dynamic shapes``).
    """

    kind: Literal["myelin_pass_skipped"] = "myelin_pass_skipped"
    pass_name: str
    reason: str


class MyelinMemBudget(EventBase):
    """`` (foreignNode) [pass.cpp:2131: run_passes] Exceeded mem budget of <b>. Need <n>``.

    Two enveloped lines of advice follow it (``workspace_advice``); they are separate events,
    as TensorRT logged them separately.

    Attributes:
        source: the Myelin source location (``pass.cpp:2131``).
        function: the Myelin function (``run_passes``).
        budget_bytes: the memory budget.
        needed_bytes: the memory needed.
    """

    kind: Literal["myelin_mem_budget"] = "myelin_mem_budget"
    source: str
    function: str
    budget_bytes: int
    needed_bytes: int


class WorkspaceAdvice(EventBase):
    """Advice after ``myelin_mem_budget`` (10.x; each line starts with a blank).

    `` Try increasing the workspace size with IBuilderConfig::setMemoryPoolLimit.`` and
    `` Example of equivalent trtexec option: --memPoolSize=workspace:16384``.

    Attributes:
        api: the builder call to use (first line).
        pool: the memory pool of the trtexec option (second line).
        size_mib: the pool size of the trtexec option, in MiB (trtexec's unit).
    """

    kind: Literal["workspace_advice"] = "workspace_advice"
    api: str | None = None
    pool: str | None = None
    size_mib: int | None = None


class ForeignNodeMetadata(EventBase):
    """``ForeignNode <layer> metadata: [ONNX Layer: <node>]\\x1e...`` (10.x).

    Names the ONNX nodes a Myelin region implements; the merge graph places them with it.

    Attributes:
        layer: the ForeignNode layer (``{ForeignNode[a...b]}``).
        onnx_layers: the ONNX node names (empty when the metadata is).
    """

    kind: Literal["foreign_node_metadata"] = "foreign_node_metadata"
    layer: LayerName
    onnx_layers: LayerNames


class SubgraphCompiled(EventBase):
    """``Subgraph compilation completed in <s> seconds.`` (Myelin, 10.x).

    Attributes:
        seconds: the compilation time.
    """

    kind: Literal["subgraph_compiled"] = "subgraph_compiled"
    seconds: float


class FusionsEnabled(EventBase):
    """``Enabling <precision> fusions at optimization level <n>`` (10.x).

    Attributes:
        precision: the fusions enabled (``FP8``).
        level: the builder optimization level.
    """

    kind: Literal["fusions_enabled"] = "fusions_enabled"
    precision: str
    level: int


class TacticCountSet(EventBase):
    """``Set number of tactics to <n> at optimization level <l>`` (10.x).

    Attributes:
        count: the number of tactics.
        level: the builder optimization level.
    """

    kind: Literal["tactic_count_set"] = "tactic_count_set"
    count: int
    level: int


class ProfilingWorkspace(EventBase):
    """``Setting workspace to <n>enables more tactics for profiling`` (8.2 - 10.x, sic).

    Attributes:
        bytes: the workspace size set for profiling.
    """

    kind: Literal["profiling_workspace"] = "profiling_workspace"
    bytes: int


class BackendStrategy(EventBase):
    """The builder trying backend strategies (8.6, 10.x).

    * ``build``: ``Building graph using backend strategy <n>``
    * ``initial``: ``Use backend strategy <n> with estimated inference time (<t>) as the
      initial choice.``
    * ``chosen``: ``Chose this engine with backend strategy <n> since its estimated inference
      time (<t>) is faster than the previous engine with estimated inference time (<p>).``
    * ``skipped``: ``Skip backend strategy <n>since its estimated inference time (<t>) is not
      faster than ...`` (sic)

    Attributes:
        action: ``build``, ``initial``, ``chosen`` or ``skipped``.
        strategy: the strategy number.
        estimated_time: the estimated inference time, as printed (no unit).
        previous_time: the previous engine's estimated time.
    """

    kind: Literal["backend_strategy"] = "backend_strategy"
    action: Literal["build", "initial", "chosen", "skipped"]
    strategy: int
    estimated_time: float | None = None
    previous_time: float | None = None


class BuilderNote(EventBase):
    """A fixed builder message about backends (10.x).

    ``InternalBuildFlags::kENABLE_INTERNAL_MYELIN_TESTING is enabled, or BackendStrategy is to
    prefer Myelin, ... so all operators supported by Myelin will be offloaded to Myelin.``

    Attributes:
        text: the message.
    """

    kind: Literal["builder_note"] = "builder_note"
    text: str


class KernelNote(EventBase):
    """``Unrecognized MMA instruction source format or shape: <kernel>`` (8.5, corpus)."""

    kind: Literal["kernel_note"] = "kernel_note"
    tactic_name: str


class MlirCodegen(EventBase):
    """A bare ``[mlir_fusion_codegen.cpp::<function>] <message>`` line (TensorRT-LLM builds).

    TensorRT-LLM's verbose engine builds interleave these lines of the code generator, without
    an envelope, between the builder's own (``blob.name_: <kernel>`` for each generated
    kernel).

    Attributes:
        file: the source file (``mlir_fusion_codegen.cpp``).
        function: the function (``codegen``).
        message: the rest of the line.
        kernel: the generated kernel, for ``blob.name_: <kernel>`` lines.
    """

    kind: Literal["mlir_codegen"] = "mlir_codegen"
    file: str
    function: str
    message: str
    kernel: str | None = None


AutotuneEvent = (
    StrictTypeViolation
    | MlirCodegen
    | TacticSource
    | TimingCacheMode
    | TimingCacheWarning
    | ProfileStart
    | HostIoReservation
    | CompilerBackend
    | WorkspaceHint
    | ReformatCostsHeader
    | LayerCostsHeader
    | AutotuneReformat
    | AutotuneCombination
    | AutotuneCombinationSymbolic
    | TacticSkippedException
    | TimingRunner
    | LegacyTimingHeader
    | TacticTiming
    | TacticNameSet
    | TacticSkipped
    | TacticFastSkipped
    | SparsityEligible
    | SparsityChosen
    | TacticSkippedMemory
    | FastestTactic
    | RunnerProfiled
    | RunnerChoice
    | LegacyRunnerChoice
    | RunnerSkipped
    | TacticGpuError
    | TacticsDone
    | KernelNote
    | TimingCacheDeleted
    | TimingCacheSerialized
    | TimingCacheLoaded
    | TimingCacheSaved
    | CachedTactic
    | TacticPruning
    | ReformatLayerAdded
    | NonconformingImplementation
    | MyelinTactic
    | MyelinTableColumns
    | MyelinNote
    | MyelinScalesToFp32
    | MyelinAutotuneOp
    | MyelinPassSkipped
    | MyelinMemBudget
    | WorkspaceAdvice
    | ForeignNodeMetadata
    | SubgraphCompiled
    | FusionsEnabled
    | TacticCountSet
    | ProfilingWorkspace
    | BackendStrategy
    | BuilderNote
)
