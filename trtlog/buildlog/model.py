"""``Build``: one parsed log: its text, its events, its header and the indexes over them.

The build package's model (pydantic only). A :class:`Build` keeps the raw text (``to_text()``
gives the decoded input back exactly), the events in file order, the header (runs, TensorRT
version, command line, options, device) and cheap indexes computed once: events by kind, runs
and builder rounds (:mod:`~trtlog.buildlog.rounds`), the optimizer pass running at each line
(:mod:`~trtlog.buildlog.passes`). :mod:`~trtlog.buildlog.parsing` makes one (``trtlog.parse``).
Heavier views (merge graph, frames, plots, findings, comparisons) are functions in their own
modules; the methods here that return them are one-line conveniences.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field

from trtlog._display import clip, html_table, plural, top_counts
from trtlog._pydantic import LONE_SURROGATE, ExactJson, gc_paused, put
from trtlog.buildlog.builds import BUILD_KINDS, BuildIndex, EngineBuild, derive_builds
from trtlog.buildlog.header import (
    HEADER_KINDS,
    Device,
    Options,
    Product,
    Run,
    VersionSource,
    derive_header,
)
from trtlog.buildlog.passes import REMOVAL_KINDS, PassIndex, RemovalEvent, passes_of, removal_events
from trtlog.buildlog.performance import (
    PERFORMANCE_EVENTS,
    Performance,
    performances,
    profile_of,
)
from trtlog.buildlog.rounds import Round, RoundIndex, RunIndex, derive_rounds
from trtlog.buildlog.store import EventStore, KindRows, _first_line, event_columns
from trtlog.engine.from_log import ENGINE_EVENTS, engine_from_events
from trtlog.engine.model import Engine, Profile
from trtlog.events import (
    Event,
    EventBase,
    check_kinds,
)
from trtlog.parser.source import iter_lines

if TYPE_CHECKING:
    import pandas as pd

    from trtlog.graph import MergeGraph

__all__ = ["Build", "SourceMeta"]

# the event classes the engine reader looks at (the reader owns its list); a lazy Build hands
# it only these
_ENGINE_CLASSES = ENGINE_EVENTS

E = TypeVar("E", bound=EventBase)


def line_starts(text: str) -> array[int]:
    """Where each line of ``text`` starts, and its end (lines as :func:`iter_lines` cuts them).

    Example:
        >>> list(line_starts("a\\nbc\\r\\nd")), list(line_starts("a\\n\\x1eb\\n"))
        ([0, 2, 6, 7], [0, 2, 5])
    """
    starts = array("q", [0])
    if "\r" in text:
        starts.extend(accumulate(map(len, iter_lines(text))))
        return starts
    # without a carriage return, every line ends at a "\n" (U+001E and friends stay in their
    # line): a C-speed search for each, without making the lines
    add, find = starts.append, text.find
    at = find("\n")
    while at >= 0:
        at += 1
        add(at)
        at = find("\n", at)
    if starts[-1] != len(text):
        add(len(text))  # (the last line, without an ending)
    return starts


class SourceMeta(BaseModel):
    """Where a build's text came from.

    Attributes:
        name: the path, or ``<string>``, ``<stdin>``, ``<stream>``, ``<lines>``.
        encoding: the codec the text was decoded with.
        compressed: ``gzip`` when the file was compressed.
        size_bytes: the file size when known.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    encoding: str = "utf-8"
    compressed: Literal["gzip"] | None = None
    size_bytes: int | None = None


