"""Keyword rules and transformer of the layers family (grammars/layers.lark).

Part of the parser. Engine layer dumps: `Engine Layer Information:`, the 10.x `Layers:` dump,
`--dumpLayerInfo` inspector records (formats.md §I, §K.2, §K.3).

All of these are multi-line messages whose first line only carries the envelope (T4), so the
header rows open *records* continuations: each bare line after them is parsed on its own
into one event. The continuations end at the next enveloped line (the message is over) or at
a bare line that cannot belong to them. The grammar captures each tensor or parameter list
as one terminal; the functions below split them at the separators that close a descriptor,
never inside a name (T1), in one linear pass (T27: inspector records can be tens of KB).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from lark import Token, v_args

from trtlog.events.layers import OnnxLayerExtra
from trtlog.names import parse_metadata
from trtlog.numbers import parse_tactic
from trtlog.parser.family import BaseTransformer, Continuation, Family, Fields, Rule
from trtlog.tensors import DTYPE_BITS, Tensor, dtype_of, inspector_tensor

__all__ = [
    "FAMILY",
    "parse_parameters",
    "split_engine_io",
    "split_engine_tensors",
    "split_inspector_tensors",
]

# -- builder listing: "name[Type(dims)]" (≤ 8.6 GA) and "name (Type[dims])" (8.6+ / 9.x+) -----

# A tensor descriptor at the end of a tensor, followed by the list separator or the end.
_DESCRIPTOR = re.compile(
    r"(?:\[(?P<old>[A-Za-z][A-Za-z0-9]*)\((?P<old_dims>[-\d:,]*)\)\]"
    r"| \((?P<new>[A-Za-z][A-Za-z0-9]*)\[(?P<new_dims>[-\d:,]*)\]\))"
    r"(?=, |$)"
)


# Tensors are immutable and the same tensor is printed twice (output of one layer, input of
# the next), so equal descriptors share one object.
@lru_cache(maxsize=4096)
def _listing_tensor(name: str, word: str, dims_text: str) -> Tensor:
    dims: list[int] = []
    vector: tuple[int, int] | None = None
    if dims_text:
        for i, item in enumerate(dims_text.split(",")):
            value, colon, width = item.partition(":")
            dims.append(int(value))
            if colon:
                vector = (i, int(width))
    dtype = dtype_of(word)
    return Tensor(
        name=name,
        dtype=dtype,
        dims=tuple(dims),
        vector=vector,
        format=word,
        vector_width=vector[1] if vector else None,
        element_bits=DTYPE_BITS[dtype] if dtype else None,
    )


def split_engine_tensors(text: str) -> tuple[Tensor, ...]:
    """Split a tensor list of the builder's layer listing (formats.md §I.2).

    Tensors are separated by ``, `` right after a descriptor's closing bracket; names may
    hold anything else (commas, brackets, ``Reformatted Input Tensor 0 to {ForeignNode[…]}``).
    Text after the last descriptor (a truncated paste) becomes a tensor with only a name.

    Example:
        >>> [(t.name, t.dtype, t.dims, t.vector) for t in split_engine_tensors(
        ...     "a, b[Half(1,3)], c (Int8[4,72:32,128,192])")]
        [('a, b', 'FP16', (1, 3), None), ('c', 'INT8', (4, 72, 128, 192), (1, 32))]
    """
    out: list[Tensor] = []
    start = 0
    for m in _DESCRIPTOR.finditer(text):
        name = text[start : m.start()]
        if m["old"] is not None:
            out.append(_listing_tensor(name, m["old"], m["old_dims"]))
        else:
            out.append(_listing_tensor(name, m["new"], m["new_dims"]))
        start = m.end() + 2  # the ", " after the descriptor
    rest = text[start:]
    if rest.strip():
        out.append(Tensor(name=rest))
    return tuple(out)


_ARROW = re.compile(r"(?<=\)\]|\]\)) ->")


def split_engine_io(text: str) -> tuple[tuple[Tensor, ...], tuple[Tensor, ...]]:
    """Split ``<inputs> -> <outputs>`` of the builder's layer listing into two tensor tuples.

    The arrow is the first `` ->`` right after a descriptor (``…)]`` or ``…])``), or the
    first one when the inputs are empty (``Tactic: 0x0000000000000000,  -> out[Float(1)]``).

    Example:
        >>> ins, outs = split_engine_io("  -> y (Float[-1,10]), z (Int64[-1])")
        >>> ins, [t.name for t in outs]
        ((), ['y', 'z'])
    """
    stripped = text.lstrip(" ")
    if stripped.startswith("->"):
        return (), _engine_list(stripped[2:])
    m = _ARROW.search(text)
    if m is None:  # no outputs section we can find: keep everything as inputs
        return _engine_list(text), ()
    return _engine_list(text[: m.start()]), _engine_list(text[m.end() :])


def _engine_list(text: str) -> tuple[Tensor, ...]:
    text = text.strip(" ")
    return split_engine_tensors(text) if text else ()


# -- inspector one-line records -------------------------------------------------------------

# up to 10.x: "..., Format/Datatype: <fmt>"; TensorRT 11 splits it (as in its layer JSON):
# "..., Datatype: <type>, Format: <fmt>[, Strides: [..]][, StrideOrder: [..]]"
_INSPECTOR_TENSOR = re.compile(
    r"(?P<name>.*?)(?:, Location: (?P<location>[^,]*))?"
    r"(?:, Dimensions: \[(?P<dims>[-\d,]*)\])?"
    r"(?:, Format/Datatype: (?P<format>.*)"
    r"|, Datatype: (?P<datatype>[^,]*), Format: (?P<format11>.*?)"
    r"(?:, Strides: \[(?P<strides>[-\d,]*)\])?(?:, StrideOrder: \[(?P<order>[-\d,]*)\])?)?",
    re.DOTALL,
)


def _numbers(text: str | None) -> tuple[int, ...] | None:
    return None if text is None else tuple(int(d) for d in text.split(",") if d)


@lru_cache(maxsize=4096)
def _inspector_tensor(item: str) -> Tensor:
    m = _INSPECTOR_TENSOR.fullmatch(item)
    assert m is not None  # every group is optional: the pattern matches any text
    if m["datatype"] is not None:
        return inspector_tensor(
            m["name"],
            _numbers(m["dims"]),
            m["format11"],
            m["location"],
            datatype=m["datatype"],
            strides=_numbers(m["strides"]),
            stride_order=_numbers(m["order"]),
        )
    return inspector_tensor(m["name"], _numbers(m["dims"]), m["format"], m["location"])


def split_inspector_tensors(text: str) -> tuple[Tensor, ...]:
    """Split an inspector tensor list: ``[]`` or ``[ { Name: …, … }, { Name: …, … }]``.

    Example:
        >>> [(t.name, t.dims, t.dtype, t.location) for t in split_inspector_tensors(
        ...     "[ { Name: x, Location: Device, Dimensions: [1,3], Format/Datatype: Half }]")]
        [('x', (1, 3), 'FP16', 'Device')]
    """
    inner = text[1:-1]
    if not inner.strip():
        return ()
    inner = inner.removeprefix(" { Name: ").removesuffix(" }")
    return tuple(_inspector_tensor(item) for item in inner.split(" }, { Name: "))


# A parameter starts after ", " at bracket depth 0 with "Key: ".
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_/]*): ")
_SPECIAL = re.compile(r'[\[\]{}()"\\]|, ')
_OPEN = "[{("
_CLOSE = "]})"
_INT = re.compile(r"-?\d+")
# a JSON array of integers (JSON allows no leading zeros)
_INT_LIST = re.compile(r"\[(?:-?(?:0|[1-9]\d*)(?:,-?(?:0|[1-9]\d*))*)?\]")
_TACTIC = re.compile(r"0x[0-9a-fA-F]+|-?\d+")
_FLOAT = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)", re.IGNORECASE)


def _split_top_params(text: str) -> list[tuple[str, str]]:
    """``Key: value, Key: value`` → pairs, splitting only at depth 0 outside quotes.

    A walk over the special characters (brackets, quotes, escapes and ``", "``): a value runs
    up to a ``", "`` at depth 0 that a key follows.
    """
    m = _KEY.match(text)
    if m is None:
        return [("", text)]
    pairs: list[tuple[str, str]] = []
    key, key_end = m.group(1), m.end()
    depth = 0
    quoted = False
    skip = -1
    for found in _SPECIAL.finditer(text, key_end):
        i = found.start()
        if i < skip:
            continue
        ch = found.group()
        if quoted:
            if ch == "\\":
                skip = i + 2
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
        elif ch == ", " and depth == 0:
            k = _KEY.match(text, i + 2)
            if k is not None:
                pairs.append((key, text[key_end:i]))
                key, key_end = k.group(1), k.end()
                skip = key_end
    pairs.append((key, text[key_end:]))
    return pairs


def _frozen(value: Any) -> Any:
    """JSON data with lists as tuples and objects as tuples of (key, value) pairs."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    return value


