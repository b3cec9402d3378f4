"""Reading a JSON export's text and telling which export it is.

Part of the exports package (the JSON side of the readers). Files are read as text (UTF-8,
UTF-8/16 with BOM, ``.gz``), parsed with the tolerant reader of :mod:`trtlog.exports.jsonio`
and recognised by their shape (:func:`detect_kind`). A file that is not the export asked for
gets an :class:`~trtlog.errors.InputError` that names the file, says what it looks like and
which loader reads it (:func:`wrong_kind`).
"""

from __future__ import annotations

import codecs
import os
import re
import sys
from typing import Any, Literal

from trtlog._files import gunzip, read_bytes
from trtlog.errors import InputError
from trtlog.exports.jsonio import (
    JsonLimitError,
    check_json_size,
    max_json_bytes,
    plain_json,
    read_json_values,
)

__all__ = [
    "JsonInput",
    "JsonKind",
    "as_float",
    "detect_kind",
    "read_json_bytes",
    "read_json_file",
    "wrong_kind",
]

JsonKind = Literal["layers", "profile", "times", "output", "trace", "unknown"]

_LOADER = {
    "layers": "trtlog.load_engine (or `trtlog layers FILE`)",
    "profile": "trtlog.load_profile (or `trtlog layers FILE`)",
    "times": "trtlog.load_times (or `trtlog layers FILE`)",
    "output": "nothing in trtlog yet (it holds output tensor values, not timings)",
    "trace": "trtlog.load_profile (or `trtlog layers LAYER_JSON --profile FILE`)",
}
_DESCRIPTION = {
    "layers": "a layer-info export (--exportLayerInfo)",
    "profile": "a per-layer profile (--exportProfile)",
    "times": "a timing trace (--exportTimes)",
    "output": "an output dump (--exportOutput)",
    "trace": "a Chrome/Perfetto trace (Torch-TensorRT profile_format='perfetto')",
    "unknown": "JSON of no trtexec export shape",
}
_TIMES_KEYS = {"computeMs", "latencyMs", "startComputeMs", "endComputeMs"}


_NOT_SPACE = re.compile(r"\S")

#: What the JSON loaders take.
JsonInput = str | os.PathLike[str] | bytes


def read_json_file(path: JsonInput) -> tuple[str, list[Any]]:
    """The name and top-level JSON values of an export file (``.gz`` allowed).

    ``path`` is a path, ``"-"`` for standard input, or the file's bytes.

    Raises:
        InputError: missing, empty, binary or not JSON.
        TypeError: ``path`` is none of these.
    """
    if isinstance(path, bytes | bytearray):
        name, raw = "<bytes>", bytes(path)
        check_json_size(len(raw), name)
    elif not isinstance(path, str | os.PathLike):
        raise TypeError(
            "trtlog.load_engine, load_profile and load_times take a path to a JSON export "
            f"(str or os.PathLike; .gz too), '-' for standard input or its bytes, not "
            f"{type(path).__name__}"
        )
    elif os.fspath(path) == "-":
        name, raw = "<stdin>", sys.stdin.buffer.read(max_json_bytes() + 1)
        check_json_size(len(raw), name)
    else:
        name = os.fspath(path)
        # missing, folder, no permission, FIFO: trtlog/_files.py; too big: refused unread
        raw = read_bytes(name, limit=max_json_bytes(), refuse=check_json_size)
    return read_json_bytes(raw, name)


def read_json_bytes(raw: bytes, name: str) -> tuple[str, list[Any]]:
    """The top-level JSON values of an export's bytes (gzip, a BOM and UTF-16 allowed).

    Raises:
        InputError: empty, binary or not JSON.
    """
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gunzip(raw, name)  # bounded: a gzip bomb is an InputError
        except (OSError, EOFError) as exc:
            raise InputError(f"the gzip file cannot be read ({exc})", source=name) from None
        check_json_size(len(raw), name)
    if raw.startswith(codecs.BOM_UTF8):
        text = raw[3:].decode("utf-8", errors="replace")
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = raw.decode("utf-16", errors="replace")
    elif b"\x00" in raw[:4096]:  # UTF-16 without a BOM (its NUL pattern), or binary
        from trtlog.parser.source import looks_utf16  # (the log reader's test, for these only)

        utf16 = looks_utf16(raw[:4096])
        if utf16 is None:
            raise InputError(
                "this is a binary file, not a JSON export",
                source=name,
                hint="pass the .json file trtexec wrote with --exportLayerInfo, "
                "--exportProfile or --exportTimes",
            )
        text = raw.decode(utf16, errors="replace")
    else:
        fast = plain_json(raw)  # orjson reads UTF-8 bytes as they are
        if fast is not None:
            return name, fast
        text = raw.decode("utf-8", errors="replace")
    start = _NOT_SPACE.search(text)  # (no stripped copy of a large file)
    if start is None:
        raise InputError("the file is empty", source=name, hint="re-run trtexec with the export")
    first = text[start.start()]
    if first not in ("{", "["):
        raise InputError(
            f"this is not JSON (it starts with {text[start.start() : start.start() + 30]!r})",
            source=name,
            line=1,
            hint="logs are read with trtlog.parse; JSON exports with load_engine, "
            "load_profile or load_times",
        )
    try:
        return name, read_json_values(text, source=name)
    except JsonLimitError as exc:
        line = column = None
        if exc.position is not None:
            line = text.count("\n", 0, exc.position) + 1
            column = exc.position - text.rfind("\n", 0, exc.position)
        raise InputError(exc.what, source=name, line=line, column=column, hint=exc.hint) from None
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
        if isinstance(value.get("traceEvents"), list):  # a Chrome trace's object form
            return "trace"
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
    if items and all("ph" in v and "dur" in v for v in items):
        return "trace"
    if items and all("Name" in v and ("LayerType" in v or "Inputs" in v) for v in items):
        return "layers"
    return "unknown"


def wrong_kind(name: str, found: JsonKind, wanted: JsonKind) -> InputError:
    """The error for a JSON export of another kind than the one asked for (says what reads it)."""
    hint = f"read it with {_LOADER[found]}" if found in _LOADER else None
    return InputError(
        f"this is {_DESCRIPTION[found]}, not {_DESCRIPTION[wanted]}", source=name, hint=hint
    )


def as_float(value: Any) -> float:
    """A JSON number (or numeric string) as a float; raises ``TypeError`` for anything else."""
    if type(value) is float:  # fast path
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)
