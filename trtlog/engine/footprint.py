"""An engine's footprint: the bytes of each layer's weights and of the activations it writes.

Part of the engine package (pydantic only; the frames add these columns to ``layers_frame``
and group them in ``footprint_frame``). Read from the layer JSON (or a log's detailed dump):

- **weights**: every parameter written as ``{"Type": ..., "Count": ...}`` (``Weights``,
  ``Bias``, a ``ConvActPool``'s ``ConvWeights``...), ``Count`` elements of ``Type``;
- **activations**: each output tensor, its dimensions times its element size, the vectorized
  channel axis padded to the vector width as TensorRT stores it (3 channels in ``chw32``
  take 32). A tensor is counted once, at the layer that writes it.

The totals are sums over layers, not the engine's device memory: TensorRT reuses activation
memory between layers (the log's ``activation memory`` line is that figure), and weights
shared or folded into a kernel may be stored otherwise. A layer without ``{Type, Count}``
parameters has 0 weight bytes when the engine is detailed, ``None`` in a names-only engine;
a tensor with dynamic or unknown dimensions or type has no size.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from trtlog.tensors import DTYPE_BITS, dtype_of

if TYPE_CHECKING:
    from trtlog.engine.model import Engine, EngineLayer
    from trtlog.tensors import Tensor

__all__ = [
    "Footprint",
    "SizedTensor",
    "bytes_by_key",
    "engine_footprint",
    "footprint_columns",
    "largest_activations",
    "layer_activation_bytes",
    "layer_weights_bytes",
    "tensor_bytes",
    "weights_of",
]


def tensor_bytes(tensor: Tensor) -> int | None:
    """The bytes a tensor takes: dims x element size, the vectorized axis padded.

    Example:
        >>> from trtlog.tensors import Tensor
        >>> tensor_bytes(Tensor(name="t", dims=(1, 3, 4, 4), element_bits=8, vector=(1, 32)))
        512
        >>> tensor_bytes(Tensor(name="t", dims=(-1, 3), element_bits=16)) is None
        True
    """
    dims = tensor.dims
    bits = tensor.element_bits
    if dims is None or not bits or any(d < 0 for d in dims):
        return None
    padded = list(dims)
    if tensor.vector is not None:
        axis, width = tensor.vector
        if width > 0 and 0 <= axis < len(padded):  # a garbled format: no padding
            padded[axis] = -(-padded[axis] // width) * width
    return (math.prod(padded) * bits + 7) // 8


_TEXT_WEIGHTS = re.compile(r"\{\s*Type:\s*(\w{1,32}),\s*Count:\s*(\d{1,18})\s*\}")


def weights_of(parameters: dict[str, Any]) -> list[tuple[str, str | None, int, int | None]]:
    """Each ``{"Type", "Count"}`` parameter: key, element type, count and bytes (if typed).

    Example:
        >>> weights_of({"Weights": {"Type": "Int8", "Count": 864},
        ...             "Bias": "{ Type: Float, Count: 32 }", "Kernel": [3, 3]})
        [('Weights', 'INT8', 864, 864), ('Bias', 'FP32', 32, 128)]
    """
    out: list[tuple[str, str | None, int, int | None]] = []
    for key, value in parameters.items():
        if isinstance(value, str) and value.startswith("{"):
            # a log's one-line dump prints them as text (TensorRT 11):
            # "Weights": "{ Type: Float, Count: 4704 }"
            m = _TEXT_WEIGHTS.fullmatch(value)
            value = {"Type": m.group(1), "Count": int(m.group(2))} if m else None
        if not isinstance(value, dict) or "Count" not in value or "Type" not in value:
            continue
        count = value["Count"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            continue
        word = value["Type"]
        dtype = dtype_of(word) if isinstance(word, str) else None
        size = None if dtype is None else (count * DTYPE_BITS[dtype] + 7) // 8
        out.append((key, dtype, count, size))
    return out


def layer_weights_bytes(layer: EngineLayer, detailed: bool = True) -> int | None:
    """The bytes of a layer's weights (0 for a detailed layer without any, else ``None``)."""
    found = weights_of(layer.parameters) if layer.parameters else []
    return _weights_bytes(found, detailed and layer.type is not None)


def _weights_bytes(found: list[tuple[str, str | None, int, int | None]], typed: bool) -> int | None:
    """:func:`layer_weights_bytes` of a layer's :func:`weights_of`.

    ``typed``: a detailed layer with a type, whose lack of weights is 0 bytes.
    """
    if not found:
        return 0 if typed else None
    sizes = [size for _k, _t, _c, size in found]
    return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)


def layer_activation_bytes(layer: EngineLayer) -> int | None:
    """The bytes of the tensors a layer writes (``None`` when none has a known size)."""
    return _written_bytes([tensor_bytes(t) for t in layer.outputs])


