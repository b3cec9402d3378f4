"""Shared inputs for the warehouse tests: the fixtures in one folder, ingested once."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")


def copy_fixtures(into: Path) -> Path:
    """The bundled logs and JSON exports side by side, as CI artifacts would be."""
    into.mkdir(parents=True, exist_ok=True)
    for folder in ("logs", "layer_info"):
        for path in sorted((FIXTURES / folder).iterdir()):
            if path.is_file() and path.suffix in (".log", ".json", ".trace"):
                shutil.copy(path, into / path.name)
    return into


@pytest.fixture(scope="session")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixtures(tmp_path_factory.mktemp("artifacts"))


@pytest.fixture(scope="session")
def warehouse(inputs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from trtlog.warehouse.driver import ingest

    root = tmp_path_factory.mktemp("wh") / "warehouse"
    ingest([inputs], to=root, jobs=1)
    return root


@pytest.fixture
def wh(warehouse: Path) -> Any:
    from trtlog.warehouse import open

    con = open(warehouse)
    yield con
    con.close()
