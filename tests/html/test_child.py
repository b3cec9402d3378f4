"""The report's merge graph made in a forked child (``trtlog.html.child``, issue 15).

A real ``os.fork`` every time: the page made with the child is the page made without it,
byte for byte, for every bundled report; a child that raises, dies or sends garbage leaves
the parent to compute the section itself; no child is left behind.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time
from typing import Any

import pytest

import trtlog
from tests.html.conftest import REPORTS
from trtlog.html import child
from trtlog.html import make as make_module

pytestmark = pytest.mark.skipif(not child.can_fork(), reason="no os.fork on this platform")


def _children() -> set[int]:
    """The pids of this process's live children (from /proc)."""
    me = str(os.getpid())
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z":
            found.add(int(entry))
    return found


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_the_page_is_the_same_with_and_without_the_child(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    forks: list[bool] = []
    start = child.start

    def counted(job: Any, fork: bool) -> child.Pending[Any]:
        forks.append(fork)
        return start(job, fork)

    monkeypatch.setattr(child, "start", counted)
    monkeypatch.setenv(child.ENVIRONMENT, "2")
    forked = trtlog.report(**REPORTS[name])
    monkeypatch.setenv(child.ENVIRONMENT, "1")
    alone = trtlog.report(**REPORTS[name])
    assert forked == alone
    has_build = name != "json_only"
    # a page with a build forks when told to, and never when told not to
    assert forks == ([True, False] if has_build else [])


def test_small_inputs_do_not_fork_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def record(job: Any, fork: bool) -> child.Pending[Any]:
        seen.append(fork)
        return child.Pending(job)

    monkeypatch.setattr(child, "start", record)
    monkeypatch.delenv(child.ENVIRONMENT, raising=False)
    trtlog.report(**REPORTS["tinynet"])
    monkeypatch.setattr(make_module, "FORK_LINES", 10)
    trtlog.report(**REPORTS["tinynet"])
    assert seen == [False, True]


def test_no_fork_beside_another_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(child.ENVIRONMENT, raising=False)
    assert child.can_fork()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, name="someone-else")
    other.start()
    try:
        assert not child.can_fork()
        quiet = threading.Thread(target=stop.wait, name="trtlog-progress")
        quiet.start()  # (the CLI's progress bar: allowed)
    finally:
        stop.set()
        other.join()
    quiet.join()
    assert child.can_fork()


def test_a_child_returns_its_result() -> None:
    parent = os.getpid()
    pending = child.start(lambda: {"pid": os.getpid(), "data": list(range(100_000))}, True)
    assert pending.pid is not None
    value = pending.result()
    assert value["pid"] != parent and value["data"] == list(range(100_000))
    assert pending.fallback is None and pending.pid is None


def _raises() -> Any:
    if os.getpid() != PARENT:
        raise RuntimeError("only in the child")
    return "computed here"


def _dies() -> Any:
    if os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    return "computed here"


PARENT = os.getpid()


@pytest.mark.parametrize(
    ("job", "why"),
    [(_raises, "child exited with 1"), (_dies, "child exited with -9")],
)
def test_a_failed_child_leaves_the_work_to_the_parent(job: Any, why: str) -> None:
    global PARENT
    PARENT = os.getpid()
    pending = child.start(job, True)
    assert pending.result() == "computed here"
    assert pending.fallback == why
    assert pending.pid not in _children()


def test_an_unreadable_result_is_computed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    global PARENT
    PARENT = os.getpid()
    real = pickle.dumps

    def cut(value: Any, protocol: int | None = None) -> bytes:
        return real(value, protocol=protocol)[:-5] if os.getpid() != PARENT else real(value)

    monkeypatch.setattr(pickle, "dumps", cut)
    pending = child.start(lambda: list(range(1000)) if os.getpid() != PARENT else "here", True)
    assert pending.result() == "here"
    assert pending.fallback is not None and pending.fallback.startswith("unreadable result")


def test_a_child_whose_result_is_not_wanted_is_stopped_and_reaped() -> None:
    before = _children()
    pending = child.start(lambda: time.sleep(60), True)
    assert pending.pid in _children()
    pending.close()
    assert _children() == before


def test_a_report_that_fails_leaves_no_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(child.ENVIRONMENT, "2")
    before = _children()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a section failed")

    monkeypatch.setattr(make_module, "collect", broken)
    with pytest.raises(RuntimeError, match="a section failed"):
        trtlog.report(**REPORTS["tinynet"])
    assert _children() == before


def test_no_fork_when_told_not_to(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(child.ENVIRONMENT, "1")
    assert not child.can_fork()
    assert not child.wanted(True)
    monkeypatch.setenv(child.ENVIRONMENT, "2")
    assert child.wanted(False)
    pending = child.start(lambda: 42, False)
    assert pending.pid is None and pending.result() == 42
