"""The ``trtlog`` command line: the parser, logging, exit codes.

Top of the pipeline (STYLE.md §9): the commands render what the library computed. Each
command is a module of this package with ``add_arguments(parser)`` and ``run(args) -> int``
(whose docstring is its help), listed in :data:`trtlog.cli.registry.COMMANDS`. Exit codes: 0
success, 1 findings at or above ``--fail-on``, 2 usage errors, input that cannot be read and
faults of the machine: a file or standard output that cannot be written, no thread that can
start (one line on stderr naming the path, no traceback; STYLE.md §9 keeps tracebacks for
bugs, and an ``OSError`` is the machine's, not trtlog's). Only the chosen command imports
what it needs, so ``trtlog --help`` loads neither pandas nor the parser.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import logging
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO, cast

from trtlog._display import SafeStream, visible
from trtlog._version import __version__
from trtlog.cli import registry
from trtlog.cli.common import LOGGING_OPTIONS, UsageError
from trtlog.cli.registry import Command
from trtlog.errors import InputError, OutputError

__all__ = ["main"]


def _command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs, when nothing before it needs the other commands' help.

    The options before a command take no value (``-v``, ``-q``, ``--version``), so the first
    other argument is the command; ``None`` for help (``trtlog -h summary`` lists every
    command), ``--`` or a name that is no command (the error lists them).
    """
    names = {name for name, _module in registry.COMMANDS}
    for arg in argv:
        if arg in ("-h", "--help", "--"):
            return None
        if not arg.startswith("-"):
            return arg if arg in names else None
    return None


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser; for ``argv`` that names a command, with only its subparser.

    Making a command's subparser imports its module: parsing a command's arguments needs
    only its own, so a command starts without importing the others (what they would add is
    their help, shown only when no command is given or help comes first).
    """
    only = None if argv is None else _command_of(argv)
    parser = argparse.ArgumentParser(
        prog="trtlog",
        description="Explanations of TensorRT build output (trtexec logs, layer and profile JSON).",
    )
    parser.add_argument("--version", action="version", version=f"trtlog {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    parser.add_argument("-q", "--quiet", action="store_true", help="only errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in registry.COMMANDS:
        if only is not None and name != only:
            continue
        command = cast(Command, importlib.import_module(module))
        doc = (command.run.__doc__ or "").strip()
        p = sub.add_parser(
            name, help=doc.split("\n")[0], description=doc, parents=[LOGGING_OPTIONS]
        )
        command.add_arguments(p)
        p.set_defaults(run=command.run)
    return parser


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """A library warning as one ``trtlog: warning:`` line (not Python's file:line display)."""
    sys.stderr.write(f"trtlog: warning: {visible(str(message))}\n")


class _VisibleFormatter(logging.Formatter):
    """Log records on one line each, terminal controls of names and messages as escapes."""

    def format(self, record: logging.LogRecord) -> str:
        return visible(super().format(record), lines=True)


class _OwnInfo(logging.Filter):
    """Other packages' records below WARNING only from ``-vv`` on (trtlog's own from ``-v``)."""

    def __init__(self, verbose: int) -> None:
        super().__init__()
        self.verbose = verbose

    def filter(self, record: logging.LogRecord) -> bool:
        own = record.name == "trtlog" or record.name.startswith("trtlog.")
        return own or record.levelno >= logging.WARNING or self.verbose >= 2


#: Formats whose output is JSON: escaped the JSON way, so that it stays exact.
_JSON_FORMATS = frozenset({"json", "jsonl", "sarif"})
#: Formats written as they are (CSV cells are guarded cell by cell; Parquet is binary).
_DATA_FORMATS = frozenset({"csv", "parquet"})


def _safe_stdout(fmt: str | None) -> TextIO | None:
    """The stream that keeps input text from acting on the terminal, for the output format."""
    if fmt in _DATA_FORMATS:
        return None
    return SafeStream(sys.stdout, json=fmt in _JSON_FORMATS)  # type: ignore[return-value]


class _StdoutError(OSError):
    """Standard output could not be written (``trtlog summary > /dev/full``)."""


class _GuardedStdout:
    """Standard output whose write failures (not a closed pipe) raise :class:`_StdoutError`."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            _silence_stdout()
            raise _StdoutError(exc.errno or 0, exc.strerror or str(exc)) from exc

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        _flush_stdout(self.stream)

    def __getattr__(self, name: str) -> Any:  # isatty, buffer, encoding, fileno, ...
        return getattr(self.stream, name)


def _silence_stdout() -> None:
    """Point the process's standard output at the null device (after a failed write).

    The rest of the output would fail again at exit ("Exception ignored ...").
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())  # type: ignore[union-attr]
        os.close(devnull)


