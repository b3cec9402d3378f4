"""Every grammar builds in Lark's strict mode, and its compiled matchers agree with it."""

from __future__ import annotations

import pytest

from trtlog.parser.compiled import _groups
from trtlog.parser.families import FAMILIES
from trtlog.parser.family import Family
from trtlog.parser.grammar import build_parser, grammar_path, matchers


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
    compiled = matchers(family).compiled()  # type: ignore[arg-type]
    assert compiled, "at least the flat start rules compile to matchers"
    # each alternative is compiled when first tried; its group numbers are read from the
    # regex text before that, and must be the ones re gives it
    for matcher in compiled.values():
        for spec, (regex, _build, _direct) in zip(
            matcher._specs, matcher.alternatives, strict=True
        ):
            assert regex.pattern == spec.regex, "no alternative's regex is rejected by re"
            assert _groups(spec.regex) == regex.groupindex, spec.regex


def _optimizer() -> Family:
    return next(f for f in FAMILIES if f.name == "optimizer")


MESSAGE = "ConvReluFusion: Fusing conv1 with relu1"


def test_only_strict_builds_run_the_collision_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lark's interegular check is most of a cold build; outside strict mode it only logs."""
    interegular = pytest.importorskip("interegular")
    import lark.lexer

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the collision check ran")

    monkeypatch.setattr(interegular.Comparator, "from_regexes", refuse)
    build_parser(_optimizer())  # no check
    with pytest.raises(AssertionError, match="the collision check ran"):
        build_parser(_optimizer(), strict=True)
    assert lark.lexer.has_interegular is True  # put back after each build
