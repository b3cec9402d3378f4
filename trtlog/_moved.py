"""Old import paths that keep working for one release and say where things moved.

Part of the base layer (no trtlog imports at load time). trtlog 0.2 put every fact in one
place (issue 13): modules moved into packages by subject and helpers into the modules of the
vocabulary (``trtlog.names``, ``trtlog.tensors``). The old paths still import, with a
``DeprecationWarning`` naming the new place; they go away in trtlog :data:`REMOVAL`.

* a module that moved whole keeps a stub that calls :func:`moved_module` and forwards every
  attribute to the new module (pickles that name the old path load through it);
* a module that lost some names keeps ``__getattr__ = moved_names(__name__, {...})``.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable

__all__ = ["REMOVAL", "moved_module", "moved_names"]

#: The release that removes the old paths.
REMOVAL = "0.3"


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


def moved_module(old: str, new: str) -> None:
    """Make module ``old`` (being imported) a stand-in for ``new``, warning once.

    Called by the stub left at the old path: every attribute of ``old`` is looked up in
    ``new`` (the stub's ``__getattr__``), ``from old import *`` gives ``new``'s public names.
    """
    _warn(old, new, 3)
    target = importlib.import_module(new)
    stub = sys.modules[old]
    stub.__dict__["__getattr__"] = lambda name: getattr(target, name)
    stub.__dict__["__all__"] = list(getattr(target, "__all__", ()))
    stub.__dict__["__dir__"] = lambda: sorted(set(dir(target)))
