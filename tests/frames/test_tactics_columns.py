"""The tactics frame's ``tactic`` and ``tactic_hex`` columns built in bulk (issue 14)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trtlog.buildlog.tactics import _tactic_columns
from trtlog.numbers import format_tactic


@pytest.mark.parametrize(
    "tactics",
    [
        [0, 1002, (1 << 64) - 3, 1 << 63, 0x80000009],
        [0, None, 1002],  # a row without a tactic: the per-value path
        [-3, 5],  # not an unsigned id: the per-value path (format_tactic wraps it)
        [],
    ],
)
def test_hex_texts_in_bulk_equal_format_tactic(tactics: list[int | None]) -> None:
    column, hexes = _tactic_columns(tactics)
    assert hexes == [None if t is None else format_tactic(t) for t in tactics]
    assert list(column) == tactics
    if tactics and None not in tactics and min(t for t in tactics if t is not None) >= 0:
        assert isinstance(column, np.ndarray) and column.dtype == np.uint64


@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2), st.integers(0, 3)), max_size=40),
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 2), st.integers(0, 3), st.integers(0, 50)),
        max_size=12,
    ),
)
def test_marks_looked_up_by_block_are_the_sorted_lookup(
    rows: list[tuple[int, int, int]], marks: list[tuple[int, int, int, int]]
) -> None:
    """The fastest / chosen marks by block number (when each block's marks agree) against
    the general sorted lookup, on blocks with one mark, agreeing marks and disagreeing ones."""
    from trtlog.buildlog import tactics

    r_block = np.array([r[0] for r in rows], dtype=np.int64)
    r_runner = np.array([r[1] for r in rows], dtype=np.int64)
    tactic = np.array([r[2] + (1 << 63) for r in rows], dtype=np.uint64)
    line = np.arange(len(rows), dtype=np.int64) * 2 + 1
    keys = (np.array([m[0] for m in marks], np.int64), np.array([m[1] for m in marks], np.int64))
    mark_tactic = [m[2] + (1 << 63) for m in marks]
    mark_line = [m[3] for m in marks]
    by_block = tactics._marked_by_block(
        (r_block, r_runner), tactic, line, keys, np.array(mark_tactic, np.uint64), mark_line
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tactics, "_marked_by_block", lambda *_args: None)
        general = tactics._marked((r_block, r_runner), tactic, line, keys, mark_tactic, mark_line)
    if by_block is not None:
        assert by_block.tolist() == general.tolist()
    agree: dict[int, set[tuple[int, int]]] = {}
    for m in marks:
        agree.setdefault(m[0], set()).add(m[1:3])
    assert (by_block is not None) == all(len(v) == 1 for v in agree.values()) or not rows
