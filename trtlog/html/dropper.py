"""The makings of a page, freed by a thread once the page is returned (issue 15).

Freeing what a big report was made from (the sections' columns and rows, the findings, the
module tree, the page's text before the final copy: 19 ms on the 50 MB benchmark) was the
last thing the report did before it returned. A :class:`Dropper` takes those references;
once the report has let go of its own, :meth:`Dropper.release` hands them to a thread that
drops them, so that the freeing overlaps what the caller does next (``trtlog report``
writes the page: a system call that lets the thread run).

The thread is a quiet one for :mod:`trtlog.html.child` (:data:`DROPPER`): it only frees
lists, dicts, strings and models, and holds no lock a forked child could need.
"""

from __future__ import annotations

import threading
import time
from typing import Any

__all__ = ["DROPPER", "Dropper", "dropped", "join_threads"]

#: The name of the thread that frees a page's makings.
DROPPER = "trtlog-dropper"


class Dropper:
    """References held for a thread to drop (see the module's text).

    Example:
        >>> dropper = Dropper()
        >>> dropper.hold([1, 2, 3])
        >>> dropper.release()  # the list is freed by a thread
    """

    def __init__(self) -> None:
        self._held: list[object] = []

    def hold(self, *values: object) -> None:
        """Keep ``values`` until :meth:`release` (the caller then drops its own references)."""
        self._held.extend(values)

    def release(self) -> None:
        """Drop what is held, in a daemon thread (an exit does not wait for it)."""
        if not self._held:
            return
        held, self._held = self._held, []
        threading.Thread(target=_drop, args=(held,), name=DROPPER, daemon=True).start()


def dropped(timeout: float | None = None) -> None:
    """Wait until the threads dropping pages' makings are done (tests, benchmarks)."""
    join_threads(DROPPER, timeout)


def join_threads(name: str, timeout: float | None = None) -> None:
    """Wait for every live thread called ``name`` (each for up to ``timeout`` seconds)."""
    for thread in threading.enumerate():
        if thread.name == name:
            thread.join(timeout)


def _drop(held: list[object]) -> None:
    """Drop ``held``'s values a piece at a time.

    Freeing a big structure at once is one C call that keeps the GIL to the end (tens of
    milliseconds): the caller's thread, back from the report, would wait for it. Dicts,
    and lists of dicts or lists, are emptied onto a stack (their items likewise), so that
    the interpreter can switch threads between the pieces.
    """
    # first let the caller's thread go on (it waits for this one to start, then for the GIL)
    time.sleep(0)
    stack = held
    while stack:
        value: Any = stack.pop()
        kind = type(value)
        if kind is dict:
            stack.extend(value.values())
            value.clear()  # (its values are on the stack: only the table is freed here)
        elif kind is list and value and type(value[0]) in _CONTAINERS:
            stack.extend(value)
            value.clear()
        del value  # (a list of numbers or texts: freed by one C loop, short)


_CONTAINERS = (dict, list)
