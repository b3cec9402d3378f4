"""Checks every message family's tests share: partition, both parse paths agree, blank lines.

A family test module defines its hypothesis ``TEXT`` strategy and calls these from thin test
functions, so each family is checked the same way.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.events import EVENT_CLASSES
from trtlog.parser.source import split_lines
from trtlog.parser.stream import LogParser


def feed_events(text: str, *, compiled: bool) -> list[Any]:
    """Events of ``text`` fed line by line, with or without the grammar-compiled matchers."""
    parser = LogParser(compiled=compiled)
    out: list[Any] = []
    for n, line in enumerate(split_lines(text), 1):
        found = parser.feed(n, line)
        if found is not None:
            out.extend(found if isinstance(found, list) else [found])
    out.extend(parser.close())
    return out


def check_partitions_and_agrees(text: str) -> None:
    """Spans cover every line once, in order; both parse paths give equal, valid events."""
    fast = feed_events(text, compiled=True)
    expected = 1
    for event in fast:
        assert event.span[0] == expected
        expected = event.span[1] + 1
        cls = EVENT_CLASSES[event.kind]
        assert cls.model_validate(event.model_dump()) == event
    assert expected == len(list(split_lines(text))) + 1
    assert feed_events(text, compiled=False) == fast


def multi_line_cases(family: str) -> list[Any]:
    """The fixture cases of ``fixtures/lines/<family>.txt`` that span several lines."""
    out = []
    path = FIXTURES / "lines" / f"{family}.txt"
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        rows = [r for r in block.split("\n") if r and not r.startswith("#")]
        if len(rows) > 2:
            out.append(pytest.param(rows[:-1], json.loads(rows[-1]), id=rows[0][:50]))
    return out


def check_blank_lines_inside(lines: list[str], expected: dict[str, Any]) -> None:
    """formats.md T5: pastes put an empty line between log lines; it never ends a construct."""
    spaced = [line for pair in zip(lines, [""] * len(lines), strict=True) for line in pair][:-1]
    build = trtlog.parse_text("".join(line + "\n" for line in spaced))
    assert len(build.events) == 1
    got = build.events[0].model_dump(mode="json")
    assert got["span"] == [1, len(spaced)]
    assert {**got, "span": expected["span"]} == expected
