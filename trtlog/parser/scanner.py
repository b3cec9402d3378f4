"""The scanner: a log's hot line shapes matched piece by piece, in front of the line parser.

Part of the parser, used by :func:`trtlog.parse` (not by ``iter_events`` nor ``strict=True``).
A verbose log repeats a handful of message shapes (``Tactic: ... Time: ...``, ``Running: ...``)
for most of its lines. The scanner picks those shapes from a sample of the log, with the
admission rule of the line parser's whole-line cache (an alternative of a state-free rule whose
leading literal starts with its keyword prefix, on an exclusive keyword row), joins their
grammar-compiled regexes (:class:`~trtlog.parser.compiled.Shape`, nothing hand-written) into
one alternation behind the trtexec envelope, and runs it with ``finditer`` over pieces of the
text. A match is one line: it stores the line number and the group texts of its shape, and
builds nothing. Every other line goes through :meth:`LogParser.feed
<trtlog.parser.stream.LogParser.feed>`, in order, as does every line while the parser holds
state (a section, a multi-line construct, a records block an enveloped line can end).

The rules that keep it equal to the line parser:

* a match starts at a line start and ends at the line's end (``\\n``, ``\\r\\n`` or the end of
  the text), and the line must not end in whitespace (the line parser strips it);
* a piece holding an ANSI escape or a lone ``\\r`` is read line by line through ``feed``;
* a number of more than 16 digits never makes a line hot (issue 18): each shape's number runs
  are bounded (or, when one shape's literal is a prefix of another's, a piece holding a run
  of 17 or more hex digits is scanned with a guard against such a run in any message);
* every piece is checked: the lines it counted must be the piece's lines, or a terminal
  matched across a line end, and :class:`Unusual` sends the whole input back to the line
  parser.
"""

from __future__ import annotations

import itertools
import re
from array import array
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from trtlog.parser.compiled import Shape
from trtlog.parser.envelope import FAST_ENVELOPE, LINE_ENVELOPE
from trtlog.parser.source import iter_lines
from trtlog.parser.stream import LogParser

__all__ = ["PIECE", "HotRows", "Scan", "Unusual", "scan"]

#: Characters per piece (the text is scanned in slices of about this size cut after a ``\n``).
PIECE = 1 << 22
_MAX_SHAPES = 16
_SAMPLE_LINES = 8_000
_KEY = 8
_GROUP = re.compile(r"\(\?P<(\w+)>")
_ENVELOPE_GROUP = "env_severity"
_JUDGE = 100  # rows of a group seen before judging whether its texts repeat


class Unusual(Exception):
    """The scanner met something its rules do not cover; the caller parses line by line."""


class HotRows:
    """The rows of one hot shape: line numbers, severity letters and group texts.

    The scanner keeps what it matched: per row the severity letter and the texts of the
    groups ``shape.make`` takes, one flat list (a row is ``width`` items), so building a row's
    event or a column never matches the line again.

    Attributes:
        shape: the compiled alternative.
        lines: the 1-based line number of each row.
        texts: per row, the severity letter and then the group texts, flat.
        width: items per row in ``texts`` (1 + the number of groups).
    """

    __slots__ = ("_memos", "lines", "shape", "texts", "width")

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.lines: array[int] = array("q")
        self.texts: list[str | None] = []
        self.width = 1 + len(shape.groups)
        # per group: None (not decided yet), a memo of its texts (a group that repeats its
        # texts, e.g. a kernel name) or False (mostly distinct texts, e.g. a tactic id)
        self._memos: list[dict[str, str] | bool | None] = [None] * self.width

    def share(self, start: int) -> None:
        """Make repeated texts of the rows from item ``start`` on one object each.

        A verbose log repeats a handful of kernel and layer names over many rows; one string
        object per text instead of one per row halves the scanner's memory on such a log.
        A group is judged once, at the end of the first piece that brings the shape to a
        hundred rows or more, over every row so far: shared when fewer than half its texts
        are distinct.
        """
        texts, width, memos = self.texts, self.width, self._memos
        rows = len(texts) // width
        for j in range(1, width):
            memo = memos[j]
            if memo is False:
                continue
            begin = start
            if memo is None:
                if rows < _JUDGE:
                    continue  # judged later, over every row up to then
                begin = 0
                column = texts[j::width]
                if len(set(column)) * 2 > len(column):
                    memos[j] = False
                    continue
                memo = memos[j] = {}
            else:
                column = texts[begin + j :: width]
            get = memo.setdefault  # type: ignore[union-attr]
            texts[begin + j :: width] = [t if t is None else get(t, t) for t in column]

    def done(self) -> None:
        """Drop the memos of :meth:`share` (the scan is over)."""
        self._memos = [False] * self.width

    def letters(self) -> list[str]:
        """The severity letter of every row."""
        return self.texts[0 :: self.width]  # type: ignore[return-value]

    def groups(self) -> list[list[str | None]]:
        """Per group ``shape.make`` takes, its text in every row."""
        texts, width = self.texts, self.width
        return [texts[j::width] for j in range(1, width)]


