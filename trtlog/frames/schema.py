"""Declared frame schemas and the one function that builds a frame from records.

Part of the view package :mod:`trtlog.frames` (pandas). Every frame has an ordered
column → dtype schema in :data:`SCHEMAS`; frames always have exactly those columns, even when
empty (STYLE.md §8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from trtlog._display import escaped

__all__ = [
    "SCHEMAS",
    "empty_frame",
    "frame_from_columns",
    "frame_from_records",
]

#: Every frame's columns and dtypes, in order (filled by the frame modules).
SCHEMAS: dict[str, dict[str, str]] = {}


def empty_frame(name: str) -> pd.DataFrame:
    """An empty frame with the columns and dtypes of ``name``."""
    return frame_from_records(name, [])


def frame_from_records(name: str, records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Build frame ``name`` from records (mappings with every column of its schema)."""
    schema = SCHEMAS[name]
    return frame_from_columns(name, {col: [r[col] for r in records] for col in schema})


def frame_from_columns(name: str, columns: Mapping[str, Sequence[Any]]) -> pd.DataFrame:
    """Build frame ``name`` from one value list per column of its schema (equal lengths)."""
    schema = SCHEMAS[name]
    # one typed Series per column: no inferred intermediate frame to convert afterwards
    data = {col: _series(name, col, columns[col], dtype) for col, dtype in schema.items()}
    return pd.DataFrame(data, columns=list(schema), copy=False)


_RANGES = {"Int64": (-(1 << 63), (1 << 63) - 1), "UInt64": (0, (1 << 64) - 1)}
_RANGES["int64"], _RANGES["uint64"] = _RANGES["Int64"], _RANGES["UInt64"]


def _series(name: str, col: str, values: Sequence[Any], dtype: str) -> pd.Series[Any]:
    """One typed column; an integer past its 64-bit dtype is missing (NA), not a crash.

    Text columns go to pyarrow directly when the storage is pyarrow:
    ``pd.Series(values, dtype="string")`` checks every value in Python before handing the
    list to pyarrow (half the time of a large frame); a list of ``str`` and ``None`` needs
    no check. Anything else (or another string storage) takes pandas' own path.

    A log can print any digits where a size or a dimension belongs (dims of 2**64);
    no real value is that large, so a nullable column shows it as missing and a plain one
    (which cannot) says which frame and column it is.
    """
    if dtype in ("Int64", "UInt64") and len(values) > 1000 and _all_none(values):
        import numpy as np

        n = len(values)
        empty = np.zeros(n, dtype=np.int64 if dtype == "Int64" else np.uint64)
        return pd.Series(pd.arrays.IntegerArray(empty, np.ones(n, dtype=bool)))
    if dtype == "string" and len(values) > 1000 and _ARROW_STRINGS:
        import pyarrow as pa

        try:
            array = pa.array(values, type=pa.large_string())
        except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeEncodeError):
            pass
        else:
            return pd.Series(pd.arrays.ArrowStringArray(array))  # type: ignore[arg-type]
    if dtype == "string" and not _ARROW_STRINGS:
        # pandas' Python string storage (pandas 2's default) keeps a lone surrogate as it is:
        # the cell shows it escaped, as with Arrow's
        values = [escaped(v) for v in values]
    try:
        return pd.Series(values, dtype=dtype)
    except UnicodeEncodeError:
        # a lone surrogate (text decoded with surrogateescape) cannot go into an Arrow
        # string: the cell shows it escaped (``\udcff``)

        return pd.Series([escaped(v) for v in values], dtype=dtype)
    except OverflowError:
        low, high = _RANGES.get(dtype, (None, None))
        if low is None or high is None:
            raise
    fits = [v if not isinstance(v, int) or low <= v <= high else None for v in values]
    if dtype[0].isupper():  # the nullable dtypes: Int64, UInt64
        return pd.Series(fits, dtype=dtype)
    from trtlog.errors import InputError

    raise InputError(
        f"an integer in column {col!r} of the {name} frame does not fit in {dtype}",
        hint="the log holds a number no TensorRT prints; check the line it came from",
    )


def _all_none(values: Sequence[Any]) -> bool:
    """Whether every value is ``None`` (a column the frame's rows leave empty)."""
    return isinstance(values, list) and values.count(None) == len(values)


_ARROW_STRINGS = pd.StringDtype().storage == "pyarrow"
