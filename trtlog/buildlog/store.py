"""The event store of a Build: the scanner's rows, built into events when asked for.

Part of the build package (pydantic only), filled by :func:`trtlog.parse` from the scanner
(:mod:`trtlog.parser.scanner`). Most lines of a log are one-line messages the scanner kept as
rows of their grammar alternative (line number, severity letter, the texts of the groups);
the store builds a row's event only when a view asks for its kind, with the alternative's
``make`` (the function the line parser calls), so an event built here equals the one the line
parser builds. Every other line's event is kept as the line parser gave it.

``events()`` is every event in file order (the list ``Build.events`` caches); ``events_of``,
``counts`` and ``kind_rows`` answer per kind without building the other kinds' events.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from operator import attrgetter
from typing import Any

from trtlog._pydantic import assemble, gc_paused
from trtlog.events import EVENT_CLASSES, Event
from trtlog.events.base import Unrecognized
from trtlog.parser.envelope import LETTER_SEVERITY
from trtlog.parser.scanner import HotRows, Repeats, Scan

__all__ = ["EventStore", "KindRows", "event_columns"]

#: ``(kind, first lines, last lines, severities)`` of some events of one kind, in file order.
KindRows = tuple[str, list[int], list[int], list[Any]]

_SEVERITY = attrgetter("severity")


def _first_line(event: Any) -> int:
    return event.span[0]  # type: ignore[no-any-return]


def _slice(events: list[Any], first: int, last: int) -> list[Any]:
    """The events of ``events`` (in file order) that start on lines ``first`` to ``last``."""
    lo = bisect_left(events, first, key=_first_line)
    return events[lo : bisect_right(events, last, lo, key=_first_line)]


class _Hot:
    """One alternative's rows (of one kind) and, once built, their events."""

    __slots__ = ("cls", "events", "kind", "rows")

    def __init__(self, rows: HotRows) -> None:
        self.rows = rows
        self.kind = rows.kind
        self.cls: type[Any] = EVENT_CLASSES[rows.kind]
        self.events: list[Any] | None = None

    def build(self) -> list[Any]:
        """The events of every row (built once): ``make`` of each row's group texts."""
        if self.events is None:
            rows = self.rows
            make = rows.shape.make
            cls = self.cls
            defaults, fields_set = cls._defaults, cls._fields_set
            severity = LETTER_SEVERITY
            groups = rows.groups()
            fields_of = map(make, *groups) if groups else (make() for _ in rows.lines)
            out = []
            for n, letter, fields in zip(rows.lines, rows.letters(), fields_of, strict=True):
                data = {**defaults, **fields}
                data["span"] = (n, n)
                data["severity"] = severity[letter]
                out.append(assemble(cls, data, None, fields_set))
            self.events = out
        return self.events

    def part(self, spans: list[tuple[int, int]]) -> _Hot:
        """Rows ``lo`` to ``hi`` (exclusive) of each span, with their events if built."""
        rows, width = self.rows, self.rows.width
        sub = HotRows(rows.shape, rows.kind)
        for lo, hi in spans:
            sub.lines.extend(rows.lines[lo:hi])
            sub.texts.extend(rows.texts[lo * width : hi * width])
        part = _Hot(sub)
        if self.events is not None:
            part.events = [e for lo, hi in spans for e in self.events[lo:hi]]
        return part


class _Repeats:
    """The unrecognized lines kept as rows and, once built, their events."""

    __slots__ = ("events", "kind", "rows")

    def __init__(self, rows: Repeats) -> None:
        self.rows = rows
        self.kind = "unrecognized"
        self.events: list[Any] | None = None

    def build(self) -> list[Any]:
        """The events of every row (built once): its fields, its own span."""
        if self.events is None:
            fields_set = Unrecognized._fields_set
            out = []
            for n, fields in zip(self.rows.lines, self.rows.fields, strict=True):
                data = fields.copy()
                data["span"] = (n, n)
                out.append(assemble(Unrecognized, data, None, fields_set))
            self.events = out
        return self.events

    def part(self, spans: list[tuple[int, int]]) -> _Repeats:
        """Rows ``lo`` to ``hi`` (exclusive) of each span, with their events if built."""
        sub = Repeats()
        for lo, hi in spans:
            sub.lines.extend(self.rows.lines[lo:hi])
            sub.fields.extend(self.rows.fields[lo:hi])
        part = _Repeats(sub)
        if self.events is not None:
            part.events = [e for lo, hi in spans for e in self.events[lo:hi]]
        return part


