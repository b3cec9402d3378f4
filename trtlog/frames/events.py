"""Frames over a build's events: passes, layer counts, fusions, removals, Q/DQ, tactics.

Part of the view package :mod:`trtlog.frames` (pandas).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from trtlog._pydantic import gc_paused
from trtlog.build.passes import QDQ_KINDS, pass_records, qdq_events
from trtlog.build.tactics import tactic_columns
from trtlog.events import (
    ConcatElimination,
    ConvScaleFusion,
    CopyGenerated,
    Fusion,
    FusionInto,
    HorizontalMerge,
    LayerCount,
    LayerRemoved,
    LayerSwap,
    QdqDedup,
    QdqPhase,
    QdqSwap,
    Retarget,
    SliceElimination,
)
from trtlog.frames.schema import (
    SCHEMAS,
    frame_from_columns,
    frame_from_records,
    tactic_hex_series,
)

if TYPE_CHECKING:
    from trtlog.build import Build

__all__ = [
    "fusions_frame",
    "layer_counts_frame",
    "passes_frame",
    "qdq_frame",
    "removals_frame",
    "tactics_frame",
]

SCHEMAS.update(
    {
        "layer_counts": {
            "order": "int64",
            "line": "int64",
            "stage": "string",
            "layers": "int64",
            "change": "Int64",
            "run": "Int64",
            "round": "Int64",
        },
        "fusions": {
            "line": "int64",
            "kind": "string",
            "pass_name": "string",
            "inputs": "object",
            "result": "string",
            "n_inputs": "int64",
        },
        "removals": {
            "line": "int64",
            "kind": "string",
            "pass_name": "string",
            "layer": "string",
            "detail": "string",
        },
        "qdq": {
            "line": "int64",
            "kind": "string",
            "pass_name": "string",
            "layer": "string",
            "other": "string",
            "from_type": "string",
            "to_type": "string",
            "qdq": "string",
        },
        "passes": {
            "pass_name": "string",
            "first_line": "int64",
            "last_line": "int64",
            "runs": "int64",
            "fusions": "int64",
            "removals": "int64",
            "swaps": "int64",
            "layers_before": "Int64",
            "layers_after": "Int64",
            "description": "string",
        },
        "tactics": {
            "line": "int64",
            "layer": "string",
            "runner": "string",
            "runner_id": "Int64",
            "reformat": "bool",
            "format_combination": "string",
            "tactic": "UInt64",
            "tactic_hex": "string",
            "tactic_name": "string",
            "time_ms": "float64",
            "fastest": "bool",
            "chosen": "bool",
            "skipped": "bool",
            "cached": "bool",
            "skip_reason": "string",
            "requested_bytes": "Int64",
            "engine_layer": "string",
            "in_engine": "bool",
        },
    }
)


# -- layer counts --------------------------------------------------------------------------


def layer_counts_frame(build: Build) -> pd.DataFrame:
    """One row per ``Original:`` / ``After <stage>:`` line: the layer count after each stage.

    Columns: ``order`` (0-based), ``line``, ``stage``, ``layers``, ``change`` (vs. the previous
    stage of the same run and builder round, ``<NA>`` for the first of a run), ``run`` (index
    of the trtexec run), ``round`` (the builder round within the run, 0-based, see
    ``Build.rounds``; ``<NA>`` for the stages a run prints before its first round). 8.6+ may
    build the network once per backend strategy: each round starts again from the network
    as the stages before the rounds left it, so the first stage of a round changes the
    count from there, never from the previous round's last stage.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] Original: 9 layers\\n[V] After scale fusion: 7 layers\\n")
        >>> layer_counts_frame(b)[["stage", "layers", "change"]].to_dict("list")
        {'stage': ['Original', 'scale fusion'], 'layers': [9, 7], 'change': [None, -2]}
    """
    records = []
    previous: dict[tuple[int | None, int | None], int] = {}
    for order, event in enumerate(build.of(LayerCount)):
        where = build.round_of(event)
        if where is not None:
            run, number = where.run, where.number
        else:
            found = build.run_of(event)
            run, number = (found.index if found else None), None
        before = previous.get((run, number))
        if before is None and number is not None:
            before = previous.get((run, None))  # a round starts from the network as it was
        records.append(
            {
                "order": order,
                "line": event.span[0],
                "stage": event.stage,
                "layers": event.layers,
                "change": None if before is None else event.layers - before,
                "run": run,
                "round": number,
            }
        )
        previous[run, number] = event.layers
    return frame_from_records("layer_counts", records)


# -- fusions, removals, Q/DQ -----------------------------------------------------------------


def fusions_frame(build: Build) -> pd.DataFrame:
    """One row per fusion.

    Vertical (``Fusing a with b``), Q/DQ ``fusing ... into``, conv+scale, horizontal merges.

    Columns: ``line``, ``kind`` (event kind), ``pass_name``, ``inputs`` (tuple of names fused),
    ``result`` (the name of the fused layer when the log implies it: ``a + b`` for a vertical
    fusion, the target for ``fusing into``, ``a || b`` for a merge), ``n_inputs``.
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []
    for fusion in build.of(Fusion):
        inputs = (fusion.first, fusion.second)
        records.append(_fusion_row(fusion, passes.of(fusion), inputs, " + ".join(inputs)))
    for into in build.of(FusionInto):
        records.append(_fusion_row(into, passes.of(into), into.sources, into.target))
    for conv in build.of(ConvScaleFusion):
        inputs = (conv.conv, conv.scale)
        records.append(_fusion_row(conv, passes.of(conv), inputs, conv.conv))
    for merge in build.of(HorizontalMerge):
        result = " || ".join(merge.layers)
        records.append(_fusion_row(merge, passes.of(merge), merge.layers, result))
    records.sort(key=lambda r: r["line"])
    return frame_from_records("fusions", records)


