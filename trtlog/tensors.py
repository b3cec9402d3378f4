"""Tensors, data types and formats shared by log layer dumps and layer-info JSON.

Part of the data model (pydantic only). The builder's layer listing prints a tensor as
``name[Int8(1,32,256,384)]`` (≤ 8.6) or ``name (Int8[4,72:32,128,192])`` (9.x+); the engine
inspector prints ``{ Name: x, Location: Device, Dimensions: [1,3,224,224], Format/Datatype:
Row major linear FP32 }``; the layer JSON holds the same keys. All become :class:`Tensor`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "DTYPE_BYTES",
    "CompactFormat",
    "DType",
    "Tensor",
    "dtype_of",
    "parse_compact_format",
]

#: Element types, named as TensorRT's documentation does.
DType = Literal[
    "FP64",
    "FP32",
    "FP16",
    "BF16",
    "FP8",
    "FP4",
    "INT64",
    "INT32",
    "INT8",
    "INT4",
    "UINT8",
    "BOOL",
]

#: Bytes per element (sub-byte types as fractions).
DTYPE_BYTES: dict[str, float] = {
    "FP64": 8,
    "FP32": 4,
    "FP16": 2,
    "BF16": 2,
    "FP8": 1,
    "FP4": 0.5,
    "INT64": 8,
    "INT32": 4,
    "INT8": 1,
    "INT4": 0.5,
    "UINT8": 1,
    "BOOL": 1,
}

_DTYPE_WORDS: dict[str, DType] = {}
for _dtype, _words in {
    "FP64": ("double", "fp64", "float64"),
    "FP32": ("float", "fp32", "float32", "kfloat"),
    "FP16": ("half", "fp16", "float16", "khalf"),
    "BF16": ("bfloat16", "bf16", "kbf16"),
    "FP8": ("fp8", "float8", "kfp8", "fp8e4m3", "e4m3"),
    "FP4": ("fp4", "kfp4", "fp4e2m1", "e2m1"),
    "INT64": ("int64", "kint64"),
    "INT32": ("int32", "kint32"),
    "INT8": ("int8", "kint8"),
    "INT4": ("int4", "kint4"),
    "UINT8": ("uint8", "kuint8"),
    "BOOL": ("bool", "kbool"),
}.items():
    for _word in _words:
        _DTYPE_WORDS[_word] = _dtype  # type: ignore[assignment]


def dtype_of(word: str) -> DType | None:
    """The :data:`DType` a type word names (``Half``, ``FLOAT``, ``float16``, ``Int8`` ...).

    Example:
        >>> dtype_of("Half"), dtype_of("FLOAT"), dtype_of("Row")
        ('FP16', 'FP32', None)
    """
    return _DTYPE_WORDS.get(word.strip().lower())


class Tensor(BaseModel):
    """A tensor at a layer's input or output.

    Attributes:
        name: the tensor name.
        dtype: its element type, when the text names one.
        dims: its dimensions (``-1`` or negative values mark dynamic ones), when known.
        vector: ``(axis, width)`` of a vectorized dimension (``Int8[4,72:32,128,192]`` is
            ``(1, 32)``), if any.
        format: the format text as printed (``Row major linear FP32``, ``Half``), if any.
        location: ``Device`` or ``Host`` (inspector output), if printed.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    dtype: DType | None = None
    dims: tuple[int, ...] | None = None
    vector: tuple[int, int] | None = None
    format: str | None = None
    location: str | None = None


class CompactFormat(BaseModel):
    """A format in the compact notation of autotuning lines (formats.md §JSON-5.2).

    ``Half(50176,1:4,224,1)`` is an FP16 tensor with strides 50176, 1, 224, 1 in elements and
    its second dimension vectorized by 4. In 8.x+ strides run outermost-first, in 7.x
    innermost-first (T15); the numbers are kept as printed.

    Attributes:
        text: the format as printed.
        dtype: the element type the type word names, if known.
        type_word: the type word as printed (``Float``, ``Half``, ``Int8``...).
        strides: the numbers inside the parentheses, in print order.
        vector: ``(position, width)`` of the vectorized entry, if any.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    dtype: DType | None = None
    type_word: str
    strides: tuple[int, ...] = ()
    vector: tuple[int, int] | None = None


@lru_cache(maxsize=8192)
def parse_compact_format(text: str) -> CompactFormat:
    """Parse ``Type(n,n:v,n)`` (autotuning) into a :class:`CompactFormat`.

    Example:
        >>> f = parse_compact_format("Half(50176,1:4,224,1)")
        >>> f.dtype, f.strides, f.vector
        ('FP16', (50176, 1, 224, 1), (1, 4))
    """
    word, _, inner = text.partition("(")
    inner = inner.rstrip(")")
    strides: list[int] = []
    vector: tuple[int, int] | None = None
    if inner.strip():
        for i, item in enumerate(inner.split(",")):
            value, colon, width = item.partition(":")
            strides.append(int(value))
            if colon:
                vector = (i, int(width))
    return CompactFormat(
        text=text, dtype=dtype_of(word), type_word=word, strides=tuple(strides), vector=vector
    )
