"""Events of graph optimization and layer placement (formats.md §D, §E).

Part of the data model (pydantic only). Each class's ``kind`` is the event name of
formats.md. Layer and tensor names are kept as printed; :meth:`EventBase.names` splits them.
"""

from typing import Literal

from trtlog.events.base import EventBase
from trtlog.events.fields import LayerName, LayerNames

__all__ = [
    "BuilderModeConfigured",
    "ConcatElimination",
    "ConvScaleFusion",
    "CopyGenerated",
    "CopyInserted",
    "DefaultQuantization",
    "DlaFallback",
    "DlaMemoryHeader",
    "DlaMemorySummary",
    "DlaOffloadSummary",
    "DlaOffloaded",
    "DlaProfileFallback",
    "DlaSubgraphLimit",
    "DynamicRangeSet",
    "Fusion",
    "FusionInto",
    "GraphBuildDone",
    "GraphDumpDims",
    "GraphDumpHeader",
    "GraphDumpIo",
    "GraphDumpLayer",
    "GraphOptTime",
    "HorizontalMerge",
    "InputBroadcast",
    "InputReplaced",
    "LayerCount",
    "LayerRemoved",
    "LayerSwap",
    "LayerTypeChange",
    "MissingScale",
    "MultiStreamCount",
    "MultiStreamDisabled",
    "MultiStreamDone",
    "MultiStreamNote",
    "OptimizerEvent",
    "OptimizerNote",
    "OptimizerStart",
    "PassRun",
    "PlacementDla",
    "PlacementGpu",
    "PlacementHeader",
    "PlacementList",
    "PlacementNone",
    "QdqDedup",
    "QdqPhase",
    "QdqSwap",
    "Retarget",
    "ScaleAssigned",
    "ScaleOverridden",
    "ScaleOverride",
    "SliceElimination",
    "SqueezePushDown",
    "UnusedInput",
]


class OptimizerStart(EventBase):
    """``Applying generic optimizations to the graph for inference.`` (6.x - 8.6)."""

    kind: Literal["optimizer_start"] = "optimizer_start"


class LayerCount(EventBase):
    """The number of layers after an optimization stage.

    Attributes:
        stage: ``Original`` or the phase after ``After`` (``dead-layer removal``,
            ``vertical fusions``, ``reformat layers``...). Stages repeat.
        layers: the layer count.
    """

    kind: Literal["layer_count"] = "layer_count"
    stage: str
    layers: int


class GraphBuildDone(EventBase):
    """Graph construction (and, before 10.x, optimization) finished.

    Attributes:
        seconds: the time printed.
        includes_optimization: ``True`` for the ≤ 9.x message that covers both.
    """

    kind: Literal["graph_build_done"] = "graph_build_done"
    seconds: float
    includes_optimization: bool = False


class GraphOptTime(EventBase):
    """``Graph optimization time: <s> seconds.`` (10.x)."""

    kind: Literal["graph_opt_time"] = "graph_opt_time"
    seconds: float


class PassRun(EventBase):
    """``Running: <pass> on <layer>``: a pass starts on a layer.

    8.2 prints ``Running: <pass>`` alone; the layer is then unknown.

    Attributes:
        pass_name: the optimization pass (an identifier; new ones appear every release).
        layer: the layer it runs on (``None`` when the line names none).
    """

    kind: Literal["pass_run"] = "pass_run"
    pass_name: str
    layer: LayerName | None = None


class Fusion(EventBase):
    """``<pass>: Fusing <first> with <second>`` (``pass_name`` is ``None`` before 8.x).

    The separator `` with `` can occur inside names; the message is split at its first
    occurrence (formats.md T1).
    """

    kind: Literal["fusion"] = "fusion"
    pass_name: str | None = None
    first: LayerName
    second: LayerName


class ConvScaleFusion(EventBase):
    """``Fusing convolution weights from <conv> with scale <scale>`` (7.x/8.0)."""

    kind: Literal["conv_scale_fusion"] = "conv_scale_fusion"
    conv: LayerName
    scale: LayerName


class FusionInto(EventBase):
    """``<pass>: fusing <a> into <b>`` or ``fusing (<a> and <b>) into <c>`` (8.4, Q/DQ).

    Attributes:
        pass_name: the pass (``QuantizeDoubleInputNodes``).
        sources: the Q/DQ layers fused in.
        target: the layer they were fused into.
    """

    kind: Literal["fusion_into"] = "fusion_into"
    pass_name: str
    sources: LayerNames
    target: LayerName


