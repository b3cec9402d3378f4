"""Silent fates: ONNX nodes the log never names again get a fate and a reason.

The merge fragments of ``fixtures/fragments/`` hold the ordinary cases (shape computations,
constants folded into shape tensors, identities, duplicates, ``If`` output layers); the corpus
holds the two real ones (a duplicate removed by dupe layer removal, an ``If`` node). On every
verbose log of the corpus and of ``fixtures/logs``, fewer than 2% of the ONNX nodes stay
``unexplained``; the only logs with more are those whose build never placed its layers, and
each of their nodes says so.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus

FRAGMENTS = FIXTURES / "fragments"


def _fates(path: Path) -> dict[str, trtlog.graph.Fate]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build = trtlog.parse(path)
    return {f.node: f for f in build.merge_graph().fates()}


def test_shape_subgraph_is_folded_at_build_time() -> None:
    fates = _fates(FRAGMENTS / "merge__shape-subgraph-folded__trt84.txt")
    for node in ("/head/Shape", "/head/Gather", "/head/Unsqueeze", "/head/Concat"):
        assert fates[node].kind == "folded", fates[node]
        assert fates[node].reason == (
            "shape computation folded at build time (feeds only the shape input of /head/Reshape)"
        )
        assert fates[node].final_layers == ()
    # the reshaped convolution is still what it was
    assert fates["/head/conv/Conv"].kind == "fused"
    assert fates["/head/Reshape"].final_layers == ("/head/Reshape",)
    assert [f.node for f in fates.values() if f.kind == "unexplained"] == []


def test_a_node_feeding_data_is_not_a_shape_computation() -> None:
    """A Concat whose output is data (the Reshape's first input) stays what the log says."""
    text = (
        "[V] [TRT] Parsing node: /Concat [Concat]\n"
        "[V] [TRT] /Concat [Concat] inputs: [a -> (1, 4)[FLOAT]], [b -> (1, 4)[FLOAT]], \n"
        "[V] [TRT] Registering layer: /Concat for ONNX node: /Concat\n"
        "[V] [TRT] /Concat [Concat] outputs: [/Concat_output_0 -> (2, 4)[FLOAT]], \n"
        "[V] [TRT] Parsing node: /Reshape [Reshape]\n"
        "[V] [TRT] /Reshape [Reshape] inputs: [/Concat_output_0 -> (2, 4)[FLOAT]], "
        "[shape -> (1)[INT32]], \n"
        "[V] [TRT] Registering layer: /Reshape for ONNX node: /Reshape\n"
        "[V] [TRT] /Reshape [Reshape] outputs: [/Reshape_output_0 -> (8)[FLOAT]], \n"
        "[I] [TRT] [GpuLayer] SHUFFLE: /Reshape\n"
    )
    fate = trtlog.parse_text(text).merge_graph().fate("/Concat")
    assert fate.kind == "unexplained"
    assert fate.reason is not None


def test_identity_and_duplicate_and_if_fragments() -> None:
    identity = _fates(FRAGMENTS / "merge__identity-vanishes__trt86.txt")["/neck/Identity"]
    assert (identity.kind, identity.reason) == (
        "removed",
        "identity-like node removed without a message",
    )
    dup = _fates(FRAGMENTS / "merge__duplicate-node-replaced__trt85.txt")["/Unsqueeze_1"]
    assert dup.kind == "removed"
    assert dup.reason == "duplicate of /Unsqueeze (dupe layer removal, line 24)"
    text = (FRAGMENTS / "merge__duplicate-node-replaced__trt85.txt").read_text().splitlines()
    assert "Replacing input 1 of /Concat with /Unsqueeze_output_0" in text[23]
    if_node = _fates(FRAGMENTS / "merge__if-node-outputlayer__trt84.txt")["If_6"]
    assert if_node.kind == "fused"
    assert if_node.final_layers == ("{ForeignNode[Cast_5...If_6_OutputLayer]}",)


@needs_corpus
def test_corpus_duplicate_and_if_node_match_the_raw_log() -> None:
    path = CORPUS / "trt8.5.10_bevformer-tsa-msda-plugin-best_build-verbose.log"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert (
        "Replacing input 1 of /Concat with /Unsqueeze_output_0 (output of /Unsqueeze)"
        in (lines[472])
    )
    fate = _fates(path)["/Unsqueeze_1"]
    assert (fate.kind, fate.reason) == (
        "removed",
        "duplicate of /Unsqueeze (dupe layer removal, line 473)",
    )
    crash = CORPUS / "trt8.4.10_script-if-myelin-best-orin_build-verbose-CRASH.log"
    raw = crash.read_text(encoding="utf-8").splitlines()
    assert "Registering layer: If_6_OutputLayer for ONNX node: If_6_OutputLayer" in raw[232]
    fates = _fates(crash)
    for node in ("If_6", "If_11"):
        assert fates[node].kind == "fused", fates[node]


def test_a_node_myelin_compiled_away_is_folded() -> None:
    """A region's metadata lists a node that none of the region's kernels lists."""
    text = (
        "[V] [TRT] Parsing node: /Gemm [Gemm]\n"
        "[V] [TRT] Registering layer: /Gemm for ONNX node: /Gemm\n"
        "[V] [TRT] Parsing node: /Reshape [Reshape]\n"
        "[V] [TRT] Registering layer: /Reshape for ONNX node: /Reshape\n"
        "[V] [TRT] ForeignNode {ForeignNode[/Gemm.../Reshape]} metadata: "
        "[ONNX Layer: /Gemm][ONNX Layer: /Reshape]\n"
        "Name: /Gemm_myl3_0, LayerType: gemm, Inputs: [], Outputs: [], TacticName: k, "
        "StreamId: 0, Metadata: [ONNX Layer: /Gemm]\n"
    )
    fates = {f.node: f for f in trtlog.parse_text(text).merge_graph().fates()}
    assert fates["/Gemm"].final_layers == ("/Gemm_myl3_0",)
    assert (fates["/Reshape"].kind, fates["/Reshape"].reason) == (
        "folded",
        "folded by the Myelin compiler: listed in {ForeignNode[/Gemm.../Reshape]}'s metadata "
        "(line 5), but in no kernel of the engine",
    )


@needs_corpus
def test_corpus_node_myelin_compiled_away() -> None:
    path = CORPUS / (
        "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-"
        "3builds-profilingverbosity.log"
    )
    raw = path.read_text(encoding="utf-8").splitlines()
    assert "ForeignNode {ForeignNode[gemm1.weight...ONNXTRT_castHelper_9]} metadata: " in raw[956]
    assert "[ONNX Layer: node_view]" in raw[956]
    assert not any(line.startswith("Name: ") and "node_view" in line for line in raw)
    fate = _fates(path)["node_view"]
    assert fate.kind == "folded"
    assert fate.reason is not None and "(line 957)" in fate.reason


def _verbose_logs() -> list[Path]:
    logs = sorted(FIXTURES.glob("logs/*.log"))
    if CORPUS.is_dir():
        logs += sorted(CORPUS.glob("*.log")) + sorted(CORPUS.glob("seeds/*.log"))
    return logs


@pytest.mark.parametrize("path", _verbose_logs(), ids=lambda p: p.name)
def test_unexplained_under_two_percent(path: Path) -> None:
    """< 2% unexplained in every log whose build placed its layers; the rest say why."""
    fates = list(_fates(path).values())
    if not fates:
        return
    unexplained = [f for f in fates if f.kind == "unexplained"]
    for fate in unexplained:
        assert fate.reason, fate
    if len(unexplained) / len(fates) >= 0.02:
        # only a build that never placed its layers may leave more; each node says so
        for fate in unexplained:
            assert fate.reason is not None
            assert "did not finish" in fate.reason or "final layers are unknown" in fate.reason
