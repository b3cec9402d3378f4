"""Reading input: paths, files, byte and text streams, strings and line iterables into text lines.

First step of the pipeline (formats.md trap T9, T10, T28): it opens gzip files, detects the
encoding (UTF-8, UTF-8 with BOM, UTF-16 LE/BE with BOM or without BOM when the NUL pattern
gives it away), and yields the decoded lines with their own line endings (``\\n``, ``\\r\\n``
or a lone ``\\r``) so that joining them gives the decoded input back exactly. Input that cannot
be a log at all is refused here with an :class:`~trtlog.errors.InputError` before any parsing.
"""

from __future__ import annotations

import codecs
import io
import os
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Literal, cast

from trtlog._files import BoundedGzip, open_binary
from trtlog.errors import InputError

__all__ = [
    "LogInput",
    "Opened",
    "SourceInfo",
    "iter_lines",
    "json_head",
    "looks_like_json",
    "looks_utf16",
    "open_lines",
    "read_all",
    "read_text",
    "split_lines",
]

#: What ``trtlog.parse`` and ``trtlog.iter_events`` accept.
LogInput = str | os.PathLike[str] | IO[str] | IO[bytes] | bytes | Iterable[str]

_SNIFF = 65536
_GZIP_MAGIC = b"\x1f\x8b"
# Serialized engines start with a magic tag; 8.x+ plans begin with b"ftrt" (b"ptrt" seen in 7.x).
_ENGINE_MAGICS = (b"ftrt", b"ptrt")
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """Where the text came from and how it was decoded.

    Attributes:
        name: the path, or ``<string>``, ``<stdin>``, ``<stream>``, ``<lines>``.
        encoding: codec used (``utf-8``, ``utf-8-sig``, ``utf-16-le``, ``utf-16-be``).
        compressed: ``"gzip"`` when the file was gzip-compressed.
        size_bytes: size on disk when known.
    """

    name: str
    encoding: str = "utf-8"
    compressed: Literal["gzip"] | None = None
    size_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class Opened:
    """An opened input: its description and an iterator over its decoded lines (with endings).

    ``stream`` is the decoded text stream when there is one, so that :func:`read_all` can read
    the whole text in one call instead of line by line.
    """

    info: SourceInfo
    lines: Iterator[str]
    stream: io.TextIOWrapper | None = None


def read_all(opened: Opened) -> str:
    """The whole decoded text of an opened input (line endings kept).

    Raises:
        InputError: the input is empty, or a gzip file ends in the middle of its data.
    """
    if opened.stream is None:
        return "".join(opened.lines)
    stream = opened.stream
    try:
        text = _decode_pieces(stream)
    except (OSError, EOFError) as exc:
        raise InputError(
            f"the input ends in the middle of compressed data ({exc})",
            source=opened.info.name,
            hint="the gzip file is truncated; re-copy it",
        ) from None
    finally:
        stream.close()
    return text


#: Bytes per piece when a whole input is read (see :func:`read_all`).
READ_PIECE = 1 << 22


def _decode_pieces(stream: io.TextIOWrapper) -> str:
    """The rest of ``stream``'s text, its bytes decoded piece by piece.

    ``stream.read()`` holds every byte and every character at once; an incremental decoder
    of the stream's codec (the one it would use, BOMs and characters cut between two pieces
    included) over :data:`READ_PIECE`-byte pieces holds one piece of bytes at a time.
    """
    raw = stream.buffer
    decoder = codecs.getincrementaldecoder(stream.encoding)(errors=stream.errors or "strict")
    pieces: list[str] = []
    while True:
        chunk = raw.read(READ_PIECE)
        if not chunk:
            break
        pieces.append(decoder.decode(chunk))
    pieces.append(decoder.decode(b"", True))
    return "".join(pieces)


def looks_utf16(head: bytes) -> str | None:
    """Guess UTF-16 without a BOM from the NUL pattern of mostly-ASCII text.

    Example:
        >>> looks_utf16("[{ a JSON export }]".encode("utf-16-le")), looks_utf16(b"[I] log")
        ('utf-16-le', None)
    """
    sample = head[:4096]
    if len(sample) < 8 or len(sample) % 2:
        sample = sample[: len(sample) - len(sample) % 2]
    if len(sample) < 8:
        return None
    even_nul = sample[0::2].count(0)
    odd_nul = sample[1::2].count(0)
    half = len(sample) // 2
    if odd_nul > 0.9 * half and even_nul < 0.1 * half:
        return "utf-16-le"
    if even_nul > 0.9 * half and odd_nul < 0.1 * half:
        return "utf-16-be"
    return None