class LayerRemoved(EventBase):
    """``Removing <layer>``: the layer was removed (often an already-fused name)."""

    kind: Literal["layer_removed"] = "layer_removed"
    layer: LayerName


class LayerSwap(EventBase):
    """``Swapping <first> with <second>``: Q/DQ propagation exchanged two layers."""

    kind: Literal["layer_swap"] = "layer_swap"
    first: LayerName
    second: LayerName


class QdqSwap(EventBase):
    """``Swap the layer type of <layer> from <T1> to <T2>`` (8.4+: QUANTIZE→kQDQ...)."""

    kind: Literal["qdq_swap"] = "qdq_swap"
    layer: LayerName
    from_type: str
    to_type: str


class LayerTypeChange(EventBase):
    """``Convert layer type of <layer> from <T1> to <T2>`` (7.x/8.0)."""

    kind: Literal["layer_type_change"] = "layer_type_change"
    layer: LayerName
    from_type: str
    to_type: str


class QdqDedup(EventBase):
    """``Eliminating <layer> which duplicates (Q|DQ) <original>``.

    Attributes:
        layer: the eliminated duplicate.
        qdq: ``Q`` or ``DQ``.
        duplicate_of: the layer kept.
    """

    kind: Literal["qdq_dedup"] = "qdq_dedup"
    layer: LayerName
    qdq: Literal["Q", "DQ"]
    duplicate_of: LayerName


class QdqPhase(EventBase):
    """A fixed message naming a phase of the QDQ graph optimizer (8.4, 8.5).

    Attributes:
        phase: the message (``QDQ graph optimizer backward pass``...).
    """

    kind: Literal["qdq_phase"] = "qdq_phase"
    phase: str


class HorizontalMerge(EventBase):
    """``Merging layers: a || b || c`` (each operand may itself be a fused name)."""

    kind: Literal["horizontal_merge"] = "horizontal_merge"
    layers: LayerNames


class SliceElimination(EventBase):
    """``Eliminating slice <slice> by retargeting <tensor> from <old> to <new>``."""

    kind: Literal["slice_elimination"] = "slice_elimination"
    slice: LayerName
    tensor: str
    from_tensor: str
    to_tensor: str


class ConcatElimination(EventBase):
    """``Eliminating concatenation <concat>``."""

    kind: Literal["concat_elimination"] = "concat_elimination"
    concat: LayerName


class CopyGenerated(EventBase):
    """``Generating copy for <tensor> to <target> because <reason>``."""

    kind: Literal["copy_generated"] = "copy_generated"
    tensor: str
    target: str
    reason: str


class Retarget(EventBase):
    """``Retargeting <tensor> to <target>``."""

    kind: Literal["retarget"] = "retarget"
    tensor: str
    target: str


class OptimizerNote(EventBase):
    """Other fixed optimizer messages (``Applying ScaleNodes fusions.`` ...)."""

    kind: Literal["optimizer_note"] = "optimizer_note"
    text: str


class SqueezePushDown(EventBase):
    """``-----------SqueezePushDown <case> case: a --> b --> c`` (7.x/8.0).

    Attributes:
        case: the case name (``kSQUEEZE_FORK``...).
        layers: the chain of layers, split at `` --> ``.
    """

    kind: Literal["squeeze_push_down"] = "squeeze_push_down"
    case: str
    layers: LayerNames


class MissingScale(EventBase):
    """``Missing scale and zero-point for tensor <t>, expect fall back to non-int8 ...``."""

    kind: Literal["missing_scale"] = "missing_scale"
    tensor: str


class DefaultQuantization(EventBase):
    """``Setting a default quantization params because quantization data is missing for <x>``.

    Seen in 8.5 ``--best``/``--int8`` builds without calibration: the layer gets placeholder
    dynamic ranges (a real line missing from formats.md).
    """

    kind: Literal["default_quantization"] = "default_quantization"
    layer: LayerName


class ScaleOverride(EventBase):
    """``User overriding scale with scale and zero-point Quantization(scale: {..}, ...)``.

    Attributes:
        scales: the scale values printed.
        zero_points: the zero points printed.
    """

    kind: Literal["scale_override"] = "scale_override"
    scales: tuple[float, ...]
    zero_points: tuple[float, ...]


