"""The inspector record's parameter splitter gives what the character walk gave.

The splitter now cuts at ``", "`` in C and walks only the pieces with brackets or quotes;
the reference below is the former walk over every special character. Both must agree on
any text, and ``_param_value``'s integer-list fast path must agree with ``json.loads``.
"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from trtlog.parser.families.layers import _frozen, _param_value, _split_top_params, pair_matcher

# a process compiles the one-regex split at its 256th split: compare it
# from the first example on (the walk, used before, is the reference's own algorithm)
pair_matcher()

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_/]*): ")
_SPECIAL = re.compile(r'[\[\]{}()"\\]|, ')


def reference_split(text: str) -> list[tuple[str, str]]:
    m = _KEY.match(text)
    if m is None:
        return [("", text)]
    pairs: list[tuple[str, str]] = []
    key, key_end = m.group(1), m.end()
    depth = 0
    quoted = False
    skip = -1
    for found in _SPECIAL.finditer(text, key_end):
        i = found.start()
        if i < skip:
            continue
        ch = found.group()
        if quoted:
            if ch == "\\":
                skip = i + 2
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth = max(depth - 1, 0)
        elif ch == ", " and depth == 0:
            k = _KEY.match(text, i + 2)
            if k is not None:
                pairs.append((key, text[key_end:i]))
                key, key_end = k.group(1), k.end()
                skip = key_end
    pairs.append((key, text[key_end:]))
    return pairs


_PIECES = st.sampled_from(
    [
        "Kernel: ",
        "A/b: ",
        "x",
        "1",
        ", ",
        ",",
        " ",
        "[",
        "]",
        "{",
        "}",
        "(",
        ")",
        '"',
        "\\",
        "Count",
        ": ",
        "-3",
        "0",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40))
def test_split_equals_the_character_walk(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _split_top_params(text) == reference_split(text)


def test_a_real_record_tail() -> None:
    text = (
        "ParameterType: Convolution, Kernel: [3,3], PaddingMode: kEXPLICIT_ROUND_DOWN, "
        'PrePadding: [1,1], Weights: {"Type": "Half", "Count": 36864}, Note: "a, B: c", '
        "HasBias: 1, Alpha: 0.5, Odd: [01], Empty: []"
    )
    assert _split_top_params(text) == reference_split(text)
    values = dict((k, _param_value(v)) for k, v in _split_top_params(text))
    assert values["Kernel"] == (3, 3)
    assert values["Weights"] == (("Type", "Half"), ("Count", 36864))
    assert values["Note"] == '"a, B: c"'
    assert values["Odd"] == "[01]"  # not JSON: stays text
    assert values["Empty"] == ()


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