class Scan:
    """What a scan produced: the hot rows per shape and the line parser's events.

    Attributes:
        hot: the rows of every shape that matched at least once.
        cold: the events of every other line, in file order (events, or
            :class:`~trtlog.parser.stream.Deferred` for those parsed on demand).
        n_lines: the number of lines.
    """

    __slots__ = ("cold", "hot", "n_lines", "text")

    def __init__(self, hot: list[HotRows], cold: list[Any], n_lines: int, text: str) -> None:
        self.hot = hot
        self.cold = cold
        self.n_lines = n_lines
        self.text = text


def _sample(parser: LogParser, text: str, start: int, stop: int, counts: Counter[Shape]) -> None:
    """Count the admissible shapes of the lines of ``text[start:stop]`` (at most a sample)."""
    dispatcher = parser.dispatcher
    known: dict[tuple[int, str], Shape | None] = {}
    for i, raw in enumerate(iter_lines(text[start:stop])):
        if i >= _SAMPLE_LINES:
            break
        line = raw.rstrip("\r\n")
        if "\x1b" in line or not line or line[-1].isspace():
            continue
        m = FAST_ENVELOPE.match(line)
        if m is None:
            continue
        message = m.group(4)
        if not message:
            continue
        route = dispatcher.lookup(message, None)
        if route is None or not dispatcher.is_exclusive(route):
            continue
        key = (id(route), message[:_KEY])
        if key in known:
            shape = known[key]
        else:
            shape = None
            matcher = parser._plain(route)
            prefix = route.rule.prefix
            if matcher is not None and prefix is not None:
                found = matcher.shape_of(message)
                if found is not None and found.literal and found.literal.startswith(prefix):
                    shape = found
            known[key] = shape
        if shape is not None:
            counts[shape] += 1


