"""Fuzzing every public entry point with hypothesis.

Inputs are grammar-shaped messages (hypothesis.extra.lark over trtlog's own grammars), real
lines mutated (``tests/fuzz/mutate.py``: bit flips, truncation, splicing two logs, duplicated,
shuffled and dropped lines, U+001E/U+001F/U+2028/NUL/lone surrogates/right-to-left marks,
mixed line endings, UTF-16 without BOM, numbers past every limit) and mutated JSON exports.
The harness (``tests/fuzz/harness.py``) runs parse/parse_text/iter_events, every frame, the
merge graph, the summary, lint and compare, and the CLI through ``main(argv)``; only
``InputError`` may escape, ``to_text()`` is exact, spans partition the lines and a build
equals its JSON round trip. The CI profile (tests/conftest.py) bounds the examples; the long
campaign is ``bench/fuzz.py``.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import harness, mutate
from tests.fuzz.grammar_strategies import grammar_text

LOGS = mutate.seed_logs()
EXPORTS = mutate.seed_json()

# heavier properties (every view, or every command) run fewer examples than the profile's
_SLOW = [HealthCheck.too_slow, HealthCheck.filter_too_much]
LINES = settings(max_examples=40, suppress_health_check=_SLOW, deadline=None)
VIEWS = settings(max_examples=15, suppress_health_check=_SLOW, deadline=None)
CLI = settings(max_examples=2, suppress_health_check=_SLOW, deadline=None)
WAREHOUSE = settings(max_examples=2, suppress_health_check=_SLOW, deadline=None)


@st.composite
def mutated_log(draw: st.DrawFn, most: int = 40) -> str:
    rng = draw(st.randoms(use_true_random=False))
    text = mutate.window(rng, rng.choice(LOGS), most=most)
    return mutate.mutate_text(rng, text, LOGS)


@given(grammar_text(most=4))
@LINES
def test_grammar_shaped_lines_parse_exactly(text: str) -> None:
    harness.check_log_text(text, views=False)


@given(grammar_text(most=3))
@VIEWS
def test_grammar_shaped_lines_through_every_view(text: str) -> None:
    harness.check_log_text(text)


@given(mutated_log())
@VIEWS
def test_mutated_real_lines_through_every_view(text: str) -> None:
    harness.check_log_text(text)


@given(st.randoms(use_true_random=False))
@VIEWS
def test_mutated_bytes_any_encoding(rng: random.Random) -> None:
    text = mutate.mutate_text(rng, mutate.window(rng, rng.choice(LOGS)), LOGS)
    harness.check_log_bytes(mutate.encode(rng, text))


@given(st.randoms(use_true_random=False))
@VIEWS
def test_mutated_json_exports(rng: random.Random) -> None:
    harness.check_json(mutate.mutate_json(rng, rng.choice(EXPORTS)))


@given(mutated_log(most=25))
@CLI
def test_cli_commands_on_mutated_logs(text: str) -> None:
    codes = harness.check_cli(text.encode("utf-8", "surrogatepass"), plots=True)
    assert set(codes) <= {0, 1, 2}


@given(st.randoms(use_true_random=False))
@CLI
def test_cli_commands_on_mutated_json(rng: random.Random) -> None:
    codes = harness.check_cli(mutate.mutate_json(rng, rng.choice(EXPORTS)), suffix=".json")
    assert set(codes) <= {0, 1, 2}


@given(mutated_log(most=25))
@WAREHOUSE
def test_ingest_and_query_on_mutated_logs(text: str) -> None:
    """A mutated log ingested into a warehouse, which three queries (one locked) then read."""
    codes = harness.check_cli(text.encode("utf-8", "surrogatepass"), warehouse=True)
    assert set(codes) <= {0, 1, 2}


def test_real_logs_hold_the_contract() -> None:
    """Every fixture log, unmutated: the baseline the mutations start from."""
    for text in LOGS:
        assert harness.check_log_text(text) is not None
