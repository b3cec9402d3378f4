"""The scanner's number bound: a number of more than 16 digits never makes a line hot.

A hot row's numbers go into 64-bit columns; the line parser makes a tactic past 64 bits
``unrecognized`` (issue 18). The scanner bounds each digit run of its shapes to 16 digits
(no per-piece check of the text) and keeps the older guard for a set of shapes one of
whose literals is a prefix of another's.
"""

from __future__ import annotations

import re

import pytest

from trtlog.buildlog.model import SourceMeta
from trtlog.buildlog.parsing import build_of_text
from trtlog.buildlog.store import EventStore
from trtlog.parser.scanner import _alternation, _bounded, _prefix_free
from trtlog.parser.source import iter_lines

_V = "[01/10/2024-21:52:52] [V] [TRT] "


def test_bounded_rewrites_the_digit_runs_and_nothing_else() -> None:
    tactic = r"(?>0x[0-9a-fA-F]+|-?\d+)"
    assert _bounded(tactic) == r"(?>0x[0-9a-fA-F]{1,16}(?![0-9a-fA-F])|-?\d{1,16}(?!\d))"
    assert _bounded(r"\d*\.[0-9]+") == r"\d{0,16}(?!\d)\.[0-9]{1,16}(?![0-9])"
    # an escaped backslash before d, lazy and possessive runs, classes with letters: as they were
    untouched = r"\\d+ [0-9]+? \d++ [A-Za-z0-9_]+ [^\]0-9]+ x+"
    assert _bounded(untouched) == untouched
    assert _bounded(r"\\\d+") == r"\\\d{1,16}(?!\d)"


@pytest.mark.parametrize(
    "number",
    ["1", "1234567890123456", "12345678901234567", "1" * 40],
)
def test_a_bounded_run_captures_what_the_unbounded_one_captures(number: str) -> None:
    regex = r"Tactic: (?P<t>-?\d+) Time: (?P<s>\d+\.?\d*)"
    line = f"Tactic: {number} Time: 0.{number}"
    unbounded = re.fullmatch(regex, line)
    bounded = re.fullmatch(_bounded(regex), line)
    assert unbounded is not None
    if len(number) <= 16:
        assert bounded is not None and bounded.groupdict() == unbounded.groupdict()
    else:
        assert bounded is None


def _lazy_and_eager(text: str) -> tuple[EventStore, list[object], list[object]]:
    meta = SourceMeta(name="<t>")
    lazy = build_of_text(text, meta, strict=False)
    eager = build_of_text(text, meta, strict=False, lines=iter_lines(text))
    store = lazy.__dict__.get("_store")
    assert isinstance(store, EventStore), "the build did not come from the scanner"
    return store, list(lazy.events), list(eager.events)


def test_long_numbers_are_left_to_the_line_parser_long_names_stay_hot() -> None:
    """Numbers past 16 digits are not hot; a name holding 19 hex digits is (and the same)."""
    tactic = _V + "Tactic: 0x{:016x} Time: 0.5\n"
    lines = [tactic.format(i) for i in range(40)]
    lines[10] = _V + "Tactic: 0x1000000000000003e8 Time: 0.5\n"  # 18 hex digits: unrecognized
    lines[11] = _V + "Tactic: 12345678901234567 Time: 0.5\n"  # 17 digits: fits, not hot
    lines[12] = _V + "Tactic: 1 Time: 0.12345678901234567890\n"  # a long fraction
    lines[13] = _V + "Tactic: 0x00000000000000000001 Time: 0.5\n"  # 20 hex digits, small value
    for i in range(30, 36):  # (a shape is hot from 4 lines of a sample)
        lines[i] = _V + f"Tactic Name: k0123456789abcdef01{i} Tactic: 0x{i} Time: 0.5\n"
    text = "".join(lines)
    store, lazy, eager = _lazy_and_eager(text)
    assert lazy == eager
    kinds = [e.kind for e in lazy[10:14]]  # type: ignore[attr-defined]
    assert kinds == ["unrecognized"] + ["tactic_timing"] * 3
    assert lazy[11].tactic == 12345678901234567  # type: ignore[attr-defined]
    assert lazy[30].tactic_name == "k0123456789abcdef0130"  # type: ignore[attr-defined]
    hot = {rows.shape.literal: list(rows.lines) for rows in (h.rows for h in store._hot)}
    assert not {11, 12, 13, 14} & set(hot["Tactic: "])  # (line numbers count from 1)
    assert len(hot["Tactic: "]) == 40 - 10
    assert hot["Tactic Name: "] == list(range(31, 37))


def test_shapes_with_a_literal_prefix_of_another_keep_the_guard() -> None:
    from trtlog.parser.compiled import Shape

    def shape(literal: str) -> Shape:
        return Shape(literal, re.escape(literal) + r"(?P<g1>\d+)", ("g1",), None, None, ())  # type: ignore[arg-type]

    free = (shape("Tactic: "), shape("Tactic Name: "))
    clash = (shape("Tactic "), shape("Tactic Name: "))
    assert _prefix_free(free) and not _prefix_free(clash)
    guard = "[0-9A-Fa-f]{17}"
    assert guard not in _alternation(free)[0].pattern
    assert "{1,16}" in _alternation(free)[0].pattern
    assert guard in _alternation(clash)[0].pattern
    assert guard not in _alternation(clash, False)[0].pattern