def _fusion_row(
    event: Any, pass_name: str | None, inputs: Sequence[str], result: str | None
) -> dict[str, Any]:
    return {
        "line": event.span[0],
        "kind": event.kind,
        "pass_name": pass_name,
        "inputs": tuple(inputs),
        "result": result,
        "n_inputs": len(inputs),
    }


def removals_frame(build: Build) -> pd.DataFrame:
    """One row per removal.

    ``Removing x``, slice and concatenation eliminations, Q/DQ duplicates eliminated, copies
    generated and tensors retargeted. A Q/DQ duplicate is one row (``qdq_dedup``, its
    ``Eliminating`` line) although the log also prints ``Removing`` for it (see
    :func:`trtlog.build.passes.removal_events`).

    Columns: ``line``, ``kind``, ``pass_name`` (the pass running at that line, if known),
    ``layer`` (what was removed or changed), ``detail`` (the other name involved).
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []

    def add(event: Any, layer: str, detail: str | None = None) -> None:
        records.append(
            {
                "line": event.span[0],
                "kind": event.kind,
                "pass_name": passes.of(event),
                "layer": layer,
                "detail": detail,
            }
        )

    for event in build._removal_events:
        if isinstance(event, LayerRemoved):
            add(event, event.layer)
        elif isinstance(event, SliceElimination):
            add(event, event.slice, f"{event.from_tensor} -> {event.to_tensor}")
        elif isinstance(event, ConcatElimination):
            add(event, event.concat)
        elif isinstance(event, QdqDedup):
            add(event, event.layer, event.duplicate_of)
    for copy in build.of(CopyGenerated):
        add(copy, copy.tensor, f"{copy.target} ({copy.reason})")
    for ret in build.of(Retarget):
        add(ret, ret.tensor, ret.target)
    records.sort(key=lambda r: r["line"])
    return frame_from_records("removals", records)


def qdq_frame(build: Build) -> pd.DataFrame:
    """One row per Q/DQ optimizer event (see :func:`trtlog.build.passes.qdq_events`).

    Swaps of Q/DQ layers with their neighbours, type swaps to or from a Q/DQ type,
    duplicates eliminated, phases, and one row per Q/DQ layer fused into its consumer.
    Type swaps between other types (``ELEMENTWISE`` to ``POINTWISE``) are not Q/DQ events.

    Columns: ``line``, ``kind``, ``pass_name``, ``layer``, ``other`` (the other layer of a swap,
    the original of a duplicate, the target of a fusion), ``from_type``/``to_type`` (type
    swaps), ``qdq`` (``Q``/``DQ`` for duplicates).
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []

    def add(line: int, kind: str, layer: str, **extra: str | None) -> None:
        row: dict[str, Any] = {
            "line": line,
            "kind": kind,
            "pass_name": passes.at(line),
            "layer": layer,
            "other": None,
            "from_type": None,
            "to_type": None,
            "qdq": None,
        }
        row.update(extra)
        records.append(row)

    for event in qdq_events(build.events_of(*QDQ_KINDS)):
        line = event.span[0]
        if isinstance(event, QdqSwap):
            add(line, "qdq_swap", event.layer, from_type=event.from_type, to_type=event.to_type)
        elif isinstance(event, LayerSwap):
            add(line, "layer_swap", event.first, other=event.second)
        elif isinstance(event, QdqDedup):
            add(line, "qdq_dedup", event.layer, other=event.duplicate_of, qdq=event.qdq)
        elif isinstance(event, QdqPhase):
            add(line, "qdq_phase", event.phase, pass_name=None)  # a phase, not in a pass
        elif isinstance(event, FusionInto):
            for source in event.sources:
                add(line, "fusion_into", source, other=event.target)
    return frame_from_records("qdq", records)


