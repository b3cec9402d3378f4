"""Fixes name the flags of the input's TensorRT version (trtlog.findings.advice)."""

from __future__ import annotations

from pathlib import Path

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.findings.advice import detailed_flag_for


@pytest.mark.parametrize(
    ("banner", "flag", "absent"),
    [
        ("[TensorRT v8205]", "--workspace=1024", "--memPoolSize"),
        ("[TensorRT v8601]", "--memPoolSize=workspace:1024", "--workspace="),
        ("", "--memPoolSize=workspace:1024 (TensorRT 8.4+; --workspace=1024 before 8.4)", None),
    ],
)
def test_the_workspace_flag_follows_the_version(
    tmp_path: Path, banner: str, flag: str, absent: str | None
) -> None:
    body = (FIXTURES / "cases" / "trt5-like_tactic-memory-skip.log").read_text()
    log = tmp_path / "build.log"
    head = f"&&&& RUNNING TensorRT.trtexec {banner} # trtexec --onnx=a.onnx\n" if banner else ""
    log.write_text(head + body, encoding="utf-8")
    (f,) = [x for x in trtlog.lint(log) if x.rule == "tactic-memory-skip"]
    assert flag in f.mitigation
    if absent:
        assert absent not in f.mitigation


def test_profiling_verbosity_exists_from_8_2() -> None:
    assert detailed_flag_for((8, 2)) == "--profilingVerbosity=detailed"
    assert "no such flag" in detailed_flag_for((5, 1))
    assert detailed_flag_for(None).endswith("(TensorRT 8.2+)")


def test_a_trt5_log_is_not_told_to_use_profiling_verbosity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trtlog.cli.main import main

    log = tmp_path / "trt5.log"
    log.write_text(
        "&&&& RUNNING TensorRT.trtexec [TensorRT v5105] # trtexec --onnx=a.onnx\n"
        "&&&& PASSED TensorRT.trtexec [TensorRT v5105] # trtexec --onnx=a.onnx\n",
        encoding="utf-8",
    )
    assert main(["layers", str(log)]) == 2
    assert "on TensorRT 8.2+ (this version has no such flag)" in capsys.readouterr().err
