"""The memory family: the weights-conversion warning is one event (formats.md §H, T4)."""

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
from trtlog.events.memory import WeightsConversionWarning
from trtlog.summary import summarize

# Pieces of the family's messages, so that generated text reaches the grammar's corners.
PIECES = st.sampled_from(
    [
        "[06/28/2024-09:34:34] [W] [TRT] ",
        "[V] [TRT] ",
        "[MemUsageChange] ",
        "Init CUDA: CPU +1, GPU -2, now: CPU 3, GPU 4 (MiB)",
        "[MemUsageStats] Peak memory usage of TRT CPU/GPU memory allocators: CPU ",
        "1 MiB, GPU 2 MiB",
        "[BlockAssignment] Algorithm ",
        "ShiftNTopDown took 1.5ms to assign 3 blocks to 4 nodes requiring 5 bytes.",
        "Total Activation Memory: ",
        "12",
        " bytes",
        "Layer: ",
        " Host Persistent: 1 Device Persistent: 2 Scratch Memory: 3",
        " HostPersistent: 1 DevicePersistent: 2",
        "TensorRT encountered issues when converting weights between types and that could "
        "affect accuracy.",
        "- 2 weights are affected by this issue: ",
        "  List of affected weights: ",
        "a.weight, b.bias",
        "Check verbose logs for the list of affected weights.",
        "Engine built in ",
        " sec.",
        "Loaded engine size: 1 M",
        "Total per-runner ",
        "- Runner scratch: ",
        "Cannot open engine file:",
        "\n",
        " ",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=40).map("".join)

_W = "[06/28/2024-09:34:34] [W] [TRT] "
_V = "[06/28/2024-09:34:34] [V] [TRT] "
WARNING = [
    _W + "TensorRT encountered issues when converting weights between types and that could "
    "affect accuracy.",
    _W + "If this is not the desired behavior, please modify the weights or retrain with "
    "regularization to adjust the magnitude of the weights.",
    _W + "Check verbose logs for the list of affected weights.",
    _W + "- 2 weights are affected by this issue: Detected subnormal FP16 values.",
    _V + "  List of affected weights: PWN(a, b).weight, c.bias",
]


def _parse(lines: list[str]) -> trtlog.Build:
    return trtlog.parse_text("".join(line + "\n" for line in lines))


def test_weights_warning_is_one_event_and_stops_at_the_next_message() -> None:
    lines = [*WARNING, _V + "Deleting timing cache: 644 entries, served 0 hits since creation."]
    build = _parse(lines)
    assert [(e.kind, e.span) for e in build.events[:1]] == [("weights_conversion_warning", (1, 5))]
    assert build.events[1].span == (6, 6)
    warning = build.events[0]
    assert isinstance(warning, WeightsConversionWarning)
    assert warning.count == 2
    assert warning.issues[0].weights == ("PWN(a, b).weight", "c.bias")


def test_weights_warning_ends_at_a_foreign_line() -> None:
    build = _parse([*WARNING[:4], "0x40dd5800[enqueue]"])
    assert [(e.kind, e.span) for e in build.events] == [
        ("weights_conversion_warning", (1, 4)),
        ("unrecognized", (5, 5)),
    ]


def test_summary_fields_the_lead_reads() -> None:
    ts = "[07/07/2026-02:11:24] [I] "
    build = _parse(
        [
            ts + "[TRT] Total Activation Memory: 2876416 bytes",
            ts + "[TRT] Total Weights Memory: 6553364 bytes",
            ts + "[TRT] [MemUsageStats] Peak memory usage of TRT CPU/GPU memory allocators: "
            "CPU 6 MiB, GPU 37 MiB",
            ts + "Engine built in 24.4854 sec.",
            ts + "Created engine with size: 6.42511 MiB",
            ts + "[TRT] [MemUsageChange] Init CUDA: CPU +2, GPU +0, now: CPU 14, GPU 1216 (MiB)",
            ts + "[TRT] [MemUsageChange] TensorRT-managed allocation in building engine: "
            "CPU +11, GPU +1300, now: CPU 11, GPU 1300 (MiB)",
        ]
    )
    summary = summarize(build)
    assert summary.gpu_in_use_mib == 1216  # the process totals, not TensorRT's own account
    assert summary.activation_memory_bytes == 2876416
    assert summary.weights_memory_bytes == 6553364
    assert summary.peak_gpu_mib == 37
    assert summary.engine_build_seconds == 24.4854
    assert summary.engine_size_mib == 6.42511


@given(TEXT)
def test_family_text_parses_partitions_and_agrees(text: str) -> None:
    check_partitions_and_agrees(text)


@pytest.mark.parametrize(("lines", "expected"), multi_line_cases("memory"))
def test_blank_lines_inside_a_construct(lines: list[str], expected: dict[str, Any]) -> None:
    check_blank_lines_inside(lines, expected)
