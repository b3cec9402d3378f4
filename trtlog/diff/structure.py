"""What a layer is and where it sits, whatever its ONNX nodes are called.

Part of the view package :mod:`trtlog.diff` (pydantic only). Two exports of one model can
number their ONNX nodes differently (inserting Q/DQ nodes renumbers ``Conv_0`` as ``Conv_9``);
the alignment then needs what survives a renumbering: the kind of op a layer runs
(convolution, pooling, pointwise...), the ONNX op types it fused (``Conv``, ``Add``,
``Relu``), its output shape, its convolution geometry (kernel, stride, groups, output maps),
and its place in the tensor graph: which computing layers feed it and which it feeds, with
reformats, Q/DQ layers and copies looked through (a QAT build puts those between any two
layers).

The same facts, summed over a whole engine, say whether two engines are builds of one model
at all (:func:`fingerprint`, :func:`judge_model`): their convolutions (kernel, stride, groups,
output maps, weight count), their total weight count, and how many of their layers share ONNX
names; structure alone pairs the layers of two different CNNs (docs/comparison.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from trtlog.engine.model import MYELIN_LAYER_TYPES, EngineLayer
from trtlog.names import is_qdq_node, is_weights_name, op_of, split_name

__all__ = [
    "Fingerprint",
    "ModelJudgment",
    "Place",
    "fingerprint",
    "graph_places",
    "judge_model",
    "op_class",
    "op_kinds",
]

# LayerType → the kind of op it runs (the types of 7.x-11.x layer JSON and layer dumps)
_CLASSES: dict[str, str] = {
    "CaskConvolution": "conv",
    "CaskGemmConvolution": "conv",
    "CudaDepthwiseConvolution": "conv",
    "CudnnConvolution": "conv",
    "FusedConvActConvolution": "conv",
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


# -- same model? ---------------------------------------------------------------------------

_MIN_CONVS = 2  # fewer convolutions on a side tell nothing about the model
_CONV_ALIKE = 0.6  # share of convolutions alike (of the side with more) for one model
_HIDDEN_ALIKE = 0.8  # share of the smaller side's convolutions that a hidden rest may explain
_WEIGHTS_SAME = 1.05  # exact weight totals within this ratio: one model
_WEIGHTS_OTHER = 1.25  # beyond this ratio (or a lower bound beyond it): another model
_NAMES_SAME = 0.5  # share of the smaller side's computing layers paired by ONNX name


@dataclass(slots=True)
class Fingerprint:
    """What tells one model from another whatever its build (internal to the comparison).

    Attributes:
        convs: per convolution (``conv``/``deconv`` layer with its parameters), its kernel,
            stride, groups, output maps and weight count, and how many such layers.
        widths: per convolution with a known output, its output maps (channels).
        weights: the ``Weights`` and ``Bias`` counts of the layers, summed.
        partial: whether some layers keep their weights out of the dump (Myelin regions and
            kernels, plugins): then ``weights`` is a lower bound.
        regions: whether whole Myelin regions (``{ForeignNode[...]}``) hide their layers.
    """

    convs: Counter[tuple[object, ...]] = field(default_factory=Counter)
    widths: Counter[int] = field(default_factory=Counter)
    weights: int = 0
    partial: bool = False
    regions: bool = False


def _count(value: object) -> int:
    count = value.get("Count") if isinstance(value, dict) else None
    return count if isinstance(count, int) and count > 0 else 0


def fingerprint(layers: Sequence[EngineLayer]) -> Fingerprint:
    """The :class:`Fingerprint` of an engine's layers.

    The copies a build makes for optimization profiles 1, 2... (``x [profile 1]``) are left
    out: they are the same layers again.

    Example:
        >>> from trtlog.engine import EngineLayer
        >>> conv = {"Kernel": [3, 3], "Stride": [1, 1], "Groups": 1, "OutMaps": 8,
        ...         "Weights": {"Type": "Half", "Count": 72}, "Bias": {"Count": 8}}
        >>> fp = fingerprint([EngineLayer(index=0, name="c", type="CaskConvolution",
        ...                               parameters=conv)])
        >>> fp.weights, dict(fp.widths), list(fp.convs)
        (80, {8: 1}, [((3, 3), (1, 1), 1, 8, 72)])
    """
    fp = Fingerprint()
    for layer in layers:
        parts = split_name(layer.name)
        if parts.op == "profile" and parts.index:
            continue
        p = layer.parameters
        fp.weights += _count(p.get("Weights")) + _count(p.get("Bias"))
        hidden = layer.name.startswith("{ForeignNode[") or layer.type == "Myelin"
        fp.regions = fp.regions or hidden
        fp.partial = fp.partial or hidden or layer.myelin is not None
        fp.partial = fp.partial or (layer.type or "").startswith("Plugin")
        fp.partial = fp.partial or layer.type in MYELIN_LAYER_TYPES
        if op_class(layer, layer.is_reformat, False) not in ("conv", "deconv"):
            continue
        dims = layer.outputs[0].dims if layer.outputs else None
        if dims is not None and len(dims) >= 4 and tuple(dims[-2:]) == (1, 1):
            continue  # a fully connected layer run as a convolution (or as a gemm elsewhere)
        maps = p.get("OutMaps")
        if not isinstance(maps, int):
            maps = dims[1] if dims is not None and len(dims) >= 4 and dims[1] > 0 else None
        if maps is not None:
            fp.widths[maps] += 1
        shape = geometry(layer)
        if shape is not None:
            fp.convs[(*shape, _count(p.get("Weights")) or None)] += 1
    return fp


@dataclass(frozen=True, slots=True)
class ModelJudgment:
    """Whether two engines are builds of one model, and what says so.

    Attributes:
        same: ``True`` (a signal says one model and none says two), ``False`` (a signal says
            two models), ``None`` (no signal either way).
        evidence: one line per signal read, saying what it found.
    """

    same: bool | None
    evidence: tuple[str, ...]


def _convs_say(fa: Fingerprint, fb: Fingerprint) -> tuple[bool | None, str | None]:
    ca: Counter[object]
    cb: Counter[object]
    if min(fa.convs.total(), fb.convs.total()) >= _MIN_CONVS:
        ca, cb = Counter(fa.convs), Counter(fb.convs)
        what = "convolutions alike (kernel, stride, groups, output maps, weights)"
    elif min(fa.widths.total(), fb.widths.total()) >= _MIN_CONVS:
        ca, cb = Counter(fa.widths), Counter(fb.widths)
        what = "convolutions alike (output maps)"
    else:
        return None, None
    alike, large = (ca & cb).total(), max(ca.total(), cb.total())
    text = f"{alike} of {large} {what}"
    if alike >= _CONV_ALIKE * large:
        return True, text + ": one model"
    fewer, small = (fa, ca.total()) if ca.total() <= cb.total() else (fb, cb.total())
    if fewer.regions and alike >= _HIDDEN_ALIKE * small and 2 * small >= large:
        return True, text + ": one model, the rest inside the Myelin regions of the side with fewer"
    return False, text + ": two models"


def _weights_say(fa: Fingerprint, fb: Fingerprint) -> tuple[bool | None, str | None]:
    if not (fa.weights and fb.weights):
        return None, None
    ratio = max(fa.weights, fb.weights) / min(fa.weights, fb.weights)
    bound = {False: "", True: " at least"}
    text = f"weights{bound[fa.partial]} {fa.weights:,} in A,{bound[fb.partial]} {fb.weights:,} in B"
    if not (fa.partial or fb.partial):
        if ratio <= _WEIGHTS_SAME:
            return True, text + ": one model"
        if ratio > _WEIGHTS_OTHER:
            return False, text + f" ({ratio:.3g}x): two models"
        return None, text
    exact, bound_side = (fb, fa) if fa.partial else (fa, fb)
    if not exact.partial and bound_side.weights > _WEIGHTS_OTHER * exact.weights:
        return False, text + f" ({ratio:.3g}x, more than the whole other model): two models"
    return None, text + " (a lower bound: Myelin or plugin layers keep theirs)"


def judge_model(
    fa: Fingerprint,
    fb: Fingerprint,
    by_name: int,
    computing: tuple[int, int],
    identical: int = 0,
) -> ModelJudgment:
    """Whether two engines are builds of one model, from their fingerprints and names.

    Args:
        fa: A's :func:`fingerprint`.
        fb: B's.
        by_name: computing layers paired by shared ONNX nodes (generated Myelin kernels
            aside).
        computing: A's and B's computing layers with ONNX nodes (reformats, lone Q/DQ
            layers, generated Myelin kernels and profile copies aside).
        identical: the number of layers when both engines list the same layer names in the
            same order (an engine against itself, two exports of one build), else 0.

    Each signal says one model, two models or nothing: the convolutions (alike on at least
    60% of the side with more; below it two models, unless the side with fewer has Myelin
    regions that may hide the rest), the weight totals (equal within 5%: one model; more
    than 25% apart, or a side's lower bound above the other's whole total: two models), and
    the names (half the smaller side's computing layers paired by ONNX name: one model). A
    signal for two models wins: another mix of convolutions or another weight total cannot
    be the same model, while names and shapes can coincide (a backbone inside a bigger
    model keeps its ONNX names).

    Example:
        >>> from collections import Counter
        >>> resnet = Fingerprint(widths=Counter({64: 5, 128: 4, 256: 4, 512: 4}))
        >>> mobilenet = Fingerprint(widths=Counter({32: 3, 16: 1, 96: 4, 144: 4, 64: 4}))
        >>> judgment = judge_model(resnet, mobilenet, 0, (20, 52))
        >>> judgment.same, judgment.evidence[0]
        (False, '4 of 17 convolutions alike (output maps): two models')
    """
    votes: list[bool] = []
    lines: list[str] = []
    if identical:
        votes.append(True)
        lines.append(f"the same {identical} layer names in the same order: one model")
    for say, text in (_convs_say(fa, fb), _weights_say(fa, fb)):
        if text is not None:
            lines.append(text)
        if say is not None:
            votes.append(say)
    smaller = min((c for c in computing if c), default=0)  # (an identity: no computing layer)
    if smaller:
        text = f"{by_name} of {smaller} named computing layers paired by ONNX name"
        share = by_name / smaller
        if share >= _NAMES_SAME:
            votes.append(True)
            text += ": one model"
        lines.append(text)
    same = False if False in votes else True if votes else None
    return ModelJudgment(same=same, evidence=tuple(lines))
