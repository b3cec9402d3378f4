"""The reference rules read the alignment: no verdict from pairs of unrelated layers.

``qdq-split-fusion`` and ``int8-slower-than-reference`` judge a build layer by layer against
``--reference``; when the layers do not align (``Comparison.alignment_failed``, what ``diff``
and the report show as "Alignment failed") they stay silent and ``reference-alignment-failed``
(info) says why, with the totals when both builds are timed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from tests.findings.inputs import TINY_FP16, TINY_FP16_PROFILE, TINY_INT8, TINY_INT8_PROFILE, of
from trtlog._display import number
from trtlog.diff.models import Comparison
from trtlog.html.page import decode_embedded

RESNET_QAT = CORPUS / "trt8.x_resnet-pytorch-qat-int8-a100-trex_layers-detailed.json"
RESNET_QAT_PROFILE = CORPUS / "trt8.x_resnet-pytorch-qat-int8-a100-trex_profile.json"
RESNET_FP16 = CORPUS / "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json"
RESNET_FP16_PROFILE = CORPUS / "trt8.x_resnet-pytorch-fp16-a100-trex_profile.json"
# another model altogether: a ViT attention block (the fixture's own FP16 export)
VIT = FIXTURES / "layer_info" / "trt8.2-like_vit-attention-fp16_layers-detailed.json"
VIT_PROFILE = FIXTURES / "layer_info" / "trt8.2-like_vit-attention-fp16.profile.json"

REFERENCE_RULES = ("qdq-split-fusion", "int8-slower-than-reference", "reference-alignment-failed")


def _profile_total(path: Path) -> float:
    """The sum of a profile's ``averageMs``, read from the raw text."""
    return sum(float(v) for v in re.findall(r'"averageMs"\s*:\s*([-+0-9.eE]+)', path.read_text()))


@needs_corpus
def test_a_reference_of_another_model_gets_no_verdict_but_the_reason() -> None:
    findings = trtlog.lint(
        RESNET_QAT,
        profile=RESNET_QAT_PROFILE,
        reference=VIT,
        reference_profile=VIT_PROFILE,
        rules=list(REFERENCE_RULES),
    )
    # the INT8 ResNet takes longer than the FP16 attention block: int8-slower-than-reference
    # used to say "quantization made this engine slower" from that
    assert not of(findings, "int8-slower-than-reference")
    assert not of(findings, "qdq-split-fusion")
    (f,) = of(findings, "reference-alignment-failed")
    assert f.severity == "info"
    cmp = trtlog.compare(VIT, RESNET_QAT)
    assert cmp.alignment_failed
    paired, possible = cmp.alignment()
    assert possible > 0 and paired < possible / 2
    assert f.subject == f"{paired} of {possible} layers paired"
    # the totals are facts, read from the raw profiles
    build_ms, reference_ms = _profile_total(RESNET_QAT_PROFILE), _profile_total(VIT_PROFILE)
    assert build_ms > reference_ms
    assert (
        f"this build's layers take {number(build_ms)} ms per inference against "
        f"{number(reference_ms)} ms in the reference" in f.message
    )
    assert "int8-slower-than-reference" in f.why and "--reference" in f.mitigation


@needs_corpus
def test_a_reference_of_the_same_model_keeps_its_verdict() -> None:
    findings = trtlog.lint(
        RESNET_QAT,
        profile=RESNET_QAT_PROFILE,
        reference=RESNET_FP16,
        reference_profile=RESNET_FP16_PROFILE,
        rules=list(REFERENCE_RULES),
    )
    assert not of(findings, "reference-alignment-failed")
    (f,) = of(findings, "int8-slower-than-reference")
    assert f.severity == "warning"
    qat, fp16 = _profile_total(RESNET_QAT_PROFILE), _profile_total(RESNET_FP16_PROFILE)
    assert f"take {number(qat)} ms per inference against {number(fp16)} ms" in f.message


def _tiny(**kwargs: object) -> list[trtlog.Finding]:
    return trtlog.lint(
        trtlog.parse(TINY_INT8),
        profile=TINY_INT8_PROFILE,
        reference=trtlog.parse(TINY_FP16),
        reference_profile=TINY_FP16_PROFILE,
        **kwargs,  # type: ignore[arg-type]
    )


def test_a_failed_alignment_silences_the_split_fusion(monkeypatch: pytest.MonkeyPatch) -> None:
    assert of(_tiny(), "qdq-split-fusion")  # the pair aligns, and the split fusion shows
    assert not of(_tiny(), "reference-alignment-failed")
    # the same pair, as if its layers had not aligned: the groups would be of unrelated layers
    monkeypatch.setattr(Comparison, "alignment_failed", property(lambda self: True))
    found = _tiny()
    assert not of(found, "qdq-split-fusion") and not of(found, "int8-slower-than-reference")
    (f,) = of(found, "reference-alignment-failed")
    assert "no comparison verdict" in f.message


@needs_corpus
def test_the_report_shows_the_reason_next_to_its_failed_comparison() -> None:
    page = str(
        trtlog.report(
            RESNET_QAT,
            profile=RESNET_QAT_PROFILE,
            reference=VIT,
            reference_profile=VIT_PROFILE,
        )
    )
    data = decode_embedded(page)
    assert data["cmp"]["failed"] is True  # the comparison section shows totals only
    rules = {f["rule"] for f in data["findings"]}
    assert "reference-alignment-failed" in rules
    assert not rules & {"int8-slower-than-reference", "qdq-split-fusion"}
