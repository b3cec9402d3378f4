"""A hot shape's fields as columns equal what ``make`` gives row by row (issue 14).

``trtlog.parser.columns`` probes the transformer method once per shape to find the fields
that only place an argument; the others come from the method called per row. Over every
fixture and corpus log, ``tests/buildlog/test_store.py`` compares ``Build.columns`` (which uses
this) with the eager parse; here the probe's decisions and the bulk tactic conversion.
"""

from __future__ import annotations

from sys import intern
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trtlog.numbers import parse_num, parse_tactic
from trtlog.parser.columns import column_plan, shape_columns, tactic_array
from trtlog.parser.compiled import Shape


def _placing(name: Any, tactic: Any, time: Any) -> dict[str, Any]:
    return {"kind": "k", "name": intern(str(name)), "tactic": tactic, "time_ms": time, "x": None}


def _touching(name: Any, tactic: Any) -> dict[str, Any]:
    return {"kind": "k", "name": str(name or "").strip(), "tactic": tactic}


def _stripping(name: Any) -> dict[str, Any]:
    return {"kind": "k", "name": str(name).strip(), "upper": str(name).upper()}


def _shape(method: Any, args: tuple[tuple[Any, ...], ...], width: int) -> Shape:
    """A shape whose ``make`` is what the compiler generates: converters, then the method."""

    def make(*texts: str) -> Any:
        values: list[Any] = []
        for arg in args:
            if arg[0] == "none":
                values.append(None)
            elif arg[0] == "text":
                values.append(texts[arg[1]])
            else:
                values.append(arg[1](texts[arg[2]]))
        return method(*values)

    groups = tuple(f"g{i}" for i in range(width))
    return Shape("x", "x", groups, make, method, args)


_TEXTS = [
    ["sm80_kernel", " padded ", "x", ""],
    ["0x00000000000003e8", "0xfffffffffffffffd", "0123", "-3"],
    ["0.5", "1e+06", "-nan", "inf"],
]


def _by_row(shape: Shape, groups: list[list[str]], names: list[str]) -> dict[str, list[Any]]:
    rows = list(map(shape.make, *groups))
    return {name: [r.get(name) for r in rows] for name in names}


def test_fields_that_place_an_argument_are_its_column() -> None:
    shape = _shape(_placing, (("text", 0), ("conv", parse_tactic, 1), ("conv", parse_num, 2)), 3)
    plan = column_plan(shape)
    assert plan == {
        "kind": ("const", "k"),
        "name": ("arg", 0),  # str() of a group's text is that text
        "tactic": ("arg", 1),
        "time_ms": ("arg", 2),
        "x": ("const", None),
    }
    names = ["name", "tactic", "time_ms", "x"]
    got = shape_columns(shape, _TEXTS, 4, names, {})
    assert repr(got) == repr(_by_row(shape, _TEXTS, names))  # (nan equals itself)


@pytest.mark.parametrize(
    ("method", "args", "width"),
    [
        (_touching, (("text", 0), ("conv", parse_tactic, 1)), 2),  # `name or ""`: per row
        (_stripping, (("text", 0),), 1),  # str(name).strip() is not the text
    ],
)
def test_fields_made_from_an_argument_come_from_the_method_per_row(
    method: Any, args: tuple[tuple[Any, ...], ...], width: int
) -> None:
    shape = _shape(method, args, width)
    plan = column_plan(shape)
    assert plan is None or all(source == ("row",) for k, source in plan.items() if k != "kind")
    names = [n for n in method(*["a"] * len(args)) if n != "kind"]
    groups = _TEXTS[:width]
    assert shape_columns(shape, groups, 4, names, {}) == _by_row(shape, groups, names)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=(1 << 64) - 1), max_size=20))
def test_tactic_ids_in_bulk_equal_parse_tactic(values: list[int]) -> None:
    texts = [f"0x{v:016x}" for v in values]
    array = tactic_array(texts)
    assert array is not None and array.dtype == np.uint64
    assert array.tolist() == [parse_tactic(t) for t in texts]


@pytest.mark.parametrize(
    "texts",
    [
        ["0x00000000000003e8", "0123"],
        ["-3"],
        ["0x3e8"],
        ["0x00000000000003eg"],
        ["0X" + "0" * 16],
        ["0x" + "0" * 7 + " " + "0" * 8],  # bytes.fromhex would skip the space
        ["0x" + "0" * 15 + "\u00e9"],  # not ASCII
    ],
)
def test_other_tactic_spellings_leave_the_bulk_path(texts: list[str]) -> None:
    assert tactic_array(texts) is None


def test_numbers_as_an_array_are_parse_num_of_each_text() -> None:
    """``arrays=True`` gives a number column as a float64 array of what ``parse_num`` gives
    (every spelling C++ prints), and a text that is no number still raises ``ValueError``."""
    from trtlog.parser.columns import convert_column

    texts = ["100", "0.5", "8.9389e-05", "inf", "-inf", "1e+06", "0.00335499"]
    array = convert_column(parse_num, texts, arrays=True)
    assert array.dtype == np.float64
    assert array.tolist() == [parse_num(t) for t in texts] == convert_column(parse_num, texts)
    assert np.isnan(convert_column(parse_num, ["-nan", "nan"], arrays=True)).all()
    with pytest.raises(ValueError):
        convert_column(parse_num, ["0.5", "n/a"], arrays=True)


def _cutting(head: Any, detail: Any) -> dict[str, Any]:
    """Reshapes its texts where the probe's stand-in shows nothing to reshape."""
    layer, _, tensor = str(head).partition(" (")
    return {
        "kind": "k",
        "layer": layer,
        "tensor": tensor or None,
        "detail": str(detail).removesuffix(" operation."),
    }


def test_a_field_reshaped_only_on_real_rows_comes_from_the_method_per_row() -> None:
    """The DLA fallback's ``removesuffix`` and reformat_layer_added's `` (tensor`` cut leave
    the probe's text as it is: the plan takes them for placed texts, the rows say otherwise."""
    shape = _shape(_cutting, (("text", 0), ("text", 1)), 2)
    plan = column_plan(shape)
    assert plan is not None and plan["layer"] == ("arg", 0)  # what the probe alone concludes
    groups = [[f"conv{i} (t{i}" for i in range(200)], [f"Pool {i} operation." for i in range(200)]]
    names = ["layer", "tensor", "detail"]
    got = shape_columns(shape, groups, 200, names, {})
    assert got == _by_row(shape, groups, names)
    assert got["layer"][7] == "conv7" and got["tensor"][7] == "t7" and got["detail"][7] == "Pool 7"
