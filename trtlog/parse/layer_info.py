"""Loading trtexec's JSON exports: ``--exportProfile``, ``--exportTimes`` (and layer info).

Part of the parser (JSON side). Files are read as text (UTF-8, UTF-8/16 with BOM, ``.gz``),
parsed with the tolerant reader of :mod:`trtlog.parse.jsonio`, recognised by their shape and
turned into the models of :mod:`trtlog.layers`. A file that is not the export asked for gets
an :class:`~trtlog.errors.InputError` that names the file, says what it looks like and which
loader reads it.
"""

from __future__ import annotations

import codecs
import gzip
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from trtlog.errors import InputError
from trtlog.layers import Profile, ProfileRecord, ProfileRun, Times, TimingRecord, TimingRun
from trtlog.parse.jsonio import read_json_values

__all__ = ["JsonKind", "detect_kind", "load_profile", "load_times", "read_json_file"]

JsonKind = Literal["layers", "profile", "times", "output", "unknown"]

_LOADER = {
    "layers": "trtlog.load_engine (or `trtlog layers FILE`)",
    "profile": "trtlog.load_profile",
    "times": "trtlog.load_times",
    "output": "nothing in trtlog yet (it holds output tensor values, not timings)",
}
_DESCRIPTION = {
    "layers": "a layer-info export (--exportLayerInfo)",
    "profile": "a per-layer profile (--exportProfile)",
    "times": "a timing trace (--exportTimes)",
    "output": "an output dump (--exportOutput)",
    "unknown": "JSON of no trtexec export shape",
}
_TIMES_KEYS = {"computeMs", "latencyMs", "startComputeMs", "endComputeMs"}


def read_json_file(path: str | os.PathLike[str]) -> tuple[str, list[Any]]:
    """The name and top-level JSON values of an export file (``.gz`` allowed).

    Raises:
        InputError: missing, empty, binary or not JSON.
    """
    name = os.fspath(path)
    p = Path(name)
    if not p.is_file():
        raise InputError(
            "no such file" if not p.exists() else "this is not a file",
            source=name,
            hint="check the path (relative to the working folder)",
        )
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputError(f"the gzip file cannot be read ({exc})", source=name) from None
    if raw.startswith(codecs.BOM_UTF8):
        text = raw[3:].decode("utf-8", errors="replace")
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = raw.decode("utf-16", errors="replace")
    else:
        if b"\x00" in raw[:4096]:
            raise InputError(
                "this is a binary file, not a JSON export",
                source=name,
                hint="pass the .json file trtexec wrote with --exportLayerInfo, "
                "--exportProfile or --exportTimes",
            )
        text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        raise InputError("the file is empty", source=name, hint="re-run trtexec with the export")
    first = text.lstrip()[:1]
    if first not in ("{", "["):
        raise InputError(
            f"this is not JSON (it starts with {text.lstrip()[:30]!r})",
            source=name,
            line=1,
            hint="logs are read with trtlog.parse; JSON exports with load_engine, "
            "load_profile or load_times",
        )
    try:
        return name, read_json_values(text, source=name)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        column = getattr(exc, "colno", None)
        raise InputError(
            f"the file is not JSON even after repairing what trtexec writes ({exc})",
            source=name,
            line=line if isinstance(line, int) else None,
            column=column if isinstance(column, int) else None,
            hint="the file may be truncated; re-export it",
        ) from None


def detect_kind(value: Any) -> JsonKind:
    """Which trtexec export a parsed JSON value looks like.

    Example:
        >>> detect_kind([{"count": 3}, {"name": "a", "timeMs": 1}])
        'profile'
        >>> detect_kind({"Layers": ["a", "b"], "Bindings": ["x"]})
        'layers'
    """
    if isinstance(value, dict):
        if "Layers" in value or "layers" in value:
            return "layers"
        return "unknown"
    if not isinstance(value, list) or not value:
        return "unknown"
    items = [v for v in value if isinstance(v, dict)]
    if all(isinstance(v, str) for v in value):
        return "layers"
    if items and any("timeMs" in v or "averageMs" in v for v in items):
        return "profile"
    if items and len(items) == 1 and set(items[0]) == {"count"}:
        return "profile"
    if items and any(_TIMES_KEYS & set(v) for v in items):
        return "times"
    if items and all("values" in v and "name" in v for v in items):
        return "output"
    if items and all("Name" in v and ("LayerType" in v or "Inputs" in v) for v in items):
        return "layers"
    return "unknown"


def _wrong_kind(name: str, found: JsonKind, wanted: JsonKind) -> InputError:
    hint = f"read it with {_LOADER[found]}" if found in _LOADER else None
    return InputError(
        f"this is {_DESCRIPTION[found]}, not {_DESCRIPTION[wanted]}", source=name, hint=hint
    )


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """Read an ``--exportProfile`` file (any version; 7.x files with one array per run too).

    Use ``profile.records`` (first run), ``profile.iterations`` and ``profile.total_ms``.

    Raises:
        InputError: the file is missing, not JSON, or another kind of export.
    """
    name, values = read_json_file(path)
    runs = []
    for value in values:
        kind = detect_kind(value)
        if kind != "profile":
            raise _wrong_kind(name, kind, "profile")
        iterations: int | None = None
        records = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise InputError(f"profile entry {i} is not an object", source=name)
            if set(item) == {"count"}:
                iterations = int(item["count"])
                continue
            try:
                known: dict[str, Any] = {
                    "name": str(item["name"]),
                    "time_ms": _float(item["timeMs"]),
                    "average_ms": _float(item["averageMs"]),
                    "median_ms": _float(item["medianMs"]) if "medianMs" in item else None,
                    "percentage": _float(item.get("percentage", float("nan"))),
                }
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(
                    f"profile entry {i} ({str(item)[:80]}) lacks or garbles {exc}",
                    source=name,
                    hint="expected name, timeMs, averageMs, percentage (and medianMs 8.4+)",
                ) from None
            extra = {
                k: v
                for k, v in item.items()
                if k not in ("name", "timeMs", "averageMs", "medianMs", "percentage")
            }
            records.append(ProfileRecord(**known, **extra))
        runs.append(ProfileRun(iterations=iterations, records=tuple(records)))
    return Profile(source=name, runs=tuple(runs))


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


def load_times(path: str | os.PathLike[str]) -> Times:
    """Read an ``--exportTimes`` file (all four key sets; one array per run too).

    Field names are version-independent (:class:`~trtlog.layers.TimingRecord`); the swapped
    enqueue/input values of 7.1/7.2 files are put back where they belong.

    Raises:
        InputError: the file is missing, not JSON, or another kind of export.
    """
    name, values = read_json_file(path)
    runs = []
    for value in values:
        kind = detect_kind(value)
        if kind != "times" and not (isinstance(value, list) and not value):
            raise _wrong_kind(name, kind, "times")
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
                    fields[field] = _float(raw)
                except (TypeError, ValueError):
                    fields[field] = raw
            try:
                records.append(TimingRecord(**fields))
            except ValidationError as exc:
                raise InputError(
                    f"timing entry {i}: {exc.errors()[0]['msg']}", source=name
                ) from None
        runs.append(TimingRun(keys=keys, records=tuple(records)))
    return Times(source=name, runs=tuple(runs))
