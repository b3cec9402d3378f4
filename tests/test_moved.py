"""Old import paths keep working for one release and say where things moved (issue 13).

Every old path is imported here under ``pytest.warns(DeprecationWarning)``: the suite runs with
``filterwarnings = error``, so a moved path that forgot to forward, or forgot to warn, fails.
"""

from __future__ import annotations

import importlib
import sys
import types

import pytest

#: (old module, name) → the module the name lives in now.
MOVED_NAMES: dict[tuple[str, str], str] = {
    ("trtlog.myelin", "MYELIN_LAYER_TYPES"): "trtlog.engine.model",
    ("trtlog.myelin", "MyelinKernel"): "trtlog.names",
    ("trtlog.myelin", "decode_ops"): "trtlog.names",
    ("trtlog.myelin", "parse_kernel_name"): "trtlog.names",
    ("trtlog.engine", "common_module"): "trtlog.names",
    ("trtlog.engine", "module_path"): "trtlog.names",
    ("trtlog.engine", "placed_nodes"): "trtlog.names",
    ("trtlog.diff.load", "looks_like_json_file"): "trtlog.inputs:is_json_export",
    ("trtlog.diff", "summarize"): "trtlog.diff.summary:summarize_comparison",
    ("trtlog.diff.summary", "summarize"): "trtlog.diff.summary:summarize_comparison",
    # trtlog.parse.layer_info: split between the exports, the engine, the names, performance
    ("trtlog.parse.layer_info", "JsonInput"): "trtlog.exports.read",
    ("trtlog.parse.layer_info", "JsonKind"): "trtlog.exports.read",
    ("trtlog.parse.layer_info", "LayerInfoWarning"): "trtlog.exports.layers",
    ("trtlog.parse.layer_info", "detect_kind"): "trtlog.exports.read",
    ("trtlog.parse.layer_info", "engine_from_events"): "trtlog.engine.from_log",
    ("trtlog.parse.layer_info", "engine_from_json"): "trtlog.exports.layers",
    ("trtlog.parse.layer_info", "engine_from_placement"): "trtlog.engine.from_log",
    ("trtlog.parse.layer_info", "load_engine"): "trtlog.exports.layers",
    ("trtlog.parse.layer_info", "load_profile"): "trtlog.exports.profile",
    ("trtlog.parse.layer_info", "load_times"): "trtlog.exports.times",
    ("trtlog.parse.layer_info", "onnx_nodes_of_name"): "trtlog.names",
    ("trtlog.parse.layer_info", "profile_from_events"): "trtlog.build.performance",
    ("trtlog.parse.layer_info", "profile_from_json"): "trtlog.exports.profile",
    ("trtlog.parse.layer_info", "read_json_bytes"): "trtlog.exports.read",
    ("trtlog.parse.layer_info", "read_json_file"): "trtlog.exports.read",
    ("trtlog.parse.layer_info", "times_from_json"): "trtlog.exports.times",
    ("trtlog.parse.layer_info", "wrong_kind"): "trtlog.exports.read",
}

#: Names that moved out of a module that still uses them: they stay importable from it,
#: silently (the module imports them from their new place).
STILL_THERE: dict[tuple[str, str], str] = {
    ("trtlog.diff.align", "dims_text"): "trtlog.tensors",
    ("trtlog.diff.align", "is_qdq_node"): "trtlog.names",
    ("trtlog.diff.align", "is_weights_name"): "trtlog.names",
    ("trtlog.diff.align", "normalize_name"): "trtlog.names",
    ("trtlog.diff.summary", "cut_module"): "trtlog.names",
    ("trtlog.findings.context", "is_quantizer_name"): "trtlog.names",
    ("trtlog.findings.context", "op_of"): "trtlog.names",
}


