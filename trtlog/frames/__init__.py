"""pandas DataFrames over builds and engines, each with a declared schema.

A view package (pandas). Every frame is a pure function of a
:class:`~trtlog.buildlog.Build` or :class:`~trtlog.engine.Engine` with a declared, ordered
column → dtype schema (:data:`SCHEMAS`); it always returns exactly those columns, even when the
input holds nothing for it. Frames are built in one go from records; identifiers are columns,
never the index.
"""

from trtlog.frames.diff import diff_frame, diff_onnx_frame
from trtlog.frames.engine import (
    layers_frame,
    modules_frame,
    profile_frame,
    tensors_frame,
    times_frame,
    times_stats_frame,
)
from trtlog.frames.events import (
    fusions_frame,
    layer_counts_frame,
    passes_frame,
    qdq_frame,
    removals_frame,
    tactics_frame,
)
from trtlog.frames.memory import memory_frame
from trtlog.frames.schema import SCHEMAS, empty_frame, frame_from_records

__all__ = [
    "SCHEMAS",
    "diff_frame",
    "diff_onnx_frame",
    "empty_frame",
    "frame_from_records",
    "fusions_frame",
    "layer_counts_frame",
    "layers_frame",
    "memory_frame",
    "modules_frame",
    "passes_frame",
    "profile_frame",
    "qdq_frame",
    "removals_frame",
    "tactics_frame",
    "tensors_frame",
    "times_frame",
    "times_stats_frame",
]