def _one_line(regex: str) -> tuple[str, bool]:
    r"""``regex`` rewritten to match within one line of a text, and whether it may cross one.

    A shape that may still cross a line end has each of its matches checked.

    A message regex is matched against one message (no line end in it); against a whole
    text its ``.`` under ``(?s:...)`` and its negated classes would run on into the next
    line, and its ``$`` would stop before ``\n`` where a message stops before ``\r\n``. So:
    ``(?s:`` becomes ``(?:``, ``[^`` becomes ``[^\n``, ``$`` becomes ``(?=\r?$)``. Classes
    that still match ``\n`` (``\s``, ``\D``, ``\W``, outside a negated class: ``[^\s]``
    excludes ``\n`` already) mark the shape as risky.
    """
    out: list[str] = []
    i = 0
    n = len(regex)
    in_class = False
    negated = False  # the class being read is negated: it already excludes \n
    risky = False
    while i < n:
        c = regex[i]
        if c == "\\":
            pair = regex[i : i + 2]
            if pair in ("\\s", "\\D", "\\W") and not (in_class and negated):
                risky = True
            out.append(pair)
            i += 2
            continue
        if in_class:
            if c == "]" and not (out and out[-1] in ("[", "[^", "[^\\n")):
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            negated = regex.startswith("[^", i)
            if negated:
                out.append("[^\\n")
                i += 2
            else:
                out.append("[")
                i += 1
            continue
        if regex.startswith("(?s:", i):
            out.append("(?:")
            i += 4
            continue
        if c == "$":
            out.append("(?=\\r?$)")
            i += 1
            continue
        if regex.startswith("(?", i):
            rest = regex[i + 2 : i + 12]
            flags = rest[: len(rest) - len(rest.lstrip("aiLmsux-"))]
            if "s" in flags:
                risky = True  # a DOTALL flag other than the (?s: group handled above
        out.append(c)
        i += 1
    return "".join(out), risky


#: A regex's tokens: an escape, a character class, or one character.
_TOKEN = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|.", re.S)
#: The digit and hex-digit classes a message's numbers are read from (``\d+``, ``\d*``,
#: ``[0-9a-fA-F]+``, ``[0-9]+`` in the grammars).
_DIGIT_CLASSES = frozenset({r"\d", "[0-9]", "[0-9a-fA-F]", "[0-9A-Fa-f]"})
#: The most digits a hot number may have: 16 hex digits are 64 bits (a tactic id), and 16
#: decimal digits fit a 64-bit column. A longer run is the line parser's to judge.
_NUMBER_DIGITS = 16


def _bounded(regex: str) -> str:
    r"""``regex`` with each of its number runs at most 16 digits long.

    ``\d+`` becomes ``\d{1,16}(?!\d)``, ``[0-9a-fA-F]*`` ``[0-9a-fA-F]{0,16}(?![0-9a-fA-F])``.
    Where the bounded regex matches, it captures what the unbounded one captures (each run
    is followed by a lookahead that refuses a longer run, so it never stops inside one); a
    line with a longer number in such a place is not hot, and the line parser decides (a
    tactic past 64 bits is ``unrecognized``, issue 18).
    """
    tokens = _TOKEN.findall(regex)
    out: list[str] = []
    for i, token in enumerate(tokens):
        run = token in ("+", "*") and i > 0 and tokens[i - 1] in _DIGIT_CLASSES
        if run and tokens[i + 1 : i + 2] not in (["?"], ["+"]):  # not a lazy or possessive run
            out.append(f"{{{int(token == '+')},{_NUMBER_DIGITS}}}(?!{tokens[i - 1]})")
        else:
            out.append(token)
    return "".join(out)


def _prefix_free(shapes: tuple[Shape, ...]) -> bool:
    """No shape's leading literal is a prefix of another's (so a line reaches one shape)."""
    literals = sorted(shape.literal or "" for shape in shapes)
    return all(not b.startswith(a) for a, b in itertools.pairwise(literals))


