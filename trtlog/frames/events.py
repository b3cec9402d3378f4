"""Frames over a build's events: passes, layer counts, fusions, removals, Q/DQ, tactics.

Part of the view package :mod:`trtlog.frames` (pandas).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from trtlog._pydantic import gc_paused
from trtlog.buildlog.passes import (
    ROW_SCHEMAS,
    fusion_records,
    layer_count_records,
    pass_records,
    qdq_records,
    removal_records,
)
from trtlog.buildlog.tactics import tactic_columns
from trtlog.frames.schema import (
    SCHEMAS,
    frame_from_columns,
    frame_from_records,
)

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = [
    "fusions_frame",
    "layer_counts_frame",
    "passes_frame",
    "qdq_frame",
    "removals_frame",
    "tactics_frame",
]

SCHEMAS.update(ROW_SCHEMAS)
SCHEMAS.update(
    {
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


# -- layer counts, fusions, removals, Q/DQ (rows: trtlog.buildlog.passes) ----------------------


def layer_counts_frame(build: Build) -> pd.DataFrame:
    """One row per ``Original:`` / ``After <stage>:`` line: the layer count after each stage.

    Columns: ``order`` (0-based), ``line``, ``stage``, ``layers``, ``change`` (vs. the previous
    stage of the same run and builder round, ``<NA>`` for the first of a run), ``run`` (index
    of the trtexec run), ``round`` (the builder round within the run, 0-based, see
    ``Build.rounds``; ``<NA>`` for the stages a run prints before its first round). 8.6+ may
    build the network once per backend strategy: each round starts again from the network
    as the stages before the rounds left it, so the first stage of a round changes the
    count from there, never from the previous round's last stage.
    See :func:`trtlog.buildlog.passes.layer_count_records`.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] Original: 9 layers\\n[V] After scale fusion: 7 layers\\n")
        >>> layer_counts_frame(b)[["stage", "layers", "change"]].to_dict("list")
        {'stage': ['Original', 'scale fusion'], 'layers': [9, 7], 'change': [None, -2]}
    """
    return frame_from_records("layer_counts", layer_count_records(build))


def fusions_frame(build: Build) -> pd.DataFrame:
    """One row per fusion.

    Vertical (``Fusing a with b``), Q/DQ ``fusing ... into``, conv+scale, horizontal merges.

    Columns: ``line``, ``kind`` (event kind), ``pass_name``, ``inputs`` (tuple of names fused),
    ``result`` (the name of the fused layer when the log implies it: ``a + b`` for a vertical
    fusion, the target for ``fusing into``, ``a || b`` for a merge), ``n_inputs``.
    See :func:`trtlog.buildlog.passes.fusion_records`.
    """
    return frame_from_records("fusions", fusion_records(build))


def removals_frame(build: Build) -> pd.DataFrame:
    """One row per removal.

    ``Removing x``, slice and concatenation eliminations, Q/DQ duplicates eliminated, copies
    generated and tensors retargeted. A Q/DQ duplicate is one row (``qdq_dedup``, its
    ``Eliminating`` line) although the log also prints ``Removing`` for it (see
    :func:`trtlog.buildlog.passes.removal_events`).

    Columns: ``line``, ``kind``, ``pass_name`` (the pass running at that line, if known),
    ``layer`` (what was removed or changed), ``detail`` (the other name involved).
    See :func:`trtlog.buildlog.passes.removal_records`.
    """
    return frame_from_records("removals", removal_records(build))


def qdq_frame(build: Build) -> pd.DataFrame:
    """One row per Q/DQ optimizer event (see :func:`trtlog.buildlog.passes.qdq_events`).

    Swaps of Q/DQ layers with their neighbours, type swaps to or from a Q/DQ type,
    duplicates eliminated, phases, and one row per Q/DQ layer fused into its consumer.
    Type swaps between other types (``ELEMENTWISE`` to ``POINTWISE``) are not Q/DQ events.

    Columns: ``line``, ``kind``, ``pass_name``, ``layer``, ``other`` (the other layer of a swap,
    the original of a duplicate, the target of a fusion), ``from_type``/``to_type`` (type
    swaps), ``qdq`` (``Q``/``DQ`` for duplicates). See :func:`trtlog.buildlog.passes.qdq_records`.
    """
    return frame_from_records("qdq", qdq_records(build))


# -- passes --------------------------------------------------------------------------------


def passes_frame(build: Build) -> pd.DataFrame:
    """One row per optimization pass: how often it ran and what it did.

    Columns: ``pass_name``, ``first_line``/``last_line`` (its first and last ``Running:``
    line or event), ``runs`` (``Running:`` lines), ``fusions`` (the rows of ``fusions_frame``
    attributed to it), ``removals`` and ``swaps`` done while it ran (events between its
    ``Running:`` line and the next pass's; each removal once, see
    :func:`trtlog.buildlog.passes.removal_events`), ``layers_before``/``layers_after`` (the layer
    counts printed just before its first and just after its last activity, when the log has
    them) and ``description`` (what the pass does, one line from
    :data:`trtlog.buildlog.passes.PASS_GLOSSARY`, or a sentence saying trtlog does not know it). See
    :func:`trtlog.buildlog.passes.pass_records`.
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
    # the rows: trtlog.buildlog.tactics
    columns = tactic_columns(build, engine_layers, arrays=True)
    with gc_paused():
        return frame_from_columns("tactics", columns)
