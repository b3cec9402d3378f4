"""Rules read typed events, never a line's text; clipped evidence says how many lines matched."""

from __future__ import annotations

import ast
import inspect
import re
from typing import Any

import trtlog
import trtlog.findings.rules.messages as messages
from tests.conftest import FIXTURES
from trtlog.findings.models import Finding

_CACHE_MISS = (
    FIXTURES
    / "fragments"
    / ("int8-disabled-by-integration__clean__deepstream-engine-cache-miss.txt")
)


def _finding(text: str, rule: str) -> Finding | None:
    found = [f for f in trtlog.lint(trtlog.parse_text(text)) if f.rule == rule]
    assert len(found) <= 1
    return found[0] if found else None


def test_the_message_rules_match_no_text() -> None:
    """No regex and no ``in <text>`` test over a line in the message rules' module."""
    tree = ast.parse(inspect.getsource(messages))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "re" not in imported


def test_deepstream_engine_cache_miss_is_read_from_its_events() -> None:
    raw = _CACHE_MISS.read_text(encoding="utf-8")
    printed = len(
        re.findall(
            r"Deserialize engine failed because file path: |deserialize engine from file :", raw
        )
    )
    build = trtlog.parse(_CACHE_MISS)
    events: list[Any] = list(build.events_of("engine_cache_miss"))
    assert [e.stage for e in events] == ["open", "deserialize"]
    assert {e.path for e in events} == {"/opt/app/model_b1_gpu0_int8.engine"}
    (finding,) = [f for f in trtlog.lint(build) if f.rule == "benign-warning"]
    assert f"DeepStream engine cache miss ({printed} times)" in finding.message


def test_a_skipped_tactic_is_benign_when_the_engine_is_built() -> None:
    skip = "[W] [TRT] Skipping tactic 0x0000000000000003 due to exception misaligned address\n"
    built = (
        "[I] [TRT] =============== Computing costs for conv1\n"
        "[V] [TRT] Tactic: 0x0000000000000001 Time: 0.01\n"
        + skip
        + "[I] [TRT] Engine generation completed in 1.5 seconds.\n"
    )
    finding = _finding(built, "benign-warning")
    assert finding is not None and "tactic skipped on an exception (1 times)" in finding.message
    # alone, the skip left its layer without a tactic: the failure's cause, not harmless
    failed = "[I] [TRT] =============== Computing costs for conv1\n" + skip
    finding = _finding(failed, "benign-warning")
    assert finding is None or "tactic skipped" not in finding.message


def test_tactic_memory_skip_counts_every_line_it_matched() -> None:
    n = 73  # more than the 50 lines the evidence keeps
    text = "".join(
        f"[10/18/2023-20:27:{i % 60:02d}] [TRT] [W] Skipping tactic {i} due to insuficient "
        f"memory on requested size of {1000 + i} detected for tactic {i + 1}.\n"
        for i in range(n)
    )
    printed = len(re.findall(r"Skipping tactic \d+ due to insuf+icient memory", text))
    finding = _finding(text, "tactic-memory-skip")
    assert finding is not None
    assert len(finding.evidence.lines) == 50
    assert finding.evidence.line_count == finding.evidence.matched == printed == n
    # the text shows 8 lines and counts the rest of every match (+65), not of those kept (+42)
    assert f"(+{printed - 8})" in finding.to_text()
