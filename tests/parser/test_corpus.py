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
WHOLE = corpus_logs(whole=True)  # as they are: no run of program output cut (conftest)
pytestmark = needs_corpus


def _lines(path: Path) -> list[str]:
    return list(open_lines(path).lines)


@pytest.fixture(scope="module")
def builds() -> dict[Path, trtlog.Build]:
    return {path: trtlog.parse(path) for path in LOGS}


@pytest.mark.parametrize("path", WHOLE, ids=lambda p: p.name)
def test_lossless_and_spans_partition(path: Path, builds: dict[Path, trtlog.Build]) -> None:
    build = builds[path] if path in builds else trtlog.parse(path)
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


def test_the_logs_as_tests_see_them_keep_every_tensorrt_line() -> None:
    """conftest cuts only long runs of one shape of program output, nothing else."""
    from tests.conftest import NOISE_KEEP, NOISE_RUN

    cut = 0
    for trimmed, whole in zip(LOGS, WHOLE, strict=True):
        assert trimmed.name == whole.name
        if trimmed == whole:
            continue
        cut += 1
        kept = trimmed.read_bytes().splitlines()
        lines = whole.read_bytes().splitlines()
        assert [x for x in kept if x.startswith(b"[")] == [x for x in lines if x.startswith(b"[")]
        assert set(kept) <= set(lines)
        assert len(lines) - len(kept) > NOISE_RUN
        assert len(kept) >= 2 * NOISE_KEEP
        assert trtlog.parse(trimmed).counts().keys() == trtlog.parse(whole).counts().keys()
    assert cut <= 2  # (one log of the corpus holds such a run today)
