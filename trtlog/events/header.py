"""Events of the header family.

The `&&&&` banner, pre-option notices, options blocks, device information, TensorRT
version, plugin loading and start-up memory lines (formats.md §A, §B).

Part of the data model (pydantic only).
"""

from __future__ import annotations

from typing import Literal

from trtlog.events.base import EventBase

__all__ = ["HeaderEvent"]


class _HeaderPlaceholder(EventBase):
    """Placeholder until the family's events are written (never produced by the parser)."""

    kind: Literal["_header_placeholder"] = "_header_placeholder"


HeaderEvent = _HeaderPlaceholder
