"""Finding, building and caching the Lark grammars, and the one typed entry point into Lark.

Grammar text lives only in ``grammars/*.lark`` (STYLE.md §6). In a source checkout or an
editable install they are read from the top-level ``grammars/`` folder; in an installed wheel
the build maps that folder to ``trtlog/grammars``, found through :mod:`importlib.resources`.
Each grammar is built once per process (LALR, contextual lexer, its transformer embedded) and
only when a message first needs it.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, cast

from lark import Lark
from lark.exceptions import LarkError

from trtlog.parser import _lark
from trtlog.parser.compiled import CompiledStarts
from trtlog.parser.family import Family, Rule

__all__ = [
    "build_parser",
    "grammar_dir",
    "grammar_path",
    "matchers",
    "parse_message",
    "routed_rules",
    "with_routes",
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


def cache_path(family: Family) -> str | None:
    """Where the analysed grammar of ``family`` is cached, or ``None`` (no caching).

    Building the LALR tables of every family costs seconds (more when ``interegular`` is
    installed: Lark then checks every pair of terminals), so the analysed grammar is pickled
    once per grammar version into the user's cache folder (``$XDG_CACHE_HOME/trtlog`` or
    ``~/.cache/trtlog``, created private), one file per family and grammar folder. Lark
    checks the grammar text, the imported files, its options and its own version against the
    file and rebuilds a stale one. Set ``TRTLOG_GRAMMAR_CACHE=0`` to disable, or to a folder
    to use that folder.
    """
    setting = os.environ.get("TRTLOG_GRAMMAR_CACHE", "")
    if setting == "0":
        return None
    if setting:
        folder = setting
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "trtlog")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return None
    # one file per grammar folder: Lark's check covers the folder's path too, so an installed
    # wheel and a checkout sharing one name would rebuild and overwrite each other's file
    where = hashlib.sha1(str(grammar_dir()).encode(), usedforsecurity=False).hexdigest()[:10]
    return os.path.join(folder, f"{family.name}-{where}.lark-cache")


def build_parser(family: Family, *, strict: bool = False, cache: str | None = None) -> Lark:
    """Build the LALR parser of a family with its transformer embedded.

    Args:
        family: the family whose grammar file and start rules to use.
        strict: build with Lark's ``strict`` mode (no shift/reduce or regex collisions), as
            the test suite does for every grammar.
        cache: a file to load the analysed grammar from, or to save it to (see
            :func:`cache_path`); ``None`` builds from scratch.
    """
    return _lark.build(
        grammar_path(family.name), family.starts, family.transformer(), strict=strict, cache=cache
    )


_PARSERS: dict[str, Lark] = {}
_MATCHERS: dict[str, CompiledStarts] = {}


def _cached_parser(family: Family) -> Lark:
    parser = _PARSERS.get(family.name)
    if parser is None:
        parser = _PARSERS[family.name] = _new_parser(family)
    return parser


def _new_parser(family: Family) -> Lark:
    log.debug("building grammar %s", family.name)
    try:
        return build_parser(family, cache=cache_path(family))
    except LarkError as exc:
        # A grammar that does not build is a bug in trtlog, not bad input: never let it
        # pass for a message that failed to parse.
        raise RuntimeError(f"grammar {family.name}.lark does not build: {exc}") from exc


def matchers(family: Family) -> CompiledStarts:
    """The grammar-compiled matchers of a family's flat start rules (see ``compiled.py``).

    Each rule's matcher is compiled the first time a message asks for it.
    """
    found = _MATCHERS.get(family.name)
    if found is None:
        lark = _cached_parser(family)
        transformer = lark.options.transformer  # Lark's options: what build() passed
        assert transformer is not None, "grammars are built with their transformer embedded"
        found = _MATCHERS[family.name] = CompiledStarts(lark, transformer, family.starts)
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
    parser = _PARSERS.get(family.name) or _cached_parser(family)
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
    found = _lark.leading_literals(_cached_parser(family), family.routed)
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
