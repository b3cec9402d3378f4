"""The pass glossary and the shared pass/removal/Q/DQ definitions (trtlog.buildlog.passes)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, corpus_logs, needs_corpus
from trtlog.buildlog.passes import PASS_GLOSSARY, UNKNOWN_PASS, describe_pass, pass_records

LOGS = sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs()


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_pass_and_stage_of_the_logs_is_described(path: Path) -> None:
    build = trtlog.parse(path)
    names = {r["pass_name"] for r in pass_records(build)}
    names |= {e.stage for e in build.events_of("layer_count") if e.stage != "Original"}  # type: ignore[union-attr]
    unknown = sorted(n for n in names if n not in PASS_GLOSSARY)
    assert unknown == []
    frame = build.passes_frame()
    assert (frame["description"] == frame["pass_name"].map(PASS_GLOSSARY)).all()


def test_an_unknown_pass_says_so() -> None:
    head = "[01/10/2024-21:52:53] [V] [TRT] "
    build = trtlog.parse_text(
        f"{head}Running: FancyNewFusion on a\n{head}FancyNewFusion: Fusing a with b\n"
    )
    frame = build.passes_frame()
    assert frame["description"].tolist() == [UNKNOWN_PASS]
    assert "not in trtlog's pass glossary" in UNKNOWN_PASS
    assert describe_pass(None) == UNKNOWN_PASS


def test_descriptions_are_one_line() -> None:
    assert all("\n" not in text and text == text.strip() for text in PASS_GLOSSARY.values())
    assert all(len(text) < 260 for text in PASS_GLOSSARY.values())


def test_the_glossary_page_lists_every_pass() -> None:
    page = (FIXTURES.parent / "docs" / "passes.md").read_text(encoding="utf-8")
    missing = [name for name in PASS_GLOSSARY if f"`{name}`" not in page]
    assert missing == []


# -- one attribution rule for every view ------------------------------------------


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_frames_graph_and_pass_diff_credit_every_fusion_to_the_same_pass(path: Path) -> None:
    from trtlog.diff.passes import _fusion_events

    build = trtlog.parse(path)
    frame = build.fusions_frame()
    by_line = {(r.line, r.kind): r.pass_name for r in frame.itertuples()}
    compared, _runs = _fusion_events(build)
    assert len(compared) == len(frame)
    for fusion in compared:
        framed = by_line[fusion.line, fusion.kind]
        assert fusion.pass_name == (None if framed is pd.NA else framed), fusion
    graph = build.merge_graph()
    credited = {(d["line"], d["pass_name"]) for _, _, d in graph.edges(data=True) if d["line"]}
    lines = {line for line, _ in credited}
    for (line, _kind), name in by_line.items():
        if line in lines:  # the graph may have folded an edge into a later one (rounds)
            assert (line, None if name is pd.NA else name) in credited, (line, name)


@needs_corpus
def test_merges_after_the_last_pass_are_the_tensor_merging_stage() -> None:
    """centerpoint 8.2.3: the five ``Merging layers`` lines (1747-1751) follow ``After final
    dead-layer removal: 88 layers`` (1746) and precede ``After tensor merging: 57 layers``
    (1752): the tensor-merging stage's, not the last ``Running: ConvReluFusion`` (1740)."""
    path = CORPUS / "trt8.2.3_centerpoint-rpn-centerhead-fp16_build-verbose.log"
    build = trtlog.parse(path)
    lines = build.lines
    assert lines[1745].endswith("After final dead-layer removal: 88 layers\n")
    assert lines[1751].endswith("After tensor merging: 57 layers\n")
    merges = [e for e in build.events_of("horizontal_merge") if 1747 <= e.span[0] <= 1751]
    assert len(merges) == 5
    assert {build.pass_index.of(e) for e in merges} == {"HorizontalMerge"}
    assert {build.pass_index.at(e.span[0]) for e in merges} == {None}  # no pass is running
    cmp = trtlog.compare(
        build,
        trtlog.parse(FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"),
    )
    assert cmp.passes is not None
    merged = [f for f in cmp.passes.only_a if f.kind == "horizontal_merge"]
    assert [f.line for f in merged] == [1747, 1748, 1749, 1750, 1751]
    assert {f.pass_name for f in merged} == {"HorizontalMerge"}


def test_a_qdq_phase_ends_the_pass_before_it() -> None:
    head = "[V] [TRT] "
    build = trtlog.parse_text(
        f"{head}Running: QuantizeDoubleInputNodes on conv\n"
        f"{head}QDQ graph optimizer - constant folding of Q/DQ initializers\n"
        f"{head}Removing scale\n"
    )
    assert build.pass_index.at(1) == "QuantizeDoubleInputNodes"
    assert build.pass_index.at(3) is None
    assert build.removals_frame()["pass_name"].isna().all()
    edges = [d for _, _, d in build.merge_graph().edges(data=True) if d["line"] == 3]
    assert [(d["relation"], d["pass_name"]) for d in edges] == [("removed by", None)]
