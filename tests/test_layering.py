"""Imports go one way: the layers of docs/architecture.md, checked on the source (ast).

A module may import from its own layer and the layers below it. An import from a layer above
is allowed only inside a *one-line convenience*: a function whose body is (a docstring,) the
import and one ``return`` (``Build.fusions_frame()`` returning ``fusions_frame(self)``), or
under ``if TYPE_CHECKING:`` (annotations only). Anything else that reaches up is a tangle:
move the shared helper down to where both sides can import it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "trtlog"

#: Module prefix → layer, bottom (0) to top; the longest prefix wins.
LAYERS: dict[str, int] = {
    # base: no trtlog imports but these
    "trtlog.errors": 0,
    "trtlog._display": 0,
    "trtlog._files": 0,
    "trtlog._version": 0,
    "trtlog._pydantic": 0,
    "trtlog.numbers": 0,
    # vocabulary: names, tensors
    "trtlog.names": 1,
    "trtlog.tensors": 1,
    # data models and their own operations: events, the engine, the header
    "trtlog.events": 2,
    "trtlog.engine": 2,
    "trtlog.buildlog.header": 2,
    # readers: logs, JSON exports
    "trtlog.parser": 3,
    "trtlog.exports": 3,
    # facts derived once from events
    "trtlog.buildlog.rounds": 4,
    "trtlog.buildlog.builds": 4,
    "trtlog.buildlog.passes": 4,
    "trtlog.buildlog.performance": 4,
    "trtlog.buildlog.tactics": 4,
    # the Build
    "trtlog.buildlog": 5,
    # the input opener
    "trtlog.inputs": 6,
    # views
    "trtlog.graph": 7,
    "trtlog.summary": 7,
    "trtlog.diff": 7,
    "trtlog.frames": 8,
    "trtlog.findings": 9,
    "trtlog.plots": 10,
    "trtlog.warehouse": 10,  # many builds: reads builds through the views below
    "trtlog.html": 11,  # one page: reads the views and the frames of the plots
    "trtlog.cli": 12,
    "trtlog.__main__": 13,
    "trtlog": 13,  # the public API gathers everything
}

#: Upward imports that the restructure removes (importer, imported).
KNOWN: set[tuple[str, str]] = set()


def layer_of(module: str) -> int:
    best = ""
    for prefix in LAYERS:
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
            best = prefix
    if not best:
        raise KeyError(f"{module}: no layer in tests/test_layering.py LAYERS")
    return LAYERS[best]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    convenience: bool  # inside a one-line convenience function or under TYPE_CHECKING
    line_in_function: bool = False  # inside any function: runs when called, not at import


def _is_convenience(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = list(func.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    imports = [s for s in body if isinstance(s, ast.Import | ast.ImportFrom)]
    rest = [s for s in body if not isinstance(s, ast.Import | ast.ImportFrom)]
    return bool(imports) and len(rest) == 1 and isinstance(rest[0], ast.Return)


def _targets(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    module = node.module or ""
    if node.level:  # relative: resolve against the importer's package
        base = importer.split(".")
        base = base if is_package else base[:-1]
        base = base[: len(base) - (node.level - 1)]
        module = ".".join([*base, module] if module else base)
    # "from package import x": x may be a module of the package
    return [f"{module}.{a.name}" if _exists(f"{module}.{a.name}") else module for a in node.names]


def _exists(module: str) -> bool:
    """Whether ``module`` names a module file of the package (not a name in one)."""
    path = PACKAGE.parent / Path(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of(path: Path, importer: str | None = None) -> list[Import]:
    """The trtlog imports of a source file (named ``importer``, default: its module name)."""
    importer = importer or module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[Import] = []

    def visit(node: ast.AST, convenience: bool, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for sub in child.body:
                    visit_one(sub, True, inside)
                for sub in child.orelse:
                    visit_one(sub, convenience, inside)
                continue
            visit_one(child, convenience, inside)

    def visit_one(child: ast.AST, convenience: bool, inside: bool) -> None:
        if isinstance(child, ast.Import | ast.ImportFrom):
            for target in _targets(child, importer, path.name == "__init__.py"):
                if target == "trtlog" or target.startswith("trtlog."):
                    out.append(Import(importer, target, child.lineno, convenience, inside))
            return
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            visit(child, convenience or _is_convenience(child), True)
            return
        visit(child, convenience, inside)

    visit(tree, False, False)
    return out


def all_imports() -> list[Import]:
    return [i for p in sorted(PACKAGE.rglob("*.py")) for i in imports_of(p)]


def layer_imported(importer: str, target: str) -> int:
    """The layer an import reaches: importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__``.

    Left out: the root package (``trtlog/__init__`` imports only the version and the old
    paths' finder) and the packages the importer lives in (they have run already).
    """
    parts = target.split(".")
    chain = [".".join(parts[:n]) for n in range(2, len(parts) + 1)]
    chain = [m for m in chain if m == target or not (importer + ".").startswith(m + ".")]
    return max(layer_of(m) for m in chain) if chain else layer_of(target)


def upward(imports: list[Import]) -> list[Import]:
    return [
        i
        for i in imports
        if not i.convenience
        and not (i.importer + ".").startswith(i.imported + ".")  # a package's own __init__
        and layer_imported(i.importer, i.imported) > layer_of(i.importer)
    ]


def test_every_module_has_a_layer() -> None:
    for path in PACKAGE.rglob("*.py"):
        layer_of(module_name(path))


def test_imports_go_one_way() -> None:
    found = {(i.importer, i.imported) for i in upward(all_imports())}
    unexpected = sorted(found - KNOWN)
    assert not unexpected, "upward imports (move the shared code down):\n" + "\n".join(
        f"  {a} -> {b}" for a, b in unexpected
    )
    gone = sorted(KNOWN - found)
    assert not gone, "fixed: remove from KNOWN:\n" + "\n".join(f"  {a} -> {b}" for a, b in gone)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a one-line convenience may reach up
        ("def f(self):\n    '''Doc.'''\n    from trtlog.plots import p\n    return p(self)\n", []),
        # anything more may not
        ("def f(self):\n    from trtlog.plots import p\n    x = p(self)\n    return x\n", [10]),
        ("from trtlog.plots import p\n", [10]),
        # annotations only
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from trtlog.plots import p\n",
            [],
        ),
    ],
)
def test_the_check_itself(tmp_path: Path, source: str, expected: list[int]) -> None:
    path = PACKAGE / "errors.py"  # a base-layer module: every trtlog import reaches up
    fake = tmp_path / "errors.py"
    fake.write_text(source, encoding="utf-8")
    found = [layer_of(i.imported) for i in imports_of(fake, module_name(path)) if not i.convenience]
    assert found == expected


def _runtime_graph() -> dict[str, set[str]]:
    """Module → the modules its top-level imports run (package ``__init__`` files included)."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        importer = module_name(path)
        edges = graph.setdefault(importer, set())
        for i in imports_of(path):
            if i.convenience or i.line_in_function:
                continue
            parts = i.imported.split(".")
            for n in range(2, len(parts) + 1):
                target = ".".join(parts[:n])
                # a package the importer lives in has run already; a name is not a module
                if (importer + ".").startswith(target + ".") or not _exists(target):
                    continue
                edges.add(target)
    return graph


def test_no_import_cycle() -> None:
    """No module imports (through package ``__init__`` files too) a module that imports it
    back: each imports on its own, whatever was imported before (``import trtlog`` is lazy,
    so no import order hides a cycle)."""
    graph = _runtime_graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == []


def _facade_and_private_imports() -> tuple[list[str], list[str]]:
    """Imports of the ``trtlog`` facade, and of a private name from another module."""
    facade: list[str] = []
    private: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        if importer == "trtlog":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{importer}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import):
                facade += [where for a in node.names if a.name == "trtlog"]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module == "trtlog":
                    facade += [
                        f"{where} ({a.name})" for a in node.names if not _exists(f"trtlog.{a.name}")
                    ]
                elif node.module.startswith("trtlog."):
                    private += [
                        f"{where} ({node.module}.{a.name})"
                        for a in node.names
                        if a.name.startswith("_")
                        and not a.name.startswith("__")
                        and not _exists(f"{node.module}.{a.name}")
                        and not (importer + ".").startswith(node.module.rsplit(".", 1)[0] + ".")
                    ]
    return facade, private


def test_internals_import_modules_not_the_facade() -> None:
    """Code inside the package imports the module it needs: the facade's lazy table hides
    the real dependency from readers and tools (STYLE.md §3)."""
    facade, _private = _facade_and_private_imports()
    assert facade == []


def test_no_private_name_crosses_a_package() -> None:
    """A name starting with ``_`` is used inside its own package only (STYLE.md §3)."""
    _facade, private = _facade_and_private_imports()
    assert private == []
