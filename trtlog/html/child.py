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
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["ENVIRONMENT", "QUIET_THREADS", "Pending", "can_fork", "start", "wanted"]

T = TypeVar("T")

#: ``TRTLOG_REPORT_PROCESSES``: ``1`` never forks, ``2`` forks whatever the input's size
#: (where forking is safe); unset, the report forks for big inputs only.
ENVIRONMENT = "TRTLOG_REPORT_PROCESSES"


#: Threads of trtlog's own that never hold a lock the child needs: the CLI's progress bar
#: (it draws on stderr under its own lock; the child neither draws nor writes to stderr).
QUIET_THREADS = frozenset({"trtlog-progress"})


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
                self.fallback = f"unreadable result ({type(error).__name__})"
            else:
                return value
        return self.job()

    def _read(self) -> bytes | None:
        """The child's bytes, the child reaped; ``None`` (and :attr:`fallback`) if it failed."""
        assert self.pid is not None and self.reader is not None
        with os.fdopen(self.reader, "rb") as stream:
            self.reader = None
            payload = stream.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            self.fallback = f"child exited with {code}"
            return None
        return payload

    def close(self) -> None:
        """Stops a child whose result is not wanted (the caller failed) and reaps it."""
        if self.reader is not None:
            os.close(self.reader)
            self.reader = None
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = None


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
        code = 1
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
