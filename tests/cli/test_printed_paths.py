"""Every path the CLI prints is one line: a newline, ESC or BEL in a file name is escaped.

A file name may hold any byte but ``/`` and NUL. Printed raw, a newline in it splits
``summary``'s header (or ``diff``'s ``A:`` line) in two and makes a fake line of output, and ESC
or BEL act on the terminal. Every command shows such a path the way ``ingest``'s ``failed:``
line does: through :func:`trtlog._display.visible` (``\\n``, ``\\x1b``, ``\\x07``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT
from trtlog._display import visible
from trtlog.cli import main

#: a name with a newline, an OSC title sequence (ESC ... BEL) and a CSI colour
NAME = "two\nlines\x1b]0;title\x07\x1b[31m"

SOURCES = {
    ".log": FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log",
    "-failed.log": FIXTURES / "logs" / "trt8.6-like_patternnet-qdq_build-FAILED.log",
    "-runs.log": FIXTURES / "logs" / "trt7.1-like_two-runs_perf-block.log",
    ".json": FIXTURES / "layer_info" / "trt10.16-like_smallnet-fp16_layers-detailed.json",
}


@pytest.fixture
def named(tmp_path: Path) -> dict[str, str]:
    """The fixtures copied under the hostile name (one per suffix)."""
    out: dict[str, str] = {}
    for suffix, source in SOURCES.items():
        path = tmp_path / f"{NAME}{suffix}"
        shutil.copy(source, path)
        out[suffix] = str(path)
    return out


def _check(output: str, path: str) -> None:
    """``path`` shows escaped, whole, on one line; nothing of it raw."""
    assert visible(path) in output
    assert "\x1b" not in output and "\x07" not in output
    first, second = path.split("\n", 1)
    for line in output.splitlines():
        # the name's second line never starts an output line (no line was split at the path)
        assert not line.startswith(second[:5]), line
        assert not line.endswith(first), line


def _summary(path: str) -> subprocess.CompletedProcess[str]:
    """``trtlog summary PATH`` as a user runs it (a process of its own)."""
    return subprocess.run(
        [sys.executable, "-m", "trtlog", "summary", path],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_summary_header_through_the_program(named: dict[str, str]) -> None:
    """``trtlog summary`` as a user runs it: its ``log`` row is one line."""
    path = named[".log"]
    done = _summary(path)
    assert done.returncode == 0, done.stderr
    _check(done.stdout, path)
    header = next(line for line in done.stdout.splitlines() if line.startswith("log "))
    assert header.endswith(f"{visible(path)} (72 lines, 1 run)")


def test_missing_file_with_a_newline_is_no_such_file(tmp_path: Path) -> None:
    """A missing file's hostile name: "no such file", the name escaped, not "log text"."""
    path = str(tmp_path / f"{NAME}.log")
    done = _summary(path)
    assert done.returncode == 2
    assert "no such file" in done.stderr and "log text" not in done.stderr
    _check(done.stderr, path)


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (("summary", "{-runs.log}"), "{-runs.log}"),
        (("summary", "{-failed.log}"), "{-failed.log}"),
        (("diff", "{.log}", "{-failed.log}"), "{-failed.log}"),
        (("diff", "{.json}", "{.json}"), "{.json}"),
        (("graph", "{.log}", "-o", "{out}.dot"), "{out}.dot"),
        (("graph", "--engine", "{.json}", "-o", "{out}.svg"), "{out}.svg"),
        (("plot", "layer-counts", "{.log}", "-o", "{out}.png"), "{out}.png"),
        (("report", "{.log}", "-o", "{out}.html"), "{out}.html"),
    ],
)
def test_every_command_prints_the_path_on_one_line(
    named: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    shown: str,
) -> None:
    """summary, diff (its ``A:``/``B:`` lines and notes), graph, plot and report."""
    values = {**{f"{{{k}}}": v for k, v in named.items()}, "{out}": str(tmp_path / NAME)}

    def fill(text: str) -> str:
        for key, value in values.items():
            text = text.replace(key, value)
        return text

    code = main([fill(a) for a in argv])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    _check(captured.out + captured.err, fill(shown))


def test_summary_json_keeps_the_path_exact(
    named: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON output is data: the path decodes to the file's own name."""
    import json

    assert main(["summary", "--format", "json", named[".log"]]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == named[".log"]
