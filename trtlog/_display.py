"""Short text and HTML summaries of the big objects, for consoles and notebooks.

Part of the data model (no dependencies). A ``Build`` holds every line and event of a log and
an ``Engine`` every layer with its tensors: their default pydantic reprs run to megabytes, and
a notebook cell that shows one floods or freezes. Their ``__repr__`` says what they are in
one line, and ``_repr_html_`` shows a small table; the data stay one attribute away.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any, TextIO

__all__ = [
    "SafeStream",
    "clip",
    "csv_cell",
    "escaped",
    "html_table",
    "json_visible",
    "number",
    "plural",
    "top_counts",
    "visible",
    "write_csv",
]

# Characters that act on a terminal (or reorder what it shows) rather than print: C0 controls
# (ESC starts CSI/OSC sequences, BEL, BS and CR overwrite, NUL), DEL, C1 controls (U+009B is a
# one-character CSI), the bidirectional overrides, embeddings, isolates and marks (U+202E shows
# text right to left), the Unicode line and paragraph separators, and lone surrogates (which
# no UTF-8 stream can even encode).
_OTHERS = (
    "\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff"
)
_UNSAFE_TEXT = re.compile(f"[\\x00-\\x1f{_OTHERS}]")
_UNSAFE_STREAM = re.compile(f"[\\x00-\\x08\\x0b-\\x1f{_OTHERS}]")  # keeps tab and newline
_UNSAFE_JSON = re.compile(f"[{_OTHERS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every character that would act on a terminal shown as an escape.

    Names and messages come from whoever wrote the model or the log: printed raw, ``ESC [2J``
    clears the reader's screen, an OSC 8 sequence hides a link, ``U+202E`` reverses what
    follows and a newline makes a fake table row. Each such character becomes its Python
    escape (``\\x1b``, ``\\u202e``, ``\\n``); tabs and, with ``lines=True``, newlines stay.

    Example:
        >>> visible("a\\x1b[31mred\\u202e\\nb")
        'a\\\\x1b[31mred\\\\u202e\\\\nb'
        >>> visible("two\\nlines\\r", lines=True)
        'two\\nlines\\\\r'
    """
    pattern = _UNSAFE_STREAM if lines else _UNSAFE_TEXT
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


