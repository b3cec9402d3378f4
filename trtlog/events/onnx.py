"""Events of the onnx family: model parsing (formats.md §C).

trtexec's parse start/end lines, the onnx-tensorrt parser's model-info block, verbose lines,
warnings and node errors, and the network set-up trtexec does after parsing (optimization
profile shapes, precision settings).

Part of the data model (pydantic only). Each class's ``kind`` is the event name of formats.md.
Parser messages carry ``source_file``/``source_line`` when the log prints the parser's
``<file>.cpp:<line>: `` prefix (every parser message in 7.0/7.1, warnings and errors from 7.2).
ONNX node and TensorRT layer names are kept as printed; :meth:`EventBase.names` splits them.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict

from trtlog.events.base import EventBase
from trtlog.events.fields import LayerName

__all__ = [
    "DynamicShapeOverride",
    "InputShapeSet",
    "Int8Hint",
    "OnnxAddInput",
    "OnnxEvent",
    "OnnxImportInitializer",
    "OnnxImporterDetail",
    "OnnxInt32Clamped",
    "OnnxInt64Binding",
    "OnnxInt64Weights",
    "OnnxLocalFunction",
    "OnnxMarkOutput",
    "OnnxModelInfo",
    "OnnxNodeError",
    "OnnxNodeIo",
    "OnnxNodeSummary",
    "OnnxNumpyTypeKept",
    "OnnxOpsetWarning",
    "OnnxParseNode",
    "OnnxPluginFallback",
    "OnnxRegisterConstant",
    "OnnxRegisterLayer",
    "OnnxRegisterTensor",
    "OnnxSearchInput",
    "OnnxStaticCheck",
    "OnnxTensor",
    "OnnxWeightsTransposed",
    "ParseEnd",
    "ParseStart",
    "PluginLibsNote",
    "PrecisionSet",
    "PrecisionSkip",
    "ProfileShapeSet",
]


class OnnxTensor(BaseModel):
    """One item of an ``onnx_node_io`` list: ``[<name> -> <dims>[<TYPE>]]``.

    Attributes:
        name: the tensor name; ``None`` for ``[optional input, not set]``.
        dims: the shape (``-1`` marks a dynamic dimension, ``()`` a scalar); ``None`` for an
            unset optional input.
        dtype: the type word as printed (``FLOAT``, ``HALF``, ``INT64``...); ``None`` in 7.x and
            8.0-EA, which do not print it.

    Example:
        >>> OnnxTensor(name="x", dims=(1, 3), dtype="FLOAT").dims
        (1, 3)
    """

    model_config = ConfigDict(frozen=True, defer_build=True, extra="forbid")

    name: str | None
    dims: tuple[int, ...] | None = None
    dtype: str | None = None


class _Sourced(EventBase):
    """A parser message that may carry the ``<file>.cpp:<line>: `` prefix.

    Attributes:
        source_file: the parser source file of the prefix (``ModelImporter.cpp``), if printed.
        source_line: its line number, if printed.
    """

    source_file: str | None = None
    source_line: int | None = None


class ParseStart(EventBase):
    """``Start parsing network model`` (8.0-8.5; with a final ``.`` from 8.6). 7.x prints none."""

    kind: Literal["parse_start"] = "parse_start"


class ParseEnd(EventBase):
    """``Finish parsing network model`` (8.0-8.5) / ``Finished parsing network model. ...``.

    8.6+ print ``Finished parsing network model. Parse time: <s>``.

    Attributes:
        seconds: the parse time (8.6+, seconds, printed without unit); ``None`` before 8.6.
    """

    kind: Literal["parse_end"] = "parse_end"
    seconds: float | None = None


class OnnxModelInfo(EventBase):
    """The parser's model-info block: 10 lines framed by 64 dashes, ONE event (§C.2).

    7.2+ log every line through the logger (``[I] [TRT] Opset version:    13``); 7.0/7.1 print
    the block with ``cout``, without envelope. Empty values (``Domain:``) are ``""``.

    Attributes:
        input_filename: the ONNX file as given to the parser.
        ir_version: the ONNX IR version as printed (``0.0.8``).
        opset: the opset version of the default domain.
        producer_name: ``pytorch``, ``tf2onnx``... (often empty).
        producer_version: the producer's version string.
        domain: the model domain (usually empty).
        model_version: the model version number.
        doc_string: the model doc string (first line; usually empty).
    """

    # ``model_version`` is ONNX's name; pydantic before 2.10 warns about fields that start
    # with ``model_`` unless its protected namespaces are set aside
    model_config = ConfigDict(protected_namespaces=())

    kind: Literal["onnx_model_info"] = "onnx_model_info"
    input_filename: str
    ir_version: str
    opset: int
    producer_name: str = ""
    producer_version: str = ""
    domain: str = ""
    model_version: int
    doc_string: str = ""


class OnnxImportInitializer(_Sourced):
    """``Importing initializer: <name>`` (7.0+): a weight initializer of the graph.

    Attributes:
        name: the initializer (tensor) name.
    """

    kind: Literal["onnx_import_initializer"] = "onnx_import_initializer"
    name: str


class OnnxParseNode(_Sourced):
    """``Parsing node: <node> [<op>]`` (7.0+), in the parser's (topological) node order.

    Attributes:
        node: the ONNX node name.
        op: the ONNX op type (``Conv``, ``QuantizeLinear``...).
    """

    kind: Literal["onnx_parse_node"] = "onnx_parse_node"
    node: LayerName
    op: str


class OnnxStaticCheck(_Sourced):
    """``Static check for parsing node: <node> [<op>]`` (10.x), before the node is parsed.

    Attributes:
        node: the ONNX node name.
        op: the ONNX op type.
    """

    kind: Literal["onnx_static_check"] = "onnx_static_check"
    node: LayerName
    op: str


class OnnxSearchInput(_Sourced):
    """``Searching for input: <tensor>`` (7.0+): the parser looks up a node input.

    Attributes:
        tensor: the tensor name.
    """

    kind: Literal["onnx_search_input"] = "onnx_search_input"
    tensor: str


class OnnxNodeIo(_Sourced):
    """``<node> [<op>] inputs: [...], `` / ``... outputs: [...], `` (7.0+).

    Attributes:
        node: the ONNX node name.
        op: the ONNX op type.
        direction: ``inputs`` or ``outputs``.
        tensors: the listed tensors, in order (empty for ``inputs:`` with nothing after it).
    """

    kind: Literal["onnx_node_io"] = "onnx_node_io"
    node: LayerName
    op: str
    direction: Literal["inputs", "outputs"]
    tensors: tuple[OnnxTensor, ...] = ()


class OnnxRegisterLayer(_Sourced):
    """``Registering layer: <layer> for ONNX node: <node>`` (7.0+).

    9.x+ also print ``Registering layer: <layer> required by ONNX-TRT`` for helper layers the
    importer adds (``node`` is then ``None``).

    Attributes:
        layer: the TensorRT layer name.
        node: the ONNX node it implements, or ``None`` for an importer helper layer.
    """

    kind: Literal["onnx_register_layer"] = "onnx_register_layer"
    layer: LayerName
    node: LayerName | None = None


class OnnxRegisterTensor(_Sourced):
    """``Registering tensor: <trt> for ONNX tensor: <onnx>`` (7.0+).

    Attributes:
        tensor: the TensorRT tensor name.
        onnx_tensor: the ONNX tensor name.
    """

    kind: Literal["onnx_register_tensor"] = "onnx_register_tensor"
    tensor: str
    onnx_tensor: str


class OnnxRegisterConstant(_Sourced):
    """``Registering constant layer: <layer> for ONNX initializer: <name>`` (7.2).

    Attributes:
        layer: the TensorRT constant layer.
        initializer: the ONNX initializer.
    """

    kind: Literal["onnx_register_constant"] = "onnx_register_constant"
    layer: LayerName
    initializer: str


class OnnxAddInput(_Sourced):
    """``Adding network input: <name> with dtype: <dtype>, dimensions: <dims>`` (7.0+).

    Attributes:
        tensor: the input tensor name.
        dtype: the type word as printed (``float32``, ``float16``, ``int64``...).
        dims: the dimensions (``-1`` dynamic).
    """

    kind: Literal["onnx_add_input"] = "onnx_add_input"
    tensor: str
    dtype: str
    dims: tuple[int, ...]


class OnnxMarkOutput(_Sourced):
    """``Marking <trt> as output: <onnx>`` (7.0+).

    Attributes:
        tensor: the TensorRT tensor marked.
        output: the ONNX graph output name.
    """

    kind: Literal["onnx_mark_output"] = "onnx_mark_output"
    tensor: str
    output: str


class OnnxLocalFunction(_Sourced):
    """``Found regisitered local function: <f>. Importing as a local function.`` (10.x, sic).

    Attributes:
        function: the local function name.
    """

    kind: Literal["onnx_local_function"] = "onnx_local_function"
    function: str


class OnnxImporterDetail(_Sourced):
    """A free-form note of an op importer (all versions).

    Attributes:
        topic: what the note is about: ``convolution_input_dims``, ``convolution_output_dims``,
            ``deconvolution_input_dims``, ``deconvolution_output_dims``, ``convolution_params``
            (``Using kernel: ...``), ``reshape`` (``Original shape: ..., squeezing to: ...``),
            ``gemm`` (``GEMM: ...``), ``matmul_ops`` (``Using opA: 0 opB: 1``), ``cast``
            (``Casting to type: bool``), ``gather_axis`` (``Using Gather axis: 0``),
            ``kernel_weights_unset`` (``Kernel weights are not set yet. ...``),
            ``global_average_pool`` (``GlobalAveragePool operators are implemented via Reduce
            layers ...``) or ``deconvolution_params`` (``Running deconvolution with:`` and its
            three bare lines, ONE event).
        detail: the free text of the note (``squeezing``/``unsqueezing`` for ``reshape``, the
            type for ``cast``, the GEMM note, the padding mode of ``deconvolution_params``), if
            any.
        dims: the dimensions of a dims note, the original shape of a reshape note (``_``, an
            unknown extent, reads ``-1``).
        to_dims: the target shape of a reshape note.
        values: named integer parameters, in print order: ``kernel``, ``strides``,
            ``prepadding``, ``postpadding``, ``dilations``, ``numOutputs``, ``nbGroups`` for
            ``convolution_params``; ``prepadding``, ``postpadding`` for ``deconvolution_params``;
            ``opA``, ``opB``; ``axis``; ``input`` (the setInput index).
    """

    kind: Literal["onnx_importer_detail"] = "onnx_importer_detail"
    topic: str
    detail: str | None = None
    dims: tuple[int, ...] | None = None
    to_dims: tuple[int, ...] | None = None
    values: tuple[tuple[str, tuple[int, ...]], ...] = ()


class OnnxInt64Weights(_Sourced):
    """``Your ONNX model has been generated with INT64 weights, ... cast down to INT32.``.

    7.0-8.6 ([W], with the parser's source prefix).
    """

    kind: Literal["onnx_int64_weights"] = "onnx_int64_weights"


class OnnxInt32Clamped(_Sourced):
    """``One or more weights outside the range of INT32 was clamped`` ([W], 7.x-8.x).

    The INT64 weights cast down to INT32 held values that do not fit: they were clamped, so
    the cast is no longer harmless.
    """

    kind: Literal["onnx_int32_clamped"] = "onnx_int32_clamped"


class OnnxNumpyTypeKept(EventBase):
    """``Could not convert: <type> to a corresponding NumPy type. The original ONNX type ...``.

    ONNX-GraphSurgeon's warning ([W], printed by a ModelOpt quantization run): a tensor type
    NumPy lacks (``FLOAT8E4M3FN``) stays as the ONNX type; the model holds tensors of it.

    Attributes:
        onnx_type: the ONNX type name (``FLOAT8E4M3FN``).
    """

    kind: Literal["onnx_numpy_type_kept"] = "onnx_numpy_type_kept"
    onnx_type: str


class OnnxWeightsTransposed(_Sourced):
    """``Weights <name> has been transposed with permutation of (1, 0)! ...`` ([W], 8.x).

    The parser stored a MatMul's constant weights transposed; new weights given to the
    Refitter must be transposed the same way.

    Attributes:
        weights: the weights' name.
    """

    kind: Literal["onnx_weights_transposed"] = "onnx_weights_transposed"
    weights: str


class OnnxInt64Binding(_Sourced):
    """``Make sure <input|output> <name> has Int64 binding.`` (10.x, [W]).

    Attributes:
        io: ``input`` or ``output``.
        tensor: the binding name.
    """

    kind: Literal["onnx_int64_binding"] = "onnx_int64_binding"
    io: Literal["input", "output"]
    tensor: str


class OnnxOpsetWarning(_Sourced):
    """``TensorRT supports ONNX graphs generated with at least opset <n>. ...`` ([W]).

    Attributes:
        min_opset: the lowest supported opset.
    """

    kind: Literal["onnx_opset_warning"] = "onnx_opset_warning"
    min_opset: int


class OnnxPluginFallback(_Sourced):
    """The parser imports an op as a plugin (8.x+, [I]).

    Attributes:
        step: ``no_importer`` (``No importer registered for op: <op>. Attempting to import as
            plugin.``), ``searching`` (``Searching for plugin: <name>, plugin_version: <v>,
            plugin_namespace: <ns>``), ``created`` (``Successfully created plugin: <name>``),
            ``not_found_attribute_namespace`` / ``searching_domain_namespace`` (10.x lookups
            ``... using pluginName: <name>, pluginVersion: <v>, pluginNamespace: <ns>``).
        plugin: the op or plugin name.
        plugin_version: the plugin version, when printed.
        plugin_namespace: the plugin namespace, when printed (often ``""``).
    """

    kind: Literal["onnx_plugin_fallback"] = "onnx_plugin_fallback"
    step: Literal[
        "no_importer",
        "searching",
        "created",
        "not_found_attribute_namespace",
        "searching_domain_namespace",
    ]
    plugin: str
    plugin_version: str | None = None
    plugin_namespace: str | None = None


class OnnxNodeError(EventBase):
    """The parser's error report, ONE event for all its lines (§C.4, [E]).

    ::

        ModelImporter.cpp:138: While parsing node number 0 [AddScalar -> "out"]:
        ModelImporter.cpp:140: --- Begin node ---
        <the node's protobuf text, bare lines>
        ModelImporter.cpp:141: --- End node ---
        ModelImporter.cpp:149: ERROR: onnxOpCheckers.cpp:923 In function checkFallbackPlugin...:
        [6] creator && "Plugin not found, are the plugin name, version, and namespace correct?"

    7.x writes the same text with ``cerr`` (no envelope, no prefix, the node dump only when
    verbose, no output name before 7.1). An error that is not tied to a node has only the
    ``ERROR: ...`` part (``node_index`` is then ``None``).

    Attributes:
        source_file: the parser source file of the first line's prefix, if printed.
        source_line: its line number.
        node_index: the node number (the index in the graph's node list).
        op: the op type of the head line.
        output: the node's first output, as printed in the head line.
        node_text: the node's protobuf text (its lines joined by ``\\n``, without blank lines),
            if dumped.
        node_name: ``name`` of the dumped node.
        node_op_type: ``op_type`` of the dumped node.
        node_inputs: ``input`` entries of the dumped node, in order.
        node_outputs: ``output`` entries of the dumped node, in order.
        error_file: the source file of the error (``onnxOpCheckers.cpp``).
        error_line: its line.
        function: the function that failed.
        code: the parser error code in brackets (``[6]``: ``kINVALID_NODE``...).
        description: the error description (may span lines).
    """

    kind: Literal["onnx_node_error"] = "onnx_node_error"
    source_file: str | None = None
    source_line: int | None = None
    node_index: int | None = None
    op: str | None = None
    output: str | None = None
    node_text: str | None = None
    node_name: LayerName | None = None
    node_op_type: str | None = None
    node_inputs: tuple[str, ...] = ()
    node_outputs: tuple[str, ...] = ()
    error_file: str | None = None
    error_line: int | None = None
    function: str | None = None
    code: int | None = None
    description: str | None = None


class OnnxNodeSummary(EventBase):
    """``<output>:<op> -> <dims>``: the legacy parser's per-node line (TRT 5/6 era, [I]).

    Attributes:
        output: the node's output tensor.
        op: the op type.
        dims: the output dimensions.
    """

    kind: Literal["onnx_node_summary"] = "onnx_node_summary"
    output: str
    op: str
    dims: tuple[int, ...]


class ProfileShapeSet(EventBase):
    """``Set shape of input tensor <name> for optimization profile <i> to: MIN=.. OPT=.. MAX=..``.

    trtexec (9.x+); ``Set input shape tensor <name> ...`` for shape tensors (the values are the
    tensor's values then).

    Attributes:
        tensor: the input tensor.
        profile: the optimization profile index.
        min_dims: the MIN shape.
        opt_dims: the OPT shape.
        max_dims: the MAX shape.
        shape_tensor: whether the input is a shape tensor.
    """

    kind: Literal["profile_shape_set"] = "profile_shape_set"
    tensor: str
    profile: int
    min_dims: tuple[int, ...]
    opt_dims: tuple[int, ...]
    max_dims: tuple[int, ...]
    shape_tensor: bool = False


class InputShapeSet(EventBase):
    """``Set shape of input tensor <name> to: <dims>``: trtexec sets an inference shape (10.x run).

    Attributes:
        tensor: the input tensor.
        dims: the shape.
    """

    kind: Literal["input_shape_set"] = "input_shape_set"
    tensor: str
    dims: tuple[int, ...]


class DynamicShapeOverride(EventBase):
    """trtexec sets the shape of a dynamic input nobody gave a shape for ([W]).

    Build: ``Dynamic dimensions required for input: <name>, but no shapes were provided.
    Automatically overriding shape to: <dims>`` (7.x+). Inference (10.16 run logs):
    ``Shape missing for input with dynamic shape: <name>Automatically setting shape to: <dims>``
    (sic, no blank).

    Attributes:
        tensor: the input tensor.
        dims: the shape trtexec chose.
        phase: ``build`` or ``inference``.
    """

    kind: Literal["dynamic_shape_override"] = "dynamic_shape_override"
    tensor: str
    dims: tuple[int, ...]
    phase: Literal["build", "inference"] = "build"


class PrecisionSkip(EventBase):
    """trtexec did not apply ``--layerPrecisions``/``--layerOutputTypes`` to a layer (8.4+).

    ``Skipped setting precision for layer <name> because the  default layer precision is INT32
    or Bool.`` (note the double blank) and its siblings; the ``[I]`` summary ``Skipped setting
    precisions for some layers. Check verbose logs for more details.`` has no layer.

    Attributes:
        setting: ``precision``, ``output_types`` or ``output_type`` (one output of a layer).
        layer: the layer, ``None`` for the summary line.
        output_index: the output, for ``output_type``.
        reason: the text after ``because `` as printed (``None`` for the summary line).
    """

    kind: Literal["precision_skip"] = "precision_skip"
    setting: Literal["precision", "output_types", "output_type"]
    layer: LayerName | None = None
    output_index: int | None = None
    reason: str | None = None


class PrecisionSet(EventBase):
    """trtexec applied a per-layer setting (``--layerPrecisions`` and siblings, 8.4+, [I]).

    ``Set layer <name> to precision <p>``, ``Set output <i> of layer <name> to type <t>``,
    ``Set layer <name> to device type <d>``.

    Attributes:
        setting: ``precision``, ``output_type`` or ``device_type``.
        layer: the layer.
        value: the precision, type or device as printed.
        output_index: the output, for ``output_type``.
    """

    kind: Literal["precision_set"] = "precision_set"
    setting: Literal["precision", "output_type", "device_type"]
    layer: LayerName
    value: str
    output_index: int | None = None


class Int8Hint(EventBase):
    """``FP32 and INT8 precisions have been specified - more performance might be enabled ...``."""

    kind: Literal["int8_hint"] = "int8_hint"


class PluginLibsNote(EventBase):
    """The plugin libraries a version-compatible engine needs (8.6+, [I]), ONE event.

    ``The following plugin libraries were identified by the parser as required for a
    version-compatible engine:``, one ``    <lib>`` line each, then what trtexec does with them.

    Attributes:
        libraries: the library paths, in order.
        serialized: whether trtexec adds them to ``--setPluginsToSerialize``.
    """

    kind: Literal["plugin_libs_note"] = "plugin_libs_note"
    libraries: tuple[str, ...] = ()
    serialized: bool = False


OnnxEvent = (
    OnnxInt32Clamped
    | OnnxNumpyTypeKept
    | OnnxWeightsTransposed
    | ParseStart
    | ParseEnd
    | OnnxModelInfo
    | OnnxImportInitializer
    | OnnxParseNode
    | OnnxStaticCheck
    | OnnxSearchInput
    | OnnxNodeIo
    | OnnxRegisterLayer
    | OnnxRegisterTensor
    | OnnxRegisterConstant
    | OnnxAddInput
    | OnnxMarkOutput
    | OnnxLocalFunction
    | OnnxImporterDetail
    | OnnxInt64Weights
    | OnnxInt64Binding
    | OnnxOpsetWarning
    | OnnxPluginFallback
    | OnnxNodeError
    | OnnxNodeSummary
    | ProfileShapeSet
    | InputShapeSet
    | DynamicShapeOverride
    | PrecisionSkip
    | PrecisionSet
    | Int8Hint
    | PluginLibsNote
)
