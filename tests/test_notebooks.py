"""The notebooks run top to bottom on the bundled fixtures (or the corpus) and are stored clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT

pytestmark = pytest.mark.slow  # each test starts a process (conftest schedules them first)

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_finds_the_corpus_as_the_suite_does(path: Path) -> None:
    # a notebook that reads the corpus takes its place from TRTLOG_CORPUS, as conftest does
    source = path.read_text(encoding="utf-8")
    if "CORPUS" in source:
        assert 'os.environ.get(\\"TRTLOG_CORPUS\\"' in source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("TRTLOG_CORPUS", str(CORPUS))  # the corpus the suite reads (or none)
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors
