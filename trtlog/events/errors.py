"""Events of the errors family.

Errors, warnings and library error text (formats.md §R).

Part of the data model (pydantic only).
"""

from __future__ import annotations

from typing import Literal

from trtlog.events.base import EventBase

__all__ = ["ErrorsEvent"]


class _ErrorsPlaceholder(EventBase):
    """Placeholder until the family's events are written (never produced by the parser)."""

    kind: Literal["_errors_placeholder"] = "_errors_placeholder"


ErrorsEvent = _ErrorsPlaceholder
