"""Reading input: encodings, line endings, compression, and the errors for bad input."""

from __future__ import annotations

import codecs
import gzip
import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from trtlog.errors import InputError
from trtlog.parser.source import iter_lines, open_lines, split_lines

LOG = (
    "&&&& RUNNING TensorRT.trtexec [TensorRT v8412] # trtexec --onnx=m.onnx\n"
    "[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers\n"
    "[01/10/2024-21:52:53] [V] [TRT] After dupe layer removal: 153 layers\n"
)


def test_split_lines_keeps_every_ending() -> None:
    text = "a\r\nb\rc\n\nd\x1ee\x0cf"
    parts = list(split_lines(text))
    assert parts == ["a\r\n", "b\r", "c\n", "\n", "d\x1ee\x0cf"]
    assert "".join(parts) == text


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_parse_text_round_trips_line_endings(ending: str) -> None:
    text = LOG.replace("\n", ending)
    build = trtlog.parse_text(text)
    assert build.to_text() == text
    assert [e.kind for e in build.events][1:] == ["layer_count", "layer_count"]


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [
        ("utf-8", b""),
        ("utf-8", codecs.BOM_UTF8),
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-16-le", b""),
    ],
)
def test_encodings(tmp_path: Path, encoding: str, bom: bytes) -> None:
    path = tmp_path / "build.log"
    text = LOG + "[I] [TRT] Removing /模型/conv – ünïcödé\r\n"  # noqa: RUF001
    path.write_bytes(bom + text.encode(encoding))
    build = trtlog.parse(path)
    assert build.to_text() == text
    assert build.events[-1].kind == "layer_removed"
    assert build.events[-1].layer == "/模型/conv – ünïcödé"  # noqa: RUF001
    assert build.source.encoding.startswith(encoding[:6])


def test_gzip(tmp_path: Path) -> None:
    path = tmp_path / "build.log.gz"
    path.write_bytes(gzip.compress(LOG.encode()))
    build = trtlog.parse(path)
    assert build.to_text() == LOG
    assert build.source.compressed == "gzip"


def test_truncated_gzip_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "build.log.gz"
    path.write_bytes(gzip.compress((LOG * 2000).encode())[:-50])
    with pytest.raises(InputError, match=r"truncated|compressed"):
        trtlog.parse(path)


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "build.log"
    path.write_bytes(LOG.encode() + b"[I] [TRT] bad \xff byte\n")
    build = trtlog.parse(path)
    assert "\ufffd" in build.to_text()


def test_ansi_colours_are_stripped_for_parsing_and_kept_raw() -> None:
    text = "\x1b[33m[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers\x1b[0m\n"
    build = trtlog.parse_text(text)
    assert build.events[0].kind == "layer_count"
    assert build.to_text() == text


def test_inputs_of_every_kind_give_the_same_events(tmp_path: Path) -> None:
    path = tmp_path / "build.log"
    path.write_text(LOG, encoding="utf-8")
    expected = [e.model_dump() for e in trtlog.parse(path).events]
    for source in (
        str(path),
        io.StringIO(LOG),
        io.BytesIO(LOG.encode()),
        LOG.splitlines(),
        LOG.splitlines(keepends=True),
    ):
        assert [e.model_dump() for e in trtlog.parse(source).events] == expected
    with path.open("rb") as f:
        assert [e.model_dump() for e in trtlog.parse(f).events] == expected


def test_very_long_line() -> None:
    values = " ".join(str(i) for i in range(200_000))
    text = LOG + values + "\n"
    build = trtlog.parse_text(text)
    assert build.to_text() == text
    assert build.events[-1].kind == "unrecognized"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"   \n\n", "whitespace"),
        (b"ftrt\x00\x00\x01\x00binary engine", "serialized TensorRT engine"),
        (b"\x08\x07\x12\x07pytorch\x00\x01", "binary"),
        (b'{"Layers": ["a", "b"]}', "JSON export"),
        (b'[\n  { "count" : 10 }\n, { "name" : "x", "timeMs" : 1 }\n]\n', "JSON export"),
        (b"hello world\nno tensorrt here\n", "none of the 2 lines"),
    ],
)
def test_bad_input_is_an_input_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.log"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        trtlog.parse(path)
    assert str(path) in str(info.value)
    assert info.value.hint


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        trtlog.parse(tmp_path / "nope.log")
    with pytest.raises(InputError, match="folder"):
        trtlog.parse(tmp_path)


def test_log_text_passed_as_path() -> None:
    with pytest.raises(InputError, match="parse_text"):
        trtlog.parse(LOG)


def test_missing_path_with_a_newline_is_no_such_file(tmp_path: Path) -> None:
    # a file's name may hold a newline: a missing one is not "log text"
    missing = tmp_path / "two\nlines.log"
    with pytest.raises(InputError, match="no such file"):
        trtlog.parse(str(missing))
    present = tmp_path / "[I] two\nlines.log"
    present.write_text(LOG)
    assert trtlog.parse(str(present)).line_count == 3


def test_parse_text_empty() -> None:
    with pytest.raises(InputError, match="empty"):
        trtlog.parse_text("")


def test_iter_events_streams(tmp_path: Path) -> None:
    path = tmp_path / "build.log"
    path.write_text(LOG * 1000, encoding="utf-8")
    events = trtlog.iter_events(path)
    first = next(events)
    assert first.span == (1, 1)
    assert sum(1 for _ in events) == 3 * 1000 - 1


def test_iter_events_raises_after_the_last_event_for_a_non_log(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just\nsome\nnotes\n", encoding="utf-8")
    events = trtlog.iter_events(path)
    with pytest.raises(InputError, match="none of the 3 lines"):
        list(events)


def test_open_lines_of_an_iterable_adds_missing_endings() -> None:
    assert list(open_lines(["a", "b\n", "c\r\nd"]).lines) == ["a\n", "b\n", "c\r\n", "d\n"]


@given(
    st.lists(
        st.sampled_from(["a", "bc", "\n", "\r", "\r\n", "\x1c", "\x1d", "\x1e", "\x1f", "\x85"])
        | st.sampled_from(["\x0b", "\x0c", "\u2028", "\u2029", "[V] x"]),
        max_size=40,
    ).map("".join),
    st.integers(min_value=1, max_value=8),
)
def test_iter_lines_splits_like_split_lines(text: str, chunk: int) -> None:
    assert list(iter_lines(text, chunk=chunk)) == list(split_lines(text))