def _param_value(text: str) -> Any:
    # by the first character: only a number's can start a number (_INT, _FLOAT), only "["
    # an integer list, only "[" or "{" JSON; most values are words (kEXPLICIT_ROUND_DOWN)
    first = text[:1]
    if first in _NUMBER_START:
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
        return text
    if first == "[" and _INT_LIST.fullmatch(text):
        # what json.loads gives for "[3,3]", frozen, without the JSON decoder
        return tuple(int(x) for x in text[1:-1].split(",")) if len(text) > 2 else ()
    if first in ("[", "{"):
        try:
            return _frozen(json.loads(text))
        except ValueError:
            return text
    return text


#: the first characters of a text _INT or _FLOAT can match
_NUMBER_START = frozenset("0123456789-+.iInN")


def parse_parameters(text: str) -> tuple[tuple[str, Any], ...]:
    """The ``Key: value`` pairs of an inspector record after its tensor lists, values parsed.

    Integers become ``int``, other numbers ``float``, JSON arrays tuples, JSON objects tuples
    of ``(key, value)`` pairs; anything else stays text.

    Example:
        >>> parse_parameters('Kernel: [3,3], Weights: {"Type": "Int8", "Count": 864}, '
        ...                  'PaddingMode: kEXPLICIT_ROUND_DOWN')
        (('Kernel', (3, 3)), ('Weights', (('Type', 'Int8'), ('Count', 864))), \
('PaddingMode', 'kEXPLICIT_ROUND_DOWN'))
    """
    return tuple((key, _param_value(value)) for key, value in _split_top_params(text))


