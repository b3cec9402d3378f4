"""Fragments inside whole logs: a collapsed profile row within a real ``--dumpProfile`` table.

A web page collapses the blank runs of a pasted table; inside a real ``=== Profile`` section
the section's row rule rejects such a row (its grammar expects trtexec's spacing), and the
line parser then reads it as a header-less row (``LogParser._fragment``). ``trtlog.parse``
defers one-line messages (``Deferred``); parsing one later must give the same event, and
asking the store for profile rows only must build it too.
"""

from __future__ import annotations

import re

import trtlog
from tests.conftest import CORPUS, needs_corpus
from trtlog.events import ProfileRow

DUMP = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log"
ROW = "node_conv2d_1_myl3_1"


def _collapsed_log() -> tuple[str, int]:
    """The corpus run log with one profile row's blank runs collapsed to one blank."""
    lines = DUMP.read_text(encoding="utf-8").splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if line.rstrip().endswith(ROW))
    envelope, message = lines[n].split("[I] ", 1)
    lines[n] = f"{envelope}[I] {re.sub(r' +', ' ', message.strip())}\n"
    assert lines[n].endswith("[I] 209.98 0.0114 0.0113 13.7 node_conv2d_1_myl3_1\n")
    return "".join(lines), n + 1


@needs_corpus
def test_a_collapsed_row_inside_a_profile_table_is_a_profile_row_when_parsed_lazily() -> None:
    text, line = _collapsed_log()
    eager = {e.span[0]: e for e in trtlog.iter_events(text.splitlines(keepends=True))}
    lazy = trtlog.parse_text(text)
    assert lazy.unrecognized == []
    (row,) = [e for e in lazy.events if e.span == (line, line)]
    assert row == eager[line]
    assert isinstance(row, ProfileRow)
    # the figures are the raw line's (209.98 0.0114 0.0113 13.7 node_conv2d_1_myl3_1)
    assert (row.layer, row.total_ms, row.avg_ms, row.median_ms, row.percent) == (
        ROW,
        209.98,
        0.0114,
        0.0113,
        13.7,
    )
    # the whole table: 15 layer rows and the total, the collapsed one among them
    rows = lazy.of(ProfileRow)
    assert [r.layer for r in rows].count(ROW) == 1 and len(rows) == 16


@needs_corpus
def test_asking_only_for_profile_rows_builds_the_collapsed_one() -> None:
    text, line = _collapsed_log()
    fresh = trtlog.parse_text(text)  # nothing built yet: the store answers by kind
    rows = fresh.of(ProfileRow)
    assert any(r.span == (line, line) and r.layer == ROW for r in rows)
    assert len(rows) == 16