def _written_bytes(sizes: list[int | None]) -> int | None:
    """:func:`layer_activation_bytes` of its tensors' sizes."""
    known = [s for s in sizes if s is not None]
    return sum(known) if known else None


#: A tensor a layer writes, with its size: the layer's index and name, the tensor's name,
#: dims, type and bytes.
SizedTensor = tuple[int, str, str, tuple[int, ...] | None, str | None, int]


class Footprint(NamedTuple):
    """An engine's footprint, read in one pass over its layers (:func:`engine_footprint`).

    Attributes:
        weights: per layer, in order, its weights bytes (:func:`layer_weights_bytes`).
        activations: per layer, the bytes of the tensors it writes
            (:func:`layer_activation_bytes`).
        weights_by_type: the bytes of every typed weight, by the type it is stored in.
        activations_by_type: the bytes of every sized tensor written, by its type (``?``
            when unknown).
        tensors: every tensor written with a size, in layer order (:data:`SizedTensor`).
    """

    weights: list[int | None]
    activations: list[int | None]
    weights_by_type: dict[str, int]
    activations_by_type: dict[str, int]
    tensors: list[SizedTensor]


def engine_footprint(engine: Engine) -> Footprint:
    """The :class:`Footprint` of ``engine``: every figure of this module, in one pass.

    Example:
        >>> import trtlog
        >>> e = trtlog.load_engine(
        ...     "fixtures/layer_info/trt11.5-like_smallnet-fp32_layers-detailed.json")
        >>> f = engine_footprint(e)
        >>> len(f.weights) == len(e.layers), sorted(f.weights_by_type)
        (True, ['FP32'])
    """
    detailed = engine.detailed
    weights: list[int | None] = []
    activations: list[int | None] = []
    by_weight: dict[str, int] = {}
    by_tensor: dict[str, int] = {}
    tensors: list[SizedTensor] = []
    for layer in engine.layers:
        d = layer.__dict__  # (the fields, without an attribute lookup each)
        parameters = d["parameters"]
        found = weights_of(parameters) if parameters else []
        weights.append(_weights_bytes(found, detailed and d["type"] is not None))
        for _key, dtype, _count, size in found:
            if size is not None:
                key = dtype or "?"
                by_weight[key] = by_weight.get(key, 0) + size
        outputs = d["outputs"]
        sizes = [tensor_bytes(t) for t in outputs]
        activations.append(_written_bytes(sizes))
        for tensor, size in zip(outputs, sizes, strict=True):
            if size is not None:
                t = tensor.__dict__
                key = t["dtype"] or "?"
                by_tensor[key] = by_tensor.get(key, 0) + size
                tensors.append((d["index"], d["name"], t["name"], t["dims"], t["dtype"], size))
    return Footprint(weights, activations, by_weight, by_tensor, tensors)


def footprint_columns(
    engine: Engine, footprint: Footprint | None = None
) -> tuple[list[int | None], list[int | None]]:
    """Per layer, in order: its weights bytes and its activation bytes.

    ``footprint``: the engine's :func:`engine_footprint`, when made already.
    """
    found = footprint if footprint is not None else engine_footprint(engine)
    return found.weights, found.activations


def bytes_by_key(
    keys: Iterable[str | None],
    weights: Iterable[int | None],
    activations: Iterable[int | None],
) -> list[tuple[str, int, int | None, int | None]]:
    """Layers, weights bytes and activation bytes per key (a layer type, a precision).

    A missing key is ``?``; a key's bytes are ``None`` when none of its layers has a size.
    Sorted by weights plus activations, biggest first, then by key.

    Example:
        >>> bytes_by_key(["Conv", "Pool", "Conv"], [10, 0, 6], [40, 8, None])
        [('Conv', 2, 16, 40), ('Pool', 1, 0, 8)]
    """
    found: dict[str, list[Any]] = {}
    for key, w, a in zip(keys, weights, activations, strict=True):
        name = "?" if key is None or key != key else str(key)
        entry = found.setdefault(name, [0, None, None])
        entry[0] += 1
        if w is not None:
            entry[1] = (entry[1] or 0) + w
        if a is not None:
            entry[2] = (entry[2] or 0) + a
    rows = [(k, n, w, a) for k, (n, w, a) in found.items()]
    rows.sort(key=lambda r: (-((r[2] or 0) + (r[3] or 0)), r[0]))
    return rows


def largest_activations(
    engine: Engine, count: int = 10, footprint: Footprint | None = None
) -> list[SizedTensor]:
    """The ``count`` largest tensors the layers write, biggest first (then in layer order).

    Each: the layer's index and name, the tensor's name, dims, type and bytes
    (:data:`SizedTensor`). ``footprint``: the engine's :func:`engine_footprint`, when made
    already.
    """
    found = footprint if footprint is not None else engine_footprint(engine)
    # (the first ``count`` of the sorted list: nsmallest is that, without sorting them all)
    return heapq.nsmallest(count, found.tensors, key=lambda r: (-r[5], r[0]))
