"""Packaging and the shape of the public API."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import trtlog
from tests.conftest import ROOT


def test_version_matches_changelog_style() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", trtlog.__version__)


def test_build_json_round_trip() -> None:
    path = ROOT / "fixtures" / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
    build = trtlog.parse(path)
    again = trtlog.Build.model_validate_json(build.model_dump_json())
    assert again == build
    assert again.to_text() == build.to_text()


@pytest.mark.slow
def test_wheel_contains_grammars_and_parses(tmp_path: Path) -> None:
    """Build the wheel, install it in a fresh venv (no project on sys.path) and parse a log."""
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(dist),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("trtlog-*.whl"))
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "trtlog/grammars/common.lark" in names
    assert "trtlog/grammars/optimizer.lark" in names
    from trtlog.parser.families import FAMILIES

    # the grammar tables, built with the package: the first run reads them, builds nothing
    tables = {n for n in names if n.startswith("trtlog/grammars/tables/")}
    assert tables == {f"trtlog/grammars/tables/{f.name}.jsonl" for f in FAMILIES if f.starts}
    for asset in ("templates/report.html.j2", "assets/report.js", "vendor/dagre.min.js"):
        assert f"trtlog/html/{asset}" in names  # the report page's files
    # Install the wheel alone into a folder and put it first on the path: the interpreter
    # already has the dependencies, and the wheel's copy of trtlog shadows the checkout.
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    code = (
        "import logging, sys\n"
        "logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)\n"
        "import trtlog\nfrom trtlog.parser import grammar as g\n"
        "b = trtlog.parse_text('[V] [TRT] Original: 3 layers\\n')\n"
        "print(b.events[0].kind, trtlog.__file__, g.grammar_dir())\n"
        "assert trtlog.report(b).startswith('<!DOCTYPE html>')\n"
    )
    # an empty home and cache folder: the installed trtlog reads its tables and writes none
    home = tmp_path / "home"
    (home / ".cache").mkdir(parents=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(target),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
    )
    out = done.stdout
    assert "grammar table" not in done.stderr and "in memory" not in done.stderr
    assert [p.name for p in home.rglob("*")] == [".cache"]
    kind, module, where = out.split()
    assert kind == "layer_count"
    assert module.startswith(str(target))
    assert where == str(target / "trtlog" / "grammars")


def test_editable_or_checkout_finds_grammars() -> None:
    from trtlog.parser.grammar import grammar_dir

    assert (grammar_dir() / "common.lark").is_file()


def test_plots_are_top_level_but_lazy() -> None:
    code = (
        "import sys, trtlog; assert 'matplotlib' not in sys.modules; "
        "f = trtlog.plot_layer_counts; assert 'matplotlib' in sys.modules; "
        "assert set(trtlog._PLOTS) <= set(trtlog.__all__); print(f.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "trtlog.plots"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        trtlog.nothing  # noqa: B018


def test_graph_functions_are_top_level_but_lazy() -> None:
    code = (
        "import sys, trtlog; assert 'networkx' not in sys.modules; "
        "f = trtlog.fate; assert 'networkx' in sys.modules; "
        "assert set(trtlog._GRAPH) <= set(trtlog.__all__); print(f.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().startswith("trtlog.graph")


@pytest.mark.parametrize(
    "doc", ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("docs/*.md"))]
)
def test_doc_links_resolve(doc: str) -> None:
    """Every relative link and ``#anchor`` of the README and docs points at something real."""
    page = ROOT / doc
    text = page.read_text(encoding="utf-8")
    anchors = {
        "#" + re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in re.findall(r"^#+ (.+)$", text, re.MULTILINE)
    }
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        if path:
            assert (page.parent / path).exists(), target
        else:
            assert "#" + anchor in anchors, target


def test_readme_is_a_short_page_for_users() -> None:
    """The README stays a front door (at most 500 lines); the details live in docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 500, f"README.md has {len(lines)} lines: move details to docs/"


def test_no_file_of_the_package_is_ignored() -> None:
    """Every file of the package stays tracked, collected (doctests) and packed."""
    files = [str(p.relative_to(ROOT)) for p in (ROOT / "trtlog").rglob("*.py")]
    try:
        found = subprocess.run(
            ["git", "check-ignore", "--no-index", *files],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        pytest.skip("git is not installed")
    if found.returncode == 128:
        pytest.skip("not a git checkout")
    assert found.stdout.split() == []


def test_import_trtlog_loads_only_the_api_table() -> None:
    """``import trtlog`` imports the version: everything else is lazy."""
    code = (
        "import sys, trtlog\n"
        "print(sorted(m for m in sys.modules if m.startswith('trtlog')))\n"
        "print(sorted({'pydantic', 'lark', 'pandas'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["['trtlog', 'trtlog._version']", "[]"]


def test_every_public_name_resolves_to_its_defining_module() -> None:
    import importlib

    for name in trtlog.__all__:
        value = getattr(trtlog, name)
        assert value is not None, name
        if name != "__version__":
            home = importlib.import_module(trtlog._API[name])
            assert getattr(home, name) is value, name
    assert set(trtlog._API) | {"__version__"} == set(trtlog.__all__)
    assert set(trtlog.__all__) <= set(dir(trtlog))


def test_tests_mirror_the_package() -> None:
    """tests/ has a folder per package of trtlog/ and nothing else (STYLE.md §3)."""
    tests = ROOT / "tests"
    packages = {
        p.parent.relative_to(ROOT / "trtlog").as_posix()
        for p in (ROOT / "trtlog").rglob("__init__.py")
        if p.parent != ROOT / "trtlog"
    }
    folders = {
        p.parent.relative_to(tests).as_posix()
        for p in tests.rglob("__init__.py")
        if p.parent != tests
    }
    # tests/fuzz fuzzes the whole package, like the top-level tests of it; tests/cases is the
    # labelled set, judged through every command (docs/testing.md)
    assert folders - {"fuzz", "cases"} == packages
