"""The inspector record's parameter splitter and value reader, on a real record's tail.

``_param_value``'s integer-list fast path must agree with ``json.loads``, and its choice by
the first character with every pattern tried in turn.
"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from trtlog.parser.families.layers import _frozen, _param_value, _split_top_params


def test_a_real_record_tail() -> None:
    text = (
        "ParameterType: Convolution, Kernel: [3,3], PaddingMode: kEXPLICIT_ROUND_DOWN, "
        'PrePadding: [1,1], Weights: {"Type": "Half", "Count": 36864}, Note: "a, B: c", '
        "HasBias: 1, Alpha: 0.5, Odd: [01], Empty: []"
    )
    pairs = _split_top_params(text)
    assert [k for k, _ in pairs] == [
        "ParameterType",
        "Kernel",
        "PaddingMode",
        "PrePadding",
        "Weights",
        "Note",
        "HasBias",
        "Alpha",
        "Odd",
        "Empty",
    ]
    values = dict((k, _param_value(v)) for k, v in pairs)
    assert values["Kernel"] == (3, 3)
    assert values["Weights"] == (("Type", "Half"), ("Count", 36864))
    assert values["Note"] == '"a, B: c"'
    assert values["Odd"] == "[01]"  # not JSON: stays text
    assert values["Empty"] == ()


def test_escapes_and_deep_brackets_stay_in_their_value() -> None:
    text = 'Name: "a\\", B: b", Deep: [[[[[1, C: 2]]]]], D: {"x": (1, E: 2)}, Last: 1'
    assert [k for k, _ in _split_top_params(text)] == ["Name", "Deep", "D", "Last"]
    assert _split_top_params("no pairs here") == [("", "no pairs here")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-(10**12), max_value=10**12), max_size=6))
def test_integer_lists_as_json_reads_them(values: list[int]) -> None:
    text = "[" + ",".join(map(str, values)) + "]"
    assert _param_value(text) == _frozen(json.loads(text))


_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)", re.IGNORECASE)
_INT_LIST = re.compile(r"\[(?:-?(?:0|[1-9]\d*)(?:,-?(?:0|[1-9]\d*))*)?\]")


def reference_value(text: str) -> object:
    """``_param_value`` before it looked at the first character (every pattern in turn)."""
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INT_LIST.fullmatch(text):
        return tuple(int(x) for x in text[1:-1].split(",")) if len(text) > 2 else ()
    if text[:1] in ("[", "{"):
        try:
            return _frozen(json.loads(text))
        except ValueError:
            return text
    return text


_VALUE_TEXTS = st.one_of(
    st.text(alphabet='0123456789-+.eEinfaINFA[]{}," :xk_', max_size=12),
    st.sampled_from(["inf", "-Inf", "nan", "NaN", "+.5", "1e+06", "kEXPLICIT", "", "[]", "{}"]),
)


@settings(max_examples=400, deadline=None)
@given(_VALUE_TEXTS)
def test_a_value_reads_as_every_pattern_in_turn_read_it(text: str) -> None:
    got, expected = _param_value(text), reference_value(text)
    assert type(got) is type(expected)
    assert repr(got) == repr(expected)  # (nan, also inside a JSON array, equals itself)
