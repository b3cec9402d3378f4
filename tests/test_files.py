"""Files trtlog cannot read give one line and exit 2, never a traceback or a hang (5).

A folder, a FIFO (with and without a writer), a missing file, a file without read
permission, a file that grows while it is read, and gzip bombs (by size and by ratio), through
the command line and the library.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog import _files
from trtlog._files import BoundedGzip, gunzip, open_binary
from trtlog.cli import main
from trtlog.errors import InputError
from trtlog.inputs import open_input

YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
LAYERS = FIXTURES / "layer_info" / "trt8.2-like_vit-attention-fp16_layers-detailed.json"
COMMANDS = [["summary"], ["events"], ["layers"], ["lint"], ["explain"]]


def _one_error_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("trtlog: error: "), err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    err = _one_error_line(capsys, [*command, str(tmp_path)])
    assert "is a folder" in err or "this is a folder" in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    assert "no such file" in _one_error_line(capsys, [*command, str(tmp_path / "x.log")])


def _unreadable(tmp_path: Path) -> Path:
    """A file the running user may not read: chmod 000 for a user, a write-only /proc file
    for root (root reads any file chmod says it may not)."""
    if os.geteuid() != 0:
        path = tmp_path / "secret.log"
        path.write_bytes(YOLO.read_bytes())
        path.chmod(0)
        return path
    for candidate in ("/proc/sys/vm/drop_caches", "/proc/sys/vm/compact_memory"):
        try:
            open(candidate, "rb").close()
        except PermissionError:
            return Path(candidate)
        except OSError:
            continue
    pytest.skip("running as root, and no file here that even root may not read")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_file_without_read_permission(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    err = _one_error_line(capsys, [*command, str(_unreadable(tmp_path))])
    assert "permission denied" in err


def test_library_errors_for_files(tmp_path: Path) -> None:
    for call in (trtlog.parse, trtlog.load_engine, open_input):
        with pytest.raises(InputError, match="this is a folder"):
            call(tmp_path)
        with pytest.raises(InputError, match="no such file"):
            call(tmp_path / "missing")
        with pytest.raises(InputError, match="permission denied"):
            call(_unreadable(tmp_path))


def _run_cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trtlog", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_fifo_without_a_writer_never_blocks(tmp_path: Path) -> None:
    """The probe: the CLI blocked forever on a FIFO nobody writes to."""
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    for command in ("summary", "lint"):
        done = _run_cli(command, str(fifo), timeout=60)  # a blocking open would time out
        assert done.returncode == 2, done.stderr
        assert "the input is empty" in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
@pytest.mark.parametrize("what", ["log", "json"])
def test_a_fifo_with_a_writer_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    """``trtlog summary <(zcat build.log.gz)``: a pipe is read once, as what it holds."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    source = YOLO if what == "log" else LAYERS
    command = "summary" if what == "log" else "layers"
    writer = subprocess.Popen(["sh", "-c", f'cat "{source}" > "{fifo}"'])
    try:
        done = _run_cli(command, str(fifo), timeout=120)
    finally:
        writer.wait(timeout=60)
    assert done.returncode == 0, done.stderr
    assert main([command, str(source)]) == 0
    assert done.stdout.replace(str(fifo), str(source)) == capsys.readouterr().out


def test_a_file_that_grows_while_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """trtexec still writing the log: refused, not read as a build that stopped midway."""
    path = tmp_path / "running.log"
    path.write_bytes(YOLO.read_bytes())
    from trtlog.parser import source

    def open_then_grow(name: str) -> tuple[object, int | None]:
        opened = open_binary(name)
        with open(name, "ab") as f:  # the writer appends after trtlog opened the file
            f.write(b"[11/26/2026-10:00:00] [V] [TRT] one more line\n")
        return opened

    monkeypatch.setattr(source, "open_binary", open_then_grow)
    err = _one_error_line(capsys, ["summary", str(path)])
    assert "the file grew while trtlog read it" in err and "still writing" in err


