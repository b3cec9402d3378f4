"""Type conversions and fusions that print only their Running: line, in a layer's history."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import FIXTURES, corpus_logs, needs_corpus
from trtlog.cli.main import main
from trtlog.graph.model import MergeGraph

GEMM = FIXTURES / "logs" / "trt8.5-like_gemm-head_build-verbose-placement.log"
_CONVERT = re.compile(r"Convert layer type of (.+) from ([A-Z_]+) to ([A-Z_]+)$")
_BIAS_RUN = re.compile(r"Running: (ConvReshapeBiasAddFusion) on (.+)$")
_GEMM = re.compile(r"Parsing node: (.+) \[Gemm\]$")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def test_a_gemms_history_has_its_conversion_and_its_bias_fusion() -> None:
    lines = _lines(GEMM)
    convert = next(i for i, t in enumerate(lines, 1) if _CONVERT.search(t))
    bias = next(i for i, t in enumerate(lines, 1) if _BIAS_RUN.search(t))
    found = trtlog.parse(GEMM).merge_graph().provenance("/head/Gemm")
    (conversion,) = found.conversions
    assert (conversion.layer, conversion.from_type, conversion.to_type) == (
        "/head/Gemm",
        "MATRIX_MULTIPLY",
        "CONVOLUTION",
    )
    assert (conversion.pass_name, conversion.line) == ("MatMulToConvTransform", convert)
    assert found.passes == (
        "ConstShuffleFusion",
        "MatMulToConvTransform",
        "ConvReshapeBiasAddFusion",
    )
    (step,) = [s for s in found.steps if s.pass_name == "ConvReshapeBiasAddFusion"]
    assert (step.source, step.line, step.evidence) == (
        "head.bias + (Unnamed Layer* 5) [Shuffle]",
        bias,
        "pass",
    )
    assert "inferred" not in step.describe()


def test_explain_layer_lists_the_conversion_and_the_fusion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", str(GEMM), "--layer", "/head/Gemm"]) == 0
    out = capsys.readouterr().out
    assert (
        "/head/Gemm converted from MATRIX_MULTIPLY to CONVOLUTION by MatMulToConvTransform" in out
    )
    assert "merged into /head/Gemm by ConvReshapeBiasAddFusion (line " in out
    assert "(Unnamed Layer* 5) [Shuffle] merged into /head/Gemm (inferred" not in out


def _graph_finals(graph: MergeGraph) -> set[str]:
    return set(graph.final_layers())


@needs_corpus
def test_corpus_conversions_and_bias_fusions_are_in_the_history() -> None:
    """Each corpus ``Convert layer type`` of a final layer, and each silent bias fusion on a
    Gemm that reads a bias, shows in that layer's history at its raw line."""
    checked = bias_checked = 0
    for path in corpus_logs():
        lines = _lines(path)
        if not any("Convert layer type of " in t for t in lines):
            continue
        build = trtlog.parse(path)
        if len(build.runs) > 1:
            continue
        graph = build.merge_graph()
        finals = _graph_finals(graph)
        gemms = {m[1] for t in lines if (m := _GEMM.search(t))}
        with_bias = {  # a Gemm whose inputs line lists three tensors: A, B and the bias C
            g for g in gemms for t in lines if f"{g} [Gemm] inputs: " in t and t.count("->") >= 3
        }
        for number, text in enumerate(lines, 1):
            if (m := _CONVERT.search(text)) and m[1] in finals:
                found = graph.provenance(m[1])
                assert (m[1], m[2], m[3], number) in {
                    (c.layer, c.from_type, c.to_type, c.line) for c in found.conversions
                }, (path.name, number)
                checked += 1
            if (m := _BIAS_RUN.search(text)) and m[2] in gemms & with_bias:
                # the final layer(s) the Gemm went into (a horizontal merge renames it)
                for layer in graph.fate(m[2]).final_layers:
                    found = graph.provenance(layer)
                    assert m[1] in found.passes, (path.name, number)
                    assert any(s.line == number and s.evidence == "pass" for s in found.steps)
                    bias_checked += 1
    assert checked >= 4
    assert bias_checked >= 3  # the bevformer Gemms (merged) and the mobilenetv2 classifier
