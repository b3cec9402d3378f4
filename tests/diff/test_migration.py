"""The 10 → 11 migration check: the same model built by TensorRT 10 (``--fp16``) and by 11.

TensorRT 11 builds strongly typed: the FP32 ``smallnet`` that 10.16 ran in FP16 with
``--fp16`` runs in FP32. ``trtlog diff`` (and :func:`trtlog.diff.migration_check`) names the
nodes whose precision went up, the fusions that split and the time that moved, first.
"""

from __future__ import annotations

import json

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.cli import main
from trtlog.diff import is_migration, migration_check

LI = FIXTURES / "layer_info"
LOGS = FIXTURES / "logs"
JSON_10 = LI / "trt10.16-like_smallnet-fp16_layers-detailed.json"
PROFILE_10 = LI / "trt10.16-like_smallnet-fp16.profile.json"
JSON_11 = LI / "trt11.5-like_smallnet-fp32_layers-detailed.json"
PROFILE_11 = LI / "trt11.5-like_smallnet-fp32.profile.json"
LOG_10 = LOGS / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"
LOG_11 = LOGS / "trt11.5-like_smallnet-fp32_build-verbose-dumpLayerInfo.log"
AUTOCAST = LI / "trt11.5-like_smallnet-fp16-autocast_layers-detailed.json"
AUTOCAST_PROFILE = LI / "trt11.5-like_smallnet-fp16-autocast.profile.json"
QDQ = LI / "trt11.5-like_smallnet-qdq-int8_layers-detailed.json"
QDQ_PROFILE = LI / "trt11.5-like_smallnet-qdq-int8.profile.json"
TINY_FP16 = LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
TINY_INT8 = LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"

HEADLINE = "12 nodes now FP32, 0.151 ms of the reference's 0.1662 ms (0.4613 ms in B)"


def test_the_json_pair() -> None:
    cmp = trtlog.compare(JSON_10, JSON_11, profile_a=PROFILE_10, profile_b=PROFILE_11)
    assert (cmp.a.strongly_typed, cmp.b.strongly_typed) == (False, True)
    assert is_migration(cmp)
    check = migration_check(cmp)
    assert check.headline == HEADLINE
    assert check.transitions == {"FP16→FP32": 12}
    assert [r.node for r in check.raised[:3]] == [
        "/stem/conv/Conv",
        "/stem/act/Relu",
        "/stage1/conv1/Conv",
    ]
    first = check.raised[0]
    assert (first.index_a, first.index_b, first.step) == (1, 0, 2)
    assert (first.time_a_ms, first.time_b_ms) == (0.0452, 0.1403)
    assert check.split == ()
    assert check.time_a_ms == pytest.approx(0.1662)
    assert check.time_b_ms == pytest.approx(0.4613)
    text = check.to_text()
    assert text.startswith("Migration check\n  A: layer JSON trt10.16-like")
    assert "FP16→FP32  A[3] → B[2]  0.0323 → 0.1011 ms  /stage1/conv2/Conv, /stage1/Add" in text
    assert "No fusion of A is split in B" in text
    assert "Time per inference: A 0.1662 ms, B 0.4613 ms (+0.2951 ms, +177.6%)" in text
    assert "modelopt.onnx.autocast" in text


def test_the_log_pair_takes_its_times_from_the_profile_tables() -> None:
    cmp = trtlog.compare(LOG_10, LOG_11)
    assert (cmp.a.trt_version, cmp.b.trt_version) == ("10.16.1", "11.5.0")
    assert cmp.a.profile is not None and "(--dumpProfile" in cmp.a.profile
    assert is_migration(cmp)
    check = migration_check(cmp)
    assert check.headline == HEADLINE
    assert check.a == "TensorRT 10.16.1, not strongly typed"
    assert check.b == "TensorRT 11.5.0, strongly typed"


def test_healthy_strongly_typed_builds_raise_nothing() -> None:
    for b, profile in ((AUTOCAST, AUTOCAST_PROFILE), (QDQ, QDQ_PROFILE)):
        cmp = trtlog.compare(JSON_10, b, profile_a=PROFILE_10, profile_b=profile)
        assert is_migration(cmp)
        check = migration_check(cmp)
        assert check.raised == () and check.split == ()
        assert check.headline == "no node runs in a higher precision than in the reference"
        assert "modelopt" not in check.to_text()


def test_int8_to_fp16_is_a_raise_too() -> None:
    cmp = trtlog.compare(QDQ, AUTOCAST, profile_a=QDQ_PROFILE, profile_b=AUTOCAST_PROFILE)
    assert not is_migration(cmp)  # both strongly typed, both 11.5: not a migration
    check = migration_check(cmp)
    assert check.transitions == {"INT8→FP16": 10}
    assert check.headline.startswith("10 nodes now in a higher precision (INT8→FP16 x10), ")


def test_a_split_fusion_is_called_out() -> None:
    cmp = trtlog.compare(TINY_FP16, TINY_INT8)
    assert not is_migration(cmp)
    check = migration_check(cmp)
    assert len(check.split) == 1
    assert check.headline.endswith("; 1 fusion of the reference split")
    assert "Fusions of A split in B (1)" in check.to_text()


def test_cli_shows_the_check_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(LOG_10), str(LOG_11), "--width", "160"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Migration check\n")
    assert f"  {HEADLINE}\n" in out
    assert out.index("Migration check") < out.index("   #   type")
    assert main(["diff", str(LOG_10), str(LOG_11), "--view", "summary"]) == 0
    assert capsys.readouterr().out.startswith("Migration check\n")
    assert main(["diff", str(JSON_10), str(JSON_11), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert next(iter(data)) == "migration"
    assert data["migration"]["transitions"] == {"FP16→FP32": 12}
    assert main(["diff", str(LOG_10), str(LOG_11), "--view", "summary", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["migration"]["headline"] == HEADLINE


def test_cli_without_a_migration_shows_no_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(TINY_FP16), str(TINY_INT8)]) == 0
    out = capsys.readouterr().out
    assert "Migration check" not in out
    assert main(["diff", str(TINY_FP16), str(TINY_INT8), "--format", "json"]) == 0
    assert "migration" not in json.loads(capsys.readouterr().out)


def test_a_layer_paired_by_structure_counts_in_the_migration() -> None:
    """B renamed the convolution's nodes (a re-export): the alignment pairs it by structure,
    and its nodes count as raised from FP16 to FP32."""
    from trtlog.diff import compare_engines
    from trtlog.engine.model import Engine, EngineLayer
    from trtlog.tensors import Tensor

    def eng(name: str, kernel: str) -> Engine:
        out = Tensor(name=f"{name}:0", dims=(1, 8, 4, 4), dtype="FP16")
        layer = EngineLayer(
            index=0,
            name=name,
            type="CaskConvolution",
            tactic_name=kernel,
            inputs=(Tensor(name="input", dims=(1, 3, 4, 4)),),
            outputs=(out,),
            onnx_nodes=(name,),
            onnx_source="name",
        )
        return Engine(source="x", origin="layer_json", detailed=True, layers=(layer,))

    cmp = compare_engines(
        eng("Conv_0", "sm80_xmma_fprop_f16f16_f16f16"), eng("Conv_9", "sm80_xmma_fprop_f32f32")
    )
    assert cmp.steps[0].match in ("structure", "shape")
    check = migration_check(cmp)
    assert [(r.node, r.before, r.after, r.step) for r in check.raised] == [
        ("Conv_0", "FP16", "FP32", 1)
    ]