#: Modules that moved whole: old path → new path.
MOVED_MODULES: dict[str, str] = {
    "trtlog.models": "trtlog._pydantic",
    "trtlog.layers": "trtlog.engine.model",
    "trtlog.parse.jsonio": "trtlog.exports.jsonio",
    "trtlog.header": "trtlog.build.header",
    "trtlog.rounds": "trtlog.build.rounds",
    "trtlog.passes": "trtlog.build.passes",
    "trtlog.performance": "trtlog.build.performance",
    "trtlog.findings.builder": "trtlog.findings.rules.build_process",
    "trtlog.findings.myelin": "trtlog.findings.rules.myelin",
    "trtlog.findings.precision": "trtlog.findings.rules.precision",
    "trtlog.findings.qdq": "trtlog.findings.rules.qdq",
    "trtlog.findings.reformat": "trtlog.findings.rules.reformat",
    "trtlog.parse": "trtlog.parser",
    "trtlog.parse.compiled": "trtlog.parser.compiled",
    "trtlog.parse.dispatch": "trtlog.parser.dispatch",
    "trtlog.parse.families": "trtlog.parser.families",
    "trtlog.parse.families.autotune": "trtlog.parser.families.autotune",
    "trtlog.parse.families.errors": "trtlog.parser.families.errors",
    "trtlog.parse.families.header": "trtlog.parser.families.header",
    "trtlog.parse.families.layers": "trtlog.parser.families.layers",
    "trtlog.parse.families.memory": "trtlog.parser.families.memory",
    "trtlog.parse.families.onnx": "trtlog.parser.families.onnx",
    "trtlog.parse.families.optimizer": "trtlog.parser.families.optimizer",
    "trtlog.parse.families.runtime": "trtlog.parser.families.runtime",
    "trtlog.parse.family": "trtlog.parser.family",
    "trtlog.parse.grammar": "trtlog.parser.grammar",
    "trtlog.parse.lines": "trtlog.parser.envelope",
    "trtlog.parse.shapes": "trtlog.parser.shapes",
    "trtlog.parse.source": "trtlog.parser.source",
    "trtlog.parse.stream": "trtlog.parser.stream",
}


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_a_moved_module_imports_and_forwards(old: str) -> None:
    new = importlib.import_module(MOVED_MODULES[old])
    sys.modules.pop(old, None)  # import it afresh: it warns when imported
    with pytest.warns(DeprecationWarning, match=rf"{old} moved to {MOVED_MODULES[old]}"):
        stub = importlib.import_module(old)
    for name in getattr(new, "__all__", ()):
        assert getattr(stub, name) is getattr(new, name)
    assert sorted(stub.__all__) == sorted(getattr(new, "__all__", ()))


@pytest.mark.parametrize(("old", "name"), sorted(MOVED_NAMES))
def test_a_moved_name_is_found_at_its_old_path(old: str, name: str) -> None:
    new, _, new_name = MOVED_NAMES[old, name].partition(":")
    new_name = new_name or name
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {new}\.{new_name}"):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), new_name)


@pytest.mark.parametrize(("old", "name"), sorted(STILL_THERE))
def test_a_name_its_old_module_still_uses_is_still_there(old: str, name: str) -> None:
    found = getattr(importlib.import_module(old), name)
    assert found is getattr(importlib.import_module(STILL_THERE[old, name]), name)


def test_the_old_parser_package_is_still_callable_as_the_function() -> None:
    """Importing a module of the old parser path rebinds ``trtlog.parse`` to the package; the
    package then parses like the function did."""
    import trtlog

    for name in [m for m in sys.modules if m == "trtlog.parse" or m.startswith("trtlog.parse.")]:
        del sys.modules[name]
    with pytest.warns(DeprecationWarning, match=r"moved to trtlog\.parser"):
        importlib.import_module("trtlog.parse.grammar")
    assert isinstance(trtlog.parse, types.ModuleType)  # the pitfall the rename removes
    build = trtlog.parse(["[I] [TRT] Original: 5 layers"])
    assert [e.kind for e in build.events] == ["layer_count"]
    trtlog.parse = importlib.import_module("trtlog.build").parse  # leave the function bound


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    module = importlib.import_module("trtlog.myelin")
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018
