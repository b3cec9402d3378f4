"""``trtlog report``: arguments, the output path, exit codes, the progress bar."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.html.conftest import REPORTS
from trtlog.cli import main
from trtlog.html.command import STEPS, Progress, default_output
from trtlog.html.page import decode_embedded


def test_writes_the_page_next_to_the_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "build.log"
    shutil.copy(REPORTS["failed"]["build"], log)
    assert main(["report", str(log)]) == 0
    page = tmp_path / "build.report.html"
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    err = capsys.readouterr().err
    assert err.startswith(f"trtlog: wrote {page} (")
    assert main(["report", str(log), "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_every_input_option(tmp_path: Path) -> None:
    kwargs = REPORTS["tinynet"]
    out = tmp_path / "tiny.html"
    code = main(
        [
            "report",
            str(kwargs["build"]),
            "--profile",
            str(kwargs["profile"]),
            "--reference",
            str(kwargs["reference"]),
            "--reference-profile",
            str(kwargs["reference_profile"]),
            "-o",
            str(out),
            "--title",
            "tinynet INT8 vs FP16",
        ]
    )
    assert code == 0
    data = decode_embedded(out.read_text(encoding="utf-8"))
    assert data["meta"]["title"] == "tinynet INT8 vs FP16"
    assert data["cmp"] is not None and data["layers"]["total"] is not None


def test_json_only_with_layers_given_apart(tmp_path: Path) -> None:
    kwargs = REPORTS["json_only"]
    out = tmp_path / "resnet.html"
    assert (
        main(["report", str(kwargs["build"]), "--profile", str(kwargs["profile"]), "-o", str(out)])
        == 0
    )
    data = decode_embedded(out.read_text(encoding="utf-8"))
    assert data["log"] is None and data["layers"]["timed"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["report", "{log}", "-o", "{tmp}/missing/x.html"], "the folder"),
        (["report", "{log}", "-o", "{tmp}"], "that is a folder"),
        (["report", "{tmp}/nothing.log", "-o", "{tmp}/x.html"], "no such file"),
        (["report", "{log}", "--profile", "{tmp}/p.json", "-o", "{tmp}/x.html"], "--profile"),
        (
            ["report", "{log}", "--reference-profile", "{log}", "-o", "{tmp}/x.html"],
            "needs --reference",
        ),
        (["report", "{log}", "--run", "0", "-o", "{tmp}/x.html"], "numbered from 1"),
        (["report", "{log}", "--run", "4", "-o", "{tmp}/x.html"], "numbered from 1"),
        (["report", "{json}", "--run", "1", "-o", "{tmp}/x.html"], "layer JSON"),
        (["report", "-"], "-o FILE"),
        (["report", "{json}", "--layers", "{json}", "-o", "{tmp}/x.html"], "given twice"),
    ],
)
def test_bad_input_and_usage_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    values = {
        "log": str(REPORTS["failed"]["build"]),
        "json": str(REPORTS["json_only"]["build"]),
        "tmp": str(tmp_path),
    }
    assert main([a.format(**values) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("trtlog: error: ") and err.count("\n") == 1, err
    assert message in err


def test_log_on_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = Path(REPORTS["failed"]["build"]).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    out = tmp_path / "stdin.html"
    assert main(["report", "-", "-o", str(out), "-q"]) == 0
    assert decode_embedded(out.read_text(encoding="utf-8"))["log"]["name"] == "<stdin>"


def test_default_output() -> None:
    assert default_output("a/b.log").as_posix() == "a/b.report.html"
    assert default_output("b.log.gz").as_posix() == "b.report.html"
    assert default_output("model.layers.json").as_posix() == "model.layers.report.html"
    assert default_output("build").as_posix() == "build.report.html"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_after_a_second() -> None:
    quiet = io.StringIO()
    p = Progress(quiet)
    p("findings")
    p.close()
    assert quiet.getvalue() == ""
    tty = _Terminal()
    p = Progress(tty)
    p("findings")
    assert tty.getvalue() == ""  # not before a second
    p.start -= 2.0
    p("merge graph")
    p.close()
    shown = tty.getvalue()
    done = STEPS.index("merge graph") * 20 // len(STEPS)
    assert f"\rtrtlog: report [{'#' * done}{'-' * (20 - done)}] merge graph" in shown
    assert shown.endswith("\r" + " " * 69 + "\r")  # the line is cleared at the end


def test_progress_shows_the_share_of_the_log_parsed() -> None:
    tty = _Terminal()
    p = Progress(tty)
    p.start -= 2.0
    p("reading inputs")
    p.reading(50, 100)
    assert f"[{'-' * 20}] reading inputs  50%" in tty.getvalue()
    p.reading(100, 100)  # the first step done: one twelfth of the bar
    assert f"[{'#' * (20 // len(STEPS))}{'-' * (20 - 20 // len(STEPS))}] reading inputs 100%" in (
        tty.getvalue()
    )
    p("findings")  # the next step shows no share
    p.close()
    last = tty.getvalue().split("\r")[-3]
    assert "findings" in last and "%" not in last


def test_report_reports_parsing_progress(tmp_path: Path) -> None:
    """``trtlog.report(path, reading=...)`` hears how far the log's parse is; same page."""
    import trtlog

    log = REPORTS["tinynet"]["build"]
    heard: list[tuple[int, int]] = []
    page = trtlog.report(log, reading=lambda done, total: heard.append((done, total)))
    total = len(Path(log).read_text(encoding="utf-8"))
    assert heard and all(0 < done <= total and whole == total for done, whole in heard)
    assert page == trtlog.report(log)


def test_the_command_starts_no_thread_and_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page is made in the caller's thread: the progress bar (on a terminal) included."""
    import os
    import threading

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the report started a thread or a process")

    monkeypatch.setattr(threading.Thread, "start", refused)
    monkeypatch.setattr(os, "fork", refused)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    kwargs = REPORTS["tinynet"]
    out = tmp_path / "page.html"
    argv = ["report", str(kwargs["build"]), "--profile", str(kwargs["profile"]), "-o", str(out)]
    argv += ["--reference", str(kwargs["reference"])]
    assert main(argv) == 0
    assert out.stat().st_size > 10_000


@pytest.mark.slow
def test_entry_point(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    done = subprocess.run(
        [sys.executable, "-m", "trtlog", "report", str(REPORTS["yolov8"]["build"]), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 10_000
    assert (
        "report"
        in subprocess.run(
            [sys.executable, "-m", "trtlog", "--help"], capture_output=True, text=True, check=True
        ).stdout
    )
