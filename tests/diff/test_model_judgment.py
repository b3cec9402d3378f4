"""Same model or not, on engines written for each signal (no corpus needed).

:func:`trtlog.diff.structure.fingerprint` reads an engine's convolutions and weights;
:func:`trtlog.diff.structure.judge_model` weighs them with the names;
:attr:`Comparison.alignment_failed` reads the judgment. The corpus pairs are in
``test_same_model.py``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from trtlog.diff import compare_engines
from trtlog.diff.structure import Fingerprint, fingerprint, judge_model
from trtlog.diff.text import render_summary
from trtlog.engine.model import Engine, EngineLayer
from trtlog.tensors import Tensor


def _conv(index: int, name: str, maps: int, weights: int, **extra: Any) -> EngineLayer:
    params = {
        "Kernel": [3, 3],
        "Stride": [1, 1],
        "Groups": 1,
        "OutMaps": maps,
        "Weights": {"Type": "Half", "Count": weights},
        "Bias": {"Type": "Half", "Count": maps},
        **extra,
    }
    return EngineLayer(
        index=index,
        name=name,
        type="CaskConvolution",
        parameter_type="Convolution",
        parameters=params,
        outputs=(Tensor(name=f"t{index}", dims=(1, maps, 28, 28)),),
        onnx_nodes=(name,),
        onnx_source="name",
    )


def _engine(*layers: EngineLayer) -> Engine:
    return Engine(source="x", origin="layer_json", detailed=True, layers=layers)


def test_fingerprint_counts_each_layer_once_and_leaves_fully_connected_layers_out() -> None:
    fc = EngineLayer(
        index=3,
        name="fc",
        type="CaskGemmConvolution",
        parameters={"Kernel": [1, 1], "OutMaps": 10, "Weights": {"Count": 640}},
        outputs=(Tensor(name="o", dims=(1, 10, 1, 1)),),
    )
    layers = [
        _conv(0, "c1", 16, 144),
        _conv(1, "c1 [profile 1]", 16, 144),  # the same layer for profile 1
        _conv(2, "c2", 32, 4608),
        fc,
    ]
    fp = fingerprint(layers)
    assert fp.weights == 144 + 16 + 4608 + 32 + 640
    assert dict(fp.widths) == {16: 1, 32: 1}  # the FC (a 1x1 map) is not a convolution here
    assert fp.convs.total() == 2
    assert not fp.partial and not fp.regions


def test_myelin_layers_make_the_weights_a_lower_bound() -> None:
    region = EngineLayer(index=1, name="{ForeignNode[/fc/Gemm]}", type="Myelin")
    fp = fingerprint([_conv(0, "c1", 16, 144), region])
    assert fp.partial and fp.regions


def test_weights_tell_one_model_or_two() -> None:
    def fp(weights: int, partial: bool = False) -> Fingerprint:
        return Fingerprint(weights=weights, partial=partial)

    assert judge_model(fp(1000), fp(1020), 0, (0, 0)).same is True
    two = judge_model(fp(1000), fp(1300), 0, (0, 0))
    assert two.same is False and two.evidence[0].endswith("(1.3x): two models")
    # a lower bound says nothing unless it is above the other's whole total
    assert judge_model(fp(500, partial=True), fp(1000), 0, (0, 0)).same is None
    assert judge_model(fp(2000, partial=True), fp(1000), 0, (0, 0)).same is False
    assert judge_model(fp(2000, partial=True), fp(1000, partial=True), 0, (0, 0)).same is None


def test_convolutions_hidden_in_a_myelin_region_are_not_two_models() -> None:
    full = Fingerprint(widths=Counter({32: 1, 64: 1, 1024: 1, 10: 1}))
    hidden = Fingerprint(widths=Counter({32: 1, 64: 1}), regions=True)
    assert judge_model(hidden, full, 0, (0, 0)).same is True
    # without the region, half the convolutions missing is another model
    assert judge_model(Fingerprint(widths=hidden.widths), full, 0, (0, 0)).same is False
    # and a region cannot hide 50 convolutions behind 2 that happen to match
    many = Fingerprint(widths=Counter({32: 1, 64: 1, 96: 50}))
    assert judge_model(hidden, many, 0, (0, 0)).same is False


def test_names_say_one_model_and_convolutions_overrule_them() -> None:
    assert judge_model(Fingerprint(), Fingerprint(), 6, (10, 12)).same is True
    assert judge_model(Fingerprint(), Fingerprint(), 4, (10, 12)).same is None
    # a backbone with the same ONNX names inside a bigger model
    small = Fingerprint(widths=Counter({64: 4, 128: 4}))
    big = Fingerprint(widths=Counter({64: 4, 128: 4, 256: 40}))
    judged = judge_model(small, big, 8, (8, 60))
    assert judged.same is False
    assert judged.evidence == (
        "8 of 48 convolutions alike (output maps): two models",
        "8 of 8 named computing layers paired by ONNX name: one model",
    )


def test_a_pair_nothing_tells_apart_is_not_compared() -> None:
    # one convolution each, of another name and no weights: pairs by shape, tells nothing
    def engine(name: str) -> Engine:
        layer = _conv(0, name, 16, 144)
        return _engine(layer.model_copy(update={"parameters": {}}))

    cmp = compare_engines(engine("/a/conv/Conv"), engine("/b/other/Conv"))
    assert cmp.alignment() == (1, 1)
    assert cmp.same_model is None and cmp.alignment_failed
    assert cmp.alignment_reason is not None
    assert cmp.alignment_reason.startswith("nothing shows these are builds of one model")
    text = render_summary(cmp.summary())
    assert "Alignment failed: nothing shows these are builds of one model" in text
    assert "Same model? not told" in text


def test_an_engine_against_itself_is_one_model() -> None:
    # generated Myelin kernels only: no ONNX name, no convolution, no weight
    kernels = [EngineLayer(index=k, name=f"__myl_Add_myl0_{k}", type="kgen") for k in range(3)]
    cmp = compare_engines(_engine(*kernels), _engine(*kernels))
    assert cmp.same_model is True and not cmp.alignment_failed
    assert cmp.model_evidence[0] == "the same 3 layer names in the same order: one model"


def test_two_models_say_why_in_the_summary() -> None:
    a = _engine(_conv(0, "/a/c1", 16, 144), _conv(1, "/a/c2", 32, 4608))
    b = _engine(_conv(0, "/b/c1", 24, 216), _conv(1, "/b/c2", 48, 10368))
    cmp = compare_engines(a, b)
    assert cmp.same_model is False and cmp.alignment_failed
    summary = cmp.summary()
    assert summary.same_model is False
    assert summary.alignment_reason == cmp.alignment_reason
    assert summary.alignment_reason is not None
    assert summary.alignment_reason.startswith("two different models: 0 of 2 convolutions")
    assert not summary.precision_changes and not summary.tactic_changes
