"""The input opener: the one "log or JSON export?" decision (trtlog.inputs)."""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.errors import InputError
from trtlog.inputs import engine_with_profile, is_json_export, open_input

LOG = FIXTURES / "logs" / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"
LAYERS = FIXTURES / "layer_info" / "trt10.16-like_smallnet-fp16_layers-detailed.json"
PROFILE = FIXTURES / "layer_info" / "trt10.16-like_smallnet-fp16.profile.json"
TIMES = [{"startEnqMs": 1.0, "endEnqMs": 1.5, "startComputeMs": 1.5, "endComputeMs": 2.5,
          "startInMs": 1.0, "endInMs": 1.2, "inMs": 0.2, "computeMs": 1.0, "outMs": 0.1,
          "latencyMs": 1.3, "endToEndMs": 1.6}]  # fmt: skip


def test_each_kind_is_recognised(tmp_path: Path) -> None:
    times = tmp_path / "times.json"
    times.write_text(json.dumps(TIMES), encoding="utf-8")
    found = {p.name: open_input(p) for p in (LOG, LAYERS, PROFILE, times)}
    assert [o.kind for o in found.values()] == ["log", "layers", "profile", "times"]
    build = found[LOG.name].build
    assert build is not None and build.to_text() == LOG.read_text(encoding="utf-8")
    assert found[LAYERS.name].engine == trtlog.load_engine(LAYERS)
    assert found[PROFILE.name].profile == trtlog.load_profile(PROFILE)
    assert found["times.json"].times == trtlog.load_times(times)
    assert {o.source for o in found.values()} == {str(LOG), str(LAYERS), str(PROFILE), str(times)}


def test_gzip_utf16_bytes_and_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packed = tmp_path / "layers.json.gz"
    packed.write_bytes(gzip.compress(LAYERS.read_bytes()))
    assert open_input(packed).kind == "layers"
    wide = tmp_path / "profile.json"  # as Windows PowerShell writes a redirected file
    wide.write_bytes(PROFILE.read_text(encoding="utf-8").encode("utf-16"))
    assert is_json_export(wide) and open_input(wide).kind == "profile"
    assert open_input(LOG.read_bytes()).kind == "log"
    assert open_input(LAYERS.read_bytes()).source == "<bytes>"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PROFILE.read_bytes())))
    opened = open_input("-")
    assert (opened.kind, opened.source) == ("profile", "<stdin>")


def test_a_json_export_is_told_by_its_first_bytes(tmp_path: Path) -> None:
    cases = {
        "a.json": ('[\n  {"count": 10}', True),
        "b.json": ('{"Layers": []}', True),
        "c.log": ("[04/18/2025-03:51:19] [V] [TRT] Layers:", False),
        "d.log": ("&&&& RUNNING TensorRT.trtexec", False),
    }
    for name, (text, expected) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert is_json_export(tmp_path / name) is expected, name
    (tmp_path / "e.json.gz").write_bytes(gzip.compress(b'\xef\xbb\xbf{"Layers": []}'))
    assert is_json_export(tmp_path / "e.json.gz")


def test_objects_are_taken_as_they_are() -> None:
    build = trtlog.parse(LOG)
    engine = trtlog.load_engine(LAYERS)
    assert open_input(build).build is build
    assert open_input(engine).engine is engine
    with pytest.raises(TypeError, match="takes a Build, an Engine or a path"):
        open_input(42)  # type: ignore[arg-type]


def test_a_kind_not_wanted_says_what_the_file_is() -> None:
    with pytest.raises(InputError, match=r"this is a per-layer profile \(--exportProfile\)"):
        open_input(PROFILE, want=("log", "layers"))
    # only a log wanted: the log reader refuses the JSON itself
    with pytest.raises(InputError, match="looks like a JSON export"):
        open_input(LAYERS, want={"log"})


def test_a_missing_file_is_reported_by_the_reader() -> None:
    with pytest.raises(InputError, match="no such file"):
        open_input("no/such/build.log")


