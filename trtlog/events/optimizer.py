"""Events of graph optimization and layer placement (formats.md §D, §E).

Part of the data model (pydantic only). Each class's ``kind`` is the event name of
formats.md. Layer and tensor names are kept as printed; :meth:`EventBase.names` splits them.
"""

from __future__ import annotations

from typing import Literal

from trtlog.events.base import EventBase
from trtlog.events.fields import LayerName, LayerNames

__all__ = [
    "ConcatElimination",
    "ConvScaleFusion",
    "CopyGenerated",
    "DefaultQuantization",
    "DlaFallback",
    "DlaOffloadSummary",
    "DlaOffloaded",
    "Fusion",
    "FusionInto",
    "GraphBuildDone",
    "GraphOptTime",
    "HorizontalMerge",
    "LayerCount",
    "LayerRemoved",
    "LayerSwap",
    "LayerTypeChange",
    "MissingScale",
    "OptimizerEvent",
    "OptimizerNote",
    "OptimizerStart",
    "PassRun",
    "PlacementDla",
    "PlacementGpu",
    "PlacementHeader",
    "PlacementList",
    "QdqDedup",
    "QdqPhase",
    "QdqSwap",
    "Retarget",
    "ScaleOverride",
    "SliceElimination",
    "SqueezePushDown",
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

    Attributes:
        pass_name: the optimization pass (an identifier; new ones appear every release).
        layer: the layer it runs on.
    """

    kind: Literal["pass_run"] = "pass_run"
    pass_name: str
    layer: LayerName


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
    """A fixed message naming a phase of the QDQ graph optimizer (8.4)."""

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
    """``--------------- Layers running on GPU: a, b, c`` (7.x, one comma-joined line)."""

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
    """``Number of DLA node candidates offloaded : <n> out of <m>`` (10.x)."""

    kind: Literal["dla_offload_summary"] = "dla_offload_summary"
    offloaded: int
    candidates: int


class DlaOffloaded(EventBase):
    """``<layer> successfully offloaded to DLA.`` (10.x)."""

    kind: Literal["dla_offloaded"] = "dla_offloaded"
    layer: LayerName


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


OptimizerEvent = (
    OptimizerStart
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
)
