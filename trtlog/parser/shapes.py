"""The shape cache: parse a message shape with Lark once, then fill in its numbers directly.

Part of the parser (between dispatch and Lark). A verbose log repeats a few hundred message
shapes hundreds of thousands of times with only the numbers changing
(``Tactic: 0x00000000000003e8 Time: 0.00582967``). A Lark call costs about ten times the whole
per-line budget, so after a shape has been seen twice the cache derives a *template* from the
grammar's own output and builds later events from the template.

How a template is derived, without knowing anything about the grammar: the message is split
into literal text and number tokens; the number tokens are replaced by distinct sentinel
numbers and the sentinel message is parsed by Lark; wherever a sentinel value (converted by
one of the known number converters) or a sentinel's text inside a string shows up in the
fields, the template records a slot for that token. The template is then checked: filled in
with the real tokens it must give exactly what Lark gave for the real message; if not, the
shape is marked uncacheable and always goes to Lark. Converters double as validators: a token
that does not convert (``int("0x1f")``) sends the message to Lark, which decides.

All grammar stays in the ``.lark`` files; the cache only memoises their results.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

__all__ = ["NUMBER_TOKEN", "ShapeCache", "Template"]

#: A number standing on its own: not inside a word, a dotted name or a version string.
NUMBER_TOKEN = re.compile(
    r"(?<![\w.])(-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?))(?![\w.])"
)

Maker = Callable[[Sequence[str]], Any]
Complete = Callable[[dict[str, Any]], tuple[type[Any], dict[str, Any]]]

_SEEN = object()
_UNCACHEABLE = object()
_new = object.__new__
_set = object.__setattr__


class _Const:
    """Marker: the value does not depend on any token."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _token_class(token: str) -> str:
    """Sign and notation of a number token.

    Converters that agree on one sentinel of a class (``int`` and ``parse_tactic`` on positive
    integers) agree on every token of that class, so a template is valid for its class only.
    """
    sign = "-" if token.startswith("-") else "+"
    if "x" in token or "X" in token:
        return sign + "x"
    if "." in token or "e" in token or "E" in token:
        return sign + "f"
    return sign + "i"


def _shape_key(parts: list[str]) -> str:
    """The literal text of a message with each number replaced by its class."""
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        out.append("\x00" + _token_class(parts[i]) + "\x00")
        out.append(parts[i + 1])
    return "".join(out)


def _sentinel(token: str, i: int) -> str:
    """A number of the same kind as ``token`` that no real message is likely to hold."""
    neg = token.startswith("-")
    body = token[1:] if neg else token
    if body[:2] in ("0x", "0X"):
        width = len(body) - 2
        digits = f"{0x9D3B1C5E7F2A4B68 + i * 0x1000193:016x}"[-width:] if width else "9"
        out = "0x" + digits
    elif "." in body or "e" in body or "E" in body:
        out = f"9753{i:03d}.5"
    else:
        out = f"97{i:07d}"
    return "-" + out if neg else out


class Template:
    """How to build one event of a message shape from the shape's number tokens."""

    __slots__ = ("cls", "const", "slots")

    def __init__(self, cls: type[Any], const: dict[str, Any], slots: list[tuple[str, Maker]]):
        self.cls = cls
        self.const = const
        self.slots = slots

    def instantiate(self, tokens: Sequence[str]) -> dict[str, Any]:
        """The complete field dict for a message whose number tokens are ``tokens``."""
        data = self.const.copy()
        for key, make in self.slots:
            data[key] = make(tokens)
        return data


