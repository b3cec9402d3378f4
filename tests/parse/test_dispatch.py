"""The keyword table: rows for the empty message of a section (``Rule.empty``)."""

from __future__ import annotations

import pytest

from trtlog.parse.dispatch import Dispatcher
from trtlog.parse.family import BaseTransformer, Family, Rule


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
