"""trtlog: explanations of NVIDIA TensorRT build output.

Parse ``trtexec --verbose`` logs into typed events (:func:`parse`, :func:`iter_events`), and
read layer-info, profile and timing JSON exports into an :class:`Engine` (:func:`load_engine`,
:func:`load_profile`, :func:`load_times`; a log's layer dump gives the same ``Build.engine``).

Example:
    >>> import trtlog
    >>> build = trtlog.parse_text("[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers\\n")
    >>> build.events[0].kind, build.events[0].layers
    ('layer_count', 755)
"""

from typing import TYPE_CHECKING

from trtlog.build import Build, iter_events, parse, parse_text
from trtlog.diff import Comparison, compare
from trtlog.errors import InputError, TrtlogError
from trtlog.findings import Finding, lint
from trtlog.layers import Engine, EngineLayer, Profile, ProfileRecord, Times, TimingRecord
from trtlog.names import ComposedName, split_name
from trtlog.parse.jsonio import JsonRepairWarning
from trtlog.parse.layer_info import LayerInfoWarning, load_engine, load_profile, load_times

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ imports them on first use
    from trtlog.findings.frame import findings_frame
    from trtlog.graph import fate, members, merge_graph, provenance, write_graph
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
    from trtlog.report import report

__version__ = "0.1.0"

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


def __getattr__(name: str) -> object:
    if name == "findings_frame":  # pandas, on first use
        from trtlog.findings.frame import findings_frame

        return findings_frame
    if name in _PLOTS:
        from trtlog import plots

        return getattr(plots, name)
    if name in _GRAPH:
        from trtlog import graph

        return getattr(graph, name)
    if name == "report":  # jinja2 and the views, on first use
        from trtlog.report import report

        # importing the package bound it to this name; the name is the function
        globals()["report"] = report
        return report
    raise AttributeError(f"module 'trtlog' has no attribute {name!r}")


def __dir__() -> list[str]:
    # the lazily imported names (plots, merge-graph functions, findings_frame, report) are
    # public too
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
    "write_graph",
]
