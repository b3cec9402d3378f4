"""Tensors, data types and formats shared by log layer dumps and layer-info JSON.

Part of the data model (pydantic only). The builder's layer listing prints a tensor as
``name[Int8(1,32,256,384)]`` (≤ 8.6) or ``name (Int8[4,72:32,128,192])`` (9.x+); the engine
inspector prints ``{ Name: x, Location: Device, Dimensions: [1,3,224,224], Format/Datatype:
Row major linear FP32 }``; the layer JSON holds the same keys. All become :class:`Tensor`.

Three notations of a tensor's type and layout exist (formats.md §JSON-5):

* the inspector's ``Format/Datatype`` text: a long sentence (``Thirty-two wide channel
  vectorized row major Int8 format``) or, for 10.x Myelin tensors and the 10.x builder dump, a
  bare type word (``Half``) — :func:`parse_format`;
* the compact ``Type(…)`` of autotuning lines, whose numbers are strides —
  :func:`parse_compact_format`;
* the builder listing's ``Type(dims)`` / ``Type[dims]``, whose numbers are dimensions
  (parsed by the layers family into :class:`Tensor`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from trtlog._pydantic import assemble

__all__ = [
    "DTYPE_BITS",
    "DTYPE_BYTES",
    "CompactFormat",
    "DType",
    "Tensor",
    "TensorFormat",
    "dims_text",
    "dtype_of",
    "inspector_tensor",
    "parse_compact_format",
    "parse_format",
]

#: Element types, named as TensorRT's documentation does.
DType = Literal[
    "FP64",
    "FP32",
    "FP16",
    "BF16",
    "FP8",
    "FP4",
    "E8M0",
    "INT64",
    "INT32",
    "INT16",
    "INT8",
    "INT4",
    "UINT64",
    "UINT32",
    "UINT16",
    "UINT8",
    "BOOL",
]

#: Bits per element.
DTYPE_BITS: dict[str, int] = {
    "FP64": 64,
    "FP32": 32,
    "FP16": 16,
    "BF16": 16,
    "FP8": 8,
    "FP4": 4,
    "E8M0": 8,
    "INT64": 64,
    "INT32": 32,
    "INT16": 16,
    "INT8": 8,
    "INT4": 4,
    "UINT64": 64,
    "UINT32": 32,
    "UINT16": 16,
    "UINT8": 8,
    "BOOL": 8,
}

#: Bytes per element (sub-byte types as fractions).
DTYPE_BYTES: dict[str, float] = {
    dtype: bits // 8 if bits % 8 == 0 else bits / 8 for dtype, bits in DTYPE_BITS.items()
}

_DTYPE_WORDS: dict[str, DType] = {}
for _dtype, _words in {
    "FP64": ("double", "fp64", "float64"),
    "FP32": ("float", "fp32", "float32", "kfloat"),
    "FP16": ("half", "fp16", "float16", "khalf"),
    "BF16": ("bfloat16", "bf16", "kbf16"),
    "FP8": ("fp8", "float8", "kfp8", "fp8e4m3", "e4m3", "float8e4m3fn"),
    "FP4": ("fp4", "kfp4", "fp4e2m1", "e2m1", "float4e2m1"),
    # MXFP8 block scales (10.12+): an 8-bit exponent, no mantissa
    "E8M0": ("e8m0", "ke8m0", "float8e8m0", "fp8e8m0"),
    "INT64": ("int64", "kint64"),
    "INT32": ("int32", "kint32"),
    "INT16": ("int16",),
    "INT8": ("int8", "kint8"),
    "INT4": ("int4", "kint4"),
    "UINT64": ("uint64",),
    "UINT32": ("uint32",),
    "UINT16": ("uint16",),
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
        format: the format text as printed: the inspector's ``Format/Datatype`` (``Row major
            linear FP32``, ``Half``) or the type word of the builder listing (``Half``).
        location: ``Device`` or ``Host`` (inspector output), if printed.
        layout: the memory layout the format names (see :attr:`TensorFormat.layout`), when
            the text tells it; the builder listing's compact notation does not.
        vector_width: how many elements are packed along the vectorized (channel) axis
            (``32`` for ``72:32`` or ``Thirty-two wide ...``), if the format packs any.
        element_bits: bits per element of :attr:`dtype`.
        datatype: the ``Datatype`` text of a TensorRT 11 layer JSON, as printed (11 split the
            combined ``Format/Datatype`` into ``Datatype`` and ``Format``; :attr:`format` then
            holds the ``Format`` text).
        strides: ``Strides`` (elements per step along each axis, TensorRT 11), if printed.
        stride_order: ``StrideOrder`` (TensorRT 11), if printed.

    Keys of a layer JSON's tensor objects that have no field here are kept as extras.
    """

    model_config = ConfigDict(frozen=True, defer_build=True, extra="allow")

    name: str
    dtype: DType | None = None
    dims: tuple[int, ...] | None = None
    vector: tuple[int, int] | None = None
    format: str | None = None
    location: str | None = None
    layout: str | None = None
    vector_width: int | None = None
    element_bits: int | None = None
    datatype: str | None = None
    strides: tuple[int, ...] | None = None
    stride_order: tuple[int, ...] | None = None


