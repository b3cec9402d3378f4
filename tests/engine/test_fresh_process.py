"""What a fresh process imports to load a layer JSON with its profile and make its frame.

``trtlog.load_engine(F, profile=P).layers_frame()`` is the first thing a notebook runs on an
export: its imports are most of its time. It needs the JSON readers, the engine models and the
frame module, and none of the log's modules (the parser, its grammars and Lark, the events),
the comparison, the findings, the merge graph, the report or the warehouse, nor the module
tree's and the Myelin groups' models. Checked in a fresh interpreter
(``bench/engine_load.py --corpus`` times the same command).
"""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.conftest import FIXTURES, ROOT

LAYER_INFO = FIXTURES / "layer_info"

#: Every trtlog module the path may import.
EXPECTED = {
    "trtlog",
    "trtlog._display",
    "trtlog._files",
    "trtlog._pydantic",
    "trtlog._version",
    "trtlog.engine",
    "trtlog.engine.footprint",
    "trtlog.engine.model",
    "trtlog.engine.profile",
    "trtlog.engine.rows",
    "trtlog.errors",
    "trtlog.exports",
    "trtlog.exports.jsonio",
    "trtlog.exports.layers",
    "trtlog.exports.profile",
    "trtlog.exports.read",
    "trtlog.exports.times",
    "trtlog.frames",
    "trtlog.frames.engine",
    "trtlog.frames.schema",
    "trtlog.names",
    "trtlog.numbers",
    "trtlog.tensors",
}
HEAVY = ("lark", "networkx", "matplotlib", "duckdb", "dask", "jinja2")


def test_a_layers_frame_in_a_fresh_process_imports_no_log_module() -> None:
    layers = LAYER_INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
    profile = LAYER_INFO / "trt10.16-like_smallnet-fp16.profile.json"
    code = (
        "import sys, trtlog\n"
        f"frame = trtlog.load_engine({str(layers)!r}, profile={str(profile)!r}).layers_frame()\n"
        "assert frame['time_ms'].notna().all()\n"
        "print(sorted(m for m in sys.modules if m == 'trtlog' or m.startswith('trtlog.')))\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    ours, heavy = done.stdout.splitlines()
    assert heavy == "[]"
    assert set(ast.literal_eval(ours)) == EXPECTED
