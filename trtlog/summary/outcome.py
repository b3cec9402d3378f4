"""The outcome of each build in a log: built, failed, killed, incomplete or no build.

Part of the summary package, and the one place that decides whether a build succeeded:
``trtlog summary``, ``lint`` (``build-failed``, ``benign-warning``), ``explain``, ``report``
and the warehouse's ``builds`` table read :func:`outcomes`; none decides it again.

A log is cut into its engine builds (:attr:`Build.builds <trtlog.buildlog.Build.builds>`: one
per trtexec run, or one per ``build_serialized_network`` call of a program; the whole log is
one build when it shows no start of one), and each build gets one :class:`Outcome`. The run's
result line (``&&&& PASSED``/``FAILED``) speaks for the run's last build only; an earlier build
of the run is judged by its own lines. A view of one run (``trtlog summary``, a run's lint)
takes the outcome of the run's last build.

``failed``
    a ``&&&& FAILED`` footer; or, without a footer, a crash line (``Segmentation fault``,
    ``Aborted``, a failed ``assert()``), an error that ends a build (``Error Code N`` other than
    the autotuner's code 9, ``Could not find any implementation``, ``buildSerializedNetwork``,
    ``Unknown option``, an ONNX node the parser rejected, Polygraphy's ``[!]``, a program's
    own "build ... failed" line), or a timing exception that removed a layer's last tactic,
    while no engine was built after it.
``killed``
    the segment ends with the shell's ``Killed`` (the operating system stopped the process,
    nearly always because the host ran out of memory).
``built``
    an engine was built (``Engine built in``, ``Engine generation completed``, the engine's
    size or layer dump; in TensorRT 5-7 the builder's last line, ``Detected N inputs and M
    output network tensors``), or a ``&&&& PASSED`` run that loaded no engine.
``no-build``
    a run that loaded an engine (``--loadEngine``), or text that shows no build at all.
``incomplete``
    a build started (a run banner, autotuning or optimizer messages) and the text ends before
    it finished or failed: a log cut off, a paste of its middle.

A ``Skipping tactic ... due to exception`` line is harmless when the layer kept another tactic
and the build went on; it is the failure's cause (:attr:`TacticException.fatal`) when no engine
came of the segment and the layer was left without a tactic: its profile ends with ``Time:
inf`` or no tactic of it was timed, it was Myelin's only tactic, or an error followed.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from trtlog._pydantic import put
from trtlog.buildlog import Build
from trtlog.buildlog.builds import EngineBuild
from trtlog.events import (
    AccuracyFailed,
    AppError,
    EngineBuilt,
    ErrorRecorded,
    EventBase,
    InternalError,
    OnnxNodeError,
    PreOptionNotice,
    RunEnd,
    RunnerProfiled,
    TacticSkippedException,
    TrtError,
    Unrecognized,
)

__all__ = [
    "ERROR_EVENTS",
    "OUTCOMES",
    "Outcome",
    "OutcomeValue",
    "TacticException",
    "event_text",
    "is_error",
    "outcome_of",
    "outcomes",
    "tactic_exceptions",
]

OutcomeValue = Literal["built", "failed", "killed", "incomplete", "no-build"]
#: Every outcome value, in the order the documentation lists them.
OUTCOMES: tuple[OutcomeValue, ...] = ("built", "failed", "killed", "incomplete", "no-build")

#: The error events (the classes whose text a failure quotes), most telling first.
ERROR_EVENTS: tuple[type[EventBase], ...] = (
    OnnxNodeError,
    ErrorRecorded,
    TrtError,
    InternalError,
    AppError,
    PreOptionNotice,
)
_ERROR_KINDS = tuple(c.model_fields["kind"].default for c in ERROR_EVENTS)
# (``Detected N inputs and M output network tensors`` is the builder's last line in TensorRT
# 5-7, which print no ``Engine generation completed``; from 8 it comes shortly before that
# line, and an error after it still makes the build failed)
_BUILT_KINDS = ("engine_generated", "engine_layer_info_header", "engine_size", "network_io_count")
_LOADED_KINDS = ("engine_deserialized", "engine_load_size")
# messages that only a build prints (its optimizer, autotuner or parser at work)
_BUILD_KINDS = (
    "layer_costs_header",
    "layer_count",
    "timing_cache_mode",
    "graph_build_done",
    "tactics_done",
    "onnx_model_info",
    "legacy_timing_header",
)
T = TypeVar("T")

# a [V] line of any envelope: trtexec's "[V] ", the Python logger's "[TRT] [V] ", 7.x "VERBOSE:"
_VERBOSE_TEXT = re.compile(r"\[V\] |\[TensorRT\] VERBOSE: |\] VERBOSE ")
_HEADER_KINDS = ("layer_costs_header", "timing_runner", "legacy_timing_header")
_TIMED_KINDS = ("tactic_timing", "cached_tactic", "myelin_tactic")

# the shell's message when the OOM killer (or kill -9) stops the process: "Killed", or bash's
# job report "./build.sh: line 3: 4242 Killed  trtexec ..."
_KILLED = re.compile(r"Killed(?:\s.*)?|.*?\b\d+ Killed\s.*")
_CRASH = re.compile(
    r"Segmentation fault|Aborted \(core dumped\)|^Aborted$|core dumped|terminate called|"
    r"Bus error|Floating point exception|Assertion .*failed|Assertion failed"
)
_TACTIC_EXCEPTION = re.compile(
    r"Skipping tactic ?(?P<tactic>0x[0-9a-fA-F]+|-?\d+) due to (?:exception|Myelin error)"
    r":? ?(?P<what>.*)"
)
# an error that ends a build when no engine follows (the library's, trtexec's, a program's)
_ENDS_BUILD = re.compile(
    r"Could not find any implementation|Engine could not be created|Network validation failed|"
    r"buildSerializedNetwork|Building engine failed|Failed to parse onnx file|"
    r"Unable to create engine|Network must have at least one output|Could not parse ONNX|"
    r"Failed to parse ONNX|tensor volume exceeds|cannot be quantized|MyelinCheckException|"
    r"Build serialized network failed|Invalid Engine|Assertion \S.* failed|^Assertion$",
    re.IGNORECASE,
)
# a program's own line after TensorRT's errors: "ERROR: failed to build the TensorRT engine!",
# "RuntimeError: engine build failed", "Error: Build serialized network failed."
_PROGRAM_FAILED = re.compile(
    r"\b(?:fail(?:ed|ure)?\b.{0,40}\b(?:build|engine|network)|"
    r"(?:build|building|engine|network)\b.{0,40}\bfail(?:ed|ure)?)\b",
    re.IGNORECASE,
)
_NO_IMPL = re.compile(r"Could not find any implementation for node (?P<node>.+?)(?:\.\)?\s*$|\.\s)")
_QUANTIZE = re.compile(r"Node (?P<node>.+?) cannot be quantized")
_MYELIN = re.compile(r"Myelin|myelin|api_compile\.cpp|0xd15ea5edd15ea5ed|no tactics to implement")
_MEMORY = re.compile(
    r"out of memory|OutOfMemory|insufficient memory|could not be allocated|cudaErrorMemory|"
    r"Requested amount of GPU memory|failed to allocate",
    re.IGNORECASE,
)
_PRECISION = re.compile(r"\b(?:BF16|BFloat16|FP8|Fp8|FP4|Int4|INT4|NVFP4)\b")
_VOLUME = re.compile(r"tensor volume exceeds \(2\^31\)-1")
_INF_TACTIC = 0xD15EA5EDD15EA5ED  # Myelin's "no tactic" placeholder in a profile line


class TacticException(BaseModel):
    """A tactic the autotuner skipped because timing it threw.

    Attributes:
        line: the log line.
        tactic: the tactic id as printed (``0x0000000000000000``).
        exception: the exception text.
        layer: the layer being timed (the last ``Computing costs for``/``Timing Runner``
            before the line), if the log shows one.
        kind: ``myelin`` (Myelin's compiler threw), ``memory``, ``precision`` (a BF16/FP8/FP4
            kernel is missing) or ``kernel`` (anything else).
        fatal: whether it is the cause of a failure (see the module docstring).
    """

    model_config = ConfigDict(frozen=True)

    line: int
    tactic: str
    exception: str
    layer: str | None = None
    kind: Literal["myelin", "memory", "precision", "kernel"] = "kernel"
    fatal: bool = False


class Outcome(BaseModel):
    """The outcome of one engine build (:class:`~trtlog.buildlog.builds.EngineBuild`).

    Attributes:
        value: ``built``, ``failed``, ``killed``, ``incomplete`` or ``no-build``.
        run: the trtexec run (0-based), ``None`` for a log without run banners.
        build: the engine build within its run (0-based, ``EngineBuild.number``).
        first_line: the build's first line.
        last_line: its last line.
        cause: for ``failed`` and ``killed``: ``killed``, ``crash``, ``command-line``,
            ``tactic-exception``, ``no-implementation``, ``onnx-parse``, ``tensor-volume``,
            ``quantization``, ``memory``, ``accuracy``, ``error`` (another error) or
            ``no-error`` (a failure that printed no error).
        line: the line that shows the outcome (the first error quoted, the crash or
            ``Killed`` line, the engine line), if any.
        text: that line's message.
        node: the layer or node the failure names, if any.
        errors: the lines of the segment's error events (tactic exceptions excluded).
        exceptions: the tactic exceptions of the segment.
        verbose: whether the segment was logged with ``--verbose`` (``[V]`` lines, or the flag
            on its command line).
    """

    model_config = ConfigDict(frozen=True)

    value: OutcomeValue
    run: int | None = None
    build: int = 0
    first_line: int
    last_line: int
    cause: str | None = None
    line: int | None = None
    text: str | None = None
    node: str | None = None
    errors: tuple[int, ...] = ()
    exceptions: tuple[TacticException, ...] = ()
    verbose: bool = False

    def to_text(self) -> str:
        """One line: the value, the cause and the line that shows it.

        Example:
            >>> Outcome(value="killed", first_line=1, last_line=9, cause="killed",
            ...         line=9, text="Killed").to_text()
            'killed (killed): line 9: Killed'
        """
        out: str = self.value
        if self.cause:
            out += f" ({self.cause})"
        if self.line is not None:
            out += f": line {self.line}"
            if self.text:
                out += f": {self.text[:160]}"
        return out


#: A tactic exception found: its event, the tactic as printed and what the exception says.
_Found = tuple[Any, str, str]


def _exception_of(e: Any) -> tuple[str, str] | None:
    """The tactic and the exception of a ``Skipping tactic ... due to exception`` message.

    The parser's typed event (TensorRT's own line), or the text of an error or an
    unrecognized line that carries it (the error recorder's ``Error Code: 9: Skipping
    tactic ...``, an integration's logger).
    """
    if isinstance(e, TacticSkippedException):
        return f"0x{e.tactic:016x}", e.exception
    m = _TACTIC_EXCEPTION.search(event_text(e))
    return (m.group("tactic"), m.group("what")) if m is not None else None


def event_text(e: Any) -> str:
    """What an error event says, in words (the error classes name their text differently)."""
    if isinstance(e, InternalError) and e.what == "assertion":
        where = f" at {e.source_file}:{e.source_line}" if e.source_file else ""
        return f"Assertion `{e.message}' failed{where}"
    for attr in ("description", "message", "node_text", "text"):
        value = getattr(e, attr, None)
        if value:
            return str(value)
    return ""


def is_error(e: Any) -> bool:
    """An error event: an ``[E]``/``[F]`` line, an ONNX node error, an envelope-less assert."""
    if isinstance(e, OnnxNodeError):
        return True
    return e.severity in ("error", "fatal") or (isinstance(e, InternalError) and e.severity is None)


def _lines_of(build: Build, kinds: Sequence[str]) -> list[int]:
    """The first lines of every event of ``kinds``, sorted, without building the events."""
    wanted = set(kinds)
    out: list[int] = []
    for kind, firsts, _lasts, _severities in build.kind_rows():
        if kind in wanted:
            out += firsts
    out.sort()
    return out


def _segments(build: Build) -> list[tuple[EngineBuild, Any, bool]]:
    """Each engine build, its run (``None`` without runs) and whether it is the run's last."""
    runs = {r.index: r for r in build.runs}
    builds = build.builds
    return [
        (
            b,
            runs.get(b.run) if b.run is not None else None,
            k + 1 == len(builds) or builds[k + 1].run != b.run,
        )
        for k, b in enumerate(builds)
    ]


def tactic_exceptions(build: Build) -> list[TacticException]:
    """Every ``Skipping tactic ... due to exception`` line, judged by its consequence.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[W] [TRT] Skipping tactic 0x0000000000000000 due to exception "
        ...                "no tactics to implement operation\\n")
        >>> [(t.kind, t.fatal) for t in tactic_exceptions(b)]
        [('myelin', True)]
    """
    return [t for o in outcomes(build) for t in o.exceptions]


def outcome_of(build: Build, engine_build: EngineBuild | None = None) -> Outcome:
    """The outcome of one engine build of a log (``engine_build``, one of ``build.builds``).

    By default the last build (the one ``trtlog summary`` describes; of a run's view, the
    run's last build).
    """
    found = outcomes(build)
    if engine_build is None:
        return found[-1]
    return found[engine_build.index]


def outcomes(build: Build) -> list[Outcome]:
    """The outcome of every engine build of a log, in file order.

    ``outcomes(b)[i]`` is the outcome of ``b.builds[i]``; decided once per parsed log (or
    view) and kept.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[I] [TRT] Local timing cache in use.\\nKilled\\n")
        >>> outcomes(b)[0].value
        'killed'
    """
    found: list[Outcome] | None = build.__dict__.get("_outcomes")
    if found is None:
        found = _Facts(build).outcomes()
        put(build, "_outcomes", found)
    return list(found)


class _Facts:
    """The events an outcome is decided from, read once per build."""

    def __init__(self, build: Build) -> None:
        self.build = build
        self.errors = sorted(
            (e for e in build.events_of(*_ERROR_KINDS) if is_error(e)), key=lambda e: e.span[0]
        )
        self.unrecognized = [
            e for e in build.of(Unrecognized) if e.severity != "verbose" and e.message
        ]
        # the typed skip lines, verbose ones left out as they were while unrecognized
        self.skips = [e for e in build.of(TacticSkippedException) if e.severity != "verbose"]
        self.ends = build.of(RunEnd)
        engines = build.of(EngineBuilt)
        # the engine lines are few: the events themselves (a lazy build makes only these)
        self.built = sorted(
            [e.span[0] for e in engines if not e.loaded]
            + [e.span[0] for e in build.events_of(*_BUILT_KINDS)]
        )
        self.loaded = sorted(
            [e.span[0] for e in engines if e.loaded]
            + [e.span[0] for e in build.events_of(*_LOADED_KINDS)]
        )
        self._started: list[int] | None = None
        self._kinds: list[Sequence[int]] | None = None
        # first lines of the lists above, so that each segment takes its slice by bisection
        # (a log of thousands of runs has thousands of segments: a scan each would be quadratic)
        self._error_lines = [e.span[0] for e in self.errors]
        self._unrec_lines = [e.span[0] for e in self.unrecognized]
        self._skip_lines = [e.span[0] for e in self.skips]
        self._end_lines = [e.span[0] for e in self.ends]

    def started(self, lo: int, hi: int) -> bool:
        """Whether a build started in ``lo..hi``: a message only a build prints."""
        if self._started is None:
            self._started = sorted(e.span[0] for e in self.build.events_of(*_BUILD_KINDS))
        i = bisect.bisect_left(self._started, lo)
        return i < len(self._started) and self._started[i] <= hi

    def has_verbose(self, lo: int, hi: int) -> bool:
        """Whether ``lo..hi`` holds a ``[V]`` line (a search of the raw text: C speed)."""
        return _VERBOSE_TEXT.search(self.build.lines_text(lo, hi)) is not None

    def outcomes(self) -> list[Outcome]:
        return [self._outcome(*segment) for segment in _segments(self.build)]

    def _outcome(self, engine_build: EngineBuild, info: Any, last_of_run: bool) -> Outcome:
        lo, hi = engine_build.first_line, engine_build.last_line

        # the run's result line speaks for its last build; an earlier one ended when the next
        # started, and its own lines say how
        status = info.status if info is not None and last_of_run else None
        command = (info.command_line or "") if info is not None else ""
        verbose = bool(re.search(r"(?:^|\s)(?:--verbose|-v)\b", command)) or self.has_verbose(
            lo, hi
        )
        unrec = _within(self.unrecognized, self._unrec_lines, lo, hi)
        seg_errors = _within(self.errors, self._error_lines, lo, hi)
        skips = _within(self.skips, self._skip_lines, lo, hi)
        exception_events = [
            (e, *found) for e in [*unrec, *seg_errors, *skips] if (found := _exception_of(e))
        ]
        exception_lines = {e.span[0] for e, *_ in exception_events}
        errors = [e for e in seg_errors if e.span[0] not in exception_lines]
        built = _within(self.built, self.built, lo, hi)
        loaded = _within(self.loaded, self.loaded, lo, hi)
        started = bool(exception_events)
        last = self._last_text(unrec, hi)
        base: dict[str, Any] = {
            "run": engine_build.run,
            "build": engine_build.number,
            "first_line": lo,
            "last_line": hi,
            "verbose": verbose,
        }
        if last is not None and _KILLED.fullmatch(last[1]) and last[0] is None:
            return self._with_exceptions(
                Outcome(value="killed", cause="killed", line=last[2], text=last[1], **base),
                exception_events,
                built=False,
            )
        crash: list[Any] = [
            e for e in unrec if _CRASH.search(e.message) and not _TACTIC_EXCEPTION.search(e.message)
        ]
        crash += [e for e in errors if isinstance(e, InternalError) and e.aborting]
        ending = [e for e in errors if _ENDS_BUILD.search(event_text(e)) or _ends(e)]
        program = [
            e
            for e in unrec
            if (e.severity in ("error", "fatal") or e.envelope in (None, "polygraphy"))
            and (_PROGRAM_FAILED.search(e.message) or _ENDS_BUILD.search(e.message))
            and not _TACTIC_EXCEPTION.search(e.message)
        ]
        # an [E] line no rule parses: what a failed run quotes when it printed nothing better
        program += [
            e
            for e in unrec
            if e.severity in ("error", "fatal")
            and e not in program
            and not _TACTIC_EXCEPTION.search(e.message)
            and status == "failed"
        ]
        engine_after = bool(built) and max(built) > max(
            (e.span[0] for e in [*ending, *program]), default=0
        )
        if status == "failed" or (
            status is None and not engine_after and (crash or ending or program)
        ):
            return self._failure(base, errors, crash, program, exception_events)
        exceptions = self._judge(exception_events, built=bool(built), errors=errors)
        if any(t.fatal for t in exceptions) and not built:
            return self._failure(base, errors, crash, program, exception_events)
        if built:
            return Outcome(
                value="built",
                line=built[-1],
                text=self._message(built[-1]),
                errors=tuple(e.span[0] for e in errors),
                exceptions=tuple(exceptions),
                **base,
            )
        if loaded or (info is not None and status == "passed" and self._loads(info)):
            return Outcome(
                value="no-build",
                line=loaded[-1] if loaded else None,
                text=self._message(loaded[-1]) if loaded else None,
                errors=tuple(e.span[0] for e in errors),
                exceptions=tuple(exceptions),
                **base,
            )
        if status == "passed":
            return Outcome(value="built", line=info.end_line, **base)
        if status == "waived" or not (
            started or errors or info is not None or self.started(lo, hi)
        ):
            return Outcome(value="no-build", exceptions=tuple(exceptions), **base)
        return Outcome(
            value="incomplete",
            line=last[2] if last is not None else hi,
            text=last[1] if last is not None else None,
            errors=tuple(e.span[0] for e in errors),
            exceptions=tuple(exceptions),
            **base,
        )

    def _loads(self, info: Any) -> bool:
        return "--loadEngine" in (info.command_line or "")

    def _message(self, n: int) -> str:
        return self.build.lines_text(n).strip()

    def _last_text(self, unrec: list[Unrecognized], hi: int) -> tuple[Any, str, int] | None:
        """``(envelope, message, line)`` of the segment's last non-blank line."""
        text = self.build.lines_text
        by_line = {e.span[0]: e for e in unrec}
        for n in range(hi, max(hi - 50, 0), -1):
            hit = by_line.get(n)
            if hit is not None and hit.message.strip():
                return hit.envelope, hit.message.strip(), n
            raw = text(n).strip()
            if raw:
                return "event", raw, n
            # a streamed log's Build holds its events without their text: an event's line
            if self._event_starts(n):
                return "event", "", n
        return None

    def _event_starts(self, n: int) -> bool:
        """Whether an event starts on line ``n`` (from the kind index: no event is built)."""
        if self._kinds is None:
            self._kinds = [firsts for _kind, firsts, _lasts, _sev in self.build.kind_rows()]
        for firsts in self._kinds:
            i = bisect.bisect_left(firsts, n)
            if i < len(firsts) and firsts[i] == n:
                return True
        return False

    def _judge(
        self, found: list[_Found], *, built: bool, errors: list[Any]
    ) -> list[TacticException]:
        """Each tactic exception of a segment, fatal or not (see the module docstring)."""
        if not found:
            return []
        build = self.build
        headers = build.events_of(*_HEADER_KINDS)
        header_lines = [e.span[0] for e in headers]
        timed = _lines_of(build, _TIMED_KINDS)
        profiles = build.of(RunnerProfiled)
        profile_lines = [e.span[0] for e in profiles]
        end_error = min(
            (e.span[0] for e in errors if _ENDS_BUILD.search(event_text(e))), default=math.inf
        )
        out = []
        for e, tactic, exception in sorted(found, key=lambda x: x[0].span[0]):
            n = e.span[0]
            i = bisect.bisect_right(header_lines, n) - 1
            start = header_lines[i] if i >= 0 else 0
            j = bisect.bisect_right(header_lines, n)
            stop = header_lines[j] if j < len(header_lines) else math.inf
            layer = getattr(headers[i], "layer", None) if i >= 0 else None
            what = exception.strip()
            text = event_text(e)
            if isinstance(e, TacticSkippedException):  # the message's words without the id
                text = f"{'Myelin error' if e.cause == 'myelin_error' else 'exception'} {what}"
            kind: Literal["myelin", "memory", "precision", "kernel"]
            if _MYELIN.search(text) or (layer or "").startswith("{ForeignNode["):
                kind = "myelin"
            elif _MEMORY.search(what):
                kind = "memory"
            elif _PRECISION.search(what):
                kind = "precision"
            else:
                kind = "kernel"
            k = bisect.bisect_right(profile_lines, n)
            profile = profiles[k] if k < len(profile_lines) and profile_lines[k] < stop else None
            no_tactic = profile is not None and (
                profile.tactic == _INF_TACTIC or math.isinf(profile.time_ms)
            )
            t = bisect.bisect_right(timed, start)
            timed_any = t < len(timed) and timed[t] < stop
            header_shown = i >= 0
            error_after = math.isfinite(end_error) and end_error > n
            fatal = not built and (
                no_tactic
                or (header_shown and not timed_any)
                or (kind == "myelin" and not timed_any)
                or error_after
            )
            out.append(
                TacticException(
                    line=n,
                    tactic=tactic,
                    exception=what or text,
                    layer=layer or (profile.layer if profile is not None else None),
                    kind=kind,
                    fatal=fatal,
                )
            )
        return out

    def _with_exceptions(self, outcome: Outcome, found: list[_Found], *, built: bool) -> Outcome:
        lo, hi = outcome.first_line, outcome.last_line
        mine = [f for f in found if lo <= f[0].span[0] <= hi]
        judged = self._judge(mine, built=built, errors=[])
        return outcome.model_copy(update={"exceptions": tuple(judged)})

    def _failure(
        self,
        base: dict[str, Any],
        errors: list[Any],
        crash: list[Any],
        program: list[Any],
        found: list[_Found],
    ) -> Outcome:
        lo, hi = base["first_line"], base["last_line"]
        accuracy = {e.span[0] for e in self.build.of(AccuracyFailed) if lo <= e.span[0] <= hi}
        exceptions = self._judge(
            [f for f in found if lo <= f[0].span[0] <= hi], built=False, errors=errors
        )
        fatal = [t for t in exceptions if t.fatal]
        ranked = sorted(errors, key=lambda e: (_rank(e), e.span[0]))
        all_text = [event_text(e) for e in errors]
        node = _node(errors)
        first = ranked[0] if ranked else None
        cause = "error"
        if accuracy and not crash and all(e.span[0] in accuracy for e in errors):
            cause = "accuracy"
            first = ranked[0] if ranked else None
        elif any(isinstance(e, PreOptionNotice) for e in errors):
            cause = "command-line"
        elif fatal:
            cause = "tactic-exception"
            node = node or fatal[-1].layer
            if first is None:
                first = next((f[0] for f in found if f[0].span[0] == fatal[0].line), None)
        elif any(isinstance(e, OnnxNodeError) for e in errors) or any(
            "parse ONNX" in t or "parse onnx" in t for t in all_text
        ):
            cause = "onnx-parse"
        elif any(_NO_IMPL.search(t) for t in all_text):
            cause = "no-implementation"
        elif any(_VOLUME.search(t) for t in all_text):
            cause = "tensor-volume"
        elif any(_QUANTIZE.search(t) for t in all_text):
            cause = "quantization"
        elif any(_MEMORY.search(t) for t in all_text):
            cause = "memory"
        elif crash:
            cause, first = "crash", crash[0]
        elif program:
            # a program's own error lines (7.x's Python logger, a script's message)
            cause, first = "error", program[0]
            errors = sorted([*errors, *program], key=lambda e: e.span[0])
        elif not errors:
            cause = "no-error"
        line = first.span[0] if first is not None else None
        text = " ".join(event_text(first).split()) if first is not None else None
        if cause == "no-error" and first is None:
            # the last message before the footer says how far the run got
            ends = _within(self._end_lines, self._end_lines, lo, hi)
            line = _last_event_line(self.build, lo, ends[0] if ends else hi + 1)
            text = self.build.lines_text(line).strip() if line is not None else None
        return Outcome(
            value="failed",
            cause=cause,
            line=line,
            text=text,
            node=node,
            errors=tuple(e.span[0] for e in errors),
            exceptions=tuple(exceptions),
            **base,
        )


def _within(items: Sequence[T], lines: Sequence[int], lo: int, hi: int) -> list[T]:
    """The items whose line (``lines``, sorted, one per item) lies in ``lo..hi``."""
    return list(items[bisect.bisect_left(lines, lo) : bisect.bisect_right(lines, hi)])


def _last_event_line(build: Build, first: int, stop: int) -> int | None:
    """The first line of the last TensorRT or trtexec message before ``stop``.

    Foreign text (``unrecognized``) and blank lines do not count; no event is built.
    """
    best: int | None = None
    for kind, firsts, lasts, _severities in build.kind_rows():
        if kind in ("unrecognized", "log_line"):
            continue
        i = bisect.bisect_left(lasts, stop) - 1
        if i >= 0 and lasts[i] >= first and (best is None or firsts[i] > best):
            best = firsts[i]
    return best


def _ends(e: Any) -> bool:
    """An error that ends a build by its kind.

    A rejected option, an ONNX node, an ``Error Code`` other than the autotuner's 9, an
    aborting assertion or an exception of the library.
    """
    if isinstance(e, PreOptionNotice | OnnxNodeError):
        return True
    if isinstance(e, InternalError):
        return e.aborting or "Exception" in e.message
    code = getattr(e, "error_code", None)
    return code is not None and code != 9


def _rank(e: Any) -> int:
    """The order in which errors are quoted: the node the parser rejected says most."""
    for i, cls in enumerate(ERROR_EVENTS):
        if isinstance(e, cls):
            return i
    return len(ERROR_EVENTS)


def _node(errors: list[Any]) -> str | None:
    """The layer or node the errors name (the parser's node, the node without a kernel)."""
    for e in errors:
        if isinstance(e, OnnxNodeError) and e.node_name:
            return str(e.node_name)
    for e in errors:
        text = event_text(e)
        m = _NO_IMPL.search(text) or _QUANTIZE.search(text)
        if m:
            return m.group("node").strip()
    return None
