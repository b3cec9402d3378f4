"""The merge graph: golden edge lists, provenance and fates on real logs, the invariant."""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

import trtlog
from tests.buildlog.test_store import LOGS
from tests.conftest import CORPUS, FIXTURES, layer_json_files, needs_corpus
from trtlog.events.onnx import OnnxParseNode
from trtlog.graph import FLOWS, MergeGraph, edge_list, to_dot, write_graph

YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
TINY_INT8 = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
GOLDEN = FIXTURES / "golden"
SMALLNET = FIXTURES / "logs" / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"

CONV0 = (
    "model.model.backbone0.conv.weight + /model/backbone0/conv/_weight_quantizer/QuantizeLinear"
    " + /model/backbone0/conv/Conv"
)


def _graph(path: Path) -> MergeGraph:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return trtlog.parse(path).merge_graph()


@pytest.mark.parametrize("path", [YOLO, TINY_INT8], ids=lambda p: p.name)
def test_golden_edge_list(path: Path, update_golden: bool) -> None:
    golden = GOLDEN / path.stem / "merge_graph.tsv"
    text = "\n".join(edge_list(_graph(path))) + "\n"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_yolov8_provenance_of_every_final_layer() -> None:
    """Each final layer holds exactly what its name and the fusion lines say (read by hand)."""
    graph = _graph(YOLO)
    assert graph.graph["final_layers_from"] == "layer dump"
    conv = graph.provenance(CONV0)
    assert set(conv.original_layers) == {
        "model.model.backbone0.conv.weight",
        "/model/backbone0/conv/_weight_quantizer/QuantizeLinear",  # ConstWeightsQuantizeFusion
        "/model/backbone0/conv/Conv",
        "/model/backbone0/bn/BatchNormalization",  # ScaleActivationFusion, then QConvScaleFusion
        "/model/backbone0/act/Relu",
        "/model/backbone0/conv/_input_quantizer/DequantizeLinear",  # QuantizeDoubleInputNodes
        "/model/backbone0/conv/_weight_quantizer/DequantizeLinear",
        "/model/backbone1/conv/_input_quantizer/QuantizeLinear",  # the next conv's input Q
        # the scales of the two DQs (ConstQDQInitializersFusion removed them while running on
        # the DQ layers)
        "/model/backbone0/conv/_input_quantizer/Constant_2_output_0",
        "/model/backbone0/conv/_weight_quantizer/Constant_output_0",
    }
    assert conv.initializers == ("model.model.backbone0.conv.weight",)
    assert conv.passes[:2] == ("ConstQDQInitializersFusion", "ScaleActivationFusion")
    assert set(conv.passes) >= {
        "QConvScaleFusion",
        "QuantizeDoubleInputNodes",
        "ConstWeightsFusion",
    }
    q = graph.provenance("/model/backbone0/conv/_input_quantizer/QuantizeLinear")
    # its zero point (line 103 reads it, line 105 registers it) is a constant folded into it
    assert q.onnx_nodes == (
        "/model/backbone0/conv/_input_quantizer/QuantizeLinear",
        "/model/backbone0/conv/_input_quantizer/Constant_1_output_0",
    )
    assert q.ops == ("QuantizeLinear", "Constant")
    assert [(s.relation, s.line, s.evidence) for s in q.steps] == [
        ("registered as", 105, "log"),
        ("merged into", 0, "dataflow"),
        ("registered as", 0, "name"),  # the excerpt has no "Registering layer" line for it
    ]
    myelin = graph.provenance(graph.final_layers()[0])
    # no parser lines in the excerpt: the range ends are all the log gives
    assert myelin.original_layers == (
        "/model/taskhead22/Constant_12_output_0",
        "/model/taskhead22/Unsqueeze_6",
    )


def test_yolov8_fate_of_a_batchnorm() -> None:
    fate = _graph(YOLO).fate("/model/backbone0/bn/BatchNormalization")
    assert fate.kind == "fused"
    assert fate.final_layers == (CONV0,)
    assert fate.passes == ("ScaleActivationFusion", "QConvScaleFusion", "ConstWeightsFusion")
    assert fate.lines == (150, 189, 208)
    text = fate.describe()
    assert (
        "by ScaleActivationFusion (line 150)" in text and "by QConvScaleFusion (line 189)" in text
    )


