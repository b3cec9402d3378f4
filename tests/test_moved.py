"""Old import paths keep working for one release and say where things moved (issue 13).

``fixtures/api-0.1.0.json`` lists every module of trtlog 0.1.0 with its ``__all__``, read
from that release before the restructure: every one of those names must still be found at
its old path. A path that moved says so with a ``DeprecationWarning`` (the suite turns
warnings into errors, so these tests import old paths inside ``pytest.warns``).
"""

from __future__ import annotations

import importlib
import json
import sys
import types
import warnings

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog import _moved

API_0_1: dict[str, list[str]] = json.loads(
    (FIXTURES / "api-0.1.0.json").read_text(encoding="utf-8")
)

#: Modules of 0.1 that are gone, not moved (issue 13): why.
DELETED: dict[str, str] = {
    "trtlog.parse.shapes": "the shape cache, a speed tier behind the grammar-compiled matchers "
    "that ran 3 times over the whole corpus",
}

#: (module, name) that moved out of a module still there → where it lives now.
MOVED_NAMES: dict[tuple[str, str], str] = {
    ("trtlog.engine", "common_module"): "trtlog.names",
    ("trtlog.engine", "module_path"): "trtlog.names",
    ("trtlog.engine", "placed_nodes"): "trtlog.names",
    ("trtlog.diff.load", "looks_like_json_file"): "trtlog.inputs:is_json_export",
    ("trtlog.diff", "summarize"): "trtlog.diff.summary:summarize_comparison",
    ("trtlog.diff.summary", "summarize"): "trtlog.diff.summary:summarize_comparison",
}


def _fresh(module: str) -> None:
    """Forget ``module`` and the old paths below it, so that importing it warns again."""
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        if name in _moved.MOVED_MODULES or name in _moved.SPLIT_MODULES:
            del sys.modules[name]


@pytest.mark.parametrize("module", sorted(set(API_0_1) - set(DELETED)))
def test_every_public_name_of_0_1_is_found_at_its_old_path(module: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the moves are tested below
        old = importlib.import_module(module)
        missing = [name for name in API_0_1[module] if not hasattr(old, name)]
    assert missing == []


@pytest.mark.parametrize("old", sorted(_moved.MOVED_MODULES))
def test_a_moved_module_warns_and_forwards(old: str) -> None:
    new = importlib.import_module(_moved.MOVED_MODULES[old])
    _fresh(old)
    with pytest.warns(DeprecationWarning, match=rf"moved to {_moved.MOVED_MODULES[old]}\b"):
        stand_in = importlib.import_module(old)
    assert f"removed in {_moved.REMOVAL}" in (stand_in.__doc__ or "")
    for name in getattr(new, "__all__", ()):
        assert getattr(stand_in, name) is getattr(new, name)
    assert sorted(stand_in.__all__) == sorted(getattr(new, "__all__", ()))


@pytest.mark.parametrize(
    ("old", "name"),
    sorted((module, name) for module, names in _moved.SPLIT_MODULES.items() for name in names),
)
def test_a_name_of_a_split_module_warns_and_forwards(old: str, name: str) -> None:
    new = _moved.SPLIT_MODULES[old][name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old package, if any
        module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {new}\.{name}"):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), name)


@pytest.mark.parametrize(("old", "name"), sorted(MOVED_NAMES))
def test_a_moved_name_is_found_at_its_old_path(old: str, name: str) -> None:
    new, _, new_name = MOVED_NAMES[old, name].partition(":")
    new_name = new_name or name
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {new}\.{new_name}"):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), new_name)


def test_an_old_pickle_path_loads_through_the_finder() -> None:
    _fresh("trtlog.layers")
    with pytest.warns(DeprecationWarning, match="trtlog.layers moved to trtlog.engine.model"):
        cls = importlib.import_module("trtlog.layers").Engine
    assert cls is trtlog.Engine


def test_the_old_parser_package_is_still_callable_as_the_function() -> None:
    """Importing a module of the old parser path rebinds ``trtlog.parse`` to the package; the
    package then parses like the function did."""
    _fresh("trtlog.parse")
    with pytest.warns(DeprecationWarning, match=r"moved to trtlog\.parser"):
        importlib.import_module("trtlog.parse.grammar")
    assert isinstance(trtlog.parse, types.ModuleType)  # the pitfall the rename removes
    build = trtlog.parse(["[I] [TRT] Original: 5 layers"])
    assert [e.kind for e in build.events] == ["layer_count"]
    trtlog.parse = importlib.import_module("trtlog.build").parse  # leave the function bound


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    module = importlib.import_module("trtlog.engine")
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018


@pytest.mark.parametrize("module", ["trtlog.no_such_module", *sorted(DELETED)])
def test_a_module_that_does_not_exist_is_not_found(module: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(module)
