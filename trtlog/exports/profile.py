"""Loading ``--exportProfile`` files (per-layer times) into a ``Profile`` model.

Part of the exports package. Every version's keys (``medianMs`` from 8.4), 7.x files with one
array per run, Torch-TensorRT's TREx traces, and its Chrome/Perfetto execution profile
(read by :mod:`trtlog.exports.trace`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trtlog._pydantic import assemble, gc_paused
from trtlog.engine.model import (
    Profile,
    ProfileRecord,
    ProfileRun,
)
from trtlog.errors import InputError
from trtlog.exports.read import JsonInput, as_float, detect_kind, read_json_file, wrong_kind

__all__ = ["load_profile", "profile_from_json"]


_PROFILE_KEYS = frozenset(("name", "timeMs", "averageMs", "medianMs", "percentage"))
_PROFILE_FIELDS_SET = frozenset(ProfileRecord.model_fields)
_RUN_FIELDS_SET = frozenset(ProfileRun.model_fields)
_MISSING = object()  # (a key the record does not have)
_PROFILE_SET = frozenset(Profile.model_fields)


@gc_paused()
def load_profile(path: JsonInput) -> Profile:
    """Read an ``--exportProfile`` file (any version; 7.x files with one array per run too).

    Use ``profile.records`` (first run), ``profile.iterations`` and ``profile.total_ms``.

    Raises:
        InputError: the file is missing, not JSON, or another kind of export.
    """
    name, values = read_json_file(path)
    return profile_from_json(values, name)


def profile_from_json(values: Sequence[Any], name: str) -> Profile:
    """A :class:`Profile` from the top-level JSON values of an ``--exportProfile`` file.

    Raises:
        InputError: a value is another kind of export, or an entry is malformed.
    """
    nan = float("nan")
    runs: list[ProfileRun] = []
    for value in values:
        kind = detect_kind(value)
        if kind == "trace":  # Torch-TensorRT's execution profile (imported when one is read)
            from trtlog.exports.trace import trace_runs

            runs.extend(trace_runs(value, name))
            continue
        if kind != "profile":
            raise wrong_kind(name, kind, "profile")
        iterations: int | None = None
        records: list[ProfileRecord] = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise InputError(f"profile entry {i} is not an object", source=name)
            get = item.get
            n, t, a, m, p = (
                get("name"),
                get("timeMs"),
                get("averageMs"),
                get("medianMs", _MISSING),
                get("percentage", nan),
            )
            try:
                if type(n) is str and type(t) is type(a) is type(p) is float:
                    # as 8.4+ write every record: no conversion
                    m = None if m is _MISSING else m if type(m) is float else as_float(m)
                elif len(item) == 1 and "count" in item:
                    iterations = int(item["count"])
                    continue
                else:
                    n, t = str(item["name"]), as_float(item["timeMs"])
                    a = as_float(item["averageMs"])
                    m = None if m is _MISSING else as_float(m)
                    p = as_float(p)
                known: dict[str, Any] = {
                    "name": n,
                    "time_ms": t,
                    "average_ms": a,
                    "median_ms": m,
                    "percentage": p,
                }
            except (KeyError, TypeError, ValueError, OverflowError) as exc:
                raise InputError(
                    f"profile entry {i} ({str(item)[:80]}) lacks or garbles {exc}",
                    source=name,
                    hint="expected name, timeMs, averageMs, percentage (and medianMs 8.4+)",
                ) from None
            # name, timeMs and averageMs are there (read above); a record with only the
            # known keys (the usual case) needs no set difference
            known_keys = 3 + ("medianMs" in item) + ("percentage" in item)
            unknown = item.keys() - _PROFILE_KEYS if len(item) != known_keys else ()
            extra = {k: item[k] for k in item if k in unknown} if unknown else {}
            records.append(assemble(ProfileRecord, known, extra, _PROFILE_FIELDS_SET))
        data = {"iterations": iterations, "records": tuple(records)}
        runs.append(assemble(ProfileRun, data, {}, set(_RUN_FIELDS_SET)))
    # (sets, not frozensets: model_copy(update=...) adds the keys it updates)
    return assemble(Profile, {"source": name, "runs": tuple(runs)}, {}, set(_PROFILE_SET))
