"""The event store of a Build: hot rows as columns, every other event as parsed, built on demand.

Part of the build package (pydantic only), filled by :func:`trtlog.parse` from the scanner
(:mod:`trtlog.parser.scanner`). A verbose log's lines are mostly a few hot shapes; the store
keeps their rows as the scanner found them (line numbers, the severity letter and the group
texts of each row) and builds their typed events only when asked for, with the same
grammar-compiled functions the line parser uses, so an event built here equals the one the
line parser builds. Every other line's event is kept as the line parser gave it, or as a
:class:`~trtlog.parser.stream.Deferred` (a one-line message of a state-free rule) parsed when
first needed.

``events()`` is every event in file order (the list ``Build.events`` caches); ``events_of``,
``counts`` and ``columns`` answer per kind without building the other kinds' objects.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from itertools import chain, repeat
from operator import attrgetter, itemgetter, methodcaller
from typing import Any, NamedTuple

from trtlog._pydantic import assemble, gc_paused
from trtlog.events import EVENT_CLASSES, Event
from trtlog.numbers import has_run
from trtlog.parser._lark import rule_name, rules_by_origin
from trtlog.parser.columns import column_plan, convert_column, shape_columns
from trtlog.parser.compiled import Shape
from trtlog.parser.dispatch import Route
from trtlog.parser.envelope import LETTER_SEVERITY
from trtlog.parser.family import Family
from trtlog.parser.grammar import cached_parser
from trtlog.parser.scanner import HotRows, Scan
from trtlog.parser.stream import FRAGMENT_KINDS, Deferred

__all__ = ["EventStore"]

_new = object.__new__
_set = object.__setattr__


class _Hot:
    """One hot shape's rows with their kind and, once built, their events."""

    __slots__ = ("cls", "events", "kind", "rows")

    def __init__(self, rows: HotRows) -> None:
        self.rows = rows
        self.events: list[Any] | None = None
        first = self.fields(0)
        self.kind: str = first["kind"]
        self.cls: type[Any] = EVENT_CLASSES[self.kind]

    def fields(self, i: int) -> dict[str, Any]:
        """The transformed fields of row ``i`` (without span and severity)."""
        rows = self.rows
        width = rows.width
        return rows.shape.make(*rows.texts[i * width + 1 : (i + 1) * width])  # type: ignore[no-any-return]

    def all_fields(self) -> list[dict[str, Any]]:
        """The transformed fields (without span and severity) of every row."""
        rows = self.rows
        make = rows.shape.make
        if rows.width == 1:
            return [make() for _ in rows.lines]
        return list(map(make, *rows.groups()))

    def build(self) -> list[Any]:
        """The events of every row (built once)."""
        if self.events is not None:
            return self.events
        fast = self._build_from_columns()
        if fast is not None:
            self.events = fast
            return fast
        rows = self.rows
        letters = rows.letters()
        make = rows.shape.make
        # one row's fields at a time (a list of every row's would only be thrown away)
        fields_of = map(make, *rows.groups()) if rows.width > 1 else (make() for _ in letters)
        severity = LETTER_SEVERITY
        cls = self.cls
        defaults = cls._defaults
        fields_set = cls._fields_set
        out: list[Any] = []
        append = out.append
        kind = self.kind
        for n, letter, fields in zip(rows.lines, letters, fields_of, strict=True):
            if fields["kind"] != kind:  # counts() and events_of() rely on one kind per shape
                raise AssertionError(f"a hot shape gave {fields['kind']!r} after {kind!r}")
            data = {**defaults, **fields}
            data["span"] = (n, n)
            data["severity"] = severity[letter]
            obj = _new(cls)
            _set(obj, "__dict__", data)
            _set(obj, "__pydantic_fields_set__", fields_set)
            _set(obj, "__pydantic_extra__", None)
            _set(obj, "__pydantic_private__", None)
            append(obj)
        self.events = out
        return out

    def _build_from_columns(self) -> list[Any] | None:
        """The events of every row from the fields as columns (no ``make`` per row).

        For a shape whose method only places its arguments or constants
        (:func:`trtlog.parser.columns.shape_columns`), each row's ``__dict__`` is zipped from
        the columns in the class's field order: what ``{**cls._defaults, **fields}`` with
        span and severity set gives. ``None`` for any other shape (``build`` calls ``make``).
        """
        rows = self.rows
        plan = column_plan(rows.shape)
        if plan is None or plan.get("kind") != ("const", self.kind):
            return None
        if any(source[0] == "row" for source in plan.values()):
            return None
        cls = self.cls
        defaults = cls._defaults
        keys = list(defaults)
        names = [k for k in keys if k not in ("kind", "span", "severity")]
        lines = rows.lines
        n = len(lines)
        values = shape_columns(rows.shape, rows.groups(), n, names, defaults)
        severity = LETTER_SEVERITY.__getitem__
        columns: list[Any] = []
        for key in keys:
            if key == "kind":
                columns.append(repeat(self.kind, n))
            elif key == "span":
                columns.append([(i, i) for i in lines])
            elif key == "severity":
                columns.append(map(severity, rows.letters()))
            else:
                columns.append(values[key])
        # every step a map over all rows (no Python loop per row): the objects, their
        # __dict__ zipped from the columns, then the three pydantic slots
        dicts = _dicts_of(tuple(keys))(zip(*columns, strict=True))
        out = list(map(_new, repeat(cls, n)))
        set_dict, set_fields, set_extra, set_private = _setters(self.kind)
        deque(map(set_dict, out, dicts), maxlen=0)
        deque(map(set_fields, out, repeat(cls._fields_set, n)), maxlen=0)
        deque(map(set_extra, out, repeat(None, n)), maxlen=0)
        deque(map(set_private, out, repeat(None, n)), maxlen=0)
        return out


_SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")


@cache
def _setters(kind: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of the slots a ``kind`` event needs (``__dict__`` and three more).

    The ``__set__`` of the descriptor ``object.__setattr__`` would use (the first class of
    the MRO that defines the name): called directly, a third cheaper than
    ``object.__setattr__`` with the name.
    """
    cls = EVENT_CLASSES[kind]
    found = []
    for name in _SLOTS:
        owner = next(k for k in cls.__mro__ if name in vars(k))
        found.append(vars(owner)[name].__set__)
    return tuple(found)


@cache
def _dicts_of(keys: tuple[str, ...]) -> Callable[[Iterable[tuple[Any, ...]]], list[dict[str, Any]]]:
    """A function: rows (tuples in ``keys``' order) → one dict per row with those keys.

    A dict display in a generated comprehension: ``dict(zip(keys, row))`` per row costs
    about three times as much (0.95 against 0.35 µs for an event's seven fields).
    """
    names = [f"v{i}" for i in range(len(keys))]
    items = ", ".join(f"{key!r}: {name}" for key, name in zip(keys, names, strict=True))
    source = f"def dicts(rows):\n    return [{{{items}}} for {', '.join(names)}, in rows]\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<store dicts>", "exec"), {}, namespace)
    return namespace["dicts"]  # type: ignore[no-any-return]


class _Matches(NamedTuple):
    """A route's deferred messages that kind_rows matched and left deferred."""

    n: int  #: how many (the route's deferred positions, when none was parsed since)
    shapes: list[Shape]  #: per alternative of the route's rule, its shape
    rows: list[list[int]]  #: per alternative, the positions in ``_cold`` it matched
    columns: list[list[list[Any]]]  #: per alternative, its group texts as columns
    args: list[dict[int, Any]]  #: per alternative, the arguments converted (:func:`_converted`)


class EventStore:
    """A parsed log's events: hot rows per shape plus the line parser's other events.

    Attributes:
        n_lines: the number of input lines.
    """

    def __init__(self, scan: Scan) -> None:
        self.n_lines = scan.n_lines
        self._hot = [_Hot(rows) for rows in scan.hot]
        self._cold: list[Any] = scan.cold
        self._resolved = False
        self._events: list[Event] | None = None
        #: positions in ``_cold`` by kind (parsed events) and by route (deferred ones)
        self._index: tuple[dict[str, list[int]], dict[int, tuple[Any, list[int]]]] | None = None
        #: positions the reversed walk parsed since the index was last brought up to date
        self._stale: set[int] = set()
        self._kind_rows: list[KindRows] | None = None  # kind_rows, once asked
        #: the kind of a deferred message, by position in ``_cold``, when it is sure without
        #: parsing it (found by ``kind_rows``: a question about other kinds skips it)
        self._known: dict[int, str] = {}
        #: per route (by id), the deferred messages kind_rows left deferred, matched
        self._matched: dict[int, _Matches] = {}
        #: per route (by id), its deferred count and their kinds when all are known
        self._route_kinds: dict[int, tuple[int, frozenset[str] | None]] = {}

    @classmethod
    def of_events(cls, events: list[Event], n_lines: int) -> EventStore:
        """A store of events already built (for ``columns`` of a built or loaded Build)."""
        store = cls(Scan([], list(events), n_lines, ""))
        store._events = events
        return store

    def __len__(self) -> int:
        if self._events is not None:
            return len(self._events)
        return len(self._cold) + sum(len(h.rows.lines) for h in self._hot)

    def _cold_events(self) -> list[Any]:
        """The line parser's events, the deferred ones parsed now (once)."""
        if not self._resolved:
            cold = self._cold
            matched = self._from_matches(None)
            for i, event in enumerate(cold):
                if event.__class__ is Deferred:
                    built = matched.get(i)
                    cold[i] = event.event() if built is None else built
            self._resolved = True
            self._index = None  # its deferred positions are parsed now
            self._matched = {}  # nor is any match kept for them needed
        return self._cold

    def _cold_index(self) -> tuple[dict[str, list[int]], dict[int, tuple[Any, list[int]]]]:
        """Positions in ``_cold``: of each kind's parsed events, of each route's deferred ones.

        Built once, in one walk: a view asks for dozens of kinds, and a walk over every
        line-parser event per question cost more than the answers.
        """
        if self._index is None:
            by_kind: dict[str, list[int]] = {}
            by_route: dict[int, tuple[Any, list[int]]] = {}
            for i, event in enumerate(self._cold):
                if event.__class__ is Deferred:
                    entry = by_route.get(id(event.route))
                    if entry is None:
                        entry = by_route[id(event.route)] = (event.route, [])
                    entry[1].append(i)
                else:
                    by_kind.setdefault(event.kind, []).append(i)
            self._index = (by_kind, by_route)
            self._stale = set()
        elif self._stale:
            # messages the reversed walk parsed: indexed by kind already, out of their routes
            stale, by_route = self._stale, self._index[1]
            for key, (_route, positions) in list(by_route.items()):
                left = [i for i in positions if i not in stale]
                if not left:
                    del by_route[key]
                elif len(left) < len(positions):
                    positions[:] = left
            self._stale = set()
        return self._index

    def _cold_of(self, wanted: set[str]) -> list[Any]:
        """The line parser's events of ``wanted`` kinds in file order, deferred ones parsed."""
        by_kind, by_route = self._cold_index()
        cold = self._cold
        asked = [
            k for k, (route, _) in by_route.items() if not wanted.isdisjoint(route_kinds(route))
        ]
        known = self._known
        matched = self._from_matches(wanted)
        for key in asked:
            positions = by_route[key][1]
            kinds = self._known_kinds(key, positions)
            if kinds is not None and wanted.isdisjoint(kinds):
                continue  # every message's kind is known, none is wanted: all stay deferred
            left = []
            for i in positions:
                sure = known.get(i)
                if sure is not None and sure not in wanted:
                    left.append(i)  # of another kind (kind_rows found it): stays deferred
                    continue
                event = matched.get(i)
                if event is None:
                    event = cold[i].event()
                cold[i] = event
                by_kind.setdefault(event.kind, []).append(i)
            if left:
                positions[:] = left
            else:
                del by_route[key]
        if not by_route:
            self._resolved = True
        found = [i for kind in wanted for i in by_kind.get(kind, ())]
        found.sort()
        return [cold[i] for i in found]

    def _from_matches(self, wanted: set[str] | None) -> dict[int, Any]:
        """The events of the deferred messages kind_rows matched, of ``wanted`` kinds (or all).

        By position in ``_cold``, built from the group texts kind_rows kept (what
        ``Deferred.event`` does after matching the message again): the message's only
        alternative's fields, its span and severity. Only messages still deferred.
        """
        if not self._matched:
            return {}
        cold = self._cold
        known = self._known
        out: dict[int, Any] = {}
        for matches in self._matched.values():
            for shape, positions, texts in zip(
                matches.shapes, matches.rows, matches.columns, strict=True
            ):
                if not positions or (wanted is not None and known[positions[0]] not in wanted):
                    continue
                width = len(shape.groups)
                rows: Iterable[tuple[Any, ...]] = (
                    zip(*texts, strict=True)
                    if width > 1
                    else zip(texts[0])
                    if width
                    else repeat((), len(positions))
                )
                for i, args in zip(positions, rows, strict=True):
                    if cold[i].__class__ is Deferred:
                        out[i] = _event_of(cold[i], shape, args)
        return out

    def _known_kinds(self, key: int, positions: list[int]) -> frozenset[str] | None:
        """The kinds ``kind_rows`` found for a route's deferred ``positions``, if all known.

        ``None`` when the kind of one is not known. Kept per route while its positions stay
        the same (they only ever shrink, and the known kinds are set once): a view asks for
        dozens of kinds, each a walk of the same ten thousands of messages otherwise.
        """
        kept = self._route_kinds.get(key)
        if kept is not None and kept[0] == len(positions):
            return kept[1]
        known = self._known
        kinds = {known.get(i) for i in positions} if known else {None}
        found = None if None in kinds else frozenset(k for k in kinds if k is not None)
        self._route_kinds[key] = (len(positions), found)
        return found

    def reversed_of(self, wanted: frozenset[str]) -> Iterator[Any] | None:
        """The events of ``wanted`` kinds from the last to the first, parsed as reached.

        A deferred message is parsed only when the walk reaches it, so a caller that stops
        early (the last layer dump of a log: :func:`trtlog.buildlog.tactics.tactic_columns`)
        parses only the messages after the point where it stopped. ``None`` when a hot
        shape gives one of ``wanted`` (the walk covers the line parser's events only).
        """
        if self._events is not None or not wanted.isdisjoint(self.kinds_of_hot()):
            return None
        return self._reversed_of(wanted)

    def _reversed_of(self, wanted: frozenset[str]) -> Iterator[Any]:
        by_kind, by_route = self._cold_index()
        found = [i for kind in wanted for i in by_kind.get(kind, ())]
        known = self._known
        for route, positions in by_route.values():
            if not wanted.isdisjoint(route_kinds(route)):
                found.extend(i for i in positions if known.get(i, "") in wanted or i not in known)
        found.sort(reverse=True)
        cold = self._cold
        for i in found:
            event = cold[i]
            if event.__class__ is Deferred:
                event = cold[i] = event.event()
                index = self._index
                if index is not None:  # kept: indexed now, out of its route on the next question
                    index[0].setdefault(event.kind, []).append(i)
                    self._stale.add(i)
            if event.kind in wanted:
                yield event

    def events(self) -> list[Event]:
        """Every event in file order (built once; the same objects ``events_of`` gives)."""
        if self._events is None:
            with gc_paused():
                self._build_all()
        assert self._events is not None
        return self._events

    def _build_all(self) -> None:
        if self._events is None:
            cold = self._cold_events()
            if not self._hot:
                self._events = list(cold)
            else:
                # every event's first line, then one permutation into file order (numpy: a
                # loop placing 300,000 events in line slots cost several times as much)
                import numpy as np

                built = [hot.build() for hot in self._hot]
                firsts = [np.frombuffer(hot.rows.lines, dtype=np.int64) for hot in self._hot]
                firsts.append(np.array([e.span[0] for e in cold], dtype=np.int64))
                every = list(chain(*built, cold))
                objects = np.fromiter(every, dtype=object, count=len(every))
                order = np.argsort(np.concatenate(firsts), kind="stable")
                self._events = objects[order].tolist()

    def events_of(self, kinds: Iterable[str]) -> list[Event]:
        """The events of ``kinds`` in file order, building only those."""
        with gc_paused():
            return self._events_of(set(kinds))

    def _events_of(self, wanted: set[str]) -> list[Event]:
        if self._events is not None:
            return [e for e in self._events if e.kind in wanted]
        found: list[Any] = self._cold_of(wanted)
        hot = [h.build() for h in self._hot if h.kind in wanted]
        if not hot:
            return found
        for events in hot:
            found.extend(events)
        found.sort(key=_first_line)
        return found

    def kinds_of_hot(self) -> set[str]:
        """The kinds the hot rows hold."""
        return {h.kind for h in self._hot}

    def counts(self) -> dict[str, int]:
        """The number of events of each kind, most frequent first (ties: first seen first)."""
        first: dict[str, int] = {}
        total: dict[str, int] = {}
        # from kind_rows: a deferred message is parsed only when its kind is not sure
        for kind, firsts, _lasts, _severities in kind_rows(self):
            if kind not in first or firsts[0] < first[kind]:
                first[kind] = firsts[0]
            total[kind] = total.get(kind, 0) + len(firsts)
        order = sorted(first, key=first.__getitem__)
        return dict(sorted(((k, total[k]) for k in order), key=lambda kv: -kv[1]))

    def columns(self, kind: str, fields: Iterable[str] | None = None) -> dict[str, list[Any]]:
        """The fields of every ``kind`` event as columns in file order, plus ``line``.

        Columns: ``line`` (first line), ``end_line``, ``severity``, then the kind's own
        fields in the class's order (only ``fields``, when given).
        """
        with gc_paused():
            return self._columns(kind, fields)

    def column_parts(
        self, kind: str, names: Iterable[str], *, arrays: bool = False, severities: bool = True
    ) -> list[tuple[list[int], list[int], list[Any], dict[str, Any]]]:
        """Fields ``names`` of the ``kind`` events as columns, in parts each in file order.

        A part is ``(first lines, last lines, severities, {name: column})``: one for the
        line parser's events, one per hot shape (from the texts the scan kept, no event
        built: :func:`trtlog.parser.columns.shape_columns`). Together they hold every
        ``kind`` event once; ``columns`` merges them. ``arrays``: a hot shape's tactic id
        column may be an unsigned 64-bit numpy array, and a hot part's line numbers are the
        rows' own ``array('q')`` (not to be changed). ``severities=False``: the
        severities are left empty and the last lines are the first (a caller that reads
        neither).
        """
        cls = EVENT_CLASSES[kind]
        names = list(names)
        defaults = cls._defaults
        parts: list[tuple[list[int], list[int], list[Any], dict[str, Any]]] = []
        if self._events is not None:
            cold = [e for e in self._events if e.kind == kind]
        else:
            cold = self._cold_columns(kind, names, arrays, severities, parts)
        if cold:
            dicts = [e.__dict__ for e in cold]
            firsts = [e.span[0] for e in cold]
            parts.append(
                (
                    firsts,
                    [e.span[1] for e in cold] if severities else firsts,
                    [e.severity for e in cold] if severities else [],
                    {name: _pick(dicts, name, defaults) for name in names},
                )
            )
        if self._events is None:
            for hot in self._hot:
                if hot.kind != kind:
                    continue
                lines = hot.rows.lines.tolist()
                if hot.events is not None:
                    dicts = [e.__dict__ for e in hot.events]
                    sevs = [e.severity for e in hot.events]
                    values = {name: _pick(dicts, name, defaults) for name in names}
                else:
                    rows = hot.rows
                    sevs = (
                        list(map(LETTER_SEVERITY.__getitem__, rows.letters())) if severities else []
                    )
                    values = shape_columns(
                        rows.shape, rows.groups(), len(lines), names, defaults, arrays=arrays
                    )
                if arrays:  # the caller reads the line numbers as an array
                    parts.append((hot.rows.lines, hot.rows.lines, sevs, values))  # type: ignore[arg-type]
                else:
                    parts.append((lines, list(lines), sevs, values))
        return parts

    def _cold_columns(
        self,
        kind: str,
        names: list[str],
        arrays: bool,
        severities: bool,
        parts: list[tuple[list[int], list[int], list[Any], dict[str, Any]]],
    ) -> list[Any]:
        """The line parser's ``kind`` events; its deferred messages as column parts.

        A deferred message that a compiled alternative of its rule matches, whose method
        gives ``kind`` (the probe of :func:`~trtlog.parser.columns.column_plan`), goes into
        that alternative's part from its group texts, like a hot row, and stays deferred (no
        event built; ``events()`` parses it when asked). Every other deferred message that
        may give ``kind`` is parsed as ``events_of`` would (a miss, a value that does not
        convert, a rule without compiled alternatives). Returns the ``kind`` events parsed.
        """
        if kind == "unrecognized" or kind in FRAGMENT_KINDS:
            # a message its alternative matched can still become one of these (a value that
            # does not convert): every candidate is parsed
            return self._cold_of({kind})
        by_kind, by_route = self._cold_index()
        cold = self._cold
        cls = EVENT_CLASSES[kind]
        to_parse: list[int] = []
        for route, positions in by_route.values():
            if kind not in route_kinds(route):
                continue
            matcher = cold[positions[0]].parser._matcher(route)
            if matcher is None:
                to_parse.extend(positions)
                continue
            alternatives = matcher.shapes()
            matched = self._matched.get(id(route))
            if matched is not None and matched.n == len(positions):
                # kind_rows matched these very messages (a route's deferred positions only
                # ever shrink, so the same count is the same messages) and converted their
                # arguments
                rows, texts, converted = matched.rows, matched.columns, matched.args
            else:
                rows, found_texts = _by_alternative(cold, positions, alternatives, to_parse)
                texts = [
                    _group_columns(got, len(shape.groups))
                    for (_regex, shape), got in zip(alternatives, found_texts, strict=True)
                ]
                converted = [{} for _ in alternatives]
            for (_regex, shape), found, groups, known in zip(
                alternatives, rows, texts, converted, strict=True
            ):
                if not found:
                    continue
                plan = column_plan(shape)
                if plan is not None and plan.get("kind", ("",))[0] == "const":
                    if plan["kind"][1] != kind:
                        continue  # messages of another kind: not asked for
                    try:
                        values = shape_columns(
                            shape,
                            groups,
                            len(found),
                            names,
                            cls._defaults,
                            arrays=arrays,
                            converted=known,
                        )
                    except ValueError:  # a value that does not convert: parsed one by one
                        pass
                    else:
                        firsts = [cold[i].span[0] for i in found]
                        parts.append(
                            (
                                firsts,
                                firsts,
                                [cold[i].severity for i in found] if severities else [],
                                values,
                            )
                        )
                        continue
                to_parse.extend(found)
        self._parse_deferred(to_parse)
        found_kind = sorted(by_kind.get(kind, ()))
        return [cold[i] for i in found_kind]

    def _parse_deferred(
        self, positions: list[int], parsed: list[int] | None = None, routes: Iterable[int] = ()
    ) -> None:
        """Parse the deferred messages at ``positions`` of ``_cold`` (the index kept current).

        ``parsed``: positions whose events were put in ``_cold`` already (indexed here).
        ``routes``: the keys of the routes those positions are in (every route when empty:
        only their positions are walked, not the ten thousands of the others').
        """
        by_kind, by_route = self._cold_index()
        cold = self._cold
        for i in positions:
            event = cold[i] = cold[i].event()
            by_kind.setdefault(event.kind, []).append(i)
        for i in parsed or ():
            by_kind.setdefault(cold[i].kind, []).append(i)
        if not positions and not parsed:
            return
        for key in routes or list(by_route):
            left = by_route[key][1]
            left[:] = [i for i in left if cold[i].__class__ is Deferred]
            if not left:
                del by_route[key]
        if not by_route:
            self._resolved = True

    def _columns(self, kind: str, fields: Iterable[str] | None = None) -> dict[str, list[Any]]:
        cls = EVENT_CLASSES[kind]
        wanted = None if fields is None else set(fields)
        names = [
            f
            for f in cls.model_fields
            if f not in ("kind", "span", "severity") and (wanted is None or f in wanted)
        ]
        parts = self.column_parts(kind, names)
        out: dict[str, Any] = {"line": [], "end_line": [], "severity": []}
        for name in names:
            out[name] = []
        if not parts:
            return out
        if len(parts) == 1:
            lines, ends, sevs, values = parts[0]
            # a list of its own per column (two fields may come from one argument's list)
            own = {name: list(values[name]) for name in names}
            return {"line": lines, "end_line": ends, "severity": sevs, **own}
        # each part is in file order: concatenate, then one permutation for every column
        lines = [n for p in parts for n in p[0]]
        order = sorted(range(len(lines)), key=lines.__getitem__)
        columns: dict[str, list[Any]] = {
            "line": lines,
            "end_line": [n for p in parts for n in p[1]],
            "severity": [v for p in parts for v in p[2]],
        }
        for name in names:
            column: list[Any] = []
            for p in parts:
                values = p[3][name]
                column.extend(values.tolist() if hasattr(values, "tolist") else values)
            columns[name] = column
        return {name: [column[i] for i in order] for name, column in columns.items()}


def _by_alternative(
    cold: list[Any],
    positions: list[int],
    alternatives: list[tuple[re.Pattern[str], Shape]],
    misses: list[int],
) -> tuple[list[list[int]], list[list[Any]]]:
    """The deferred messages at ``positions`` sorted by the alternative that matches each.

    Per alternative, the positions it matched and their group texts (what ``shape.make``
    takes); a message no alternative matches is appended to ``misses``. A log repeats one
    shape, so the alternative of the first message is tried on every message in one
    ``map``, and the others on the messages it misses (at most one matches: a test of the
    compiled matchers checks this).
    """
    fulls = [regex.fullmatch for regex, _shape in alternatives]
    rows: list[list[int]] = [[] for _ in alternatives]
    texts: list[list[Any]] = [[] for _ in alternatives]
    if not positions:
        return rows, texts
    messages = list(map(_MESSAGE, map(cold.__getitem__, positions)))
    # the alternative of the first message that one matches, mapped over every message at
    # once (a map per column, no Python step per message); the others one by one
    first = next((k for k, full in enumerate(fulls) if full(messages[0]) is not None), 0)
    found = list(map(fulls[first], messages))
    if None not in found:
        rows[first] = list(positions)
        texts[first] = list(map(methodcaller("group", *alternatives[first][1].groups), found))
        return rows, texts
    for i, message, m in zip(positions, messages, found, strict=True):
        k = first
        if m is None:
            for k, full in enumerate(fulls):
                if k != first:
                    m = full(message)
                    if m is not None:
                        break
            else:
                misses.append(i)
                continue
        rows[k].append(i)
        texts[k].append(m.group(*alternatives[k][1].groups))
    return rows, texts


_MESSAGE = attrgetter("message")


def _pick(dicts: list[dict[str, Any]], name: str, defaults: dict[str, Any]) -> list[Any]:
    try:
        return list(map(itemgetter(name), dicts))
    except KeyError:  # a dict without the field: its default
        default = defaults[name]
        return [d.get(name, default) for d in dicts]


def family_kinds(family: Family) -> frozenset[str]:
    """The kinds a family's rules can give (a superset).

    The kinds of its events module, its transformer's event methods (alias = method = tag,
    STYLE.md §4), every kind its transformer module names as a string, and
    ``unrecognized`` for a message that does not parse. A test checks over every fixture and
    corpus log that each deferred message gives one of its family's kinds.
    """
    found = _FAMILY_KINDS.get(family.name)
    if found is None:
        module = sys.modules[family.transformer.__module__]
        source = inspect.getsource(module)
        found = frozenset(
            kind
            for kind, cls in EVENT_CLASSES.items()
            if cls.__module__.rsplit(".", 1)[-1] == family.name
            or callable(getattr(family.transformer, kind, None))
            or f'"{kind}"' in source
        ) | {"unrecognized"}
        _FAMILY_KINDS[family.name] = found
    return found


_FAMILY_KINDS: dict[str, frozenset[str]] = {}


def route_kinds(route: Route) -> frozenset[str]:
    """The kinds a message routed to ``route`` can give (a superset).

    The kinds its start rule's alternatives return: each alternative's transformer method
    (its alias) names the kind it returns (``"kind": "..."``), or is the kind; a method that
    names none (it calls a helper) counts as every kind of its family. Plus ``unrecognized``.
    """
    key = (route.family.name, route.rule.start)
    found = _ROUTE_KINDS.get(key)
    if found is None:
        # a message its rule rejects may still be a fragment (LogParser._fragment)
        found = _start_kinds(route) | FRAGMENT_KINDS
        _ROUTE_KINDS[key] = found
    return found


def _start_kinds(route: Route) -> frozenset[str]:
    family = route.family
    rules = rules_by_origin(cached_parser(family)).get(route.rule.start)
    if not rules:
        return family_kinds(family)
    kinds: set[str] = {"unrecognized"}
    for rule in rules:
        alias = rule_name(rule)
        method = getattr(family.transformer, alias, None)
        named: set[str] = set()
        if method is not None:
            named = set(_KIND_LITERAL.findall(inspect.getsource(method)))
        if alias in EVENT_CLASSES:
            named.add(alias)
        if not named or not named <= EVENT_CLASSES.keys():
            return family_kinds(family)
        kinds |= named
    return frozenset(kinds)


_ROUTE_KINDS: dict[tuple[str, str], frozenset[str]] = {}
_KIND_LITERAL = re.compile(r"""["']kind["']\s*:\s*["'](\w+)["']""")


def _first_line(event: Any) -> int:
    return event.span[0]  # type: ignore[no-any-return]


# -- appended for issue 15 (the report's raw log and the summary's warning count) ------------

#: ``(kind, first lines, last lines, severities)`` of some events of one kind, in file order.
KindRows = tuple[str, list[int], list[int], list[Any]]


def kind_rows(store: EventStore) -> list[KindRows]:
    """Every event's kind, lines and severity, without building the hot rows' events.

    One part per hot shape, per kind of the line parser's events, and per alternative of a
    rule that gave deferred messages their kind (a kind may have several parts), each in
    file order; together they hold every event of the store once. A deferred message is not
    parsed when its kind is sure without it (:func:`_deferred_kinds`): the matches and the
    arguments converted to learn it are kept, so ``column_parts`` and ``events_of`` neither
    match nor convert it again. Computed once per store.
    """
    if store._kind_rows is None:
        store._kind_rows = _kind_rows(store)
    return store._kind_rows


def _kind_rows(store: EventStore) -> list[KindRows]:
    grouped: dict[str, KindRows] = {}
    built = store._events
    if built is not None:
        for event in built:
            part = grouped.get(event.kind)
            if part is None:
                part = grouped[event.kind] = (event.kind, [], [], [])
            first, last = event.span
            part[1].append(first)
            part[2].append(last)
            part[3].append(event.severity)
        return list(grouped.values())
    known = _deferred_kinds(store)
    cold = store._cold
    parts: list[KindRows] = []
    # the line parser's events by kind (the index: every one not deferred), then the deferred
    # messages by the alternative that gave their kind (one-line: the first line is the last)
    for kind, positions in store._cold_index()[0].items():
        if positions:
            events = [cold[i] for i in sorted(positions)]
            spans = [e.span for e in events]
            firsts = [span[0] for span in spans]
            lasts = [span[1] for span in spans]
            parts.append((kind, firsts, firsts if lasts == firsts else lasts, _severities(events)))
    for kind, positions in known:
        # (maps of C getters: a third of a comprehension's time over the 33,000 messages)
        messages = list(map(cold.__getitem__, positions))
        firsts = list(map(_FIRST, map(_SPAN, messages)))
        parts.append((kind, firsts, firsts, _severities(messages)))
    severity = LETTER_SEVERITY.__getitem__
    for hot in store._hot:
        lines = hot.rows.lines.tolist()
        if hot.events is not None:
            letters: list[Any] = [e.severity for e in hot.events]
        else:
            found = hot.rows.letters()
            if found and found.count(found[0]) == len(found):  # (a shape's rows: one letter)
                letters = [severity(found[0])] * len(found)
            else:
                letters = list(map(severity, found))
        parts.append((hot.kind, lines, lines, letters))
    return parts


def _severities(events: list[Any]) -> list[Any]:
    return list(map(_SEVERITY, events))


_SPAN = attrgetter("span")
_FIRST = itemgetter(0)
_SEVERITY = attrgetter("severity")


def _deferred_kinds(store: EventStore) -> list[tuple[str, list[int]]]:
    """The kind of each deferred message of ``store._cold``, few parsed.

    Returns ``(kind, positions in _cold)`` groups, each in file order: the messages that stay
    deferred (kept in ``store._known`` too); every other deferred message is parsed and
    indexed by kind.

    A message that a compiled alternative of its rule matches, whose method gives one
    constant kind (:func:`~trtlog.parser.columns.column_plan`) and whose values all convert
    (:func:`_converts`), is of that kind: ``Deferred.event`` would
    build that kind's event from the same groups, with the message's own span and
    severity. It stays deferred. Every other message (no alternative matches, a kind made
    per row, a value that does not convert) is parsed now, as ``events_of`` would, and its
    event kept.
    """
    _by_kind, by_route = store._cold_index()
    cold = store._cold
    kinds = store._known
    to_parse: list[int] = []
    parsed: list[int] = []
    groups: list[tuple[str, list[int]]] = []
    touched: list[int] = []  # the routes some of whose messages are parsed
    for key, (route, positions) in by_route.items():
        matcher = cold[positions[0]].parser._matcher(route)
        if matcher is None:
            to_parse.extend(positions)
            touched.append(key)
            continue
        alternatives = matcher.shapes()
        rows, texts = _by_alternative(cold, positions, alternatives, to_parse)
        # what stays deferred, by alternative, for column_parts (no second match or conversion)
        kept_rows: list[list[int]] = [[] for _ in alternatives]
        kept_columns: list[list[list[Any]]] = [[] for _ in alternatives]
        kept_args: list[dict[int, Any]] = [{} for _ in alternatives]
        for k, ((_regex, shape), found, got) in enumerate(
            zip(alternatives, rows, texts, strict=True)
        ):
            if not found:
                continue
            plan = column_plan(shape)
            if plan is None or any(source[0] == "row" for source in plan.values()):
                # a field made per row by the method, which may refuse a value: parsed now,
                # from the groups matched (what the method does per row is most of a parse),
                # unless the method refuses only long numbers and the message has none
                sure: list[int] = []
                sure_texts: list[Any] = []
                width = len(shape.groups)
                refuses = _refusal_test(shape) if plan is not None else None
                if refuses is not None and not refuses(
                    "\n".join(map(_MESSAGE, map(cold.__getitem__, found)))
                ):
                    # no message holds what the method refuses (one test of them all, joined
                    # by a line end, which no refused text spans): every one is sure
                    sure, sure_texts = list(found), list(got)
                    found = []
                for i, row in zip(found, got if found else [], strict=True):
                    if refuses is not None and not refuses(cold[i].message):
                        sure.append(i)
                        sure_texts.append(row)
                        continue
                    args: tuple[Any, ...] = (row,) if width == 1 else row if width else ()
                    cold[i] = _event_of(cold[i], shape, args)
                    parsed.append(i)
                if not sure:
                    continue
                found, got = sure, sure_texts
                assert plan is not None  # (a refusal test: a plan with the kind)
            source = plan.get("kind", ("",))
            width = len(shape.groups)
            columns = _group_columns(got, width) if width else []
            converted = _converted(shape, columns, len(found)) if source[0] == "const" else None
            if converted is not None:
                kinds.update(dict.fromkeys(found, source[1]))
                kept_rows[k], kept_columns[k], kept_args[k] = found, columns, converted
                groups.append((source[1], found))
            elif plan is not None and any(v[0] == "row" for v in plan.values()):
                # (the rows of a method with a refusal test: a conversion refused, each parsed here)
                for i, row in zip(found, got, strict=True):
                    one: tuple[Any, ...] = (row,) if width == 1 else row if width else ()
                    cold[i] = _event_of(cold[i], shape, one)
                parsed.extend(found)
            else:
                to_parse.extend(found)
        kept = sum(map(len, kept_rows))
        if kept:
            shapes = [shape for _regex, shape in alternatives]
            store._matched[id(route)] = _Matches(kept, shapes, kept_rows, kept_columns, kept_args)
        if kept < len(positions):
            touched.append(key)
    store._parse_deferred(to_parse, parsed, touched)
    store._route_kinds = {}  # (kinds learnt now)
    return groups


#: A run of hex digits no 64-bit number fits in (see :func:`_refusal_test`).
_LONG_NUMBER = re.compile(r"[0-9A-Fa-f]{17}")


def has_long_number(text: str) -> bool:
    """Whether ``text`` holds a :data:`_LONG_NUMBER` (what ``_LONG_NUMBER.search`` finds).

    :func:`~trtlog.numbers.has_run`: a tenth of the regex's time (which tries a match at
    every hex digit of a layer dump's megabytes).

    Example:
        >>> has_long_number("Tactic: 0x0123456789abcdef"), has_long_number("1" * 17)
        (False, True)
    """
    return has_run(text, b"0123456789abcdefABCDEF", 17)


def _refusal_test(shape: Shape) -> Callable[[str], Any] | None:
    """What a message must hold for the shape's method to refuse it, if the method says.

    A method that refuses only a message holding a :data:`_LONG_NUMBER` (tested by
    :func:`has_long_number`; ``refuses_only_long_numbers`` set on it, next to its reasons:
    the inspector record), or only one its ``refuses_only_when`` test finds (the builder's
    layer listing: dims ``int()`` cannot read), gives its one kind for any other message
    whose arguments convert, so the store knows the kind of a message without calling it, as
    for a placing method. A test is true (a match) when the method may refuse, and no text
    it finds spans a line end (the store tests a route's messages joined by line ends at
    once).
    """
    method = getattr(shape.method, "__func__", shape.method)
    if getattr(method, "refuses_only_long_numbers", False):
        return has_long_number
    return _refusal_test_of(method)


def _refusal_test_of(function: Any) -> Callable[[str], Any] | None:
    """The ``refuses_only_when`` test set on a method or terminal callback, if any.

    True for a text the function may refuse (``ValueError``); false means it converts.
    """
    test = getattr(getattr(function, "__func__", function), "refuses_only_when", None)
    return test if callable(test) else None


def _event_of(deferred: Deferred, shape: Shape, texts: tuple[Any, ...]) -> Any:
    """``deferred.event()`` for a message ``shape``'s alternative matched (its group texts).

    What ``LogParser._build`` does with the alternative's fields; a value that does not
    convert (``ValueError``) is left to ``event()`` (``unrecognized`` or a fragment).
    """
    try:
        fields = shape.make(*texts)
    except ValueError:
        return deferred.event()
    cls = EVENT_CLASSES[fields["kind"]]
    data = {**cls._defaults, **fields}
    data["span"] = deferred.span
    data["severity"] = deferred.severity
    return assemble(cls, data, None, cls._fields_set)


def _group_columns(got: list[Any], width: int) -> list[list[Any]]:
    """Per group, its text in every row, from each row's ``m.group(*groups)``.

    That is the text itself for one group, a tuple of texts for several, and the whole
    match for none (``m.group()``), which is no group at all.
    """
    if width == 1:
        return [got]
    return [list(c) for c in zip(*got, strict=True)] if width else []


def _converted(shape: Shape, groups: list[list[Any]], n: int) -> dict[int, Any] | None:
    """The arguments ``shape.make`` computes for ``n`` rows, or ``None`` if one refuses.

    For a shape whose method only places its arguments or constants (no field made per
    row, :func:`~trtlog.parser.columns.column_plan`): ``make`` computes every argument from
    the group texts (``int()``, ``float()``... of a text that may hold no value, as
    ``LogParser._no_value`` says), then the method places them, so ``make`` gives fields
    for every row when no conversion refuses (``ValueError``). Each computed argument is
    kept by its index, as ``shape_columns`` computes it (``converted``: the columns asked
    later are not converted again). A callback with a ``refuses_only_when`` test (the
    inspector's tensor lists) is tested on its texts instead of called (and not kept).
    """
    out: dict[int, Any] = {}
    try:
        for k, spec in enumerate(shape.args):
            if spec[0] == "conv":
                texts = groups[spec[2]]
                refuses = _refusal_test_of(spec[1])
                if refuses is not None and None not in texts and not refuses("\n".join(texts)):
                    continue  # no text holds what the conversion refuses (one test of all)
                out[k] = convert_column(spec[1], texts, arrays=True)
            elif spec[0] == "expr":
                fn = spec[1]
                out[k] = list(map(fn, *groups)) if groups else [fn() for _ in range(n)]
    except ValueError:
        return None
    return out
