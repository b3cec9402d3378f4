"""Assembling pydantic models from values the library has already typed, fast.

The base layer: the one module that writes pydantic's instance internals. Validation (and
pydantic's ``model_construct``) costs 5-10 µs per object; the parser and the engine loader
build hundreds of thousands of objects from values they have checked or converted themselves,
so they assemble instances directly with :func:`assemble`. Every caller checks types first and
falls back to validation (which reports the error) when a value is not what it expects; the
tests re-validate assembled objects (``type(x).model_validate(x.model_dump())``).
:func:`gc_paused` keeps the cyclic collector from rescanning the heap while a whole log or
engine is built.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Set
from contextlib import contextmanager
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["assemble", "gc_paused"]

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


# below this many young objects, the first collection after the pause is cheap anyway
_MANY_YOUNG = 50_000


def _age_young_objects() -> None:
    """Move what was built during a pause to the oldest generation, without a collection.

    The objects built while the collector was paused are all still in the youngest
    generation, so the first collection after it would walk every one of them (a fifth of
    the load time of a 20,000-layer engine). They are long-lived (handed to the caller), which
    is what the collector would conclude after scanning them twice; ``gc.freeze()`` followed
    by ``gc.unfreeze()`` moves every tracked object to the oldest generation in constant
    time. Cyclic garbage moved with them is still freed, at the next full collection. Skipped
    when the program froze objects itself (unfreezing would undo its ``gc.freeze()``).
    """
    if gc.get_count()[0] >= _MANY_YOUNG and not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()
