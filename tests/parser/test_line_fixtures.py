"""The line-family fixtures: fixtures/lines/<family>.txt, one real line then its event as JSON.

Each case is a line (with its envelope, as a log shows it), then on the next line the event it
must produce, as JSON (``model_dump(mode="json")``). Cases are separated by a blank line.
Lines starting with ``#`` before a case are comments. Every case is parsed twice: with the
grammar-compiled matchers and with Lark alone; both must give the expected event.

A case may hold several lines: the lines of one multi-line message (one event), or context
lines before the line under test, such as the header that opens the section its keyword rows
need (``=== Build Options ===`` before an option line). The expected JSON is the event that
ends on the last line; every context line must give a recognised event of its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from trtlog.events import EVENT_CLASSES
from trtlog.parser.stream import LogParser


def _cases() -> list[Any]:
    out = []
    for path in sorted((FIXTURES / "lines").glob("*.txt")):
        blocks = path.read_text(encoding="utf-8").split("\n\n")
        for block in blocks:
            rows = [r for r in block.split("\n") if r and not r.startswith("#")]
            if not rows:
                continue
            assert len(rows) >= 2, f"{path.name}: a case needs a line and its JSON: {rows!r}"
            *lines, expected = rows
            out.append(pytest.param(lines, json.loads(expected), id=f"{path.stem}:{lines[0][:60]}"))
    return out


CASES = _cases()


def _parse(lines: list[str], *, compiled: bool) -> list[Any]:
    # feed/close rather than run(): a fixture may hold only foreign lines, which run()
    # refuses as "not a TensorRT log".
    parser = LogParser(compiled=compiled)
    out: list[Any] = []
    for n, line in enumerate(lines, 1):
        found = parser.feed(n, line + "\n")
        if found is not None:
            out.extend(found if isinstance(found, list) else [found])
    out.extend(parser.close())
    return out


@pytest.mark.parametrize(("lines", "expected"), CASES)
def test_line_gives_its_event(lines: list[str], expected: dict[str, Any]) -> None:
    for compiled in (True, False):
        events = _parse(lines, compiled=compiled)
        assert events and events[-1].span[1] == len(lines), [e.kind for e in events]
        context = [e.kind for e in events[:-1] if e.kind == "unrecognized"]
        assert not context, f"context lines must be recognised: {[e.kind for e in events]}"
        assert events[-1].model_dump(mode="json") == expected, f"compiled={compiled}"


@pytest.mark.parametrize(("lines", "expected"), CASES)
def test_fixture_event_validates(lines: list[str], expected: dict[str, Any]) -> None:
    cls = EVENT_CLASSES[expected["kind"]]
    assert cls.model_validate(expected).model_dump(mode="json") == expected


def test_every_event_kind_has_a_fixture_line() -> None:
    covered = {case.values[1]["kind"] for case in CASES}
    missing = sorted(set(EVENT_CLASSES) - covered)
    assert not missing, f"event kinds without a line in fixtures/lines: {missing}"


def test_fixture_files_are_named_after_families() -> None:
    from trtlog.parser.families import FAMILIES

    names = {f.name for f in FAMILIES} | {"envelopes"}
    for path in (FIXTURES / "lines").glob("*.txt"):
        assert path.stem in names, f"{path.name}: name it after a family ({sorted(names)})"


def test_fixture_dir_exists() -> None:
    assert Path(FIXTURES / "lines").is_dir()
