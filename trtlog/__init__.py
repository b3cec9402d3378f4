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

from trtlog.build import Build, iter_events, parse, parse_text
from trtlog.diff import Comparison, compare
from trtlog.errors import InputError, TrtlogError
from trtlog.layers import Engine, EngineLayer, Profile, ProfileRecord, Times, TimingRecord
from trtlog.names import ComposedName, split_name
from trtlog.parse.jsonio import JsonRepairWarning
from trtlog.parse.layer_info import load_engine, load_profile, load_times

__version__ = "0.1.0"

__all__ = [
    "Build",
    "Comparison",
    "ComposedName",
    "Engine",
    "EngineLayer",
    "InputError",
    "JsonRepairWarning",
    "Profile",
    "ProfileRecord",
    "Times",
    "TimingRecord",
    "TrtlogError",
    "__version__",
    "compare",
    "iter_events",
    "load_engine",
    "load_profile",
    "load_times",
    "parse",
    "parse_text",
    "split_name",
]