def test_yolov8_initializer_is_folded() -> None:
    fate = _graph(YOLO).fate("model.model.backbone0.conv.weight")
    assert fate.kind == "folded" and fate.final_layers == (CONV0,)


def test_removed_and_retargeted_layers() -> None:
    graph = _graph(YOLO)
    dedup = graph.fate("/model/backbone2/cv2/conv/_input_quantizer/QuantizeLinear_clone_1")
    assert dedup.steps[0].relation == "duplicate of"
    sliced = graph.fate("/model/taskhead22/Slice_1")
    assert sliced.kind == "retargeted" and sliced.passes == ("SliceElimination",)


def test_hand_made_qdq_log_fates() -> None:
    graph = _graph(TINY_INT8)
    fates = {f.node: f for f in graph.fates()}
    assert Counter(f.kind for f in fates.values()) == Counter({"fused": 30})
    add = fates["/stage1/Add"]
    assert add.final_layers == ("PWN(/stage1/Add, /stage1/act/Relu)",)
    members = graph.members("PWN(/stage1/Add, /stage1/act/Relu)")
    assert [op for _, op in members] == ["Add", "Relu"]


def test_queries_reject_unknown_names() -> None:
    graph = _graph(YOLO)
    with pytest.raises(KeyError, match="no layer named 'nope'"):
        graph.provenance("nope")
    with pytest.raises(KeyError, match="no ONNX node"):
        graph.fate("nope")


def test_subgraph_and_exports(tmp_path: Path) -> None:
    graph = _graph(YOLO)
    sub = graph.subgraph_matching(r"backbone0/bn/")
    names = {d["name"] for _, d in sub.nodes(data=True)}
    assert "/model/backbone0/bn/BatchNormalization" in names and CONV0 in names
    assert "/model/backbone2/Slice" not in names
    graphml = write_graph(sub, tmp_path / "g.graphml")
    back = nx.read_graphml(graphml)
    assert back.number_of_edges() == sub.number_of_edges()
    data = json.loads(write_graph(sub, tmp_path / "g.json").read_text())
    assert len(data["edges"]) == sub.number_of_edges()
    dot = to_dot(sub)
    assert dot.startswith("digraph merge {") and dot.count(" -> ") == sub.number_of_edges()
    assert '"layer:/model/backbone0/bn/BatchNormalization"' in dot
    with pytest.raises(ValueError, match=r"graphml, \.json or \.dot"):
        write_graph(sub, tmp_path / "g.png")


def test_node_kinds_and_edge_attributes() -> None:
    graph = _graph(YOLO)
    kinds = Counter(d["kind"] for _, d in graph.nodes(data=True))
    assert kinds["engine_layer"] == 3 and kinds["onnx_initializer"] == 8
    for _, _, data in graph.edges(data=True):
        assert data["relation"] in FLOWS | {
            "swapped with",
            "removed by",
            "retargeted to",
            "copied for",
        }
        assert data["evidence"] in (
            "log",
            "name",
            "metadata",
            "order",
            "dataflow",
            "pass",
            "silent",
        )
        assert (data["line"] > 0) == (data["evidence"] in ("log", "pass"))