class PlacementHeader(EventBase):
    """``---------- Layers Running on DLA|GPU ----------`` (8.2+)."""

    kind: Literal["placement_header"] = "placement_header"
    device: Literal["DLA", "GPU"]


class PlacementList(EventBase):
    """``--------------- Layers running on GPU: a, b, c`` (7.x, one comma-joined list).

    The 7.1 logs print the list on the next enveloped line (empty when no layer runs on the
    device); the event then spans both lines.

    Attributes:
        device: ``DLA`` or ``GPU``.
        layers: the layers, split at top-level commas.
    """

    kind: Literal["placement_list"] = "placement_list"
    device: Literal["DLA", "GPU"]
    layers: LayerNames


class PlacementDla(EventBase):
    """``[DlaLayer] <layer>``: the layer runs on DLA."""

    kind: Literal["placement_dla"] = "placement_dla"
    layer: LayerName


class PlacementGpu(EventBase):
    """``[GpuLayer] <TYPE>: <layer>`` (8.4+) or ``[GpuLayer] <layer>`` (8.2).

    Attributes:
        layer: the layer.
        layer_type: the upper-case layer kind (``CONVOLUTION``, ``MYELIN``...), when printed.
    """

    kind: Literal["placement_gpu"] = "placement_gpu"
    layer: LayerName
    layer_type: str | None = None


class DlaOffloadSummary(EventBase):
    """``Number of DLA node candidates offloaded : <n> out of <m>`` (10.x).

    8.4 indents it with a tab under ``DLA Memory Consumption Summary:``.
    """

    kind: Literal["dla_offload_summary"] = "dla_offload_summary"
    offloaded: int
    candidates: int


class DlaOffloaded(EventBase):
    """``<layer> successfully offloaded to DLA.`` (10.x)."""

    kind: Literal["dla_offloaded"] = "dla_offloaded"
    layer: LayerName


class DlaSubgraphLimit(EventBase):
    """``DLA supports only <n> subgraphs per DLA core. Switching to GPU for layer <layer>``.

    [W], 8.x-10.x: the network split into more DLA subgraphs than a core loads, so the
    layers past the limit run on the GPU.

    Attributes:
        limit: the number of subgraphs a DLA core supports.
        layer: the layer sent to the GPU.
    """

    kind: Literal["dla_subgraph_limit"] = "dla_subgraph_limit"
    limit: int
    layer: LayerName


class DlaProfileFallback(EventBase):
    """A DLA build with a dynamic profile: every DLA layer goes to the GPU ([W], 10.x).

    ``DLA requests all profiles have same min, max, and opt value. All dla layers are falling
    back to GPU``.
    """

    kind: Literal["dla_profile_fallback"] = "dla_profile_fallback"


class DlaFallback(EventBase):
    """A layer that cannot run on DLA goes to the GPU (7.x - 10.x warnings).

    Attributes:
        layer: the layer, when the message names one.
        layer_type: the layer kind, when printed (``Layer 'x' (SHUFFLE): ...``).
        reason: ``not_supported``, ``unsupported_type``, ``precision``, ``dynamic_shape``,
            ``no_dla_layer`` or ``operation``.
        detail: the unsupported operation, for ``operation``.
    """

    kind: Literal["dla_fallback"] = "dla_fallback"
    layer: LayerName | None = None
    layer_type: str | None = None
    reason: Literal[
        "not_supported",
        "unsupported_type",
        "precision",
        "dynamic_shape",
        "no_dla_layer",
        "operation",
    ]
    detail: str | None = None


class CopyInserted(EventBase):
    """``Generating copy after|before <layer>`` (8.5, Q/DQ propagation).

    Attributes:
        position: ``after`` or ``before`` the layer.
        layer: the layer the copy is generated next to.
    """

    kind: Literal["copy_inserted"] = "copy_inserted"
    position: Literal["after", "before"]
    layer: LayerName


class InputReplaced(EventBase):
    """``Replacing input <i> of <layer> with <tensor> (output of <producer>)`` (8.5).

    Attributes:
        layer: the layer whose input is replaced.
        index: the input index.
        tensor: the new input tensor.
        producer: the layer that produces it.
    """

    kind: Literal["input_replaced"] = "input_replaced"
    layer: LayerName
    index: int
    tensor: LayerName
    producer: LayerName


