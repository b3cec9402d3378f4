"""The command line, in process (main(argv)) and once as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from trtlog.cli import main

YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"


def test_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(YOLO)]) == 0
    out = capsys.readouterr().out
    assert "755 (Original) -> 153" in out
    assert "QuantizeDoubleInputNodes" in out


def test_summary_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(YOLO), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["layer_counts"][0] == {"stage": "Original", "layers": 755, "line": 123}
    assert data["fusions_by_pass"]["QuantizeDoubleInputNodes"] == 6


@pytest.mark.parametrize("fmt", ["table", "json", "jsonl", "csv"])
def test_events_formats(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert main(["events", str(YOLO), "--kind", "fusion", "--format", fmt]) == 0
    out = capsys.readouterr().out
    fusing = YOLO.read_text(encoding="utf-8").count(": Fusing ")
    if fmt == "json":
        assert len(json.loads(out)) == fusing
    elif fmt == "jsonl":
        assert len(out.splitlines()) == fusing
    elif fmt == "csv":
        assert len(out.splitlines()) == fusing + 1
    else:
        assert len(out.splitlines()) == fusing + 2


def test_events_unknown_kind(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events", str(YOLO), "--kind", "nonsense"]) == 2
    assert "unknown event kind 'nonsense'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"\x00\x01\x02binary", "binary"), (b'{"Layers": []}', "JSON")],
)
def test_bad_input_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(content)
    assert main(["summary", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "summary" in capsys.readouterr().err


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(YOLO.read_bytes())))
    assert main(["events", "-", "--kind", "layer_count", "--format", "jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5


def test_entry_point_subprocess() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "trtlog", "summary", str(YOLO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "TensorRT" in result.stdout or "layers" in result.stdout
