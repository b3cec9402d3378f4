"""The one place that knows Lark beyond its documented API (lark 1.1.9 to 1.3.x).

Part of the parser. Everything else builds parsers through :func:`build` and reads a built
grammar through the functions here, so a Lark release that changes its internals breaks this
module only (``tests/parser/test_lark_versions.py`` and ``.ci/lark-matrix`` run the parser at
the lowest and highest Lark versions ``pyproject.toml`` allows). What it reaches into:

* ``Lark._parse_tree_builder.create_callback`` — the tree-building callbacks with Lark's own
  child filters, which give the grammar-compiled matchers their argument layout;
* ``Rule.options.template_source`` — the name of a rule expanded from a template;
* ``base_func`` — the plain function under a ``v_args`` wrapper;
* ``Lark._load`` with the options Lark itself passes when it loads its cache — to rebuild a
  parser from :meth:`Lark.save` data with the transformer embedded (:func:`load`), with
  ``lark.lark._deserialize_parsing_frontend`` deferred until the parser first parses;
* ``lark.lexer.has_interegular`` — switched off while a grammar is built without ``strict``
  (:func:`build`).

The rest (``Lark(...)``, ``Lark.rules``, ``Lark.terminals``, ``TerminalDef.pattern``,
``Rule.origin``/``expansion``/``alias``) is Lark's public surface.
"""

from __future__ import annotations

import functools
import io
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lark import Lark, Transformer, Tree
from lark.grammar import NonTerminal, Rule, Terminal

__all__ = [
    "NonTerminal",
    "Rule",
    "Terminal",
    "Tree",
    "build",
    "dump",
    "leading_literals",
    "literals",
    "load",
    "rule_name",
    "rules_by_origin",
    "terminal_patterns",
    "tree_callbacks",
    "unwrap",
]


def build(
    path: Path,
    starts: Sequence[str],
    transformer: Transformer[Any, Any],
    *,
    strict: bool = False,
) -> Lark:
    """An LALR parser of the grammar file ``path`` with ``transformer`` embedded.

    The contextual lexer, ``[x]`` placeholders as ``None``, no position propagation (line
    numbers come from the splitter), and ``strict`` for the collision checks of the tests.
    Lark's own file cache stays off: it unpickles a file before it checks it (a planted
    pickle would run); ``trtlog.parser.grammar`` caches :func:`dump` output it signed itself.

    Without ``strict``, Lark's terminal collision check is skipped even when ``interegular``
    is installed: outside strict mode Lark only logs what it finds, and the check is most of
    a cold build (about 3 s of CPU for the families a short log needs, against 0.5 s without
    it). The tests build every grammar with ``strict=True``, which runs it and fails on any
    collision.
    """
    with _collision_check(strict):
        return Lark(
            path.read_text(encoding="utf-8"),
            parser="lalr",
            lexer="contextual",
            start=list(starts),
            transformer=transformer,
            propagate_positions=False,
            maybe_placeholders=True,
            import_paths=[str(path.parent)],
            source_path=str(path),
            strict=strict,
        )


_BUILDING = threading.Lock()


@contextmanager
def _collision_check(wanted: bool) -> Iterator[None]:
    """Lark's interegular collision check on (``wanted``) or off while a grammar is built."""
    import lark.lexer

    with _BUILDING:
        installed = getattr(lark.lexer, "has_interegular", False)
        lark.lexer.has_interegular = installed and wanted  # type: ignore[attr-defined,unused-ignore]
        try:
            yield
        finally:
            lark.lexer.has_interegular = installed  # type: ignore[attr-defined,unused-ignore]


def dump(lark: Lark) -> bytes:
    """The analysed grammar of ``lark`` as bytes (Lark's :meth:`~lark.Lark.save`: a pickle).

    The transformer is left out; :func:`load` embeds it again.
    """
    out = io.BytesIO()
    lark.save(out, exclude_options=("transformer", "postlex", "lexer_callbacks", "_plugins"))
    return out.getvalue()


