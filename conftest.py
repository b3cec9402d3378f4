"""pytest, for the whole project: the doctest collector skips the stubs at moved modules' old paths.

Those stubs (``trtlog/_moved.py``) warn when imported, which the suite turns into errors;
``tests/test_moved.py`` imports each of them on purpose.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip a stub left at a moved module's old path (it calls ``moved_module``)."""
    if (
        collection_path.suffix == ".py"
        and collection_path.is_file()
        and "moved_module(__name__" in collection_path.read_text(encoding="utf-8")
    ):
        return True
    return None
