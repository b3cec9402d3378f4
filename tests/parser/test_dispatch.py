"""The keyword table: rows for the empty message of a section, rows that agree with the grammars."""

from __future__ import annotations

from typing import Any

import pytest

from trtlog.parser.dispatch import Dispatcher
from trtlog.parser.families import FAMILIES
from trtlog.parser.family import BaseTransformer, Family, Rule


def _family(*rules: Rule) -> Family:
    return Family(name="demo", transformer=BaseTransformer, rules=rules)


def test_empty_row_matches_only_the_empty_message_of_its_section() -> None:
    table = Dispatcher(
        [
            _family(
                Rule("block_start", prefix="=== Block ===", enters="block"),
                Rule("block_line", section="block"),
                Rule("block_end", section="block", empty=True, leaves=True),
            )
        ]
    )
    end = table.lookup("", "block")
    assert end is not None and end.rule.start == "block_end"
    line = table.lookup("key: value", "block")
    assert line is not None and line.rule.start == "block_line"
    assert table.lookup("", None) is None
    assert table.lookup("", "other") is None


def test_empty_row_needs_a_section() -> None:
    with pytest.raises(ValueError, match="empty message"):
        Dispatcher([_family(Rule("block_end", empty=True))])
    with pytest.raises(ValueError, match="empty message"):
        Dispatcher([_family(Rule("block_end", section="s", prefix="x", empty=True))])


def test_empty_message_never_goes_to_a_keyword_less_row() -> None:
    table = Dispatcher(
        [
            _family(
                Rule("table_start", prefix="=== Table ===", enters="table"),
                Rule("table_row", section="table"),
            )
        ]
    )
    assert table.lookup("", "table") is None
    row = table.lookup("  1.0  2.0  name", "table")
    assert row is not None and row.rule.start == "table_row"


# -- the keyword rows agree with the grammars ------------------------------------------------


def _leading_literals(family: Family) -> dict[str, list[str | None]]:
    """Start rule → the literal each of its alternatives starts with (``None``: a terminal)."""
    from lark.grammar import NonTerminal, Terminal

    from trtlog.parser.grammar import build_parser

    lark = build_parser(family)
    literals = {t.name: t.pattern.value for t in lark.terminals if t.pattern.type == "str"}
    by_origin: dict[str, list[Any]] = {}
    for rule in lark.rules:
        by_origin.setdefault(rule.origin.name, []).append(rule)

    def leads(origin: str, seen: frozenset[str]) -> list[str | None]:
        out: list[str | None] = []
        for rule in by_origin[origin]:
            first = rule.expansion[0] if rule.expansion else None
            if isinstance(first, NonTerminal) and first.name not in seen:
                out.extend(leads(first.name, seen | {first.name}))
            elif isinstance(first, Terminal):
                out.append(literals.get(first.name))
            else:
                out.append(None)
        return out

    return {start: leads(start, frozenset({start})) for start in family.starts}


def _agrees(prefix: str, literal: str | None) -> bool:
    # a literal the prefix extends into the terminal after it ("Original: " + INT), or a
    # prefix that stops inside the literal ("Applying generic optimizations to the graph");
    # an alternative that starts with a terminal can take any prefix
    return literal is None or literal.startswith(prefix) or prefix.startswith(literal)


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_every_prefix_row_agrees_with_its_grammar(family: Family) -> None:
    """A prefix row can only send a message to a start rule with an alternative that reads it."""
    literals = _leading_literals(family)
    for rule in family.rules:
        if rule.prefix is None:
            continue
        leads = literals[rule.start]
        # leading blanks are the message's (indented dump lines); the grammar sees them too
        assert any(_agrees(rule.prefix, lead) for lead in leads), (
            f"{family.name}: row prefix={rule.prefix!r} -> {rule.start}: no alternative starts "
            f"that way ({leads})"
        )
