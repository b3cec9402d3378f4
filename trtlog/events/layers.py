"""Events of the layers family.

Engine layer dumps: `Engine Layer Information:`, the 10.x `Layers:` dump,
`--dumpLayerInfo` inspector records (formats.md §I, §K.2, §K.3).

Part of the data model (pydantic only).
"""

from __future__ import annotations

from typing import Literal

from trtlog.events.base import EventBase

__all__ = ["LayersEvent"]


class _LayersPlaceholder(EventBase):
    """Placeholder until the family's events are written (never produced by the parser)."""

    kind: Literal["_layers_placeholder"] = "_layers_placeholder"


LayersEvent = _LayersPlaceholder
