"""The tactics frame's ``tactic`` and ``tactic_hex`` columns built in bulk (issue 14)."""

from __future__ import annotations

import numpy as np
import pytest

from trtlog.frames.events import _tactic_columns
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
