"""Real faults of the machine: each is one error line naming the path, exit 2, no partial file.

The faults are made for real where the machine allows it, and the test skips cleanly where it
does not: a full file system (a 64 KiB tmpfs, filled), a read-only one (a tmpfs mounted
``ro``), a folder that cannot exist (``/dev/null/x``), ``/dev/full`` as standard output, a
named pipe as the output, a pids limit (a cgroup of the ``pids`` controller) under which no
thread or process can start. Mounting and cgroups need root: elsewhere those tests skip.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CORPUS, FIXTURES, ROOT, needs_corpus
from trtlog.cli import main

LOG = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
LAYERS = FIXTURES / "layer_info" / "trt10.16-like_smallnet-fp16_layers-detailed.json"

#: What a fault's message must look like: one line, trtlog's prefix, no Python traceback.
ONE_LINE = re.compile(r"\Atrtlog: error: [^\n]+\n\Z")


def _one_error(err: str) -> str:
    """The one error line of ``err`` (warnings may come before it); fails on a traceback."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines(keepends=True) if "trtlog: error:" in line]
    assert len(lines) == 1, err
    assert ONE_LINE.match(lines[0]), err
    return lines[0]


def _leftovers(folder: Path) -> list[str]:
    """Temporary files a write left behind (there must be none)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".trtlog-"))


@contextlib.contextmanager
def _mounted(folder: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted on ``folder`` with ``options``; the test skips where mount is refused."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path) -> None:
    """Fill the file system of ``folder`` (a file ``filler`` takes what is left)."""
    with open(folder / "filler", "wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 4096)


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a file system with no space left (a 64 KiB tmpfs, filled)."""
    with _mounted(tmp_path / "full", "size=64k,mode=0777") as folder:
        _fill(folder)
        yield folder


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A folder on a read-only file system (a tmpfs mounted ``ro``)."""
    with _mounted(tmp_path / "ro", "ro,size=64k") as folder:
        yield folder


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- a full disk ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["report", str(LOG), "-o", "{out}/page.html"],
        ["graph", str(LOG), "-o", "{out}/page.dot"],
        ["graph", str(LOG), "-o", "{out}/page.graphml"],
        ["plot", "layer-counts", str(LOG), "-o", "{out}/page.png"],
    ],
    ids=["report", "graph-dot", "graph-graphml", "plot"],
)
def test_a_full_disk_is_one_line_and_no_file(
    argv: list[str], full_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.format(out=full_disk) for a in argv]
    target = Path(argv[argv.index("-o") + 1])
    code, _out, err = _run(argv, capsys)
    line = _one_error(err)
    assert code == 2
    assert str(target) in line and "no space left on the device" in line
    assert not target.exists()
    assert _leftovers(full_disk) == []


def test_a_failed_write_keeps_the_old_file(
    full_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (full_disk / "filler").unlink()
    page = full_disk / "page.dot"
    page.write_text("the old graph\n")
    _fill(full_disk)
    code, _out, err = _run(["graph", str(LOG), "-o", str(page)], capsys)
    assert code == 2 and "no space left" in _one_error(err)
    assert page.read_text() == "the old graph\n"


def test_query_output_on_a_full_disk(
    warehouse: Path, full_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for fmt, name in (("csv", "rows.csv"), ("parquet", "rows.parquet"), ("json", "rows.json")):
        target = full_disk / name
        argv = ["query", str(warehouse), "SELECT * FROM layers", "--format", fmt, "-o", str(target)]
        code, _out, err = _run(argv, capsys)
        line = _one_error(err)
        assert code == 2 and str(target) in line and "no space left" in line, fmt
        assert not target.exists()
    assert _leftovers(full_disk) == []


# -- read-only, missing and impossible folders ----------------------------------------------------


def test_a_read_only_folder(read_only: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = read_only / "page.html"
    code, _out, err = _run(["report", str(LOG), "-o", str(target)], capsys)
    line = _one_error(err)
    assert code == 2 and str(target) in line and "read-only" in line
    assert not target.exists()


def test_ingest_into_a_read_only_warehouse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "wh"
    with _mounted(folder, "size=8m,mode=0777"):
        assert main(["ingest", str(LOG), "--to", str(folder), "--jobs", "1"]) == 0
        capsys.readouterr()
        remount = ["mount", "-o", "remount,ro", str(folder)]
        if subprocess.run(remount, capture_output=True, check=False).returncode != 0:
            pytest.skip("cannot remount the tmpfs read-only")
        parts = sorted(os.listdir(folder / "parts"))
        code, _out, err = _run(["ingest", str(LAYERS), "--to", str(folder)], capsys)
        line = _one_error(err)
        assert code == 2 and str(folder) in line and "read-only" in line
        assert sorted(os.listdir(folder / "parts")) == parts


def test_ingest_on_a_full_disk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The disk fills up before the next ingest writes its part: one line, nothing staged."""
    folder = tmp_path / "disk"
    with _mounted(folder, "size=2m,mode=0777"):
        root = folder / "wh"
        assert main(["ingest", str(LOG), "--to", str(root), "--jobs", "1"]) == 0
        capsys.readouterr()
        parts = sorted(os.listdir(root / "parts"))
        _fill(folder)
        code, _out, err = _run(["ingest", str(LAYERS), "--to", str(root)], capsys)
        line = _one_error(err)
        assert code == 2 and str(root) in line and "no space left" in line
        assert sorted(os.listdir(root / "parts")) == parts
        assert os.listdir(root / ".staging") == []


