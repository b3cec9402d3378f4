"""``sparsity-not-chosen`` and ``tactics-fast-skipped`` on the corpus logs that print them."""

from __future__ import annotations

import re

import trtlog
from tests.conftest import CORPUS, needs_corpus
from trtlog.events import SparsityChosen, SparsityEligible, TacticFastSkipped

SPARSE = CORPUS / "trt10.16.2_cookbook-mnist-cnn-sparse-weights-sm90_build-verbose-pylogger.log"
FAST_SKIP = CORPUS / "trt8.6.1_mobilenetv2-int8-no-calibration_build-verbose.log"
FOUND = re.compile(
    r"(?P<myelin>\(foreignNode\) )?\(Sparsity\) Found (?P<n>\d+) layer\(s\) eligible"
)
CHOSE = re.compile(r"(?P<myelin>\(foreignNode\) )?\(Sparsity\) Chose (?P<n>\d+) layer\(s\)")


@needs_corpus
def test_sparsity_events_equal_the_raw_lines() -> None:
    text = SPARSE.read_text(encoding="utf-8")
    build = trtlog.parse(SPARSE)
    found = build.of(SparsityEligible)
    chose = build.of(SparsityChosen)
    assert [(e.count, e.myelin) for e in found] == [
        (int(m.group("n")), m.group("myelin") is not None) for m in FOUND.finditer(text)
    ]
    assert [(e.count, e.myelin) for e in chose] == [
        (int(m.group("n")), m.group("myelin") is not None) for m in CHOSE.finditer(text)
    ]
    assert all(len(e.layers) == e.count for e in found)


@needs_corpus
def test_sparsity_eligible_but_none_chosen() -> None:
    build = trtlog.parse(SPARSE)
    findings = [f for f in trtlog.lint(build) if f.rule == "sparsity-not-chosen"]
    text = SPARSE.read_text(encoding="utf-8")
    pairs = [
        (int(a.group("n")), int(b.group("n")))
        for a, b in zip(FOUND.finditer(text), CHOSE.finditer(text), strict=True)
    ]
    assert len(findings) == sum(1 for n, k in pairs if k < n)
    for f in findings:
        assert f.severity == "info"
        assert all(
            FOUND.search(build.lines_text(n)) or CHOSE.search(build.lines_text(n))
            for n in f.evidence.lines
        )
        m = re.search(r"found (\d+) layers? eligible for sparse tactics and chose (\d+)", f.message)
        assert m is not None and (int(m.group(1)), int(m.group(2))) in pairs


@needs_corpus
def test_fast_skipped_count_against_the_raw_text() -> None:
    text = FAST_SKIP.read_text(encoding="utf-8")
    raw = re.findall(r"Fast skip Tactic:(0x[0-9a-f]+) which exceed time limit during pre-run", text)
    assert len(raw) > 20
    build = trtlog.parse(FAST_SKIP)
    assert [f"0x{e.tactic:016x}" for e in build.of(TacticFastSkipped)] == raw
    (f,) = [x for x in trtlog.lint(build) if x.rule == "tactics-fast-skipped"]
    assert f.subject == f"{len(raw)} tactics"
    assert f"({len(set(raw))} distinct)" in f.message
    assert f.evidence.matched == len(raw) and len(f.evidence.lines) == 20
    assert f"(+{len(raw) - 8})" in f.to_text()


@needs_corpus
def test_quiet_without_the_lines() -> None:
    path = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log"
    text = path.read_text(encoding="utf-8")
    assert "Fast skip" not in text and "(Sparsity)" not in text
    rules = {f.rule for f in trtlog.lint(path)}
    assert not rules & {"tactics-fast-skipped", "sparsity-not-chosen"}
