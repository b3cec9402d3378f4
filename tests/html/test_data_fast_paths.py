"""The report's faster ways against the plain ones they replace (issue 15: size and speed).

Each shortcut the page's data takes must give what the straightforward code gives: the
fastest tactics of each layer (one sort, not a grouped rank), and the page's JSON escapes
(the codec's, not a handler per character run).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from tests.conftest import FIXTURES
from trtlog.html.data import TACTICS_PER_LAYER, _fastest_of_group


@given(
    st.lists(
        st.tuples(
            st.integers(0, 6),  # the layer's code
            st.one_of(st.none(), st.integers(0, 4).map(float)),  # a time (ties), or none
            st.booleans(),  # timed
        ),
        max_size=120,
    )
)
def test_the_fastest_of_each_layer_are_the_grouped_rank(rows: list[tuple[int, Any, bool]]) -> None:
    codes = np.array([r[0] for r in rows], dtype=np.intp)
    values = np.array([np.nan if r[1] is None else r[1] for r in rows], dtype=float)
    valid = np.array([r[2] and r[1] is not None for r in rows], dtype=bool)
    rank = pd.Series(values).where(valid).groupby(codes).rank(method="first")
    expected = (rank <= TACTICS_PER_LAYER).to_numpy()
    assert (_fastest_of_group(codes, values, valid) == expected).all()


@pytest.mark.parametrize(
    "text",
    [
        "plain ascii",
        "a \u2192 b \u2194 c \u2028\u2029",  # BMP above U+00FF only: the codec's escapes
        "caf\u00e9 \u2192",  # U+00E9: the handler
        "\U0001f600 \u2192",  # beyond the BMP: the handler (a surrogate pair)
        "\x7f \u00ff \u0100 \uffff",
    ],
)
def test_every_escape_path_writes_what_json_dumps_writes(text: str) -> None:
    pytest.importorskip("orjson")
    from trtlog.html.page import _orjson_text

    value = {"name": text, "list": [text, 1.5, None]}
    assert _orjson_text(value) == json.dumps(value, separators=(",", ":"))


@pytest.mark.parametrize(
    ("layers", "profile"),
    [
        (
            "trt10.16-like_smallnet-fp16_layers-detailed.json",
            "trt10.16-like_smallnet-fp16.profile.json",
        ),
        (
            "trt8.6-like_patternnet-qdq_layers-detailed.json",
            "trt8.6-like_patternnet-qdq.profile.json",
        ),
    ],
)
def test_a_report_of_an_engine_and_its_profile_builds_no_layer_object(
    layers: str, profile: str
) -> None:
    """Every view of the page reads the loader's table (README, Benchmarks: Report)."""
    folder = FIXTURES / "layer_info"
    engine = trtlog.load_engine(folder / layers, profile=folder / profile)
    assert "layers" not in engine.__dict__
    page = trtlog.report(engine)
    assert "layers" not in engine.__dict__
    assert engine.layers[0].name in page  # and the page shows the layers


@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "c", "\u2192", ""])), max_size=30),
        max_size=8,
    )
)
def test_many_strings_at_once_are_each_string_in_turn(calls: list[list[str | None]]) -> None:
    """Strings.many (distinct strings found in C, added in one step) against one call per
    string: the same positions and the same table, in the order first met."""
    from trtlog.html.data import Strings

    fast, plain = Strings(), Strings()
    for texts in calls:
        assert fast.many(texts) == [plain(t) for t in texts]
        assert fast.items == plain.items
        assert fast.index == plain.index