def _json_error(name: str) -> InputError:
    return InputError(
        "this looks like a JSON export (layer info, profile or timing), not a log",
        source=name,
        line=1,
        hint="read it with trtlog.load_engine / trtlog.load_profile / trtlog.load_times, "
        "or `trtlog layers FILE` on the command line",
    )


def _sniff(head: bytes, name: str) -> str:
    """Pick the codec for ``head`` or raise InputError for input that is not text."""
    marked = head.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    if (marked or looks_utf16(head)) and looks_like_json(head):
        raise _json_error(name)  # a JSON export written with a BOM or as UTF-16
    if marked and head in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        # nothing after the mark: an empty capture must not pass as a log
        raise InputError(
            "the input holds only a byte-order mark, no log lines",
            source=name,
            hint="pass the file trtexec wrote, e.g. `trtexec ... --verbose > build.log 2>&1`",
        )
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16"
    utf16 = looks_utf16(head)
    if utf16:
        return utf16
    if not head.strip():
        if not head:
            raise InputError(
                "the input is empty",
                source=name,
                hint="pass the file trtexec wrote, e.g. `trtexec ... --verbose > build.log 2>&1`",
            )
        raise InputError(
            "the input holds only whitespace, no log lines",
            source=name,
            hint="pass the file trtexec wrote, e.g. `trtexec ... --verbose > build.log 2>&1`",
        )
    if b"\x00" in head[:_SNIFF]:
        where = head.index(b"\x00")
        what = "a binary file"
        if head[:4] in _ENGINE_MAGICS:
            what = "a serialized TensorRT engine (plan file), not a log"
        elif head[:1] == b"\x08":
            what = "a binary file (it may be an ONNX model), not a log"
        raise InputError(
            f"this is {what}: byte {where} is NUL",
            source=name,
            hint="trtlog reads the text trtexec prints; capture it with "
            "`trtexec ... --verbose > build.log 2>&1` and pass build.log",
        )
    if looks_like_json(head):
        raise _json_error(name)
    return "utf-8"


def _text_head(head: bytes) -> bytes:
    """``head`` as UTF-8 bytes: without a UTF-8 BOM, decoded from UTF-16 when it is that."""
    if head.startswith(codecs.BOM_UTF8):
        return head[3:]
    encoding = (
        "utf-16" if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) else None
    ) or looks_utf16(head)
    if encoding is None:
        return head
    even = head[: len(head) - len(head) % 2]
    return even.decode(encoding, errors="ignore").encode("utf-8")


def json_head(raw: bytes) -> bytes:
    """The first bytes of a file's content, decompressed when it is gzip (for sniffing).

    Example:
        >>> import gzip
        >>> looks_like_json(json_head(gzip.compress(b'{"Layers": []}')))
        True
    """
    if raw.startswith(_GZIP_MAGIC):
        # the first bytes of a file are enough: decompress what they hold, without the end
        try:
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, _SNIFF)
        except zlib.error:
            return b""
    return raw[:_SNIFF]


def looks_like_json(head: bytes) -> bool:
    """Whether a file's first bytes are a JSON export rather than a log.

    A log never starts with ``{"`` or ``[{``/``["``/``[\\n``; trtexec JSON exports always do
    (a log's ``[04/18/2025-...] [V]`` has a digit after the bracket). A UTF-8 BOM, or UTF-16
    text (with a BOM or recognisable from its NUL pattern, as Windows PowerShell writes), is
    looked through; a gzip file is not (see :func:`json_head`).

    Example:
        >>> looks_like_json(b'[\\n  { "count" : 10 }')
        True
        >>> looks_like_json(b"[04/18/2025-03:51:19] [V]")
        False
    """
    stripped = _text_head(head).lstrip()
    if stripped[:1] not in (b"{", b"["):
        return False
    second = stripped[1:].lstrip()[:1]
    if stripped[:1] == b"{":
        return second in (b'"', b"}")
    return second in (b"{", b'"', b"]", b"[")


