"""Moved in trtlog 0.2 (this path is removed in 0.3).

The JSON loaders are in :mod:`trtlog.exports`, the engine of a log's layer dumps in
:mod:`trtlog.engine.from_log`, the log's ``--dumpProfile`` table as a profile in
:mod:`trtlog.build.performance`, the ONNX nodes of a layer name in :mod:`trtlog.names`.
"""

from trtlog._moved import moved_names

__getattr__ = moved_names(
    __name__,
    {
        "JsonInput": "trtlog.exports.read",
        "JsonKind": "trtlog.exports.read",
        "LayerInfoWarning": "trtlog.exports.layers",
        "detect_kind": "trtlog.exports.read",
        "engine_from_events": "trtlog.engine.from_log",
        "engine_from_json": "trtlog.exports.layers",
        "engine_from_placement": "trtlog.engine.from_log",
        "load_engine": "trtlog.exports.layers",
        "load_profile": "trtlog.exports.profile",
        "load_times": "trtlog.exports.times",
        "onnx_nodes_of_name": "trtlog.names",
        "profile_from_events": "trtlog.build.performance",
        "profile_from_json": "trtlog.exports.profile",
        "read_json_bytes": "trtlog.exports.read",
        "read_json_file": "trtlog.exports.read",
        "times_from_json": "trtlog.exports.times",
        "wrong_kind": "trtlog.exports.read",
    },
)
