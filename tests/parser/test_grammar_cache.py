"""The grammar cache is never a way in (issue 18, item 5, "code execution through the cache").

The cache holds pickles: trtlog loads only files it signed itself, in a folder of the user's
that others cannot write, opened without following links; it writes atomically. Two cold
processes at once, a read-only folder and a folder that cannot be made all still parse.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from trtlog.parser import grammar
from trtlog.parser.families import FAMILIES
from trtlog.parser.family import Family
from trtlog.parser.grammar import build_parser, cache_folder, cache_path

YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
MESSAGE = "ConvReluFusion: Fusing conv1 with relu1"
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def _optimizer() -> Family:
    return next(f for f in FAMILIES if f.name == "optimizer")


class _Planted:
    """A pickle that, when loaded, creates the file ``marker`` (what an attacker would run)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def _cache_env(folder: Path) -> dict[str, str]:
    return {**os.environ, "TRTLOG_GRAMMAR_CACHE": str(folder)}


def _parse_in_subprocess(folder: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys, trtlog; b = trtlog.parse(sys.argv[1]); "
        "print(len(b.events), sum(e.kind == 'unrecognized' for e in b.events))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(YOLO)],
        env=_cache_env(folder),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", str(where))
    return where


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder with every family's files (built once, in this process): its grammar
    and what the keyword table and the compiled matchers read from it."""
    where = tmp_path_factory.mktemp("warm") / "cache"
    where.mkdir(mode=0o700)
    for family in FAMILIES:
        if family.starts:
            lark = build_parser(family, cache=str(where / _name(family)))
            derived = str(where / _name(family)).removesuffix(".lark-cache") + ".derived-cache"
            stamp = grammar._derived_stamp(family)
            grammar._write_signed(derived, stamp, grammar._derive(family, lark).dump())
    return where


def _name(family: Family) -> str:
    """The name of a family's cache file (as :func:`cache_path` makes it)."""
    where = hashlib.sha1(str(grammar.grammar_dir()).encode(), usedforsecurity=False)
    return f"{family.name}-{where.hexdigest()[:10]}.lark-cache"


def _fill(folder: Path, warm: Path) -> None:
    """``folder`` as a copy of the warm cache (modes kept)."""
    shutil.copytree(warm, folder)


def test_cache_round_trip_is_signed(folder: Path) -> None:
    path = cache_path(_optimizer())
    assert path is not None
    fresh = build_parser(_optimizer(), cache=path)
    data = Path(path).read_bytes()
    assert data.startswith(b"trtlog grammar cache 1\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE((folder / "key").stat().st_mode) == 0o600
    loaded = grammar._load_cached(path, grammar._stamp(_optimizer(), False), _optimizer())
    assert loaded is not None
    assert loaded.parse(MESSAGE, start="fusion") == fresh.parse(MESSAGE, start="fusion")
    # a stamp of other grammars, options or versions does not verify: rebuilt, not loaded
    assert grammar._load_cached(path, b"other", _optimizer()) is None


@pytest.mark.parametrize("form", ["trtlog", "lark"])
def test_a_planted_pickle_never_runs(folder: Path, tmp_path: Path, form: str) -> None:
    """The regression of the probe: Lark unpickled the cache before checking its hash."""
    path = cache_path(_optimizer())
    assert path is not None
    build_parser(_optimizer(), cache=path)  # a key and a good file exist
    marker = tmp_path / "pwned"
    evil = pickle.dumps(_Planted(marker))
    if form == "trtlog":  # our header with a signature made without the key
        planted = b"trtlog grammar cache 1\n" + b"0" * 64 + b"\n" + evil
    else:  # Lark's own cache layout: a hash line, then pickles
        planted = b"f" * 64 + b"\n" + evil + evil
    Path(path).write_bytes(planted)
    parser = build_parser(_optimizer(), cache=path)
    assert not marker.exists()
    assert parser.parse(MESSAGE, start="fusion")["first"] == "conv1"  # type: ignore[index]
    assert Path(path).read_bytes() != planted  # rebuilt and replaced by a signed file


def test_a_planted_pickle_never_runs_in_a_trtlog_run(
    folder: Path, warm: Path, tmp_path: Path
) -> None:
    _fill(folder, warm)
    marker = tmp_path / "pwned"
    path = folder / _name(_optimizer())
    path.write_bytes(
        b"trtlog grammar cache 1\n" + b"0" * 64 + b"\n" + pickle.dumps(_Planted(marker))
    )
    done = _parse_in_subprocess(folder)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert path.read_bytes().startswith(b"trtlog grammar cache 1\n")
    assert grammar._load_cached(str(path), grammar._stamp(_optimizer(), False), _optimizer())


def test_a_planted_key_is_not_trusted(folder: Path, tmp_path: Path) -> None:
    """A key others could read (or a link to one) signs nothing: it is replaced."""
    path = cache_path(_optimizer())
    assert path is not None
    folder.mkdir(exist_ok=True)
    known = tmp_path / "known-key"
    known.write_bytes(b"k" * 32)
    os.symlink(known, folder / "key")
    build_parser(_optimizer(), cache=path)
    assert not (folder / "key").is_symlink() and (folder / "key").read_bytes() != b"k" * 32
    assert known.read_bytes() == b"k" * 32
    (folder / "key").unlink()
    (folder / "key").write_bytes(b"k" * 32)
    (folder / "key").chmod(0o644)  # readable by others: anyone could sign
    assert grammar._key(str(folder), create=False) is None


def test_a_symlinked_cache_file_is_replaced_not_followed(folder: Path, tmp_path: Path) -> None:
    path = cache_path(_optimizer())
    assert path is not None
    folder.mkdir(exist_ok=True)
    target = tmp_path / "precious.txt"
    target.write_text("do not overwrite")
    os.symlink(target, path)
    parser = build_parser(_optimizer(), cache=path)
    assert parser.parse(MESSAGE, start="fusion")["first"] == "conv1"  # type: ignore[index]
    assert target.read_text() == "do not overwrite"
    assert not Path(path).is_symlink() and Path(path).is_file()
    assert not list(folder.glob(".*.tmp"))  # no temporary file left behind


def test_a_symlink_to_a_good_cache_file_is_not_loaded(folder: Path, tmp_path: Path) -> None:
    path = cache_path(_optimizer())
    assert path is not None
    build_parser(_optimizer(), cache=path)
    elsewhere = tmp_path / "elsewhere.lark-cache"
    os.replace(path, elsewhere)
    os.symlink(elsewhere, path)
    stamp = grammar._stamp(_optimizer(), False)
    assert grammar._load_cached(path, stamp, _optimizer()) is None  # O_NOFOLLOW


def test_a_fifo_in_the_cache_never_blocks(folder: Path, warm: Path) -> None:
    _fill(folder, warm)
    path = folder / _name(_optimizer())
    path.unlink()
    os.mkfifo(path)
    done = _parse_in_subprocess(folder, timeout=120)  # a blocking open would time out
    assert done.returncode == 0, done.stderr
    assert path.is_file()  # replaced by a cache file


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_folder_others_can_write_is_refused(
    folder: Path, mode: int, caplog: pytest.LogCaptureFixture
) -> None:
    folder.mkdir()
    folder.chmod(mode)
    grammar._WARNED.discard(str(folder))
    with caplog.at_level("WARNING", logger="trtlog.parser.grammar"):
        assert cache_folder() is None
    assert "others may write it" in caplog.text and str(folder) in caplog.text
    assert not any(folder.iterdir())  # nothing written there


def test_a_refused_folder_is_said_once_and_parsing_works(folder: Path, warm: Path) -> None:
    _fill(folder, warm)  # good files, in a folder anyone may write to: not read
    folder.chmod(0o777)
    marker = folder.parent / "pwned"
    (folder / _name(_optimizer())).write_bytes(pickle.dumps(_Planted(marker)))
    done = _parse_in_subprocess(folder)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("not using the grammar cache folder") == 1
    assert not marker.exists()


@pytest.mark.skipif(not ROOT, reason="only root can give a folder to another user")
def test_a_folder_of_another_user_is_refused(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    with caplog.at_level("WARNING", logger="trtlog.parser.grammar"):
        assert cache_folder() is None
    assert "belongs to user id 65534" in caplog.text


def test_two_cold_processes_at_once(folder: Path) -> None:
    """Two processes starting cold build, sign and rename at the same time; both parse, and
    the files left behind verify (one key, no temporary files)."""
    code = (
        "import sys, trtlog; b = trtlog.parse(sys.argv[1]); "
        "print(len(b.events), sum(e.kind == 'unrecognized' for e in b.events))"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(YOLO)],
            env=_cache_env(folder),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    assert outputs[0][0] == outputs[1][0] and outputs[0][0].strip()
    assert not list(folder.glob(".*"))  # no temporary files
    assert len((folder / "key").read_bytes()) == 32
    for family in FAMILIES:
        path = cache_path(family)
        if path is not None and Path(path).exists() and family.starts:
            stamp = grammar._stamp(family, False)
            assert grammar._load_cached(path, stamp, family) is not None, family.name
    warm = _parse_in_subprocess(folder)
    assert warm.returncode == 0 and warm.stdout == outputs[0][0]


def test_a_read_only_folder_is_read(folder: Path, warm: Path) -> None:
    _fill(folder, warm)
    filled = sorted(p.name for p in folder.iterdir())
    folder.chmod(0o500)
    try:
        done = _parse_in_subprocess(folder)
        assert done.returncode == 0, done.stderr
        assert sorted(p.name for p in folder.iterdir()) == filled
        path = str(folder / _name(_optimizer()))
        assert grammar._load_cached(path, grammar._stamp(_optimizer(), False), _optimizer())
    finally:
        folder.chmod(0o700)


def test_a_folder_that_cannot_be_written_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc/self is the user's and cannot be written, even by root: nothing is cached."""
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc on this system")
    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", "/proc/self")
    path = cache_path(_optimizer())
    assert path is not None and path.startswith("/proc/self/")
    parser = build_parser(_optimizer(), cache=path)  # no key can be made: built, not saved
    assert parser.parse(MESSAGE, start="fusion")["first"] == "conv1"  # type: ignore[index]
    assert not Path(path).exists()
    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", "/proc/self/no/such/folder")
    assert cache_folder() is None  # cannot be made: no caching, no error


def test_a_missing_cache_folder_is_made_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "made" / "on" / "demand"
    monkeypatch.setenv("TRTLOG_GRAMMAR_CACHE", str(missing))
    path = cache_path(_optimizer())
    assert path is not None
    build_parser(_optimizer(), cache=path)
    assert stat.S_IMODE(missing.stat().st_mode) == 0o700
    assert len((missing / "key").read_bytes()) == 32 and Path(path).is_file()
