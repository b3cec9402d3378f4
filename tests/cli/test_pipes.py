"""Every command reads its input from a named pipe and from standard input as from the file.

A pipe (``trtlog report <(zcat build.log.gz)``) or standard input can be read only once: a
command that looked at the first bytes to tell a log from a JSON export, then opened the input
again, lost those bytes (the report wrote a page without the first 4,096 bytes of its log).
Every command that reads a log or an export is run here on a file, on a FIFO fed by a thread
of the test, and on standard input where it takes ``-``; the outputs must be the same but for
the input's name. The files get names as long as ``<stdin>``, so that tables keep their
widths when the name is swapped.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from trtlog.cli import main
from trtlog.cli.registry import COMMANDS
from trtlog.html.page import decode_embedded

pytestmark = pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not hasattr(signal, "SIGALRM"), reason="no named pipes here"
)

LOG = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
REFERENCE = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
LAYERS = FIXTURES / "layer_info" / "trt11.5-like_smallnet-qdq-int8_layers-detailed.json"
PROFILE = FIXTURES / "layer_info" / "trt11.5-like_smallnet-qdq-int8.profile.json"

#: The names the input takes: a file, a FIFO, standard input (all of one length).
FILE, FIFO, STDIN = "in1.txt", "fi1.txt", "<stdin>"

#: ``(command line, the input, the file the command writes)``: ``{in}`` is the input read
#: through a pipe, ``{out}`` a file the command writes (compared too).
CASES: list[tuple[str, Path, str | None]] = [
    ("summary {in}", LOG, None),
    ("summary {in} --format json --passes", LOG, None),
    ("events {in} --format jsonl", LOG, None),
    ("events {in}", LOG, None),
    ("layers {in}", LOG, None),
    ("layers {in} --format json", LAYERS, None),
    ("layers {in} --group-by type", LAYERS, None),
    ("layers {in} --format csv", PROFILE, None),
    (f"diff {REFERENCE} {{in}}", LOG, None),
    (f"diff {REFERENCE} {{in}} --format json --view summary", LOG, None),
    (f"diff {LAYERS} {{in}} --view summary", LAYERS, None),
    (f"diff {{in}} {LAYERS} --format json --view onnx", LAYERS, None),
    ("explain {in}", LOG, None),
    ("explain {in} --format json", LOG, None),
    ("graph {in} -o {out}", LOG, "graph.json"),
    ("graph --engine {in} -o {out}", LAYERS, "graph.svg"),
    ("bisect {in} --pass ConvReluFusion", LOG, None),
    ("plot layer-counts {in} -o {out}", LOG, "plot.png"),
    ("plot time-by {in} -o {out}", LAYERS, "plot.png"),
    (f"plot diff {REFERENCE} {{in}} -o {{out}}", LOG, "plot.png"),
    ("lint {in} --format json --fail-on never", LOG, None),
    ("lint {in} --format json --fail-on never", LAYERS, None),
    (f"lint {LOG} --reference {{in}} --format json --fail-on never", REFERENCE, None),
    ("report {in} -o {out}", LOG, "page.html"),
    ("report {in} --profile " + str(PROFILE) + " -o {out}", LAYERS, "page.html"),
    (f"report {LOG} --reference {{in}} -o {{out}}", REFERENCE, "page.html"),
]

#: Commands that read no log or export: a warehouse (query, trend).
WAREHOUSE_ONLY = {"query", "trend"}


@contextlib.contextmanager
def fed(fifo: Path, data: bytes) -> Iterator[None]:
    """``fifo`` with ``data`` written into it by a thread, as a shell's ``<(cat file)``.

    The pipe has its writer before the command opens it; a command that opens it twice reads
    in the second opening what the first left, as from a shell's pipe.
    """
    os.mkfifo(fifo)
    # a reader of the test's own keeps the pipe (and what is written into it) alive until the
    # command opens it; it reads nothing until the command is done
    keeper = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = os.open(fifo, os.O_WRONLY)

    def feed() -> None:
        with contextlib.suppress(OSError):
            view = memoryview(data)
            while view:
                view = view[os.write(writer, view) :]
        os.close(writer)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    try:
        yield
    finally:
        # what the command left unread, drained: the writer finishes
        deadline = time.monotonic() + 10
        while thread.is_alive() and time.monotonic() < deadline:
            with contextlib.suppress(BlockingIOError):
                os.read(keeper, 1 << 16)
        thread.join(1)
        os.close(keeper)
        fifo.unlink()


def _stuck(_signal: int, _frame: Any) -> None:
    raise TimeoutError("the command waits for its input forever (it opened a pipe twice?)")


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str], written: Path | None
) -> tuple[int, str, str, Any]:
    # a command that waits on the pipe forever fails the test instead of hanging it
    previous = signal.signal(signal.SIGALRM, _stuck)
    signal.alarm(60)
    try:
        code = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    made: Any = None
    if written is not None and written.exists():
        made = _written(written)
        written.unlink()
    return code, out, err, made


def _written(path: Path) -> Any:
    """What a command wrote: a page's decoded blocks, or the file's bytes."""
    if path.suffix == ".html":
        page = path.read_text(encoding="utf-8")
        return [decode_embedded(page, e) for e in ("trtlog-data", "trtlog-graph", "trtlog-log")]
    return path.read_bytes()


def _named(value: Any, name: str) -> Any:
    """``value`` with the input's name replaced by ``INPUT`` (JSON made text, then back)."""
    if isinstance(value, bytes):
        return value.replace(name.encode(), b"INPUT")
    if isinstance(value, str):
        return value.replace(name, "INPUT")
    return json.loads(json.dumps(value).replace(json.dumps(name)[1:-1], "INPUT"))


