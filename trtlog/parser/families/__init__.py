"""The message families trtlog parses, in the order their keyword rows are registered.

Each module here holds one family's keyword rows and transformer; its grammar is
``grammars/<name>.lark`` and its events are in ``trtlog/events/<name>.py``.
"""

from __future__ import annotations

from trtlog.parser.families import (
    autotune,
    errors,
    header,
    layers,
    memory,
    onnx,
    optimizer,
    runtime,
)
from trtlog.parser.family import Family

__all__ = ["FAMILIES"]

# Order matters only for ``contains`` rows, which are tried in registration order: the
# families whose infix shapes are most frequent in verbose logs come first.
FAMILIES: tuple[Family, ...] = (
    autotune.FAMILY,
    optimizer.FAMILY,
    layers.FAMILY,
    onnx.FAMILY,
    memory.FAMILY,
    header.FAMILY,
    runtime.FAMILY,
    errors.FAMILY,
)