class Build(ExactJson):
    """A parsed trtexec (or TensorRT) log.

    Attributes:
        source: where the text came from.
        text: the decoded input, exactly (``to_text()``); ``lines`` splits it.
        events: every event in file order; their spans partition ``lines``.
        runs: the trtexec runs in the file (several when runs were concatenated);
            ``for_run(i)`` is the build of one, and ``rounds`` cuts each run into the
            builder's rounds (one per backend strategy tried, 8.6+).
        trt_version: the TensorRT version as a comparable tuple (``(8, 4, 12)``), if printed.
        rtx_version: TensorRT-RTX's own version (``(1, 4, 0)``), when a ``tensorrt_rtx``
            banner prints it; never a TensorRT version.
        product: ``TensorRT``, or ``TensorRT-RTX`` when the log names it (its banner, or a
            builder note only TensorRT-RTX prints).
        version_source: where the version was read: ``banner``, ``version_line``
            (``TensorRT version: ...``) or ``library`` (a TensorRT library's file name).
        command_line: the trtexec command line of the first run, if printed.
        options: the options blocks of the first run.
        device: the device block, if printed.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers\\n")
        >>> [e.kind for e in b.events], b.to_text().endswith("layers\\n")
        (['layer_count'], True)
    """

    # the schema of ``list[Event]`` (every event class) is built when first needed
    # (validation, serialisation), not when trtlog.buildlog is imported (start-up time)
    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants", defer_build=True)

    source: SourceMeta
    text: str
    events: list[Event]
    runs: tuple[Run, ...] = ()
    trt_version: tuple[int, ...] | None = None
    rtx_version: tuple[int, ...] | None = None
    product: Product = "TensorRT"
    version_source: VersionSource | None = None
    command_line: str | None = None
    options: Options = Field(default_factory=Options)
    device: Device | None = None

    # -- the event store: ``events`` is built from it on first access -------------------

    if not TYPE_CHECKING:

        def __getattr__(self, item: str) -> Any:
            if item == "events":
                store = self.__dict__.get("_store")
                if store is not None:
                    events = store.events()
                    put(self, "events", events)
                    return events
            return super().__getattr__(item)

    @property
    def _lazy(self) -> EventStore | None:
        """The event store while ``events`` is not built yet, else ``None``."""
        d = self.__dict__
        return None if "events" in d else d.get("_store")

    def _materialize(self) -> None:
        _ = self.events

    def __getstate__(self) -> dict[Any, Any]:
        self._materialize()
        state = super().__getstate__()
        state["__dict__"] = {
            k: v
            for k, v in state["__dict__"].items()
            if k not in ("_store", "_views", "_text_owner", "_graphs_of", "_performances")
        }
        return state

    def __eq__(self, other: object) -> bool:
        self._materialize()
        if isinstance(other, Build):
            other._materialize()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def model_dump(self, *args: Any, **kwargs: Any) -> dict[str, Any]:  # noqa: D102
        self._materialize()
        return super().model_dump(*args, **kwargs)

    def model_dump_json(self, *args: Any, **kwargs: Any) -> str:  # noqa: D102
        self._materialize()
        return super().model_dump_json(*args, **kwargs)

    def model_copy(self, *args: Any, **kwargs: Any) -> Build:  # noqa: D102
        self._materialize()
        return super().model_copy(*args, **kwargs)

    def __copy__(self) -> Build:
        self._materialize()
        return super().__copy__()

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Build:
        self._materialize()
        return super().__deepcopy__(memo)

    def columns(self, kind: str, fields: Sequence[str] | None = None) -> dict[str, list[Any]]:
        """The fields of every ``kind`` event as columns, in file order.

        Columns: ``line``, ``end_line``, ``severity``, then the kind's own fields in the
        event class's order (the values the events hold; only ``fields``, when given).

        Raises:
            ValueError: ``kind`` is not an event kind.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[V] [TRT] Tactic: 0x1f Time: 0.5\\n")
            >>> b.columns("tactic_timing")["time_ms"]
            [0.5]
        """
        check_kinds((kind,))
        return event_columns(self.events_of(kind), kind, fields)

    def to_text(self) -> str:
        """The decoded input, exactly (line endings included)."""
        return self.text

    def _holds_surrogates(self) -> bool:
        # every string of a build (names, option labels...) comes from its text
        return LONE_SURROGATE.search(self.text) is not None

    @cached_property
    def lines(self) -> list[str]:
        """Every input line, decoded, with its own line ending (line ``n`` is ``lines[n-1]``)."""
        owner = self.__dict__.get("_text_owner")
        return owner.lines if owner is not None else list(iter_lines(self.text))

    @cached_property
    def _line_starts(self) -> array[int]:
        # a view (a run, build or round) shares its file's text: and the index of its lines
        owner = self.__dict__.get("_text_owner")
        return owner._line_starts if owner is not None else line_starts(self.text)

    @property
    def line_count(self) -> int:
        """The number of input lines."""
        d = self.__dict__
        store: EventStore | None = d.get("_store")
        if store is not None and "_line_starts" not in d and "_text_owner" not in d:
            return store.n_lines  # (the scanner counted them: no index of the lines needed)
        return len(self._line_starts) - 1

    @cached_property
    def _by_kind(self) -> dict[str, list[Event]]:
        index: dict[str, list[Event]] = {}
        for event in self.events:
            index.setdefault(event.kind, []).append(event)
        return index

    def events_of(self, *kinds: str) -> list[Event]:
        """The events of the given kinds, in file order.

        Raises:
            ValueError: a kind no event has (``"fusoin"``: did you mean ``"fusion"``?).

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[I] [TRT] Original: 5 layers\\n[I] hello\\n")
            >>> [e.layers for e in b.events_of("layer_count")]
            [5]
        """
        check_kinds(kinds)
        store = self._lazy
        if store is not None:
            return store.events_of(kinds)
        by_kind = self._by_kind
        if len(kinds) == 1:
            return list(by_kind.get(kinds[0], ()))
        # from the per-kind lists, not a walk over every event (spans never overlap: sorted
        # by first line is file order)
        found = [e for kind in dict.fromkeys(kinds) for e in by_kind.get(kind, ())]
        found.sort(key=_first_line)
        return found

    def of(self, cls: type[E]) -> list[E]:
        """The events of one class, typed, in file order.

        Example:
            >>> from trtlog.events import LayerCount
            >>> from trtlog import parse_text
            >>> b = parse_text("[I] [TRT] Original: 5 layers\\n")
            >>> [e.layers for e in b.of(LayerCount)]
            [5]
        """
        kind = cls.model_fields["kind"].default
        store = self._lazy
        if store is not None:
            return cast(list[E], store.events_of((kind,)))
        return cast(list[E], list(self._by_kind.get(kind, ())))

    def counts(self) -> dict[str, int]:
        """The number of events of each kind, most frequent first."""
        store = self._lazy
        if store is not None:
            return store.counts()
        return dict(Counter(e.kind for e in self.events).most_common())

    def kind_rows(self) -> list[KindRows]:
        """Every event's kind, lines and severity, without building the events.

        ``(kind, first lines, last lines, severities)`` parts, each of one kind and in file
        order, that together hold every event once (:meth:`EventStore.kind_rows
        <trtlog.buildlog.store.EventStore.kind_rows>`).

        Example:
            >>> from trtlog import parse_text
            >>> parse_text("[W] [TRT] Original: 5 layers\\n").kind_rows()
            [('layer_count', [1], [1], ['warning'])]
        """
        store = self._lazy
        if store is None:
            store = EventStore.of_events(self.events, self.line_count)
        return store.kind_rows()

    def text_of(self, event: Any) -> str:
        """The raw lines of an event (line endings included)."""
        first, last = event.span
        return self.lines_text(first, last)

    def lines_text(self, first: int, last: int | None = None) -> str:
        """The raw lines ``first`` to ``last`` (default: ``first`` alone), line endings included.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[I] [TRT] Original: 5 layers\\n[I] [TRT] Final: 3 layers\\n")
            >>> b.lines_text(2), b.lines_text(1, 2).count("\\n")
            ('[I] [TRT] Final: 3 layers\\n', 2)
        """
        starts = self._line_starts
        return self.text[starts[first - 1] : starts[first if last is None else last]]

    @cached_property
    def run_index(self) -> RunIndex:
        """Which trtexec run each line belongs to (:class:`~trtlog.buildlog.rounds.RunIndex`)."""
        return RunIndex(self.runs)

    def run_of(self, event: Any) -> Run | None:
        """The run an event belongs to, when the file has runs.

        Lines before the first run's banner belong to the first run, as in :meth:`for_run`.
        """
        return self.run_index.at(event.span[0])

    def events_in_run(self, index: int) -> list[Event]:
        """The events of run ``index`` (0-based): those of :meth:`for_run`."""
        first, last = self._run_lines(self.runs[index])
        return self.events_between(first, last)

    def _run_lines(self, run: Run) -> tuple[int, int]:
        return self.run_index.first_line(run), run.last_line

    @cached_property
    def _event_firsts(self) -> array[int]:
        # the first line of every event, in file order (spans never overlap): the one index
        # every per-run, per-build and per-round view slices
        return array("q", (e.span[0] for e in self.events))

    def events_between(self, first: int, last: int) -> list[Event]:
        """The events that start on lines ``first`` to ``last``, in file order.

        A slice found by bisection over the events' first lines (built once per build), or,
        while the events are not built, the events of those lines' part of the event store:
        a view of one run or build costs its own events, not the file's.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[I] [TRT] Original: 5 layers\\n[I] [TRT] Final: 3 layers\\n")
            >>> [e.span for e in b.events_between(2, 9)]
            [(2, 2)]
        """
        store = self._lazy
        if store is not None:  # (the events of those lines only are built)
            return store.between((first, last)).events()
        firsts = self._event_firsts
        return self.events[bisect_left(firsts, first) : bisect_right(firsts, last)]

    @cached_property
    def builds(self) -> tuple[EngineBuild, ...]:
        """The engine builds of every run, in file order (see :mod:`trtlog.buildlog.builds`).

        A trtexec run builds once (or loads an engine); a program that calls
        ``build_serialized_network`` several times prints several builds in one run, each
        with its own stages, rounds, times and engine.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[I] [TRT] Original: 5 layers\\n")
            >>> [(x.number, x.first_line, x.last_line, x.engine_line) for x in b.builds]
            [(0, 1, 1, None)]
        """
        return derive_builds(self.events_of(*BUILD_KINDS), self.runs, self._last_line)

    @cached_property
    def _build_index(self) -> BuildIndex:
        return BuildIndex(self.builds)

    def build_of(self, event: Any) -> EngineBuild | None:
        """The engine build an event belongs to."""
        return self._build_index.at(event.span[0])

    def builds_of_run(self, index: int | None) -> tuple[EngineBuild, ...]:
        """The builds of run ``index`` (``Build.runs[i].index``; ``None`` without runs)."""
        return self._builds_by_run.get(index, ())

    @cached_property
    def _builds_by_run(self) -> dict[int | None, tuple[EngineBuild, ...]]:
        found: dict[int | None, list[EngineBuild]] = {}
        for b in self.builds:
            found.setdefault(b.run, []).append(b)
        return {k: tuple(v) for k, v in found.items()}

    @cached_property
    def rounds(self) -> tuple[Round, ...]:
        """The builder rounds of every engine build, in file order (:mod:`trtlog.buildlog.rounds`).

        TensorRT 8.6+ may build the network once per backend strategy it tries within one
        engine build; each round has its own optimizer stages, tactic selection and engine
        generation, and one of them gives the build's engine (``Round.kept``). A build without
        backend strategies is one round.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[I] [TRT] Original: 5 layers\\n")
            >>> [(r.number, r.first_line, r.last_line, r.kept) for r in b.rounds]
            [(0, 1, 1, True)]
        """
        return derive_rounds(self.events_of("backend_strategy"), self.builds)

    @property
    def _last_line(self) -> int:
        """The last line of the last event (the line count of a parsed log)."""
        store = self._lazy
        if store is not None:
            return store.n_lines
        return self.events[-1].span[1] if self.events else 0

    @cached_property
    def pass_index(self) -> PassIndex:
        """Which optimizer pass (or stage) ran at each line (see :mod:`trtlog.buildlog.passes`).

        The one attribution rule of the frames, the summary, the merge graph and the per-pass
        comparison: ``build.pass_index.of(event)`` is the pass a fusion or removal is credited
        to, ``build.pass_index.at(line)`` the pass running at a line.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[V] [TRT] Running: ConvReluFusion on c\\n"
            ...                "[V] [TRT] ConvReluFusion: Fusing c with r\\n")
            >>> b.pass_index.of(b.events[1]), b.pass_index.at(2)
            ('ConvReluFusion', 'ConvReluFusion')
        """
        return PassIndex(self)

    @cached_property
    def _removal_events(self) -> list[RemovalEvent]:
        # removal_events of the removals and the pass boundaries: the summary, the passes and
        # the removals frame each read them (once per build)
        return removal_events(self.events_of(*REMOVAL_KINDS, "pass_run"))

    @cached_property
    def _pass_records(self) -> list[dict[str, Any]]:
        # pass_records: the summary and the passes frame each read them (once per build)
        return passes_of(self)

    def round_of(self, event: Any) -> Round | None:
        """The builder round an event belongs to."""
        return self._round_index.get(event.span[0])

    @cached_property
    def _round_index(self) -> RoundIndex:
        return RoundIndex(self.rounds)

    def for_round(self, index: int) -> Build:
        """The build as one builder round (0-based ``index`` into :attr:`rounds`) saw it.

        The events of that round's engine build (:meth:`for_build`), less those of the
        build's other rounds: the build's own lines before its first round (model parsing,
        the network's first layer counts) and after its last (the engine saved, its layer
        dump, inference) stay. With one round per build this is :meth:`for_build`.

        Raises:
            IndexError: there is no such round.
        """
        target = self.rounds[index]
        whole = self.for_build(target.build) if target.build is not None else self
        others = [r for r in self.rounds if r.build == target.build and r.index != target.index]
        if not others:
            return whole
        # the build's lines less those of its other rounds
        kept, at = [], 1
        for r in sorted(others, key=lambda r: r.first_line):
            if at < r.first_line:
                kept.append((at, r.first_line - 1))
            at = max(at, r.last_line + 1)
        kept.append((at, max(at, whole._last_line)))
        return whole._part(kept, whole.runs, like=whole)

    def _part(
        self, ranges: list[tuple[int, int]], runs: tuple[Run, ...], like: Build | None = None
    ) -> Build:
        """:meth:`_view` of the events that start in the line ``ranges`` (in file order).

        While this build's events are not built, the view's are not either: it holds the part
        of the event store for those lines (a run's, engine build's or round's view of a
        parsed log costs its own rows, not the file's events).
        """
        store = self._lazy
        if store is None:
            events = [e for first, last in ranges for e in self.events_between(first, last)]
            return self._view(events, runs, like=like)
        return self._view(None, runs, like=like, store=store.between(*ranges))

    def _view(
        self,
        events: list[Event] | None,
        runs: tuple[Run, ...],
        like: Build | None = None,
        store: EventStore | None = None,
    ) -> Build:
        """A build of some of these events (sharing the text), without this one's caches.

        ``like`` gives the header (options, device, version) when the events are a part of
        that build's (a build or round of a run keeps its run's options). ``store``: the
        events as a part of this build's event store instead (``events`` is then ``None``).
        """
        fields: dict[str, Any] = {} if store is not None else {"events": events}
        if like is not None:
            view = Build.model_construct(
                source=self.source,
                text=self.text,
                **fields,
                runs=runs,
                trt_version=like.trt_version,
                rtx_version=like.rtx_version,
                product=like.product,
                version_source=like.version_source,
                command_line=like.command_line,
                options=like.options,
                device=like.device,
            )
        else:
            header = derive_header(
                store.events_of(HEADER_KINDS) if store is not None else events or [],
                self.line_count,
            )
            run = runs[0] if len(runs) == 1 else None
            view = Build.model_construct(
                source=self.source,
                text=self.text,
                **fields,
                runs=runs,
                trt_version=(run.trt_version if run else None)
                or header.trt_version
                or self.trt_version,
                rtx_version=(run.rtx_version if run else None)
                or header.rtx_version
                or self.rtx_version,
                product=self.product,
                version_source=(run.version_source if run else None)
                or header.version_source
                or self.version_source,
                command_line=(run.command_line if run else None) or header.command_line,
                options=header.options,
                device=header.device or self.device,
            )
        # the file's line index is made once, whatever the number of views
        put(view, "_text_owner", self.__dict__.get("_text_owner") or self)
        if store is not None:
            put(view, "_store", store)
        return view

    def for_build(self, index: int) -> Build:
        """The log as one engine build (0-based ``index`` into :attr:`builds`) saw it.

        The events of that build's lines, with its run's header (options, device, version):
        every view of the returned build (summary, engine, frames, findings) sees that build
        only. With one build per run this is :meth:`for_run`. Views are made once and kept.

        Raises:
            IndexError: there is no such build.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[V] [TRT] Original: 5 layers\\n"
            ...                "[I] [TRT] Engine generation completed in 1.5 seconds.\\n"
            ...                "[V] [TRT] Original: 7 layers\\n")
            >>> [e.layers for e in b.for_build(1).events_of("layer_count")]
            [7]
        """
        target = self.builds[index]
        views = self._views
        key = ("build", target.index)
        if key not in views:
            position = self._run_position(target.run)
            several = position is not None and len(self.runs) > 1
            run = self.for_run(position) if several and position is not None else self
            if len(self.builds_of_run(target.run)) == 1:
                views[key] = run
            else:
                views[key] = self._part([(target.first_line, target.last_line)], run.runs, like=run)
        return views[key]

    def _run_position(self, run: int | None) -> int | None:
        """The position in :attr:`runs` of the run of index ``run`` (``None`` without runs)."""
        if run is None or not self.runs:
            return None
        if run < len(self.runs) and self.runs[run].index == run:
            return run
        return next((i for i, r in enumerate(self.runs) if r.index == run), None)

    @cached_property
    def _views(self) -> dict[tuple[str, int], Build]:
        # the views of runs and builds made so far (each made once: summary, lint and the
        # warehouse ask for the same run several times)
        return {}

    def forget_views(self, *, run: int | None = None, build: int | None = None) -> None:
        """Let go of the view of run ``run`` and of engine build ``build`` (0-based), if made.

        :meth:`for_run` and :meth:`for_build` keep each view they make, with whatever its
        readers computed on it (header, outcome, frames, findings). A reader that walks every
        run of a log of thousands once (the warehouse) drops each when it is done, so that
        memory holds the views of one run at a time; a later call makes the view again.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("&&&& RUNNING TensorRT.trtexec # trtexec\\n[I] hello\\n")
            >>> view = b.for_run(0)
            >>> b.forget_views(run=0)
            >>> b.for_run(0) is view
            False
        """
        views = self._views
        if run is not None:
            views.pop(("run", run % max(len(self.runs), 1)), None)
        if build is not None:
            views.pop(("build", self.builds[build].index), None)

    def for_run(self, index: int) -> Build:
        """The build of one trtexec run (0-based ``index``): its events, options and device.

        A file can hold several runs (sweeps over batch sizes, a build then an inference run,
        two models): every view of the returned build (summary, engine, frames, merge graph,
        findings) sees that run only. It shares the file's text, so line numbers are the
        file's; lines before the first run's banner belong to the first run.

        Raises:
            IndexError: there is no such run.

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text(
            ...     "&&&& RUNNING TensorRT.trtexec # trtexec --batch=1\\n"
            ...     "[I] [TRT] Original: 5 layers\\n"
            ...     "&&&& RUNNING TensorRT.trtexec # trtexec --batch=2\\n"
            ...     "[I] [TRT] Original: 7 layers\\n"
            ... )
            >>> [e.layers for e in b.for_run(1).events_of("layer_count")]
            [7]
        """
        if not self.runs and index in (0, -1):
            return self
        if not -len(self.runs) <= index < len(self.runs):
            raise IndexError(f"run {index} out of range: the log has {len(self.runs)} run(s)")
        index %= len(self.runs)
        views = self._views
        key = ("run", index)
        if key not in views:
            run = self.runs[index]
            views[key] = self._part([self._run_lines(run)], (run,))
        return views[key]

    @cached_property
    def engine(self) -> Engine | None:
        """The engine the log's layer dumps describe, or ``None`` when it has none.

        The source is an inspector dump, a builder listing or a names-only dump (see
        :func:`trtlog.engine.from_log.engine_from_events`). When the log also prints a
        ``--dumpProfile`` table, its layer times are merged (``Engine.profile``, ``time_ms``
        of ``layers_frame()``), as a ``--exportProfile`` file would be.
        """
        with gc_paused():  # thousands of layer and tensor objects
            engine = engine_from_events(self._events_for(_ENGINE_CLASSES), self.source.name)
            if engine is None:
                return None
            profile = self.dumped_profile()
            return engine if profile is None else engine.with_profile(profile)

    def performances(self) -> list[Performance]:
        """The performance of every trtexec run of the log that printed some (in file order).

        :func:`~trtlog.buildlog.performance.performances` of the log's events and runs, made
        once per build (a run's view has its own).

        Example:
            >>> from trtlog import parse_text
            >>> b = parse_text("[I] Host Latency\\n[I] min: 1.99 ms (end to end 2.0 ms)\\n"
            ...                "[I] throughput: 479.452 qps\\n")
            >>> [p.throughput_qps for p in b.performances()]
            [479.452]
        """
        return list(self._performances)

    @cached_property
    def _performances(self) -> list[Performance]:
        kinds = [c.model_fields["kind"].default for c in PERFORMANCE_EVENTS]
        return performances(self.events_of(*kinds), self.runs)

    def dumped_profile(self) -> Profile | None:
        """The log's own ``--dumpProfile`` table (the last one printed), or ``None``.

        Its layer times, as :func:`~trtlog.buildlog.performance.profile_from_events` reads
        them; :attr:`engine` merges them, as a ``--exportProfile`` file would be.
        """
        return profile_of(self.performances(), self.source.name)

    def _events_for(self, classes: tuple[type[EventBase], ...]) -> list[Event]:
        """The events a reader of only ``classes`` needs.

        All of them once built, else those of ``classes`` from the store (the reader skips
        every other event).
        """
        if self._lazy is None:
            return self.events
        return self.events_of(*(c.model_fields["kind"].default for c in classes))

    @property
    def event_count(self) -> int:
        """The number of events (without building them)."""
        store = self._lazy
        return len(self.events) if store is None else len(store)

    # -- frames (pandas is imported on first use) ----------------------------------------

    def layer_counts_frame(self) -> pd.DataFrame:
        """Stage → layer count (see :func:`trtlog.frames.layer_counts_frame`)."""
        from trtlog.frames import layer_counts_frame

        return layer_counts_frame(self)

    def passes_frame(self) -> pd.DataFrame:
        """One row per optimization pass (see :func:`trtlog.frames.passes_frame`)."""
        from trtlog.frames import passes_frame

        return passes_frame(self)

    def fusions_frame(self) -> pd.DataFrame:
        """One row per fusion (see :func:`trtlog.frames.fusions_frame`)."""
        from trtlog.frames import fusions_frame

        return fusions_frame(self)

    def removals_frame(self) -> pd.DataFrame:
        """One row per removal or elimination (see :func:`trtlog.frames.removals_frame`)."""
        from trtlog.frames import removals_frame

        return removals_frame(self)

    def qdq_frame(self) -> pd.DataFrame:
        """One row per Q/DQ optimizer event (see :func:`trtlog.frames.qdq_frame`)."""
        from trtlog.frames import qdq_frame

        return qdq_frame(self)

    def tactics_frame(self) -> pd.DataFrame:
        """One row per timed or skipped tactic (see :func:`trtlog.frames.tactics_frame`)."""
        from trtlog.frames import tactics_frame

        return tactics_frame(self)

    def memory_frame(self) -> pd.DataFrame:
        """Every memory figure with its stage (see :func:`trtlog.frames.memory_frame`)."""
        from trtlog.frames import memory_frame

        return memory_frame(self)

    def merge_graph(self, engine: Engine | None = None) -> MergeGraph:
        """Which ONNX nodes became which engine layers, by which pass (a networkx DiGraph).

        ``engine`` gives the final layers (default: the log's layer dump, else the layers the
        builder autotuned). Built once per build and engine (see :mod:`trtlog.graph`): the
        report's merge explorer and its fusion bisection read the same graph.
        """
        if engine is None:
            return self._merge_graph
        made = self._graphs_of
        found = made.get(id(engine))
        if found is None or found[0] is not engine:
            # (the engine is kept with its graph: its id names no other engine meanwhile)
            found = made[id(engine)] = (engine, self._merge_graph_of(engine))
        return found[1]

    def _merge_graph_of(self, engine: Engine) -> MergeGraph:
        from trtlog.graph import merge_graph

        return merge_graph(self, engine)

    @cached_property
    def _graphs_of(self) -> dict[int, tuple[Engine, MergeGraph]]:
        return {}

    @cached_property
    def _merge_graph(self) -> MergeGraph:
        from trtlog.graph import merge_graph

        return merge_graph(self)

    @property
    def unrecognized(self) -> list[Event]:
        """The ``unrecognized`` events."""
        return self.events_of("unrecognized")

    # -- display (a Build holds every line: the default repr runs to megabytes) ----------

    def __repr__(self) -> str:
        """One line: ``<Build 'b.log': 8,839 lines, 50,551 events, TensorRT 8.5.10, 1 run>``."""
        version = ".".join(map(str, self.trt_version)) if self.trt_version else "unknown"
        return (
            f"<Build {self.source.name!r}: {plural(self.line_count, 'line')}, "
            f"{plural(self.event_count, 'event')}, TensorRT {version}, "
            f"{plural(len(self.runs), 'run')}>"
        )

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """A small table for notebooks: source, version, device, model, counts, kinds."""
        version = ".".join(map(str, self.trt_version)) if self.trt_version else None
        device = self.device
        return html_table(
            "trtlog.Build",
            [
                ("source", self.source.name),
                ("TensorRT", version),
                ("command", clip(self.command_line or "", 160)),
                ("device", device.name if device else None),
                ("model", self.options.model),
                ("precision", self.options.precision),
                ("lines", f"{self.line_count:,}"),
                ("runs", len(self.runs)),
                ("events", f"{self.event_count:,}"),
                ("most frequent", top_counts(e.kind for e in self.events)),
                ("unrecognized", f"{len(self.unrecognized):,}"),
            ],
        )
