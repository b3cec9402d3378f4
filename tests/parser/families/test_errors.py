"""The errors family: error texts that continue on bare lines are one event (formats.md T4).

Python tracebacks and ``terminate called after throwing ...`` have no envelope and stay
``unrecognized``, never swallowed by the error before them.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from tests.parser.family_checks import (
    check_blank_lines_inside,
    check_partitions_and_agrees,
    multi_line_cases,
)
from trtlog.events.errors import ErrorRecorded, InternalError

# Pieces of the family's messages, so that generated text reaches the grammar's corners.
PIECES = st.sampled_from(
    [
        "[05/01/2022-10:00:00] [E] [TRT] ",
        "[F] ",
        "[TensorRT] INTERNAL ERROR: ",
        "Error[",
        "4",
        "]: ",
        "[network.cpp::validate::2789]",
        " Error Code 4: ",
        "Internal Error (",
        "msg)",
        "IBuilder::buildSerializedNetwork: Error Code 4: ",
        "x.cu (177) - Cudnn Error in f: 4 (",
        "Parameter check failed at: a.cpp::f::1, condition: ",
        "10: ",
        "UNSUPPORTED_STATE",
        ": ",
        "Assertion failed: ",
        "Validation failed: ",
        "../a.cpp:98",
        "Aborting...",
        "Internal Error: ",
        "Engine set up failed",
        "Could not load library ",
        "Uncaught exception detected: ",
        "Error opening engine file: ",
        "ITensor::setType(Half) was called on non I/O tensor: ",
        ". This will have no effect unless this tensor is marked as an output.",
        "Calibrator is not being used. Users must provide dynamic range for all tensors that "
        "are not ",
        "Int32.",
        "\n",
        " ",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=40).map("".join)


def _parse(lines: list[str]) -> trtlog.Build:
    return trtlog.parse_text("".join(line + "\n" for line in lines))


def _kinds(build: trtlog.Build) -> list[tuple[str, tuple[int, int]]]:
    return [(e.kind, e.span) for e in build.events]


def test_assertion_with_location_and_abort_is_one_event() -> None:
    build = _parse(
        [
            "[TensorRT] INTERNAL ERROR: Assertion failed: mem != nullptr",
            "../rtSafe/safeRuntime.cpp:98",
            "Aborting...",
            "terminate called after throwing an instance of 'nvinfer1::plugin::CudnnError'",
            "  what():  std::exception",
            "Aborted (core dumped)",
        ]
    )
    assert _kinds(build) == [
        ("internal_error", (1, 3)),
        ("unrecognized", (4, 4)),
        ("unrecognized", (5, 5)),
        ("unrecognized", (6, 6)),
    ]
    error = build.events[0]
    assert isinstance(error, InternalError)
    assert (error.source_file, error.source_line, error.aborting) == (
        "../rtSafe/safeRuntime.cpp",
        98,
        True,
    )
    assert error.severity == "fatal"


def test_python_traceback_after_an_error_stays_foreign() -> None:
    build = _parse(
        [
            "[04/08/2025-23:57:00] [TRT] [E] [defaultAllocator.cpp::deallocate::85] Error Code 1:"
            " Cuda Runtime (invalid argument)",
            "Traceback (most recent call last):",
            '  File "infer.py", line 3, in <module>',
        ]
    )
    assert _kinds(build) == [
        ("trt_error", (1, 1)),
        ("unrecognized", (2, 2)),
        ("unrecognized", (3, 3)),
    ]


def test_error_text_continued_on_a_location_line() -> None:
    build = _parse(
        [
            "[05/01/2022-10:00:00] [E] Error[2]: Assertion status == 0 failed.",
            "plugin/common/checkMacrosPlugin.cpp:90",
            "[05/01/2022-10:00:00] [E] Engine set up failed",
        ]
    )
    assert _kinds(build) == [("error_recorded", (1, 2)), ("app_error", (3, 3))]
    error = build.events[0]
    assert isinstance(error, ErrorRecorded)
    assert error.description == (
        "Assertion status == 0 failed.\nplugin/common/checkMacrosPlugin.cpp:90"
    )


def test_severity_is_data_not_dispatch() -> None:
    # formats.md T13: the same body at another severity is the same kind
    build = _parse(
        [
            "[05/01/2022-10:00:00] [W] [TRT] Calibrator is not being used. Users must provide "
            "dynamic range for all tensors that are not Int32 or Bool.",
            "[TensorRT] VERBOSE: Calibrator is not being used. Users must provide dynamic range "
            "for all tensors that are not Int32.",
        ]
    )
    assert [(e.kind, e.severity) for e in build.events] == [
        ("calibrator_not_used", "warning"),
        ("calibrator_not_used", "verbose"),
    ]


@given(TEXT)
def test_family_text_parses_partitions_and_agrees(text: str) -> None:
    check_partitions_and_agrees(text)


@pytest.mark.parametrize(("lines", "expected"), multi_line_cases("errors"))
def test_blank_lines_inside_a_construct(lines: list[str], expected: dict[str, Any]) -> None:
    check_blank_lines_inside(lines, expected)
