"""Every labelled case (``tests/cases/*.toml``): no false finding, no lost hit, the outcome.

Corpus cases skip when ``../shared/corpus`` is absent. ``bench/diagnosis.py`` prints the same
results as a per-rule table.
"""

from __future__ import annotations

import pytest

from tests.cases.labelled import Case, evaluate, load_cases, summary_counts
from trtlog.findings.registry import RULES

CASES = load_cases()
_IDS = {r.info.id for r in RULES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    result = evaluate(case)
    if result.skipped:
        pytest.skip(result.skipped)
    assert not result.problems, f"{case.name} ({case.input}): " + "; ".join(result.problems)


def test_cases_name_known_rules() -> None:
    for case in CASES:
        assert set(case.must_fire) <= _IDS, case.name
        assert set(case.must_not_fire) <= _IDS, case.name
        assert not set(case.must_fire) & set(case.must_not_fire), case.name


def test_the_set_is_big_enough() -> None:
    counts = summary_counts(CASES)
    assert counts["cases"] > 60
    assert counts["failed builds"] >= 20
    assert counts["TensorRT 10/11"] >= 15
