"""The report's merge graph made in a forked child (``trtlog.html.child``, issue 15).

A real ``os.fork`` every time: the page made with the child is the page made without it,
byte for byte, for every bundled report; a child that raises, dies or sends garbage leaves
the parent to compute the section itself; no child is left behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

import trtlog
from tests.conftest import ROOT
from tests.html.conftest import REPORTS
from trtlog.html import child
from trtlog.html import make as make_module

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or not sys.platform.startswith("linux"),
    reason="the report forks on Linux only",
)


def _children() -> set[int]:
    """The pids of this process's live children (from /proc), once the leaving are reaped."""
    child.reaped()
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


#: Run in a fresh interpreter: a test process may hold threads of other tests (Dask's
#: offload thread stays after a cluster test), beside which the report rightly never forks.
_FRESH = """
import hashlib, json, os, sys, threading
sys.path.insert(0, sys.argv[1])
import trtlog
from tests.conftest import ROOT
from tests.html.conftest import REPORTS
from trtlog.html import child

out = {"fresh": child.can_fork()}
stop = threading.Event()
other = threading.Thread(target=stop.wait, name="someone-else")
other.start()
out["beside another thread"] = child.can_fork()
stop.set()
other.join()
quiet = threading.Thread(target=stop.wait, name="trtlog-progress")  # the CLI's progress bar
quiet.start()
out["beside the progress bar"] = child.can_fork()
quiet.join()
os.environ[child.ENVIRONMENT] = "1"
out["told not to"] = [child.can_fork(), child.wanted(True)]
os.environ[child.ENVIRONMENT] = "2"
out["told to"] = child.wanted(False)
forks = []
start = child.start
child.start = lambda job, fork: forks.append(fork) or start(job, fork)
pages = {}
for name, kwargs in sorted(REPORTS.items()):
    forks.clear()
    os.environ[child.ENVIRONMENT] = "2"
    forked = trtlog.report(**kwargs)
    os.environ[child.ENVIRONMENT] = "1"
    alone = trtlog.report(**kwargs)
    pages[name] = [forked == alone, list(forks), hashlib.sha256(alone.encode()).hexdigest()]
out["pages"] = pages
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def fresh() -> dict[str, Any]:
    """What :data:`_FRESH` found, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-c", _FRESH, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        env={k: v for k, v in os.environ.items() if k != child.ENVIRONMENT},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    value: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return value


def test_the_page_is_the_same_with_and_without_the_child(fresh: dict[str, Any]) -> None:
    pages = fresh["pages"]
    assert sorted(pages) == sorted(REPORTS)
    for name, (same, forks, digest) in pages.items():
        assert same, name
        # a page with a build forks when told to, and never when told not to
        assert forks == ([True, False] if name != "json_only" else [False, False]), name
        # and the page is the one this process makes (in one process: no fork here)
        page = trtlog.report(**REPORTS[name])
        assert hashlib.sha256(page.encode()).hexdigest() == digest, name


def test_forks_only_alone_or_beside_the_progress_bar(fresh: dict[str, Any]) -> None:
    assert fresh["fresh"] is True
    assert fresh["beside another thread"] is False
    assert fresh["beside the progress bar"] is True


def test_the_environment_decides_first(fresh: dict[str, Any]) -> None:
    assert fresh["told not to"] == [False, False]
    assert fresh["told to"] is True
    pending = child.start(lambda: 42, False)
    assert pending.pid is None and pending.result() == 42


def test_small_inputs_do_not_fork_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def record(job: Any, fork: bool) -> child.Pending[Any]:
        seen.append(fork)
        return child.Pending(job)

    monkeypatch.setattr(child, "start", record)
    # (whether this process may fork is the test above's: here, the input's size decides)
    monkeypatch.setattr(child, "can_fork", lambda: True)
    monkeypatch.delenv(child.ENVIRONMENT, raising=False)
    trtlog.report(**REPORTS["tinynet"])
    monkeypatch.setattr(make_module, "FORK_EVENTS", 10)
    trtlog.report(**REPORTS["tinynet"])
    assert seen == [False, True]


def test_a_child_returns_its_result() -> None:
    parent = os.getpid()
    pending = child.start(lambda: {"pid": os.getpid(), "data": list(range(100_000))}, True)
    assert pending.pid is not None
    value = pending.result()
    assert value["pid"] != parent and value["data"] == list(range(100_000))
    assert pending.fallback is None and pending.pid is None
    pending.close()


def test_a_child_that_sent_its_result_is_reaped_without_being_waited_for() -> None:
    pending = child.start(lambda: list(range(1000)), True)
    pid = pending.pid
    assert pid is not None
    assert pending.result() == list(range(1000))
    # the result is read: the caller goes on while the child leaves, and close() reaps it
    # (at once, or by a thread when it has not left yet)
    assert pending.leaving == pid and pending.pid is None
    pending.close()
    assert pending.leaving is None
    child.reaped(10)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


class _Box:
    """An object a weak reference can follow."""


def _kept_alive() -> bool:
    """Whether a value handed to child.keep outlives the last reference to it."""
    import weakref

    box = _Box()
    ref = weakref.ref(box)
    child.keep(box)
    del box
    return ref() is not None


