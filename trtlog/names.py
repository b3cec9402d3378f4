"""Names as TensorRT writes them: every rule that reads a layer, node or kernel name, in one place.

Part of the vocabulary (pydantic only; views and loaders import it, never the other way).
Composed names first: TensorRT names an engine layer after what went into it
(formats.md T1): ``a + b`` (vertical fusion), ``a || b`` (horizontal merge), ``PWN(a, b)``
(pointwise fusion), ``{ForeignNode[a...b]}`` (a Myelin or DLA region from ``a`` to ``b``),
``Reformatting CopyNode for Input Tensor 0 to x`` (a reformat feeding ``x``), ``x_clone_2``
(a Q/DQ clone), ``x [profile 1]`` (the copy of ``x`` for optimization profile 1) and, in 10.x
Myelin, ``a+b_myl0_3`` (kernel 3 of Myelin graph 0). :func:`split_name` turns such a name into
a tree of :class:`ComposedName` nodes; ``members()`` lists the original names inside.

Splitting is done at bracket depth 0 only, so names with brackets, commas or ``+`` inside
parentheses (``(Unnamed Layer* 5) [Shuffle]``, ``PWN(PWN(a, b), c)``) stay whole.

Then the other name rules: clone and profile suffixes away (:func:`normalize_name`), Q/DQ
nodes, quantizers and weights (:func:`is_qdq_node`, :func:`is_quantizer_name`,
:func:`is_weights_name`), the op type a node name gives away (:func:`op_of`), the ONNX module
hierarchy of ``/``-separated names (:func:`module_path`, :func:`common_module`,
:func:`cut_module`), the ONNX nodes a layer name lists (:func:`onnx_nodes_of_name`) and Myelin
kernel names (:func:`parse_kernel_name`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from trtlog._pydantic import assemble

__all__ = [
    "ComposedName",
    "MyelinKernel",
    "NameOp",
    "OnnxSource",
    "common_module",
    "common_path",
    "cut_module",
    "decode_ops",
    "decorated",
    "foreign_range_ends",
    "is_qdq_node",
    "is_quantize_scale_node",
    "is_quantizer_name",
    "is_weights_name",
    "module_path",
    "normalize_name",
    "onnx_nodes_of_name",
    "op_of",
    "parse_kernel_name",
    "parse_metadata",
    "placed_nodes",
    "reformat_name",
    "split_name",
    "split_shape",
    "split_top",
]

NameOp = Literal[
    "leaf",  # a plain name
    "fusion",  # a + b + c
    "merge",  # a || b
    "pointwise",  # PWN(a, b)
    "foreign",  # {ForeignNode[a...b]} (range) or {a,b,c} (7.x DLA list)
    "reformat",  # Reformatting CopyNode for Input Tensor 0 to x / Reformatted Input Tensor 0 to x
    "clone",  # x_clone_2
    "profile",  # x [profile 1]
    "myelin",  # a+b_myl0_3 (10.x Myelin kernels)
]

_PROFILE = re.compile(r"^(?P<base>.+) \[profile (?P<n>\d{1,18})\]$")
_CLONE = re.compile(r"^(?P<base>.+)_clone_(?P<n>\d{1,18})$")
_MYELIN = re.compile(r"^(?P<base>.+?)_myl(?P<graph>\d{1,18})_(?P<n>\d{1,18})$")
_REFORMAT = re.compile(
    r"^(?:Reformatting CopyNode for|Reformatted) (?P<dir>Input|Output) Tensor (?P<n>\d{1,18}) to "
    r"(?P<target>.+)$",
    re.DOTALL,
)
_REFORMAT_NETWORK = re.compile(
    r"^Reformatting CopyNode for Network (?P<dir>Input|Output) (?P<target>.+)$", re.DOTALL
)
_OPEN = "([{"
_CLOSE = ")]}"


class ComposedName(BaseModel):
    """One node of a composed-name tree.

    Attributes:
        text: the name (or sub-name) as TensorRT printed it.
        op: how this node composes its parts (``leaf`` when it does not).
        parts: the composed names, in the order TensorRT printed them.
        index: the clone number, profile number, reformat tensor index or Myelin kernel index.
        detail: ``range``/``list`` for foreign nodes, ``input``/``output`` (with a
            ``network_`` prefix for network bindings, ``tensor_`` when the name is the
            reformatted tensor rather than the layer) for reformats, the Myelin graph number.

    Example:
        >>> n = split_name("conv.weight + /conv/QuantizeLinear + /conv/Conv")
        >>> n.op, n.members()
        ('fusion', ['conv.weight', '/conv/QuantizeLinear', '/conv/Conv'])
    """

    # (no schema at import: the splitter assembles its nodes, and a schema costs start-up)
    model_config = ConfigDict(frozen=True, defer_build=True)

    text: str
    op: NameOp = "leaf"
    parts: tuple[ComposedName, ...] = ()
    index: int | None = None
    detail: str | None = None

    def members(self) -> list[str]:
        """The original names inside, in print order, without duplicates.

        Reformat nodes hold no original names (see :attr:`target`); a foreign range lists only
        its two ends (expanding the range needs the node order, which the log's parser events
        or a layer JSON give).
        """
        if self.op == "leaf":
            return [self.text]
        out: list[str] = []
        if self.op != "reformat":
            self._collect(out)
        return list(dict.fromkeys(out))

    def _collect(self, out: list[str]) -> None:
        # self is neither a leaf nor a reformat: one call per composed part, not per part
        for part in self.parts:
            op = part.op
            if op == "leaf":
                out.append(part.text)
            elif op != "reformat":
                part._collect(out)

    @property
    def target(self) -> ComposedName | None:
        """For a reformat, the layer (or tensor) it feeds or drains; else ``None``."""
        return self.parts[0] if self.op == "reformat" and self.parts else None

    @property
    def base(self) -> ComposedName:
        """The name without its clone, profile or Myelin decoration (itself otherwise)."""
        if self.op in ("clone", "profile", "myelin") and self.parts:
            return self.parts[0].base
        return self


def split_top(text: str, sep: str) -> list[str]:
    """Split ``text`` at ``sep`` where no bracket is open.

    Example:
        >>> split_top("PWN(a, b), c", ", ")
        ['PWN(a, b)', 'c']
    """
    if sep not in text:
        return [text]
    if _BRACKET.search(text) is None:
        return text.split(sep)
    # the pieces between separators, joined again while a bracket is open (brackets are no
    # part of any separator: a separator's depth is that of the text before it)
    pieces = text.split(sep)
    out: list[str] = []
    depth = 0
    first = 0  # the first piece of the part being gathered
    last = len(pieces) - 1
    for i, piece in enumerate(pieces):
        if _BRACKET.search(piece) is not None:
            for ch in _BRACKET.findall(piece):
                if ch in _OPEN:
                    depth += 1
                elif depth:  # a closing bracket never takes the depth below zero
                    depth -= 1
        if depth == 0 or i == last:
            out.append(piece if first == i else sep.join(pieces[first : i + 1]))
            first = i + 1
    return out


_BRACKET = re.compile(r"[()\[\]{}]")


def _balanced(text: str) -> bool:
    depth = 0
    # only the brackets, not every character (PWN names of a big engine run to kilobytes)
    for ch in _BRACKET.findall(text):
        if ch in _OPEN:
            depth += 1
        else:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _wrapped(text: str, head: str, tail: str) -> str | None:
    """The inside of ``head...tail`` when they enclose the whole text (one bracket pair)."""
    if not (text.startswith(head) and text.endswith(tail)):
        return None
    inner = text[len(head) : len(text) - len(tail)]
    return inner if _balanced(inner) else None


@lru_cache(maxsize=65536)
def split_name(text: str) -> ComposedName:
    """Split a layer, node or tensor name into its composed parts (cached).

    Example:
        >>> split_name("{ForeignNode[/a/Conv + /a/Relu.../b/Add]}").members()
        ['/a/Conv', '/a/Relu', '/b/Add']
        >>> split_name("Reformatting CopyNode for Input Tensor 0 to /c/Conv").target.text
        '/c/Conv'
        >>> split_name("/q/QuantizeLinear_clone_1").base.text
        '/q/QuantizeLinear'
    """
    return _split(text)


_NAME_FIELDS_SET = frozenset(("text", "op", "parts", "index", "detail"))


def _name(
    text: str,
    op: NameOp = "leaf",
    parts: tuple[ComposedName, ...] = (),
    index: int | None = None,
    detail: str | None = None,
) -> ComposedName:
    """A :class:`ComposedName` assembled without validation (the splitter types its values)."""
    data = {"text": text, "op": op, "parts": parts, "index": index, "detail": detail}
    return assemble(ComposedName, data, None, _NAME_FIELDS_SET)


def _leaf(text: str) -> ComposedName:
    """``_name(text)``: a plain name (most parts of a composed name), with one call less."""
    data = {"text": text, "op": "leaf", "parts": (), "index": None, "detail": None}
    return assemble(ComposedName, data, None, _NAME_FIELDS_SET)


#: How deep names nest (``PWN(PWN(...))``, fusions of foreign nodes...) before the rest of a
#: name is kept whole, as one leaf: TensorRT's names nest a few levels; the bound keeps the
#: splitter's cost linear in the name's length and its recursion far from Python's limit
#: (a name nested 500 deep must not raise RecursionError).
MAX_DEPTH = 32


class Shape(NamedTuple):
    """A composed-name tree as plain tuples: :class:`ComposedName`'s fields, no model.

    What :func:`split_shape` gives: the same tree as :func:`split_name`, for readers of tens of
    thousands of names that need no models (the merge graph of a big engine).
    """

    text: str
    op: NameOp = "leaf"
    parts: tuple[Shape, ...] = ()
    number: int | None = None
    """:attr:`ComposedName.index` (a tuple has an ``index`` method already)."""
    detail: str | None = None

    def members(self) -> list[str]:
        """:meth:`ComposedName.members`: the original names inside, without duplicates."""
        if self.op == "leaf":
            return [self.text]
        out: list[str] = []
        if self.op != "reformat":
            _shape_collect(self, out)
        return list(dict.fromkeys(out))


def _shape_collect(shape: Shape, out: list[str]) -> None:
    for part in shape.parts:
        op = part.op
        if op == "leaf":
            out.append(part.text)
        elif op != "reformat":
            _shape_collect(part, out)


def _shape_leaf(text: str) -> Shape:
    # (tuple.__new__: no call of the NamedTuple's own __new__, a leaf per part of every name)
    return _new_tuple(Shape, (text, "leaf", (), None, None))


_new_tuple = tuple.__new__


@lru_cache(maxsize=65536)
def split_shape(text: str) -> Shape:
    """:func:`split_name` of ``text`` as :class:`Shape` tuples (cached, as ``split_name``).

    The same splitter builds both, so both trees always agree.

    Example:
        >>> split_shape("PWN(a, b)").op, [p.text for p in split_shape("PWN(a, b)").parts]
        ('pointwise', ['a', 'b'])
    """
    if (
        " + " in text
        and "(" not in text
        and "[" not in text
        and "{" not in text
        and " || " not in text
        and "_clone_" not in text
        and "_myl" not in text
        and "Reformat" not in text
    ):
        # a fusion of plain names (most layers of a big engine): what _tree makes of it, as
        # no other rule applies and no part is decorated (a closing bracket alone opens none)
        leaves = tuple([_new_tuple(Shape, (p, "leaf", (), None, None)) for p in text.split(" + ")])
        fused: Shape = _new_tuple(Shape, (text, "fusion", leaves, None, None))
        return fused
    shape: Shape = _tree(text, 0, Shape, _shape_leaf)
    return shape


def _split(text: str, depth: int = 0) -> ComposedName:
    name: ComposedName = _tree(text, depth, _name, _leaf)
    return name


def _tree(text: str, depth: int, make: Callable[..., Any], leaf: Callable[[str], Any]) -> Any:
    """The tree of ``text``: one splitter for :class:`ComposedName` and :class:`Shape` trees.

    ``make(text, op, parts, index, detail)`` makes a node (positional: ``Shape`` is a tuple)
    and ``leaf(text)`` a plain name.
    """
    if depth >= MAX_DEPTH:
        return leaf(text)
    depth += 1
    # Order matters: decorations that wrap a whole name first, then the depth-0 operators
    # from the loosest (||) to the tightest (+), then decorations of a single name.
    if not decorated(text):  # fast path: most parts are plain names
        return leaf(text)
    m = _PROFILE.match(text) if text.endswith("]") else None
    if m:
        return make(text, "profile", (_tree(m["base"], depth, make, leaf),), int(m["n"]), None)
    # both reformat patterns start with "Reformat" (a test of the prefix is cheaper than a match)
    m = _REFORMAT.match(text) if text.startswith("Reformat") else None
    if m:
        direction = m["dir"].lower()
        if text.startswith("Reformatted"):
            direction = "tensor_" + direction
        target = _tree(m["target"], depth, make, leaf)
        return make(text, "reformat", (target,), int(m["n"]), direction)
    m = _REFORMAT_NETWORK.match(text) if text.startswith("Reformat") else None
    if m:
        return make(text, "reformat", (leaf(m["target"]),), None, "network_" + m["dir"].lower())
    # (each rule below is tried only when its text is there: a call less per rule that cannot
    # match, on a big engine's tens of thousands of names)
    merged = split_top(text, " || ") if " || " in text else ()
    if len(merged) > 1:
        parts = tuple([_tree(p, depth, make, leaf) if decorated(p) else leaf(p) for p in merged])
        return make(text, "merge", parts, None, None)
    fused = split_top(text, " + ") if " + " in text else ()
    if len(fused) > 1:
        parts = tuple([_tree(p, depth, make, leaf) if decorated(p) else leaf(p) for p in fused])
        return make(text, "fusion", parts, None, None)
    braced = text.startswith("{")
    inner = _wrapped(text, "{ForeignNode[", "]}") if braced else None
    if inner is not None:
        first, sep, last = inner.partition("...")
        if sep:
            ends = (_tree(first, depth, make, leaf), _tree(last, depth, make, leaf))
            return make(text, "foreign", ends, None, "range")
        return make(text, "foreign", (_tree(inner, depth, make, leaf),), None, "range")
    inner = _wrapped(text, "{", "}") if braced else None
    if inner is not None and "," in inner:
        return make(text, "foreign", tuple([leaf(p) for p in inner.split(",")]), None, "list")
    inner = _wrapped(text, "PWN(", ")") if text.startswith("PWN(") else None
    if inner is not None:
        pieces = split_top(inner, ", ")
        parts = tuple([_tree(p, depth, make, leaf) if decorated(p) else leaf(p) for p in pieces])
        return make(text, "pointwise", parts, None, None)
    m = _CLONE.match(text) if "_clone_" in text else None
    if m:
        return make(text, "clone", (_tree(m["base"], depth, make, leaf),), int(m["n"]), None)
    m = _MYELIN.match(text) if "_myl" in text else None
    if m and not braced:
        base = m["base"]
        pieces = split_top(base, "+") if "+" in base and " + " not in base else [base]
        inner_name = (
            make(base, "fusion", tuple([leaf(p) for p in pieces]), None, None)
            if len(pieces) > 1
            else leaf(base)
        )
        return make(text, "myelin", (inner_name,), int(m["n"]), m["graph"])
    return leaf(text)


def reformat_name(text: str) -> bool:
    """Whether :func:`split_name` makes ``text`` a reformat (or the profile copy of one).

    The same answer without building (and caching) the name's tree.

    Example:
        >>> reformat_name("Reformatting CopyNode for Input Tensor 0 to /a/Conv")
        True
    """
    if not text.startswith("Reformat"):
        return False
    for _ in range(MAX_DEPTH):  # split_name takes [profile N] suffixes off first
        if not text.endswith("]"):
            break
        m = _PROFILE.match(text)
        if m is None:
            break
        text = m["base"]
    return _REFORMAT.match(text) is not None or _REFORMAT_NETWORK.match(text) is not None


def foreign_range_ends(text: str) -> tuple[str, str] | None:
    """``(first, last)`` of ``{ForeignNode[first...last]}`` when both ends are plain names.

    The same ends :func:`split_name` gives such a name, without building (and caching) its
    tree; ``None`` for any other name, which then needs :func:`split_name`.

    Example:
        >>> foreign_range_ends("{ForeignNode[/a/MatMul.../a/Softmax]}")
        ('/a/MatMul', '/a/Softmax')
    """
    head, tail = "{ForeignNode[", "]}"
    if not (text.startswith(head) and text.endswith(tail)):
        return None
    inner = text[len(head) : -len(tail)]
    first, sep, last = inner.partition("...")
    if not sep or _BRACKET.search(inner) or _DECORATED.search(first) or _DECORATED.search(last):
        return None
    return first, last


# what any rule of _split looks for; a name without any of these is a leaf
_DECORATED = re.compile(r"[(\[{]| \+ | \|\| |_clone_|_myl|^Reformat")


def decorated(text: str) -> bool:
    """Whether :func:`split_name` may find structure in ``text`` (a plain name: ``False``).

    ``_DECORATED.search(text) is not None``, several times faster (substring tests).

    Example:
        >>> decorated("/model/conv1/Conv"), decorated("a + b")
        (False, True)
    """
    return (
        "(" in text
        or "[" in text
        or "{" in text
        or " + " in text
        or " || " in text
        or "_clone_" in text
        or "_myl" in text
        or text.startswith("Reformat")
    )


_GROUP = "[ONNX Layer: "
_METADATA_SEPARATORS = re.compile(r"[\x1e\x1f\ufffd]|(?<=\])(?=\[ONNX Layer: )")


def parse_metadata(
    text: str,
) -> tuple[tuple[str, ...], tuple[tuple[int, tuple[str, ...], str | None], ...]]:
    """Split inspector metadata into ONNX node names and the extras of their groups (T18).

    Groups ``[ONNX Layer: <node>( | <doc line>)*( | Local Function: <f>)?]`` are separated by
    U+001E, U+001F, a ``�`` left by a paste, or nothing (``…][ONNX Layer: …``). A group the
    4000-character limit cut keeps its `` ... `` marker in its name.

    Returns:
        The node names, and ``(index, doc lines, local function)`` for the groups with extras.

    Example:
        >>> parse_metadata("[ONNX Layer: /a/Conv]\\x1e[ONNX Layer: /a/Relu | Local Function: f]")
        (('/a/Conv', '/a/Relu'), ((1, (), 'f'),))
    """
    if text.startswith(_GROUP) and text.endswith("]") and " | " not in text:
        # fast path: well-formed groups joined by one separator (U+001E, or U+001F as 10.x
        # writes it), no extras; as many groups as "[ONNX Layer: " and one separator between
        # each two prove that no other text hides
        separator, other = ("\x1f", "\x1e") if "\x1e" not in text else ("\x1e", "\x1f")
        found = text[len(_GROUP) : -1].split("]" + separator + _GROUP)
        n = len(found)
        if (
            n == text.count(_GROUP)
            and n == text.count(separator) + 1
            and other not in text
            and "\ufffd" not in text
        ):
            return tuple(found), ()
    return _parse_groups(text)


def _parse_groups(
    text: str,
) -> tuple[tuple[str, ...], tuple[tuple[int, tuple[str, ...], str | None], ...]]:
    names: list[str] = []
    extras: list[tuple[int, tuple[str, ...], str | None]] = []
    if not text:
        return (), ()
    if "\ufffd" in text or "][" in text:
        pieces = _METADATA_SEPARATORS.split(text)
    else:  # fast path: only the control separators
        pieces = text.replace("\x1f", "\x1e").split("\x1e")
    for piece in pieces:
        if not piece:
            continue
        body = piece.removeprefix("[ONNX Layer: ")
        if body.endswith("]"):
            body = body[:-1]
        name, *parts = body.split(" | ")
        if parts:
            function = None
            doc: list[str] = []
            for part in parts:
                if part.startswith("Local Function: "):
                    function = part[len("Local Function: ") :]
                else:
                    doc.append(part)
            extras.append((len(names), tuple(doc), function))
        names.append(name)
    return tuple(names), tuple(extras)


# -- normalised names: clones, profile copies, Q/DQ nodes, weights ----------------------------

_CLONE_SUFFIX = re.compile(r"_clone_\d+")
_PROFILE_SUFFIX = re.compile(r" \[profile \d+\]$")
_QDQ = re.compile(r"(?:Quantize|Dequantize)Linear(?:_\d+)?$|\[(?:De)?[Qq]uantize\]$")
_WEIGHTS = re.compile(r"\.(?:weight|bias)$|^onnx::")
_QSCALE = re.compile(r"_(?:de)?quantize_scale_node$", re.IGNORECASE)


def normalize_name(name: str) -> str:
    """A node or layer name without clone numbers and ``[profile N]`` suffixes.

    Example:
        >>> normalize_name("/q/QuantizeLinear_clone_1 + /c/Conv [profile 1]")
        '/q/QuantizeLinear + /c/Conv'
    """
    if name.endswith("]"):
        name = _PROFILE_SUFFIX.sub("", name)
    if "_clone_" in name:
        name = _CLONE_SUFFIX.sub("", name)
    return name


def is_qdq_node(name: str) -> bool:
    """Whether an ONNX node name is a QuantizeLinear or DequantizeLinear node.

    Example:
        >>> is_qdq_node("/m/conv/_input_quantizer/QuantizeLinear")
        True
        >>> is_qdq_node("DequantizeLinear_7"), is_qdq_node("(Unnamed Layer* 9) [Quantize]")
        (True, True)
        >>> is_qdq_node("/m/conv/Conv")
        False
    """
    return _QDQ.search(name) is not None


def is_weights_name(name: str) -> bool:
    """Whether a name is an initializer (``x.weight``, ``x.bias``, ``onnx::Conv_12``)."""
    return _WEIGHTS.search(name) is not None


def is_quantize_scale_node(name: str) -> bool:
    """Whether a name is an 8.0-8.2 ``*_quantize_scale_node`` (the scale of a Q/DQ pair).

    Example:
        >>> is_quantize_scale_node("QuantizeLinear_7_quantize_scale_node")
        True
    """
    return _QSCALE.search(name) is not None


def is_quantizer_name(name: str) -> bool:
    """A Q/DQ node name, clone suffixes aside, or a 8.0-8.2 ``*_quantize_scale_node``.

    Example:
        >>> is_quantizer_name("/a/QuantizeLinear_clone_1")
        True
        >>> is_quantizer_name("QuantizeLinear_7_quantize_scale_node")
        True
    """
    return is_qdq_node(normalize_name(name)) or _QSCALE.search(name) is not None


# -- op types ---------------------------------------------------------------------------------

# "Conv_9" -> Conv, "/a/b/Relu_1" -> Relu, "(Unnamed Layer* 356) [ElementWise]" -> ElementWise
_BRACKET_OP = re.compile(r"\[([A-Za-z]+)\]$")
_TAIL_OP = re.compile(r"([A-Za-z][A-Za-z0-9]*?)(?:[._]\d+)*$")


def op_of(node: str, ops: dict[str, str] | None = None) -> str | None:
    """The ONNX op type of a node: printed by the parser (``ops``), else guessed from its name.

    Example:
        >>> op_of("/model/stage1/Add"), op_of("Conv_9"), op_of("(Unnamed Layer* 3) [Shuffle]")
        ('Add', 'Conv', 'Shuffle')
    """
    if ops:
        found = ops.get(node)
        if found:
            return found
    tail = node.rsplit("/", 1)[-1]
    m = _BRACKET_OP.search(tail)
    if m:
        return m.group(1)
    m = _TAIL_OP.search(tail)
    return m.group(1) if m else None


# -- ONNX module paths ------------------------------------------------------------------------


#: The deepest module path kept: past it, the rest of a name's parts are one module, named
#: by them joined with ``/`` (its key is still the name's path). Real models nest a few dozen
#: levels at most; a name of thousands of parts would make the module tree's keys and the
#: report's nested data grow with the square of its depth.
MODULE_DEPTH = 64


def module_path(node: str) -> tuple[str, ...]:
    """The module path of an ONNX node name: its ``/``-separated parts without the op.

    At most :data:`MODULE_DEPTH` parts: the last one holds the rest of a deeper name.

    Example:
        >>> module_path("/encoder/layers.0/mha/attn/MatMul")
        ('encoder', 'layers.0', 'mha', 'attn')
        >>> module_path("conv1"), module_path("inception_3a/1x1")
        ((), ('inception_3a',))
        >>> module_path("".join(f"/m{i}" for i in range(100)) + "/Conv")[-1][:12]
        'm63/m64/m65/'
    """
    parts = node.split("/")
    if "" in parts:
        parts = [p for p in parts if p]
    if len(parts) > MODULE_DEPTH + 1:
        return (*parts[: MODULE_DEPTH - 1], "/".join(parts[MODULE_DEPTH - 1 : -1]))
    return tuple(parts[:-1])


def placed_nodes(nodes: Sequence[str]) -> Sequence[str]:
    """The nodes that sit in the ONNX module hierarchy: names with a ``/`` (all when none do).

    Initializers (``model.conv.weight``), TensorRT's own layers (``(Unnamed Layer* 5)
    [Shuffle]``) and ``onnx::`` tensors name no module: they belong with the nodes they are
    fused to, so they must not pull a layer up to the root (the ControlNet Myelin regions
    ``{ForeignNode[input_blocks.1.1....norm1.weight + (Unnamed Layer* 109) [Shuffle]...]}``).

    Example:
        >>> placed_nodes(["conv.weight", "/conv/QuantizeLinear", "/conv/Conv"])
        ['/conv/QuantizeLinear', '/conv/Conv']
        >>> placed_nodes(["conv1", "relu1"])
        ['conv1', 'relu1']
    """
    placed = [n for n in nodes if "/" in n]
    return placed if placed else list(nodes)


def common_module(nodes: Sequence[str]) -> str:
    """The deepest module holding every placed node, as ``/a/b`` (``/`` when they share none).

    Nodes without a module (see :func:`placed_nodes`) count only when no node has one.

    Example:
        >>> common_module(["/enc/l0/attn/MatMul", "/enc/l0/attn/Softmax", "/enc/l0/Add"])
        '/enc/l0'
        >>> common_module(["enc.l0.weight", "/enc/l0/Add"]), common_module(["/a/X", "/b/Y"])
        ('/enc/l0', '/')
    """
    if not nodes:
        return "/"
    if len(nodes) == 1:  # most layers: one node, its folder (what the lines below give)
        node = nodes[0]
        if "/" not in node:
            return "/"
        if "//" not in node and "\n" not in node and not node.endswith("/"):
            folder = node[: node.rfind("/")]
            return (folder if node.startswith("/") else "/" + folder) or "/"
    joined = "\n".join(nodes)
    if "/" not in joined:
        return "/"
    if len(nodes) > 1 and not all("/" in n for n in nodes):
        nodes = placed_nodes(nodes)
        joined = "\n".join(nodes)
    if "//" in joined or "/\n" in joined or joined.endswith("/"):
        # empty parts ("a//b", "a/b/") are dropped by module_path: the general path
        return "/" + "/".join(common_path(module_path(n) for n in nodes))
    # each node's folder as "/a/b/" ("/" for none); the folders' common string prefix, cut
    # back to a "/", is their common module (it is that of the first and last in order)
    folders = [n[: n.rfind("/") + 1] for n in nodes]
    if not joined.startswith("/") or joined.count("\n/") != len(nodes) - 1:
        folders = [f if f.startswith("/") else "/" + f for f in folders]
    low, high = min(folders), max(folders)
    while not high.startswith(low):
        low = low[: low.rfind("/", 0, -1) + 1]
    return low[:-1] or "/"


def common_path(paths: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    """The longest common beginning of module paths.

    Example:
        >>> common_path([("enc", "l0", "attn"), ("enc", "l0")])
        ('enc', 'l0')
    """
    paths = list(paths)
    if not paths:
        return ()
    first = paths[0]
    n = len(first)
    for other in paths[1:]:
        n = min(n, len(other))
        for i in range(n):
            if first[i] != other[i]:
                n = i
                break
    return first[:n]


def cut_module(module: str, depth: int) -> str:
    """A module path cut to ``depth`` parts.

    Example:
        >>> cut_module("/model/backbone0/conv", 2), cut_module("/", 2)
        ('/model/backbone0', '/')
    """
    parts = [p for p in module.split("/") if p][:depth]
    return "/" + "/".join(parts)


# -- the ONNX nodes a layer name lists -----------------------------------------------------------

#: Where a layer's ONNX nodes come from (``EngineLayer.onnx_source``).
OnnxSource = Literal["metadata", "name", "range", "none"]

_TORCH_TRT_NAME = re.compile(r"^\[[A-Z0-9_]+\]-\[[^\]]*\]-\[(?P<name>.+)\]$")


def _foreign_range(
    first: list[str], last: list[str], node_order: dict[str, int] | None, nodes: list[str] | None
) -> tuple[list[str], bool]:
    """The nodes of a ``{ForeignNode[first...last]}`` range, and whether it was expanded.

    Expanded to every node between its ends in parse order when the order is known; else
    just the ends' members.
    """
    if node_order is not None and nodes is not None and first and last:
        lo, hi = node_order.get(first[0]), node_order.get(last[-1])
        if lo is not None and hi is not None and lo <= hi:
            return nodes[lo : hi + 1], True
    return first + last, False


def onnx_nodes_of_name(
    name: str, node_order: dict[str, int] | None = None, nodes: list[str] | None = None
) -> tuple[tuple[str, ...], OnnxSource]:
    """The ONNX nodes a layer name lists, and where they came from.

    Fused parts (`` + ``, `` || ``, ``PWN(...)``), clones, ``[profile N]`` suffixes and
    Torch-TensorRT ``[TYPE]-[target]-[name]`` parts are taken apart; a
    ``{ForeignNode[first...last]}`` range is expanded to every node between its ends in parse
    order when ``node_order``/``nodes`` (from the log's parser events) are given. Reformats
    and copies compute no ONNX node.

    Example:
        >>> onnx_nodes_of_name("conv1 + relu1")
        (('conv1', 'relu1'), 'name')
        >>> onnx_nodes_of_name("{ForeignNode[b...d]}", {"a": 0, "b": 1, "c": 2, "d": 3},
        ...                    ["a", "b", "c", "d"])
        (('b', 'c', 'd'), 'range')
        >>> onnx_nodes_of_name("Reformatting CopyNode for Input Tensor 0 to conv1")
        ((), 'none')
    """
    # the two commonest composed names need no name tree (a cold load meets thousands)
    if reformat_name(name):
        return (), "none"
    ends = foreign_range_ends(name)
    if ends is not None:
        found, ranged = _foreign_range([ends[0]], [ends[1]], node_order, nodes)
        return tuple(dict.fromkeys(found)), "range" if ranged else "name"
    parts = split_name(name)
    if parts.op == "reformat":
        return (), "none"
    if parts.op == "profile":
        parts = parts.base
    found = []
    ranged = False
    stack = [parts]
    while stack:
        node = stack.pop()
        if node.op == "foreign" and node.detail == "range" and len(node.parts) == 2:
            members, expanded = _foreign_range(
                node.parts[0].members(), node.parts[1].members(), node_order, nodes
            )
            found.extend(members)
            ranged = ranged or expanded
            continue
        if node.op == "leaf":
            m = _TORCH_TRT_NAME.match(node.text)
            found.append(m["name"] if m else node.text)
        elif node.op == "reformat":
            continue
        else:
            stack.extend(reversed(node.parts))
    unique = tuple(dict.fromkeys(found))
    if not unique:
        return (), "none"
    return unique, "range" if ranged else "name"


# -- Myelin kernel names ---------------------------------------------------------------------

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


_KERNEL = re.compile(r"^(?P<body>.+?)_myl(?P<graph>\d{1,18})_(?P<index>\d{1,18})$", re.DOTALL)


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