def load(data: bytes, transformer: Transformer[Any, Any]) -> Lark:
    """The parser :func:`dump` wrote, with ``transformer`` embedded.

    ``data`` is unpickled: pass only bytes trtlog wrote and verified (see
    ``trtlog.parser.grammar``). (Private: ``Lark._load``, as Lark's own cache loader calls it.)
    """
    import lark.lark as lark_module

    lark: Lark = Lark.__new__(Lark)
    namespace = vars(lark_module)  # where Lark._load looks the frontend maker up
    real = namespace[_FRONTEND]
    with _BUILDING:
        # the parse table and the lexer are made when Lark first parses: the compiled matchers
        # read only the rules and terminals, and a short log may never call Lark itself
        namespace[_FRONTEND] = functools.partial(_LazyFrontend, real, lark)
        try:
            lark._load(io.BytesIO(data), transformer=transformer, propagate_positions=False)
        finally:
            namespace[_FRONTEND] = real
    return lark


_FRONTEND = "_deserialize_parsing_frontend"


class _LazyFrontend:
    """A stand-in for a loaded Lark's parsing frontend that makes it on first use."""

    def __init__(self, make: Callable[..., Any], lark: Lark, *args: Any) -> None:
        self._make = make
        self._lark = lark
        self._args = args

    def __getattr__(self, name: str) -> Any:
        frontend = self._make(*self._args)
        self._lark.parser = frontend  # the Lark holds the real one from now on
        return getattr(frontend, name)


def rules_by_origin(lark: Lark) -> dict[str, list[Rule]]:
    """Rule name → its alternatives, in the grammar's order."""
    out: dict[str, list[Rule]] = {}
    for rule in lark.rules:
        out.setdefault(rule.origin.name, []).append(rule)
    return out


def terminal_patterns(lark: Lark) -> dict[str, str]:
    """Terminal name → its pattern as a Python regular expression."""
    return {t.name: t.pattern.to_regexp() for t in lark.terminals}


def literals(lark: Lark) -> dict[str, str]:
    """Terminal name → its text, for the terminals that are a fixed string."""
    return {t.name: t.pattern.value for t in lark.terminals if t.pattern.type == "str"}


def tree_callbacks(lark: Lark) -> dict[Rule, Callable[[list[Any]], Any]]:
    """The tree-building callback of every rule, with the child filter Lark applies.

    Called on a list of markers, a callback returns the tree Lark would build: which children
    it keeps, where ``[x]`` placeholders go. (Private: ``Lark._parse_tree_builder``.)
    """
    builder = lark._parse_tree_builder
    callbacks: dict[Rule, Callable[[list[Any]], Any]] = builder.create_callback(None)  # type: ignore[no-untyped-call]
    return callbacks


def rule_name(rule: Rule) -> str:
    """The name the transformer method of an alternative has: its alias, else its rule's.

    (Private: ``Rule.options.template_source`` names a rule expanded from a template.)
    """
    name: str = rule.alias or rule.options.template_source or rule.origin.name
    return name


def unwrap(method: Any) -> Any:
    """The plain bound method under Lark's ``v_args`` wrapper (one call layer less).

    (Private: the wrapper keeps the function as ``base_func``.)
    """
    return getattr(method, "base_func", method)


def leading_literals(lark: Lark, starts: Sequence[str]) -> dict[str, tuple[str | None, ...]]:
    """Start rule → the literal text each of its alternatives starts with (``None``: a terminal).

    An alternative that starts with a sub-rule starts with that rule's leading literals.

    Example:
        >>> from lark import Lark
        >>> lark = Lark('''start: "Running: " NAME -> run
        ...                     | "Removing " NAME -> removed
        ...                NAME: /\\\\w+/''', parser="lalr")
        >>> leading_literals(lark, ["start"])
        {'start': ('Running: ', 'Removing ')}
    """
    by_origin = rules_by_origin(lark)
    text = literals(lark)

    def leads(origin: str, seen: frozenset[str]) -> list[str | None]:
        out: list[str | None] = []
        for rule in by_origin[origin]:
            first = rule.expansion[0] if rule.expansion else None
            if isinstance(first, NonTerminal) and first.name not in seen:
                out.extend(leads(first.name, seen | {first.name}))
            elif isinstance(first, Terminal):
                out.append(text.get(first.name))
            else:
                out.append(None)
        return out

    return {start: tuple(leads(start, frozenset({start}))) for start in starts}
