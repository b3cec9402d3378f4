"""The streaming parser's multi-line constructs (continuations, formats.md T4)."""

from __future__ import annotations

from trtlog import parse_text


def test_construct_that_reaches_max_lines_keeps_its_last_line_once() -> None:
    # autotune's workspace hint continuation has max_lines=1: the hint line closes it
    text = (
        "[01/01/2022-00:00:00] [W] [TRT] Skipping tactic 0 due to insuficient memory on requested"
        " size of 100 detected for tactic 0x0000000000000001.\n"
        "Try decreasing the workspace size with IBuilderConfig::setMemoryPoolLimit().\n"
        "[01/01/2022-00:00:00] [I] done\n"
    )
    build = parse_text(text)
    assert [e.span for e in build.events] == [(1, 2), (3, 3)]
    assert build.events[0].kind == "tactic_skipped_memory"
