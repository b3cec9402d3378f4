"""trtlog: explanations of NVIDIA TensorRT build output.

Parse ``trtexec --verbose`` logs into typed events (:func:`parse`, :func:`iter_events`), and
read layer-info, profile and timing JSON exports into an :class:`Engine` (:func:`load_engine`,
:func:`load_profile`, :func:`load_times`; a log's layer dump gives the same ``Build.engine``).

The public API, and only it. Every name is imported from the module that defines it on first
use (:data:`_API`), so ``import trtlog`` (and ``trtlog --help``) loads no parser, no pydantic
model and no pandas, networkx or matplotlib; ``docs/architecture.md`` maps the package.

Example:
    >>> import trtlog
    >>> build = trtlog.parse_text("[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers\\n")
    >>> build.events[0].kind, build.events[0].layers
    ('layer_count', 755)
"""

from importlib import import_module
from typing import TYPE_CHECKING

from trtlog._version import __version__

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ imports them on first use
    from trtlog.buildlog import Build, iter_events, parse, parse_text
    from trtlog.diff import Comparison, compare
    from trtlog.engine import Engine, EngineLayer, Profile, ProfileRecord, Times, TimingRecord
    from trtlog.errors import InputError, TrtlogError
    from trtlog.exports import (
        JsonRepairWarning,
        LayerInfoWarning,
        load_engine,
        load_profile,
        load_times,
    )
    from trtlog.findings import Finding, lint
    from trtlog.findings.frame import findings_frame
    from trtlog.graph import fate, members, merge_graph, provenance, write_graph
    from trtlog.html import report
    from trtlog.names import ComposedName, split_name
    from trtlog.plots import (
        plot_diff,
        plot_fusions_by_pass,
        plot_layer_counts,
        plot_memory_by_stage,
        plot_module_time,
        plot_slowest_tactics,
        plot_tactic_timing,
        plot_time_by,
    )
    from trtlog.summary import Summary, summarize

#: Plot functions, importable as ``trtlog.plot_*`` without ``import trtlog`` loading matplotlib.
_PLOTS = (
    "plot_diff",
    "plot_fusions_by_pass",
    "plot_layer_counts",
    "plot_memory_by_stage",
    "plot_module_time",
    "plot_slowest_tactics",
    "plot_tactic_timing",
    "plot_time_by",
)

#: Merge-graph functions, importable as ``trtlog.fate`` etc. without loading networkx up front.
_GRAPH = ("fate", "members", "merge_graph", "provenance", "write_graph")

#: Every public name → the module it is imported from on first use.
_API: dict[str, str] = {
    **dict.fromkeys(("Build", "iter_events", "parse", "parse_text"), "trtlog.buildlog"),
    **dict.fromkeys(("Comparison", "compare"), "trtlog.diff"),
    **dict.fromkeys(
        ("Engine", "EngineLayer", "Profile", "ProfileRecord", "Times", "TimingRecord"),
        "trtlog.engine",
    ),
    **dict.fromkeys(("InputError", "TrtlogError"), "trtlog.errors"),
    **dict.fromkeys(
        ("JsonRepairWarning", "LayerInfoWarning", "load_engine", "load_profile", "load_times"),
        "trtlog.exports",
    ),
    **dict.fromkeys(("Finding", "lint"), "trtlog.findings"),
    "findings_frame": "trtlog.findings.frame",
    **dict.fromkeys(_GRAPH, "trtlog.graph"),
    **dict.fromkeys(("ComposedName", "split_name"), "trtlog.names"),
    **dict.fromkeys(_PLOTS, "trtlog.plots"),
    "report": "trtlog.html",
    **dict.fromkeys(("Summary", "summarize"), "trtlog.summary"),
}


def __getattr__(name: str) -> object:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'trtlog' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    # the lazily imported names are public too
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Build",
    "Comparison",
    "ComposedName",
    "Engine",
    "EngineLayer",
    "Finding",
    "InputError",
    "JsonRepairWarning",
    "LayerInfoWarning",
    "Profile",
    "ProfileRecord",
    "Summary",
    "Times",
    "TimingRecord",
    "TrtlogError",
    "__version__",
    "compare",
    "fate",
    "findings_frame",
    "iter_events",
    "lint",
    "load_engine",
    "load_profile",
    "load_times",
    "members",
    "merge_graph",
    "parse",
    "parse_text",
    "plot_diff",
    "plot_fusions_by_pass",
    "plot_layer_counts",
    "plot_memory_by_stage",
    "plot_module_time",
    "plot_slowest_tactics",
    "plot_tactic_timing",
    "plot_time_by",
    "provenance",
    "report",
    "split_name",
    "summarize",
    "write_graph",
]
