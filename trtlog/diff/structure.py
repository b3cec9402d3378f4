"""What a layer is and where it sits, whatever its ONNX nodes are called.

Part of the view package :mod:`trtlog.diff` (pydantic only). Two exports of one model can
number their ONNX nodes differently (inserting Q/DQ nodes renumbers ``Conv_0`` as ``Conv_9``);
the alignment then needs what survives a renumbering: the kind of op a layer runs
(convolution, pooling, pointwise...), the ONNX op types it fused (``Conv``, ``Add``,
``Relu``), its output shape, its convolution geometry (kernel, stride, groups, output maps),
and its place in the tensor graph: which computing layers feed it and which it feeds, with
reformats, Q/DQ layers and copies looked through (a QAT build puts those between any two
layers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trtlog.engine.model import MYELIN_LAYER_TYPES, EngineLayer
from trtlog.names import is_qdq_node, is_weights_name, op_of

__all__ = ["Place", "graph_places", "op_class", "op_kinds"]

# LayerType → the kind of op it runs (the types of 7.x-11.x layer JSON and layer dumps)
_CLASSES: dict[str, str] = {
    "CaskConvolution": "conv",
    "CaskGemmConvolution": "conv",
    "CudaDepthwiseConvolution": "conv",
    "CudnnConvolution": "conv",
    "CaskDeconvolution": "deconv",
    "CudnnDeconvolution": "deconv",
    "ConvActPool": "conv",
    "Convolution": "conv",
    "CaskFullyConnected": "gemm",
    "FullyConnected": "gemm",
    "CaskGemmMatrixMultiply": "gemm",
    "MatrixMultiply": "gemm",
    "gemm": "gemm",
    "CaskPooling": "pool",
    "CudaPooling": "pool",
    "TiledPooling": "pool",
    "Pooling": "pool",
    "maxpool": "pool",
    "avgpool": "pool",
    "PointWise": "pointwise",
    "PointWiseV2": "pointwise",
    "ElementWise": "pointwise",
    "Activation": "pointwise",
    "Scale": "pointwise",
    "Reduce": "reduce",
    "reduce": "reduce",
    "SoftMax": "softmax",
    "Softmax": "softmax",
    "Concatenation": "concat",
    "Plugin": "plugin",
    "PluginV2": "plugin",
    "PluginV3": "plugin",
    "Myelin": "myelin",
}

# layers that move or convert data without computing: looked through in the tensor graph
_TRANSPARENT = frozenset(("reformat", "qdq", "copy"))
_COPY_TYPES = frozenset(("NoOp", "Shuffle", "Reshape", "Identity", "Slice", "copy", "shape_call"))


def op_class(layer: EngineLayer, reformat: bool, qdq: bool) -> str | None:
    """The kind of op a layer runs: ``conv``, ``pool``, ``gemm``, ``pointwise``, ``reformat``...

    ``qdq`` for a layer that holds only Q/DQ nodes (a ``Scale`` or ``Reformat`` of Origin
    ``QDQ``), ``copy`` for layers that only move data (``NoOp``, ``Shuffle``), the layer
    type in lower case for a type not listed, ``None`` without a type (names-only engines).

    Example:
        >>> from trtlog.engine import EngineLayer
        >>> op_class(EngineLayer(index=0, name="Conv_0", type="CaskConvolution"), False, False)
        'conv'
    """
    if qdq or layer.origin == "QDQ":
        return "qdq"
    if reformat:
        return "reformat"
    if layer.type is None:
        return None
    if layer.type in _COPY_TYPES:
        return "copy"
    found = _CLASSES.get(layer.type)
    if found is None and layer.parameter_type:
        found = _CLASSES.get(layer.parameter_type)
    if found is None and layer.type in MYELIN_LAYER_TYPES:
        found = "kernel"
    return found or layer.type.lower()


# a fused activation (``Activation``/``ConvActivation``) → the ONNX op it stands for
_ACTIVATIONS = {
    "RELU": "Relu",
    "CLIPPED_RELU": "Clip",
    "SIGMOID": "Sigmoid",
    "TANH": "Tanh",
    "LEAKY_RELU": "LeakyRelu",
    "ELU": "Elu",
    "SELU": "Selu",
    "SOFTPLUS": "Softplus",
    "HARD_SIGMOID": "HardSigmoid",
}


def op_kinds(nodes: Sequence[str], parameters: dict[str, object] | None = None) -> tuple[str, ...]:
    """The ONNX op types a layer fused, in order, Q/DQ nodes and weights left out.

    A fused activation the layer's parameters name counts too, when its node's name does not
    say it (a QAT export's ``conv.weight + QuantizeLinear_7 + Conv_9`` runs with ``RELU``).

    Example:
        >>> op_kinds(("features.0.0.weight", "QuantizeLinear_8", "Conv_12", "Clip_16"))
        ('Conv', 'Clip')
        >>> op_kinds(("/features/features.3/conv/conv.2/Conv", "/features/features.3/Add"))
        ('Conv', 'Add')
    """
    out: dict[str, None] = {}
    for node in nodes:
        if is_qdq_node(node) or is_weights_name(node) or node.startswith("(Unnamed Layer"):
            continue
        kind = op_of(node)
        if kind and kind[0].isupper():
            out[kind] = None
    for key in ("Activation", "ConvActivation"):
        act = _ACTIVATIONS.get(str((parameters or {}).get(key)))
        if act is not None and out:
            out.setdefault(act, None)
    return tuple(out)


def geometry(layer: EngineLayer) -> tuple[object, ...] | None:
    """A convolution's or pooling's kernel, stride, groups and output maps, if the JSON has them.

    Example:
        >>> from trtlog.engine import EngineLayer
        >>> conv = {"Kernel": [3, 3], "Stride": [1, 1]}
        >>> geometry(EngineLayer(index=0, name="c", parameters=conv))
        ((3, 3), (1, 1), None, None)
    """
    p = layer.parameters
    kernel = p.get("Kernel") or p.get("WindowSize")
    if kernel is None:
        return None

    def tup(value: object) -> object:
        return tuple(value) if isinstance(value, list) else value

    return (tup(kernel), tup(p.get("Stride")), p.get("Groups"), p.get("OutMaps"))


@dataclass(slots=True)
class Place:
    """A layer's place in the tensor graph (internal to the alignment).

    Attributes:
        preds: the computing layers whose outputs reach it (through transparent layers).
        succs: the computing layers its outputs reach.
        inputs: how many distinct computing layers feed it (2 for a residual Add).
    """

    preds: tuple[int, ...] = ()
    succs: tuple[int, ...] = ()
    inputs: int = 0


def graph_places(layers: Sequence[EngineLayer], classes: Sequence[str | None]) -> list[Place]:
    """Each layer's computing neighbours, reformats, Q/DQ layers and copies looked through.

    Layers connect through tensor names (a layer's input is the output of the layer that
    wrote it). A transparent layer's neighbours are found the same way, so that a reformat
    can be placed by the computing layers it sits between.
    """
    producer: dict[str, int] = {}
    for k, layer in enumerate(layers):
        for t in layer.outputs:
            producer.setdefault(t.name, k)
    consumers: dict[int, list[int]] = {}
    direct_preds: list[list[int]] = []
    for k, layer in enumerate(layers):
        preds = []
        for t in layer.inputs:
            p = producer.get(t.name)
            if p is not None and p != k:
                preds.append(p)
                consumers.setdefault(p, []).append(k)
        direct_preds.append(preds)

    def through(start: list[int], step: dict[int, list[int]] | list[list[int]]) -> tuple[int, ...]:
        found: dict[int, None] = {}
        todo = list(start)
        seen: set[int] = set()
        while todo and len(seen) < 64:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            if classes[k] in _TRANSPARENT:
                nxt = step[k] if isinstance(step, list) else step.get(k, [])
                todo.extend(nxt)
            else:
                found[k] = None
        return tuple(sorted(found))

    places = []
    for k in range(len(layers)):
        before = through(direct_preds[k], direct_preds)
        after = through(consumers.get(k, []), consumers)
        places.append(Place(preds=before, succs=after, inputs=len(before)))
    return places


def is_transparent(op: str | None) -> bool:
    """Whether layers of this class only move or convert data (looked through in the graph)."""
    return op in _TRANSPARENT
