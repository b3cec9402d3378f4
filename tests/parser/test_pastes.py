"""Pasted TensorRT output is read: app loggers, nvinfer:, Polygraphy, bare error texts."""

from __future__ import annotations

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.errors import InputError
from trtlog.parser.envelope import split_envelope

CASES = FIXTURES / "cases"


@pytest.mark.parametrize(
    ("line", "envelope", "severity", "trt", "message"),
    [
        (
            "19:54:12.555\tERROR\tTRT: 10: Could not find any implementation for node x.",
            "app_logger",
            "error",
            True,
            "10: Could not find any implementation for node x.",
        ),
        ("2024-05-01 19:54:12,555  WARN  [TRT] careful", "app_logger", "warning", True, "careful"),
        ("19:54:12.555\tINFO\tloading the model", "app_logger", "info", False, "loading the model"),
        (
            "nvinfer: Detected invalid timing cache, setup a local cache instead",
            "nvinfer",
            None,
            True,
            "Detected invalid timing cache, setup a local cache instead",
        ),
        (
            "[!] Could not parse ONNX correctly",
            "polygraphy",
            "error",
            False,
            "Could not parse ONNX correctly",
        ),
    ],
)
def test_paste_envelopes(
    line: str, envelope: str, severity: str | None, trt: bool, message: str
) -> None:
    split = split_envelope(line)
    assert (split.envelope, split.severity, split.trt, split.message) == (
        envelope,
        severity,
        trt,
        message,
    )


def test_blank_separated_columns_need_tensorrts_tag() -> None:
    # "19:54:12 INFO starting" is any program's log line, not an application's TensorRT logger
    assert split_envelope("19:54:12 INFO starting the server").envelope is None


def test_an_app_logger_paste_is_read_as_errors() -> None:
    build = trtlog.parse(CASES / "app-logger-tab_no-implementation.txt")
    kinds = [(e.kind, e.severity, getattr(e, "error_code", None)) for e in build.events]
    assert kinds == [("trt_error", "error", 10), ("trt_error", "error", 2)]


def test_bare_error_texts_are_errors() -> None:
    volume = trtlog.parse(CASES / "polygraphy_tensor-volume-exceeds.txt").events
    assert [(e.kind, e.severity) for e in volume] == [
        ("trt_error", "error"),
        ("unrecognized", "error"),
    ]
    assert "tensor volume exceeds (2^31)-1" in volume[0].message  # type: ignore[union-attr]
    myelin = trtlog.parse(CASES / "myelin-exception-without-prefix.txt").events
    assert myelin[0].kind == "internal_error"
    assert myelin[0].message.startswith("MyelinCheckException: gvn.cpp:318")


def test_a_foreign_text_is_still_refused() -> None:
    with pytest.raises(InputError, match="none of the 2 lines is a TensorRT or trtexec message"):
        trtlog.parse_text("hello world\n[note] an unrelated bracket line\n")


def test_an_empty_unknown_option() -> None:
    build = trtlog.parse(CASES / "trt10.3-trtexec_help-then-empty-unknown-options.log")
    notices = build.events_of("pre_option_notice")
    raw = (CASES / "trt10.3-trtexec_help-then-empty-unknown-options.log").read_text()
    assert len(notices) == raw.count("[E] Unknown option:  \n") == 5
    assert {(e.notice, e.flag) for e in notices} == {("unknown_option", "")}  # type: ignore[union-attr]