class InputBroadcast(EventBase):
    """A matrix multiply broadcasts one input ([I], 8.4/8.5).

    ``<layer>: broadcasting input<i> to make tensors conform, dims(input0)=[...][NONE]
    dims(input1)=[...][NONE].`` The bracketed tag after each shape (``[NONE]``) is not kept.

    Attributes:
        layer: the layer (a matrix multiply).
        input_index: the input that is broadcast.
        input0_dims: the first input's dimensions.
        input1_dims: the second input's dimensions.
    """

    kind: Literal["input_broadcast"] = "input_broadcast"
    layer: LayerName
    input_index: int
    input0_dims: tuple[int, ...]
    input1_dims: tuple[int, ...]


class DynamicRangeSet(EventBase):
    """``Setting dynamic range for <tensor> to [<low>,<high>]`` (8.4/8.5, INT8 builds).

    Attributes:
        tensor: the tensor.
        low: the lower bound.
        high: the upper bound.
    """

    kind: Literal["dynamic_range_set"] = "dynamic_range_set"
    tensor: LayerName
    low: float
    high: float


class ScaleAssigned(EventBase):
    """A tensor takes the scales of another (8.5, two enveloped lines, one event).

    ``Assigning <tensor> scale and zero-point`` + ``using <source> scale and zero-point
    Quantization(scale: {...}, zero-point: {...})``.

    Attributes:
        tensor: the tensor that receives the scales (as printed; a copy's name may end in
            `` copy``).
        source: the tensor whose scales it takes (``None`` without the ``using`` line).
        scales: the scales (empty when printed ``{}``).
        zero_points: the zero points.
    """

    kind: Literal["scale_assigned"] = "scale_assigned"
    tensor: LayerName
    source: LayerName | None = None
    scales: tuple[float, ...] = ()
    zero_points: tuple[float, ...] = ()


class ScaleOverridden(EventBase):
    """A tensor's scales are overridden (8.5, two enveloped lines, one event).

    ``Overriding <tensor> scale and zero-point Quantization(...)`` + ``using <source> scale
    and zero-point Quantization(...)``.

    Attributes:
        tensor: the tensor whose scales are overridden.
        scales: its scales as printed on the first line.
        zero_points: its zero points as printed on the first line.
        source: the tensor whose scales it takes (``None`` without the ``using`` line).
        source_scales: the source's scales.
        source_zero_points: the source's zero points.
    """

    kind: Literal["scale_overridden"] = "scale_overridden"
    tensor: LayerName
    scales: tuple[float, ...]
    zero_points: tuple[float, ...]
    source: LayerName | None = None
    source_scales: tuple[float, ...] = ()
    source_zero_points: tuple[float, ...] = ()


class BuilderModeConfigured(EventBase):
    """``Configuring builder for <mode> Mode completed in <s> seconds.`` (8.4/8.5).

    Attributes:
        mode: the mode (``Int8``).
        seconds: the time taken.
    """

    kind: Literal["builder_mode_configured"] = "builder_mode_configured"
    mode: str
    seconds: float


class UnusedInput(EventBase):
    """A network input nothing uses ([W], 8.5).

    ``Unused Input: <tensor>`` and ``[RemoveDeadLayers] Input Tensor <tensor> is unused or used
    only at compile-time, but is not being removed.`` (``kept``).

    Attributes:
        tensor: the input tensor.
        kept: the dead-layer removal keeps it (the ``[RemoveDeadLayers]`` line).
    """

    kind: Literal["unused_input"] = "unused_input"
    tensor: LayerName
    kept: bool


class GraphDumpHeader(EventBase):
    """``SYMBOLIC CHECKS`` / ``GRAPH NODES``: the 10.x graph dump after ``Original: N layers``.

    Attributes:
        title: the header as printed.
    """

    kind: Literal["graph_dump_header"] = "graph_dump_header"
    title: Literal["SYMBOLIC CHECKS", "GRAPH NODES"]


class GraphDumpLayer(EventBase):
    """``<TYPE> <name>``: a layer of the graph dump (``CONSTANT gemm1.weight``, 10.x).

    Attributes:
        layer_type: the layer type (``CONVOLUTION``, ``MATRIX_MULTIPLY``...).
        layer: the layer name.
    """

    kind: Literal["graph_dump_layer"] = "graph_dump_layer"
    layer_type: str
    layer: LayerName


