"""Opening input files, and reading gzip within bounds: the one place that touches the file.

Base layer (the standard library and ``trtlog.errors`` only); the log reader
(``trtlog.parser.source``) and the JSON export reader (``trtlog.exports.read``) open paths
here. Whatever a user passes, the answer is data or one :class:`~trtlog.errors.InputError`
line, never a traceback and never a hang:

* a missing file, a folder, a file without read permission: say so, with a hint;
* a named pipe (FIFO), ``<(process substitution)``, a character device: opened without
  blocking (a FIFO with no writer is an empty input, not a hang) and read as a stream;
* a file that grows while it is read (``trtexec`` still writing it): refused, since a log cut
  at an arbitrary point would pass for a build that stopped there;
* a gzip file that expands past :data:`MAX_GUNZIP_BYTES`, or more than
  :data:`MAX_GUNZIP_RATIO` times its compressed size once past
  :data:`RATIO_CHECK_AFTER` bytes (a gzip bomb): refused before it fills the memory.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
from typing import IO

from trtlog.errors import InputError

__all__ = [
    "MAX_GUNZIP_BYTES",
    "MAX_GUNZIP_RATIO",
    "RATIO_CHECK_AFTER",
    "BoundedGzip",
    "gunzip",
    "open_binary",
    "read_bytes",
]

#: The most a gzip input may expand to (bytes); ``$TRTLOG_MAX_GUNZIP_BYTES`` overrides it.
MAX_GUNZIP_BYTES = 4 << 30
#: The largest expansion of a gzip input past :data:`RATIO_CHECK_AFTER` bytes. Real logs
#: compress 5-30x (a tactic-heavy verbose log about 25x); deflate's maximum is about 1030x.
MAX_GUNZIP_RATIO = 200
#: Output below this size is never refused for its ratio (small inputs compress anyhow).
RATIO_CHECK_AFTER = 64 << 20

_CHECK_PATH = "check the path (relative to the working folder)"


def _max_gunzip_bytes() -> int:
    setting = os.environ.get("TRTLOG_MAX_GUNZIP_BYTES", "")
    return int(setting) if setting.isdigit() else MAX_GUNZIP_BYTES


def open_binary(path: str) -> tuple[IO[bytes], int | None]:
    """Open ``path`` for reading bytes: the stream and the file's size (``None``: a stream).

    A regular file is read up to the size it had when opened; if it holds more by then (it
    grew while being read) reading raises :class:`~trtlog.errors.InputError`.

    Raises:
        InputError: missing, a folder, not readable, or cannot be opened.

    Example:
        >>> open_binary("/no/such/file.log")
        Traceback (most recent call last):
        ...
        trtlog.errors.InputError: /no/such/file.log: no such file (hint: check the path (relative to the working folder))
    """  # noqa: E501
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)  # non-blocking: a FIFO without a writer opens at once
    except FileNotFoundError:
        raise InputError("no such file", source=path, hint=_CHECK_PATH) from None
    except IsADirectoryError:
        raise InputError("this is a folder, not a file", source=path, hint=_CHECK_PATH) from None
    except PermissionError:
        raise InputError(
            "permission denied: trtlog may not read this file",
            source=path,
            hint="check its permissions (ls -l), or read it as a user who may",
        ) from None
    except OSError as exc:
        raise InputError(f"cannot open the file ({exc.strerror})", source=path) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError("this is a folder, not a file", source=path, hint=_CHECK_PATH)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # opened: a pipe's reads may now wait for its writer
        if not stat.S_ISREG(st.st_mode):
            return os.fdopen(fd, "rb", buffering=0), None
        return io.BufferedReader(_Snapshot(fd, st.st_size, path)), st.st_size
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str) -> bytes:
    """The bytes of a file (see :func:`open_binary` for what is refused)."""
    stream, size = open_binary(path)
    with stream:
        if size is None:
            return stream.read()
        # one read of the size the file had when opened (``read()`` alone goes by 8 KiB
        # pieces: a seventh of loading a 30 MB layer JSON); the second read finds the end,
        # or that the file grew (an InputError, see _Snapshot)
        data = stream.read(size)
        rest = stream.read()
        return data + rest if rest else data


class _Snapshot(io.RawIOBase):
    """A file read up to the size it had when opened; more data by then is an error."""

    def __init__(self, fd: int, size: int, path: str) -> None:
        self._fd = fd
        self._left = size
        self._size = size
        self._path = path
        self.name = path

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._left <= 0:
            if os.read(self._fd, 1):
                raise InputError(
                    f"the file grew while trtlog read it (it had {self._size:,} bytes when "
                    "opened): something is still writing it",
                    source=self._path,
                    hint="wait until trtexec has finished, or copy the file and read the copy",
                )
            return 0
        view = memoryview(buffer)[: self._left]
        n = os.readv(self._fd, [view]) if hasattr(os, "readv") else self._read_into(view)
        self._left -= n
        if n == 0:  # the file shrank: what was there is what there is
            self._left = 0
        return n

    def _read_into(self, view: memoryview) -> int:
        data = os.read(self._fd, len(view))
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


class _Counted(io.RawIOBase):
    """A stream that counts the bytes read from it (the compressed side of a gzip file)."""

    def __init__(self, raw: IO[bytes] | io.RawIOBase) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.count += n
        return n

    def close(self) -> None:
        try:
            self.raw.close()
        finally:
            super().close()


class BoundedGzip(io.RawIOBase):
    """The decompressed bytes of a gzip stream, refused past the limits (a gzip bomb).

    Wraps any binary stream that starts with gzip data; reads as much as asked, a piece at a
    time, so a reader that decodes in pieces never holds more than it asked for.

    Raises:
        InputError: (on read) the output passes :data:`MAX_GUNZIP_BYTES`, or
            :data:`MAX_GUNZIP_RATIO` times the compressed bytes read once past
            :data:`RATIO_CHECK_AFTER`.

    Example:
        >>> import gzip
        >>> BoundedGzip(io.BytesIO(gzip.compress(b"[I] a line")), "x.log.gz").read()
        b'[I] a line'
    """

    def __init__(
        self, raw: IO[bytes] | io.RawIOBase, name: str, *, limit: int | None = None
    ) -> None:
        self._counted = _Counted(raw)
        self._gzip = gzip.GzipFile(fileobj=self._counted, mode="rb")
        self._name = name
        self._limit = _max_gunzip_bytes() if limit is None else limit
        self.produced = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._gzip.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.produced += n
        self._check()
        return n

    def _check(self) -> None:
        produced, packed = self.produced, max(self._counted.count, 1)
        if produced > self._limit:
            raise InputError(
                f"the gzip file expands past {self._limit:,} bytes, the limit for an input "
                "(a gzip bomb, or a log larger than trtlog reads at once)",
                source=self._name,
                hint="set TRTLOG_MAX_GUNZIP_BYTES to a larger number of bytes if this is a "
                "real log",
            )
        if produced > RATIO_CHECK_AFTER and produced > MAX_GUNZIP_RATIO * packed:
            raise InputError(
                f"the gzip file expands more than {MAX_GUNZIP_RATIO}x ({packed:,} bytes to "
                f"over {produced:,}): no trtexec log compresses that well (a gzip bomb?)",
                source=self._name,
                hint="decompress it yourself (gunzip -c) and pass the text if you trust it",
            )

    def close(self) -> None:
        try:
            self._gzip.close()
            self._counted.close()
        finally:
            super().close()


def gunzip(data: bytes, name: str, *, limit: int | None = None) -> bytes:
    """The decompressed bytes of gzip ``data``, within the limits of :class:`BoundedGzip`.

    Raises:
        InputError: past the limits.
        OSError, EOFError: not gzip data, or truncated (as :func:`gzip.decompress`).

    Example:
        >>> gunzip(gzip.compress(b"{}"), "x.json.gz")
        b'{}'
    """
    out = io.BytesIO()
    with BoundedGzip(io.BytesIO(data), name, limit=limit) as stream:
        while chunk := stream.read(1 << 20):
            out.write(chunk)
    return out.getvalue()