class TensorFormat(BaseModel):
    """A ``Format/Datatype`` text of the engine inspector, parsed (formats.md §JSON-5.1).

    Attributes:
        text: the format as printed.
        dtype: the element type it names (``None`` for ``Unknown format`` and ``None``).
        layout: the memory layout, named after TensorRT's ``TensorFormat`` without the ``k``,
            in lower case: ``linear`` (row major), ``chw2``/``chw4``/``chw16``/``chw32``
            (*N wide channel vectorized row major*), ``cdhw32`` (the same with 3 spatial
            dimensions), ``hwc`` (*channel major*), ``hwc2``/``hwc4``/``hwc8``/``hwc16``
            (*channel major ... where channel % N == 0*), ``dhwc``/``dhwc4``/``dhwc8`` (the
            same with 3 spatial dimensions), ``dla_linear`` (*row major ... where column
            stride % 64 == 0*), ``dla_hwc4`` (*channel major ... column stride % 32 == 0*).
            ``None`` for the bare type words of 10.x, which name no layout.
        vector_width: elements packed along the channel axis (``32`` for ``chw32``, ``8`` for
            ``hwc8``, ``N`` for DLA's ``channel == N``), if any.
        vector_axis: the channel axis counted from the end (``-3`` with two spatial
            dimensions, ``-4`` with three), when :attr:`vector_width` is set.
        element_bits: bits per element of :attr:`dtype`.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    text: str
    dtype: DType | None = None
    layout: str | None = None
    vector_width: int | None = None
    vector_axis: int | None = None
    element_bits: int | None = None


# TensorRT's TensorFormat enum (``kLINEAR``...) → layout, vector width, vector axis; the
# inspector appends the enum to the prose (``... format (kLINEAR)``, 10.x), and a TensorRT 11
# ``Format`` may name it alone
_ENUM_LAYOUTS: dict[str, tuple[str, int | None, int | None]] = {
    "LINEAR": ("linear", None, None),
    "CHW2": ("chw2", 2, -3),
    "CHW4": ("chw4", 4, -3),
    "CHW16": ("chw16", 16, -3),
    "CHW32": ("chw32", 32, -3),
    "CDHW32": ("cdhw32", 32, -4),
    "HWC": ("hwc", None, None),
    "HWC8": ("hwc8", 8, -3),
    "HWC16": ("hwc16", 16, -3),
    "DHWC": ("dhwc", None, None),
    "DHWC8": ("dhwc8", 8, -4),
    "DLA_LINEAR": ("dla_linear", None, None),
    "DLA_HWC4": ("dla_hwc4", 4, -3),
}
_BARE_ENUM = re.compile(r"\(?k?([A-Z][A-Z0-9_]*)\)?")

_WIDTHS = {"two": 2, "four": 4, "eight": 8, "sixteen": 16, "thirty-two": 32, "sixty-four": 64}

# "<Width> wide channel vectorized row major <Type>", "Row major [linear] <Type>",
# "Channel major <Type>", then an optional " format" and the clauses below.
_PROSE = re.compile(
    r"(?:(?P<width>[A-Za-z]+(?:-[A-Za-z]+)?) wide channel vectorized row major"
    r"|(?P<major>Row|Channel) major(?: linear)?)"
    r" (?P<type>[A-Za-z][A-Za-z0-9]*)(?: format)?(?P<tail>.*)",
    re.IGNORECASE | re.DOTALL,
)
# the numbers read as a vector width: ASCII digits, at most nine (bench/fuzz.py seed 42 gave
# a width of 4,400 digits, past what int() converts; a clause with one is not a clause we know)
_CLAUSE = re.compile(
    r" (?:where (?:channel|C) % (?P<pad>[0-9]{1,9}) == 0"
    r"|where (?:channel == (?P<eq>[0-9]{1,9}) and )?(?P<dla>column stride) % \d+ == 0"
    r"|and H Stride % \d+ == 0"
    r"|(?P<spatial>with 3 spatial dimensions)"
    r"|\((?P<enum>k[A-Z0-9_]+)\))",
    re.IGNORECASE,
)


@lru_cache(maxsize=1024)
def parse_format(text: str) -> TensorFormat:
    """Parse an inspector ``Format/Datatype`` text into a :class:`TensorFormat` (cached).

    Accepts every long form of formats.md §JSON-5.1 whatever its casing (``Int8``/``INT8``),
    with or without the trailing `` format`` and ``.``, and the bare type words of 10.x
    (``Half``, ``Float``, ``Int32``, ``Bool``...). Text it does not know keeps
    ``dtype``/``layout`` ``None``.

    Example:
        >>> f = parse_format("Thirty-two wide channel vectorized row major Int8 format")
        >>> f.dtype, f.layout, f.vector_width, f.vector_axis, f.element_bits
        ('INT8', 'chw32', 32, -3, 8)
        >>> parse_format("Channel major FP16 format where channel % 8 == 0").layout
        'hwc8'
        >>> parse_format("Half").dtype, parse_format("Half").layout
        ('FP16', None)
    """
    body = text.strip().rstrip(".").rstrip()
    m = _PROSE.fullmatch(body)
    if m is None:
        dtype = dtype_of(body) if body else None
        bare = _BARE_ENUM.fullmatch(body) if dtype is None else None
        known = _ENUM_LAYOUTS.get(bare[1]) if bare is not None else None
        if known is not None:  # a TensorRT 11 ``Format`` naming the enum alone (``kCHW32``)
            return TensorFormat.model_construct(
                text=text, layout=known[0], vector_width=known[1], vector_axis=known[2]
            )
        return TensorFormat.model_construct(
            text=text, dtype=dtype, element_bits=DTYPE_BITS[dtype] if dtype else None
        )
    dtype = dtype_of(m["type"])
    pad = eq = enum = None
    dla = spatial = False
    tail = m["tail"]
    pos = 0
    while pos < len(tail):
        c = _CLAUSE.match(tail, pos)
        if c is None:  # a clause we do not know: the layout stays unknown
            return TensorFormat.model_construct(
                text=text, dtype=dtype, element_bits=DTYPE_BITS[dtype] if dtype else None
            )
        pad = pad or c["pad"]
        eq = eq or c["eq"]
        enum = enum or c["enum"]
        dla = dla or c["dla"] is not None
        spatial = spatial or c["spatial"] is not None
        pos = c.end()
    width: int | None = None
    if m["width"] is not None:
        width = _WIDTHS.get(m["width"].lower())
        layout = None if width is None else f"{'cdhw' if spatial else 'chw'}{width}"
    elif m["major"].lower() == "row":
        layout = "dla_linear" if dla else "linear"
    elif dla:
        layout = "dla_hwc4"
        width = int(eq) if eq else None
    else:
        width = int(pad) if pad else None
        layout = f"{'dhwc' if spatial else 'hwc'}{width or ''}"
    if enum is not None:  # "Row major linear FP4 format (kLINEAR)": the enum says it all
        known = _ENUM_LAYOUTS.get(enum[1:])
        layout = known[0] if known is not None else enum[1:].lower()
        if width is None and known is not None and known[1] is not None:
            width, spatial = known[1], known[2] == -4
    # (its values are typed here: no validation, and no schema built on the first call)
    return TensorFormat.model_construct(
        text=text,
        dtype=dtype,
        layout=layout,
        vector_width=width,
        vector_axis=None if width is None else (-4 if spatial else -3),
        element_bits=DTYPE_BITS[dtype] if dtype else None,
    )


def inspector_tensor(
    name: str,
    dims: tuple[int, ...] | None = None,
    format: str | None = None,
    location: str | None = None,
    extra: dict[str, Any] | None = None,
    datatype: str | None = None,
    strides: tuple[int, ...] | None = None,
    stride_order: tuple[int, ...] | None = None,
) -> Tensor:
    """A :class:`Tensor` from the inspector's fields (one-line text or layer JSON).

    The format text gives ``dtype``, ``layout``, ``vector_width`` and ``element_bits``; the
    vectorized axis is located in ``dims`` when they are long enough. TensorRT 11 prints the
    type apart (``datatype``, its ``Datatype`` key): it names the ``dtype`` then, and the
    format text only the layout. ``extra`` holds the tensor's keys that have no field (kept on
    the model). The arguments must have the types the signature states: the tensor is
    assembled without validation (:mod:`trtlog._pydantic`).

    Example:
        >>> t = inspector_tensor("x", (1, 64, 56, 56), "Thirty-two wide channel vectorized "
        ...                      "row major Int8 format", "Device")
        >>> t.dtype, t.layout, t.vector
        ('INT8', 'chw32', (1, 32))
        >>> t = inspector_tensor("x", (1, 64, 56, 56), "kCHW32", "Device", datatype="Int8")
        >>> t.dtype, t.layout, t.vector, t.element_bits
        ('INT8', 'chw32', (1, 32), 8)
    """
    parts = _PARTS.get((format, datatype))
    if parts is None:
        parts = _format_parts(format, datatype)
    dtype, bits, layout, width, axis = parts
    vector = None
    if axis is not None and width is not None and dims is not None and len(dims) >= -axis:
        vector = (len(dims) + axis, width)
    data = {
        "name": name,
        "dtype": dtype,
        "dims": dims,
        "vector": vector,
        "format": format,
        "location": location,
        "layout": layout,
        "vector_width": width,
        "element_bits": bits,
        "datatype": datatype,
        "strides": strides,
        "stride_order": stride_order,
    }
    return assemble(Tensor, data, extra if extra is not None else {}, _TENSOR_FIELDS_SET)


_NO_FORMAT = TensorFormat.model_construct(text="")  # no validation: no schema at import
_Parts = tuple[DType | None, int | None, str | None, int | None, int | None]
# (format text, TensorRT 11 Datatype) -> (dtype, bits, layout, vector width, vector axis): an
# engine repeats a handful of formats, and one dict lookup beats the lru_cache wrapper
_PARTS: dict[tuple[str | None, str | None], _Parts] = {}


def _format_parts(format: str | None, datatype: str | None) -> _Parts:
    f = _NO_FORMAT if format is None else parse_format(format)
    dtype, bits = f.dtype, f.element_bits
    if datatype is not None:  # TensorRT 11 names the type apart: it wins
        named = dtype_of(datatype)
        if named is not None:
            dtype, bits = named, DTYPE_BITS[named]
    parts = (dtype, bits, f.layout, f.vector_width, f.vector_axis)
    if len(_PARTS) < 8192:
        _PARTS[(format, datatype)] = parts
    return parts


_TENSOR_FIELDS_SET = frozenset(Tensor.model_fields)


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

    model_config = ConfigDict(frozen=True, defer_build=True)

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


# dims -> text: an engine repeats a few hundred shapes (a cache beats the join)
_DIMS_TEXT: dict[tuple[int, ...], str] = {}


def dims_text(dims: tuple[int, ...] | None) -> str:
    """``1x64x56x56``, as trtexec writes dims (``scalar`` for 0-D, empty when unknown).

    Example:
        >>> dims_text((1, 64, 56, 56)), dims_text(()), dims_text(None)
        ('1x64x56x56', 'scalar', '')
    """
    if dims is None:
        return ""
    text = _DIMS_TEXT.get(dims)
    if text is None:
        text = "x".join(map(str, dims)) if dims else "scalar"
        if len(_DIMS_TEXT) < 65536:
            _DIMS_TEXT[dims] = text
    return text