@v_args(inline=True)
class LayersTransformer(BaseTransformer):
    """Builds layers events."""

    def INPUT_LIST(self, tok: Token) -> tuple[Tensor, ...]:
        return split_inspector_tensors(str(tok))

    OUTPUT_LIST = INPUT_LIST

    def engine_layer_info_header(self) -> Fields:
        return {"kind": "engine_layer_info_header"}

    def engine_layer_info(self, impl: Token, layer: Token, tactic: int, io: Token) -> Fields:
        inputs, outputs = split_engine_io(str(io)[1:])
        return {
            "kind": "engine_layer_info",
            "layer": str(layer),
            "implementation": str(impl),
            "tactic": tactic,
            "inputs": inputs,
            "outputs": outputs,
        }

    def engine_layers_detailed(self) -> Fields:
        return {"kind": "engine_layers_detailed"}

    def inspector_layers_header(self) -> Fields:
        return {"kind": "inspector_layers_header"}

    def layer_info_dump(self) -> Fields:
        return {"kind": "layer_info_dump"}

    def layer_names_only_notice(self, verbosity: Token, suggested: Token) -> Fields:
        return {
            "kind": "layer_names_only_notice",
            "verbosity": str(verbosity),
            "suggested": str(suggested),
        }

    def inspector_record(
        self,
        layer: Token,
        layer_type: Token,
        inputs: tuple[Tensor, ...],
        outputs: tuple[Tensor, ...],
        tail: Token | None,
    ) -> Fields:
        parameters: list[tuple[str, Any]] = []
        tactic_name = tactic = stream_id = None
        params: str | None = None
        metadata: str | None = None
        if tail is not None:
            # Metadata is the last key and free text (ONNX node names): cut it off first
            text = str(tail)
            at = text.find(", Metadata:")
            params, metadata = (text[2:], None) if at < 0 else (text[2:at], text[at:])
        if params:
            for key, text in _split_top_params(params):
                if key == "TacticName":
                    tactic_name = text
                elif key == "TacticValue" and _TACTIC.fullmatch(text):
                    tactic = parse_tactic(text)
                elif key == "StreamId" and _INT.fullmatch(text):
                    stream_id = int(text)
                else:
                    parameters.append((key, _param_value(text)))
        meta = None
        names: tuple[str, ...] = ()
        extras: tuple[OnnxLayerExtra, ...] = ()
        if metadata is not None:
            meta = metadata[len(", Metadata:") :].removeprefix(" ")
            names, found = parse_metadata(meta)
            extras = tuple(
                OnnxLayerExtra(index=i, doc=doc, local_function=f) for i, doc, f in found
            )
        return {
            "kind": "inspector_record",
            "layer": str(layer),
            "layer_type": str(layer_type),
            "inputs": inputs,
            "outputs": outputs,
            "parameters": tuple(parameters),
            "tactic_name": tactic_name,
            "tactic": tactic,
            "stream_id": stream_id,
            "metadata": meta,
            "onnx_layers": names,
            "onnx_extras": extras,
        }

    def inspector_layer_name(self, name: Token) -> Fields:
        return {"kind": "inspector_layer_name", "layer": str(name)}

    def inspector_bindings_header(self) -> Fields:
        return {"kind": "inspector_bindings_header"}

    def inspector_binding(self, name: Token) -> Fields:
        return {"kind": "inspector_binding", "name": str(name)}


