"""Hostile lines and names of 100,000 characters: parsed losslessly, split without error.

That their cost grows linearly with their length is measured by ``bench/linear_time.py``.
"""

from __future__ import annotations

import pytest

import trtlog
from tests.fuzz.hostile import HOSTILE_LINES, NAMES
from trtlog.names import parse_kernel_name, split_name

LENGTH = 100_000


@pytest.mark.parametrize("case", sorted(HOSTILE_LINES))
def test_a_hostile_line_parses_losslessly(case: str) -> None:
    text = HOSTILE_LINES[case](LENGTH) + "\n"
    build = trtlog.parse_text(text)
    assert build.to_text() == text
    for event in build.events:
        event.names()


@pytest.mark.parametrize("case", sorted(NAMES))
def test_a_hostile_name_splits_into_its_own_parts(case: str) -> None:
    name = NAMES[case](LENGTH)
    assert all(member in name for member in split_name(name).members())
    kernel = parse_kernel_name(name)
    assert kernel is None or kernel.name == name


def test_deep_nesting_is_bounded_not_a_recursion_error() -> None:
    """The first probe: ``PWN(`` 500 deep raised RecursionError (4.8 KB of name)."""
    name = "PWN(" * 500 + "a" + ")" * 500
    parts = split_name(name)
    assert parts.op == "pointwise"
    text = f"[V] [TRT] Fusing {name} with b\n"
    build = trtlog.parse_text(text)
    for event in build.events:
        event.names()
    build.merge_graph()
