"""The report's ways of reading its data against the plain ones a reader would write.

Each shortcut the page's data takes must give what the straightforward code gives: the
fastest tactics of each layer (one sort, not a grouped rank), and the page's JSON escapes
(the codec's, not a handler per character run).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from tests.conftest import FIXTURES, corpus_logs
from trtlog.html.data import TACTICS_PER_LAYER, _fastest_of_group

#: times float32 makes equal (or infinite), negative ones, signed zeros: the other orders
_CLOSE_TIMES = [0.0, -0.0, 1.0, 1.0 + 1e-12, 1.0 - 1e-12, 1e300, 2e300, -3.0, 5e-324, 1e-320]


@given(
    st.lists(
        st.tuples(
            st.integers(0, 6),  # the layer's code
            st.one_of(
                st.none(),
                st.integers(0, 4).map(float),  # a time (ties), or none
                st.sampled_from(_CLOSE_TIMES),
            ),
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
    # codes too wide for the float32 keys: the lexsort
    wide = codes.astype(np.int64) << 50
    assert (_fastest_of_group(wide, values, valid) == expected).all()


def test_times_float32_cannot_tell_apart_are_ranked_by_their_value() -> None:
    """Thirteen times of one layer that float32 makes equal: the last row is the fastest
    (a sort by the float32 keys alone would keep the first twelve)."""
    values = np.array([1.0 + 1e-12] * TACTICS_PER_LAYER + [1.0])
    codes = np.zeros(len(values), dtype=np.intp)
    keep = _fastest_of_group(codes, values, np.ones(len(values), dtype=bool))
    assert keep.tolist() == [True] * (TACTICS_PER_LAYER - 1) + [False, True]


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
def test_a_report_of_an_engine_and_its_profile_shows_its_layers(layers: str, profile: str) -> None:
    """The page of an engine with its profile shows the layers."""
    folder = FIXTURES / "layer_info"
    engine = trtlog.load_engine(folder / layers, profile=folder / profile)
    page = trtlog.report(engine)
    assert engine.layers[0].name in page


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


# -- the Tactics section and the overview's figures from the columns (no tactics frame) ------

TACTIC_LOGS = sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs()


@functools.cache
def _parsed(path: Path) -> trtlog.Build:
    return trtlog.parse(path)


def _tactics_of_frame(frame: pd.DataFrame, s: Any, lines: Any) -> dict[str, Any]:
    """The Tactics section as the page made it from ``tactics_frame`` (the plain way)."""
    from trtlog.frames.choices import engine_tactics
    from trtlog.html import data

    if not len(frame):
        return {"rows": 0}
    picked = engine_tactics(frame)
    codes, names = pd.factorize(frame["layer"].fillna(""))
    timed = ~frame["skipped"] & frame["time_ms"].notna()
    per_layer = (
        pd.DataFrame(
            {
                "timed": timed,
                "skipped": frame["skipped"],
                "best": frame["time_ms"].where(timed),
                "line": frame["line"],
                "reformat": frame["reformat"],
            }
        )
        .groupby(codes, sort=False)
        .agg(
            timed=("timed", "sum"),
            skipped=("skipped", "sum"),
            best=("best", "min"),
            first=("line", "min"),
            last=("line", "max"),
            reformat=("reformat", "any"),
        )
    )
    layer_names = list(names[per_layer.index.to_numpy()])
    flags = (
        frame["fastest"].astype(int)
        + 2 * frame["chosen"].astype(int)
        + 4 * frame["skipped"].astype(int)
        + 8 * frame["cached"].astype(int)
        + 16 * frame["in_engine"].astype(int)
        + 32 * frame["reformat"].astype(int)
    )
    rows = frame
    if len(frame) > data.TACTIC_ROWS:
        marked = (flags & (1 | 2 | 8 | 16)) > 0
        fastest = data._fastest_of_group(codes, frame["time_ms"].to_numpy(), timed.to_numpy())
        keep = marked | fastest
        rows, flags, codes = frame[keep], flags[keep], codes[keep.to_numpy()]
    position = per_layer.index.to_numpy()
    engine_lines = data.column(picked, "line")
    lines.add_all(n for n in engine_lines if n)
    column = data.column
    return {
        "rows": len(frame),
        "kept": len(rows),
        "perLayer": data.TACTICS_PER_LAYER if len(rows) < len(frame) else None,
        "layers": {
            "layer": s.many(n or None for n in layer_names),
            "timed": [int(v) for v in per_layer["timed"].tolist()],
            "skipped": [int(v) for v in per_layer["skipped"].tolist()],
            "best": column(per_layer, "best"),
            "first": [int(v) for v in per_layer["first"].tolist()],
            "last": [int(v) for v in per_layer["last"].tolist()],
            "reformat": [bool(v) for v in per_layer["reformat"].tolist()],
        },
        "layer": position.argsort()[codes].tolist() if len(position) else [],
        "runner": s.many(column(rows, "runner")),
        "combo": s.many(column(rows, "format_combination")),
        "tactic": column(rows, "tactic_hex"),
        "kernel": s.many(column(rows, "tactic_name")),
        "ms": column(rows, "time_ms"),
        "flags": flags.tolist(),
        "reason": s.many(column(rows, "skip_reason")),
        "line": column(rows, "line"),
        "engine": {
            "layer": s.many(column(picked, "layer")),
            "tactic": column(picked, "tactic_hex"),
            "kernel": s.many(column(picked, "tactic_name")),
            "ms": column(picked, "time_ms"),
            "known": column(picked, "engine_known"),
            "line": engine_lines,
        },
    }


def _section(make: Any, tactics: Any) -> tuple[str, list[str], set[int]]:
    from trtlog.html.data import Lines, Strings

    s, lines = Strings(), Lines()
    out = make(tactics, s, lines)
    return json.dumps(out, allow_nan=False), s.items, lines.wanted


@pytest.mark.parametrize("rows", [None, 40], ids=["all-rows", "kept-rows"])
@pytest.mark.parametrize("path", TACTIC_LOGS, ids=lambda p: p.name)
def test_the_tactics_section_from_columns_is_the_frames(
    path: Path, rows: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's Tactics section and summary figures, read from ``tactic_columns`` (both
    the array columns of the fast path and the table's lists), are those of the frame; with
    ``rows`` the page keeps only some rows (the path a big log takes)."""
    from trtlog.buildlog.tactics import tactic_columns
    from trtlog.html import data
    from trtlog.summary import summarize

    if rows is not None:
        monkeypatch.setattr(data, "TACTIC_ROWS", rows)
    build = _parsed(path)  # (both row counts read one build: its views are not changed)
    frame = build.tactics_frame()
    expected = _section(_tactics_of_frame, frame)
    assert _section(data._tactics, tactic_columns(build, arrays=True)) == expected
    assert _section(data._tactics, tactic_columns(build)) == expected
    if rows is None:
        figures = summarize(build, tactics=frame)
        assert summarize(build, tactics=tactic_columns(build, arrays=True)) == figures
        assert summarize(build, tactics=tactic_columns(build)) == figures


@given(st.lists(st.one_of(st.none(), st.sampled_from(["", "a", "b", "c\udcff", "c\\udcff"]))))
def test_layer_codes_are_the_frames_factorized_layers(layers: list[str | None]) -> None:
    """``layer_codes`` of a column against ``pd.factorize(frame["layer"].fillna(""))``."""
    from trtlog.buildlog.tactics import layer_codes
    from trtlog.frames.schema import _series

    series = _series("tactics", "layer", layers, "string")
    codes, names = pd.factorize(series.fillna(""))
    got_codes, got_names, missing = layer_codes(layers)
    assert got_codes.tolist() == codes.tolist()
    assert got_names == list(names)
    assert missing.tolist() == series.isna().tolist()
