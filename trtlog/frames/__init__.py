"""pandas DataFrames over builds and engines, each with a declared schema.

A view package (pandas). Every frame is a pure function of a
:class:`~trtlog.buildlog.Build` or :class:`~trtlog.engine.Engine` with a declared, ordered
column → dtype schema (:data:`SCHEMAS`); it always returns exactly those columns, even when the
input holds nothing for it. Frames are built in one go from records; identifiers are columns,
never the index.

Each frame's module is imported when one of its names is first read, so that a frame of an
engine does not import the log parser (the frames of a log need it).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ imports them on first use
    from trtlog.frames.diff import diff_frame, diff_onnx_frame
    from trtlog.frames.engine import (
        footprint_frame,
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

#: Every frame module: importing one declares its frames' schemas.
_MODULES = ("diff", "engine", "events", "memory")

#: Every public name → the module it is imported from on first use.
_API: dict[str, str] = {
    **dict.fromkeys(("diff_frame", "diff_onnx_frame"), "diff"),
    **dict.fromkeys(
        (
            "footprint_frame",
            "layers_frame",
            "modules_frame",
            "profile_frame",
            "tensors_frame",
            "times_frame",
            "times_stats_frame",
        ),
        "engine",
    ),
    **dict.fromkeys(
        (
            "fusions_frame",
            "layer_counts_frame",
            "passes_frame",
            "qdq_frame",
            "removals_frame",
            "tactics_frame",
        ),
        "events",
    ),
    "memory_frame": "memory",
    **dict.fromkeys(("empty_frame", "frame_from_records"), "schema"),
}


def __getattr__(name: str) -> object:
    if name == "SCHEMAS":  # every frame's schema: each frame module declares its own
        for module in _MODULES:
            import_module(f"trtlog.frames.{module}")
        value: object = import_module("trtlog.frames.schema").SCHEMAS
    else:
        found = _API.get(name)
        if found is None:
            raise AttributeError(f"module 'trtlog.frames' has no attribute {name!r}")
        value = getattr(import_module(f"trtlog.frames.{found}"), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


__all__ = [
    "SCHEMAS",
    "diff_frame",
    "diff_onnx_frame",
    "empty_frame",
    "footprint_frame",
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