def test_the_snapshot_reads_what_was_there(tmp_path: Path) -> None:
    path = tmp_path / "a.log"
    path.write_bytes(b"x" * 100_000)
    stream, size = open_binary(str(path))
    with stream:
        assert size == 100_000 and stream.read(10) == b"x" * 10
        with open(path, "ab") as f:
            f.write(b"more")
        with pytest.raises(InputError, match="grew"):
            stream.read()
    stream, _ = open_binary(str(path))
    with stream:
        assert len(stream.read()) == 100_004  # a file that stays the same reads whole


def _bomb(size: int) -> bytes:
    """Gzip of ``size`` bytes of log-like text, made a piece at a time (about 1000:1)."""
    piece = b"[I] " + b"a" * 1019 + b"\n"
    pack = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = piece * 1024
    out = [pack.compress(chunk) for _ in range(size // len(chunk))]
    out.append(pack.flush())
    return b"".join(out)


def test_a_gzip_bomb_by_ratio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bomb = tmp_path / "bomb.log.gz"
    bomb.write_bytes(_bomb(_files.RATIO_CHECK_AFTER + (8 << 20)))
    assert bomb.stat().st_size < (1 << 20)
    err = _one_error_line(capsys, ["summary", str(bomb)])
    assert f"expands more than {_files.MAX_GUNZIP_RATIO}x" in err and "gzip bomb" in err
    json_bomb = tmp_path / "bomb.json.gz"
    json_bomb.write_bytes(
        gzip.compress(b'{"Layers": ["' + b"a" * (_files.RATIO_CHECK_AFTER + 1024) + b'"]}')
    )
    with pytest.raises(InputError, match="gzip bomb"):
        trtlog.load_engine(json_bomb)


def test_a_gzip_bomb_by_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    gz = tmp_path / "yolo.log.gz"
    gz.write_bytes(gzip.compress(YOLO.read_bytes()))
    assert main(["summary", str(gz)]) == 0  # within the limits
    capsys.readouterr()
    monkeypatch.setenv("TRTLOG_MAX_GUNZIP_BYTES", "10000")
    err = _one_error_line(capsys, ["summary", str(gz)])
    assert "expands past 10,000 bytes" in err and "TRTLOG_MAX_GUNZIP_BYTES" in err
    with pytest.raises(InputError, match="expands past 10,000 bytes"):
        gunzip(gz.read_bytes(), "x")


def test_bounded_gzip_reads_in_pieces() -> None:
    data = YOLO.read_bytes()
    stream = BoundedGzip(io.BytesIO(gzip.compress(data)), "yolo.log.gz")
    pieces = []
    while piece := stream.read(4096):
        assert len(piece) <= 4096
        pieces.append(piece)
    assert b"".join(pieces) == data
    assert stream.produced == len(data)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
def test_devices_are_refused_from_their_first_bytes() -> None:
    """/dev/zero never ends: it is refused as binary from its first bytes, not read whole."""
    for command in ("layers", "summary"):
        done = _run_cli(command, "/dev/zero", timeout=60)
        assert done.returncode == 2 and "binary file" in done.stderr, done.stderr
    done = _run_cli("summary", "/dev/null", timeout=60)
    assert done.returncode == 2 and "the input is empty" in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_diff_reads_pipes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``trtlog diff <(zcat a.json.gz) <(zcat b.log.gz)``: each pipe read once, as what it is."""
    log = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
    pipes = {tmp_path / "a": LAYERS, tmp_path / "b": log}
    writers = []
    for fifo, source in pipes.items():
        os.mkfifo(fifo)
        writers.append(subprocess.Popen(["sh", "-c", f'cat "{source}" > "{fifo}"']))
    try:
        done = _run_cli("diff", *map(str, pipes), "--view", "summary", timeout=120)
    finally:
        for writer in writers:
            writer.wait(timeout=60)
    assert done.returncode == 0, done.stderr
    assert main(["diff", str(LAYERS), str(log), "--view", "summary"]) == 0
    expected = capsys.readouterr().out
    for fifo, source in pipes.items():
        expected = expected.replace(str(source), str(fifo))
    assert done.stdout == expected
