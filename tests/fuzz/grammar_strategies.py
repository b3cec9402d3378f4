"""Hypothesis strategies of messages shaped by trtlog's own grammars (hypothesis.extra.lark).

Each family's grammar is built fresh (the cached parsers do not keep the grammar that
``from_lark`` reads). Terminals with lookarounds or possessive repeats, which hypothesis'
regex strategy does not support, are generated from the same pattern without them: the
strings are then near-misses as often as matches, which is what a fuzzer wants.
"""

from __future__ import annotations

import functools
import re

from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from trtlog.parser.families import FAMILIES
from trtlog.parser.grammar import grammar_path

__all__ = ["ENVELOPES", "FAMILY_NAMES", "grammar_message", "grammar_text"]

_LOOKAROUND = re.compile(r"\(\?(?:=|!|<=|<!)(?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\)")

#: The families whose grammars generate messages.
FAMILY_NAMES: tuple[str, ...] = tuple(f.name for f in FAMILIES)

#: Envelopes a message is printed with (formats.md §1).
ENVELOPES = (
    "[01/10/2024-21:52:52] [V] [TRT] ",
    "[01/10/2024-21:52:52] [I] [TRT] ",
    "[01/10/2024-21:52:52] [I] ",
    "[W] [TRT] ",
    "[E] ",
    "[TensorRT] VERBOSE: ",
    "",
)


def _simplified(regexp: str) -> str:
    text = _LOOKAROUND.sub("", regexp)
    text = text.replace("*+", "*").replace("++", "+").replace("?+", "?")
    return text.replace("(?>", "(?:")


_ANY = "fuzz_any_start"


@functools.cache
def _family(name: str) -> tuple[Lark, dict[str, st.SearchStrategy[str]], dict[str, set[str]]]:
    family = next(f for f in FAMILIES if f.name == name)
    # one rule over every start rule, so that hypothesis compiles the grammar once per family
    # (from_lark compiles it per strategy); Earley, since the union is ambiguous for LALR
    path = grammar_path(name)
    text = path.read_text(encoding="utf-8") + f"\n{_ANY}: " + " | ".join(family.starts) + "\n"
    lark = Lark(
        text, parser="earley", start=_ANY, import_paths=[str(path.parent)], source_path=str(path)
    )
    explicit: dict[str, st.SearchStrategy[str]] = {}
    for t in lark.terminals:
        if t.pattern.type != "re":
            continue
        flags = 0
        for flag in t.pattern.flags:
            flags |= getattr(re, flag.upper())
        explicit[t.name] = st.from_regex(
            re.compile(_simplified(t.pattern.to_regexp()), flags), fullmatch=True
        )
    rules: dict[str, list[list[tuple[bool, str]]]] = {}
    for rule in lark.rules:
        rules.setdefault(rule.origin.name, []).append(
            [(sym.is_term, sym.name) for sym in rule.expansion]
        )
    reach: dict[str, set[str]] = {}
    for start in (*family.starts, _ANY):
        seen: set[str] = set()
        todo = [start]
        terms: set[str] = set()
        while todo:
            origin = todo.pop()
            if origin in seen:
                continue
            seen.add(origin)
            for expansion in rules.get(origin, []):
                for is_term, sym in expansion:
                    (terms.add if is_term else todo.append)(sym)
        reach[start] = terms
    return lark, explicit, reach


@functools.cache
def grammar_message(family: str) -> st.SearchStrategy[str]:
    """Messages generated from any start rule of one family's grammar."""
    lark, explicit, reach = _family(family)
    used = {k: v for k, v in explicit.items() if k in reach[_ANY]}
    return from_lark(lark, start=_ANY, explicit=used)


@st.composite
def grammar_text(draw: st.DrawFn, most: int = 6) -> str:
    """A few enveloped lines, each a message of a random start rule."""
    lines = []
    for _ in range(draw(st.integers(1, most))):
        family = draw(st.sampled_from(FAMILY_NAMES))
        message = draw(grammar_message(family))
        envelope = draw(st.sampled_from(ENVELOPES))
        lines.append(envelope + message + draw(st.sampled_from(("\n", "\r\n", "\r", ""))))
    return "".join(lines)
