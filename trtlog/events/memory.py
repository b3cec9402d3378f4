"""Events of the memory family.

Memory planning, engine generation, engine save/load (formats.md §H).

Part of the data model (pydantic only).
"""

from __future__ import annotations

from typing import Literal

from trtlog.events.base import EventBase

__all__ = ["MemoryEvent"]


class _MemoryPlaceholder(EventBase):
    """Placeholder until the family's events are written (never produced by the parser)."""

    kind: Literal["_memory_placeholder"] = "_memory_placeholder"


MemoryEvent = _MemoryPlaceholder
