"""Reading the JSON trtexec writes, including the invalid JSON it is known to write.

Part of the parser (JSON side; formats.md "JSON formats" and trap T22). trtexec writes its
exports with hand-rolled stream code: names are not escaped (a ``"`` or ``\\`` in a layer name
breaks the file), numbers can be ``nan``/``inf``, and a script that loops over runs appends one
top-level array per run to the same file. Torch-TensorRT's profile traces (TREx format) end
each record with a comma before its ``}``. :func:`read_json_values` tries a strict parse first,
then repairs exactly those defects (with a warning that says what was repaired), and returns
every top-level value in the file.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from typing import Any

__all__ = [
    "MAX_JSON_BYTES",
    "USE_ORJSON",
    "JsonLimitError",
    "JsonRepairWarning",
    "check_json_size",
    "max_json_bytes",
    "plain_json",
    "read_json_values",
]

#: The largest JSON export trtlog reads (bytes, after gzip): ``$TRTLOG_MAX_JSON_BYTES``
#: overrides it. A file is read whole and every record becomes an object: a profile takes
#: about five times its size in memory at its peak (1,000,000 records, 180 MB: under 1 GiB),
#: so this keeps the largest one under about 2 GiB. Real exports are far smaller: the
#: corpus's largest is a 3.5 MB timing file, and 20,000 detailed layers take 33 MB.
MAX_JSON_BYTES = 256 << 20


def max_json_bytes() -> int:
    """:data:`MAX_JSON_BYTES`, or ``$TRTLOG_MAX_JSON_BYTES`` when set to a number."""
    setting = os.environ.get("TRTLOG_MAX_JSON_BYTES", "").strip()
    return int(setting) if setting.isdigit() else MAX_JSON_BYTES


def check_json_size(size: int, source: str) -> None:
    """Refuse a JSON export of ``size`` bytes over :func:`max_json_bytes`, before it is read.

    Raises:
        InputError: it is larger.

    Example:
        >>> check_json_size(10, "profile.json")
        >>> check_json_size(1 << 40, "profile.json")
        Traceback (most recent call last):
        ...
        trtlog.errors.InputError: profile.json: the JSON export has 1,099,511,627,776 bytes, more than the 268,435,456 trtlog reads (its records would take several times that in memory) (hint: set TRTLOG_MAX_JSON_BYTES to a larger number of bytes if the memory is there, or export fewer iterations)
    """  # noqa: E501
    limit = max_json_bytes()
    if size > limit:
        from trtlog.errors import InputError

        raise InputError(
            f"the JSON export has {size:,} bytes, more than the {limit:,} trtlog reads (its "
            "records would take several times that in memory)",
            source=source,
            hint="set TRTLOG_MAX_JSON_BYTES to a larger number of bytes if the memory is "
            "there, or export fewer iterations",
        )


#: Whether to read JSON with orjson when it is installed (``pip install trtlog[fast]``): a
#: faster decoder for the common case, a file that is valid JSON; anything it rejects is read
#: by the standard library's decoder and the repairs below, as without it. The environment
#: variable ``TRTLOG_JSON=json`` turns it off (so do tests that check the standard path).
USE_ORJSON = os.environ.get("TRTLOG_JSON", "").strip().lower() != "json"

_DECODER = json.JSONDecoder()
_NON_FINITE = re.compile(r"(?<![\w.\"])(-?)(nan|inf|infinity)(?![\w.\"])", re.IGNORECASE)
_VALID_ESCAPES = set('"\\/bfnrtu')
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


class JsonRepairWarning(UserWarning):
    """An export was not valid JSON and was read after a repair (the message says which)."""


class JsonLimitError(ValueError):
    """JSON beyond what trtlog reads: nesting too deep, an integer too long (README "Limits").

    Attributes:
        what: what was found, for the user.
        hint: what to do about it.
        position: the character offset in the text, when known.
    """

    def __init__(self, what: str, hint: str, position: int | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.hint = hint
        self.position = position


#: The most digits an integer in a JSON export may have: Python's own limit on converting
#: text to int (sys.get_int_max_str_digits(), 4300); trtexec writes 64-bit integers (20 digits).
# a run of more than 4,300 digits; the run starting with a digit lets `re` skip ahead fast
# (a leading look-behind made the search test every position: superlinear in practice);
# ASCII digits only, the only digits of a JSON number (``\d`` also tests every character for
# the Unicode digits: a third slower on a long line, which the linear-time test saw)
_LONG_DIGITS = re.compile(r"[0-9]{4301,}")


def _long_integer(text: str) -> re.Match[str] | None:
    """The first integer (not a fraction or exponent) of more than 4,300 digits in ``text``."""
    for m in _LONG_DIGITS.finditer(text):
        before = text[max(m.start() - 2, 0) : m.start()]
        after = text[m.end() : m.end() + 1]
        if (
            before[-1:] not in (".", "e", "E", "+")
            and before not in ("e-", "E-")
            and (after not in (".", "e", "E"))
        ):
            return m
    return None


def read_json_values(text: str, *, source: str = "<json>") -> list[Any]:
    """Every top-level JSON value of ``text`` (usually one; one per run in looped 7.x files).

    Raises:
        ValueError: the text is not JSON even after the known repairs (with the position).
        JsonLimitError: JSON nested deeper than about 900 levels, or an integer of more than
            4,300 digits (a :class:`ValueError` too).
    """
    if USE_ORJSON:
        fast = _orjson_loads()
        if fast is not None:
            try:
                return [fast(text)]
            except ValueError:  # orjson.JSONDecodeError: not plain JSON, read it below
                pass
    repairs: list[str] = []
    try:
        try:
            values = _all_values(text)
        except json.JSONDecodeError:
            fixed, what = _repair(text)
            repairs.extend(what)
            values = _all_values(fixed)
    except RecursionError:
        raise JsonLimitError(
            "the JSON is nested deeper than trtlog reads (about 900 levels; trtexec's exports "
            "nest 6)",
            "this is not an export trtexec wrote; check where the file came from",
        ) from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        # int("1" * 5000): Python refuses to convert integers of more than 4300 digits
        long = _long_integer(text)
        digits = len(long.group()) if long else None
        raise JsonLimitError(
            f"the JSON holds an integer of {digits or 'more than 4,300'} digits; trtlog reads "
            "integers of up to 4,300 digits (trtexec writes 64-bit integers: at most 20)",
            "this is not an export trtexec wrote; check where the file came from",
            long.start() if long else None,
        ) from None
    if len(values) > 1:
        repairs.append(f"{len(values)} top-level values, one per run")
    if repairs:
        warnings.warn(
            f"{source}: read as JSON after repairing what trtexec writes: {'; '.join(repairs)}",
            JsonRepairWarning,
            stacklevel=3,
        )
    return values


_FIRST_BYTE = re.compile(rb"[^ \t\r\n]")


def plain_json(raw: bytes) -> list[Any] | None:
    """The JSON value of UTF-8 ``raw`` read by orjson, if it can (else ``None``).

    ``None`` without orjson (or with :data:`USE_ORJSON` off), and for anything orjson rejects
    (invalid UTF-8, ``nan``, several top-level values, nesting deeper than 1,024): the
    caller then decodes the text and reads it with :func:`read_json_values`.
    """
    if not USE_ORJSON:
        return None
    fast = _orjson_loads()
    if fast is None:
        return None
    first = _FIRST_BYTE.search(raw)
    if first is None or raw[first.start()] not in b"{[":
        return None
    try:
        return [fast(raw)]
    except ValueError:  # orjson.JSONDecodeError
        return None


_ORJSON: list[Any] = []  # [orjson.loads] once imported, [None] when orjson is not installed


def _orjson_loads() -> Any:
    """``orjson.loads``, or ``None`` without orjson (imported on first use)."""
    if not _ORJSON:
        try:
            import orjson
        except ImportError:
            _ORJSON.append(None)
        else:
            _ORJSON.append(orjson.loads)
    return _ORJSON[0]


def _all_values(text: str) -> list[Any]:
    values = []
    pos = _skip_ws(text, 0)
    while pos < len(text):
        value, pos = _DECODER.raw_decode(text, pos)
        values.append(value)
        pos = _skip_ws(text, pos)
    if not values:
        raise json.JSONDecodeError("no JSON value", text, 0)
    return values


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _repair(text: str) -> tuple[str, list[str]]:
    """Escape stray quotes and backslashes inside strings, spell nan/inf the JSON way."""
    out: list[str] = []
    repaired_quotes = repaired_slashes = 0
    in_string = False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if not in_string:
            if ch == '"':
                in_string = True
            out.append(ch)
            i += 1
            continue
        if ch == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt in _VALID_ESCAPES:
                out.append(text[i : i + 2])
                i += 2
            else:
                out.append("\\\\")
                repaired_slashes += 1
                i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < n and text[j] in " \t":
                j += 1
            if j >= n or text[j] in ",:}]\r\n":
                in_string = False
                out.append(ch)
            else:
                out.append('\\"')
                repaired_quotes += 1
            i += 1
            continue
        if ch in "\r\n":
            out.append("\\n" if ch == "\n" else "\\r")
            i += 1
            continue
        out.append(ch)
        i += 1
    fixed = "".join(out)
    what = []
    if repaired_quotes:
        what.append(f"{repaired_quotes} unescaped quote(s) in names")
    if repaired_slashes:
        what.append(f"{repaired_slashes} unescaped backslash(es)")
    fixed, count, commas = _replace_non_finite(fixed)
    if count:
        what.append(f"{count} nan/inf number(s)")
    if commas:
        what.append(f"{commas} trailing comma(s) before a closing bracket (Torch-TensorRT traces)")
    return fixed, what or ["invalid JSON"]


def _replace_non_finite(text: str) -> tuple[str, int, int]:
    """``nan``/``-nan``/``inf`` outside strings → ``NaN``/``Infinity`` (which Python reads).

    Also drops a comma right before ``}`` or ``]`` outside strings (Torch-TensorRT's profile
    traces end every record with ``"percentage": <x>,`` then ``}``). Returns the text and how
    many numbers and commas were repaired.
    """
    parts: list[str] = []
    count = commas = 0
    start = 0  # start of the current stretch (outside or inside a string)
    in_string = False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if in_string and ch == "\\":
            i += 2
            continue
        if ch == '"':
            if in_string:  # keep a string as it is, closing quote included
                parts.append(text[start : i + 1])
                start = i + 1
            else:  # repair the stretch outside strings before the opening quote
                chunk, k = _NON_FINITE.subn(_spell, text[start:i])
                chunk, c = _TRAILING_COMMA.subn(r"\1", chunk)
                parts.append(chunk)
                count += k
                commas += c
                start = i
            in_string = not in_string
        i += 1
    if in_string:
        parts.append(text[start:])
    else:
        chunk, k = _NON_FINITE.subn(_spell, text[start:])
        chunk, c = _TRAILING_COMMA.subn(r"\1", chunk)
        parts.append(chunk)
        count += k
        commas += c
    return "".join(parts), count, commas


def _spell(m: re.Match[str]) -> str:
    word = m.group(2).lower()
    if word == "nan":
        return "NaN"
    return ("-" if m.group(1) else "") + "Infinity"
