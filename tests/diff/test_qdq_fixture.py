"""The hand-made FP16 vs INT8 Q/DQ pair (fixtures/logs/trt8.6.1_tinynet-*): the split fusion.

A is the float model built with ``--fp16``: ``/stage1/cv2/conv/Conv + /stage1/Add +
/stage1/act/Relu`` is one layer (ConvEltwiseSumFusion). B is the Q/DQ model built with
``--int8``; its quantizer sits on the convolution's output instead of the residual input, so
the convolution runs in INT8 and the add in FP16 after a DequantizeLinear reformat.
"""

from __future__ import annotations

import json
import math

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.diff import Comparison

LOGS = FIXTURES / "logs"
A = LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
B = LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
PROFILE_A = FIXTURES / "layer_info" / "trt8.6.1_tinynet-fp16.profile.json"
PROFILE_B = FIXTURES / "layer_info" / "trt8.6.1_tinynet-qdq-int8.profile.json"


@pytest.fixture(scope="module")
def cmp() -> Comparison:
    return trtlog.compare(A, B, profile_a=PROFILE_A, profile_b=PROFILE_B)


def test_rows(cmp: Comparison) -> None:
    rows = [(s.marker, s.index_a, s.index_b) for s in cmp.steps]
    assert rows == [
        ("~", 0, 0),  # input reformat FP32→FP16 / Q FP32→INT8
        ("~", 1, 1),
        ("+", None, 2),  # Q before stage1/cv1
        ("~", 2, 3),
        ("~", 3, 4),  # conv + add + relu → conv ...
        ("+", None, 5),  # ... the add_quantizer DequantizeLinear ...
        ("~", 3, 6),  # ... and PWN(add, relu)
        ("+", None, 7),  # Q before stage2
        ("~", 4, 8),
        ("=", 5, 9),
        ("~", 6, 10),  # the head convolution picked another kernel
        ("=", 7, 11),
        ("=", 8, 12),
    ]
    assert cmp.steps[0].reasons[:2] == ("q/dq", "reformat FP32→FP16 vs FP32→INT8")
    assert cmp.steps[1].reasons == ("q/dq", "precision FP16→INT8", "tactic")
    assert cmp.steps[3].reasons == ("q/dq", "precision FP16→INT8", "format hwc8→chw32", "tactic")
    assert cmp.steps[4].reasons[:3] == ("split", "q/dq", "precision FP16→INT8")
    assert cmp.steps[6].reasons == ("split",)
    assert cmp.steps[10].reasons == ("tactic",)
    assert cmp.node_source == "metadata"


def test_the_split_fusion_and_the_qdq_nodes_responsible(cmp: Comparison) -> None:
    (group,) = cmp.groups
    assert group.kind == "split"
    assert group.nodes == ("/stage1/cv2/conv/Conv", "/stage1/Add", "/stage1/act/Relu")
    assert group.layers_a == (3,)
    assert group.layers_b == (4, 6)
    assert group.qdq_nodes == (
        "/stage1/add_quantizer/QuantizeLinear",
        "/stage1/add_quantizer/DequantizeLinear",
    )
    assert [s.number for s in cmp.steps if s.group == 1] == [5, 7]
    summary = cmp.summary()
    assert summary.split == (group,) and summary.merged == summary.regrouped == ()
    text = summary.to_text()
    assert "Fused in A, split in B (1)" in text
    assert "3 nodes were 1 layer in A and 2 layers in B" in text
    assert "/stage1/add_quantizer/DequantizeLinear" in text


