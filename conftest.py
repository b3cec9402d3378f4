"""pytest, for the whole project: the doctest collector skips the stubs at moved modules' old paths.

Those stubs (``trtlog/_moved.py``) warn when imported, which the suite turns into errors;
``tests/test_moved.py`` imports each of them on purpose.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def _is_stub(path: Path) -> bool:
    return path.is_file() and "moved_module(__name__" in path.read_text(encoding="utf-8")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip the stubs at moved modules' old paths, and the modules of a stub package.

    A stub calls ``moved_module``; a module inside a stub package imports the stub.
    """
    if collection_path.suffix != ".py":
        return None
    if _is_stub(collection_path) or _is_stub(collection_path.parent / "__init__.py"):
        return True
    return None
