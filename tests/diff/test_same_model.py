"""Same model or not: every pair of engines the corpus holds.

Structure alone pairs most layers of two different CNNs (ResNet-18 against MobileNet QAT: 22
of 24); :attr:`Comparison.same_model` reads what tells models apart (convolutions, weights,
ONNX names) and :attr:`Comparison.alignment_failed` makes a pair of two models not comparable.
Every pair of the corpus's engines is checked: different models never compare, the same model
is never judged two, and the same-model pairs that aligned before still align.
"""

from __future__ import annotations

import itertools
import re
import tomllib
import warnings
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus
from trtlog.diff import Comparison, compare_engines
from trtlog.diff.structure import fingerprint
from trtlog.engine import Engine
from trtlog.inputs import open_input

pytestmark = needs_corpus

#: every corpus file that holds an engine, and the model it is a build of
MODELS: dict[str, str] = tomllib.loads(
    (Path(__file__).with_name("corpus_models.toml")).read_text(encoding="utf-8")
)

#: same-model pairs whose layers cannot be paired: different exports whose names do not match,
#: where one side has no layer types (names only) or runs its convolutions inside Myelin
#: regions; and a Myelin region listed whole against its 88 kernels (nothing but the place
#: pairs them, and nothing tells the model). All but the last failed before the judgment too.
NOT_ALIGNED = {
    (
        "seeds/trt10.10_bert-matcher-fp16_engine-layer-info-names-only.log",
        "seeds/trt10.10_bert-matcher-fp16_engine-layers-detailed.log",
    ),
    (
        "seeds/trt10.x_resnet18-v1-7-fp16-int8_layers-names.json",
        "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
    ),
    (
        "seeds/trt10.x_resnet18-v1-7-fp16-int8_layers-names.json",
        "trt10.x_resnet18-torch-tensorrt_layers-detailed-inspector-indented.json",
    ),
    (
        "seeds/trt10.x_resnet18-v1-7-fp16-int8_layers-names.json",
        "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log",
    ),
    (
        "seeds/trt10.x_resnet18-v1-7-fp16-int8_layers-names.json",
        "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json",
    ),
    (
        "seeds/trt10.x_resnet18-v1-7-fp16-int8_layers-names.json",
        "trt8.x_resnet-pytorch-qat-int8-a100-trex_layers-detailed.json",
    ),
    (
        "seeds/trt10.x_resnet18-v1-7-fp16-int8_layers-names.json",
        "trt8.x_resnet-pytorch-qat-residual-int8-a100-trex_layers-detailed.json",
    ),
    (
        "seeds/trt10.x_resnet18-v1-7-fp16-int8_layers-names.json",
        "trt8.x_resnet-pytorch-qat-residual-qgap-int8-a100-trex_layers-detailed.json",
    ),
    (
        "trt10.14.1_cookbook-mnist-cnn-fp16_build-verbose-trtexec.log",
        "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
    ),
    (
        "trt10.14.1_cookbook-mnist-cnn-fp16_build-verbose-trtexec.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt10.14.1_cookbook-mnist-cnn-fp16_build-verbose-trtexec.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt10.14.1_cookbook-mnist-cnn-fp16_build-verbose-trtexec.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
        "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
        "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
        "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
    (
        "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-3builds-profilingverbosity.log",
        "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
    (
        "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-3builds-profilingverbosity.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-3builds-profilingverbosity.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt10.16.2_cookbook-mnist-cnn-fp32-2profiles-sm90_build-verbose-pylogger-3builds-profilingverbosity.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
    (
        "trt10.16.2_cookbook-mnist-cnn-sparse-weights-sm90_build-verbose-pylogger.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt10.16.2_cookbook-mnist-cnn-sparse-weights-sm90_build-verbose-pylogger.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt10.16.2_cookbook-mnist-cnn-sparse-weights-sm90_build-verbose-pylogger.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
    (
        "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
    (
        "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
        "trt8.4.1_cookbook-mnist-cnn-fp32_layers-names.json",
    ),
    (
        "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
    ),
    (
        "trt8.2.3_cookbook-mnist-cnn-fp32_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
}


@pytest.fixture(scope="module")
def engines() -> dict[str, Engine]:
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        for name in MODELS:
            opened = open_input(CORPUS / name, want=("log", "layers"))
            engine = opened.build.engine if opened.build is not None else opened.engine
            assert engine is not None, name
            out[name] = engine
    return out


@pytest.fixture(scope="module")
def pairs(engines: dict[str, Engine]) -> dict[tuple[str, str], Comparison]:
    return {
        (a, b): compare_engines(engines[a], engines[b])
        for a, b in itertools.combinations(sorted(engines), 2)
    }


def test_every_engine_of_the_corpus_is_in_the_catalogue() -> None:
    found = set()
    for path in sorted([*CORPUS.glob("*"), *(CORPUS / "seeds").glob("*")]):
        if path.name.endswith(("_layers-detailed.json", "_layers-names.json")):
            found.add(str(path.relative_to(CORPUS)))
    assert found <= set(MODELS)


def test_different_models_never_compare(pairs: dict[tuple[str, str], Comparison]) -> None:
    wrong = [
        (a, b, cmp.model_evidence)
        for (a, b), cmp in pairs.items()
        if MODELS[a] != MODELS[b] and not (cmp.alignment_failed and cmp.same_model is not True)
    ]
    assert len(pairs) == 990
    assert not wrong


def test_the_same_model_is_never_judged_two(pairs: dict[tuple[str, str], Comparison]) -> None:
    same = {k: c for k, c in pairs.items() if MODELS[k[0]] == MODELS[k[1]]}
    assert len(same) == 140
    assert not [(k, c.model_evidence) for k, c in same.items() if c.same_model is False]
    aligned = {k for k, c in same.items() if not c.alignment_failed}
    assert aligned == set(same) - NOT_ALIGNED
    assert all(same[k].same_model is True for k in aligned)


def test_resnet18_against_mobilenet_qat_is_two_models(
    pairs: dict[tuple[str, str], Comparison],
) -> None:
    cmp = pairs[
        (
            "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
            "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json",
        )
    ]
    paired, possible = cmp.alignment()
    assert (paired, possible) == (21, 24)  # structure pairs most layers...
    assert cmp.same_model is False  # ...of two models
    assert cmp.alignment_reason is not None
    assert cmp.alignment_reason.startswith("two different models: 0 of 52 convolutions alike")
    assert any("alignment failed: two different models" in n for n in cmp.notes)


def test_bev_model_holding_a_resnet18_backbone_is_another_model(
    pairs: dict[tuple[str, str], Comparison],
) -> None:
    # its image encoder is a ResNet-18 with the same ONNX names: 20 of its layers pair by name
    cmp = pairs[
        (
            "trt-unknown_bev-as-model-fp16_layers-detailed-prettyprinted.json",
            "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
        )
    ]
    assert cmp.paired_by_name == 20
    assert cmp.same_model is False and cmp.alignment_failed


_WEIGHTS = re.compile(r'"(?:Weights|Bias)"\s*:\s*\{[^{}]*?"Count"\s*:\s*(\d+)')


@pytest.mark.parametrize(
    "name",
    [
        "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json",
        "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json",
        "trt8.6_controlnet-fp16_layers-detailed.json",
    ],
)
def test_weight_totals_equal_the_raw_json(engines: dict[str, Engine], name: str) -> None:
    raw = (CORPUS / name).read_text()
    assert fingerprint(engines[name].layers).weights == sum(map(int, _WEIGHTS.findall(raw)))


def test_convolutions_equal_the_raw_json(engines: dict[str, Engine]) -> None:
    name = "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json"
    raw = (CORPUS / name).read_text()
    # 20 convolutions and the FC (a 1x1 convolution on a 1x1 map, left out)
    assert len(re.findall(r'"ParameterType"\s*:\s*"Convolution"', raw)) == 21
    fp = fingerprint(engines[name].layers)
    assert fp.convs.total() == fp.widths.total() == 20


def test_resnet_qat_against_fp16_keeps_its_verdict() -> None:
    build = CORPUS / "trt8.x_resnet-pytorch-qat-int8-a100-trex_layers-detailed.json"
    reference = CORPUS / "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json"
    report = trtlog.lint(
        build,
        profile=build.with_name(build.name.replace("layers-detailed", "profile")),
        reference=reference,
        reference_profile=reference.with_name(reference.name.replace("layers-detailed", "profile")),
    )
    rules = {f.rule for f in report}
    assert "int8-slower-than-reference" in rules
    assert "reference-alignment-failed" not in rules


def test_mobilenet_qat_against_resnet50_gets_no_verdict() -> None:
    build = CORPUS / "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json"
    reference = CORPUS / "trt8.6.1_resnet50-int8_layers-detailed.json"
    report = trtlog.lint(
        build,
        profile=build.with_name(build.name.replace("layers-detailed", "profile")),
        reference=reference,
        reference_profile=reference.with_name(reference.name.replace("layers-detailed", "profile")),
    )
    found = {f.rule: f for f in report}
    assert "int8-slower-than-reference" not in found
    assert found["reference-alignment-failed"].subject == "another model"
    assert "two different models" in found["reference-alignment-failed"].message


def test_diff_says_the_pair_is_two_models(capsys: pytest.CaptureFixture[str]) -> None:
    from trtlog.cli import main

    a = CORPUS / "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json"
    b = CORPUS / "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        assert main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "Alignment failed: two different models: 0 of 52 convolutions alike" in out
    assert "Same model? two models" in out
    assert "Precision changes" not in out and "Tactic changes" not in out