class ShapeCache:
    """Templates by (start rule, message shape); see the module docstring.

    Args:
        parse: parses a message from a start rule, returning the transformer's fields.
        complete: turns fields into (event class, complete field dict) with defaults.
        converters: functions from token text to a field value, tried in order.
        max_entries: the cache is emptied when it grows past this many shapes.
    """

    def __init__(
        self,
        parse: Callable[[str, str], dict[str, Any]],
        complete: Complete,
        converters: Sequence[Callable[[str], Any]],
        max_entries: int = 100_000,
    ) -> None:
        self._parse = parse
        self._complete = complete
        self._converters = tuple(converters)
        self._max = max_entries
        self._cache: dict[str, Any] = {}
        self.hits = 0
        self.misses = 0

    def build(self, start: str, message: str) -> tuple[type[Any], dict[str, Any]]:
        """Event class and complete fields (without span/severity) for ``message``.

        Raises:
            lark.exceptions.LarkError: the message does not parse from ``start``.
        """
        parts = NUMBER_TOKEN.split(message)
        key = start + "\x01" + (_shape_key(parts) if len(parts) > 1 else message)
        entry = self._cache.get(key)
        if entry is not None and entry is not _SEEN and entry is not _UNCACHEABLE:
            try:
                data = entry.instantiate(parts[1::2])
            except (ValueError, OverflowError):
                pass
            else:
                self.hits += 1
                return entry.cls, data
        self.misses += 1
        fields = self._parse(start, message)
        cls, data = self._complete(fields)
        if entry is _UNCACHEABLE:
            return cls, data
        if len(self._cache) >= self._max:
            self._cache.clear()
        tokens = parts[1::2]
        if not tokens:
            self._cache[key] = Template(cls, data, [])
            return cls, data.copy()
        if entry is None:
            self._cache[key] = _SEEN
            return cls, data
        self._cache[key] = self._derive(start, parts, cls, data) or _UNCACHEABLE
        return cls, data

    def _derive(
        self, start: str, parts: list[str], cls: type[Any], real: dict[str, Any]
    ) -> Template | None:
        tokens = parts[1::2]
        sentinels = [_sentinel(tok, i) for i, tok in enumerate(tokens)]
        pieces = list(parts)
        pieces[1::2] = sentinels
        try:
            fields = self._parse(start, "".join(pieces))
        except Exception:
            return None
        scls, sdata = self._complete(fields)
        if scls is not cls or sdata.keys() != real.keys():
            return None
        const: dict[str, Any] = {}
        slots: list[tuple[str, Maker]] = []
        for key, value in sdata.items():
            plan = self._plan(value, sentinels)
            if isinstance(plan, _Const):
                const[key] = plan.value
            else:
                const[key] = None
                slots.append((key, plan))
        template = Template(cls, const, slots)
        try:
            if template.instantiate(tokens) != real:
                return None
        except (ValueError, OverflowError):
            return None
        return template

    def _plan(self, value: Any, sentinels: list[str]) -> _Const | Maker:
        if isinstance(value, str):
            if not any(s in value for s in sentinels):
                return _Const(value)
            literals, found = _split_on(value, sentinels)

            def join(
                tokens: Sequence[str], literals: list[str] = literals, found: list[int] = found
            ) -> str:
                out = [literals[0]]
                for j, i in enumerate(found):
                    out.append(tokens[i])
                    out.append(literals[j + 1])
                return "".join(out)

            return join
        if isinstance(value, bool) or value is None:
            return _Const(value)
        if isinstance(value, int | float):
            for i, text in enumerate(sentinels):
                for convert in self._converters:
                    try:
                        converted = convert(text)
                    except (ValueError, OverflowError):
                        continue
                    if type(converted) is type(value) and converted == value:
                        return _slot(i, convert)
            return _Const(value)
        if isinstance(value, tuple):
            plans = [self._plan(v, sentinels) for v in value]
            if all(isinstance(p, _Const) for p in plans):
                return _Const(value)
            return _tuple_of([_as_maker(p) for p in plans])
        if isinstance(value, BaseModel):
            field_plans = {k: self._plan(v, sentinels) for k, v in value.__dict__.items()}
            if all(isinstance(p, _Const) for p in field_plans.values()):
                return _Const(value)
            model_cls = type(value)
            fields_set = value.__pydantic_fields_set__
            items = [(k, _as_maker(p)) for k, p in field_plans.items()]

            def model(
                tokens: Sequence[str],
                model_cls: type[BaseModel] = model_cls,
                items: list[tuple[str, Maker]] = items,
                fields_set: set[str] = fields_set,
            ) -> BaseModel:
                obj = _new(model_cls)
                _set(obj, "__dict__", {k: m(tokens) for k, m in items})
                _set(obj, "__pydantic_fields_set__", fields_set)
                _set(obj, "__pydantic_extra__", None)
                _set(obj, "__pydantic_private__", None)
                return obj

            return model
        return _Const(value)

    def stats(self) -> dict[str, int]:
        """Hits, misses and the number of shapes held (for benchmarks)."""
        return {"hits": self.hits, "misses": self.misses, "shapes": len(self._cache)}


def _split_on(value: str, sentinels: list[str]) -> tuple[list[str], list[int]]:
    """Split ``value`` at every occurrence of a sentinel: literals and token indexes."""
    literals: list[str] = []
    found: list[int] = []
    pos = 0
    while True:
        best = -1
        best_i = -1
        for i, s in enumerate(sentinels):
            at = value.find(s, pos)
            if at >= 0 and (best < 0 or at < best):
                best, best_i = at, i
        if best < 0:
            literals.append(value[pos:])
            return literals, found
        literals.append(value[pos:best])
        found.append(best_i)
        pos = best + len(sentinels[best_i])


def _slot(i: int, convert: Callable[[str], Any]) -> Maker:
    def make(tokens: Sequence[str]) -> Any:
        return convert(tokens[i])

    return make


def _tuple_of(makers: list[Maker]) -> Maker:
    def make(tokens: Sequence[str]) -> tuple[Any, ...]:
        return tuple(m(tokens) for m in makers)

    return make


def _as_maker(plan: _Const | Maker) -> Maker:
    if isinstance(plan, _Const):
        value = plan.value
        return lambda tokens: value
    return plan
