"""The evidence count says how many lines matched, not how many the finding kept.

A Jetson log repeats ``Unknown embedded device detected. Using <n>MiB ...`` once per engine
it builds or loads (586 times in the log the issue quotes, which ../shared/corpus does not
hold). The test repeats the real line of ``fixtures/fragments/`` (DeepStream on Orin) that
many times, with other lines between, and reads the count back from the text.
"""

from __future__ import annotations

import re

import trtlog
from tests.conftest import FIXTURES
from trtlog.events import EmbeddedMemoryCap, Unrecognized

JETSON = FIXTURES / "fragments" / "benign-warning__fire__deepstream-orin-startup.txt"
CAP = re.compile(r"Unknown embedded device detected\. Using (\d+) ?MiB as the allocation cap")


def _log(times: int) -> str:
    real = JETSON.read_text(encoding="utf-8").splitlines()
    cap = next(line for line in real if CAP.search(line))
    other = [line for line in real if not CAP.search(line)]
    return "".join(f"{cap}\n{other[i % len(other)]}\n" for i in range(times))


def test_the_memory_cap_is_an_event() -> None:
    text = _log(3)
    build = trtlog.parse_text(text)
    caps = build.of(EmbeddedMemoryCap)
    assert [e.cap_mib for e in caps] == [int(m) for m in CAP.findall(text)]
    assert not [e for e in build.of(Unrecognized) if "Unknown embedded device" in e.message]


def test_benign_warning_counts_every_matched_line() -> None:
    text = _log(586)
    matched = len(CAP.findall(text))
    assert matched == 586
    build = trtlog.parse_text(text)
    (f,) = [x for x in trtlog.lint(build) if x.rule == "benign-warning"]
    assert f"unknown embedded device ({matched} times)" in f.message
    ev = f.evidence
    assert len(ev.lines) < matched  # the finding keeps the first lines only ...
    total = int(f.subject.split()[0])  # ... and its count is of every harmless line
    assert ev.matched == total >= matched
    refs = f.to_text()
    assert f"(+{total - 8})" in refs
    assert "(+42)" not in refs


def test_a_finding_that_keeps_every_line_counts_them() -> None:
    """Without a cut, the count is the number of lines (no line_count stored)."""
    build = trtlog.parse_text(_log(2))
    (f,) = [x for x in trtlog.lint(build) if x.rule == "benign-warning"]
    assert f.evidence.line_count is None
    assert f.evidence.matched == len(f.evidence.lines)