def test_a_child_reaped_by_someone_else_is_no_error() -> None:
    # a program that ignores SIGCHLD (or reaps every child itself) takes the child's exit
    # status: the result still counts, and closing raises nothing
    pending = child.start(lambda: "sent", True)
    assert pending.pid is not None
    os.waitpid(pending.pid, 0)  # (the child writes its result into the pipe's buffer, leaves)
    assert pending.result() == "sent" and pending.fallback is None
    pending.close()
    # a child that sent nothing, reaped elsewhere: computed here
    failed = child.start(lambda: os._exit(3) if os.getpid() != PARENT else "here", True)
    assert failed.pid is not None
    os.waitpid(failed.pid, 0)
    assert failed.result() == "here" and failed.fallback == "child reaped elsewhere"
    failed.close()
    # and one that has not left yet when closed: its reaper finds it gone
    slow = child.start(lambda: "sent", True)
    assert slow.result() == "sent"
    assert slow.leaving is not None
    with contextlib.suppress(ChildProcessError):
        os.waitpid(slow.leaving, 0)
    slow.close()
    child.reaped(10)


def test_a_child_keeps_what_it_is_handed_and_the_parent_frees_it() -> None:
    # a child leaves with os._exit: it need not free what it built (keep); a parent does
    pending = child.start(_kept_alive, True)
    assert pending.result() is True
    pending.close()
    assert _kept_alive() is False


def test_done_tells_whether_the_child_has_sent_its_result(tmp_path: Any) -> None:
    go = tmp_path / "go"

    def job() -> str:
        while not go.exists():  # (in the child: waits for the parent's word)
            time.sleep(0.01)
        return "sent"

    pending = child.start(job, True)
    try:
        assert not pending.done()
        go.touch()
        deadline = time.monotonic() + 30
        while not pending.done():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert pending.result() == "sent" and pending.done()
    finally:
        pending.close()
    assert child.start(lambda: 1, False).done()  # no child: nothing to wait for


def test_beside_a_child_the_log_compresses_once_the_child_is_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the child and this process share two cores: the log's compression waits for the core
    # the child leaves (its result sent), or for the moment this process waits for it
    from trtlog.html import page as page_module

    monkeypatch.setattr(child, "wanted", lambda big: True)
    seen: list[tuple[str, Any]] = []
    done, start = child.Pending.done, page_module.LogPack.start

    def recorded_done(self: child.Pending[Any]) -> bool:
        value = done(self)
        seen.append(("done", value))
        return value

    def recorded_start(self: page_module.LogPack) -> None:
        seen.append(("start", self.started))
        start(self)

    monkeypatch.setattr(child.Pending, "done", recorded_done)
    monkeypatch.setattr(page_module.LogPack, "start", recorded_start)
    steps: list[str] = []

    def progress(stage: str) -> None:
        steps.append(stage)
        seen.append(("step", stage))

    page = trtlog.report(**REPORTS["tinynet"], progress=progress)
    first = seen.index(("start", False))
    before = seen[:first]
    assert ("done", True) in before or ("step", "merge graph") in before
    assert ("done", True) not in before[:-1]  # started at the first step the child was done
    monkeypatch.setattr(child, "wanted", lambda big: False)
    assert trtlog.report(**REPORTS["tinynet"]) == page  # the same page without the child


def test_a_dropper_frees_what_it_holds_in_a_thread_once_released() -> None:
    import threading
    import weakref

    from trtlog.html import dropper as dropper_module

    dropper = dropper_module.Dropper()
    box = _Box()
    ref = weakref.ref(box)
    nested = {"rows": [[box], {"x": [1, 2]}], "n": 3}
    dropper.hold(nested, "text")
    del box, nested
    assert ref() is not None  # held until released
    seen: list[str] = []
    drop = dropper_module._drop

    def recorded(held: list[object]) -> None:
        seen.append(threading.current_thread().name)
        drop(held)

    dropper_module._drop = recorded
    try:
        dropper.release()
        dropper_module.dropped(10)
    finally:
        dropper_module._drop = drop
    assert seen == [dropper_module.DROPPER] and ref() is None
    dropper.release()  # nothing held: no thread
    assert dropper_module.DROPPER in child.QUIET_THREADS  # a fork beside it is safe


def test_a_report_leaves_its_makings_to_the_dropper(monkeypatch: pytest.MonkeyPatch) -> None:
    from trtlog.html import dropper as dropper_module

    held: list[list[object]] = []
    monkeypatch.setattr(dropper_module, "_drop", lambda values: held.append(list(values)))
    page = trtlog.report(**REPORTS["tinynet"])
    dropper_module.dropped(10)
    assert len(held) == 1
    made, text = held[0]
    assert isinstance(made, dict) and {"data", "findings", "lines"} <= set(made)
    assert text == page  # the page's text before its copy into the Report


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


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_a_report_that_fails_leaves_no_child(
    monkeypatch: pytest.MonkeyPatch, error: type[BaseException]
) -> None:
    # a fork whatever this process's threads (an idle one of another test's is harmless to
    # a child that only computes)
    monkeypatch.setattr(child, "wanted", lambda big: True)
    started: list[int | None] = []
    start = child.start

    def recorded(job: Any, fork: bool) -> child.Pending[Any]:
        pending = start(job, fork)
        started.append(pending.pid)
        return pending

    monkeypatch.setattr(child, "start", recorded)
    before = _children()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise error("a section failed")  # (or Ctrl-C while it is made)

    monkeypatch.setattr(make_module, "collect", broken)
    with pytest.raises(error, match="a section failed"):
        trtlog.report(**REPORTS["tinynet"])
    assert len(started) == 1 and started[0] is not None  # a child ran
    assert _children() == before
