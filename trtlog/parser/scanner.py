"""The scanner: a log's one-line messages kept as rows, every other line through the line parser.

Part of the parser, used by :func:`trtlog.parse`. Most lines of a log are one-line messages
of rules that change no parser state (``Tactic: ... Time: ...``, ``Running: ...``): the
scanner matches each such line once with its rule's grammar-compiled alternative
(:class:`~trtlog.parser.compiled.Shape`) and keeps what the match found (the line number, the
severity letter, the texts of the groups the alternative's ``make`` takes) in the rows of
that alternative. It builds no event: the event store (:mod:`trtlog.buildlog.store`) builds
a row's event when a view asks for it, with the same ``make`` the line parser calls. Every
other line goes through :meth:`LogParser.feed <trtlog.parser.stream.LogParser.feed>`, in
order, as does every line while the line parser holds state (a section, a multi-line
construct, a records block an enveloped line can end).

:class:`~trtlog.parser.shapes.LineShapes` decides which lines are rows, as it does for the
line parser's own loop. The alternatives it learns that start with their keyword row's
prefix are also joined into one pattern that reads a line's envelope, and its message if it
is one of theirs, at C speed (:func:`~trtlog.parser.shapes.alternation`); a message that
starts with a name goes to its row through the keyword table (:meth:`LineShapes.match_after
<trtlog.parser.shapes.LineShapes.match_after>`). A line the line parser makes
``unrecognized`` (a program's own output, repeated in a loop) is kept as a row too: the same
line in the same state gives the same event.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from trtlog.events.base import Unrecognized
from trtlog.parser.compiled import Shape
from trtlog.parser.shapes import Known, LineShapes, alternation
from trtlog.parser.source import iter_lines
from trtlog.parser.stream import LogParser

__all__ = ["PIECE", "HotRows", "Repeats", "Scan", "scan"]

#: Characters per piece: the text is read in slices of about this size cut after a ``\n``
#: (the progress display is called after each).
PIECE = 1 << 22

#: Rows the Python path takes before the pattern of the alternatives it learned is made
#: (again): compiling it costs about what the Python path loses on a few thousand lines.
_TEACH = 2048

#: Distinct unrecognized lines remembered at most (each with the event's fields).
_REPEATS = 1 << 16


class HotRows:
    """The rows of one alternative (and one event kind): line numbers, letters, group texts.

    Attributes:
        shape: the compiled alternative.
        kind: the event kind its rows give.
        lines: the 1-based line number of each row.
        texts: per row, the envelope's two severity groups (one of them ``None``) and then
            the texts of the groups ``shape.make`` takes, flat (``width`` items a row).
        width: items per row in ``texts``.
    """

    __slots__ = ("kind", "lines", "shape", "texts", "width")

    def __init__(self, shape: Shape, kind: str) -> None:
        self.shape = shape
        self.kind = kind
        self.lines: array[int] = array("q")
        self.texts: list[str | None] = []
        self.width = 2 + len(shape.groups)

    def letters(self) -> list[str]:
        """The severity letter of every row."""
        texts, width = self.texts, self.width
        return [a or b for a, b in zip(texts[0::width], texts[1::width], strict=True)]  # type: ignore[misc]

    def groups(self) -> list[list[str | None]]:
        """Per group ``shape.make`` takes, its text in every row."""
        texts, width = self.texts, self.width
        return [texts[j::width] for j in range(2, width)]


class Repeats:
    """Unrecognized lines kept as rows: line numbers, and per row its event's fields.

    Rows with the same text share one dict of fields (the span aside).

    Attributes:
        lines: the 1-based line number of each row.
        fields: per row, the fields of its ``unrecognized`` event.
    """

    __slots__ = ("fields", "lines")

    def __init__(self) -> None:
        self.lines: array[int] = array("q")
        self.fields: list[dict[str, Any]] = []


class Scan:
    """What a scan produced: the rows and the line parser's events.

    Attributes:
        hot: the rows of every alternative that took a line.
        repeats: the unrecognized lines kept as rows.
        cold: the events of every other line, in file order.
        n_lines: the number of lines.
    """

    __slots__ = ("cold", "hot", "n_lines", "repeats")

    def __init__(
        self, hot: list[HotRows], cold: list[Any], n_lines: int, repeats: Repeats | None = None
    ) -> None:
        self.hot = hot
        self.repeats = repeats or Repeats()
        self.cold = cold
        self.n_lines = n_lines


_Table = dict[int, tuple[Any, Any, tuple[int, ...], Any]]


def _fast(knowns: list[Known], hot: list[HotRows]) -> tuple[Callable[[str], Any], _Table]:
    """The pattern of ``knowns`` (its ``match``), and where a match of each goes.

    See :func:`alternation`. ``knowns`` are ``prefixed`` alternatives. Per ``lastindex``:
    its rows' line list, its rows' texts, the groups to keep, and the keyword row the message
    must go to (``None`` for a ``keyed`` alternative: a match tells).
    """
    for known in knowns:
        if known.rows is None:
            known.rows = HotRows(known.shape, known.kind or "")
            hot.append(known.rows)
    # the most frequent first: a line tries fewer
    knowns.sort(key=lambda k: -len(k.rows.lines))
    pattern, table = alternation(knowns)
    return pattern.match, {
        index: (
            known.rows.lines.append,
            known.rows.texts.extend,
            at,
            None if known.keyed else known.route,
        )
        for index, (known, at) in table.items()
    }


def _worth(shapes: LineShapes, n: int, built: set[Known]) -> list[Known]:
    """The learned alternatives worth a place in a pattern (those in one keep it).

    Only ``prefixed`` ones: an alternative that starts with a name (found through a
    ``contains`` row) would be tried, and fail, on every line the others miss, scanning
    the whole message, and a match of it holds only if the keyword table routes the
    message to its row; :meth:`LineShapes.match_after` finds it through that row instead.
    Compiling a pattern costs about a millisecond per alternative, what the Python path
    loses on a few hundred lines: an alternative that took fewer is left to it.
    """
    least = max(16, min(256, n >> 8))
    return [
        k
        for k in shapes.learned()
        if k.prefixed and (k in built or (k.rows is not None and len(k.rows.lines) >= least))
    ]


def scan(
    text: str,
    parser: LogParser,
    piece: int = PIECE,
    progress: Callable[[int, int], None] | None = None,
) -> Scan:
    """Scan ``text`` (a whole log): rows per alternative, every other line through ``parser``.

    Args:
        text: the decoded log.
        parser: a fresh line parser (not strict).
        piece: characters per piece (tests use small pieces to move the boundaries).
        progress: called after each piece with the characters scanned and the total.

    Raises:
        InputError: no line of ``text`` is a TensorRT or trtexec message.
    """
    from trtlog.errors import InputError

    feed = parser.feed
    shapes = LineShapes(parser.dispatcher, parser._plain)
    match, match_after = shapes.match, shapes.match_after
    lookup = parser.dispatcher.lookup
    cold: list[Any] = []
    add, extend = cold.append, cold.extend
    hot: list[HotRows] = []
    repeats = Repeats()
    # text of an unrecognized line -> its fields and whether it counts as a TensorRT line
    repeated: dict[str, tuple[dict[str, Any], int]] = {}
    repeated_get = repeated.get
    repeat_line, repeat_fields = repeats.lines.append, repeats.fields.append
    recognized = 0  # TensorRT lines among the repeats
    # the envelope, and the learned alternatives as one pattern: a C-speed first try
    fast, table = _fast([], hot)
    taught = 0  # rows the Python path took since the last pattern
    built: set[Known] = set()  # the alternatives in the patterns
    since = 0  # the line of the last pattern
    clean = parser.clean
    n = 0
    pos = 0
    end = len(text)
    while pos < end:
        stop = min(pos + piece, end)
        if stop < end:
            nl = text.find("\n", stop - 1)
            stop = end if nl < 0 else nl + 1
        chunk = text[pos:stop]
        # a line with an ANSI escape is read by match(), which leaves it to the line parser
        escaped = "\x1b" in chunk
        table_get = table.get
        if "\r" in chunk:
            lines: Any = (raw.rstrip("\r\n") for raw in iter_lines(chunk))
        else:
            lines = chunk.split("\n")
            if chunk.endswith("\n"):
                lines.pop()
        for line in lines:
            n += 1
            if clean:
                if not escaped:
                    # (stripped as match() strips it: a last group may take blanks)
                    stripped = line.rstrip()
                    m = fast(stripped)
                    if m is not None:
                        to = table_get(m.lastindex)
                        if to is not None and (
                            to[3] is None or lookup(stripped[m.end(3) :], None) is to[3]
                        ):
                            to[0](n)
                            to[1](m.group(*to[2]))
                            continue
                if parser.records is None:
                    # seen before in this state, and made unrecognized: the same again
                    # (such a line is no row: match() said so the first time)
                    same = repeated_get(line)
                    if same is not None:
                        repeat_line(n)
                        repeat_fields(same[0])
                        recognized += same[1]
                        continue
                if escaped:
                    found = match(line)
                elif m is not None:
                    found = match_after(stripped, m)
                else:
                    found = None  # (no envelope)
                if found is not None:
                    known, texts = found
                    rows = known.rows
                    if rows is None:
                        rows = known.rows = HotRows(known.shape, known.kind or "")
                        hot.append(rows)
                    rows.lines.append(n)
                    rows.texts.extend(texts)
                    taught += 1
                    # made again when the Python path took many rows, and a tenth of the
                    # lines since the last pattern, with alternatives the patterns lack
                    if taught >= _TEACH and taught * 10 >= n - since:
                        knowns = _worth(shapes, n, built)
                        if built.issuperset(knowns):
                            taught, since = 0, n  # (nothing new: asked again later)
                        else:
                            taught, built, since = 0, set(knowns), n
                            fast, table = _fast(knowns, hot)
                            table_get = table.get
                    continue
            free = clean and parser.records is None
            before = parser.recognized
            out = feed(n, line)
            clean = parser.clean
            if out is not None:
                if (
                    free
                    and out.__class__ is Unrecognized
                    and clean
                    and parser.records is None
                    and len(repeated) < _REPEATS
                ):
                    fields = dict(out.__dict__)
                    counts = parser.recognized - before
                    repeated[line] = (fields, counts)
                    repeat_line(n)
                    repeat_fields(fields)
                    recognized += counts
                    parser.recognized = before
                elif out.__class__ is list:
                    extend(out)
                else:
                    add(out)
        pos = stop
        if progress is not None:
            progress(pos, end)
        if not built and taught and pos < end:  # (a first pattern for the next piece)
            knowns = _worth(shapes, n, built)
            taught, built, since = 0, set(knowns), n
            fast, table = _fast(knowns, hot)
    parser.recognized += recognized + sum(len(rows.lines) for rows in hot)
    extend(parser.close())
    if n and not parser.recognized:
        raise InputError(
            f"none of the {n} lines is a TensorRT or trtexec message",
            source=parser.source,
            hint="pass the output of trtexec (or of a TensorRT program) with its log "
            "envelopes, e.g. `trtexec ... --verbose > build.log 2>&1`",
        )
    return Scan(hot, cold, n, repeats)