def test_per_pass_differences(cmp: Comparison) -> None:
    passes = cmp.passes
    assert passes is not None
    only_a = [(f.pass_name, f.inputs, f.other_pass) for f in passes.only_a]
    assert only_a == [
        ("EltReluFusion", ("/stage1/Add", "/stage1/act/Relu"), "PointWiseFusion"),
        ("ConvEltwiseSumFusion", ("/stage1/cv2/conv/Conv", "/stage1/Add + /stage1/act/Relu"), None),
    ]
    by_pass = {c.pass_name: (c.fusions_a, c.fusions_b) for c in passes.counts}
    assert by_pass["QuantizeDoubleInputNodes"] == (0, 6)
    assert by_pass["ConstWeightsQuantizeFusion"] == (0, 4)
    assert by_pass["ConvEltwiseSumFusion"] == (1, 0)
    assert "ConvReluFusion" not in by_pass  # three conv+relu fusions on both sides
    into = [f for f in passes.only_b if f.kind == "fusion_into"]
    assert len(into) == 6
    text = cmp.summary().to_text()
    assert (
        "line 42: ConvEltwiseSumFusion: /stage1/cv2/conv/Conv with /stage1/Add + /stage1/act/Relu"
        in text
    )
    assert "(B fused them in PointWiseFusion)" in text
    assert (
        "QuantizeDoubleInputNodes: /stage1/add_quantizer/QuantizeLinear into /stage1/cv2/conv/Conv"
        in text
    )


def test_precision_tactics_reformats(cmp: Comparison) -> None:
    summary = cmp.summary()
    assert summary.precision_transitions == {"FP16→INT8": 4}
    assert [c.step for c in summary.tactic_changes] == [1, 2, 4, 9, 11]
    assert [v.name for v in summary.reformats_added] == [
        "/stage1/cv1/conv/_input_quantizer/QuantizeLinear",
        "/stage1/add_quantizer/DequantizeLinear",
        "/stage2/conv/_input_quantizer/QuantizeLinear",
    ]
    assert summary.reformats_removed == ()
    assert summary.layers_a == {
        "layers": 9,
        "reformats": 2,
        "qdq": 0,
        "myelin_regions": 0,
        "myelin_kernels": 0,
    }
    assert summary.layers_b["qdq"] == 4 and summary.layers_b["reformats"] == 5


def test_times(cmp: Comparison) -> None:
    summary = cmp.summary()
    assert summary.time_a_ms == pytest.approx(0.2416)
    assert summary.time_b_ms == pytest.approx(0.2062)
    assert summary.delta_ms == pytest.approx(-0.0354)
    assert summary.module_depth == 1
    modules = {m.module: (m.time_a_ms, m.time_b_ms) for m in summary.modules}
    assert modules["/stage1"] == pytest.approx((0.0603 + 0.0684, 0.1180))
    assert modules["/stem"] == pytest.approx((0.0102 + 0.0451, 0.0079 + 0.0286))
    assert math.fsum(m.delta_ms or 0.0 for m in summary.modules) == pytest.approx(-0.0354)
    text = cmp.to_text()
    assert "delta ms" in text and "time A 0.2416 ms, B 0.2062 ms" in text


def test_text_table(cmp: Comparison) -> None:
    text = cmp.to_text(column_size=60)
    lines = text.splitlines()
    rows = [line for line in lines if line[:4].strip().isdigit()]
    assert len(rows) == 13
    assert [r[5] for r in rows] == [s.marker for s in cmp.steps]
    assert '" same layer as row 5' in rows[6]
    assert rows[4].index(" | ") == 5 + 2 + 60  # number, marker, then the A column
    assert "PWN(/stage1/Add (+1))" in rows[6]  # a long fused name keeps its first part
    assert "PWN(/stage1/Add, /stage1/act/Relu)" in cmp.to_text(column_size=80).splitlines()[11]
    narrow = cmp.to_text(width=100, only_changed=True)
    assert max(len(line) for line in narrow.splitlines()[2:]) <= 100
    assert sum(1 for line in narrow.splitlines() if line[:4].strip().isdigit()) == 10


def test_json_round_trip(cmp: Comparison) -> None:
    data = json.loads(cmp.to_json())
    assert data["summary"]["precision_transitions"] == {"FP16→INT8": 4}
    assert Comparison.model_validate(data) == cmp
