"""Opening an input: the one place that decides "a log or a JSON export?".

Above the readers (the log parser and the JSON export loaders) and the Build, below every
view. :func:`open_input` takes what a user hands over (a path, ``"-"`` for standard input, the
bytes of a file, or an object already read) and returns what it is: a parsed log (a
:class:`~trtlog.buildlog.Build`), a layer-info export (an :class:`~trtlog.engine.Engine`), a
profile or a timing trace. ``trtlog.compare``, ``trtlog.lint`` and every command of the CLI
open their inputs here; the views themselves take the objects.

A file is a JSON export when its first bytes say so (after a gzip wrapper, a BOM, UTF-16:
:func:`~trtlog.parser.source.looks_like_json`); anything else is read as a log.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Literal

from trtlog._files import read_bytes
from trtlog.buildlog import Build
from trtlog.buildlog.parsing import read_log
from trtlog.engine.model import Engine, Profile, Times
from trtlog.errors import InputError
from trtlog.exports.layers import engine_from_json
from trtlog.exports.pieces import split_pieces
from trtlog.exports.profile import load_profile, profile_from_json
from trtlog.exports.read import detect_kind, read_json_bytes, read_json_file, wrong_kind
from trtlog.exports.times import times_from_json
from trtlog.parser.source import json_head, looks_like_json, open_lines, read_all

__all__ = [
    "InputKind",
    "InputValue",
    "Opened",
    "Progress",
    "engine_with_profile",
    "is_json_export",
    "open_input",
]

#: What an input turned out to be.
InputKind = Literal["log", "layers", "profile", "times"]

#: What :func:`open_input` takes.
InputValue = Build | Engine | Profile | Times | str | os.PathLike[str] | bytes

#: Called now and then while a log is parsed: (characters read, characters in all).
Progress = Callable[[int, int], None]

_SNIFF = 1024  # bytes that tell a JSON export from a log (UTF-16 takes twice the bytes)


@dataclass(frozen=True)
class Opened:
    """An input, read: exactly one of ``build``, ``engine``, ``profile`` and ``times`` is set.

    Attributes:
        source: the path (``<stdin>``, ``<bytes>``), or the name of the object given.
        build: a parsed log.
        engine: the layers of a layer-info export (a log's layer dump is ``build.engine``).
        profile: an ``--exportProfile`` file.
        times: an ``--exportTimes`` file.
    """

    source: str
    build: Build | None = None
    engine: Engine | None = None
    profile: Profile | None = None
    times: Times | None = None

    @property
    def kind(self) -> InputKind:
        """``log``, ``layers``, ``profile`` or ``times``."""
        if self.build is not None:
            return "log"
        if self.engine is not None:
            return "layers"
        return "profile" if self.profile is not None else "times"


def is_json_export(path: str | os.PathLike[str]) -> bool:
    """Whether a file (``.gz``, UTF-8 with a BOM, UTF-16 too) starts like a JSON export.

    ``False`` for a file that cannot be read (the readers say what is wrong with it) and for a
    pipe or device, which can be read only once (:func:`open_input` reads it whole first).
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            head = f.read(_SNIFF)
    except OSError:
        return False
    return looks_like_json(json_head(head))


def open_input(
    value: InputValue,
    *,
    want: Collection[InputKind] = ("log", "layers", "profile", "times"),
    name: str | None = None,
    progress: Progress | None = None,
    call: str = "trtlog",
) -> Opened:
    """Read ``value`` as a log or as a JSON export, whichever it is.

    Args:
        value: a path (``.gz`` too), ``"-"`` for standard input, the bytes of a file, or an
            object already read (a :class:`~trtlog.buildlog.Build`, an
            :class:`~trtlog.engine.Engine`, a :class:`~trtlog.engine.Profile` or
            :class:`~trtlog.engine.Times`), which is returned as it is.
        want: the kinds the caller can use. A log is parsed without looking when only
            ``log`` is wanted (the log reader refuses a JSON export itself); a JSON export of
            another kind is an :class:`~trtlog.errors.InputError` that says what it is and
            what reads it.
        name: the name to use in messages.
        progress: called while a log is parsed (a progress display).
        call: the public function to name in a ``TypeError``.

    Raises:
        InputError: the input cannot be read, or is not of a kind wanted.
        TypeError: ``value`` is none of these.

    Example:
        >>> opened = open_input(b'[{"count": 10}, {"name": "a", "timeMs": 1.0, '
        ...                     b'"averageMs": 0.1, "percentage": 100.0}]')
        >>> opened.kind, opened.profile.iterations
        ('profile', 10)
    """
    if isinstance(value, Build | Engine | Profile | Times):
        return _given(value, name)
    if not isinstance(value, str | os.PathLike | bytes | bytearray):
        raise TypeError(
            f"{call} takes a Build, an Engine or a path (a trtexec log or a layer-info JSON), "
            f"not {type(value).__name__}"
        )
    if isinstance(value, bytes | bytearray):
        label = name or "<bytes>"
    else:
        label = name or ("<stdin>" if os.fspath(value) == "-" else os.fspath(value))
    if set(want) == {"log"}:  # the log reader refuses a JSON export itself
        try:
            return Opened(source=label, build=_parse(value, label, progress))
        except InputError as error:
            raise _not_a_log(value, label, error) from None
    if isinstance(value, str | os.PathLike) and _is_pipe(value):
        value = read_bytes(os.fspath(value))  # a FIFO or <(...): read once, then sniffed
    if isinstance(value, str | os.PathLike) and os.fspath(value) != "-":
        if not is_json_export(value):
            return _log_or_pieces(value, label, progress, want)
        source, values = read_json_file(value)
    else:
        raw = bytes(value) if isinstance(value, bytes | bytearray) else sys.stdin.buffer.read()
        if not looks_like_json(json_head(raw[:_SNIFF])):
            return _log_or_pieces(raw, label, progress, want)
        source, values = read_json_bytes(raw, label)
    kind = detect_kind(values[0])
    if kind == "layers" and "layers" in want:
        return Opened(source=source, engine=engine_from_json(values[0], source))
    if kind in ("profile", "trace") and "profile" in want:
        return Opened(source=source, profile=profile_from_json(values, source))
    if kind == "times" and "times" in want:
        return Opened(source=source, times=times_from_json(values, source))
    raise wrong_kind(source, kind, "layers" if "layers" in want else "profile")


def _log_or_pieces(
    value: str | os.PathLike[str] | bytes,
    label: str,
    progress: Progress | None,
    want: Collection[InputKind],
) -> Opened:
    """A log; a text without any TensorRT line may hold JSON printed piece by piece.

    Layer-info objects printed one per layer (an ``IEngineInspector`` script) load as an
    engine, ``--exportProfile`` records cut from their array as a profile (or, where layers
    are wanted, as a names-only engine with those times): :mod:`trtlog.exports.pieces`.
    """
    try:
        return Opened(source=label, build=_parse(value, label, progress))
    except InputError as error:
        opened = open_lines(value, name=label)
        pieces = split_pieces(read_all(opened))
        if pieces is None:
            raise error from None
    if pieces.kind == "layers" and "layers" in want:
        return Opened(source=label, engine=engine_from_json(pieces.document, label))
    if pieces.kind == "profile":
        profile = profile_from_json([pieces.document], label)
        if "profile" in want:
            return Opened(source=label, profile=profile)
        if "layers" in want:
            names = {"Layers": [r.name for r in profile.records]}
            engine = engine_from_json(names, label).with_profile(profile)
            return Opened(source=label, engine=engine)
    raise wrong_kind(label, pieces.kind, "layers" if "layers" in want else "profile")


def _not_a_log(value: str | os.PathLike[str] | bytes, label: str, error: InputError) -> InputError:
    """The error for a text that is no log: say so when it holds JSON printed piece by piece."""
    if isinstance(value, str | os.PathLike) and (os.fspath(value) == "-" or _is_pipe(value)):
        return error  # read once already
    try:
        pieces = split_pieces(read_all(open_lines(value, name=label)))
    except InputError:
        return error
    if pieces is None:
        return error
    what = (
        f"{len(pieces.lines)} layer-information objects printed one by one"
        if pieces.kind == "layers"
        else f"{len(pieces.lines)} --exportProfile records"
    )
    return InputError(
        f"this holds {what}, not a log",
        source=label,
        hint="`trtlog layers`, `lint`, `report` and `ingest` read it (and trtlog.load_engine); "
        "this command needs the build's log",
    )


def _is_pipe(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a FIFO (``<(...)`` too; ``os.stat`` never blocks on one).

    A device (``/dev/zero``) is left to the log reader, which reads its first bytes only
    before it refuses binary data.
    """
    if os.fspath(path) == "-":
        return False
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _given(value: Build | Engine | Profile | Times, name: str | None) -> Opened:
    if isinstance(value, Build):
        return Opened(source=name or value.source.name, build=value)
    if isinstance(value, Engine):
        return Opened(source=name or value.source, engine=value)
    if isinstance(value, Profile):
        return Opened(source=name or value.source, profile=value)
    return Opened(source=name or value.source, times=value)


def _parse(value: str | os.PathLike[str] | bytes, name: str, progress: Progress | None) -> Build:
    """Parse a log as :func:`trtlog.parse` does, reporting progress piece by piece.

    Every size takes the scanner and its lazy event store (events built when first read): in
    a fresh process it is as fast as the line parser's loop on the smallest corpus logs and
    faster from a few hundred kilobytes on, where a command builds only the kinds it reads.
    """
    return read_log(value, name=name, progress=progress)


def engine_with_profile(
    engine: Engine | None,
    build: Build | None,
    profile: Profile | str | os.PathLike[str] | None = None,
) -> Engine | None:
    """``engine`` with layer times: from ``profile`` when given, else from the log's own table.

    A profile given (a :class:`~trtlog.engine.Profile` or an ``--exportProfile`` path) is
    merged; without one, an engine that has no profile yet takes the ``--dumpProfile`` table
    of ``build`` when the log printed one.
    """
    if engine is None:
        return None
    if profile is not None:
        return engine.with_profile(
            profile if isinstance(profile, Profile) else load_profile(profile)
        )
    if engine.profile is None and build is not None:
        table = build.dumped_profile()  # --dumpProfile
        if table is not None:
            return engine.with_profile(table)
    return engine