Run = tuple[int, str, str, Any]


def _same(a: Run, name_a: str, b: Run, name_b: str) -> None:
    """Exit code, stdout, stderr and the file written: the same but for the input's name."""
    for x, y in zip(a, b, strict=True):
        assert _named(x, name_a) == _named(y, name_b)


@pytest.mark.parametrize(("line", "source", "writes"), CASES, ids=[c[0][:60] for c in CASES])
def test_a_pipe_and_standard_input_read_as_the_file(
    line: str,
    source: Path,
    writes: str | None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    data = source.read_bytes()
    Path(FILE).write_bytes(data)
    out = tmp_path / writes if writes is not None else None

    def argv(name: str) -> list[str]:
        return line.replace("{out}", str(out)).replace("{in}", name).split()

    from_file = _run(argv(FILE), capsys, out)
    assert from_file[0] in (0, 1), from_file[2]  # (lint's exit 1: findings)
    with fed(tmp_path / FIFO, data):
        from_fifo = _run(argv(FIFO), capsys, out)
    _same(from_file, FILE, from_fifo, FIFO)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    from_stdin = _run(argv("-"), capsys, out)
    _same(from_file, FILE, from_stdin, STDIN)


def test_every_command_that_reads_an_input_is_fed_through_a_pipe() -> None:
    tried = {line.split()[0] for line, _, _ in CASES}
    assert tried | WAREHOUSE_ONLY | {"ingest"} == {name for name, _ in COMMANDS}


@pytest.mark.parametrize("name", ["-", FIFO])
def test_ingest_refuses_a_pipe_in_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warehouse finds, groups and re-reads a build's files by their paths, and keeps
    their digests: a pipe has no path, and standard input can be read only once."""
    monkeypatch.chdir(tmp_path)
    context: Callable[[], Any] = (
        (lambda: fed(tmp_path / FIFO, LOG.read_bytes())) if name == FIFO else contextlib.nullcontext
    )
    with context():
        code = main(["ingest", name, "--to", str(tmp_path / "warehouse"), "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "save it to a file first" in err
    assert not (tmp_path / "warehouse").exists()
