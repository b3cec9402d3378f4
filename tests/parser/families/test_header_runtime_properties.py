"""Hypothesis properties for the header and runtime families' section-bound lines.

Generated text made of the pieces of options blocks, summaries and profile tables must parse
without raising, partition its lines, and give the same events with the grammar-compiled
matchers and with Lark alone (the two disagree when a flat rule's regex and Lark's lexer read a
line differently, e.g. the right-aligned profile rows of T21).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.parser.family_checks import check_partitions_and_agrees

PIECES = st.sampled_from(
    [
        "[07/07/2026-02:11:43] [I] ",
        "[07/07/2026-02:11:43] [W] ",
        "[07/07/2026-02:11:43] [V] ",
        "\n",
        " ",
        "   ",
        "=== Build Options ===",
        "Precision: ",
        "FP32+INT8",
        "Input(s)s format: ",
        "fp16:chw",
        "Input build shape",
        " (profile 0)",
        ": x=",
        "1x3x224x224",
        "+",
        "Inputs:",
        "<-",
        "Debug Tensor Save Destinations:",
        "&&&& RUNNING TensorRT.trtexec [TensorRT v8412] # trtexec",
        "&&&& PASSED TensorRT.trtexec #",
        "=== Device Information ===",
        '  Device 0: "GPU" UUID: GPU-1',
        "Compute Capability: ",
        "TensorRT version: ",
        "8.6.1",
        "=== Performance summary ===",
        "Latency: min = ",
        " ms, max = ",
        " ms, mean = ",
        " ms, median = ",
        " ms",
        ", percentile(99%) = ",
        "* ",
        "  If not already in use",
        "Host Latency",
        "min: ",
        "percentile: ",
        " at 99%",
        " (end to end ",
        "total compute time: ",
        "=== Explanations of the performance metrics ===",
        "Throughput: ",
        " qps",
        "=== Profile (10 iterations ) ===",
        "   Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer",
        "   Layer   Time (ms)   Avg. Time (ms)   Median Time (ms)   Time %",
        "   Layer   Time (ms)   Avg. Time (ms)   Time %",
        "  12.50",
        "       0.0056",
        "      6.7",
        "Total",
        "Output Tensors:",
        "528: (1x1000)",
        "0.5 1e-05 inf",
        "Average on 10 runs - GPU latency: ",
        " ms - Host latency: ",
        " ms (enqueue ",
        "0.0389",
        ")",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=80).map("".join)


@given(TEXT)
def test_section_lines_parse_the_same_both_ways(text: str) -> None:
    check_partitions_and_agrees(text)