@pytest.mark.parametrize("to", ["/dev/null/warehouse", "{file}"], ids=["under-a-device", "a-file"])
def test_a_warehouse_folder_that_cannot_be(
    to: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("not a folder")
    to = to.format(file=tmp_path / "file")
    code, _out, err = _run(["ingest", str(LOG), "--to", to], capsys)
    line = _one_error(err)
    assert code == 2 and to in line


def test_query_into_a_missing_folder(
    warehouse: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "nonexistent" / "rows.parquet"
    argv = ["query", str(warehouse), "SELECT 1 AS x", "--format", "parquet", "-o", str(target)]
    code, _out, err = _run(argv, capsys)
    line = _one_error(err)
    assert code == 2 and str(target) in line and "folder does not exist" in line
    assert not target.parent.exists()


# -- standard output and pipes --------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("argv", [["summary"], ["events", "--format", "csv"], ["lint"]])
def test_standard_output_on_dev_full(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "trtlog", argv[0], str(LOG), *argv[1:]],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "trtlog: error: cannot write the standard output: no space left on the device\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_as_the_output_stays_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-o FIFO`` streams into the pipe (no temporary file can replace it)."""
    fifo = tmp_path / "graph.dot"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    code, _out, _err = _run(["graph", str(LOG), "-o", str(fifo)], capsys)
    reader.join(timeout=30)
    assert code == 0
    assert got and got[0].startswith(b"digraph merge {")
    assert fifo.is_fifo()
    assert _leftovers(tmp_path) == []


# -- no thread can start -----------------------------------------------------------------------


@contextlib.contextmanager
def _pids_limit(limit: int) -> Iterator[Path]:
    """A cgroup (v1 ``pids`` controller) holding at most ``limit`` tasks; skips without one."""
    base = Path("/sys/fs/cgroup/pids")
    group = base / f"trtlog-test-{os.getpid()}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(str(limit))
    except OSError as exc:
        pytest.skip(f"cannot make a pids cgroup here ({exc.strerror})")
    try:
        yield group
    finally:
        with contextlib.suppress(OSError):
            group.rmdir()


def _limited(group: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    def enter() -> None:
        (group / "cgroup.procs").write_text(str(os.getpid()))

    return subprocess.run(
        [sys.executable, "-m", "trtlog", *argv],
        preexec_fn=enter,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )


def test_report_needs_no_thread(tmp_path: Path) -> None:
    """Under a limit of one task (no thread, no process can start) a report is written."""
    page = tmp_path / "page.html"
    with _pids_limit(1) as group:
        done = _limited(group, ["report", str(LOG), "-o", str(page)])
    assert done.returncode == 0, done.stderr
    assert page.stat().st_size > 0


def test_ingest_without_processes_is_one_line(tmp_path: Path) -> None:
    """``--jobs 2`` where no worker process can start: one line, exit 2, nothing committed."""
    pytest.importorskip("distributed")
    folder = tmp_path / "wh"
    with _pids_limit(3) as group:
        done = _limited(
            group, ["ingest", str(LOG), str(LAYERS), "--to", str(folder), "--jobs", "2"]
        )
    line = _one_error(done.stderr)
    assert done.returncode == 2
    assert "cannot start a local Dask cluster of 2 worker(s)" in line and "--jobs 1" in line
    assert not list((folder / "parts").iterdir())


# -- names that are not text to print -------------------------------------------------------


def test_a_control_character_in_a_failed_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    bad = folder / "bell\a-esc\x1b[31m.log"
    bad.write_text("")  # empty: cannot be ingested
    code, _out, err = _run(["ingest", str(folder), "--to", str(tmp_path / "wh")], capsys)
    assert code == 1
    assert "\x1b" not in err and "\a" not in err
    assert "bell\\x07-esc\\x1b[31m.log" in err


def test_a_path_with_a_newline_is_a_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "two\nlines.log"
    odd.write_bytes(LOG.read_bytes())
    code, out, err = _run(["summary", str(odd), "--format", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["source"].endswith("two\nlines.log")


def test_a_dot_node_of_any_length(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A node name of 20,000 characters: no quoted DOT string reaches Graphviz's limit."""
    text = LOG.read_text()
    name = re.search(r"Parsing node: (\S+) \[", text)
    assert name is not None
    long = name.group(1) + "/" + "x" * 20_000
    log = tmp_path / "long.log"
    log.write_text(text.replace(name.group(1), long))
    dot = tmp_path / "g.dot"
    code, _out, err = _run(["graph", str(log), "-o", str(dot)], capsys)
    assert code == 0, err
    strings = re.findall(r'"(?:[^"\\]|\\.)*"', dot.read_text())
    assert max(map(len, strings)) < 16_000
    assert any("more characters)" in s for s in strings)
    graphml = tmp_path / "g.graphml"
    assert main(["graph", str(log), "-o", str(graphml)]) == 0
    assert long in graphml.read_text()  # (the other formats keep the name whole)


def test_a_name_of_thousands_of_parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A layer (and its ONNX node) named with 20,000 ``/``-parts: the report is written, its
    module tree 64 levels deep, the last module named by the rest of the path."""
    from trtlog.html.page import decode_embedded
    from trtlog.names import MODULE_DEPTH

    data = json.loads(LAYERS.read_text())
    deep_name = "".join(f"/m{i}" for i in range(20_000)) + "/Conv"
    data["Layers"][1]["Name"] = deep_name
    data["Layers"][1]["Metadata"] = f"[ONNX Layer: {deep_name}]"
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps(data))
    page = tmp_path / "deep.html"
    code, _out, err = _run(["report", str(deep), "-o", str(page)], capsys)
    assert code == 0, err
    payload = decode_embedded(page.read_text(), "trtlog-data")
    assert isinstance(payload, dict)
    strings = payload["S"]
    deepest, stack = (0, payload["modules"]), [(0, payload["modules"])]
    while stack:  # (the tree's deepest node, without recursion)
        depth, node = stack.pop()
        deepest = max(deepest, (depth, node), key=lambda pair: pair[0])
        stack.extend((depth + 1, kid) for kid in node[7])
    assert deepest[0] == MODULE_DEPTH
    assert strings[deepest[1][0]] == "/".join(f"m{i}" for i in range(63, 20_000))


def test_write_errors_name_their_errno() -> None:
    from trtlog._files import output_error

    assert "no space left" in str(output_error(OSError(errno.ENOSPC, "x"), "p"))
    assert "read-only" in str(output_error(OSError(errno.EROFS, "x"), "p"))


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("duckdb")
    from trtlog.warehouse.driver import ingest

    root = tmp_path_factory.mktemp("faults") / "wh"
    ingest([str(LOG), str(LAYERS)], to=root, jobs=1)
    return root


# -- big inputs ---------------------------------------------------------------------------------

BIG_LOG = CORPUS / "trt8.2.3_centerpoint-rpn-centerhead-fp16_build-verbose.log"


@needs_corpus
def test_a_big_logs_page_holds_its_first_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over the page's log limit (set to 200,000 characters here), the page holds the first
    whole lines within it and every cited line, and says what it leaves out."""
    from trtlog.html import page as page_module
    from trtlog.html.page import decode_embedded

    monkeypatch.setattr(page_module, "LOG_PAGE_CHARS", 200_000)
    raw = BIG_LOG.read_bytes().decode("utf-8")
    assert len(raw) > 200_000
    out = tmp_path / "big.html"
    code, _out, err = _run(["report", str(BIG_LOG), "-o", str(out)], capsys)
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    held = decode_embedded(text, "trtlog-log")
    meta = decode_embedded(text, "trtlog-data")["log"]
    lines = re.findall(r"[^\n]*\n", raw)  # the raw file's lines
    kept = len(re.findall(r"[^\n]*\n", raw[:200_000]))  # whole lines within the limit
    assert held == "".join(lines[:kept])
    cut = meta["cut"]
    assert cut["lines"] == kept and cut["allLines"] == len(lines) == meta["lines"]
    assert f"the first {kept:,} of the log's {len(lines):,} lines" in cut["note"]
    cited, texts = meta["excerpt"]
    assert [lines[n - 1].rstrip("\r\n") for n in cited] == texts
    assert max(cited) > kept  # cited lines past the cut are still on the page


def test_a_json_export_over_the_limit_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import trtlog
    from trtlog.errors import InputError

    profile = FIXTURES / "layer_info" / "trt10.16-like_smallnet-fp16.profile.json"
    size = profile.stat().st_size
    monkeypatch.setenv("TRTLOG_MAX_JSON_BYTES", str(size - 1))
    with pytest.raises(InputError, match=f"has {size:,} bytes, more than the {size - 1:,}"):
        trtlog.load_profile(profile)
    monkeypatch.setenv("TRTLOG_MAX_JSON_BYTES", str(size))
    assert len(trtlog.load_profile(profile).records) > 0
    layers = LAYERS.stat().st_size
    monkeypatch.setenv("TRTLOG_MAX_JSON_BYTES", str(layers - 1))
    code, _out, err = _run(["layers", str(LAYERS)], capsys)
    line = _one_error(err)
    assert code == 2 and str(LAYERS) in line and "TRTLOG_MAX_JSON_BYTES" in line
