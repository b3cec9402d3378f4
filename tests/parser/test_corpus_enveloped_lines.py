"""The corpus's enveloped lines that were ``unrecognized`` are typed events, counted as printed.

Each message below is checked against the raw text of the real corpus file it comes from: as
many events as the raw text holds lines of it, with the fields the line prints.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import CORPUS, corpus_logs, needs_corpus

_ENVELOPE = re.compile(
    r"^(?:\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\] )?"
    r"(?:\[[VIWEF]\] \[TRT\] |\[TRT\] \[[VIWEF]\] |\[[VIWEF]\] |\[TensorRT\] [A-Z ]+: )"
)

# kind -> (a regex of its raw lines, the file holding them)
_CASES = {
    "default_stream_warning": (
        r"Using default stream in (enqueue\w*)\(\) may lead to performance issues",
        "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-3builds-"
        "profilingverbosity.log",
    ),
    "myelin_scales_to_fp32": (
        r" \(foreignNode\) Converting conv (activation|weight) scales to fp32\.$",
        "trt10.16.x_cookbook-mnist-cnn-modelopt-autocast-qat-int8-fp8_workflow-stdout-with-"
        "trt-warnings.log",
    ),
    "onnx_numpy_type_kept": (
        r"Could not convert: (\w+) to a corresponding NumPy type\.",
        "trt10.16.x_cookbook-mnist-cnn-modelopt-autocast-qat-int8-fp8_workflow-stdout-with-"
        "trt-warnings.log",
    ),
    "file_lock_time": (
        r"File (locked|unlocked) in ([\d.e+-]+) seconds\.$",
        "trt8.6.1_mobilenetv2-int8-no-calibration_build-verbose.log",
    ),
    "rtx_note": (
        r"In JIT build, strongly typed is enabled by default\.|"
        r"Compiler backend convergence mode enabled",
        "tensorrt-rtx_cookbook-identity-dynamic-shape_build-verbose-jit-no-envelope.log",
    ),
    "autotune_combination_symbolic": (
        r"Autotuning format combination: (\w+\(\(.*?) -> (.*?)(?: where (.*))? \*{15}$",
        "trt10.16.0_cookbook-identity-dynamic-shape-sm89_build-verbose-symbolic-checks-no-"
        "envelope.log",
    ),
}


@needs_corpus
@pytest.mark.parametrize("kind", sorted(_CASES))
def test_each_message_is_its_event_as_often_as_printed(kind: str) -> None:
    pattern, name = _CASES[kind]
    path = CORPUS / name
    raw = path.read_text(encoding="utf-8").splitlines()
    matches = [m for line in raw if (m := re.search(pattern, line))]
    assert matches, f"{name} holds no such line"
    events: list[Any] = list(trtlog.parse(path).events_of(kind))
    assert len(events) == len(matches)
    first, m = events[0], matches[0]
    if kind == "default_stream_warning":
        assert first.api == m[1]
    elif kind == "myelin_scales_to_fp32":
        assert [e.scales for e in events] == [x[1] for x in matches]
    elif kind == "onnx_numpy_type_kept":
        assert first.onnx_type == m[1]
    elif kind == "file_lock_time":
        got = [(e.phase, e.seconds) for e in events]
        assert got == [(x[1], float(x[2])) for x in matches]
    elif kind == "autotune_combination_symbolic":
        assert (first.inputs, first.outputs, first.symbols) == (m[1], m[2], m[3])


@needs_corpus
def test_no_enveloped_corpus_line_is_unrecognized() -> None:
    """Every corpus line with a TensorRT envelope is a typed event (37 were not; 23 really)."""
    left: list[str] = []
    for path in corpus_logs():
        build = trtlog.parse(path)
        for event in build.events_of("unrecognized"):
            line = build.lines[event.span[0] - 1].rstrip("\r\n")
            if _ENVELOPE.match(line):
                left.append(f"{Path(path).name}:{event.span[0]}: {line[:100]}")
    assert left == []


@needs_corpus
def test_tensorrt_rtx_log_is_named_so() -> None:
    path = CORPUS / _CASES["rtx_note"][1]
    build = trtlog.parse(path)
    assert build.product == "TensorRT-RTX"
    assert build.trt_version is None and build.rtx_version is None  # it prints none
    summary = trtlog.summarize(build)
    assert summary.version_row() == ("TensorRT-RTX", "version not printed")
    assert "TensorRT-RTX          version not printed" in summary.to_text()


@needs_corpus
def test_modelopt_log_takes_the_python_package_version() -> None:
    path = CORPUS / _CASES["onnx_numpy_type_kept"][1]
    raw = path.read_text(encoding="utf-8")
    printed = re.search(r"python package with version ([\d.]+)", raw)
    assert printed is not None
    build = trtlog.parse(path)
    assert build.trt_version == tuple(int(p) for p in printed[1].split("."))
    assert build.version_source == "python_package"
    assert trtlog.summarize(build).version_row() == ("TensorRT", printed[1])


def test_tactic_exception_line_is_typed() -> None:
    text = (
        "[01/20/2025-10:00:05] [W] [TRT] Skipping tactic 0x0000000000000007 due to exception "
        "misaligned address\n"
    )
    event: Any
    (event,) = trtlog.parse_text(text).events
    assert event.kind == "tactic_skipped_exception"
    assert (event.tactic, event.cause, event.exception) == (7, "exception", "misaligned address")
