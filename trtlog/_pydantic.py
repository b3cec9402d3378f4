"""Assembling pydantic models from values the library has already typed, fast.

The base layer: the one module that writes pydantic's instance internals. Validation (and
pydantic's ``model_construct``) costs several times an object's assembly; the parser and the
engine loader build hundreds of thousands of objects from values they have checked or
converted themselves, so they assemble instances directly with :func:`assemble`. Every caller
checks types first and falls back to validation (which reports the error) when a value is not
what it expects; the tests re-validate assembled objects
(``type(x).model_validate(x.model_dump())``). :func:`gc_paused` keeps the cyclic collector
from rescanning the heap while a whole log or engine is built.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator, Set
from contextlib import contextmanager
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticSerializationError

__all__ = ["ExactJson", "assemble", "gc_paused", "put", "same_values"]

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
_set = object.__setattr__


def assemble(
    cls: type[M],
    data: dict[str, Any],
    extra: dict[str, Any] | None = None,
    fields_set: Set[str] | None = None,
) -> M:
    """An instance of ``cls`` holding ``data`` (every field, in order), without validation.

    ``data`` is taken over, not copied. ``extra`` holds the unknown keys of a model with
    ``extra="allow"`` (pass ``{}`` for none); ``fields_set`` defaults to the keys of ``data``.

    Example:
        >>> from trtlog.engine import ProfileRecord
        >>> r = assemble(ProfileRecord, {"name": "a", "time_ms": 2.0, "average_ms": 0.2,
        ...                              "median_ms": None, "percentage": 100.0}, {})
        >>> r == ProfileRecord(name="a", time_ms=2.0, average_ms=0.2, percentage=100.0)
        True
    """
    obj = _new(cls)
    _set(obj, "__dict__", data)
    _set(obj, "__pydantic_fields_set__", set(data) if fields_set is None else fields_set)
    _set(obj, "__pydantic_extra__", extra)
    _set(obj, "__pydantic_private__", None)
    return obj


def put(model: BaseModel, name: str, value: Any) -> None:
    """Set ``name`` in a (frozen) model's ``__dict__``: a field made on first read, or a cache.

    Example:
        >>> from trtlog.buildlog import SourceMeta
        >>> meta = SourceMeta(name="a")
        >>> put(meta, "_note", 1)
        >>> meta.__dict__["_note"]
        1
    """
    model.__dict__[name] = value


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a whole log's events or an engine are built.

    Events and layers hold no reference cycles, but hundreds of thousands of new container
    objects make the collector scan the growing heap over and over (a quarter of the parse
    time of a large log, half the load time of a large layer JSON). The previous state is
    restored on exit; streaming (:func:`trtlog.iter_events`) leaves the collector alone.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _age_young_objects()
            gc.enable()


def _age_young_objects() -> None:
    """Move what was built during a pause to the oldest generation, without a collection.

    The objects built while the collector was paused are all still in the youngest
    generation, so the first collection after it would walk every one of them (a fifth of
    the load time of a 20,000-layer engine). They are long-lived (handed to the caller), which
    is what the collector would conclude after scanning them twice; ``gc.freeze()`` followed
    by ``gc.unfreeze()`` moves every tracked object to the oldest generation in constant
    time. Cyclic garbage moved with them is still freed, at the next full collection. Done
    whatever their number: even the 30,000 objects of a 1 MB log's report cost the first
    collection after it a tenth of the report's time. Skipped when the program froze objects
    itself (unfreezing would undo its ``gc.freeze()``).
    """
    if not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()


def same_values(a: Any, b: Any) -> bool:
    """``a == b``, except that NaN equals NaN, at any depth (tuples, lists, dicts, models).

    trtexec prints ``-nan`` (``enqueue -nan ms``); a model that holds it must still equal its
    own JSON round trip.

    Example:
        >>> nan = float("nan")
        >>> same_values((1.0, nan), (1.0, float("nan"))), same_values(nan, 1.0)
        (True, False)
    """
    if a is b or a == b:
        return True
    if isinstance(a, float) and isinstance(b, float):
        return a != a and b != b  # both NaN
    if isinstance(a, tuple | list) and type(a) is type(b):
        return len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_values(v, b[k]) for k, v in a.items())
    if isinstance(a, BaseModel) and type(a) is type(b):
        return same_values(a.__dict__, b.__dict__) and same_values(
            a.__pydantic_extra__, b.__pydantic_extra__
        )
    return False


LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class ExactJson(BaseModel):
    """A base whose instances survive ``model_validate_json(m.model_dump_json()) == m``.

    Two things break pydantic's own round trip on text from hostile logs: NaN
    (which never equals itself: equality here treats NaN as equal to NaN) and lone surrogates
    (``parse_text`` of a string decoded with ``errors="surrogateescape"``), which pydantic's
    JSON writer cannot encode and its reader refuses as ``\\udXXX`` escapes. A model holding
    one is written by Python's ``json`` with such escapes (valid JSON) and read back by it.
    """

    # no schema for this base itself (start-up time): a model's schema is built when it
    # is first validated or serialised (its subclasses inherit the setting)
    model_config = ConfigDict(defer_build=True)

    def __eq__(self, other: object) -> bool:
        """Pydantic's equality, with NaN equal to NaN."""
        result = super().__eq__(other)
        if result is True or type(other) is not type(self):
            return result
        return same_values(self.__dict__, other.__dict__)

    __hash__ = BaseModel.__hash__

    def _holds_surrogates(self) -> bool | None:
        """Whether a string of the model holds a lone surrogate (``None``: not known cheaply).

        Pydantic fails on such a string value but writes U+FFFD for it in a dict key, so a
        model whose keys can come from the input says here whether it holds any.
        """
        return None

    def model_dump_json(self, **kwargs: Any) -> str:
        """Pydantic's JSON; with lone surrogates in a string, Python's (``\\udXXX`` escapes)."""
        if not self._holds_surrogates():
            try:
                return super().model_dump_json(**kwargs)
            except PydanticSerializationError as exc:
                if "surrogates not allowed" not in str(exc):
                    raise
        indent = kwargs.pop("indent", None)
        kwargs.pop("ensure_ascii", None)
        # python mode: the JSON mode writes U+FFFD for a lone surrogate in a dict key
        data = self.model_dump(mode="python", **kwargs)
        return json.dumps(data, indent=indent, ensure_ascii=True, separators=(",", ":"))

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> Self:
        """Pydantic's reader; for JSON with ``\\udXXX`` escapes of lone surrogates, Python's."""
        try:
            return super().model_validate_json(json_data, **kwargs)
        except ValidationError as exc:
            errors = exc.errors()
            if not (len(errors) == 1 and errors[0]["type"] == "json_invalid"):
                raise
            text = json_data if isinstance(json_data, str) else bytes(json_data).decode("utf-8")
            if _SURROGATE_ESCAPE.search(text) is None:
                raise
        return cls.model_validate(json.loads(text), **kwargs)
