"""TensorRT 10/11 Myelin builds judged from the layer JSON.

The fragments (``fixtures/fragments/``) paste the one-line records of ``--dumpLayerInfo``; these
tests build the same kernels as an ``--exportLayerInfo`` JSON in 11.x shape (``Datatype`` and
``Format`` per tensor, ``Metadata`` joined by U+001F), so that the rules are shown to read the
JSON's ``Metadata``, types and kernel names, not only the log's text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import FIXTURES, needs_corpus
from tests.findings.inputs import of
from trtlog.findings import Finding

US = "\x1f"  # the metadata separator of 10.x/11.x layer JSON (formats.md §JSON)
_FORMATS = {
    "Half": "Row major linear FP16 format (kLINEAR)",
    "Float": "Row major linear FP32 format (kLINEAR)",
    "Int8": "Row major Int8 format (kLINEAR)",
    "FP8": "Row major linear FP8 format (kLINEAR)",
}


def _tensor(name: str, dims: list[int], dtype: str) -> dict[str, Any]:
    return {
        "Name": name,
        "Location": "Device",
        "Dimensions": dims,
        "Datatype": dtype,
        "Format": _FORMATS[dtype],
    }


def _kernel(
    name: str,
    kind: str,
    inputs: list[dict[str, Any]],
    outputs: list[dict[str, Any]],
    tactic: str,
    nodes: list[str],
) -> dict[str, Any]:
    return {
        "Name": name,
        "LayerType": kind,
        "Inputs": inputs,
        "Outputs": outputs,
        "TacticName": tactic,
        "StreamId": 0,
        "Metadata": US.join(f"[ONNX Layer: {n}]" for n in nodes) if nodes else name,
    }


def _lint(tmp_path: Path, layers: list[dict[str, Any]], **kw: Any) -> list[Finding]:
    path = tmp_path / "model.layers.json"
    path.write_text(json.dumps({"Layers": layers, "Bindings": []}), encoding="utf-8")
    return trtlog.lint(trtlog.load_engine(path), **kw)


F16_GEMM = (
    "sm86_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize64x64x64_stage4_warpsize2x2x1_tensor16x8x16"
)
I8_GEMM = "sm86_xmma_gemm_i8i8_i8i32_f32_tn_n_tilesize128x128x64_stage3_warpsize2x2x1_tensor16x8x32"


def _split_region(dq_ops: list[str], gemm_in: str = "Half", tactic: str = F16_GEMM) -> list[Any]:
    dq = "/blocks.3/mlp/fc1/input_quantizer/DequantizeLinear"
    return [
        _kernel(
            "__myl_CastMulTran_myl0_7",
            "kgen",
            [_tensor("__mye2201", [1, 197, 768], "Int8")],
            [_tensor("__mye2203", [1, 768, 197], "Half")],
            "__myl_CastMulTran_0x71c3f09a2b6e4d58c1a0e9b7f3d26c84",
            [dq, *dq_ops],
        ),
        _kernel(
            "/blocks_3/mlp/fc1/MatMul_myl0_8",
            "gemm",
            [_tensor("__mye2203", [1, 768, 197], gemm_in)],
            [_tensor("__mye2205", [1, 3072, 197], "Half")],
            tactic,
            ["/blocks.3/mlp/fc1/MatMul", "/blocks.3/mlp/fc1/weight_quantizer/DequantizeLinear"],
        ),
    ]


def test_a_dequantizing_kernel_before_a_half_gemm_is_a_split_region(tmp_path: Path) -> None:
    (f,) = of(_lint(tmp_path, _split_region(["/blocks.3/mlp/Transpose"])), "qdq-myelin-split")
    assert f.severity == "warning"
    assert f.subject == "/blocks.3/mlp/fc1/MatMul"
    assert f.evidence.layers == (0, 1)
    assert f.message.startswith(
        "__myl_CastMulTran_myl0_7 runs the DQ node /blocks.3/mlp/fc1/input_quantizer/"
        "DequantizeLinear on its own and writes FP16; the GEMM kernel "
        "/blocks_3/mlp/fc1/MatMul_myl0_8 then reads FP16 and runs the float kernel"
    )
    # the DQ is not in the GEMM's record: this is not qdq-gemm-float-kernel's case
    assert not of(_lint(tmp_path, _split_region([])), "qdq-gemm-float-kernel")


@pytest.mark.parametrize(
    ("ops", "gemm_in", "tactic", "why"),
    [
        (["/blocks.3/Add", "/blocks.3/act/Relu"], "Half", F16_GEMM, "the DQ feeds an Add"),
        (["/blocks.3/mlp/Transpose"], "Int8", I8_GEMM, "the GEMM reads INT8"),
        (["/blocks.3/mlp/Transpose"], "Half", I8_GEMM, "a quantized kernel"),
    ],
)
def test_no_split_where_the_region_is_whole_or_the_dq_feeds_something_else(
    tmp_path: Path, ops: list[str], gemm_in: str, tactic: str, why: str
) -> None:
    assert not of(_lint(tmp_path, _split_region(ops, gemm_in, tactic)), "qdq-myelin-split"), why


def test_a_split_across_two_myelin_graphs_is_not_one_region(tmp_path: Path) -> None:
    layers = _split_region(["/blocks.3/mlp/Transpose"])
    layers[0]["Name"] = "__myl_CastMulTran_myl1_7"  # another ForeignNode's kernel
    assert not of(_lint(tmp_path, layers), "qdq-myelin-split")


def _attention(softmax: str, metadata: list[str]) -> list[Any]:
    return [
        _kernel(
            "__mye6723_unroll0_myl0_4",
            "gemm",
            [
                _tensor("__mye7021", [48, 197, 64], "Half"),
                _tensor("__mye7027", [48, 64, 197], "Half"),
            ],
            [_tensor("__mye7031", [48, 197, 197], "Half")],
            F16_GEMM,
            [],
        ),
        _kernel(
            f"{softmax}_myl0_5",
            "kgen",
            [_tensor("__mye7031", [48, 197, 197], "Half")],
            [_tensor("__mye7035", [48, 197, 197], "Half")],
            f"{softmax}_0x5be2a77c0d6f41e9b38c4a1d9e07f2c6",
            metadata,
        ),
        _kernel(
            "__mye6730_unroll0_myl0_6",
            "gemm",
            [
                _tensor("__mye7035", [48, 197, 197], "Half"),
                _tensor("__mye7040", [48, 197, 64], "Half"),
            ],
            [_tensor("__mye7044", [48, 197, 64], "Half")],
            F16_GEMM,
            [],
        ),
    ]


def test_attention_split_into_myelin_kernels_without_onnx_metadata(tmp_path: Path) -> None:
    (f,) = of(_lint(tmp_path, _attention("__myl_MaxrSubExpSumDiv", [])), "attention-not-fused")
    assert f.subject == "__myl_MaxrSubExpSumDiv_myl0_5"
    assert f.evidence.layers == (0, 1, 2)
    # with the Softmax named in its metadata, the same
    named = _attention("__myl_MaxrSubExpSumDiv", ["/attn/Softmax"])
    assert of(_lint(tmp_path, named), "attention-not-fused")


def test_an_activation_kernel_between_two_gemms_is_not_a_softmax(tmp_path: Path) -> None:
    """SiLU compiles to Neg, Exp, Add, Div, Mul: an exponential without a row sum."""
    assert not of(_lint(tmp_path, _attention("__myl_NegExpAddDivMul", [])), "attention-not-fused")


def test_a_plain_gemm_named_after_attention_is_not_a_fused_attention_kernel(
    tmp_path: Path,
) -> None:
    """Torch-TensorRT names a GEMM after its module (NVIDIA/TensorRT#3665)."""
    layers = _attention("__myl_MaxrSubExpSumDiv", [])
    layers[2]["Name"] = (
        "[MATRIX_MULTIPLY]_[scaled_dot_product_attention]_[x11_qkv]_matrix_multiply_myl0_6"
    )
    found = _lint(tmp_path, layers)
    (region,) = of(found, "myelin-subkernels")
    assert "fused attention" not in region.message
    assert of(found, "attention-not-fused")


def test_fp8_and_w4a8_gemms_running_half(tmp_path: Path) -> None:
    def gemm(nodes: list[str], dtype: str = "Half", tactic: str = F16_GEMM) -> list[Any]:
        return [
            _kernel(
                "/model/layers_0/self_attn/q_proj/MatMul_myl0_12",
                "gemm",
                [_tensor("__mye4410", [1, 512, 4096], dtype)],
                [_tensor("__mye4412", [1, 512, 4096], "Half")],
                tactic,
                ["/model/layers.0/self_attn/q_proj/MatMul", *nodes],
            )
        ]

    q = "/model/layers.0/self_attn/q_proj"
    fp8 = [
        f"{q}/input_quantizer/TRT_FP8DequantizeLinear",
        f"{q}/weight_quantizer/TRT_FP8DequantizeLinear",
    ]
    w4a8 = [
        f"{q}/input_quantizer/TRT_FP8DequantizeLinear",
        f"{q}/weight_quantizer/TRT_INT4DequantizeLinear",
    ]
    w4a16 = [f"{q}/weight_quantizer/TRT_INT4DequantizeLinear"]
    assert of(_lint(tmp_path, gemm(fp8)), "qdq-gemm-float-kernel")
    assert of(_lint(tmp_path, gemm(w4a8)), "qdq-gemm-float-kernel")
    assert not of(_lint(tmp_path, gemm(w4a16)), "qdq-gemm-float-kernel")  # weight-only
    e4m3 = "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1"
    assert not of(_lint(tmp_path, gemm(fp8, "FP8", e4m3)), "qdq-gemm-float-kernel")


def test_the_healthy_11x_qdq_engine_gives_no_modern_qdq_finding() -> None:
    engine = trtlog.load_engine(
        FIXTURES / "layer_info" / "trt11.5-like_smallnet-qdq-int8_layers-detailed.json"
    )
    rules = ["qdq-myelin-split", "qdq-gemm-float-kernel", "attention-not-fused"]
    assert trtlog.lint(engine, rules=rules) == []


@needs_corpus
def test_the_corpus_myelin_qdq_engine_has_no_split_region() -> None:
    """The lidar Q/DQ engine (10.x Myelin, 1,309 kernels) keeps its DQ nodes in its kernels."""
    from tests.conftest import CORPUS

    engine = trtlog.load_engine(
        CORPUS / "trt-unknown_lidar-dmt-model-qdq-tofp16_layers-detailed.json"
    )
    assert sum(1 for x in engine.layers if x.myelin is not None) > 1000
    assert trtlog.lint(engine, rules=["qdq-myelin-split"]) == []


def test_a_softmax_split_over_two_generated_kernels(tmp_path: Path) -> None:
    """Max-subtract-exp-sum, then the division (as the corpus 10.16 classifier compiles it)."""
    layers = _attention("__myl_MaxrSubExpSum", [])
    div = _kernel(
        "__myl_DivCast_myl0_6",
        "kgen",
        [_tensor("__mye7035", [48, 197, 197], "Half")],
        [_tensor("__mye7036", [48, 197, 197], "Half")],
        "__myl_DivCast_0x3a7f1c9e0b5d42e68f1a2c3b4d5e6f70",
        [],
    )
    layers[2]["Name"] = "__mye6730_unroll0_myl0_7"
    layers[2]["Inputs"][0]["Name"] = "__mye7036"
    (f,) = of(_lint(tmp_path, [*layers[:2], div, layers[2]]), "attention-not-fused")
    assert f.subject == "__myl_MaxrSubExpSum_myl0_5"
    assert f.evidence.layers == (0, 1, 3)
