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


def _fusion_rows(text: str) -> list[tuple[int, str]]:
    """The ``fusions`` block of a summary's text: (count, pass) rows under the header row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("fusions "))
    rows = []
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 24):
            break
        count, name = line.split(None, 1)
        rows.append((int(count), name))
    return rows


def test_every_fusing_pass_is_listed(yolo: Summary) -> None:
    text = YOLO.read_text(encoding="utf-8")
    fusing = text.count(": Fusing ") + text.count(": fusing ") + text.count("Merging layers: ")
    assert fusing == sum(yolo.fusions_by_pass.values()) == 25
    assert "PointWiseFusion: Fusing /model/taskhead22/Add_5" in text.splitlines()[186]  # line 187
    assert yolo.fusions_by_pass["PointWiseFusion"] == 1
    rows = _fusion_rows(yolo.to_text())
    assert "fusions               25 in 9 pass(es)" in yolo.to_text()
    assert len(rows) == 9 and sum(n for n, _ in rows) == 25
    assert (1, "PointWiseFusion") in rows and (5, "HorizontalMerge") in rows


def test_summary_fusions_agree_with_the_fusions_frame() -> None:
    build = trtlog.parse(YOLO)
    frame = build.fusions_frame()
    by_pass = frame["pass_name"].fillna("(no pass)").value_counts().to_dict()
    assert summarize(build).fusions_by_pass == by_pass


def test_many_passes_end_with_a_row_that_sums_the_rest() -> None:
    head = "[01/10/2024-21:52:53] [V] [TRT] "
    lines = []
    for i in range(15):
        lines += [
            f"{head}Running: Pass{i:02d} on a{i}",
            f"{head}Pass{i:02d}: Fusing a{i} with b{i}",
        ]
    lines += [f"{head}Pass00: Fusing c with d"]
    summary = summarize(trtlog.parse_text("\n".join(lines) + "\n"))
    rows = _fusion_rows(summary.to_text())
    assert "fusions               16 in 15 pass(es)" in summary.to_text()
    assert len(rows) == 12 and rows[0] == (2, "Pass00")
    assert rows[-1] == (4, "in 4 more pass(es) (--format json lists all)")
    assert sum(n for n, _ in rows) == 16


@needs_corpus
def test_resnet18_qat_fusions_by_pass_add_up() -> None:
    summary = summarize(trtlog.parse(RESNET18_QAT))
    text = RESNET18_QAT.read_text(encoding="utf-8")
    fusing = len(re.findall(r"\] \w+: (?:Fusing|fusing) ", text))
    fusing += text.count("Merging layers: ") + text.count("Fusing convolution weights from ")
    assert fusing == 115
    rows = _fusion_rows(summary.to_text())
    assert "fusions               115 in 11 pass(es)" in summary.to_text()
    assert len(rows) == 11 and sum(n for n, _ in rows) == 115
