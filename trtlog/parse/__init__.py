"""Moved to :mod:`trtlog.parser` in trtlog 0.2; this path is removed in 0.3.

``trtlog.parse`` is the function that parses a log. The parser package had the same name, so
importing one of its modules rebound ``trtlog.parse`` to the package; it is
:mod:`trtlog.parser` now. Until 0.3 this stub forwards to it, and can be called like the
function, whichever of the two ``trtlog.parse`` names.
"""

import sys
import types
from typing import Any

from trtlog._moved import moved_module


class _CallableStub(types.ModuleType):
    """The stub module, callable as :func:`trtlog.parse`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from trtlog.build.parsing import parse

        return parse(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableStub
moved_module(__name__, "trtlog.parser")
