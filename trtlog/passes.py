"""TensorRT's optimizer passes: which pass ran where, what it fused and removed.

A view over events (pydantic only, no pandas). The frames (``fusions_frame``,
``removals_frame``, ``passes_frame``) and the summary count with the same functions, so a
figure is the same whichever view shows it: :class:`PassIndex` says which pass was running at
a line, :func:`removal_events` is the one definition of "a layer was removed",
:func:`fusion_pass` the pass a fusion is attributed to, and :func:`pass_records` the
per-pass counts.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from trtlog.events import LayerCount, PassRun

if TYPE_CHECKING:
    from trtlog.build import Build

__all__ = [
    "FUSION_KINDS",
    "REMOVAL_KINDS",
    "STAGE_PASS",
    "PassIndex",
    "fusion_pass",
    "pass_records",
    "removal_events",
]

#: The event kinds that fuse layers (one fusion each).
FUSION_KINDS = ("fusion", "fusion_into", "conv_scale_fusion", "horizontal_merge")

#: The event kinds that remove a layer from the network.
REMOVAL_KINDS = ("layer_removed", "qdq_dedup", "slice_elimination", "concat_elimination")

# what TensorRT does in its own stages, never inside a pass: slice and concatenation
# eliminations ("After slice removal"), horizontal merges ("Merging layers: a || b", printed
# before "After tensor merging", 8.5.10 bevformer-tsa line 483)
STAGE_PASS = {
    "slice_elimination": "SliceElimination",
    "concat_elimination": "ConcatElimination",
    "horizontal_merge": "HorizontalMerge",
}


class PassIndex:
    """The pass that was running at a line (from ``Running: <pass> on <layer>`` lines).

    A pass's scope ends at the next ``Running:`` line, a layer count (``After ...: N layers``)
    or a Q/DQ optimizer phase line: what follows those belongs to a stage, not to the pass.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] [TRT] Running: ConstWeightsFusion on w\\n[V] [TRT] x\\n")
        >>> PassIndex(b).get(2), PassIndex(b).get(0)
        ('ConstWeightsFusion', None)
    """

    def __init__(self, build: Build) -> None:
        marks: list[tuple[int, str | None]] = [(e.span[0], e.pass_name) for e in build.of(PassRun)]
        marks += [(e.span[0], None) for e in build.events_of("layer_count", "qdq_phase")]
        marks.sort(key=lambda m: m[0])
        self.lines = [line for line, _ in marks]
        self.names = [name for _, name in marks]

    def get(self, line: int) -> str | None:
        """The pass running at ``line``, or ``None`` outside any pass."""
        i = bisect.bisect_right(self.lines, line) - 1
        return self.names[i] if i >= 0 else None


def fusion_pass(event: Any, index: PassIndex) -> str | None:
    """The pass a fusion event is attributed to.

    Its own ``<pass>:`` prefix, ``HorizontalMerge`` for a ``Merging layers`` line (the
    tensor-merging stage), else the pass running at its line.
    """
    named: str | None = getattr(event, "pass_name", None)
    return named or STAGE_PASS.get(event.kind) or index.get(event.span[0])


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


def pass_records(build: Build) -> list[dict[str, Any]]:
    """One record per optimization pass: how often it ran and what it did (``passes_frame``).

    Keys: ``pass_name``, ``first_line``/``last_line`` (its first and last ``Running:`` line or
    event), ``runs`` (``Running:`` lines), ``fusions`` (the fusions attributed to it, every
    kind of :data:`FUSION_KINDS`), ``removals`` (:func:`removal_events`) and ``swaps``
    (``Swapping`` and type swaps) done while it ran, ``layers_before``/``layers_after`` (the
    layer counts printed just before its first and just after its last activity). Sorted by
    first line.
    """
    index = PassIndex(build)
    stats: dict[str, dict[str, Any]] = {}

    def touch(name: str, line: int) -> dict[str, Any]:
        row = stats.setdefault(
            name,
            {
                "pass_name": name,
                "first_line": line,
                "last_line": line,
                "runs": 0,
                "fusions": 0,
                "removals": 0,
                "swaps": 0,
            },
        )
        row["first_line"] = min(row["first_line"], line)
        row["last_line"] = max(row["last_line"], line)
        return row

    for run in build.of(PassRun):
        touch(run.pass_name, run.span[0])["runs"] += 1
    for fusion in build.events_of(*FUSION_KINDS):
        name = fusion_pass(fusion, index)
        if name:
            touch(name, fusion.span[0])["fusions"] += 1
    removals = removal_events(build.events_of(*REMOVAL_KINDS, "pass_run"))
    swaps = build.events_of("qdq_swap", "layer_swap")
    for events, count_as in ((removals, "removals"), (swaps, "swaps")):
        for event in events:
            name = STAGE_PASS.get(event.kind) or index.get(event.span[0])
            if name:
                touch(name, event.span[0])[count_as] += 1
    counts = [(e.span[0], e.layers) for e in build.of(LayerCount)]
    for row in stats.values():
        before = [n for line, n in counts if line < row["first_line"]]
        after = [n for line, n in counts if line > row["last_line"]]
        row["layers_before"] = before[-1] if before else None
        row["layers_after"] = after[0] if after else None
    return sorted(stats.values(), key=lambda r: r["first_line"])
