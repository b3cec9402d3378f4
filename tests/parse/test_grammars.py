"""Every grammar builds in Lark's strict mode, and its compiled matchers agree with it."""

from __future__ import annotations

import pytest

from trtlog.parse.families import FAMILIES
from trtlog.parse.grammar import build_parser, grammar_path, matchers


@pytest.mark.parametrize("family", [f for f in FAMILIES if f.starts], ids=lambda f: f.name)
def test_grammar_builds_strict(family: object) -> None:
    # strict=True rejects shift/reduce conflicts and terminals that collide (a regex that
    # can match what a literal matches), which would make the contextual lexer ambiguous.
    build_parser(family, strict=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_grammar_file_opens_with_versions_comment(family: object) -> None:
    text = grammar_path(family.name).read_text(encoding="utf-8")  # type: ignore[attr-defined]
    assert text.startswith("//"), "a grammar opens with a comment naming its versions"


@pytest.mark.parametrize("family", [f for f in FAMILIES if f.starts], ids=lambda f: f.name)
def test_flat_start_rules_are_compiled(family: object) -> None:
    compiled = matchers(family)  # type: ignore[arg-type]
    assert compiled, "at least the flat start rules compile to matchers"
