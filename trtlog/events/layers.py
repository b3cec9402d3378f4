"""Events of the layers family.

Engine layer dumps: `Engine Layer Information:`, the 10.x `Layers:` dump,
`--dumpLayerInfo` inspector records (formats.md §I, §K.2, §K.3).

Part of the data model (pydantic only). The builder's listing gives one
:class:`EngineLayerInfo` per engine layer; the engine inspector's one-line text (printed by
``--dumpLayerInfo`` after :class:`LayerInfoDump`, and by 10.x verbose builds after
:class:`EngineLayersDetailed`) gives one :class:`InspectorRecord` per layer, or one
:class:`InspectorLayerName` per layer when the engine was built with names-only profiling
verbosity, then the binding names (:class:`InspectorBinding`). Tensors are
:class:`trtlog.tensors.Tensor`; tactic ids are unsigned 64-bit integers.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypeAliasType

from trtlog.events.base import EventBase
from trtlog.events.fields import LayerName, LayerNames
from trtlog.tensors import Tensor

__all__ = [
    "EngineLayerInfo",
    "EngineLayerInfoHeader",
    "EngineLayersDetailed",
    "InspectorBinding",
    "InspectorBindingsHeader",
    "InspectorLayerName",
    "InspectorLayersHeader",
    "InspectorRecord",
    "LayerInfoDump",
    "LayerNamesOnlyNotice",
    "LayersEvent",
    "OnnxLayerExtra",
    "ParamValue",
]

#: A parameter value of an inspector record: an ``int`` (``OutMaps: 32``), a ``float``, a
#: ``str`` (``kEXPLICIT_ROUND_DOWN``, or any text that is not JSON), a tuple for a JSON array
#: (``[3,3]`` → ``(3, 3)``), and for a JSON object a tuple of ``(key, value)`` pairs
#: (``{"Type": "Int8", "Count": 864}`` → ``(("Type", "Int8"), ("Count", 864))``), so that
#: events stay immutable and serialise to plain JSON. ``None`` for JSON ``null``.
ParamValue = TypeAliasType("ParamValue", "int | float | str | tuple[ParamValue, ...] | None")


class EngineLayerInfoHeader(EventBase):
    """``Engine Layer Information:`` (7.x - 10.x, [V]); the layer records follow.

    In 8.x - 10.x the whole listing is one message: the ``Layer(...)`` lines after this one
    arrive without envelope (formats.md T4); in 7.x each has its own.
    """

    kind: Literal["engine_layer_info_header"] = "engine_layer_info_header"


class EngineLayerInfo(EventBase):
    """One engine layer of the builder's listing (formats.md §I.2).

    ``Layer(<impl>): <layer>, Tactic: <tactic>, <inputs> -> <outputs>``, with tensors printed
    ``name[Float(1,3,224,224)]`` (≤ 8.6 GA) or ``name (Half[-1,32:8,28,28])`` (8.6+/9.x+).

    Attributes:
        layer: the engine layer name.
        implementation: the word in ``Layer(...)``: ``CaskConvolution``, ``Reformat``,
            ``Myelin``, ``NoOp``...
        tactic: the tactic id (decimal ≤ 8.2, hex 8.4+), unsigned 64-bit.
        inputs: the input tensors (may be empty), with ``dtype``, ``dims`` (negative or
            ``-1`` = dynamic), ``vector``/``vector_width`` for ``72:32`` and the type word
            in ``format``.
        outputs: the output tensors (may be empty).
    """

    kind: Literal["engine_layer_info"] = "engine_layer_info"
    layer: LayerName
    implementation: str
    tactic: int
    inputs: tuple[Tensor, ...] = ()
    outputs: tuple[Tensor, ...] = ()


class EngineLayersDetailed(EventBase):
    """``Layers:`` of a 10.x verbose builder (formats.md §I.3); inspector records follow."""

    kind: Literal["engine_layers_detailed"] = "engine_layers_detailed"


class LayerInfoDump(EventBase):
    """``Layer Information:`` (trtexec ``--dumpLayerInfo``, 8.2+, formats.md §K.2).

    The inspector text follows, opened by a ``Layers:`` line (:class:`InspectorLayersHeader`);
    library lines may come in between.
    """

    kind: Literal["layer_info_dump"] = "layer_info_dump"


class InspectorLayersHeader(EventBase):
    """``Layers:``, the first line of the inspector text printed by ``--dumpLayerInfo``.

    Inspector records (or layer names) follow, without envelope (formats.md §K.2, T4).
    """

    kind: Literal["inspector_layers_header"] = "inspector_layers_header"


class LayerNamesOnlyNotice(EventBase):
    """The engine was built without detailed profiling verbosity (library, [I], 8.2+).

    ``The profiling verbosity was set to ProfilingVerbosity::kLAYER_NAMES_ONLY when the engine
    was built, so only the layer names will be returned. Rebuild the engine with
    ProfilingVerbosity::kDETAILED to get more verbose layer information.``

    Attributes:
        verbosity: the verbosity the engine was built with (``kLAYER_NAMES_ONLY``).
        suggested: the verbosity the message suggests (``kDETAILED``).
    """

    kind: Literal["layer_names_only_notice"] = "layer_names_only_notice"
    verbosity: str
    suggested: str


class OnnxLayerExtra(BaseModel):
    """What an ``[ONNX Layer: <node> | ...]`` metadata group adds after its node name.

    Attributes:
        index: the position of the node in :attr:`InspectorRecord.onnx_layers`.
        doc: the ONNX doc-string lines the parser appended (8.6+; ``"`` replaced by ``'``).
        local_function: the ONNX local function the node belongs to (9.3+/10.x).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    index: int
    doc: tuple[str, ...] = ()
    local_function: str | None = None


class InspectorRecord(EventBase):
    """One engine layer in the inspector's one-line format (formats.md §K.3, §I.3).

    ``Name: <layer>, LayerType: <type>, Inputs: [ { Name: ..., Location: Device, Dimensions:
    [1,3,224,224], Format/Datatype: <fmt> }, ...], Outputs: [...], <Param>: <value>, ...,
    TacticName: ..., TacticValue: 0x..., StreamId: 0, Metadata: ...``

    Attributes:
        layer: the engine layer name.
        layer_type: the ``LayerType`` (``CaskConvolution``, ``Reformat``, ``Myelin``,
            ``kgen``, ``gemm``... an open set).
        inputs: the input tensors, with ``format`` (the ``Format/Datatype`` text), ``dims``,
            ``location`` (absent for Myelin-internal and 8.2 tensors) and ``dtype``,
            ``layout``, ``vector``/``vector_width`` parsed from the format.
        outputs: the output tensors.
        parameters: every other key, in print order, as ``(key, value)`` pairs
            (``("ParameterType", "Convolution")``, ``("Kernel", (3, 3))``,
            ``("Weights", (("Type", "Int8"), ("Count", 864)))``); see :data:`ParamValue`.
        tactic_name: ``TacticName`` (kernel name; absent for non-CASK layers, may be empty).
        tactic: ``TacticValue`` as an unsigned 64-bit int (absent for Myelin-internal 10.x
            layers).
        stream_id: ``StreamId`` (8.6+).
        metadata: the ``Metadata`` text as printed (8.6+; may be empty), separators included.
        onnx_layers: the ONNX node names of the metadata's ``[ONNX Layer: <node>]`` groups
            (split on U+001E, U+001F, ``�`` or ``][``). A group cut by the 4000-character
            limit keeps its `` ... `` marker in the name.
        onnx_extras: the doc-string lines and local function of the groups that carry
            `` | ...`` parts, by position in :attr:`onnx_layers`.
    """

    kind: Literal["inspector_record"] = "inspector_record"
    layer: LayerName
    layer_type: str
    inputs: tuple[Tensor, ...] = ()
    outputs: tuple[Tensor, ...] = ()
    parameters: tuple[tuple[str, ParamValue], ...] = ()
    tactic_name: str | None = None
    tactic: int | None = None
    stream_id: int | None = None
    metadata: str | None = None
    onnx_layers: LayerNames = ()
    onnx_extras: tuple[OnnxLayerExtra, ...] = ()

    def parameter(self, key: str) -> ParamValue:
        """The value of parameter ``key`` (``None`` when the record has none).

        Example:
            >>> r = InspectorRecord(span=(1, 1), layer="c", layer_type="CaskConvolution",
            ...                     parameters=(("Kernel", (3, 3)),))
            >>> r.parameter("Kernel")
            (3, 3)
        """
        for name, value in self.parameters:
            if name == key:
                return value
        return None


class InspectorLayerName(EventBase):
    """A layer name of the inspector text of an engine built with names-only verbosity.

    Attributes:
        layer: the engine layer name as printed.
    """

    kind: Literal["inspector_layer_name"] = "inspector_layer_name"
    layer: LayerName


class InspectorBindingsHeader(EventBase):
    """``Bindings:``, the last part of the inspector text; binding names follow, one a line."""

    kind: Literal["inspector_bindings_header"] = "inspector_bindings_header"


class InspectorBinding(EventBase):
    """One binding (engine input or output tensor) listed after ``Bindings:``.

    Attributes:
        name: the tensor name as printed.
    """

    kind: Literal["inspector_binding"] = "inspector_binding"
    name: str


LayersEvent = (
    EngineLayerInfoHeader
    | EngineLayerInfo
    | EngineLayersDetailed
    | LayerInfoDump
    | InspectorLayersHeader
    | LayerNamesOnlyNotice
    | InspectorRecord
    | InspectorLayerName
    | InspectorBindingsHeader
    | InspectorBinding
)
