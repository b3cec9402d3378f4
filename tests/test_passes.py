"""The pass glossary and the shared pass/removal/Q/DQ definitions (trtlog.passes)."""

from __future__ import annotations

from pathlib import Path

import pytest

import trtlog
from tests.conftest import FIXTURES, corpus_logs
from trtlog.passes import PASS_GLOSSARY, UNKNOWN_PASS, describe_pass, pass_records

LOGS = sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs()


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_pass_and_stage_of_the_logs_is_described(path: Path) -> None:
    build = trtlog.parse(path)
    names = {r["pass_name"] for r in pass_records(build)}
    names |= {e.stage for e in build.events_of("layer_count") if e.stage != "Original"}  # type: ignore[union-attr]
    unknown = sorted(n for n in names if n not in PASS_GLOSSARY)
    assert unknown == []
    frame = build.passes_frame()
    assert (frame["description"] == frame["pass_name"].map(PASS_GLOSSARY)).all()


def test_an_unknown_pass_says_so() -> None:
    head = "[01/10/2024-21:52:53] [V] [TRT] "
    build = trtlog.parse_text(
        f"{head}Running: FancyNewFusion on a\n{head}FancyNewFusion: Fusing a with b\n"
    )
    frame = build.passes_frame()
    assert frame["description"].tolist() == [UNKNOWN_PASS]
    assert "not in trtlog's pass glossary" in UNKNOWN_PASS
    assert describe_pass(None) == UNKNOWN_PASS


def test_descriptions_are_one_line() -> None:
    assert all("\n" not in text and text == text.strip() for text in PASS_GLOSSARY.values())
    assert all(len(text) < 260 for text in PASS_GLOSSARY.values())


def test_the_glossary_page_lists_every_pass() -> None:
    page = (FIXTURES.parent / "docs" / "passes.md").read_text(encoding="utf-8")
    missing = [name for name in PASS_GLOSSARY if f"`{name}`" not in page]
    assert missing == []
