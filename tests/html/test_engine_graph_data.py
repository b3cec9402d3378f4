"""The engine graph section's data: what the page gets, checked against the engine and JSON."""

from __future__ import annotations

import json

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.html import engine_graph as section_module
from trtlog.html.engine_graph import engine_graph_section
from trtlog.html.page import decode_embedded

JSON = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json"
BERT = FIXTURES / "logs" / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log"
HOSTILE = FIXTURES / "logs" / "hostile-names_build-verbose-dumpLayerInfo.log"
# (a log that lists no layer in any form: no dump, no placement lines, no timing)
NO_LAYERS = FIXTURES / "logs" / "trt7.0_onnx-parse-error_python-legacy.log"


def test_the_page_holds_every_layer_and_tensor_of_the_json() -> None:
    raw = json.loads(JSON.read_text())
    layers = raw["Layers"] if isinstance(raw, dict) else raw[1:]
    page = str(trtlog.report(JSON))
    data = decode_embedded(page, "trtlog-engine-graph")
    assert data["layers"] == len(layers)
    assert data["nodes"]["label"][: len(layers)] == [x["Name"] for x in layers]
    # an edge per (tensor, reader) of the raw JSON
    wanted = sorted((t["Name"], i) for i, x in enumerate(layers) for t in x["Inputs"])
    found = sorted(
        (t, d)
        for t, d in zip(data["edges"]["tensor"], data["edges"]["dst"], strict=True)
        if d < len(layers)
    )
    assert found == wanted
    folded = data["views"]["folded"]
    assert len(folded["x"]) == len(folded["nodes"]) and folded["width"] > 0
    assert 'id="graph-body"' in page


def test_regions_get_a_view_each_and_big_views_are_left_to_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = trtlog.parse(BERT).engine
    assert engine is not None
    data = engine_graph_section(engine)
    assert len(data["views"]["open"]) == len(data["regions"]) == 1
    assert len(data["views"]["open"][0]["nodes"]) > len(data["views"]["folded"]["nodes"])
    monkeypatch.setattr(section_module, "MAX_DRAWN", 10)
    small = engine_graph_section(engine)
    assert small["views"]["folded"] is not None and small["views"]["open"] == [None]
    monkeypatch.setattr(section_module, "LAYOUT_BUDGET", 3)
    assert engine_graph_section(engine)["views"]["folded"] is None


def test_hostile_names_come_back_exactly() -> None:
    build = trtlog.parse(HOSTILE)
    assert build.engine is not None
    data = decode_embedded(str(trtlog.report(build)), "trtlog-engine-graph")
    names = [layer.name for layer in build.engine.layers]
    assert data["nodes"]["label"][: len(names)] == names


def test_a_log_without_layers_says_what_fills_the_section() -> None:
    page = str(trtlog.report(NO_LAYERS))
    assert decode_embedded(page, "trtlog-engine-graph") is None
    assert 'data-missing="graph"' in page and "needs the engine" in page


TINYNET = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"


def test_the_bisection_section_lists_fusions_with_their_lines() -> None:
    import re

    from trtlog.graph.bisect import bisect_plan

    build = trtlog.parse(TINYNET)
    page = str(trtlog.report(build))
    section = page.split('<section id="bisect"', 1)[1].split("</section>", 1)[0]
    first = re.search(r'<summary><a href="#layer-(\d+)"', section)
    assert first is not None
    assert build.engine is not None
    layer = build.engine.layers[int(first.group(1))].name
    plan = bisect_plan(build, layer=layer)
    lines = TINYNET.read_text().splitlines()
    # each breakable fusion's row links its log line, which names its pass
    table = section.split("</table>", 1)[0]
    for f in plan.fusions:
        if f.boundary:
            assert f'href="#L{f.line}"' in table
            assert f.pass_name is not None and f.pass_name in lines[f.line - 1]
    step = plan.steps[0]
    assert f"Step 1: break fusions {step.first}\u2013{step.last}" in section
    assert "mark_output" in section and "trtlog bisect " in section


def test_a_log_without_fusions_says_what_fills_the_bisection() -> None:
    page = str(trtlog.report(JSON))
    assert 'data-missing="bisect"' in page
