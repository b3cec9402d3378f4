"""Events of the onnx family.

Model parsing: trtexec parse lines, ONNX parser messages, node errors and shape set-up
(formats.md §C).

Part of the data model (pydantic only).
"""

from __future__ import annotations

from typing import Literal

from trtlog.events.base import EventBase

__all__ = ["OnnxEvent"]


class _OnnxPlaceholder(EventBase):
    """Placeholder until the family's events are written (never produced by the parser)."""

    kind: Literal["_onnx_placeholder"] = "_onnx_placeholder"


OnnxEvent = _OnnxPlaceholder
