"""Envelope splitting (formats.md §1, traps T3, T6, T10, T12)."""

from __future__ import annotations

import pytest

from trtlog.parser.envelope import split_envelope, strip_ansi


@pytest.mark.parametrize(
    ("line", "envelope", "severity", "trt", "prefix", "message"),
    [
        ("[04/08/2025-23:14:00] [I] [TRT] x y", "trtexec", "info", True, None, "x y"),
        (
            "[04/08/2025-23:13:59] [I] === Model Options ===",
            "trtexec",
            "info",
            False,
            None,
            "=== Model Options ===",
        ),
        ("[04/08/2025-23:13:59] [I]", "trtexec", "info", False, None, ""),
        (
            "[05/09/2022-06:27:28] [TRT] [V] Engine Layer Information:",
            "python",
            "verbose",
            True,
            None,
            "Engine Layer Information:",
        ),
        (
            "[TensorRT] VERBOSE: Tactic: 1002 time 0.129024",
            "python_legacy",
            "verbose",
            True,
            None,
            "Tactic: 1002 time 0.129024",
        ),
        ("[TensorRT] INTERNAL ERROR: boom", "python_legacy", "fatal", True, None, "boom"),
        (
            "[V] Applying generic optimizations",
            "severity",
            "verbose",
            False,
            None,
            "Applying generic optimizations",
        ),
        ("[W] [TRT] Default DLA", "severity", "warning", True, None, "Default DLA"),
        ("[TRT]    Retargeting a to b", "jetson", None, True, None, "Retargeting a to b"),
        ("WARNING: [TRT]: Default DLA", "deepstream", "warning", True, None, "Default DLA"),
        (
            "[INFO] After vertical fusions: 2 layers",
            "bracket_word",
            "info",
            False,
            None,
            "After vertical fusions: 2 layers",
        ),
        ("[05/03/2025-10:30:43] [TRT-LLM] [I] Total", "trtllm", "info", False, None, "Total"),
        (
            "INFO:torch_tensorrt [TensorRT Conversion Context]:[MemUsageChange] Init",
            "torch_tensorrt",
            "info",
            True,
            None,
            "[MemUsageChange] Init",
        ),
        (
            "[mmros_detection2d_exe-1] [I] [TRT] Total Activation Memory: 76320256 bytes",
            "severity",
            "info",
            True,
            "[mmros_detection2d_exe-1] ",
            "Total Activation Memory: 76320256 bytes",
        ),
        (
            "torch2trt_1  | [02/26/2022-09:33:13] [TRT] [I] [MemUsageChange] x",
            "python",
            "info",
            True,
            "torch2trt_1  | ",
            "[MemUsageChange] x",
        ),
        (
            "[01/12/2021-17:34:24] [01/12/2021-17:34:24] [I] [TRT] Some tactics",
            "trtexec",
            "info",
            True,
            None,
            "Some tactics",
        ),
        ("[07/29/2021-19:44:10] ", "timestamp", None, False, None, ""),
        (
            "[[01/10/2024-21:52:50] [I] === Model Options ===",
            "trtexec",
            "info",
            False,
            "[",
            "=== Model Options ===",
        ),
        (
            "> [I] [TRT] Parameter193:Constant",
            "severity",
            "info",
            True,
            "> ",
            "Parameter193:Constant",
        ),
        ("    [01/10/2024-21:52:52] [V] [TRT] x", "trtexec", "verbose", True, "    ", "x"),
        (
            "Segmentation fault (core dumped)",
            None,
            None,
            False,
            None,
            "Segmentation fault (core dumped)",
        ),
        ("Layer(Myelin): x, Tactic: 0x0", None, None, False, None, "Layer(Myelin): x, Tactic: 0x0"),
    ],
)
def test_split_envelope(
    line: str,
    envelope: str | None,
    severity: str | None,
    trt: bool,
    prefix: str | None,
    message: str,
) -> None:
    split = split_envelope(line)
    assert (split.envelope, split.severity, split.trt, split.prefix, split.message) == (
        envelope,
        severity,
        trt,
        prefix,
        message,
    )


def test_timestamp_is_kept() -> None:
    assert split_envelope("[01/10/2024-21:52:52] [V] x").timestamp == "01/10/2024-21:52:52"
    stacked = "[01/12/2021-17:34:24] [01/12/2021-17:34:33] [I] x"
    assert split_envelope(stacked).timestamp == "01/12/2021-17:34:33"


def test_strip_ansi() -> None:
    assert strip_ansi("\x1b[1;33m[W]\x1b[0m x") == "[W] x"
    assert strip_ansi("plain") == "plain"
