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

And the one way trtlog writes a file (:func:`atomic_output`): into a temporary file of the
same folder, renamed over the requested name once whole, so a failure (disk full, a
read-only folder, an interrupt) leaves the old file or nothing, never a partial one, and
raises one :class:`~trtlog.errors.OutputError` line naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import os
import stat
import uuid
from collections.abc import Callable, Iterator
from typing import IO, Any

from trtlog.errors import InputError, OutputError

__all__ = [
    "MAX_GUNZIP_BYTES",
    "MAX_GUNZIP_RATIO",
    "RATIO_CHECK_AFTER",
    "BoundedGzip",
    "atomic_output",
    "gunzip",
    "open_binary",
    "os_error_text",
    "output_error",
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


def read_bytes(
    path: str, *, limit: int | None = None, refuse: Callable[[int, str], None] | None = None
) -> bytes:
    """The bytes of a file (see :func:`open_binary` for what is refused).

    With ``limit``, a file larger than ``limit`` bytes is not read: ``refuse(size, path)``
    raises (a stream is read up to one byte past the limit, then refused).
    """
    stream, size = open_binary(path)
    with stream:
        if limit is not None and refuse is not None:
            if size is not None and size > limit:
                refuse(size, path)
            if size is None:
                data = stream.read(limit + 1)
                if len(data) > limit:
                    refuse(len(data), path)
                return data
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


# -- writing ------------------------------------------------------------------------------------

#: What to say (and suggest) for the errors a write meets most.
_WRITE_ERRORS: dict[int, tuple[str, str | None]] = {
    errno.ENOSPC: ("no space left on the device", "free some space, or write elsewhere"),
    errno.EDQUOT: ("the disk quota is used up", "free some space, or write elsewhere"),
    errno.EROFS: ("the file system is read-only", "write to another folder"),
    errno.EACCES: ("permission denied", "check the folder's permissions, or write elsewhere"),
    errno.EPERM: ("operation not permitted", "check the folder's permissions"),
    errno.ENOENT: ("the folder does not exist", "create it first"),
    errno.ENOTDIR: ("a part of the path is not a folder", "check the path"),
    errno.EISDIR: ("that is a folder", "give a file name"),
    errno.ENAMETOOLONG: ("the name is too long", "give a shorter name"),
    errno.EFBIG: ("the file is too large for the file system", None),
    errno.EIO: ("an input/output error of the device", None),
}


def os_error_text(exc: OSError) -> str:
    """What an :class:`OSError` means, in the words of :data:`_WRITE_ERRORS` when it has some.

    Example:
        >>> os_error_text(OSError(errno.ENOSPC, "No space left on device"))
        'no space left on the device'
    """
    known = _WRITE_ERRORS.get(exc.errno or -1)
    if known is not None:
        return known[0]
    return (exc.strerror or str(exc) or type(exc).__name__).rstrip(".")


def output_error(exc: OSError, path: str | os.PathLike[str]) -> OutputError:
    """The :class:`~trtlog.errors.OutputError` of a failed write to ``path``.

    Example:
        >>> str(output_error(OSError(errno.EROFS, "Read-only file system"), "out.html"))
        'cannot write out.html: the file system is read-only (hint: write to another folder)'
    """
    known = _WRITE_ERRORS.get(exc.errno or -1)
    hint = known[1] if known is not None else None
    return OutputError(os_error_text(exc), path=os.fspath(path), hint=hint)


@contextlib.contextmanager
def atomic_output(
    path: str | os.PathLike[str],
    *,
    binary: bool = False,
    encoding: str = "utf-8",
    newline: str | None = None,
) -> Iterator[IO[Any]]:
    """A file to write that appears under ``path`` only once it is whole.

    The data goes to a hidden temporary file in the same folder (made with the permissions a
    new file gets, or those of the file it replaces), which is flushed, synced and renamed
    over ``path`` when the block ends without an error; on any error it is deleted, so
    ``path`` keeps its old content or stays absent. A ``path`` that exists and is no regular
    file (``/dev/stdout``, a named pipe, ``/dev/null``) is written directly: it cannot be
    replaced, and what is written to it streams anyway.

    Raises:
        OutputError: the file cannot be made, written or renamed (the path, what happened,
            what to do), the :class:`OSError` as its cause.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> with atomic_output(os.path.join(folder, "a.txt")) as f:
        ...     _ = f.write("whole")
        >>> with open(os.path.join(folder, "a.txt")) as done:
        ...     done.read(), sorted(os.listdir(folder))
        ('whole', ['a.txt'])
    """
    target = os.fspath(path)
    mode = "wb" if binary else "w"
    text_args: dict[str, Any] = {} if binary else {"encoding": encoding, "newline": newline}
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise output_error(exc, target) from exc
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise output_error(OSError(errno.EISDIR, "Is a directory"), target)
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:
            stream = open(target, mode, **text_args)  # noqa: SIM115  (closed below)
        except OSError as exc:
            raise output_error(exc, target) from exc
        try:
            with stream:
                yield stream
        except OSError as exc:
            raise output_error(exc, target) from exc
        return
    folder = os.path.dirname(target) or "."
    tmp = os.path.join(folder, f".trtlog-{uuid.uuid4().hex[:16]}.tmp")
    permissions = stat.S_IMODE(st.st_mode) if st is not None else 0o666  # (umask applies)
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), permissions
        )
    except OSError as exc:
        raise output_error(exc, target) from exc
    try:
        with open(fd, mode, **text_args) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        if st is not None:
            os.chmod(tmp, permissions)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        # (an OSError of another file, read inside the block, stays what it is)
        ours = isinstance(exc, OSError) and exc.filename in (None, tmp, target)
        if ours and not isinstance(exc, OutputError):
            raise output_error(exc, target) from exc  # type: ignore[arg-type]
        raise