def split_lines(text: str) -> Iterator[str]:
    """Split ``text`` into lines that keep their endings (``\\n``, ``\\r\\n`` or a lone ``\\r``).

    Unlike :meth:`str.splitlines`, only these three end a line: the U+001E/U+001F separators in
    layer metadata (formats.md T18) and form feeds stay inside their line.

    Example:
        >>> list(split_lines("a\\r\\nb\\rc\\n\\nd"))
        ['a\\r\\n', 'b\\r', 'c\\n', '\\n', 'd']
    """
    pos = 0
    end = len(text)
    find = text.find
    while pos < end:
        nl = find("\n", pos)
        cr = find("\r", pos, nl if nl >= 0 else end)
        if cr >= 0:
            stop = cr + 2 if cr + 1 == nl else cr + 1
        elif nl >= 0:
            stop = nl + 1
        else:
            stop = end
        yield text[pos:stop]
        pos = stop


def _decode_stream(raw: IO[bytes], name: str, size: int | None, *, owned: bool) -> Opened:
    try:
        return _decode_opened(raw, name, size)
    except BaseException:
        if owned:
            raw.close()
        raise


def _decode_opened(raw: IO[bytes], name: str, size: int | None) -> Opened:
    head = raw.read(_SNIFF)
    if not isinstance(head, bytes):
        raise TypeError(f"expected a binary stream, got {type(head).__name__}")
    compressed: Literal["gzip"] | None = None
    if head.startswith(_GZIP_MAGIC):
        compressed = "gzip"
        raw = cast(IO[bytes], BoundedGzip(_Rewound(head, raw), name))  # bombs: _files.py
        try:
            head = raw.read(_SNIFF)
        except (OSError, EOFError) as exc:
            raise InputError(
                f"the gzip file cannot be read ({exc})",
                source=name,
                hint="check that the download finished; `gzip -t FILE` tests it",
            ) from None
    encoding = _sniff(head, name)
    stream = _Rewound(head, raw)
    text = io.TextIOWrapper(
        io.BufferedReader(stream, buffer_size=_CHUNK),
        encoding=encoding,
        errors="replace",
        newline="",
    )
    info = SourceInfo(
        name=name, encoding=_canonical(encoding, head), compressed=compressed, size_bytes=size
    )
    return Opened(info=info, lines=_guarded(text, name), stream=text)


def _guarded(text: io.TextIOWrapper, name: str) -> Iterator[str]:
    """Iterate a text stream, turning a broken gzip tail into an InputError with a hint."""
    try:
        yield from text
    except (OSError, EOFError) as exc:
        raise InputError(
            f"the input ends in the middle of compressed data ({exc})",
            source=name,
            hint="the gzip file is truncated; re-copy it",
        ) from None
    finally:
        text.close()


def _canonical(encoding: str, head: bytes) -> str:
    if encoding == "utf-16":
        return "utf-16-le" if head.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
    return encoding