class EventStore:
    """A parsed log's events: the scanner's rows plus the line parser's other events.

    Attributes:
        n_lines: the number of input lines.
    """

    def __init__(self, scan: Scan, first: int = 1) -> None:
        self.n_lines = scan.n_lines
        self._first = first  # (a store of some lines: the first of them)
        self._hot: list[_Hot | _Repeats] = [_Hot(rows) for rows in scan.hot]
        if scan.repeats.lines:
            self._hot.append(_Repeats(scan.repeats))
        self._cold: list[Any] = scan.cold
        self._events: list[Event] | None = None
        self._cold_by_kind: dict[str, list[Any]] | None = None
        self._kind_rows: list[KindRows] | None = None

    @classmethod
    def of_events(cls, events: list[Event], n_lines: int) -> EventStore:
        """A store of events already built (the kind rows of a built or loaded Build)."""
        store = cls(Scan([], list(events), n_lines))
        store._events = events
        return store

    def __len__(self) -> int:
        if self._events is not None:
            return len(self._events)
        return len(self._cold) + sum(len(h.rows.lines) for h in self._hot)

    def events(self) -> list[Event]:
        """Every event in file order (built once; the same objects ``events_of`` gives)."""
        if self._events is None:
            with gc_paused():
                if not self._hot:
                    self._events = list(self._cold)
                else:
                    # each event in the slot of its first line (spans partition the lines)
                    first = self._first
                    slots: list[Any] = [None] * (self.n_lines + 1 - first)
                    for hot in self._hot:
                        for n, event in zip(hot.rows.lines, hot.build(), strict=True):
                            slots[n - first] = event
                    for event in self._cold:
                        slots[event.span[0] - first] = event
                    self._events = [e for e in slots if e is not None]
        return self._events

    def between(self, *ranges: tuple[int, int]) -> EventStore:
        """The events that start in the line ``ranges``, as a store; none is built.

        ``ranges``: ``(first, last)`` pairs in file order, disjoint. A run's, engine build's
        or round's part of the log: it shares this store's rows and the events built so far.
        """
        if self._events is not None:
            events = self._events
            some = [e for first, last in ranges for e in _slice(events, first, last)]
            return EventStore.of_events(some, some[-1].span[1] if some else 0)
        cold = [e for first, last in ranges for e in _slice(self._cold, first, last)]
        part = EventStore(Scan([], cold, 0))
        part._first = ranges[0][0] if ranges else 1
        # (the line count of a part is its last event's last line, as of a list of events)
        end = cold[-1].span[1] if cold else 0
        for hot in self._hot:
            lines = hot.rows.lines
            spans = []
            for first, last in ranges:
                lo = bisect_left(lines, first)
                hi = bisect_right(lines, last, lo)
                if lo < hi:
                    spans.append((lo, hi))
            if spans:
                part._hot.append(hot.part(spans))
                end = max(end, lines[spans[-1][1] - 1])
        part.n_lines = end
        return part

    def _cold_kinds(self) -> dict[str, list[Any]]:
        if self._cold_by_kind is None:
            by_kind: dict[str, list[Any]] = {}
            for event in self._cold:
                found = by_kind.get(event.kind)
                if found is None:
                    by_kind[event.kind] = [event]
                else:
                    found.append(event)
            self._cold_by_kind = by_kind
        return self._cold_by_kind

    def events_of(self, kinds: Iterable[str]) -> list[Event]:
        """The events of ``kinds`` in file order, building only those."""
        wanted = set(kinds)
        if self._events is not None:
            return [e for e in self._events if e.kind in wanted]
        cold = self._cold_kinds()
        parts = [cold[k] for k in wanted if k in cold]
        with gc_paused():
            parts += [h.build() for h in self._hot if h.kind in wanted]
        if len(parts) == 1:
            return list(parts[0])
        found = [e for part in parts for e in part]
        found.sort(key=_first_line)  # (sorted runs: a merge)
        return found

    def kind_rows(self) -> list[KindRows]:
        """Every event's kind, lines and severity, without building the rows' events.

        One part per alternative's rows and per kind of the line parser's events, each in
        file order; together they hold every event once (a kind may have several parts).
        """
        if self._kind_rows is None:
            parts: list[KindRows] = []
            if self._events is not None:
                by_kind: dict[str, list[Any]] = {}
                for event in self._events:
                    by_kind.setdefault(event.kind, []).append(event)
                groups = list(by_kind.items())
            else:
                groups = list(self._cold_kinds().items())
                for hot in self._hot:
                    lines = hot.rows.lines.tolist()
                    if isinstance(hot, _Repeats):
                        severities = [f["severity"] for f in hot.rows.fields]
                    else:
                        letters = hot.rows.letters()
                        if letters.count(letters[0]) == len(letters):  # (one letter: most)
                            severities = [LETTER_SEVERITY[letters[0]]] * len(letters)
                        else:
                            severities = [LETTER_SEVERITY[x] for x in letters]
                    parts.append((hot.kind, lines, lines, severities))
            for kind, events in groups:
                firsts = [e.span[0] for e in events]
                lasts = [e.span[1] for e in events]
                parts.append((kind, firsts, lasts, list(map(_SEVERITY, events))))
            self._kind_rows = parts
        return self._kind_rows

    def counts(self) -> dict[str, int]:
        """The number of events of each kind, most frequent first (ties: first seen first)."""
        first: dict[str, int] = {}
        total: dict[str, int] = {}
        for kind, firsts, _lasts, _severities in self.kind_rows():
            if kind not in first or firsts[0] < first[kind]:
                first[kind] = firsts[0]
            total[kind] = total.get(kind, 0) + len(firsts)
        order = sorted(first, key=first.__getitem__)
        return dict(sorted(((k, total[k]) for k in order), key=lambda kv: -kv[1]))


def event_columns(
    events: list[Any], kind: str, fields: Iterable[str] | None = None
) -> dict[str, list[Any]]:
    """The fields of ``events`` (all of ``kind``) as columns, in their order.

    Columns: ``line`` (first line), ``end_line``, ``severity``, then the kind's own fields in
    the class's order (only ``fields``, when given).
    """
    cls = EVENT_CLASSES[kind]
    wanted = None if fields is None else set(fields)
    names = [
        f
        for f in cls.model_fields
        if f not in ("kind", "span", "severity") and (wanted is None or f in wanted)
    ]
    out: dict[str, list[Any]] = {
        "line": [e.span[0] for e in events],
        "end_line": [e.span[1] for e in events],
        "severity": list(map(_SEVERITY, events)),
    }
    for name in names:
        out[name] = list(map(attrgetter(name), events))
    return out