def _flush_stdout(stream: TextIO | None = None) -> None:
    """Flush standard output now, so that a failure to write it is one error line."""
    try:
        (stream or sys.stdout).flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        _silence_stdout()
        raise _StdoutError(exc.errno or 0, exc.strerror or str(exc)) from exc


def _os_error_line(exc: OSError) -> str:
    """One line for an I/O failure: the file (or standard output), what happened."""
    from trtlog._files import os_error_text

    if isinstance(exc, _StdoutError):
        return f"cannot write the standard output: {os_error_text(exc)}"
    names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
    where = " -> ".join(names)
    return f"{where}: {os_error_text(exc)}" if where else os_error_text(exc)


def _no_thread(exc: RuntimeError) -> bool:
    """Whether ``exc`` is Python's "can't start new thread" (a process or pids limit)."""
    return "can't start new thread" in str(exc) or "cannot start new thread" in str(exc)


#: The cyclic collector's thresholds while a command runs (Python's default: 700, 10, 10).
#: Importing pydantic and the event classes makes hundreds of thousands of long-lived
#: objects; at the default they set off dozens of collections that each scan the growing
#: heap. The first threshold is above what ``trtlog summary`` allocates while it imports, so
#: a short log's summary runs no collection at all; cyclic garbage is still collected, in
#: larger batches.
_GC_THRESHOLDS = (150_000, 20, 100)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code.

    Without ``argv`` (the ``trtlog`` program and ``python -m trtlog``: the arguments of the
    process), the process is about to end when the command returns, and the objects it made
    are moved to the collector's permanent generation (``gc.freeze``): Python's shutdown
    otherwise runs a full collection over every object of pydantic, the event classes and
    the parsed log only to free them. Called with ``argv`` (from Python), it leaves the
    collector as it was.
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*thresholds)
        if argv is None:
            gc.freeze()


#: Thread pools of numerical libraries that trtlog does not need: its arrays are vectors, never
#: matrix products. OpenBLAS starts a thread per core when numpy is imported, and where no
#: thread can start (a pids limit) it stops the process with SIGINT instead of failing.
_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _main(argv: Sequence[str] | None) -> int:
    if argv is None:
        argv = sys.argv[1:]
        for name in _ONE_THREAD:  # (the program only: a caller's process is its own)
            os.environ.setdefault(name, "1")
    parser = _parser(argv)
    args = parser.parse_args(argv)
    args.verbose += getattr(args, "sub_verbose", 0)
    args.quiet = args.quiet or getattr(args, "sub_quiet", False)
    level = logging.ERROR if args.quiet else logging.WARNING - 10 * min(args.verbose, 2)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_VisibleFormatter("trtlog: %(levelname)s: %(message)s"))
    # The handler's own level holds even where a library raised its loggers' (Dask's
    # distributed sets INFO on import and tells of every worker it starts and stops).
    handler.setLevel(level)
    handler.addFilter(_OwnInfo(args.verbose))
    logging.basicConfig(level=level, handlers=[handler])
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    stdout = sys.stdout
    safe = _safe_stdout(getattr(args, "format", None))
    try:
        sys.stdout = cast(TextIO, _GuardedStdout(safe if safe is not None else stdout))
        with warnings.catch_warnings():  # restores Python's own display on return
            warnings.showwarning = _show_warning
            if not sys.warnoptions:  # -W options given to Python win
                warnings.simplefilter("ignore" if args.quiet else "default")
            code: int = args.run(args)
        _flush_stdout()
        return code
    except (InputError, OutputError) as exc:
        sys.stderr.write(f"trtlog: error: {visible(exc.one_line())}\n")
        return 2
    except UsageError as exc:
        sys.stderr.write(f"trtlog: error: {visible(str(exc))}\n")
        return 2
    except BrokenPipeError:  # `trtlog events big.log | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback from wherever it landed
        sys.stderr.write("\ntrtlog: interrupted\n")
        return 130
    except OSError as exc:  # an I/O failure of the machine, not a bug: one line, exit 2
        sys.stderr.write(f"trtlog: error: {visible(_os_error_line(exc))}\n")
        return 2
    except RuntimeError as exc:
        if not _no_thread(exc):
            raise
        sys.stderr.write(
            "trtlog: error: cannot start a thread: the limit of processes and threads is "
            "reached (hint: raise `ulimit -u` or the container's pids limit, or run fewer "
            "programs at once)\n"
        )
        return 2
    finally:
        sys.stdout = stdout
