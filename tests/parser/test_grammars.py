"""Every grammar builds in Lark's strict mode, and its compiled matchers agree with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trtlog.parser.compiled import _groups
from trtlog.parser.families import FAMILIES
from trtlog.parser.family import Family
from trtlog.parser.grammar import build_parser, cache_path, grammar_path, matchers


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


def test_a_cached_grammar_parses_like_a_fresh_one(tmp_path: Path) -> None:
    family = _optimizer()
    cache = str(tmp_path / "optimizer.lark-cache")
    fresh = build_parser(family)
    saved = build_parser(family, cache=cache)  # builds and saves
    assert Path(cache).stat().st_size > 0
    loaded = build_parser(family, cache=cache)  # loads
    assert loaded.rules and len(loaded.rules) == len(fresh.rules)
    # a loaded parser makes its parse table and lexer when it first parses (start-up)
    assert type(loaded.parser).__name__ == "_LazyFrontend"
    for parser in (saved, loaded):
        assert parser.parse(MESSAGE, start="fusion") == fresh.parse(MESSAGE, start="fusion")
    assert type(loaded.parser) is type(fresh.parser)
    assert loaded.parse(MESSAGE, start="fusion") == fresh.parse(MESSAGE, start="fusion")


def test_a_corrupt_cache_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "optimizer.lark-cache"
    cache.write_bytes(b"not a pickle")
    parser = build_parser(_optimizer(), cache=str(cache))
    assert parser.parse(MESSAGE, start="fusion")["first"] == "conv1"  # type: ignore[index]


def test_cache_path_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", "0")
    assert cache_path(_optimizer()) is None
    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", str(tmp_path / "c"))
    path = cache_path(_optimizer())
    assert path is not None and Path(path).parent == tmp_path / "c"
    assert re.fullmatch(r"optimizer-[0-9a-f]{10}\.lark-cache", Path(path).name)
    monkeypatch.delenv("TRTLOG_GRAMMAR_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    path = cache_path(_optimizer())
    assert path is not None and path.startswith(str(tmp_path / "xdg" / "trtlog"))
    assert (tmp_path / "xdg" / "trtlog").stat().st_mode & 0o077 == 0  # private
    blocked = tmp_path / "file"
    blocked.write_text("x")
    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", str(blocked / "sub"))  # cannot be created
    assert cache_path(_optimizer()) is None


def test_cache_file_differs_per_grammar_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed wheel and a checkout must not overwrite each other's cache file."""
    from trtlog.parser import grammar

    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", str(tmp_path))
    monkeypatch.setattr(grammar, "grammar_dir", lambda: Path("/site-packages/trtlog/grammars"))
    wheel = cache_path(_optimizer())
    monkeypatch.setattr(grammar, "grammar_dir", lambda: Path("/home/me/trtlog/grammars"))
    checkout = cache_path(_optimizer())
    assert wheel is not None and checkout is not None and wheel != checkout


def test_only_strict_builds_run_the_collision_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lark's interegular check is most of a cold build; outside strict mode it only logs."""
    interegular = pytest.importorskip("interegular")
    import lark.lexer

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the collision check ran")

    monkeypatch.setattr(interegular.Comparator, "from_regexes", refuse)
    build_parser(_optimizer())  # no check, no cache
    with pytest.raises(AssertionError, match="the collision check ran"):
        build_parser(_optimizer(), strict=True)
    assert lark.lexer.has_interegular is True  # put back after each build
