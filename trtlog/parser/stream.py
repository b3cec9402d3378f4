"""The streaming core: decoded lines in, events out, in file order, with bounded memory.

Drives the pipeline (STYLE.md §2): for every line it peels the envelope (``lines.py``), asks the
keyword table (``dispatch.py``) for a start rule, parses the message with the grammar-compiled
matcher (``compiled.py``) or, for the rules that are not flat, Lark (``grammar.py``), and builds
the event. It keeps the little state a log needs: the current *section* (options block,
performance summary...) and the open *continuation* (bare lines that belong to the message
before them, formats.md T4). Memory is bounded by the longest multi-line message, never by
the file.

Every line lands in exactly one event: a line no rule explains becomes ``unrecognized``, and so
does a line whose rule fails to parse (Lark's message is logged at DEBUG), unless
``strict=True``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any, cast

from lark.exceptions import LarkError, UnexpectedInput

from trtlog._pydantic import assemble
from trtlog.errors import InputError
from trtlog.events import EVENT_CLASSES, Event
from trtlog.events.base import Envelope, LogLine, Severity, Unrecognized, make_event_unchecked
from trtlog.events.errors import TrtError
from trtlog.parser.compiled import CompiledStart
from trtlog.parser.dispatch import Dispatcher, Route
from trtlog.parser.envelope import (
    FAST_ENVELOPE,
    LETTER_SEVERITY,
    split_envelope,
    strip_ansi,
)
from trtlog.parser.families import FAMILIES
from trtlog.parser.family import Continuation, Rule
from trtlog.parser.fragments import (
    BARE_ERROR,
    INTEGRATIONS,
    profile_columns,
    profile_json_record,
    profile_row,
    unquote,
)
from trtlog.parser.grammar import matchers, parse_message, with_routes
from trtlog.parser.shapes import LineShapes

__all__ = ["FRAGMENT_KINDS", "LogParser", "default_dispatcher", "iter_log_events"]

#: the kinds :meth:`LogParser._fragment` gives a message no rule took (or its rule rejected)
FRAGMENT_KINDS = frozenset({"profile_row", "profile_columns"})

log = logging.getLogger(__name__)

_SPECIFIC = 14  # the shortest keyword prefix that identifies a message without its envelope


@cache
def default_dispatcher() -> Dispatcher:
    """The keyword table of every family trtlog knows (built once)."""
    return Dispatcher(with_routes(family) for family in FAMILIES)


def _complete(fields: dict[str, Any]) -> tuple[type[Any], dict[str, Any]]:
    cls = EVENT_CLASSES[fields["kind"]]
    return cls, {**cls._defaults, **fields}


class _Construct:
    """An open multi-line message (append-mode continuation)."""

    __slots__ = ("cont", "first", "messages", "pending", "route", "severity")

    def __init__(
        self, route: Route, cont: Continuation, first: int, message: str, severity: Severity | None
    ) -> None:
        self.route = route
        self.cont = cont
        self.first = first
        self.messages = [message]
        self.pending: list[tuple[int, str]] = []
        self.severity = severity


class LogParser:
    """Turns lines into events. One instance per input; see :func:`iter_log_events`.

    Args:
        dispatcher: the keyword table (default: every family).
        strict: raise :class:`InputError` when a line routed to a grammar does not parse,
            instead of recording it as ``unrecognized``.
        source: the input's name, for error messages.
        compiled: use the grammar-compiled matchers (``False`` sends every message to Lark;
            the consistency tests compare both).
    """

    def __init__(
        self,
        dispatcher: Dispatcher | None = None,
        *,
        strict: bool = False,
        source: str | None = None,
        compiled: bool = True,
    ) -> None:
        self.dispatcher = dispatcher or default_dispatcher()
        self.strict = strict
        self.source = source
        self.compiled = compiled
        self.section: str | None = None
        self.records: tuple[Route, Continuation, Severity | None] | None = None
        self.records_kind: str | None = None  # the shape of the first record (kind_of)
        self.construct: _Construct | None = None
        self.recognized = 0
        self._matchers: dict[str, CompiledStart | None] = {}
        self._starts: dict[str, Route] = {}

    @property
    def clean(self) -> bool:
        """Whether the next enveloped line is read without state.

        No open construct, no section, no records continuation that an enveloped line can end.
        """
        records = self.records
        return (
            self.construct is None
            and self.section is None
            and (records is None or records[1].enveloped is None)
        )

    # -- parsing one message ------------------------------------------------------------------

    def _matcher(self, route: Route) -> CompiledStart | None:
        start = route.rule.start
        if start in self._matchers:
            return self._matchers[start]
        found = matchers(route.family).get(start) if self.compiled else None
        self._matchers[start] = found
        return found

    def _build(
        self, route: Route, message: str, span: tuple[int, int], severity: Severity | None
    ) -> Any:
        """The event for ``message`` parsed from ``route``, or ``None`` if it does not parse."""
        matcher = self._matchers.get(route.rule.start, False)
        if matcher is False:
            matcher = self._matcher(route)
        try:
            fields = matcher.match(message) if matcher is not None else None  # type: ignore[union-attr]
        except ValueError as exc:  # a value that is none (see below)
            return self._no_value(route, message, span, exc)
        if fields is not None:
            cls = EVENT_CLASSES[fields["kind"]]
            # merged into the defaults (every field, in the class's order) so that span and
            # severity take their places after kind, as in a validated event
            data = {**cls._defaults, **fields}
        else:
            try:
                lark_fields = parse_message(route.family, route.rule.start, message, compiled=False)
            except LarkError as exc:
                if self.strict:
                    raise self._strict_error(route, message, span, exc) from None
                log.debug("line %d: %s did not parse: %s", span[0], route.rule.start, exc)
                return None
            except ValueError as exc:
                return self._no_value(route, message, span, exc)
            cls, data = _complete(lark_fields)
        data["span"] = span
        data["severity"] = severity
        return assemble(cls, data, None, cls._fields_set)

    def _no_value(self, route: Route, message: str, span: tuple[int, int], exc: ValueError) -> None:
        """A message that matched but holds a value that is none: it does not parse.

        Transformers convert matched text with ``int()``/``float()``; they raise ``ValueError``
        for text no TensorRT prints: an integer past Python's 4,300-digit limit, a compact
        format that is not a number (``Half(786432,0xZZ,512,1)``), a garbled float. The line
        becomes ``unrecognized`` (an ``InputError`` under ``strict``), like a grammar miss.
        """
        if self.strict:
            raise self._strict_error(route, message, span, exc) from None
        log.debug("line %d: %s holds no value: %s", span[0], route.rule.start, exc)
        return None

    def _strict_error(
        self, route: Route, message: str, span: tuple[int, int], exc: Exception
    ) -> InputError:
        column = exc.column if isinstance(exc, UnexpectedInput) else None
        return InputError(
            f"the message does not match grammar rule {route.rule.start!r} ({type(exc).__name__})",
            source=self.source,
            line=span[0],
            column=column if isinstance(column, int) and column > 0 else None,
            excerpt=message.split("\n", 1)[0][:200],
            hint="this is a gap in trtlog's grammar; please report the line",
        )

    @staticmethod
    def _unrecognized(
        n: int,
        message: str,
        envelope: Envelope | None,
        severity: Severity | None,
        trt: bool,
        prefix: str | None,
    ) -> Any:
        return make_event_unchecked(
            Unrecognized,
            {
                "kind": "unrecognized",
                "span": (n, n),
                "severity": severity,
                "envelope": envelope,
                "trt": trt,
                "prefix": prefix,
                "message": message,
                "sub_case": "foreign_line" if envelope is None else "unknown_line",
            },
        )

    def _after(self, rule: Rule) -> None:
        if rule.leaves:
            self.section = None
        if rule.enters is not None:
            self.section = rule.enters

    # -- multi-line constructs ---------------------------------------------------------------

    def _close_construct(self) -> list[Any]:
        c = self.construct
        assert c is not None
        self.construct = None
        last = c.first + len(c.messages) - 1
        out: list[Any] = []
        event = self._build(c.route, "\n".join(c.messages), (c.first, last), c.severity)
        if event is not None:
            out.append(event)
            self._after(c.route.rule)
        else:
            for i, message in enumerate(c.messages):
                out.append(
                    self._unrecognized(
                        c.first + i, message, None if i else "trtexec", c.severity, False, None
                    )
                )
        for n, message in c.pending:
            out.append(self._unrecognized(n, message, None, None, False, None))
        return out

    def _continue_construct(
        self, n: int, envelope: Envelope | None, message: str
    ) -> list[Any] | None:
        """Offer a line to the open construct: ``None`` if taken, else events it closed."""
        c = self.construct
        assert c is not None
        cont = c.cont
        taken = False
        if envelope is None:
            if not message.strip() and cont.blank:
                c.pending.append((n, message))
                return None
            taken = cont.bare is None or cont.bare(message)
        elif cont.enveloped is not None:
            message = message.rstrip()
            taken = cont.enveloped(message)
        if taken:
            c.messages.extend(m for _n, m in c.pending)
            c.pending.clear()
            c.messages.append(message)
            if len(c.messages) >= cont.max_lines:
                return self._close_construct()
            return None
        return self._close_construct()

    def _records_route(self, cont: Continuation) -> Route:
        start = cont.records
        assert start is not None
        return Route(rule=Rule(start=start), family=self.dispatcher.family_of_start[start])

    # -- one line ----------------------------------------------------------------------------

    def feed(self, n: int, raw: str) -> Any:
        """Events completed by line ``n`` (1-based, given with its ending).

        Returns ``None``, one event, or a list of events (the common case is one event).
        """
        text = raw.rstrip("\r\n")
        if "\x1b" in text:
            text = strip_ansi(text)
        m = FAST_ENVELOPE.match(text)
        if m is not None:
            envelope: Envelope | None = "trtexec"
            letter, tag, message = m.group(2, 3, 4)
            severity: Severity | None = LETTER_SEVERITY[letter]
            trt = tag is not None
            prefix = None
        else:
            envelope, severity, trt, prefix, _ts, message = split_envelope(text)
        if envelope is not None and self.records is not None:
            cont = self.records[1]
            if cont.enveloped is not None and not cont.enveloped(message.rstrip()):
                self.records = None
        closed: list[Any] | None = None
        if self.construct is not None:
            closed = self._continue_construct(n, envelope, message)
            if closed is None:
                return None
            if closed[-1].span[1] == n:
                # the construct took this line and reached its max_lines: the line is done
                return closed
        if envelope is None:
            event = self._bare(n, message, prefix)
        else:
            event = self._enveloped(n, message.rstrip(), envelope, severity, trt, prefix)
            # an integration's own line (ONNX Runtime's, DeepStream's...) is no TensorRT line
            # unless it carries TensorRT's message or parses as one
            if (
                trt
                or envelope not in INTEGRATIONS
                or envelope == "deepstream_own"
                or (event is not None and getattr(event, "kind", None) != "unrecognized")
            ):
                self.recognized += 1
        if closed:
            if event is not None:
                closed.append(event)
            return closed
        return event

    def _enveloped(
        self,
        n: int,
        message: str,
        envelope: Envelope,
        severity: Severity | None,
        trt: bool,
        prefix: str | None,
    ) -> Any:
        route = self.dispatcher.lookup(message, self.section)
        if route is None:
            event = self._fragment(n, message, severity)
            if event is not None:
                return event
            if not message:
                return make_event_unchecked(
                    LogLine,
                    {
                        "kind": "log_line",
                        "span": (n, n),
                        "severity": severity,
                        "envelope": envelope,
                        "trt": trt,
                        "prefix": prefix,
                    },
                )
            return self._unrecognized(n, message, envelope, severity, trt, prefix)
        rule = route.rule
        if rule.then is not None:
            cont = self.dispatcher.continuations[rule.then]
            if cont.records is None:
                self.construct = _Construct(route, cont, n, message, severity)
                return None
            self.records = (self._records_route(cont), cont, severity)
            self.records_kind = None
        event = self._build(route, message, (n, n), severity)
        if event is None:
            event = self._fragment(n, message, severity)
            if event is not None:
                return event
            return self._unrecognized(n, message, envelope, severity, trt, prefix)
        if rule.leaves or rule.enters is not None:
            self._after(rule)
        return event

    def _bare(self, n: int, text: str, prefix: str | None) -> Any:
        """A line without envelope: a continuation record, a bare-allowed message, or foreign."""
        records = self.records
        if records is not None:
            records_route, cont, severity = records
            accepted = cont.bare is None or cont.bare(text)
            if accepted and cont.kind_of is not None:
                shape = cont.kind_of(text)
                if self.records_kind is None:
                    self.records_kind = shape
                accepted = shape == self.records_kind
            if accepted:
                # a paste may indent the records (a 4-space code block, T6)
                event = self._build(records_route, text.strip(), (n, n), severity)
                if event is not None:
                    self.recognized += 1
                    return event
                return self._unrecognized(n, text, None, None, False, prefix)
            if text.strip() or not cont.blank:
                self.records = None
        stripped = text.rstrip()
        route = self.dispatcher.lookup(stripped, self.section, bare=True) if stripped else None
        if route is not None:
            rule = route.rule
            if rule.then is not None:
                cont = self.dispatcher.continuations[rule.then]
                if cont.records is not None:
                    self.records = (self._records_route(cont), cont, None)
                    self.records_kind = None
                else:
                    self.construct = _Construct(route, cont, n, stripped, None)
                    self.recognized += 1
                    return None
            event = self._build(route, stripped, (n, n), None)
            if event is not None:
                self.recognized += 1
                self._after(rule)
                return event
        event = self._bare_fragment(n, stripped) if _may_be_fragment(stripped) else None
        if event is not None:
            self.recognized += 1
            return event
        return self._unrecognized(n, text, None, None, False, prefix)

    # -- fragments: pasted lines that lost their envelope or their section ------------------

    def _start_route(self, start: str) -> Route:
        route = self._starts.get(start)
        if route is None:
            family = self.dispatcher.family_of_start[start]
            route = self._starts[start] = Route(rule=Rule(start=start), family=family)
        return route

    def _fragment(self, n: int, message: str, severity: Severity | None) -> Any:
        """A message no keyword row took: a profile row or column header without its table."""
        layout = profile_columns(message)
        if layout is not None:
            return self._build(
                self._start_route(f"profile_columns_{layout}"), message, (n, n), severity
            )
        row = profile_row(message)
        if row is not None:
            return self._build(self._start_route(f"profile_row_{row[0]}"), row[1], (n, n), severity)
        record = profile_json_record(message)
        if record is not None:
            kind = record.pop("kind")
            data = {"kind": kind, "span": (n, n), "severity": severity, **record}
            return make_event_unchecked(EVENT_CLASSES[kind], data)
        return None

    def _bare_fragment(self, n: int, text: str) -> Any:
        """An envelope-less line of a paste: a quoted record, a message, a profile row."""
        quoted = unquote(text)
        if quoted is not None and quoted:
            route = self.dispatcher.lookup(quoted, self.section, bare=True)
            if route is not None and route.rule.then is None:
                event = self._build(route, quoted, (n, n), None)
                if event is not None:
                    return event
            text = quoted
        message = text.strip()
        # a TensorRT message without its envelope: only rows whose fixed text is specific
        # (several words), and only when the grammar parses the whole message
        route = self.dispatcher.lookup(message, None) if message[:1].isalpha() else None
        if route is not None:
            rule = route.rule
            prefix = rule.prefix or ""
            if (
                rule.then is None
                and rule.enters is None
                and not rule.leaves
                and len(prefix) >= _SPECIFIC
                and " " in prefix.strip()
            ):
                event = self._build(route, message, (n, n), None)
                if event is not None:
                    return event
        if BARE_ERROR.search(message) is not None:
            return self._bare_error(n, message)
        return self._fragment(n, message, None)

    def _bare_error(self, n: int, message: str) -> Any:
        """TensorRT's error text without its envelope: the error it parses as, else its text.

        A paste often starts inside a multi-line error, or cut the envelope off: the line is
        still an error of the library (a ``trt_error`` of form ``text`` when no error rule
        parses it alone).
        """
        route = self.dispatcher.lookup(message, None)
        if route is not None and route.family.name == "errors":
            event = self._build(route, message, (n, n), "error")
            if event is not None:
                return event
        data = {
            **TrtError._defaults,
            "kind": "trt_error",
            "span": (n, n),
            "severity": "error",
            "message": message,
        }
        return make_event_unchecked(TrtError, data)

    def close(self) -> list[Any]:
        """Events still open at the end of the input."""
        out: list[Any] = []
        if self.construct is not None:
            out.extend(self._close_construct())
        self.records = None
        return out

    def _plain(self, route: Route) -> Any:
        """The compiled matcher of a route that needs no state change, else ``None``."""
        rule = route.rule
        if rule.then is not None or rule.enters is not None or rule.leaves:
            return None
        return self._matcher(route)

    def run(self, lines: Iterable[str]) -> Iterator[Event]:
        """Events of all ``lines`` (each with its line ending), in file order.

        A line that :class:`~trtlog.parser.shapes.LineShapes` takes (a one-line message of a
        rule without state changes, read while the parser is clean) is built from the fields
        its match gave; every other line goes to :meth:`feed` (all of them with
        ``compiled=False``).
        """
        feed = self.feed
        shapes = LineShapes(self.dispatcher, self._plain) if self.compiled else None
        match = shapes.match if shapes is not None else None
        classes = EVENT_CLASSES
        severities = LETTER_SEVERITY
        clean = match is not None and self.clean
        recognized = 0
        n = 0
        for n, raw in enumerate(lines, 1):
            if clean:
                found = match(raw.rstrip("\r\n"))  # type: ignore[misc]
                if found is not None:
                    known, texts = found
                    fields = known.make(*texts[2:])
                    cls = classes[fields["kind"]]
                    data = {**cls._defaults, **fields}
                    data["span"] = (n, n)
                    data["severity"] = severities[texts[0] or texts[1] or ""]
                    recognized += 1
                    yield cast(Event, assemble(cls, data, None, cls._fields_set))
                    continue
            out = feed(n, raw)
            clean = match is not None and self.clean
            if out is not None:
                if out.__class__ is list:
                    yield from out
                else:
                    yield out
        self.recognized += recognized
        yield from self.close()
        if n and not self.recognized:
            raise InputError(
                f"none of the {n} lines is a TensorRT or trtexec message",
                source=self.source,
                hint="pass the output of trtexec (or of a TensorRT program) with its log "
                "envelopes, e.g. `trtexec ... --verbose > build.log 2>&1`",
            )


def _may_be_fragment(text: str) -> bool:
    """A cheap test before the fragment matchers (a foreign line fails it fast).

    A quoted line, a message (a letter first), a profile row (a number at one end, a decimal
    point) or a profile JSON record.
    """
    first = text.lstrip()[:1]
    if first == ">" or first.isalpha():
        return True
    if first == "[" and BARE_ERROR.search(text) is not None:
        return True  # "[Matrix Multiply]_output: tensor volume exceeds (2^31)-1 ..."
    if "." in text and (first.isdigit() or text[-1:].isdigit()):
        return True
    return first in ",{" and "averageMs" in text


def iter_log_events(
    lines: Iterable[str], *, strict: bool = False, source: str | None = None
) -> Iterator[Event]:
    """Events of ``lines`` (decoded, each with its ending), in file order (streaming)."""
    return LogParser(strict=strict, source=source).run(lines)
