"""Making a Build: ``trtlog.parse``, ``trtlog.parse_text`` and ``trtlog.iter_events``.

The build package's driver: it opens the input (:mod:`trtlog.parser.source`), runs the line
parser over it (:class:`~trtlog.parser.stream.LogParser`) and collects the events into a
:class:`~trtlog.buildlog.model.Build` with its header. :func:`iter_events` streams instead, with
memory bounded whatever the size of the log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from trtlog._pydantic import gc_paused, put
from trtlog.buildlog.header import HEADER_KINDS, derive_header
from trtlog.buildlog.model import Build, SourceMeta
from trtlog.buildlog.store import EventStore
from trtlog.errors import InputError
from trtlog.events import Event
from trtlog.parser.scanner import PIECE, scan
from trtlog.parser.source import LogInput, SourceInfo, iter_lines, open_lines, read_all
from trtlog.parser.stream import LogParser

__all__ = ["build_of_text", "iter_events", "parse", "parse_text", "read_log", "source_meta"]


def iter_events(
    source: LogInput, *, strict: bool = False, name: str | None = None
) -> Iterator[Event]:
    """Stream the events of a log, in file order, with memory bounded whatever its size.

    Args:
        source: a path, ``"-"`` for standard input, an open text or binary file, or an
            iterable of lines.
        strict: raise :class:`~trtlog.errors.InputError` for a line that a grammar rule was
            chosen for but that does not parse (instead of an ``unrecognized`` event).
        name: the name to use in messages.

    Raises:
        InputError: the input is empty, binary, a JSON export, or holds no TensorRT line
            (this last one is raised after the final event, when the input is exhausted).

    Example:
        >>> [e.kind for e in iter_events(["[I] [TRT] Original: 5 layers"])]
        ['layer_count']
    """
    opened = open_lines(source, name=name, call="trtlog.iter_events")
    return LogParser(strict=strict, source=opened.info.name).run(opened.lines)


def build_of_text(
    text: str,
    meta: SourceMeta,
    *,
    strict: bool,
    lines: Iterable[str] | None = None,
    piece: int = PIECE,
    progress: Callable[[int, int], None] | None = None,
) -> Build:
    """Parse ``text`` (whose lines may be given already split) into a Build.

    What :func:`parse` and :func:`parse_text` do once the text is read. Not strict and
    without pre-split lines, the scanner fills an event store whose events are built on
    first access (see :mod:`trtlog.buildlog.store`); otherwise every event is built now by the
    line parser (``strict`` must raise at the line that fails). ``piece``: the scanner's
    chunk of lines (tests vary it). ``progress``: called now and then with the characters
    parsed and the total (after each of the scanner's pieces, or every 4,096 lines).

    Example:
        >>> text, meta = "[I] [TRT] Original: 1 layers\\n", SourceMeta(name="t")
        >>> build = build_of_text(text, meta, strict=False)
        >>> build.line_count
        1
    """
    store: EventStore | None = None
    if not strict and lines is None:
        with gc_paused():
            store = EventStore(scan(text, LogParser(source=meta.name), piece, progress))
    if store is not None:
        n_lines = store.n_lines
        header = derive_header(store.events_of(HEADER_KINDS), n_lines)
    else:
        with gc_paused():
            split = iter_lines(text) if lines is None else lines
            if progress is not None:
                split = _counting(split, len(text), progress)
            events = list(LogParser(strict=strict, source=meta.name).run(split))
        n_lines = events[-1].span[1] if events else 0
        header = derive_header(events, n_lines)
    fields: dict[str, Any] = {
        "source": meta,
        "text": text,
        **header.build_fields(),
    }
    if store is None:
        fields["events"] = events
    build = Build.model_construct(**fields)
    if store is not None:
        put(build, "_store", store)
    return build


def _counting(
    lines: Iterable[str], total: int, progress: Callable[[int, int], None]
) -> Iterator[str]:
    """``lines``, calling ``progress(characters so far, total)`` every 4,096 lines."""
    done = 0
    for i, line in enumerate(lines):
        done += len(line)
        if i % 4096 == 0:
            progress(done, total)
        yield line


def source_meta(info: SourceInfo) -> SourceMeta:
    """The :class:`SourceMeta` of an opened input (its name, encoding, compression, size)."""
    return SourceMeta(
        name=info.name,
        encoding=info.encoding,
        compressed=info.compressed,
        size_bytes=info.size_bytes,
    )


def parse(source: LogInput, *, strict: bool = False, name: str | None = None) -> Build:
    """Parse a whole log into a :class:`Build`.

    Args:
        source: a path (``str`` or ``PathLike``; ``.gz`` files are decompressed), ``"-"`` for
            standard input, an open text or binary file, or an iterable of lines.
        strict: raise for a line a grammar rule was chosen for but that does not parse.
        name: the name to use in messages.

    Raises:
        InputError: the input is empty, binary, a JSON export, or holds no TensorRT line.

    Example:
        >>> b = parse(["[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers"])
        >>> b.to_text()
        '[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers\\n'
    """
    return read_log(source, strict=strict, name=name)


def read_log(
    source: LogInput,
    *,
    strict: bool = False,
    name: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Build:
    """:func:`parse`, calling ``progress`` with the characters parsed and the total.

    What the commands call (:func:`trtlog.inputs.open_input`): the same Build as
    :func:`parse` gives.
    """
    opened = open_lines(source, name=name)
    return build_of_text(
        read_all(opened), source_meta(opened.info), strict=strict, progress=progress
    )


def parse_text(text: str, *, strict: bool = False, name: str = "<string>") -> Build:
    """Parse a log held in a string; ``to_text()`` gives ``text`` back exactly.

    Raises:
        InputError: the text is empty or holds no TensorRT line.

    Example:
        >>> parse_text("[I] [TRT] Original: 5 layers\\r\\n").to_text()
        '[I] [TRT] Original: 5 layers\\r\\n'
    """
    if not text.strip():
        raise InputError(
            "the text is empty" if not text else "the text holds only whitespace",
            source=name,
            hint="pass the text trtexec printed",
        )
    return build_of_text(text, SourceMeta(name=name), strict=strict)