class GraphDumpIo(EventBase):
    """``    Input <i>`` / ``    Output <i>``: a tensor of the graph dump's current layer.

    Attributes:
        side: ``input`` or ``output``.
        index: the input or output index.
    """

    kind: Literal["graph_dump_io"] = "graph_dump_io"
    side: Literal["input", "output"]
    index: int


class GraphDumpDims(EventBase):
    """``        1024\t1024`` / ``        [1,16]\tnBS``: one dimension of the tensor above.

    Attributes:
        values: the tab-separated values as printed (a size or a ``[min,max]`` range, then
            the size or the dimension's symbolic name).
    """

    kind: Literal["graph_dump_dims"] = "graph_dump_dims"
    values: tuple[str, ...]


class MultiStreamCount(EventBase):
    """``[MS] Number of <what> is <n>`` (multi-stream, 8.6/10.x).

    Attributes:
        counted: ``streams`` (``streams used``), ``events`` (``events used``),
            ``aux_streams`` or ``worker_streams`` (``total worker streams``).
        count: the number.
    """

    kind: Literal["multi_stream_count"] = "multi_stream_count"
    counted: Literal["streams", "events", "aux_streams", "worker_streams"]
    count: int


class MultiStreamDone(EventBase):
    """``[MS] Multi stream splitting completed in <s> seconds.`` (10.x).

    Attributes:
        seconds: the time taken.
    """

    kind: Literal["multi_stream_done"] = "multi_stream_done"
    seconds: float


class MultiStreamDisabled(EventBase):
    """``[MS] Multi stream is disabled <reason>`` (10.x).

    Attributes:
        reason: the rest of the message (``as cannot find an opportunity to leverage it``,
            ``because the stream assignment failed.``).
    """

    kind: Literal["multi_stream_disabled"] = "multi_stream_disabled"
    reason: str


class MultiStreamNote(EventBase):
    """A fixed ``[MS]`` message when an engine with several streams is set up (10.x).

    Attributes:
        text: the message without ``[MS] ``.
    """

    kind: Literal["multi_stream_note"] = "multi_stream_note"
    text: str


class PlacementNone(EventBase):
    """``No layer is running on DLA`` ([I], 8.5).

    Attributes:
        device: the device no layer runs on.
    """

    kind: Literal["placement_none"] = "placement_none"
    device: Literal["DLA", "GPU"]


class DlaMemoryHeader(EventBase):
    """``DLA Memory Consumption Summary:`` (8.4)."""

    kind: Literal["dla_memory_header"] = "dla_memory_header"


class DlaMemorySummary(EventBase):
    """The memory the accepted DLA candidates need (8.4, tab-indented).

    ``\tTotal memory required by accepted candidates : Managed SRAM = <n> MiB,\tLocal DRAM =
    <n> MiB,\tGlobal DRAM = <n> MiB``

    Attributes:
        managed_sram_mib: managed SRAM, in MiB.
        local_dram_mib: local DRAM, in MiB.
        global_dram_mib: global DRAM, in MiB.
    """

    kind: Literal["dla_memory_summary"] = "dla_memory_summary"
    managed_sram_mib: int
    local_dram_mib: int
    global_dram_mib: int


OptimizerEvent = (
    DlaSubgraphLimit
    | DlaProfileFallback
    | OptimizerStart
    | LayerCount
    | GraphBuildDone
    | GraphOptTime
    | PassRun
    | Fusion
    | ConvScaleFusion
    | FusionInto
    | LayerRemoved
    | LayerSwap
    | QdqSwap
    | LayerTypeChange
    | QdqDedup
    | QdqPhase
    | HorizontalMerge
    | SliceElimination
    | ConcatElimination
    | CopyGenerated
    | Retarget
    | OptimizerNote
    | SqueezePushDown
    | MissingScale
    | DefaultQuantization
    | ScaleOverride
    | PlacementHeader
    | PlacementList
    | PlacementDla
    | PlacementGpu
    | DlaOffloadSummary
    | DlaOffloaded
    | DlaFallback
    | CopyInserted
    | InputReplaced
    | InputBroadcast
    | DynamicRangeSet
    | ScaleAssigned
    | ScaleOverridden
    | BuilderModeConfigured
    | UnusedInput
    | GraphDumpHeader
    | GraphDumpLayer
    | GraphDumpIo
    | GraphDumpDims
    | MultiStreamCount
    | MultiStreamDone
    | MultiStreamDisabled
    | MultiStreamNote
    | PlacementNone
    | DlaMemoryHeader
    | DlaMemorySummary
)
