"""Old import paths that keep working for one release and say where things moved.

Part of the base layer (no trtlog import at load time). trtlog 0.2 put every fact in one
place (issue 13): modules moved into packages by subject, helpers into the modules of the
vocabulary (``trtlog.names``, ``trtlog.tensors``). Until trtlog :data:`REMOVAL` the old paths
still import, with a ``DeprecationWarning`` naming the new place:

* a module that moved whole (:data:`MOVED_MODULES`) or whose names went to several places
  (:data:`SPLIT_MODULES`) has no file any more: :func:`install`, called by ``import trtlog``,
  puts a finder on ``sys.meta_path`` that makes a stand-in module for its old name, which
  forwards every attribute (pickles that name an old path load through it);
* a module that lost some names keeps ``__getattr__ = moved_names(__name__, {...})``.

These tables are the list of what moved; removing the old paths is deleting them.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["MOVED_MODULES", "REMOVAL", "SPLIT_MODULES", "install", "moved_names"]

#: The release that removes the old paths.
REMOVAL = "0.3"

#: Modules that moved whole: old path → new path.
MOVED_MODULES: dict[str, str] = {
    "trtlog.models": "trtlog._pydantic",
    "trtlog.layers": "trtlog.engine.model",
    "trtlog.header": "trtlog.build.header",
    "trtlog.rounds": "trtlog.build.rounds",
    "trtlog.passes": "trtlog.build.passes",
    "trtlog.performance": "trtlog.build.performance",
    "trtlog.findings.builder": "trtlog.findings.rules.build_process",
    "trtlog.findings.myelin": "trtlog.findings.rules.myelin",
    "trtlog.findings.precision": "trtlog.findings.rules.precision",
    "trtlog.findings.qdq": "trtlog.findings.rules.qdq",
    "trtlog.findings.reformat": "trtlog.findings.rules.reformat",
    # the log parser was the package trtlog.parse, the name of the function
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
    "trtlog.parse.jsonio": "trtlog.exports.jsonio",
    "trtlog.parse.lines": "trtlog.parser.envelope",
    "trtlog.parse.source": "trtlog.parser.source",
    "trtlog.parse.stream": "trtlog.parser.stream",
}

#: Modules whose names went to several places: old path → {name: new module}.
SPLIT_MODULES: dict[str, dict[str, str]] = {
    "trtlog.myelin": {
        "MYELIN_LAYER_TYPES": "trtlog.engine.model",
        "MyelinKernel": "trtlog.names",
        "decode_ops": "trtlog.names",
        "parse_kernel_name": "trtlog.names",
    },
    "trtlog.parse.layer_info": {
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
}

# old packages: their stand-ins get a __path__ so that their old submodules import too
_PACKAGES = frozenset({"trtlog.parse", "trtlog.parse.families"})


def _warn(old: str, new: str, stacklevel: int) -> None:
    warnings.warn(
        f"{old} moved to {new}; the old path is removed in trtlog {REMOVAL}",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def moved_names(module: str, names: dict[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for the ``names`` that moved out of ``module``.

    ``names`` maps an old name to the module it moved to, or to ``module:new_name`` when it
    was renamed too.

    Example:
        >>> import warnings
        >>> get = moved_names("trtlog.old", {"split_name": "trtlog.names"})
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     found = get("split_name")
        >>> found.__module__, str(caught[0].message).split(";")[0]
        ('trtlog.names', 'trtlog.old.split_name moved to trtlog.names.split_name')
    """

    def __getattr__(name: str) -> object:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new, _, new_name = where.partition(":")
        new_name = new_name or name
        _warn(f"{module}.{name}", f"{new}.{new_name}", 2)
        return getattr(importlib.import_module(new), new_name)

    return __getattr__


class _CallableStandIn(types.ModuleType):
    """The stand-in of the old parser package ``trtlog.parse``, callable as the function.

    Importing a module of the old path rebinds the attribute ``trtlog.parse`` to the package
    (the pitfall the rename removes); until 0.3 it still parses like the function.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from trtlog.build.parsing import parse

        return parse(*args, **kwargs)


class _Finder:
    """Makes the stand-in modules of the old paths (see the module docstring).

    A meta path finder and loader by its methods: subclassing ``importlib.abc``'s classes
    would import ``importlib.resources`` (and with it tempfile, shutil, lzma) on every start.
    """

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED_MODULES and fullname not in SPLIT_MODULES:
            return None
        # typeshed's loader protocol asks for the deprecated load_module, which the import
        # system never calls on a loader that has exec_module
        loader: Any = self
        return importlib.util.spec_from_loader(fullname, loader, is_package=fullname in _PACKAGES)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return _CallableStandIn(spec.name) if spec.name == "trtlog.parse" else None

    def exec_module(self, module: types.ModuleType) -> None:
        old = module.__name__
        if old in SPLIT_MODULES:
            places = sorted(set(SPLIT_MODULES[old].values()))
            module.__doc__ = f"Moved in trtlog 0.2 to {', '.join(places)} (removed in {REMOVAL})."
            module.__dict__["__getattr__"] = moved_names(old, SPLIT_MODULES[old])
            return
        new = MOVED_MODULES[old]
        _warn(old, new, 4)
        target = importlib.import_module(new)
        module.__doc__ = f"Moved to {new} in trtlog 0.2 (removed in {REMOVAL})."
        module.__dict__["__getattr__"] = lambda name: getattr(target, name)
        module.__dict__["__all__"] = list(getattr(target, "__all__", ()))


_FINDER = _Finder()


def install() -> None:
    """Put the finder of the old paths on ``sys.meta_path`` (once; ``import trtlog`` does)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
