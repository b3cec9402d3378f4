"""The one place that knows Lark beyond its documented API (lark 1.1.9 to 1.3.x).

Part of the parser. Everything else builds parsers through :func:`build` and reads a built
grammar through the functions here, so a Lark release that changes its internals breaks this
module only (``tests/parser/test_lark_versions.py`` and ``.ci/lark-matrix`` run the parser at
the lowest and highest Lark versions ``pyproject.toml`` allows). What it reaches into:

* ``Lark._parse_tree_builder.create_callback`` — the tree-building callbacks with Lark's own
  child filters, which give the grammar-compiled matchers their argument layout;
* ``Rule.options.template_source`` — the name of a rule expanded from a template;
* ``base_func`` — the plain function under a ``v_args`` wrapper;
* ``Lark.memo_serialize`` and ``Lark._load`` (what Lark's standalone generator and its own
  loader use) — to write a built grammar's analysis as plain data (:func:`serialize`) and
  make a parser of it with the transformer embedded (:func:`deserialize`), with
  ``lark.lark._deserialize_parsing_frontend`` deferred until the parser first parses;
* ``lark.lexer.has_interegular`` — switched off while a grammar is built without ``strict``
  (:func:`build`).

The rest (``Lark(...)``, ``Lark.rules``, ``Lark.terminals``, ``TerminalDef.pattern``,
``Rule.origin``/``expansion``/``alias``) is Lark's public surface.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lark import Lark, Transformer, Tree
from lark.grammar import NonTerminal, Rule, Terminal
from lark.lexer import TerminalDef

__all__ = [
    "NonTerminal",
    "Rule",
    "Terminal",
    "Tree",
    "build",
    "deserialize",
    "leading_literals",
    "literals",
    "rule_name",
    "rules_by_origin",
    "serial_format",
    "serialize",
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
    Lark's own file cache stays off (it pickles to a folder users can write): the analysis
    ships with trtlog instead (:func:`serialize`, ``trtlog.parser.grammar``).

    Without ``strict``, Lark's terminal collision check is skipped even when ``interegular``
    is installed: outside strict mode Lark only logs what it finds, and the check is most of
    a build (several times the rest). The tests build every grammar with ``strict=True``,
    which runs it and fails on any collision.
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


def serialize(lark: Lark) -> dict[str, Any]:
    """The analysed grammar of ``lark`` as plain data (JSON-able, no transformer).

    Lark's own serialization (:meth:`~lark.Lark.memo_serialize`, what its standalone
    generator writes), made canonical: Lark numbers the LALR states and tokens in the order
    of sets whose order changes with the string hash seed, so the states are renumbered in
    the order a walk from the start states meets them (tokens by name) and the tokens
    sorted. The same grammar thus gives the same data in every process and at every Lark
    version whose format is :func:`serial_format` (lark 1.1.9 and 1.3.x give equal data). The
    options kept are those :func:`build` sets; :func:`deserialize` reads the result.
    """
    data, memo = lark.memo_serialize([TerminalDef, Rule])
    if sorted(memo) != list(range(len(memo))):
        raise ValueError("Lark's memo is not numbered 0..n-1")
    frontend = dict(data["parser"])
    frontend["parser"] = _canonical_table(frontend["parser"])
    return {
        "options": {name: getattr(lark.options, name) for name in _OPTIONS},
        "rules": data["rules"],
        "parser": frontend,
        "memo": [memo[i] for i in range(len(memo))],
    }


# the options build() sets (and the parse depends on), as Lark reads them when it loads
_OPTIONS = ("parser", "lexer", "start", "maybe_placeholders", "propagate_positions")


def _canonical_table(table: dict[str, Any]) -> dict[str, Any]:
    """An LALR table of ``memo_serialize`` renumbered canonically, in a compact form.

    ``tokens``: the token names, sorted; ``states``: per state, a flat list of ``token,
    action, argument`` triples (action 0: shift to the state ``argument``; 1: reduce by the
    rule the memo holds at index ``argument``), tokens in order.
    """
    names: dict[int, str] = table["tokens"]
    states: dict[int, dict[int, tuple[int, Any]]] = table["states"]
    order: dict[int, int] = {}
    queue = [table["start_states"][start] for start in sorted(table["start_states"])]
    for state in queue:  # grows while it is walked
        if state in order:
            continue
        order[state] = len(order)
        actions = states[state]
        for token in sorted(actions, key=names.__getitem__):
            action, arg = actions[token]
            if action == 0 and arg not in order:
                queue.append(arg)
    if len(order) != len(states):
        raise ValueError("an LALR state is not reachable from a start state")
    tokens = sorted(names.values())
    index = {name: i for i, name in enumerate(tokens)}
    compact: list[list[int]] = [[] for _ in order]
    for state, actions in states.items():
        flat = compact[order[state]]
        for token, action, arg in sorted(
            (index[names[t]], action, order[arg] if action == 0 else arg["@"])
            for t, (action, arg) in actions.items()
        ):
            flat += (token, action, arg)
    return {
        "tokens": tokens,
        "states": compact,
        "start_states": {k: order[v] for k, v in sorted(table["start_states"].items())},
        "end_states": {k: order[v] for k, v in sorted(table["end_states"].items())},
    }


def _lark_table(compact: dict[str, Any]) -> dict[str, Any]:
    """The LALR table of :func:`_canonical_table` in the form Lark deserializes."""
    states: dict[int, dict[int, tuple[int, Any]]] = {}
    for state, flat in enumerate(compact["states"]):
        states[state] = {
            flat[i]: (0, flat[i + 2]) if flat[i + 1] == 0 else (1, {"@": flat[i + 2]})
            for i in range(0, len(flat), 3)
        }
    return {
        "tokens": dict(enumerate(compact["tokens"])),
        "states": states,
        "start_states": compact["start_states"],
        "end_states": compact["end_states"],
    }


def serial_format() -> str:
    """The installed Lark's serialization format, as a short digest.

    Of the fields Lark serializes for each class the data holds; data written under another
    format is not read (:func:`deserialize`'s caller builds the grammar instead).
    """
    from lark.common import LexerConf, ParserConf
    from lark.grammar import NonTerminal, RuleOptions
    from lark.lexer import PatternRE, PatternStr

    classes = (TerminalDef, PatternStr, PatternRE, Rule, RuleOptions, Terminal, NonTerminal)
    fields = [
        (cls.__name__, tuple(getattr(cls, "__serialize_fields__", ())))
        for cls in (*classes, LexerConf, ParserConf)
    ]
    return hashlib.sha256(repr(fields).encode()).hexdigest()[:16]


def deserialize(data: dict[str, Any], transformer: Transformer[Any, Any]) -> Lark:
    """The parser :func:`serialize` described, with ``transformer`` embedded.

    (Private: ``Lark._load``, as Lark's own loader calls it, with the frontend deferred.)
    """
    import lark.lark as lark_module

    lark: Lark = Lark.__new__(Lark)
    namespace = vars(lark_module)  # where Lark._load looks the frontend maker up
    real = namespace[_FRONTEND]
    frontend = dict(data["parser"])
    compact = frontend.pop("parser")
    loaded = {
        "data": {"options": data["options"], "rules": data["rules"], "parser": frontend},
        "memo": dict(enumerate(data["memo"])),
    }
    with _BUILDING:
        # the parse table and the lexer are made when Lark first parses: the compiled matchers
        # read only the rules and terminals, and a short log may never call Lark itself
        namespace[_FRONTEND] = functools.partial(_LazyFrontend, real, lark, compact)
        try:
            lark._load(loaded, transformer=transformer)
        finally:
            namespace[_FRONTEND] = real
    return lark


_FRONTEND = "_deserialize_parsing_frontend"


class _LazyFrontend:
    """A stand-in for a loaded Lark's parsing frontend that makes it on first use."""

    def __init__(
        self, make: Callable[..., Any], lark: Lark, table: dict[str, Any], *args: Any
    ) -> None:
        self._make = make
        self._lark = lark
        self._table = table
        self._args = args

    def __getattr__(self, name: str) -> Any:
        data, *rest = self._args
        frontend = self._make({**data, "parser": _lark_table(self._table)}, *rest)
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