# -- passes --------------------------------------------------------------------------------


def passes_frame(build: Build) -> pd.DataFrame:
    """One row per optimization pass: how often it ran and what it did.

    Columns: ``pass_name``, ``first_line``/``last_line`` (its first and last ``Running:``
    line or event), ``runs`` (``Running:`` lines), ``fusions`` (the rows of ``fusions_frame``
    attributed to it), ``removals`` and ``swaps`` done while it ran (events between its
    ``Running:`` line and the next pass's; each removal once, see
    :func:`trtlog.build.passes.removal_events`), ``layers_before``/``layers_after`` (the layer
    counts printed just before its first and just after its last activity, when the log has
    them) and ``description`` (what the pass does, one line from
    :data:`trtlog.build.passes.PASS_GLOSSARY`, or a sentence saying trtlog does not know it). See
    :func:`trtlog.build.passes.pass_records`.
    """
    return frame_from_records("passes", pass_records(build))


# -- tactics -------------------------------------------------------------------------------


def tactics_frame(build: Build, engine_layers: Mapping[str, int] | None = None) -> pd.DataFrame:
    """One row per tactic the autotuner timed (or skipped), in every version's shape.

    Columns: ``line``; ``layer`` being tuned (``Optimizer Reformat(...)`` texts for reformat
    timing); ``runner`` and ``runner_id`` (10.x; TensorRT 5/6 print only the id, in their
    ``--------------- Timing <layer>(<id>)`` headers); ``reformat`` (timing of a reformat);
    ``format_combination`` (``ins -> outs`` as printed); ``tactic`` (unsigned 64-bit) and
    ``tactic_hex``; ``tactic_name`` (kernel, when printed: 8.5+ on the line, 8.4 by a
    ``Set Tactic Name`` line before it); ``time_ms``; ``fastest`` (the runner's fastest tactic for
    that combination: its ``Fastest Tactic`` line, or in 5/6, which print none, the least time
    of the runner's block); ``chosen`` (the runner and tactic TensorRT chose for the layer and
    combination: ``Chose Runner Type: ...``, 5/6 ``--------------- Chose <id> (<tactic>)``);
    ``skipped`` with ``skip_reason`` and ``requested_bytes``; ``cached`` (a timing-cache hit,
    ``... got cached result: <runner>, tactic <id>, <t> ms``: the cache holds
    only the winner of that combination, so the row is also ``fastest`` and ``chosen``, and its
    time is the one measured when the entry was made); ``engine_layer``
    (on a chosen row: the engine layer of that name, when the log's layer dump or
    ``engine_layers`` has it); ``in_engine`` (the chosen tactic is the one the engine layer runs:
    TensorRT chooses a tactic per format combination and keeps one combination).

    Args:
        build: the parsed log.
        engine_layers: engine layer name → tactic id; by default taken from the log's layer
            dump (``Build.engine``) when it has one.
    """
    # the rows: trtlog.build.tactics
    columns = tactic_columns(build, engine_layers, arrays=True)
    with gc_paused():
        if columns["tactic_hex"] is None:
            columns["tactic_hex"] = tactic_hex_series(columns["tactic"])
        return frame_from_columns("tactics", columns)