def json_visible(text: str) -> str:
    """JSON text with the characters a terminal acts on written as ``\\uXXXX`` escapes.

    The JSON stays exact (it decodes to the same values): C0 controls are escaped by every
    JSON encoder already, and the others (DEL, C1, bidirectional controls, line separators,
    lone surrogates) can only stand inside strings, where an escape means the same character.

    Example:
        >>> json_visible('["\\u009b2J\\u202e"]')
        '["\\\\u009b2J\\\\u202e"]'
    """
    if _UNSAFE_JSON.search(text) is None:
        return text
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: The characters a spreadsheet reads as the start of a formula (OWASP, CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: ``'`` before text that starts like a formula.

    ``=HYPERLINK(...)``, ``+cmd|...``, ``-2+3``, ``@SUM(...)`` and text starting with a tab or
    a carriage return run as formulas when a spreadsheet opens the file; the OWASP guidance is
    to prefix such a cell with a single quote, which spreadsheets show as text (and hide). Only
    text is guarded: numbers (``-1.5`` in a number column) stay numbers.

    Example:
        >>> csv_cell('=HYPERLINK("http://x")'), csv_cell("conv1"), csv_cell(-1.5)
        ('\\'=HYPERLINK("http://x")', 'conv1', -1.5)
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def write_csv(frame: Any, out: TextIO, *, raw: bool = False) -> None:
    """Write a pandas frame as CSV, its text cells guarded (:func:`csv_cell`) unless ``raw``.

    A cell holding a carriage return is quoted, raw or not (pandas' writer quotes a line feed
    but writes a lone CR bare, which a reader takes for the end of the row). ``raw=True`` (the
    CLI's ``--csv-raw``) writes the values exactly as they are.
    """
    import uuid

    # a line feed makes the writer quote the cell; the random text makes the marker unique
    marker = f"\n{uuid.uuid4().hex}"
    seen = False

    def guard(value: Any) -> Any:
        nonlocal seen
        if not isinstance(value, str):
            return value
        if not raw:
            value = csv_cell(value)
        if "\r" in value:
            seen = True
            value = value.replace("\r", marker)
        return value

    text_columns = {
        name: frame[name].astype(object).map(guard)
        for name, dtype in frame.dtypes.items()
        if dtype.kind == "O" or str(dtype) in ("string", "category")
    }
    guarded = frame.assign(**text_columns) if text_columns else frame
    text = guarded.to_csv(index=False)
    out.write(text.replace(marker, "\r") if seen else text)


class SafeStream:
    """A text stream that shows terminal controls as escapes (:func:`visible`, newlines kept).

    The CLI writes its text and table output through one, so that no name or message of the
    input acts on the reader's terminal; ``json=True`` escapes the way JSON does instead
    (:func:`json_visible`), so JSON output stays exact.
    """

    def __init__(self, stream: TextIO, *, json: bool = False) -> None:
        self.stream = stream
        self._clean = json_visible if json else lambda text: visible(text, lines=True)

    def write(self, text: str) -> int:
        """Write ``text``, escaped; return the length given (as a text stream does)."""
        self.stream.write(self._clean(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        """Write each of ``lines``."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, buffer, encoding, fileno, ...
        return getattr(self.stream, name)


def number(value: float, digits: int = 4, *, sign: bool = False) -> str:
    """``value`` to ``digits`` significant digits, with every digit of its integer part.

    The one formatter of the text outputs' times, sizes and rates. ``format(v, ".3g")`` turns
    ``1048.27`` into ``1.05e+03``, which reads as a different kind of figure and hides the
    seconds; here a number of 1 or more never takes an exponent: when its integer part has
    more digits than ``digits`` it keeps them all, and two decimals at most. Below ``1e-4``
    the exponent stays (``1.2e-05`` reads better than ``0.000012``). ``sign``: a ``+`` before
    a positive value (a difference).

    Example:
        >>> number(1048.27, 3), number(0.039, 3), number(52765.3), number(2.5e-05)
        ('1048.27', '0.039', '52765.3', '2.5e-05')
        >>> number(1000.0, 3), number(-12345.678), number(float("nan"))
        ('1000', '-12345.68', 'nan')
        >>> number(12345.678, sign=True), number(-0.07884, sign=True), number(0.0, sign=True)
        ('+12345.68', '-0.07884', '+0')
    """
    text = f"{value:{'+' if sign else ''}.{digits}g}"
    if "e" not in text or abs(value) < 1 or not math.isfinite(value):
        return text
    return f"{value:{'+' if sign else ''}.2f}".rstrip("0").rstrip(".")


def plural(n: int, noun: str) -> str:
    """``1 run``, ``3 runs``.

    Example:
        >>> plural(1, "run"), plural(3, "layer")
        ('1 run', '3 layers')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def clip(text: str, width: int = 100) -> str:
    """``text`` on one line (controls shown as escapes) cut to ``width`` characters (``…``).

    Example:
        >>> clip("abcdef", 4), clip("a\\nb")
        ('abc…', 'a\\\\nb')
    """
    text = visible(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def top_counts(values: Iterable[object], n: int = 6) -> str:
    """The most frequent values with their counts: ``CaskConvolution 33, Reformat 12, …``.

    Example:
        >>> top_counts(["a", "b", "a", None], n=1)
        'a 2, 2 more'
    """
    counts = Counter("?" if v is None else str(v) for v in values)
    shown = [f"{k} {c:,}" for k, c in counts.most_common(n)]
    if len(counts) > n:
        shown.append(f"{sum(c for _, c in counts.most_common()[n:]):,} more")
    return ", ".join(shown)


def html_table(title: str, rows: Sequence[tuple[str, object]]) -> str:
    """A two-column HTML table (rows whose value is ``None`` or empty are left out).

    Example:
        >>> html_table("Build", [("lines", 3), ("device", None)]).count("<tr>")
        1
    """
    cells = "".join(
        f"<tr><th style='text-align:left'>{escape(key)}</th>"
        f"<td style='text-align:left'>{escape(str(value))}</td></tr>"
        for key, value in rows
        if value is not None and value != ""
    )
    return (
        f"<table><caption style='text-align:left'><b>{escape(title)}</b></caption>{cells}</table>"
    )


def escaped(text: Any) -> Any:
    """A text with its lone surrogates escaped (``\\udcff``), as a frame's cell shows it.

    Anything else as it is.

    Example:
        >>> escaped("b\\udcff"), escaped(None)
        ('b\\\\udcff', None)
    """
    if isinstance(text, str):
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