def test_progress_is_reported_while_a_log_is_parsed() -> None:
    seen: list[tuple[int, int]] = []
    open_input(LOG, progress=lambda done, total: seen.append((done, total)))
    size = len(LOG.read_text(encoding="utf-8"))
    assert seen and all(total == size and 0 < done <= size for done, total in seen)


def test_engine_with_profile_explicit_or_the_logs_own_table() -> None:
    build = trtlog.parse(LOG)
    engine = build.engine
    assert engine is not None and engine.profile is not None  # Build.engine merges the table
    bare = engine.model_copy(update={"profile": None})
    from_log = engine_with_profile(bare, build)
    assert from_log is not None and from_log.profile is not None
    assert "--dumpProfile" in from_log.profile.source
    given = engine_with_profile(bare, build, PROFILE)
    assert given is not None and given.profile == trtlog.load_profile(PROFILE)
    assert engine_with_profile(None, build, PROFILE) is None


def test_a_command_reads_a_log_as_trtlog_parse_does() -> None:
    """Every command's log is ``trtlog.parse``'s: the lazy store, whatever its size."""
    from trtlog.buildlog.model import SourceMeta
    from trtlog.buildlog.parsing import build_of_text
    from trtlog.parser.source import iter_lines
    from trtlog.summary import summarize

    text = LOG.read_text(encoding="utf-8")
    seen: list[tuple[int, int]] = []
    read = open_input(LOG, progress=lambda done, total: seen.append((done, total))).build
    assert read is not None
    assert read._lazy is not None  # nothing built yet: the store answers by kind
    assert seen == [(len(text), len(text))]  # the scanner reports after each piece (one here)
    parsed = trtlog.parse(LOG)
    eager = build_of_text(text, SourceMeta(name=str(LOG)), strict=False, lines=iter_lines(text))
    assert [e.model_dump() for e in read.events] == [e.model_dump() for e in parsed.events]
    assert [e.model_dump() for e in read.events] == [e.model_dump() for e in eager.events]
    assert summarize(read).to_text() == summarize(parsed).to_text()
    assert read.to_text() == text


def test_the_scanner_reports_its_progress_piece_by_piece() -> None:
    from trtlog.buildlog.model import SourceMeta
    from trtlog.buildlog.parsing import build_of_text

    text = LOG.read_text(encoding="utf-8")
    seen: list[tuple[int, int]] = []
    build_of_text(
        text,
        SourceMeta(name="t"),
        strict=False,
        piece=len(text) // 5,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert len(seen) >= 5 and all(total == len(text) for _, total in seen)
    done = [d for d, _ in seen]
    assert done == sorted(set(done)) and done[-1] == len(text)
    # each piece ends at a line end
    assert all(text[d - 1] == "\n" for d in done)


DUMP = FIXTURES / "cases" / "inspector-per-layer-dump.txt"


def test_a_layer_dump_printed_piece_by_piece_is_read_by_every_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = DUMP.read_text(encoding="utf-8")
    names = [json.loads(line)["Name"] for line in raw.splitlines() if line.startswith("{")]
    opened = open_input(DUMP, want=("log", "layers"))
    assert opened.kind == "layers"
    assert [x.name for x in opened.engine.layers] == names  # type: ignore[union-attr]
    assert [x.name for x in trtlog.load_engine(DUMP).layers] == names
    assert trtlog.load_engine(DUMP.read_bytes()).layers == opened.engine.layers  # type: ignore[union-attr]
    assert trtlog.lint(DUMP) == trtlog.lint(opened.engine)
    from trtlog.cli.main import main

    page = tmp_path / "dump.html"
    assert main(["report", str(DUMP), "-o", str(page)]) == 0
    assert names[0] in page.read_text(encoding="utf-8")
    assert main(["ingest", "--to", str(tmp_path / "wh"), str(DUMP)]) == 0
    capsys.readouterr()
    assert main(["query", str(tmp_path / "wh"), "select count(*) as n from layers"]) == 0
    assert capsys.readouterr().out.split()[-1] == str(len(names))


def test_a_layer_dump_given_to_a_command_that_needs_a_log_says_what_it_is() -> None:
    with pytest.raises(InputError, match="holds 3 layer-information objects printed one by one"):
        open_input(DUMP, want={"log"})
