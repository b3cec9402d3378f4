"""``trtlog diff`` and ``trtlog plot diff``, in process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from trtlog.cli import main

LOGS = FIXTURES / "logs"
A = str(LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log")
B = str(LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log")
PA = str(FIXTURES / "layer_info" / "trt8.6.1_tinynet-fp16.profile.json")
PB = str(FIXTURES / "layer_info" / "trt8.6.1_tinynet-qdq-int8.profile.json")
NAMES = str(FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8_layers-names.json")
DETAILED = str(
    FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json"
)


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:4].strip().isdigit()]


def test_diff_text_with_profiles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", A, B, "--profile-a", PA, "--profile-b", PB, "--width", "180"]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    assert [r[5] for r in rows] == list("~~+~~+~+~=~==")
    assert all(len(line) <= 180 for line in out.split("\nCompared")[0].splitlines())
    assert "delta ms" in out
    assert "Fused in A, split in B (1)" in out and "Optimizer passes" in out


def test_diff_only_changed_without_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", A, B, "--only", "changed", "--no-summary", "--column-size", "50"]) == 0
    out = capsys.readouterr().out
    assert len(_rows(out)) == 10 and "Compared" not in out


def test_diff_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", NAMES, DETAILED, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["marker"] for s in data["steps"]] == ["="] * 25
    assert data["summary"]["names_only"] is True


def test_diff_csv_changed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", A, B, "--format", "csv", "--only", "changed"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("step,marker,index_a,index_b,name_a")
    assert len(lines) == 1 + 10


def test_diff_onnx_view(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", A, B, "--view", "onnx", "--only", "changed"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == [
        "node",
        "kind",
        "layer_a",
        "layer_b",
        "precision_a",
        "precision_b",
        "fusion",
    ]
    assert "/stage1/Add" in out and "split" in out
    assert main(["diff", A, B, "--view", "onnx", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == 30 and {r["fusion"] for r in records} == {"same", "split", "only_b"}


def test_diff_summary_view(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", A, B, "--view", "summary"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Compared") and "Precision changes (4): FP16→INT8 x4" in out
    assert main(["diff", A, B, "--view", "summary", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["precision_transitions"] == {"FP16→INT8": 4}
    assert main(["diff", A, B, "--view", "summary", "--format", "csv"]) == 2
    assert "no CSV form" in capsys.readouterr().err


def test_diff_without_layers_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "plain.log"
    log.write_text("[03/12/2024-10:15:02] [I] [TRT] Original: 3 layers\n", encoding="utf-8")
    assert main(["diff", NAMES, str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("trtlog: error: ") and "--dumpLayerInfo" in err
    assert len(err.strip().splitlines()) == 1


def test_plot_diff_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "diff.png"
    code = main(["plot", "diff", A, B, "--profile-a", PA, "--profile-b", PB, "-o", str(out)])
    assert code == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert capsys.readouterr().out.strip() == f"wrote {out}"
    svg = tmp_path / "types.svg"
    assert main(["plot", "diff", A, B, "--by", "type", "-o", str(svg)]) == 0
    assert svg.read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_plot_needs_a_kind(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["plot"])
    assert exc.value.code == 2
    assert "KIND" in capsys.readouterr().err
