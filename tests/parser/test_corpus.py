"""Every real log of ../shared/corpus (skipped when the folder is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

import trtlog
from tests.conftest import corpus_logs, needs_corpus
from trtlog.events import EVENT_CLASSES
from trtlog.parser.source import open_lines
from trtlog.parser.stream import LogParser

LOGS = corpus_logs()
pytestmark = needs_corpus


def _lines(path: Path) -> list[str]:
    return list(open_lines(path).lines)


@pytest.fixture(scope="module")
def builds() -> dict[Path, trtlog.Build]:
    return {path: trtlog.parse(path) for path in LOGS}


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_lossless_and_spans_partition(path: Path, builds: dict[Path, trtlog.Build]) -> None:
    build = builds[path]
    assert build.to_text() == "".join(_lines(path))
    expected = 1
    for event in build.events:
        first, last = event.span
        assert first == expected, f"{event.kind} at {event.span}, expected line {expected}"
        assert last >= first
        expected = last + 1
    assert expected == len(build.lines) + 1


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_compiled_matchers_agree_with_lark(path: Path, builds: dict[Path, trtlog.Build]) -> None:
    lark_only = list(LogParser(compiled=False).run(_lines(path)))
    fast = builds[path].events
    assert len(lark_only) == len(fast)
    for a, b in zip(fast, lark_only, strict=True):
        assert a == b, f"line {a.span[0]}: compiled {a!r} != lark {b!r}"


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_event_revalidates(path: Path, builds: dict[Path, trtlog.Build]) -> None:
    for event in builds[path].events:
        cls = EVENT_CLASSES[event.kind]
        assert cls.model_validate(event.model_dump()) == event