@lru_cache(maxsize=32)
def _alternation(
    shapes: tuple[Shape, ...], guarded: bool = True
) -> tuple[re.Pattern[str], tuple[tuple[int, ...], ...]]:
    """The shapes behind the trtexec envelope as one pattern, and each shape's group indices.

    The shapes' groups are renamed ``s<k>_<name>``; shape ``k``'s own group ``s<k>`` is the
    last group a match of it closes (``m.lastindex``).

    A number of more than 16 digits never makes a line hot: it may not fit the 64-bit
    columns, and the line parser makes a tactic past 64 bits ``unrecognized`` (issue 18).
    When the shapes' literals are prefix-free (a line can reach one shape only), each shape's
    number runs are bounded (:func:`_bounded`), which costs nothing measurable. Otherwise a
    line failing one shape's bound might match another, so ``guarded`` puts a guard in front
    of every shape instead: a message holding a run of 17 or more hex digits matches none.
    That guard costs more than the rest of the pattern (it tries the run at every character
    of every line), so :func:`scan` uses it only on a piece that holds such a run (one bulk
    check, :func:`_long_hex`). The groups are the same in every variant.
    """
    envelope = LINE_ENVELOPE
    bounded = _prefix_free(shapes)
    parts = []
    risky: list[bool] = []
    for k, shape in enumerate(shapes):
        line, doubt = _one_line(_bounded(shape.regex) if bounded else shape.regex)
        regex = _GROUP.sub(rf"(?P<s{k}_\1>", line)
        parts.append(f"(?P<s{k}>{regex})")
        risky.append(doubt)
    # every line matches: a hot shape, or the last alternative (a line for the line parser)
    guard = r"(?![^\n]*[0-9A-Fa-f]{17})" if guarded and not bounded else ""
    pattern = re.compile(
        rf"(?m)^(?:{envelope}{guard}(?:{'|'.join(parts)})(?<!\s)(?:\r?\n|\Z)"
        rf"|[^\n]+\Z|[^\n]*\n)",
    )
    severity = pattern.groupindex[_ENVELOPE_GROUP]
    indices = []
    for k, shape in enumerate(shapes):
        indices.append(
            (
                pattern.groupindex[f"s{k}"],
                int(risky[k]),
                severity,
                *(pattern.groupindex[f"s{k}_{g}"] for g in shape.groups),
            )
        )
    return pattern, tuple(indices)


_HEX_DIGITS = b"0123456789abcdefABCDEF"
#: Hex digits to ``\x01``, and ``\x01`` itself to ``\x02`` (so a run of ``\x01`` is hex).
_HEX_MARK = bytes.maketrans(_HEX_DIGITS + b"\x01", b"\x01" * len(_HEX_DIGITS) + b"\x02")
_HEX_RUN = b"\x01" * 17


def _long_hex(text: str, start: int, stop: int) -> bool:
    """Whether ``text[start:stop]`` holds a run of 17 or more hex digits.

    One ``bytes.translate`` and one ``find`` (about 2 ms per MB) instead of the guard's
    attempt at every character. A character UTF-8 cannot encode (a lone surrogate) becomes
    ``?``, not a hex digit, so it splits a run as the character itself does.
    """
    piece = text[start:stop].encode("utf-8", "replace").translate(_HEX_MARK)
    return piece.find(_HEX_RUN) >= 0


def _usual(text: str, start: int, stop: int) -> bool:
    """A piece without ANSI escapes and lone ``\\r`` (the scanner's line rule holds)."""
    if text.find("\x1b", start, stop) >= 0:
        return False
    if text.find("\r", start, stop) < 0:  # most logs: no CR at all (one memchr)
        return True
    return text.count("\r", start, stop) == text.count("\r\n", start, stop)


