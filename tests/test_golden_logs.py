"""Golden outputs of every fixture log: events, frames, merge graph, summary, pass differences.

``fixtures/golden/<log>/``: ``events.jsonl`` (one event per line, as ``trtlog events
--format jsonl`` writes them), one CSV per frame of a build, ``merge_graph.tsv`` (the sorted
edge list) and ``summary.json``; ``fixtures/golden/pass-diff/<a>--<b>.json``: the per-pass
fusion differences of two logs. Compared exactly; regenerate with ``pytest --update-golden``
and review the diff. A refactoring must leave every file as it is.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.graph import edge_list

GOLDEN = FIXTURES / "golden"
LOGS = sorted((FIXTURES / "logs").glob("*.log"))

FRAMES = (
    "layer_counts_frame",
    "passes_frame",
    "fusions_frame",
    "removals_frame",
    "qdq_frame",
    "tactics_frame",
    "memory_frame",
)

#: Log pairs whose per-pass fusion differences are golden (``compare(a, b).passes``).
PASS_PAIRS = [
    (
        "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log",
        "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
    ),
    (
        "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log",
        "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
    ),
]


def _check(golden: Path, text: str, update: bool) -> None:
    if update:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8"), golden.relative_to(FIXTURES)


def _texts(path: Path) -> dict[str, str]:
    build = trtlog.parse(path, name=path.name)
    events = "".join(
        json.dumps(e.model_dump(mode="json"), ensure_ascii=False) + "\n" for e in build.events
    )
    texts = {"events.jsonl": events}
    for frame in FRAMES:
        texts[frame.removesuffix("_frame") + ".csv"] = getattr(build, frame)().to_csv(
            index=False, lineterminator="\n"
        )
    texts["merge_graph.tsv"] = "\n".join(edge_list(build.merge_graph())) + "\n"
    from trtlog.summary import summarize

    texts["summary.json"] = summarize(build).model_dump_json(indent=1) + "\n"
    return texts


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_golden_log(path: Path, update_golden: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixtures' own warnings are tested elsewhere
        texts = _texts(path)
    for file, text in texts.items():
        _check(GOLDEN / path.stem / file, text, update_golden)


@pytest.mark.parametrize(("a", "b"), PASS_PAIRS, ids=lambda name: name.split("_")[1])
def test_golden_pass_differences(a: str, b: str, update_golden: bool) -> None:
    logs = FIXTURES / "logs"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = trtlog.compare(trtlog.parse(logs / a, name=a), trtlog.parse(logs / b, name=b))
    assert cmp.passes is not None
    text = cmp.passes.model_dump_json(indent=1) + "\n"
    _check(GOLDEN / "pass-diff" / f"{Path(a).stem}--{Path(b).stem}.json", text, update_golden)
