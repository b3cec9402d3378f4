"""A frame's rows as typed columns, without pandas.

The report reads the optimizer's and the memory's frames (:mod:`trtlog.buildlog.passes`,
:mod:`trtlog.buildlog.memory`) from their rows: making the frames would import pandas, a quarter
of a second of every ``trtlog report``, for columns it reads as lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import isfinite
from typing import Any

__all__ = ["type_columns", "typed_columns"]

_INT_RANGES = {
    "int64": (-(1 << 63), (1 << 63) - 1),
    "Int64": (-(1 << 63), (1 << 63) - 1),
    "uint64": (0, (1 << 64) - 1),
    "UInt64": (0, (1 << 64) - 1),
}


def typed_columns(
    name: str, schema: Mapping[str, str], records: Sequence[Mapping[str, Any]]
) -> dict[str, list[Any]]:
    """:func:`type_columns` of frame ``name``'s columns made of ``records`` (every key)."""
    return type_columns(name, schema, {col: [r[col] for r in records] for col in schema})


def type_columns(
    name: str, schema: Mapping[str, str], columns: Mapping[str, Sequence[Any]]
) -> dict[str, list[Any]]:
    """The columns of frame ``name`` (its ``schema``), as lists typed as the frame types them.

    What ``trtlog.html.data.column`` reads from ``frame_from_columns(name, columns)``, with
    no pandas: ``None`` for a missing value (NaN and infinities of a float column too); an
    integer past its 64-bit dtype is missing in a nullable column (``Int64``) and an
    :class:`~trtlog.errors.InputError` in a plain one (``int64``), as the frame makes it; a
    text holding a lone surrogate is escaped (``\\udcff``), as the frame's Arrow strings
    show it. ``tests/buildlog/test_rows.py`` checks them against the frames on every log.
    """
    out: dict[str, list[Any]] = {}
    for col, dtype in schema.items():
        values = list(columns[col])
        bounds = _INT_RANGES.get(dtype)
        if bounds is not None:
            low, high = bounds
            fits = [v is None or low <= v <= high for v in values]
            if not all(fits):
                if not dtype[0].isupper():
                    from trtlog.errors import InputError

                    raise InputError(
                        f"an integer in column {col!r} of the {name} frame does not fit in {dtype}",
                        hint="the log holds a number no TensorRT prints; check the line it "
                        "came from",
                    )
                values = [v if ok else None for v, ok in zip(values, fits, strict=True)]
        elif dtype == "float64":
            values = [v if v is None or isfinite(v) else None for v in values]
        elif dtype == "string":
            try:
                "".join(v for v in values if v is not None).encode("utf-8")
            except UnicodeEncodeError:
                from trtlog._display import escaped

                values = [escaped(v) for v in values]
        out[col] = values
    return out