def scan(
    text: str,
    parser: LogParser,
    piece: int = PIECE,
    progress: Callable[[int, int], None] | None = None,
) -> Scan:
    """Scan ``text`` (a whole log): hot rows per shape, every other line through ``parser``.

    Args:
        text: the decoded log.
        parser: a fresh line parser (not strict); its ``defer`` is set.
        piece: characters per piece (tests use small pieces to move the boundaries).
        progress: called after each piece with the characters scanned and the total.

    Raises:
        Unusual: a check failed; parse ``text`` line by line instead.
        InputError: no line of ``text`` is a TensorRT or trtexec message.
    """
    from trtlog.errors import InputError

    parser.defer = True
    feed = parser.feed
    cold: list[Any] = []
    add = cold.append
    extend = cold.extend
    rows_of: dict[Shape, HotRows] = {}
    counts: Counter[Shape] = Counter()
    shapes: tuple[Shape, ...] = ()
    pattern: re.Pattern[str] | None = None
    plain: re.Pattern[str] | None = None  # the pattern without the long-hex guard
    checked = True  # whether a piece is checked for a long hex run (the pattern has a guard)
    indices: tuple[tuple[int, ...], ...] = ()
    table: dict[int, tuple[Callable[[int], Any], Callable[[Any], None], tuple[int, ...], bool]] = {}
    samples = 0
    n = 0
    pos = 0
    end = len(text)

    def feed_lines(chunk: str, n: int) -> int:
        for raw in iter_lines(chunk):
            n += 1
            out = feed(n, raw)
            if out is not None:
                if out.__class__ is list:
                    extend(out)
                else:
                    add(out)
        return n

    while pos < end:
        stop = min(pos + piece, end)
        if stop < end:
            nl = text.find("\n", stop - 1)
            stop = end if nl < 0 else nl + 1
        hot_lines = sum(len(rows.lines) for rows in rows_of.values())
        if samples < 4 and (pattern is None or hot_lines * 2 < n):
            # (re)choose the shapes: at the start, and while fewer than half the lines are hot
            before = set(counts)
            _sample(parser, text, pos, stop, counts)
            samples += 1
            chosen = tuple(s for s, c in counts.most_common(_MAX_SHAPES) if c >= 4)
            if (set(counts) != before or pattern is None) and chosen and chosen != shapes:
                shapes = chosen
                pattern, indices = _alternation(shapes)
                # the shapes bound their numbers, or a piece is checked for the guard's run
                checked = not _prefix_free(shapes)
                plain = _alternation(shapes, False)[0] if checked else pattern
                table = {}
                for shape, idx in zip(shapes, indices, strict=True):
                    rows = rows_of.get(shape)
                    if rows is None:
                        rows = rows_of[shape] = HotRows(shape)
                    table[idx[0]] = (
                        rows.lines.append,
                        rows.texts.extend if len(idx) > 3 else rows.texts.append,
                        idx[2:],
                        bool(idx[1]),
                    )
        n0 = n
        marks = [(rows, len(rows.texts)) for rows in rows_of.values()]
        if pattern is None or not _usual(text, pos, stop):
            n = feed_lines(text[pos:stop], n)
        else:
            clean = parser.clean
            get = table.get
            assert plain is not None
            scanning = pattern if checked and _long_hex(text, pos, stop) else plain
            for m in scanning.finditer(text, pos, stop):
                n += 1
                entry = get(m.lastindex)  # type: ignore[arg-type]
                if entry is not None and clean:
                    line_append, texts_add, groups, risky = entry
                    if risky and text.find("\n", m.start(), m.end() - 1) >= 0:
                        # the match ran on into the next line: read its lines one by one
                        n = feed_lines(m.group(), n - 1)
                        clean = parser.clean
                        continue
                    line_append(n)
                    texts_add(m.group(*groups))
                    continue
                out = feed(n, m.group())
                if out is not None:
                    if out.__class__ is list:
                        extend(out)
                    else:
                        add(out)
                clean = parser.clean
            expected = text.count("\n", pos, stop) + (text[stop - 1] != "\n")
            if n - n0 != expected:
                raise Unusual(f"lines {n0 + 1}..{n}: a match crossed a line end")
        for rows, mark in marks:
            if len(rows.texts) > mark:
                rows.share(mark)
        pos = stop
        if progress is not None:
            progress(pos, end)
    parser.recognized += sum(len(rows.lines) for rows in rows_of.values())
    cold.extend(parser.close())
    if n and not parser.recognized:
        raise InputError(
            f"none of the {n} lines is a TensorRT or trtexec message",
            source=parser.source,
            hint="pass the output of trtexec (or of a TensorRT program) with its log "
            "envelopes, e.g. `trtexec ... --verbose > build.log 2>&1`",
        )
    for rows in rows_of.values():
        rows.done()
    hot = [rows for rows in rows_of.values() if rows.lines]
    return Scan(hot, cold, n, text)
