"""The report's engine graph in headless Chromium: every layer drawn, Myelin regions that open,
search, colours, the link to the layers table, and the neighbourhood of a big engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.html.conftest import REPORTS
from trtlog.graph.engine_graph import engine_graph
from trtlog.html import engine_graph as section_module

pytestmark = pytest.mark.browser

NODES = "return [...document.querySelectorAll('#graph-svg g.gnode')].map(g => g.dataset.node)"
LAYER_TITLES = (
    "return [...document.querySelectorAll('#graph-svg g.gnode.layer title')]"
    ".map(t => t.textContent.split('\\n')[0])"
)


def _engine(name: str) -> trtlog.Engine:
    given = REPORTS[name]
    found = trtlog.parse(given["build"]).engine if name == "bert" else None
    engine = found or trtlog.load_engine(given["build"], profile=given.get("profile"))
    assert engine is not None
    return engine


def _dblclick(page: Any, node: int) -> None:
    page.js(
        "document.querySelector('#graph-svg g.gnode[data-node=\"' + arguments[0] + '\"]')"
        ".dispatchEvent(new MouseEvent('dblclick', {bubbles: true}))",
        node,
    )


def test_a_node_for_every_layer(reports: dict[str, Path], open_page: Any) -> None:
    engine = _engine("json_only")
    page = open_page(reports["json_only"])
    assert page.wait("return document.documentElement.dataset.graphReady") == "1"
    # every layer of the engine is a node, in the engine's order, named as the JSON names it
    assert page.js(LAYER_TITLES) == [layer.name for layer in engine.layers]
    graph = engine_graph(engine)
    view = graph.view()
    assert sorted(map(int, page.js(NODES))) == sorted(view.nodes)
    edges = page.js("return document.querySelectorAll('#graph-svg path.gedge').length")
    assert edges == len(view.edges)
    # each edge's tooltip is its tensor with shape, type and format
    first = graph.edges[view.edges[0]]
    tip = page.js("return document.querySelector('#graph-svg path.gedge title').textContent")
    assert tip == f"{first.tensor}: {first.label}" and first.dims in tip
    assert page.css('#nav a[href="#graph"]').text == "Engine graph"
    page.screenshot("engine-graph-resnet18")


def test_myelin_regions_fold_and_open(reports: dict[str, Path], open_page: Any) -> None:
    engine = _engine("bert")
    graph = engine_graph(engine)
    region = graph.regions[0]
    page = open_page(reports["bert"])
    assert page.wait("return document.documentElement.dataset.graphReady") == "1"
    folded = set(map(int, page.js(NODES)))
    assert region.node in folded and not folded & set(region.members)
    title = page.js("return document.querySelector('#graph-svg g.gnode.region title').textContent")
    assert title.startswith(region.label) and f"of {len(region.members)} kernels" in title
    _dblclick(page, region.node)
    opened = set(map(int, page.js(NODES)))
    assert set(region.members) <= opened and region.node not in opened
    # all 89 layers are drawn now, kernels named as the log names them
    assert sorted(page.js(LAYER_TITLES)) == sorted(layer.name for layer in engine.layers)
    page.css("#graph-fold").click()
    assert set(map(int, page.js(NODES))) == folded


def test_search_opens_the_region_and_selects_the_kernel(
    reports: dict[str, Path], open_page: Any
) -> None:
    engine = _engine("bert")
    target = next(i for i, layer in enumerate(engine.layers) if layer.type == "gemm")
    name = engine.layers[target].name
    page = open_page(reports["bert"])
    page.css("#graph-search").send_keys(name[-30:])
    assert page.wait("return document.querySelectorAll('#graph-results button').length")
    page.css(f'#graph-results button[data-node="{target}"]').click()
    selected = page.js("return document.querySelector('#graph-svg g.gnode.selected').dataset.node")
    assert int(selected) == target
    assert page.css("#graph-detail-name").text == name
    # its tensors, as the dump lists them
    inputs = [li.text for li in page.all("#graph-inputs li")]
    assert [t.split(" ")[0] for t in inputs] == [t.name for t in engine.layers[target].inputs]


def test_a_layer_leads_to_its_row_in_the_layers_table(
    reports: dict[str, Path], open_page: Any
) -> None:
    engine = _engine("json_only")
    page = open_page(reports["json_only"])
    i = 5
    page.js(
        "document.querySelector('#graph-svg g.gnode[data-node=\"5\"]')"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true}))"
    )
    assert page.css("#graph-detail-name").text == engine.layers[i].name
    page.css("#graph-to-table").click()
    assert page.wait(
        "return document.querySelector('#layer-detail h3')?.textContent === arguments[0]",
        f"Layer {i}",
    )
    assert page.js("return location.hash") == f"#layer-{i}"
    # a double-click goes straight there
    _dblclick(page, 7)
    assert page.wait("return document.querySelector('#layer-detail h3')?.textContent === 'Layer 7'")


def test_colour_by_time_and_precision(reports: dict[str, Path], open_page: Any) -> None:
    engine = _engine("json_only")
    page = open_page(reports["json_only"])
    fills = (
        "return Object.fromEntries([...document.querySelectorAll('#graph-svg g.gnode.layer')]"
        ".map(g => [g.dataset.node, g.querySelector('rect').getAttribute('fill')]))"
    )
    by_type = page.js(fills)
    types = {layer.type for layer in engine.layers}
    assert len(set(by_type.values())) == len(types)  # a colour per layer type
    page.js(
        "const s = document.getElementById('graph-colour'); s.value = 'time';"
        "s.dispatchEvent(new Event('change'))"
    )
    by_time = page.js(fills)
    slowest = max(range(len(engine.layers)), key=lambda k: engine.layers[k].time.average_ms)  # type: ignore[union-attr]
    assert by_time[str(slowest)] == "#ff3737"  # the darkest red: the slowest layer
    legend = page.css("#graph-legend").text
    assert "slowest" in legend


@pytest.fixture(scope="module")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bert page as a too-big engine is made: no view laid out, neighbourhoods drawn."""
    limit = section_module.MAX_DRAWN
    section_module.MAX_DRAWN = 3
    try:
        path = tmp_path_factory.mktemp("big") / "big.html"
        yield trtlog.report(**REPORTS["bert"]).write(path)
    finally:
        section_module.MAX_DRAWN = limit


def test_a_big_engine_draws_the_region_around_a_layer(big_page: Path, open_page: Any) -> None:
    engine = _engine("bert")
    page = open_page(big_page)
    assert page.wait("return document.documentElement.dataset.graphReady") == "1"
    assert "nodes around" in page.css("#graph-note").text
    first = set(map(int, page.js(NODES)))
    assert 1 < len(first) <= 120
    # a layer outside it, searched: the drawing moves to its neighbourhood
    far = len(engine.layers) - 1
    page.css("#graph-search").send_keys(engine.layers[far].name)
    assert page.wait("return document.querySelectorAll('#graph-results button').length")
    page.css(f'#graph-results button[data-node="{far}"]').click()
    now = set(map(int, page.js(NODES)))
    assert far in now
    assert (
        int(page.js("return document.querySelector('#graph-svg g.gnode.selected').dataset.node"))
        == far
    )
