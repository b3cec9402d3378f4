"""Comparing two builds: layers aligned by the ONNX nodes they hold, fusions, precisions, times.

A view package (pydantic only; pandas and matplotlib are imported by the frame and plot
functions that need them): ``models`` (the typed results), ``align`` (layer signatures and
the alignment), ``passes`` (per-pass fusion differences), ``load`` (:func:`compare` and its
inputs), ``summary`` and ``text`` (renderings), ``migration`` (the 10 → 11 check: the nodes
whose precision went up when the build became strongly typed, the fusions that split, the
time). :func:`compare` takes two builds (a :class:`~trtlog.buildlog.Build`, an
:class:`~trtlog.engine.Engine`, or a path to a log or layer JSON) and returns a
:class:`Comparison`: the two layer sequences aligned step by step, the groups of ONNX nodes
fused differently on the two sides, the layers found on one side only, and, when both inputs
are verbose logs, the fusions each optimizer pass made on one side and not the other.

Alignment (STYLE.md §8: by original node names, never by position) is an edit distance whose
substitution cost says how sure we are that two layers are the same: the ONNX nodes they hold
(from ``Metadata`` or the fused name, clone and profile suffixes removed), then their type,
precision and output shape (batch aside). It is solved exactly as a maximum-weight chain over
the candidate pairs that share a node or a name (no quadratic table), then completed: layers
without nodes (reformats, Myelin kernels) are paired inside the gaps between sure pairs,
reordered layers are paired as ``order`` changes, and a layer that became several layers
(quantization splitting a fused layer, a Myelin region listed kernel by kernel) keeps one row
per piece, marked ``split`` (or ``merged`` the other way round).
"""

from trtlog.diff.align import compare_engines
from trtlog.diff.load import compare
from trtlog.diff.migration import MigrationCheck, RaisedNode, is_migration, migration_check
from trtlog.diff.models import (
    Comparison,
    ComparisonSummary,
    FusionGroup,
    LayerView,
    Marker,
    ModuleDelta,
    PassComparison,
    PassCount,
    PassFusion,
    PrecisionChange,
    SideInfo,
    Step,
    TacticChange,
)
from trtlog.diff.passes import compare_passes
from trtlog.diff.summary import step_times, summarize_comparison
from trtlog.diff.text import fit, render_steps, render_summary
from trtlog.names import is_qdq_node

__all__ = [
    "Comparison",
    "ComparisonSummary",
    "FusionGroup",
    "LayerView",
    "Marker",
    "MigrationCheck",
    "ModuleDelta",
    "PassComparison",
    "PassCount",
    "PassFusion",
    "PrecisionChange",
    "RaisedNode",
    "SideInfo",
    "Step",
    "TacticChange",
    "compare",
    "compare_engines",
    "compare_passes",
    "fit",
    "is_migration",
    "is_qdq_node",
    "migration_check",
    "render_steps",
    "render_summary",
    "step_times",
    "summarize_comparison",
]
