"""Typed events: one pydantic class per kind of log message, and the union tagged on ``kind``.

Bottom of the pipeline's data model (pydantic only; importing it loads neither pandas,
networkx, matplotlib nor tensorrt). Every class lives in the module of its message family;
this package gathers them into:

* :data:`Event`, the union for annotations (``list[Event]``), validated through the ``kind``
  tag with a callable discriminator that sends unknown tags to :class:`Unrecognized`;
* :data:`EVENT_CLASSES`, kind → class;
* :data:`EVENTS_ADAPTER`, a ``TypeAdapter(list[Event])`` for reading serialised events.

Example:
    >>> from trtlog.events import EVENTS_ADAPTER
    >>> evs = EVENTS_ADAPTER.validate_python([
    ...     {"kind": "layer_count", "span": (5, 5), "stage": "Original", "layers": 755},
    ...     {"kind": "from_the_future", "span": (6, 6)},
    ... ])
    >>> [e.kind for e in evs]
    ['layer_count', 'unrecognized']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any, Union, get_args

from pydantic import ConfigDict, Discriminator, Tag, TypeAdapter

from trtlog.events import autotune, errors, header, layers, memory, onnx, optimizer, runtime
from trtlog.events.autotune import *  # noqa: F403
from trtlog.events.base import (
    ENVELOPES,
    SEVERITIES,
    Envelope,
    EventBase,
    LogLine,
    Severity,
    Span,
    Unrecognized,
    make_event,
)
from trtlog.events.errors import *  # noqa: F403
from trtlog.events.header import *  # noqa: F403
from trtlog.events.layers import *  # noqa: F403
from trtlog.events.memory import *  # noqa: F403
from trtlog.events.onnx import *  # noqa: F403
from trtlog.events.optimizer import *  # noqa: F403
from trtlog.events.runtime import *  # noqa: F403

__all__ = [
    "ENVELOPES",
    "EVENTS_ADAPTER",
    "EVENT_CLASSES",
    "SEVERITIES",
    "Envelope",
    "Event",
    "EventBase",
    "LogLine",
    "Severity",
    "Span",
    "Unrecognized",
    "check_kinds",
    "event_class",
    "make_event",
]
__all__ += autotune.__all__
__all__ += errors.__all__
__all__ += header.__all__
__all__ += layers.__all__
__all__ += memory.__all__
__all__ += onnx.__all__
__all__ += optimizer.__all__
__all__ += runtime.__all__

_FAMILY_UNIONS: tuple[Any, ...] = (
    header.HeaderEvent,
    onnx.OnnxEvent,
    optimizer.OptimizerEvent,
    autotune.AutotuneEvent,
    memory.MemoryEvent,
    layers.LayersEvent,
    runtime.RuntimeEvent,
    errors.ErrorsEvent,
)


def _members(union: Any) -> tuple[type[EventBase], ...]:
    args = get_args(union)
    return tuple(args) if args else (union,)


_CLASSES: tuple[type[EventBase], ...] = (
    Unrecognized,
    LogLine,
    *(
        cls
        for union in _FAMILY_UNIONS
        for cls in _members(union)
        if not cls.model_fields["kind"].default.startswith("_")
    ),
)

#: Every event class by its ``kind`` tag.
EVENT_CLASSES: dict[str, type[EventBase]] = {
    cls.model_fields["kind"].default: cls for cls in _CLASSES
}


def event_class(kind: str) -> type[EventBase]:
    """The class of an event kind.

    Raises:
        KeyError: no event has this kind.
    """
    return EVENT_CLASSES[kind]


def check_kinds(kinds: Iterable[str]) -> None:
    """Raise for a kind no event has, naming the closest ones.

    Raises:
        ValueError: ``unknown event kind 'fusoin' (did you mean 'fusion' or ...?)``.

    Example:
        >>> check_kinds(["fusion", "layer_count"])
        >>> check_kinds(["fusoin"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown event kind 'fusoin' (did you mean 'fusion' or 'fusion_into'?); ...
    """
    for kind in kinds:
        if kind not in EVENT_CLASSES:
            from difflib import get_close_matches

            close = get_close_matches(str(kind), list(EVENT_CLASSES), n=3, cutoff=0.6)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            raise ValueError(
                f"unknown event kind {kind!r}{hint}; trtlog.events.EVENT_CLASSES lists the "
                f"{len(EVENT_CLASSES)} kinds"
            )


def _tag(value: Any) -> str:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return kind if kind in EVENT_CLASSES else "unrecognized"


if TYPE_CHECKING:
    Event = Union[  # noqa: UP007
        Unrecognized,
        LogLine,
        header.HeaderEvent,
        onnx.OnnxEvent,
        optimizer.OptimizerEvent,
        autotune.AutotuneEvent,
        memory.MemoryEvent,
        layers.LayersEvent,
        runtime.RuntimeEvent,
        errors.ErrorsEvent,
    ]
else:
    Event = Annotated[
        Union[tuple(Annotated[cls, Tag(kind)] for kind, cls in EVENT_CLASSES.items())],  # noqa: UP007
        Discriminator(_tag),
    ]
    """Any event; validation picks the class by ``kind`` (unknown kinds → Unrecognized)."""

#: Reads and writes lists of events (JSON or Python objects). Its schema (every event class's)
#: is built on first use, not at import (start-up time).
EVENTS_ADAPTER: TypeAdapter[list[Event]] = TypeAdapter(
    list[Event], config=ConfigDict(defer_build=True)
)
