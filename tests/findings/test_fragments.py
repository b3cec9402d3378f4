"""The fragment set: every fragment meets its golden; hit rate and false findings.

Each ``fixtures/fragments/*.expected.json`` names its fragment and what trtlog must make of it
(``fixtures/fragments/README.md``); :mod:`tests.findings.fragments` reads one. The report test
adds up the hit rate (expected findings found) and the false-finding count over the whole set
and prints them. On the corpus, no Q/DQ rule fires on a build without Q/DQ nodes.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus
from tests.findings.fragments import FRAGMENTS, check, goldens
from trtlog.findings import RULES

GOLDENS = goldens()


def test_the_set_is_complete() -> None:
    """127 fragments; every rule has a fragment where it must fire and one where it must not."""
    assert len(GOLDENS) >= 127
    names = [p.name for p in GOLDENS]
    for r in RULES:
        rule_id = r.info.id
        assert any(n.startswith(f"{rule_id}__fire__") for n in names), rule_id
        if rule_id not in ("int8-slower-than-reference", "qdq-split-fusion"):
            assert any(n.startswith(f"{rule_id}__clean__") for n in names), rule_id


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name.removesuffix(".expected.json"))
def test_fragment(golden: Path) -> None:
    result = check(golden)
    assert not result.problems, "\n".join(result.problems)


def test_hit_rate_and_false_findings(capsys: pytest.CaptureFixture[str]) -> None:
    expected = hits = false = 0
    for golden in GOLDENS:
        result = check(golden)
        expected += result.expected
        hits += result.hits
        false += result.false
    with capsys.disabled():
        print(
            f"\nfragments: {len(GOLDENS)}, must-fire findings found {hits}/{expected} "
            f"({hits / expected:.0%}), false findings {false}"
        )
    assert expected >= 60
    assert hits == expected
    assert false == 0


def _corpus_inputs() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    found = [*CORPUS.glob("*.log"), *CORPUS.glob("*.txt"), *CORPUS.glob("*.json")]
    return sorted(p for p in found if not p.name.endswith((".profile.json", ".times.json")))


_QDQ_RULES = {r.info.id for r in RULES if r.info.qdq}


@needs_corpus
@pytest.mark.parametrize("path", _corpus_inputs(), ids=lambda p: p.name)
def test_no_qdq_rule_on_a_corpus_build_without_qdq(path: Path) -> None:
    """A Q/DQ rule fires only on the corpus builds whose names say they hold Q/DQ nodes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            findings = trtlog.lint(path)
        except (trtlog.InputError, ValueError):
            return  # not a log or a layer JSON (a profile, a trace)
    fired = {f.rule for f in findings} & _QDQ_RULES
    name = path.name.lower()
    if not any(word in name for word in ("qdq", "qat", "int8")):
        assert not fired, (path.name, fired)


@pytest.mark.parametrize(
    "path", sorted(FRAGMENTS.glob("*.txt")), ids=lambda p: p.name.removesuffix(".txt")
)
def test_fragment_text_is_kept_exactly(path: Path) -> None:
    """Never lose input: every line in exactly one event, ``to_text()`` the bytes decoded."""
    try:
        build = trtlog.parse(path)
    except trtlog.InputError:
        return  # the JSON printed per layer: read as an engine, not a log
    assert build.to_text() == path.read_text(encoding="utf-8")
    covered = [n for e in build.events for n in range(e.span[0], e.span[1] + 1)]
    assert covered == list(range(1, len(build.lines) + 1))
