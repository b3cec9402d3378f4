"""The merge graph: which original ONNX nodes became which engine layers, by which pass.

A view package (networkx, imported here only). :mod:`~trtlog.graph.model` holds
:class:`MergeGraph` and its answers (:meth:`MergeGraph.fate`: what happened to an ONNX node;
:meth:`MergeGraph.provenance`: what is inside an engine layer),
:mod:`~trtlog.graph.from_events` builds it from a build's events (:func:`merge_graph`), and
:mod:`~trtlog.graph.export` writes it (:func:`write_graph`). See the model's docstring for
the nodes, edges and their evidence.
"""

from trtlog.graph.export import edge_list, to_dot, write_graph
from trtlog.graph.from_events import merge_graph
from trtlog.graph.model import (
    FLOWS,
    Fate,
    FateKind,
    MergeGraph,
    Provenance,
    Relation,
    Step,
    fate,
    members,
    provenance,
)

__all__ = [
    "FLOWS",
    "Fate",
    "FateKind",
    "MergeGraph",
    "Provenance",
    "Relation",
    "Step",
    "edge_list",
    "fate",
    "members",
    "merge_graph",
    "provenance",
    "to_dot",
    "write_graph",
]
