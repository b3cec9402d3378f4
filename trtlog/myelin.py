"""Myelin kernels: what ``__myl_AddCastMean..._myl0_3`` and friends are made of.

Part of the data model (no dependencies). TensorRT compiles attention and pointwise regions
with its Myelin compiler; a default build reports each region as one layer
``{ForeignNode[first...last]}``, a ``--profilingVerbosity=detailed`` build (10.x) as the
region's kernels, named ``<body>_myl<graph>_<index>`` with layer types ``kgen`` (generated
pointwise/reduction kernels), ``gemm``, ``shape_call``, ``fusion``, ``signal``/``wait``
(stream events)... This module reads those names: which Myelin graph a kernel belongs to, its
position, and for generated kernels the sequence of operations its name lists
(``__myl_AddCastMeanSub...`` → Add, Cast, Mean, Sub, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["MYELIN_LAYER_TYPES", "MyelinKernel", "decode_ops", "parse_kernel_name"]

#: Layer types of Myelin-internal kernels in 10.x detailed dumps (an open set).
MYELIN_LAYER_TYPES = frozenset(
    {
        "kgen",
        "gemm",
        "shape_call",
        "fusion",
        "signal",
        "wait",
        "correlation",
        "deconv",
        "conv_act_pool",
        "maxpool",
        "avgpool",
        "conv",
        "reduce",
        "copy",
        "MyelinReformat",
    }
)

# The op words of generated kernel names are truncated to four letters; these are the ones
# whose full ONNX name is clear. Other words are kept as printed.
_OPS = {
    "Resh": "Reshape",
    "Slic": "Slice",
    "Tran": "Transpose",
    "Conc": "Concat",
    "Gath": "Gather",
    "Scat": "Scatter",
    "Sele": "Where",
    "Sigm": "Sigmoid",
    "Roun": "Round",
    "Grid": "GridSample",
    "Resi": "Resize",
    "Topk": "TopK",
    "Fc": "Gemm",
    "Gtr": "Greater",
    "Eql": "Equal",
    "Lt": "Less",
    "Repl": "Expand",
    "Move": "Copy",
    "Maxr": "ReduceMax",
    "Etc": "…",
}
_WORD = re.compile(r"[A-Z][a-z0-9]*")
_KERNEL = re.compile(r"^(?P<body>.+?)_myl(?P<graph>\d+)_(?P<index>\d+)$", re.DOTALL)
_HASH = re.compile(r"_0x[0-9a-fA-F]{8,}$")


@dataclass(frozen=True, slots=True)
class MyelinKernel:
    """A Myelin kernel name taken apart.

    Attributes:
        name: the kernel (layer) name.
        body: the name without its ``_myl<graph>_<index>`` suffix.
        graph: the Myelin graph number (one per ForeignNode of the engine).
        index: the kernel's position in the graph.
        generated: whether it is a generated kernel (``__myl_<Ops>``).
        ops: the operations a generated kernel's name lists (full ONNX names where known).
        onnx_names: for GEMM-like kernels named after ONNX nodes (``/a/MatMul+/b/MatMul``),
            those names.
    """

    name: str
    body: str
    graph: int
    index: int
    generated: bool
    ops: tuple[str, ...]
    onnx_names: tuple[str, ...]


def decode_ops(body: str) -> tuple[str, ...]:
    """The operation sequence of a generated kernel (``__myl_AddCastMean`` → Add, Cast, Mean).

    Example:
        >>> decode_ops("__myl_AddCastMeanSubMulMeanAddSqrtDiv")
        ('Add', 'Cast', 'Mean', 'Sub', 'Mul', 'Mean', 'Add', 'Sqrt', 'Div')
        >>> decode_ops("__myl_GathReshTranMove")
        ('Gather', 'Reshape', 'Transpose', 'Copy')
    """
    words = body.removeprefix("__myl_")
    words = _HASH.sub("", words)
    return tuple(_OPS.get(w, w) for w in _WORD.findall(words))


def parse_kernel_name(name: str) -> MyelinKernel | None:
    """A Myelin kernel name taken apart, or ``None`` if the name has no ``_myl<g>_<i>`` suffix.

    Example:
        >>> k = parse_kernel_name("__myl_ReplReshReplAndNotCastMul_myl0_2")
        >>> k.graph, k.index, k.ops
        (0, 2, ('Expand', 'Reshape', 'Expand', 'And', 'Not', 'Cast', 'Mul'))
        >>> parse_kernel_name("/l0/key/MatMul+/l0/query/MatMul_myl0_1").onnx_names
        ('/l0/key/MatMul', '/l0/query/MatMul')
        >>> parse_kernel_name("/conv1/Conv") is None
        True
    """
    if "_myl" not in name:  # fast path, before the cache: most layer names are not kernels
        return None
    return _parse_kernel_name(name)


@lru_cache(maxsize=16384)
def _parse_kernel_name(name: str) -> MyelinKernel | None:
    m = _KERNEL.match(name)
    if m is None or name.startswith("{ForeignNode["):
        return None
    body = m["body"]
    generated = body.startswith("__myl_")
    onnx_names: tuple[str, ...] = ()
    if not generated and "/" in body:
        onnx_names = tuple(p for p in body.split("+") if p)
    return MyelinKernel(
        name=name,
        body=body,
        graph=int(m["graph"]),
        index=int(m["index"]),
        generated=generated,
        ops=decode_ops(body) if generated else (),
        onnx_names=onnx_names,
    )