def _layer_line(text: str) -> bool:
    return text.startswith("Layer(")


_FENCE = ("```", "~~~")


def _inspector_line(text: str) -> bool:
    # every non-blank line of the inspector text up to "Bindings:" (which opens the bindings),
    # but a markdown code fence around a pasted log is never a layer name
    stripped = text.strip()
    return bool(stripped) and stripped != "Bindings:" and not stripped.startswith(_FENCE)


def _inspector_shape(text: str) -> str:
    # a detailed dump is all "Name: ..., LayerType: ..." records, a names-only dump all names,
    # each at the indentation of the paste: the first line fixes which
    record = text.lstrip().startswith("Name: ") and ", LayerType: " in text
    return f"{'record' if record else 'name'}:{len(text) - len(text.lstrip())}"


def _non_blank(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith(_FENCE)


def _never(_message: str) -> bool:
    # the inspector text is one message: the next enveloped line ends it
    return False


FAMILY = Family(
    name="layers",
    transformer=LayersTransformer,
    rules=(
        Rule("engine_layer_info_header", prefix="Engine Layer Information:", then="engine_layers"),
        # 7.x prints every layer line with its own envelope; pastes without the header too
        Rule("engine_layer_info", prefix="Layer(", bare=True),
        Rule("layer_info_dump", prefix="Layer Information:", enters="layer_info"),
        Rule(
            "inspector_layers_header",
            prefix="Layers:",
            section="layer_info",
            leaves=True,
            then="inspector_layers",
        ),
        Rule("engine_layers_detailed", prefix="Layers:", then="inspector_layers"),
        Rule("layer_names_only_notice", prefix="The profiling verbosity was set to "),
        # a record pasted on its own, without the "Layers:" line
        Rule(
            "inspector_line", prefix="Name: ", contains=", LayerType: ", bare=True, enveloped=False
        ),
        Rule(
            "inspector_bindings_header",
            prefix="Bindings:",
            bare=True,
            enveloped=False,
            then="inspector_bindings",
        ),
    ),
    routed=(),
    continuations=(
        Continuation(
            "engine_layers", records="engine_layer_info", bare=_layer_line, enveloped=_layer_line
        ),
        Continuation(
            "inspector_layers",
            records="inspector_line",
            bare=_inspector_line,
            enveloped=_never,
            kind_of=_inspector_shape,
        ),
        Continuation(
            "inspector_bindings", records="inspector_binding", bare=_non_blank, enveloped=_never
        ),
    ),
)