@needs_corpus
def test_every_parsed_onnx_node_has_one_fate() -> None:
    """The invariant on every verbose log of the corpus, and the unexplained share."""
    totals: Counter[str] = Counter()
    for path in sorted(CORPUS.glob("*.log")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build = trtlog.parse(path)
        parsed = {e.node for e in build.of(OnnxParseNode)}
        if not parsed:
            continue
        graph = build.merge_graph()
        fates = graph.fates()
        assert parsed <= {f.node for f in fates}, path.name
        assert len(fates) == len({f.node for f in fates}), path.name
        for fate in fates:
            silent = any(s.evidence == "silent" for s in fate.steps)
            assert (fate.kind == "unexplained" or silent) == (fate.reason is not None), fate
            if fate.kind in ("fused", "folded") and not silent:
                assert fate.final_layers, fate
                final = set(graph.final_layers())
                assert set(fate.final_layers) <= final, fate
        totals.update(f.kind for f in fates)
    share = totals["unexplained"] / sum(totals.values())
    assert sum(totals.values()) > 500
    assert share < 0.02, totals  # 0 of 585 ONNX nodes


# -- fate and provenance narratives ----------------------------------------

RESNET18_QAT = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"


@needs_corpus
def test_removal_goes_to_the_current_name_of_the_layer_the_pass_runs_on() -> None:
    """resnet18-QAT lines 2619-2628: QuantizeConvWithResidualAdd runs on Conv_34, which
    ConstWeightsFusion (2626) and ConvEltwiseSumFusion (2627) rename before the pass removes
    DequantizeLinear_41 (2628): the DQ goes into the renamed layer, not into "Conv_34"."""
    graph = _graph(RESNET18_QAT)
    fate = graph.fate("DequantizeLinear_41")
    final = "layer1.0.conv2.weight + QuantizeLinear_32 + Conv_34 + Add_42 + Relu_43"
    assert fate.kind == "fused" and fate.final_layers == (final,)
    merged = [s for s in fate.steps if s.relation != "registered as"]
    assert [(s.target, s.pass_name, s.line) for s in merged] == [
        (final, "QuantizeConvWithResidualAdd", 2628)
    ]
    assert "ConstWeightsFusion" not in fate.passes
    lines = RESNET18_QAT.read_text(encoding="utf-8").splitlines()
    assert lines[2627].endswith("Removing DequantizeLinear_41")
    assert lines[2618].endswith("Running: QuantizeConvWithResidualAdd on Conv_34")


@needs_corpus
def test_removal_by_a_pass_names_the_pass_once() -> None:
    """resnet18-QAT line 2570: ShuffleErasure removes Flatten_301 + reshape_before_Gemm_311."""
    fate = _graph(RESNET18_QAT).fate("Flatten_301")
    assert fate.kind == "removed"
    text = fate.describe()
    assert "removed by ShuffleErasure (line 2570)" in text
    assert "by ShuffleErasure by" not in text
    assert (
        "merged into Flatten_301 + reshape_before_Gemm_311 by ShuffleShuffleFusion (line 2568)"
        in (text)
    )


def test_step_describe_names_a_removing_pass_once() -> None:
    from trtlog.graph import Step

    step = Step(
        relation="removed by",
        source="a",
        target="ShuffleErasure",
        pass_name="ShuffleErasure",
        line=7,
    )
    assert step.describe() == "removed by ShuffleErasure (line 7)"
    stage = Step(relation="removed by", source="a", target="dead-layer removal", line=9)
    assert stage.describe() == "removed by dead-layer removal (line 9)"


def test_yolov8_conv_provenance_does_not_pass_a_constant_off_as_its_node() -> None:
    """The excerpt has parser lines only for the input quantizer (lines 99-107); the scale
    it reads, /model/backbone0/conv/_input_quantizer/Constant_2_output_0 (line 103, dims ()),
    is registered as a layer at line 104: a constant, folded into the DQ (line 140)."""
    graph = _graph(YOLO)
    constant = "/model/backbone0/conv/_input_quantizer/Constant_2_output_0"
    fate = graph.fate(constant)
    assert fate.op == "Constant" and fate.kind == "folded"
    conv = graph.provenance(CONV0)
    assert dict(zip(conv.onnx_nodes, conv.ops, strict=True)).get(constant) == "Constant"
    assert "/model/backbone0/conv/Conv" in conv.unparsed
    assert "/model/backbone0/bn/BatchNormalization" in conv.unparsed
    assert constant not in conv.unparsed
    text = conv.describe()
    assert "ONNX nodes (1)" not in text
    assert f"{constant} [Constant] (a constant folded in)" in text
    assert "layers without a parser line (8)" in text


def test_placement_lines_give_the_final_layers_as_the_cli_reads_them() -> None:
    """Without a layer dump the graph takes the layers of the placement lines from
    ``engine_from_placement`` (what ``trtlog layers`` shows), with a region's ONNX nodes."""
    from trtlog.engine.from_log import engine_from_placement

    head = "[01/10/2024-21:52:52] [V] [TRT] "
    nodes = ("/a/Conv", "/a/Relu", "/b/Conv", "/c/Conv")
    log = "".join(f"{head}Parsing node: {n} [{n.rsplit('/', 1)[1]}]\n" for n in nodes)
    log += "[01/10/2024-21:52:53] [I] [TRT] [DlaLayer] {ForeignNode[/a/Conv.../b/Conv]}\n"
    log += "[01/10/2024-21:52:53] [I] [TRT] [GpuLayer] CONVOLUTION: /c/Conv\n"
    build = trtlog.parse_text(log)
    graph = build.merge_graph()
    engine = engine_from_placement(build.events, build.source.name)
    assert engine is not None
    assert graph.graph["final_layers_from"] == "placement"
    assert graph.final_layers() == [layer.name for layer in engine.layers]
    region = graph.provenance("{ForeignNode[/a/Conv.../b/Conv]}")
    assert region.onnx_nodes == ("/a/Conv", "/a/Relu", "/b/Conv")
    assert engine.layers[0].onnx_nodes == region.onnx_nodes


def test_provenance_is_the_same_whatever_the_hash_seed() -> None:
    """The steps into a layer are collected from a set of nodes; their order must not depend
    on Python's string hashing (``trtlog explain`` printed two orders of one graph)."""
    import os
    import subprocess
    import sys

    log = FIXTURES / "logs" / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"
    code = "from trtlog.cli import main; main(['explain', '--format', 'json', '" + str(log) + "'])"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


# -- the queries read networkx's own dicts ----------------------


@pytest.mark.parametrize("path", [YOLO, TINY_INT8], ids=lambda p: p.name)
def test_adjacency_dicts_are_the_graph(path: Path) -> None:
    """node_data / out_adjacency / in_adjacency hold exactly what networkx's views show."""
    graph = _graph(path)
    assert graph.node_data() == {n: data for n, data in graph.nodes(data=True)}
    out = [(a, b, d) for a, targets in graph.out_adjacency().items() for b, d in targets.items()]
    assert out == list(graph.edges(data=True))  # same edges, same order
    into = {(a, b) for b, sources in graph.in_adjacency().items() for a in sources}
    assert into == set(graph.edges())


@pytest.mark.parametrize("path", [YOLO, TINY_INT8], ids=lambda p: p.name)
def test_reach_follows_the_identity_edges(path: Path) -> None:
    """reach() is what a fate walks: each node's final layers are reached, nothing else flows."""
    graph = _graph(path)
    checked = 0
    for fate in graph.fates():
        start = graph.find(fate.node, ("onnx_node",))
        assert start is not None
        reached = graph.reach(start)
        assert reached[0] == start and len(set(reached)) == len(reached)
        names = {graph.nodes[n]["name"] for n in reached}
        assert set(fate.final_layers) <= names
        # closed under FLOWS edges, and every node reached by one
        for n in reached:
            assert all(t in reached for t, d in graph.succ[n].items() if d["relation"] in FLOWS)
        # one step of the fate leads to each node reached after the first
        assert sum(1 for s in fate.steps if s.relation in FLOWS) == len(reached) - 1
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("path", [YOLO, TINY_INT8], ids=lambda p: p.name)
def test_fates_assembled_without_validation_are_valid(path: Path) -> None:
    """Fates and steps are assembled from typed values: validating them again changes nothing."""
    from trtlog.graph import Fate

    fates = _graph(path).fates()
    assert fates
    for fate in fates:
        assert Fate.model_validate(fate.model_dump()) == fate
        assert fate.model_fields_set == set(Fate.model_fields)
    moved = fates[0].model_copy(update={"reason": "x"})  # the fields set is a real set
    assert moved.reason == "x"


def test_building_writes_what_networkx_would() -> None:
    """layer(), insert() and relate() write networkx's dicts as add_node/add_edge would."""
    g = MergeGraph()
    ref: nx.DiGraph[str] = nx.DiGraph()
    a, b = g.layer("a", 3), g.layer("b")
    ref.add_node("layer:a", kind="intermediate", name="a", line=3)
    ref.add_node("layer:b", kind="intermediate", name="b", line=0)
    g.insert("onnx:n", {"kind": "onnx_node", "name": "n", "op": None, "line": 1, "order": 0})
    ref.add_node("onnx:n", kind="onnx_node", name="n", op=None, line=1, order=0)
    g.relate("onnx:n", a, "registered as", None, 1)
    g.relate(a, b, "merged into", None, 0, "name")
    g.relate(a, b, "merged into", "P", 7)  # the same relation: kept as it was
    g.relate("onnx:n", b, "merged into", None, 0, "metadata")
    g.relate("onnx:n", b, "duplicate of", "Q", 0)  # another relation without a line: updated
    g.relate(b, "layer:new", "copied for", None, 2)  # a node not in the graph: added bare
    g.relate(a, a, "merged into")  # never a loop
    ref.add_edge("onnx:n", "layer:a", relation="registered as", pass_name=None, line=1,
                 evidence="log")  # fmt: skip
    ref.add_edge("layer:a", "layer:b", relation="merged into", pass_name=None, line=0,
                 evidence="name")  # fmt: skip
    ref.add_edge("onnx:n", "layer:b", relation="duplicate of", pass_name="Q", line=0,
                 evidence="log")  # fmt: skip
    ref.add_edge("layer:b", "layer:new", relation="copied for", pass_name=None, line=2,
                 evidence="log")  # fmt: skip
    assert list(g.nodes(data=True)) == list(ref.nodes(data=True))
    assert list(g.edges(data=True)) == list(ref.edges(data=True))
    assert list(g.in_edges(data=True)) == list(ref.in_edges(data=True))
    assert all(g.pred[v][u] is g.succ[u][v] for u, v in g.edges())  # one dict per edge


def _dead_ends_checked(build: trtlog.Build, engine: trtlog.Engine | None) -> int:
    """Build the graph, checking that ``finish`` hands ``_held`` every dead end, in node order.

    ``finish`` looks for dead ends only among the nodes from before the engine's layers and
    the bare layers its loop added; a full scan at ``_infer`` (right after the ``_held``
    calls, which only add edges out of the dead ends they are given) finds no other.
    """
    from trtlog.graph import from_events

    held: list[str] = []
    checked: list[bool] = []
    original_held, original_infer = from_events._Builder._held, from_events._Builder._infer

    def record(self: Any, node_id: str, name: str, by_member: Any) -> None:
        held.append(node_id)
        original_held(self, node_id, name, by_member)

    def check(self: Any) -> None:
        nodes, succ = self.nodes, self.succ
        ends = FLOWS | {"removed by", "retargeted to"}
        left = {
            n
            for n, d in nodes.items()
            if d["kind"] == "intermediate"
            and not any(e["relation"] in ends for e in succ[n].values())
        }
        wanted = set(held) | left
        assert held == [n for n in nodes if n in wanted]
        assert left <= set(held)
        checked.append(True)
        original_infer(self)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(from_events._Builder, "_held", record)
        m.setattr(from_events._Builder, "_infer", check)
        from_events.merge_graph(build, engine)
    assert checked == [True]
    return len(held)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_finish_finds_every_dead_end(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build = trtlog.parse(path)
    _dead_ends_checked(build, None)


def test_finish_finds_every_dead_end_with_an_engine() -> None:
    """With engines whose layers do not match the log (every layer JSON against smallnet)."""
    build = trtlog.parse(SMALLNET)
    found = [_dead_ends_checked(build, trtlog.load_engine(p)) for p in layer_json_files()]
    assert any(found)  # (some engine leaves the log's layers dead ends)
