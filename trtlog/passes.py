"""TensorRT's optimizer passes: what the log says they removed, and what each one does.

A view over events (pydantic only, no pandas): :func:`removal_events` is the one definition of
"a layer was removed" that the frames (``removals_frame``, ``passes_frame``) and the summary
share, so that each removal is counted once whichever view counts it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["REMOVAL_KINDS", "removal_events"]

#: The event kinds that remove a layer from the network.
REMOVAL_KINDS = ("layer_removed", "qdq_dedup", "slice_elimination", "concat_elimination")


def removal_events(events: Iterable[Any]) -> list[Any]:
    """The events that remove a layer, each removal once, in file order.

    ``Removing x`` lines, Q/DQ duplicates eliminated, slice and concatenation eliminations.
    ``HorizontalMergeQNodes`` prints two lines for one removal: ``Eliminating x which duplicates
    (Q) y`` and then ``Removing x`` (8.4.12 yolov8 seed lines 177-178; 8.5.10 resnet18-QAT lines
    2542-2564, 8 removals in 16 lines). The ``Removing`` line only confirms the elimination, so
    the elimination stands for both.

    Example:
        >>> from trtlog import parse_text
        >>> log = (
        ...     "[V] [TRT] Running: HorizontalMergeQNodes on q1\\n"
        ...     "[V] [TRT] Eliminating q2 which duplicates (Q) q1\\n"
        ...     "[V] [TRT] Removing q2\\n"
        ... )
        >>> [(e.kind, e.span[0]) for e in removal_events(parse_text(log).events)]
        [('qdq_dedup', 2)]
    """
    out: list[Any] = []
    eliminated: dict[str, int] = {}  # layer -> its elimination, until its "Removing" line
    for event in events:
        kind = event.kind
        if kind == "qdq_dedup":
            eliminated[event.layer] = event.span[0]
            out.append(event)
        elif kind == "layer_removed":
            if eliminated.pop(event.layer, None) is None:
                out.append(event)
        elif kind in ("slice_elimination", "concat_elimination"):
            out.append(event)
        elif kind == "pass_run":
            eliminated.clear()  # the confirmation follows within the same pass
    return out
