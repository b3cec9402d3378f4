"""Loading ``--exportTimes`` files (one record per inference) into a ``Times`` model.

Part of the exports package. The key sets of 7.0, 7.1-7.2 (enqueue and input values swapped),
8.0-8.2 and 8.4+ map onto version-independent fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ValidationError

from trtlog._pydantic import gc_paused
from trtlog.engine.model import (
    Times,
    TimingRecord,
    TimingRun,
)
from trtlog.errors import InputError
from trtlog.exports.read import JsonInput, as_float, detect_kind, read_json_file, wrong_kind

__all__ = ["load_times", "times_from_json"]


# key in the file → field of TimingRecord, per key set (formats.md JSON-1)
_TIMES_8 = {
    "startEnqMs": "enqueue_start_ms",
    "endEnqMs": "enqueue_end_ms",
    "startH2dMs": "h2d_start_ms",
    "endH2dMs": "h2d_end_ms",
    "startComputeMs": "compute_start_ms",
    "endComputeMs": "compute_end_ms",
    "startD2hMs": "d2h_start_ms",
    "endD2hMs": "d2h_end_ms",
    "h2dMs": "h2d_ms",
    "computeMs": "compute_ms",
    "d2hMs": "d2h_ms",
    "latencyMs": "latency_ms",
    "endToEndMs": "end_to_end_ms",
}


_TIMES_7 = {
    "startInMs": "h2d_start_ms",
    "endInMs": "h2d_end_ms",
    "startComputeMs": "compute_start_ms",
    "endComputeMs": "compute_end_ms",
    "startOutMs": "d2h_start_ms",
    "endOutMs": "d2h_end_ms",
    "inMs": "h2d_ms",
    "computeMs": "compute_ms",
    "outMs": "d2h_ms",
    "latencyMs": "latency_ms",
    "endToEndMs": "end_to_end_ms",
}


# 7.1/7.2 write the input-copy times under the Enq keys and the enqueue times under In keys
_TIMES_71 = {
    **_TIMES_7,
    "startEnqMs": "h2d_start_ms",
    "endEnqMs": "h2d_end_ms",
    "startInMs": "enqueue_start_ms",
    "endInMs": "enqueue_end_ms",
}


def _times_keys(item: dict[str, Any]) -> tuple[Literal["7.0", "7.1", "8.0", "8.4"], dict[str, str]]:
    if "startH2dMs" in item or "h2dMs" in item:
        return ("8.0" if "endToEndMs" in item else "8.4"), _TIMES_8
    if "startEnqMs" in item:
        return "7.1", _TIMES_71
    return "7.0", _TIMES_7


@gc_paused()
def load_times(path: JsonInput) -> Times:
    """Read an ``--exportTimes`` file (all four key sets; one array per run too).

    Field names are version-independent (:class:`~trtlog.engine.TimingRecord`); the swapped
    enqueue/input values of 7.1/7.2 files are put back where they belong.

    Raises:
        InputError: the file is missing, not JSON, or another kind of export.
    """
    name, values = read_json_file(path)
    return times_from_json(values, name)


def times_from_json(values: Sequence[Any], name: str) -> Times:
    """A :class:`Times` from the top-level JSON values of an ``--exportTimes`` file.

    Raises:
        InputError: a value is another kind of export, or an entry is malformed.
    """
    runs = []
    for value in values:
        kind = detect_kind(value)
        if kind != "times" and not (isinstance(value, list) and not value):
            raise wrong_kind(name, kind, "times")
        records = []
        keys: Literal["7.0", "7.1", "8.0", "8.4"] = "8.4"
        mapping = _TIMES_8
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise InputError(f"timing entry {i} is not an object", source=name)
            if i == 0:
                keys, mapping = _times_keys(item)
            fields: dict[str, Any] = {}
            for key, raw in item.items():
                field = mapping.get(key) or str(key)
                try:
                    fields[field] = as_float(raw)
                except (TypeError, ValueError, OverflowError):  # OverflowError: 1e400 as an int
                    fields[field] = raw
            try:
                records.append(TimingRecord(**fields))
            except ValidationError as exc:
                raise InputError(
                    f"timing entry {i}: {exc.errors()[0]['msg']}", source=name
                ) from None
        runs.append(TimingRun(keys=keys, records=tuple(records)))
    return Times(source=name, runs=tuple(runs))
