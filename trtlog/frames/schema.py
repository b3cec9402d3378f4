"""Declared frame schemas and the one function that builds a frame from records.

Part of the view package :mod:`trtlog.frames` (pandas). Every frame has an ordered
column → dtype schema in :data:`SCHEMAS`; frames always have exactly those columns, even when
empty (STYLE.md §8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = ["SCHEMAS", "empty_frame", "frame_from_columns", "frame_from_records"]

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
    data = {col: _series(columns[col], dtype) for col, dtype in schema.items()}
    return pd.DataFrame(data, columns=list(schema), copy=False)


def _series(values: Sequence[Any], dtype: str) -> pd.Series:
    """A typed Series; text columns through pyarrow directly when the storage is pyarrow.

    ``pd.Series(values, dtype="string")`` checks every value in Python before handing the
    list to pyarrow (half the time of a large frame); a list of ``str`` and ``None`` needs
    no check. Anything else (or another string storage) takes pandas' own path.
    """
    if dtype == "string" and len(values) > 1000 and _ARROW_STRINGS:
        import pyarrow as pa

        try:
            array = pa.array(values, type=pa.large_string())
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
        else:
            return pd.Series(pd.arrays.ArrowStringArray(array))  # type: ignore[arg-type]
    return pd.Series(values, dtype=dtype)


_ARROW_STRINGS = pd.StringDtype().storage == "pyarrow"
