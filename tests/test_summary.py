"""The summary (trtlog.summary): every figure checked against the raw log text (issue 12)."""

from __future__ import annotations

import re

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.summary import Summary, summarize

LOGS = FIXTURES / "logs"
YOLO = LOGS / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
RESNET18_QAT = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"


@pytest.fixture(scope="module")
def yolo() -> Summary:
    return summarize(trtlog.parse(YOLO))


def test_removals_count_each_removed_layer_once(yolo: Summary) -> None:
    text = YOLO.read_text(encoding="utf-8")
    removing = text.count("] Removing ")  # 15, two of them confirm a Q/DQ duplicate
    eliminations = len(re.findall(r"\] Eliminating (?:slice|concatenation) ", text))
    assert (removing, eliminations) == (15, 5)
    assert yolo.removals == removing + eliminations == 20


@needs_corpus
def test_resnet18_qat_removals() -> None:
    summary = summarize(trtlog.parse(RESNET18_QAT))
    text = RESNET18_QAT.read_text(encoding="utf-8")
    assert text.count("] Removing ") == 264
    assert len(re.findall(r"\] Eliminating (?:slice|concatenation) ", text)) == 0
    assert summary.removals == 264
