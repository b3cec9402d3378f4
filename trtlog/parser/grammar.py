"""Finding the grammars and their tables, and the one typed entry point into Lark.

Grammar text lives only in ``grammars/*.lark`` (STYLE.md §6). In a source checkout or an
editable install they are read from the top-level ``grammars/`` folder; in an installed wheel
the build maps that folder to ``trtlog/grammars``, found through :mod:`importlib.resources`.

Next to them, ``tables/<family>.jsonl`` holds what trtlog reads of each built grammar: the
literals its routed start rules start with, the alternatives of its flat start rules (what
the compiled matchers are generated from, ``compiled.py``) and Lark's analysis (rules,
terminals, LALR table: :func:`trtlog.parser._lark.serialize`). Plain JSON, made from the
grammars by ``python -m trtlog.parser.grammar`` and shipped with the package, so that the
first run on a machine is as fast as any other; ``tests/parser/test_grammar_tables.py``
fails when they are out of date. trtlog never writes them while it runs: a table made from
other grammars, start rules or a Lark of another serialization format is not read, and the
grammar is built in memory instead (logged at DEBUG). Each table is read once per process and
only when a message first needs it; Lark's part of it only when a message needs Lark.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple, cast

from lark import Lark
from lark.exceptions import LarkError

from trtlog.parser import _lark
from trtlog.parser.compiled import Alternative, CompiledStarts, alternatives
from trtlog.parser.family import Family, Rule

__all__ = [
    "build_parser",
    "cached_parser",
    "grammar_dir",
    "grammar_path",
    "make_table",
    "matchers",
    "parse_message",
    "routed_rules",
    "table_path",
    "table_text",
    "tables_dir",
    "with_routes",
    "write_tables",
]

log = logging.getLogger(__name__)


@cache
def grammar_dir() -> Path:
    """The folder that holds the ``.lark`` files.

    Raises:
        FileNotFoundError: neither the installed copy nor the checkout's folder exists.
    """
    packaged = resources.files("trtlog").joinpath("grammars")
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[2] / "grammars"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        "trtlog cannot find its grammar files (trtlog/grammars in a wheel, grammars/ in a "
        "checkout); reinstall trtlog"
    )


def grammar_path(name: str) -> Path:
    """The path of ``grammars/<name>.lark``."""
    return grammar_dir() / f"{name}.lark"


def tables_dir() -> Path:
    """The folder of the grammar tables (``tables/`` next to the ``.lark`` files)."""
    return grammar_dir() / "tables"


def build_parser(family: Family, *, strict: bool = False) -> Lark:
    """Build the LALR parser of a family from its grammar, with its transformer embedded.

    Args:
        family: the family whose grammar file and start rules to use.
        strict: build with Lark's ``strict`` mode (no shift/reduce or regex collisions), as
            the test suite does for every grammar.
    """
    path = grammar_path(family.name)
    return _lark.build(path, family.starts, family.transformer(), strict=strict)


# -- the grammar tables ------------------------------------------------------------------

#: The version of the tables' own layout: a change of what :func:`make_table` writes bumps it.
TABLES_FORMAT = 1


@cache
def _grammars_digest() -> str:
    """A digest of every grammar file (a family's grammar imports ``common.lark``)."""
    digest = hashlib.sha256()
    for path in sorted(grammar_dir().glob("*.lark")):
        text = path.read_bytes().replace(b"\r\n", b"\n")  # a checkout with CRLF line ends
        digest.update(path.name.encode() + b"\0" + text + b"\0")
    return digest.hexdigest()


def _stamp(family: Family) -> dict[str, Any]:
    """What a family's table must have been made from: grammars, start rules, formats."""
    return {
        "family": family.name,
        "format": TABLES_FORMAT,
        "grammars": _grammars_digest(),
        "lark_format": _lark.serial_format(),
        "routed": list(family.routed),
        "starts": list(family.starts),
    }


class _Table(NamedTuple):
    """What trtlog reads of a family's built grammar.

    Attributes:
        routes: the literal each alternative of a routed start rule starts with
            (:func:`trtlog.parser._lark.leading_literals`).
        alternatives: the :data:`~trtlog.parser.compiled.Alternative` s of each start rule
            (``None``: not flat).
        lark: Lark's analysis (:func:`trtlog.parser._lark.serialize`) as JSON, decoded when a
            message first needs Lark, or the parser itself, built in memory.
    """

    routes: dict[str, tuple[str | None, ...]]
    alternatives: dict[str, list[Alternative] | None]
    lark: bytes | Lark


def make_table(family: Family, lark: Lark | None = None) -> dict[str, Any]:
    """The table of ``family`` (plain data: what :func:`table_text` writes), from its grammar.

    Args:
        family: the family.
        lark: its parser, built from its grammar (built here when not given).
    """
    if lark is None:
        lark = build_parser(family)
    return {
        "stamp": _stamp(family),
        "derived": _derive(family, lark),
        "lark": _lark.serialize(lark),
    }


def _derive(family: Family, lark: Lark) -> dict[str, Any]:
    """What the keyword table and the compiled matchers read of ``family``'s grammar."""
    return {
        "alternatives": alternatives(lark, family.starts),
        "routes": _lark.leading_literals(lark, family.routed),
    }


def table_text(table: dict[str, Any]) -> str:
    """A table as the text of its file (canonical: the same grammar gives the same text).

    JSON Lines: one record each of ``stamp``, ``derived`` and ``lark``, so that a process
    decodes Lark's part only when a message needs Lark.
    """
    return "".join(
        json.dumps(table[key], sort_keys=True, separators=(",", ":")) + "\n" for key in _RECORDS
    )


_RECORDS = ("stamp", "derived", "lark")


def table_path(family: Family) -> Path:
    """The file of a family's table."""
    return tables_dir() / f"{family.name}.jsonl"


def _read_table(family: Family) -> _Table | None:
    """The family's table from its file, or ``None`` (the reason logged at DEBUG).

    ``None`` when the file is missing or was made from other grammars, start rules or formats.
    """
    path = table_path(family)
    try:
        stamp, derived, lark = path.read_bytes().split(b"\n", 2)
        found = json.loads(stamp)
        expected = _stamp(family)
        if found != expected:
            changed = sorted(k for k in expected if found.get(k) != expected[k])
            log.debug("the grammar table %s is out of date (%s)", path, ", ".join(changed))
            return None
        return _table_of(json.loads(derived), lark)
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        log.debug("no grammar table %s (%s: %s)", path, type(exc).__name__, exc)
        return None


def _table_of(derived: dict[str, Any], lark: bytes | Lark) -> _Table:
    routes = {start: tuple(leads) for start, leads in derived["routes"].items()}
    return _Table(routes, derived["alternatives"], lark)


_TABLES: dict[str, _Table] = {}


def _table(family: Family) -> _Table:
    """The family's table: from its file, else made in memory from its grammar.

    Nothing is written: the tables are written by ``python -m trtlog.parser.grammar``.
    """
    table = _TABLES.get(family.name)
    if table is None:
        table = _read_table(family)
        if table is None:
            log.debug("building grammar %s in memory", family.name)
            lark = _built(family)
            table = _table_of(_derive(family, lark), lark)
        _TABLES[family.name] = table
    return table


def _built(family: Family) -> Lark:
    try:
        return build_parser(family)
    except LarkError as exc:
        # A grammar that does not build is a bug in trtlog, not bad input: never let it
        # pass for a message that failed to parse.
        raise RuntimeError(f"grammar {family.name}.lark does not build: {exc}") from exc


def write_tables(folder: Path | None = None) -> list[Path]:
    """Write the table of every family into ``folder`` (default: :func:`tables_dir`).

    Tables of no family are removed. Returns the files written.
    """
    from trtlog.parser.families import FAMILIES

    folder = tables_dir() if folder is None else folder
    folder.mkdir(exist_ok=True)
    written = []
    for family in FAMILIES:
        if family.starts:
            path = folder / f"{family.name}.jsonl"
            path.write_text(table_text(make_table(family)), encoding="utf-8", newline="\n")
            written.append(path)
    for path in folder.glob("*.jsonl"):
        if path not in written:
            path.unlink()
    return written


_PARSERS: dict[str, Lark] = {}
_MATCHERS: dict[str, CompiledStarts] = {}


def cached_parser(family: Family) -> Lark:
    """The Lark parser of a grammar family, read from its table (or built) once."""
    parser = _PARSERS.get(family.name)
    if parser is None:
        table = _table(family)
        if isinstance(table.lark, Lark):
            parser = table.lark
        else:
            log.debug("loading grammar %s from its table", family.name)
            parser = _lark.deserialize(json.loads(table.lark), family.transformer())
        _PARSERS[family.name] = parser
    return parser


def matchers(family: Family) -> CompiledStarts:
    """The grammar-compiled matchers of a family's flat start rules (see ``compiled.py``).

    Each rule's matcher is compiled the first time a message asks for it; no Lark parser is
    loaded for them.
    """
    found = _MATCHERS.get(family.name)
    if found is None:
        # the transformer holds no state: the parser's own instance behaves the same
        found = CompiledStarts(family.transformer(), family.starts, _table(family).alternatives)
        _MATCHERS[family.name] = found
    return found


def parse_message(
    family: Family, start: str, text: str, *, compiled: bool = True
) -> dict[str, Any]:
    """Parse one message with a family's grammar from ``start``; return the event fields.

    Args:
        family: the family whose grammar to use.
        start: the start rule.
        text: the message (lines joined by ``\\n`` for a multi-line message).
        compiled: try the grammar-compiled matcher first (``False`` forces the LALR parser,
            which the consistency tests compare against).

    Raises:
        lark.exceptions.LarkError: the message does not match the grammar.
    """
    if compiled:
        table = _MATCHERS.get(family.name)
        if table is None:
            table = matchers(family)
        matcher = table.get(start)
        if matcher is not None:
            found = matcher.match(text)
            if found is not None:
                return cast(dict[str, Any], found)
    parser = _PARSERS.get(family.name) or cached_parser(family)
    result = parser.parse(text, start=start)
    # Released lark types parse() as returning a Tree; with the transformer embedded it
    # returns what the start rule's transformer method returned: the event fields.
    return cast(dict[str, Any], result)


def routed_rules(family: Family) -> tuple[Rule, ...]:
    """The keyword rows of a family's routed start rules (:attr:`Family.routed`).

    One prefix row per literal an alternative starts with, unless a hand-written row of the
    same start rule covers it (its prefix is the literal's beginning, or the literal the
    prefix's).

    Raises:
        ValueError: a routed start rule that no row would reach (no alternative starts with a
            literal): it needs a hand-written row.
    """
    if not family.routed:
        return ()
    found = _table(family).routes
    rows: list[Rule] = []
    for start in family.routed:
        own = [r.prefix for r in family.rules if r.start == start and r.prefix is not None]
        made = [
            Rule(start, prefix=literal)
            for literal in dict.fromkeys(text for text in found[start] if text)
            if not any(literal.startswith(p) or p.startswith(literal) for p in own)
        ]
        if not made and not own:
            raise ValueError(
                f"{family.name}: routed start rule {start!r} starts with no literal; give it a "
                "keyword row in the family's rules"
            )
        rows += made
    return tuple(rows)


def with_routes(family: Family) -> Family:
    """``family`` with the rows of its routed start rules after its own (the keyword table's)."""
    if not family.routed:
        return family
    return replace(family, rules=family.rules + routed_rules(family))


def main() -> None:
    """Write the grammar tables of the grammars trtlog finds (after a grammar changed)."""
    for path in write_tables():
        print(path)


if __name__ == "__main__":
    main()
