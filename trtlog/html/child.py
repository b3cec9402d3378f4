"""One function run in a forked child process while the caller goes on (issue 15).

The report's merge graph section (:func:`trtlog.html.data.graph_texts`) is its biggest
step: on the 50 MB benchmark log with a 20,000-layer engine it takes as long as all the
other sections together. A child forked before the other sections are made computes it on
the second core and sends it back pickled; the parent makes the other sections meanwhile
and reads the result when it needs it. The child shares the parsed build with its parent
(``fork`` copies the process, its pages copied only as written), so nothing is parsed
twice and nothing but the result crosses between the processes.

Only where forking is safe: a platform with ``os.fork`` (not Windows; macOS's system
libraries may not survive a fork and are left out too) and a process running one thread,
or beside it only trtlog's own progress bar (:data:`QUIET_THREADS`): a fork copies only the
calling thread, so a lock another thread holds stays locked in the child (Python 3.12 warns
about it). Anywhere else, and when the child fails in any way
(it raised, was killed, sent nothing readable), the parent computes the result itself: the
page is the same either way, as the tests check.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Generic, TypeVar

from trtlog.html.dropper import DROPPER, join_threads

__all__ = [
    "ENVIRONMENT",
    "QUIET_THREADS",
    "REAPER",
    "Pending",
    "can_fork",
    "keep",
    "reaped",
    "start",
    "wanted",
]

T = TypeVar("T")

#: ``TRTLOG_REPORT_PROCESSES``: ``1`` never forks, ``2`` forks whatever the input's size
#: (where forking is safe); unset, the report forks for big inputs only.
ENVIRONMENT = "TRTLOG_REPORT_PROCESSES"


#: The name of the thread that reaps a child once its result is read (see :meth:`Pending.close`).
REAPER = "trtlog-reaper"

#: Threads of trtlog's own that never hold a lock the child needs: the CLI's progress bar
#: (it draws on stderr under its own lock; the child neither draws nor writes to stderr),
#: the reaper of a child that sent its result (:data:`REAPER`: it only waits for the exit)
#: and the thread that frees a page's makings (:data:`trtlog.html.dropper.DROPPER`).
QUIET_THREADS = frozenset({"trtlog-progress", REAPER, DROPPER})


def can_fork() -> bool:
    """Whether this process may fork a child to compute in (see the module's text)."""
    main = threading.main_thread()
    return (
        hasattr(os, "fork")
        and sys.platform.startswith("linux")
        and os.environ.get(ENVIRONMENT, "") != "1"
        and all(t is main or t.name in QUIET_THREADS for t in threading.enumerate())
    )


def wanted(big: bool) -> bool:
    """Whether to fork for an input: big ones, or any with ``TRTLOG_REPORT_PROCESSES=2``."""
    return can_fork() and (big or os.environ.get(ENVIRONMENT, "") == "2")


class Pending(Generic[T]):
    """A function's result: computed now (no child), or by a forked child.

    Example:
        >>> Pending(lambda: 6 * 7).result()
        42
    """

    def __init__(self, job: Callable[[], T]) -> None:
        self.job = job
        self.pid: int | None = None
        self.reader: int | None = None
        #: A child whose result was read, leaving (reaped by :meth:`close`).
        self.leaving: int | None = None
        #: Why the child's result was not used (``None`` when it was, or no child ran).
        self.fallback: str | None = None

    def result(self) -> T:
        """The function's result: the child's when it sent one, else computed here."""
        if self.pid is None:
            return self.job()
        payload = self._read()
        if payload is not None:
            try:
                value: T = pickle.loads(payload)
            except Exception as error:  # a result cut short: compute it here
                if self._exit_code() == 0:
                    self.fallback = f"unreadable result ({type(error).__name__})"
            else:
                return value
        return self.job()

    def done(self) -> bool:
        """Whether :meth:`result` would not wait for a computation.

        True when no child runs, or it has sent its result (or left).
        """
        if self.reader is None:
            return True
        return bool(select.select([self.reader], [], [], 0)[0])

    def _read(self) -> bytes | None:
        """The child's bytes; ``None`` (and :attr:`fallback`) if it failed.

        A child that sent bytes is not waited for here: it closed its pipe before leaving,
        and its exit (the kernel freeing a copy of this process's page tables and the pages
        it wrote: 30 ms on the 50 MB benchmark) goes on while the page is put together;
        :meth:`close` reaps it. Bytes that do not unpickle are a failure like any other
        (:meth:`result` then waits for the child's exit code).
        """
        assert self.pid is not None and self.reader is not None
        with os.fdopen(self.reader, "rb") as stream:
            self.reader = None
            payload = stream.read()
        if payload:
            self.leaving, self.pid = self.pid, None
            return payload
        self._exit_code()
        return None

    def _exit_code(self) -> int:
        """Wait for the child (sent or leaving) and return its exit code; non-zero: fallback."""
        pid = self.pid if self.pid is not None else self.leaving
        assert pid is not None
        self.pid = self.leaving = None
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:  # reaped by someone else (SIGCHLD ignored, say): unknown
            self.fallback = "child reaped elsewhere"
            return -1
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            self.fallback = f"child exited with {code}"
        return code

    def close(self) -> None:
        """Stops a child whose result is not wanted (the caller failed) and reaps it.

        A child whose result was read is reaped at once when it has left, else by a thread
        (:data:`REAPER`) that waits for it, so that the caller does not (:func:`reaped`
        waits for those threads).
        """
        if self.reader is not None:
            os.close(self.reader)
            self.reader = None
        # (a child reaped by someone else, as when the program ignores SIGCHLD: nothing to do)
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None
        if self.leaving is not None:
            pid, self.leaving = self.leaving, None
            try:
                left = os.waitpid(pid, os.WNOHANG)[0] != 0
            except ChildProcessError:
                left = True
            if not left:
                reaper = threading.Thread(target=_reap, args=(pid,), name=REAPER)
                reaper.daemon = True  # (an exit does not wait: the child is reparented)
                reaper.start()


def _reap(pid: int) -> None:
    """Wait for the child ``pid`` to leave (the :data:`REAPER` thread's work)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


#: What this process keeps until it leaves, when it is a child (:func:`keep`); else ``None``.
_KEPT: list[object] | None = None


def keep(*values: object) -> None:
    """Keep ``values`` alive until this process leaves, when it is a forked child.

    A child leaves with ``os._exit``: the system takes its memory back whole, so that
    freeing what it built on the way (the merge graph's rows and columns: tens of
    milliseconds) is work for nothing. A caller about to drop a big structure hands it here
    first; in any other process this does nothing.
    """
    if _KEPT is not None:
        _KEPT.extend(values)


def reaped(timeout: float | None = None) -> None:
    """Wait until every child whose result was read has left (the :data:`REAPER` threads)."""
    join_threads(REAPER, timeout)


def start(job: Callable[[], T], fork: bool) -> Pending[T]:
    """``job``'s result, computed by a forked child when ``fork`` (see :func:`wanted`).

    The child runs ``job``, writes its pickled result to a pipe and leaves with
    ``os._exit`` (no exit handler of the parent's, no flush of its buffered output); any
    failure leaves with status 1 and the parent computes the result itself.
    """
    pending = Pending(job)
    if not fork:
        return pending
    reader, writer = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12 warns of any fork with a second thread; the only one allowed
            # here is a quiet one (QUIET_THREADS)
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:  # no memory or process left for a child: compute here
        os.close(reader)
        os.close(writer)
        pending.fallback = "fork failed"
        return pending
    if pid == 0:  # the child
        global _KEPT
        code = 1
        _KEPT = []
        try:
            os.close(reader)
            # Ctrl-C reaches the whole process group: the parent decides, the child is
            # killed by it or sees its pipe closed
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            payload = pickle.dumps(job(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as stream:
                stream.write(payload)
            code = 0
        finally:
            os._exit(code)
    os.close(writer)
    pending.pid, pending.reader = pid, reader
    return pending
