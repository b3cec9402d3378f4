"""Fusion bisection: each proposed tensor exists in the log at the boundary of its fusion."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES
from trtlog.graph.bisect import BisectPlan, bisect_plan
from trtlog.graph.model import MergeGraph
from trtlog.names import split_name

LOGS = FIXTURES / "logs"
QDQ_FIXTURES = [
    LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
    LOGS / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log",
]
#: The corpus's verbose builds whose parser prints tensor lines (a Q/DQ one among them).
CORPUS_BUILDS = [
    CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log",
    CORPUS / "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
    CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
    CORPUS / "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
]


def _fused_layers(build: trtlog.Build) -> list[str]:
    assert build.engine is not None
    return [layer.name for layer in build.engine.layers]


def _nodes(graph: MergeGraph, name: str) -> set[str]:
    """The ONNX nodes inside a layer (an initializer or a node stands for itself)."""
    leaves = set(split_name(name).members())
    try:
        found = graph.provenance(name)
    except KeyError:
        return {name} | leaves
    return set(found.onnx_nodes) | set(found.original_layers) | {name} | leaves


def _check(build: trtlog.Build, plan: BisectPlan, lines: list[str]) -> int:
    """Check every proposal against the raw text; the number of tensors checked."""
    graph = build.merge_graph()
    checked = 0
    for fusion in plan.fusions:
        if not fusion.boundary:
            assert fusion.why
            continue
        raw = lines[fusion.line - 1]
        # the fusion is a line of the log: its pass is printed there (or on the "Running: P
        # on x" line above a "Removing y" line the pass printed), and every part
        running = next(t for t in reversed(lines[: fusion.line]) if "] Running: " in t)
        assert fusion.pass_name and (fusion.pass_name in raw or fusion.pass_name in running)
        if fusion.evidence == "log":
            for part in fusion.parts:
                assert part in raw, (part, raw)
        else:  # a part vanished while the pass ran on the result: the part was parsed
            assert fusion.evidence == "pass" and raw.endswith(f" on {fusion.result}"), raw
            for part in fusion.parts:
                assert any(f"Parsing node: {part} [" in t for t in lines), part
        members = [_nodes(graph, p) for p in (*fusion.parts, fusion.result)]
        for b in fusion.boundary:
            # the producer sits inside the fusion (in a part, or in the layer it made)
            assert any(b.layer in m for m in members), (b.layer, members)
            if b.tensor is None:
                continue
            # the tensor is among the producer's outputs on the line given...
            out = re.match(rf".*\] {re.escape(b.layer)} \[\w+\] outputs: (.*)$", lines[b.line - 1])
            assert out is not None, lines[b.line - 1]
            assert f"[{b.tensor} -> " in out.group(1)
            # ... and each reader (in another part) lists it among its inputs
            for reader in b.readers:
                pattern = rf"\] {re.escape(reader)} \[\w+\] inputs: .*\[{re.escape(b.tensor)} -> "
                assert any(re.search(pattern, line) for line in lines), (reader, b.tensor)
                owner = [i for i, m in enumerate(members[:-1]) if reader in m]
                producer = [i for i, m in enumerate(members[:-1]) if b.layer in m]
                assert not owner or not producer or set(owner) != set(producer)
            checked += 1
    return checked


@pytest.mark.parametrize("path", QDQ_FIXTURES, ids=lambda p: p.name)
def test_qdq_fixtures_propose_boundaries_of_real_fusions(path: Path) -> None:
    build = trtlog.parse(path)
    lines = path.read_text().splitlines()
    breakable = 0
    for name in _fused_layers(build):
        plan = bisect_plan(build, layer=name)
        _check(build, plan, lines)
        breakable += len(plan.breakable)
        if plan.breakable:
            assert plan.steps and plan.steps[0].low == plan.breakable[0]
    assert breakable


def test_without_tensor_lines_the_producer_layer_is_marked() -> None:
    path = QDQ_FIXTURES[0]  # the parser printed node names only
    build = trtlog.parse(path)
    text = path.read_text()
    assert " outputs: [" not in text
    layer = next(n for n in _fused_layers(build) if "/stem/conv/Conv" in n)
    plan = bisect_plan(build, layer=layer)
    assert plan.notes and "no ONNX parser tensor lines" in plan.notes[0]
    relu = next(f for f in plan.fusions if f.pass_name == "ConvReluFusion")
    assert relu.boundary[0].tensor is None and relu.boundary[0].layer == "/stem/conv/Conv"
    python = dict(plan.steps[0].commands)
    assert not any(tool == "polygraphy" for tool in python)  # no tensor name to give it
    code = next(v for k, v in python.items() if k.startswith("python"))
    assert "'/stem/conv/Conv'" in code and "layer.name in layers" in code


@pytest.mark.parametrize("path", CORPUS_BUILDS, ids=lambda p: p.name)
def test_corpus_builds(path: Path) -> None:
    if not path.exists():
        pytest.skip("the corpus is not there")
    build = trtlog.parse(path)
    lines = path.read_text(errors="replace").splitlines()
    checked = 0
    for name in _fused_layers(build):
        checked += _check(build, bisect_plan(build, layer=name), lines)
    assert checked  # tensors were proposed and each checked against the raw text


def test_halving_steps_and_commands_on_the_qat_resnet() -> None:
    path = CORPUS_BUILDS[0]
    if not path.exists():
        pytest.skip("the corpus is not there")
    build = trtlog.parse(path)
    layer = "layer1.0.conv2.weight + QuantizeLinear_32 + Conv_34 + Add_42 + Relu_43"
    plan = bisect_plan(build, layer=layer)
    n = len(plan.breakable)
    assert n >= 3
    # each step breaks half of the range it searches, until one fusion is left
    sizes = [len([i for i in plan.breakable if s.low <= i <= s.high]) for s in plan.steps]
    assert sizes[0] == n and sizes[-1] == 1
    assert all(b < a for a, b in pairwise(sizes))
    first = plan.steps[0]
    assert first.first == plan.breakable[0] and first.last == plan.breakable[n // 2 - 1]
    tools = dict(first.commands)
    marked = [b.tensor for b in first.boundary]
    assert tools["polygraphy"].startswith("polygraphy run ")
    assert "--trt-outputs " + " ".join(t or "" for t in marked) in tools["polygraphy"]
    assert "--int8" in tools["polygraphy"]  # the build's precisions
    # the version of the build, as the raw header prints it
    version = re.search(r"TensorRT version: (\d+)\.(\d+)\.(\d+)", path.read_text())
    assert version is not None
    assert any(k.startswith(f"python (TensorRT {'.'.join(version.groups())}") for k in tools)
    # a later range goes on from the step's "otherwise" side
    other = first.otherwise
    assert other is not None
    again = bisect_plan(build, layer=layer, fusions=other)
    assert again.steps[0].low == min(i for i in plan.breakable if i >= other[0])
    # the node and pass targets reach the same fusions
    by_node = bisect_plan(build, node="Add_42")
    assert by_node.layers == (layer,)
    by_pass = bisect_plan(build, pass_name="EltReluFusion")
    assert by_pass.fusions and {f.pass_name for f in by_pass.fusions} == {"EltReluFusion"}


def test_unknown_targets_say_what_exists() -> None:
    build = trtlog.parse(QDQ_FIXTURES[0])
    with pytest.raises(KeyError, match="no layer named"):
        bisect_plan(build, layer="nope")
    with pytest.raises(KeyError, match=r"passes that fused: .*ConvReluFusion"):
        bisect_plan(build, pass_name="NoSuchFusion")
    with pytest.raises(ValueError, match="exactly one"):
        bisect_plan(build)


def test_the_merge_graph_of_a_build_and_an_engine_is_made_once() -> None:
    """The report's merge explorer and its fusion bisection read one graph of the pair."""
    log = LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
    build = trtlog.parse(log)
    engine = trtlog.load_engine(
        FIXTURES / "layer_info" / "trt8.6.1_tinynet-qdq-int8_layers-detailed.json"
    )
    graph = build.merge_graph(engine)
    assert build.merge_graph(engine) is graph
    other = engine.model_copy()
    assert build.merge_graph(other) is not graph  # another engine object: its own graph
    assert set(build.merge_graph(other).nodes) == set(graph.nodes)
