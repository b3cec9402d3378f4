"""The merge graph: which original ONNX nodes became which engine layers, by which pass.

A view package (networkx, imported here only). :mod:`~trtlog.graph.model` holds
:class:`MergeGraph` and its answers (:meth:`MergeGraph.fate`: what happened to an ONNX node;
:meth:`MergeGraph.provenance`: what is inside an engine layer),
:mod:`~trtlog.graph.from_events` builds it from a build's events (:func:`merge_graph`), and
:mod:`~trtlog.graph.export` writes it (:func:`write_graph`). See the model's docstring for
the nodes, edges and their evidence.

The names below are imported on first use (networkx loads with the first).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ imports them on first use
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

#: Every public name → the module it is imported from on first use.
_API: dict[str, str] = {
    **dict.fromkeys(("edge_list", "to_dot", "write_graph"), "trtlog.graph.export"),
    "merge_graph": "trtlog.graph.from_events",
    **dict.fromkeys(
        (
            "FLOWS",
            "Fate",
            "FateKind",
            "MergeGraph",
            "Provenance",
            "Relation",
            "Step",
            "fate",
            "members",
            "provenance",
        ),
        "trtlog.graph.model",
    ),
}


def __getattr__(name: str) -> object:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'trtlog.graph' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
