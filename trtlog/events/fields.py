"""Annotated field types shared by event classes.

Part of the data model. ``LayerName`` marks a field that holds a layer, node or tensor name as
TensorRT composed it; :meth:`trtlog.events.base.EventBase.names` splits every such field with
:func:`trtlog.names.split_name` on demand, so events keep plain strings (cheap to build,
store and serialise) while their parts stay one call away.
"""

from typing import Annotated

__all__ = ["LAYER_NAME", "LayerName", "LayerNames"]


class _LayerNameMarker:
    """Metadata marker: the annotated field holds a composed layer name."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "LAYER_NAME"


LAYER_NAME = _LayerNameMarker()

#: A layer/node name as printed (split it with :func:`trtlog.names.split_name`).
LayerName = Annotated[str, LAYER_NAME]
#: Several layer names (merge operands, fused sources...).
LayerNames = Annotated[tuple[str, ...], LAYER_NAME]
