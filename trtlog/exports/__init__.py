"""trtexec's JSON exports: reading them into the engine's models.

A reader package (the JSON side; the log side is :mod:`trtlog.parser`). ``--exportLayerInfo``
and ``IEngineInspector`` JSON become an :class:`~trtlog.engine.model.Engine`
(:func:`load_engine`, :mod:`~trtlog.exports.layers`), ``--exportProfile`` a
:class:`~trtlog.engine.model.Profile` (:func:`load_profile`), ``--exportTimes`` a
:class:`~trtlog.engine.model.Times` (:func:`load_times`). :mod:`~trtlog.exports.read` reads a
file's JSON values and tells which export it is; :mod:`~trtlog.exports.jsonio` repairs the
invalid JSON trtexec is known to write.
"""

from trtlog.exports.jsonio import JsonRepairWarning, read_json_values
from trtlog.exports.layers import LayerInfoWarning, engine_from_json, load_engine
from trtlog.exports.profile import load_profile, profile_from_json
from trtlog.exports.read import (
    JsonInput,
    JsonKind,
    detect_kind,
    read_json_bytes,
    read_json_file,
    wrong_kind,
)
from trtlog.exports.times import load_times, times_from_json

__all__ = [
    "JsonInput",
    "JsonKind",
    "JsonRepairWarning",
    "LayerInfoWarning",
    "detect_kind",
    "engine_from_json",
    "load_engine",
    "load_profile",
    "load_times",
    "profile_from_json",
    "read_json_bytes",
    "read_json_file",
    "read_json_values",
    "times_from_json",
    "wrong_kind",
]