class _Rewound(io.RawIOBase):
    """A raw stream that first replays bytes already read for sniffing, then reads the rest."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head.nbytes:
            n = min(len(buffer), self._head.nbytes)
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n

    def close(self) -> None:
        try:
            self._rest.close()
        finally:
            super().close()


def _lines_of_iterable(items: Iterable[str]) -> Iterator[str]:
    """Each item is one line; an item without its own ending gets ``\\n`` (documented)."""
    for item in items:
        if not isinstance(item, str):
            raise TypeError(
                f"an iterable of lines must hold str, got {type(item).__name__}; "
                "pass bytes streams as an open binary file instead"
            )
        for piece in split_lines(item):
            if piece.endswith(("\n", "\r")):
                yield piece
            else:
                yield piece + "\n"


def _first_nonempty(lines: Iterator[str], name: str) -> Iterator[str]:
    """Refuse an empty text input with the same message as an empty file."""
    first = next(lines, None)
    if first is None:
        raise InputError(
            "the input is empty",
            source=name,
            hint="pass the file trtexec wrote, e.g. `trtexec ... --verbose > build.log 2>&1`",
        )

    def chain() -> Iterator[str]:
        yield first
        yield from lines

    return chain()


#: What the log readers take, as their ``TypeError`` says it.
LOG_INPUTS = (
    "a path (str or os.PathLike; .gz too), '-' for standard input, an open text or binary "
    "file, bytes, or an iterable of lines (str)"
)


def _reads_like_log(text: str) -> bool:
    """Whether ``text`` (a ``str`` given where a path goes) holds lines of a log.

    A line of one of its first 20 that starts like a log line does: a ``[`` (every envelope
    and bracketed tag) or trtexec's ``&&&&``.
    """
    return any(line.lstrip().startswith(("[", "&&&&")) for line in text.split("\n", 20)[:20])


def open_lines(source: LogInput, *, name: str | None = None, call: str = "trtlog.parse") -> Opened:
    """Open ``source`` and return its description and decoded lines.

    Args:
        source: a path (``str`` or ``PathLike``), ``"-"`` for standard input, an open binary or
            text file, or an iterable of lines.
        name: the name to use in messages instead of the path.
        call: the public function to name in a ``TypeError``.

    Returns:
        the source description and an iterator of lines, each with its line ending.

    Raises:
        InputError: the file is missing, empty, binary or a JSON export.
        TypeError: ``source`` is none of these (``trtlog.parse(123)``).

    Example:
        >>> opened = open_lines(["[I] a", "[I] b"])
        >>> list(opened.lines)
        ['[I] a\\n', '[I] b\\n']
    """
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        if path == "-":
            return _decode_stream(sys.stdin.buffer, name or "<stdin>", None, owned=False)
        if "\n" in path and _reads_like_log(path) and not os.path.lexists(path):
            # (a file's name may hold a newline: a missing one is "no such file" below)
            raise InputError(
                "got log text where a path was expected",
                source=name or "<string>",
                hint="use trtlog.parse_text(text) for a string that holds the log itself",
            )
        stream, size = open_binary(path)  # missing, folder, no permission, FIFO: _files.py
        return _decode_stream(stream, name or path, size, owned=True)
    if isinstance(source, io.TextIOBase):
        label = name or getattr(source, "name", None) or "<stream>"
        return Opened(
            info=SourceInfo(name=str(label), encoding=getattr(source, "encoding", None) or "utf-8"),
            lines=_first_nonempty(_lines_of_iterable(source), str(label)),
        )
    if isinstance(source, io.IOBase | io.RawIOBase | io.BufferedIOBase) or hasattr(source, "read"):
        label = name or getattr(source, "name", None) or "<stream>"
        probe = source.read(0)
        if isinstance(probe, str):
            return Opened(
                info=SourceInfo(name=str(label)),
                lines=_first_nonempty(_lines_of_iterable(source), str(label)),  # type: ignore[arg-type]
            )
        return _decode_stream(source, str(label), None, owned=False)  # type: ignore[arg-type]
    if isinstance(source, bytes | bytearray):
        return _decode_stream(io.BytesIO(bytes(source)), name or "<bytes>", len(source), owned=True)
    if not isinstance(source, Iterable):
        raise TypeError(f"{call} takes {LOG_INPUTS}; got {type(source).__name__}")
    label = name or "<lines>"
    return Opened(
        info=SourceInfo(name=label), lines=_first_nonempty(_lines_of_iterable(source), label)
    )


def read_text(source: LogInput, *, name: str | None = None) -> tuple[SourceInfo, str]:
    """Read the whole decoded text of ``source`` (see :func:`open_lines`)."""
    opened = open_lines(source, name=name)
    return opened.info, read_all(opened)


_SPLITLINES_EXTRA_CHARS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def iter_lines(text: str, chunk: int = 1 << 22) -> Iterator[str]:
    """The lines of ``text`` with their endings, like :func:`split_lines`, but fast.

    Works through the text in chunks of about ``chunk`` characters cut after a ``\\n``, and
    uses :meth:`str.splitlines` (C speed) on every chunk that holds none of the extra line
    boundaries it knows (U+001E and friends, which must stay inside their line, T18).

    Example:
        >>> list(iter_lines("a\\r\\nb\\x1ec\\rd", chunk=2))
        ['a\\r\\n', 'b\\x1ec\\r', 'd']
    """
    pos = 0
    end = len(text)
    while pos < end:
        stop = min(pos + chunk, end)
        if stop < end:
            nl = text.find("\n", stop)
            stop = end if nl < 0 else nl + 1
        piece = text[pos:stop]
        if any(c in piece for c in _SPLITLINES_EXTRA_CHARS):  # `in` is a fast search
            yield from _rejoin(piece.splitlines(True))
        else:
            yield from piece.splitlines(True)
        pos = stop


def _rejoin(pieces: list[str]) -> Iterator[str]:
    """Glue back the pieces :meth:`str.splitlines` cut at a boundary that is not ``\r``/``\n``."""
    held: list[str] = []
    for piece in pieces:
        if piece[-1] in "\r\n":
            if held:
                held.append(piece)
                yield "".join(held)
                held = []
            else:
                yield piece
        else:
            held.append(piece)
    if held:
        yield "".join(held)
