"""Composed layer names: how TensorRT builds a layer name out of the names it fused.

Part of the data model (pydantic only). TensorRT names an engine layer after what went into it
(formats.md T1): ``a + b`` (vertical fusion), ``a || b`` (horizontal merge), ``PWN(a, b)``
(pointwise fusion), ``{ForeignNode[a...b]}`` (a Myelin or DLA region from ``a`` to ``b``),
``Reformatting CopyNode for Input Tensor 0 to x`` (a reformat feeding ``x``), ``x_clone_2``
(a Q/DQ clone), ``x [profile 1]`` (the copy of ``x`` for optimization profile 1) and, in 10.x
Myelin, ``a+b_myl0_3`` (kernel 3 of Myelin graph 0). :func:`split_name` turns such a name into
a tree of :class:`ComposedName` nodes; ``members()`` lists the original names inside.

Splitting is done at bracket depth 0 only, so names with brackets, commas or ``+`` inside
parentheses (``(Unnamed Layer* 5) [Shuffle]``, ``PWN(PWN(a, b), c)``) stay whole.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from trtlog.models import assemble

__all__ = [
    "ComposedName",
    "NameOp",
    "foreign_range_ends",
    "parse_metadata",
    "reformat_name",
    "split_name",
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

_PROFILE = re.compile(r"^(?P<base>.+) \[profile (?P<n>\d+)\]$")
_CLONE = re.compile(r"^(?P<base>.+)_clone_(?P<n>\d+)$")
_MYELIN = re.compile(r"^(?P<base>.+?)_myl(?P<graph>\d+)_(?P<n>\d+)$")
_REFORMAT = re.compile(
    r"^(?:Reformatting CopyNode for|Reformatted) (?P<dir>Input|Output) Tensor (?P<n>\d+) to "
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

    model_config = ConfigDict(frozen=True)

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
        out: list[str] = []
        self._collect(out)
        return list(dict.fromkeys(out))

    def _collect(self, out: list[str]) -> None:
        if self.op == "leaf":
            out.append(self.text)
        elif self.op != "reformat":
            for part in self.parts:
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
    scanner = _SCANNERS.get(sep)
    if scanner is None:
        scanner = _SCANNERS[sep] = re.compile(r"[()\[\]{}]|" + re.escape(sep))
    out: list[str] = []
    depth = 0
    start = 0
    for m in scanner.finditer(text):
        token = m.group()
        if token in _OPEN:
            depth += 1
        elif token in _CLOSE:
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(text[start : m.start()])
            start = m.end()
    out.append(text[start:])
    return out


_BRACKET = re.compile(r"[()\[\]{}]")
_SCANNERS: dict[str, re.Pattern[str]] = {}


def _balanced(text: str) -> bool:
    if _BRACKET.search(text) is None:
        return True
    depth = 0
    for ch in text:
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
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


def _split(text: str) -> ComposedName:
    # Order matters: decorations that wrap a whole name first, then the depth-0 operators
    # from the loosest (||) to the tightest (+), then decorations of a single name.
    if _DECORATED.search(text) is None:  # fast path: most parts are plain names
        return _name(text=text)
    m = _PROFILE.match(text) if text.endswith("]") else None
    if m:
        return _name(text=text, op="profile", parts=(_split(m["base"]),), index=int(m["n"]))
    m = _REFORMAT.match(text)
    if m:
        direction = m["dir"].lower()
        if text.startswith("Reformatted"):
            direction = "tensor_" + direction
        return _name(
            text=text,
            op="reformat",
            parts=(_split(m["target"]),),
            index=int(m["n"]),
            detail=direction,
        )
    m = _REFORMAT_NETWORK.match(text)
    if m:
        return _name(
            text=text,
            op="reformat",
            parts=(_name(text=m["target"]),),
            detail="network_" + m["dir"].lower(),
        )
    merged = split_top(text, " || ")
    if len(merged) > 1:
        return _name(text=text, op="merge", parts=tuple(_split(p) for p in merged))
    fused = split_top(text, " + ")
    if len(fused) > 1:
        return _name(text=text, op="fusion", parts=tuple(_split(p) for p in fused))
    inner = _wrapped(text, "{ForeignNode[", "]}")
    if inner is not None:
        first, sep, last = inner.partition("...")
        if sep:
            return _name(
                text=text, op="foreign", parts=(_split(first), _split(last)), detail="range"
            )
        return _name(text=text, op="foreign", parts=(_split(inner),), detail="range")
    inner = _wrapped(text, "{", "}")
    if inner is not None and "," in inner:
        return _name(
            text=text,
            op="foreign",
            parts=tuple(_name(text=p) for p in inner.split(",")),
            detail="list",
        )
    inner = _wrapped(text, "PWN(", ")")
    if inner is not None:
        return _name(
            text=text, op="pointwise", parts=tuple(_split(p) for p in split_top(inner, ", "))
        )
    m = _CLONE.match(text) if "_clone_" in text else None
    if m:
        return _name(text=text, op="clone", parts=(_split(m["base"]),), index=int(m["n"]))
    m = _MYELIN.match(text) if "_myl" in text else None
    if m and not text.startswith("{"):
        base = m["base"]
        pieces = split_top(base, "+") if "+" in base and " + " not in base else [base]
        inner_name = (
            _name(text=base, op="fusion", parts=tuple(_name(text=p) for p in pieces))
            if len(pieces) > 1
            else _name(text=base)
        )
        return _name(
            text=text, op="myelin", parts=(inner_name,), index=int(m["n"]), detail=m["graph"]
        )
    return _name(text=text)


def reformat_name(text: str) -> bool:
    """Whether :func:`split_name` makes ``text`` a reformat (or the profile copy of one).

    The same answer without building (and caching) the name's tree.

    Example:
        >>> reformat_name("Reformatting CopyNode for Input Tensor 0 to /a/Conv")
        True
    """
    if not text.startswith("Reformat"):
        return False
    while text.endswith("]"):  # split_name takes a [profile N] suffix off first
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

_GROUP = "[ONNX Layer: "
_GROUP_SEPARATOR = "]\x1e[ONNX Layer: "
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
        # fast path: well-formed groups joined by one U+001E, no extras; as many groups as
        # "[ONNX Layer: " and one U+001E between each two prove that no other text hides
        found = text[len(_GROUP) : -1].split(_GROUP_SEPARATOR)
        n = len(found)
        if (
            n == text.count(_GROUP)
            and n == text.count("\x1e") + 1
            and "\x1f" not in text
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
