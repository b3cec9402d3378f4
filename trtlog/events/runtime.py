"""Events of the runtime family.

Execution context, bindings, performance summary, profile table, output dumps and
footer (formats.md §K.1, §K.4, §K.5, §L, §M, §N, §O).

Part of the data model (pydantic only).
"""

from __future__ import annotations

from typing import Literal

from trtlog.events.base import EventBase

__all__ = ["RuntimeEvent"]


class _RuntimePlaceholder(EventBase):
    """Placeholder until the family's events are written (never produced by the parser)."""

    kind: Literal["_runtime_placeholder"] = "_runtime_placeholder"


RuntimeEvent = _RuntimePlaceholder
