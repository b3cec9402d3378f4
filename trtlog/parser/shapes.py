"""Which log lines are one-line messages of a state-free rule, and the alternative of each.

Part of the parser: the line parser's loop (:meth:`LogParser.run
<trtlog.parser.stream.LogParser.run>`) and the scanner (:mod:`trtlog.parser.scanner`) ask
:class:`LineShapes` for every line read while the line parser is clean, so both take the same
lines the same way. A line is such a message when

* it has no ANSI escape, and an envelope read here (:data:`HOT_ENVELOPE`); trailing blanks
  are stripped, as the line parser strips them;
* the keyword table routes its message to a rule without state changes, one of whose
  alternatives matches it whole with every number short enough to convert (:func:`bounded`).

Such a line's ``make`` then gives its fields: a grammar's terminals take only text their
callbacks convert, numbers past 64 bits aside (the fuzz tests hold the grammars to it), so
the scanner keeps a line's group texts without calling ``make``, and the event store builds
the event later, the same as the line parser builds it now.

The event of such a line is the same whichever takes it: ``{**defaults, **fields}`` with its
span and severity, what :meth:`LogParser.feed <trtlog.parser.stream.LogParser.feed>` builds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from trtlog.parser.compiled import CompiledStart, Shape
from trtlog.parser.dispatch import Dispatcher, Route

__all__ = ["HOT_ENVELOPE", "Known", "LineShapes", "alternation", "bounded"]

#: The envelopes whose lines can be rows: trtexec's ``[ts] [S] `` (with ``[TRT] `` or not),
#: the Python logger's ``[ts] [TRT] [S] `` and ``[S] `` without a timestamp; timestamps may
#: be stacked (formats.md T3). The severity letter is group 1 or 2; the message starts at
#: (empty) group 3. For these lines
#: :func:`~trtlog.parser.envelope.split_envelope` gives the same message.
_HOT_ENVELOPE = (
    r"(?:\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\] )*"
    r"(?:\[([VIWEF])\] (?:\[TRT\] )?|\[TRT\] \[([VIWEF])\] )()"
)
HOT_ENVELOPE = re.compile(_HOT_ENVELOPE)

#: How many first characters of a message key the shape remembered for it.
_KEY = 8
#: Shapes remembered at most (a log repeats a few hundred message shapes).
_RECENT = 4096


#: A regex's tokens: an escape, a character class, or one character.
_TOKEN = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|.", re.S)
_DECIMAL = frozenset({r"\d", "[0-9]"})
_HEX = frozenset({"[0-9a-fA-F]", "[0-9A-Fa-f]"})


#: A minus sign and the digits of a value a signed 64-bit integer holds: up to 18 digits, or
#: 19 up to -9219999999999999999 (a few values nearer -2**63 are left to the line parser).
_NEGATIVE = r"-(?:\d{1,18}|[1-8]\d{18}|9[01]\d{17})(?!\d)"


def bounded(regex: str) -> str:
    r"""``regex`` with every number run short enough that its value converts.

    A hexadecimal run takes at most 16 digits (64 bits), a decimal run at most 19 (below
    2**64), and after a minus sign, a value down to about -2**63 (the signed tactic ids of
    7.x-8.2).
    Where the bounded regex matches, it captures what the unbounded one captures (each run
    is followed by a lookahead that refuses a longer run); a line with a longer number is no
    row, and the line parser judges it (a tactic past 64 bits is ``unrecognized``, an integer
    of 20 digits is read).

    Example:
        >>> import re
        >>> tactic = re.compile(bounded(r"Tactic: (?P<g1>0x[0-9a-fA-F]+|-?\d+)"))
        >>> [bool(tactic.fullmatch(f"Tactic: {t}")) for t in (
        ...     "0x028e842ce51fbd9d", "0x1000000000000003e8", "-9123372036854775808",
        ...     "-9323372036854775808", "18446744073709551615")]
        [True, False, True, False, False]
    """
    tokens = _TOKEN.findall(regex)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        run = tokens[i + 1 : i + 2] in (["+"], ["*"]) and tokens[i + 2 : i + 3] not in (
            ["?"],
            ["+"],
        )  # a greedy run (a lazy or possessive one is left as it is)
        if run and token in _HEX:
            low = int(tokens[i + 1] == "+")
            out.append(f"{token}{{{low},16}}(?!{token})")
            i += 2
        elif run and token in _DECIMAL:
            low = int(tokens[i + 1] == "+")
            if out[-2:] == ["-", "?"] and token == r"\d" and low:
                del out[-2:]
                out.append(f"(?:{_NEGATIVE}|\\d{{1,19}}(?!\\d))")
            else:
                out.append(f"{token}{{{low},19}}(?!{token})")
            i += 2
        else:
            out.append(token)
            i += 1
    return "".join(out)


@lru_cache(maxsize=1024)
def _compiled(regex: str) -> re.Pattern[str]:
    return re.compile(bounded(regex))


class Known:
    """A remembered alternative: its bounded regex, group positions, ``make`` and kind.

    Attributes:
        shape: the alternative.
        route: the keyword row it was found through.
        keyed: whether every message that starts with the alternative's literal goes to its
            row (an exclusive prefix row), so that matching it tells the row.
        prefixed: whether the alternative starts with its row's prefix (a literal): keyed,
            or a row that a longer prefix row shares (a match of it holds where the keyword
            table routes the message to its row).
        kind: the event kind its ``make`` gives (learned from the first line it took).
        rows: what the scanner keeps of the lines it took (its own object).
    """

    __slots__ = (
        "fullmatch",
        "group_at",
        "keyed",
        "kind",
        "make",
        "prefixed",
        "route",
        "rows",
        "shape",
    )

    def __init__(self, shape: Shape, route: Route, keyed: bool, prefixed: bool) -> None:
        self.shape = shape
        self.route = route
        self.keyed = keyed
        self.prefixed = prefixed
        pattern = _compiled(shape.regex)
        self.fullmatch = pattern.fullmatch
        self.group_at = tuple(pattern.groupindex[g] for g in shape.groups)
        self.make = shape.make
        self.kind: str | None = None
        self.rows: Any = None


class LineShapes:
    """Which lines are one-line messages of a state-free rule, and their alternative.

    One per input; ``plain`` gives a route's compiled matcher when its rule changes no
    parser state (else ``None``). :meth:`match` answers for a line (without its ending) read
    while the line parser is clean; a log repeats a few shapes, so it remembers the
    alternative that took a message by the message's first characters and tries it first.
    """

    def __init__(
        self, dispatcher: Dispatcher, plain: Callable[[Route], CompiledStart | None]
    ) -> None:
        self._lookup = dispatcher.lookup
        self._exclusive = dispatcher.is_exclusive
        self._plain = plain
        self._recent: dict[str, Known] = {}
        self._known: dict[Shape, Known] = {}
        self._by_route: dict[int, list[Known]] = {}
        self._plains: dict[int, Any] = {}

    def match(self, line: str) -> tuple[Known, tuple[str | None, ...]] | None:
        """``(alternative, texts)`` of a row, else ``None``.

        ``texts``: the envelope's two severity groups (one of them ``None``: the letter is
        the other) and the texts of the groups the alternative's ``make`` takes.
        """
        if "\x1b" in line:
            return None
        line = line.rstrip()  # (the line parser strips a message of trailing blanks)
        m = HOT_ENVELOPE.match(line)
        if m is None:
            return None
        return self.match_after(line, m)

    def match_after(
        self, line: str, m: re.Match[str]
    ) -> tuple[Known, tuple[str | None, ...]] | None:
        """:meth:`match` of a line without ANSI escapes, stripped, whose envelope is read.

        ``m``: a match of ``HOT_ENVELOPE`` at the line's start (or of a pattern of
        :func:`alternation`, whose first three groups are the envelope's).
        """
        at = m.end(3)
        known = self._recent.get(line[at : at + _KEY])
        found = None if known is None else known.fullmatch(line, at)
        if found is None or known is None:
            message = line[at:]
            route: Route | None = self._lookup(message, None)
            if route is None:
                return None
            # the alternatives that took the route's messages, the latest first (a message
            # that starts with a name, routed by a ``contains`` row, is remembered here)
            found = None
            tried = self._by_route.get(id(route))
            if tried is not None:
                for known in tried:
                    found = known.fullmatch(line, at)
                    if found is not None:
                        if known is not tried[0]:
                            tried.remove(known)
                            tried.insert(0, known)
                        break
            if found is None:
                known = self._find(route, message)
                if known is None:
                    return None
                found = known.fullmatch(line, at)
                if found is None:
                    return None
        assert known is not None
        if known.kind is None:
            try:
                fields = known.make(*found.group(0, 0, *known.group_at)[2:])
            except ValueError:
                return None
            known.kind = fields["kind"]
        # (group() of two or more indices gives a tuple: the two 0s are dropped)
        return known, m.group(1, 2) + found.group(0, 0, *known.group_at)[2:]

    def _find(self, route: Route, message: str) -> Known | None:
        """The alternative of ``route`` the line parser would parse ``message`` with."""
        key = id(route)
        matcher = self._plains.get(key, False)
        if matcher is False:
            matcher = self._plains[key] = self._plain(route)
        if matcher is None:
            return None
        shape = matcher.shape_of(message)
        if shape is None or not shape.one_kind:
            return None
        known = self._known.get(shape)
        if known is None:
            prefix = route.rule.prefix
            # remembered by the message's first characters only where the keyword table
            # would route every message that starts like this one to this rule anyway
            prefixed = (
                prefix is not None
                and shape.literal is not None
                and shape.literal.startswith(prefix)
            )
            keyed = prefixed and self._exclusive(route)
            known = self._known[shape] = Known(shape, route, keyed, prefixed)
        tried = self._by_route.setdefault(key, [])
        if known not in tried:
            tried.insert(0, known)
        if known.keyed:
            if len(self._recent) >= _RECENT:
                self._recent.clear()
            self._recent[message[:_KEY]] = known
        return known

    def learned(self) -> list[Known]:
        """The alternatives that took a line so far, in the order learned."""
        return [k for k in self._known.values() if k.kind is not None]


_GROUP = re.compile(r"\(\?P<(\w+)>")


def alternation(
    knowns: list[Known],
) -> tuple[re.Pattern[str], dict[int, tuple[Known, tuple[int, ...]]]]:
    """One pattern for a line's envelope and its message if one of ``knowns``'s.

    What each match's ``lastindex`` is comes with it. The lines it reads are stripped of
    trailing blanks first, as :meth:`LineShapes.match` strips them; read them with
    ``match``. ``None``: the line has no envelope of ``HOT_ENVELOPE``. Otherwise groups 1
    to 3 are the envelope's (what :meth:`LineShapes.match_after` takes), and when the rest
    of the line is a message of one of ``knowns``, the match ends in an empty group of that
    alternative's own (the last group it closes: ``lastindex``), which maps to the
    alternative and the indices of the envelope's two severity groups and of the groups its
    ``make`` takes (:meth:`LineShapes.match`'s texts); when it is none of them,
    ``lastindex`` is 3.

    ``knowns`` are ``prefixed``. The match of a ``keyed`` one is what
    :meth:`LineShapes.match` finds (for a line without ANSI escapes: the caller checks),
    since at most one of them matches a message, the one the keyword table routes it to;
    the match of another holds where the keyword table routes the message (from group 3
    on) to its row. The alternatives are tried after the
    longest envelope only, as :meth:`LineShapes.match` tries them.
    """
    parts = []
    for k, known in enumerate(knowns):
        regex = _GROUP.sub(rf"(?P<s{k}_\1>", bounded(known.shape.regex))
        parts.append(_TOKEN.findall(f"{regex}(?P<e{k}>)"))
    # for lines stripped of trailing blanks, as the line parser strips a message (a pattern
    # that allowed them after the message would miss lines whose last group is atomic)
    body = f"(?:(?:{_factored(parts)})\\Z)?" if parts else ""
    pattern = re.compile(f"{_HOT_ENVELOPE}{body}")
    table = {
        pattern.groupindex[f"e{k}"]: (
            known,
            (1, 2, *(pattern.groupindex[f"s{k}_{g}"] for g in known.shape.groups)),
        )
        for k, known in enumerate(knowns)
    }
    return pattern, table


def _literal(tokens: list[str]) -> bool:
    """Whether the first of ``tokens`` matches one fixed character, once (no quantifier)."""
    if not tokens or (tokens[1:2] and tokens[1][0] in "*+?{"):
        return False
    token = tokens[0]
    if len(token) == 1:
        return token not in "()[]{}|.*+?^$\\"
    return token[0] == "\\" and not token[1].isalnum()


def _factored(parts: list[list[str]]) -> str:
    """The alternation of ``parts`` (each a list of regex tokens), leading literals shared.

    ``ab|ac|d`` becomes ``a(?:b|c)|d``: a line enters a group only when its next character
    is the group's, so it tries a few alternatives instead of all of them (the regex engine
    tries each alternative in turn and skips one at once only on its first character). The
    order of the alternatives within the pattern changes only between alternatives whose
    first characters differ, which no one line matches both of.
    """
    groups: dict[str, list[list[str]]] = {}
    rest: list[list[str]] = []
    for tokens in parts:
        if _literal(tokens):
            groups.setdefault(tokens[0], []).append(tokens[1:])
        else:
            rest.append(tokens)
    out = []
    for token, members in groups.items():
        if len(members) == 1:
            out.append(token + "".join(members[0]))
            continue
        shared = token  # and the literals every member starts with
        while all(_literal(m) and m[0] == members[0][0] for m in members):
            shared += members[0][0]
            members = [m[1:] for m in members]
        out.append(f"{shared}(?:{_factored(members)})")
    out += ["".join(tokens) for tokens in rest]
    return "|".join(out)
