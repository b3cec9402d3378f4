"""Short text and HTML summaries of the big objects, for consoles and notebooks.

Part of the data model (no dependencies). A ``Build`` holds every line and event of a log and
an ``Engine`` every layer with its tensors: their default pydantic reprs run to megabytes, and
a notebook cell that shows one floods or freezes. Their ``__repr__`` says what they are in
one line, and ``_repr_html_`` shows a small table; the data stay one attribute away.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from html import escape

__all__ = ["clip", "html_table", "plural", "top_counts"]


def plural(n: int, noun: str) -> str:
    """``1 run``, ``3 runs``.

    Example:
        >>> plural(1, "run"), plural(3, "layer")
        ('1 run', '3 layers')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def clip(text: str, width: int = 100) -> str:
    """``text`` cut to ``width`` characters, with ``…`` when cut.

    Example:
        >>> clip("abcdef", 4)
        'abc…'
    """
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
