"""Report pages in a real browser (headless Chromium): they load, link and run no input.

Every figure the page shows is compared with what trtlog's own API gives for the same
fixture, and the raw-log links with the fixture's text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.html.conftest import REPORTS
from trtlog.html.make import SECTIONS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", [*REPORTS, "folded", "hostile_big"])
def test_page_loads_with_every_section_and_no_error(
    reports: dict[str, Path], open_page: Any, name: str
) -> None:
    page = open_page(reports[name])
    for key, label in SECTIONS:
        section = page.css(f"section#{key}")
        assert section.is_displayed()
        assert page.css(f'#nav a[href="#{key}"]').text == label
        if key == "overview":
            continue
        missing = page.all(f"#{key} p.missing")
        body = page.all(f"#{key}-body")
        # either the section shows its data, or says which input would fill it
        assert bool(missing) != bool(body), key
        if missing:
            assert "needs" in missing[0].text
        else:
            assert not page.all(f"#{key}-body > p.loading"), key
    # the page fetched nothing: every resource is the page itself
    entries = page.js("return performance.getEntriesByType('resource').map(e => e.name)")
    assert entries == []


def test_sections_without_data_say_what_fills_them(
    reports: dict[str, Path], open_page: Any
) -> None:
    page = open_page(reports["json_only"])
    for key in ("passes", "explorer", "tactics", "memory", "log"):
        text = page.css(f"#{key} p.missing").text
        assert "needs the trtexec --verbose build log" in text, (key, text)
    assert "needs a reference build" in page.css("#compare p.missing").text
    engine = trtlog.load_engine(REPORTS["json_only"]["build"])
    assert page.css("#fact-engine-layers td").text == str(len(engine.layers))
    # a profile was given: the layers table has times, the charts are "time by"
    assert page.css("#layers figcaption").text == "Time by layer type"


def test_search_finds_a_node_and_shows_its_fate(reports: dict[str, Path], open_page: Any) -> None:
    build = trtlog.parse(REPORTS["tinynet"]["build"])
    fate = trtlog.fate(build, "/stage1/Add")
    page = open_page(reports["tinynet"])
    box = page.css("#explorer-search")
    box.send_keys("stage1/Add")
    assert page.wait("return document.querySelectorAll('#explorer-results button').length")
    first = page.css("#explorer-results button")
    assert "/stage1/Add" in first.text
    first.click()
    assert page.css("#explorer-fate").text == fate.kind == "fused"
    steps = [li.text for li in page.all("#explorer-steps li")]
    expected = [s for s in fate.steps if s.relation != "registered as"]
    assert len(steps) == len(expected)
    for text, step in zip(steps, expected, strict=True):
        assert text.startswith(f"{step.relation} {step.target}")
        if step.line:
            assert f"line {step.line}" in text
    final = page.css("#explorer-detail .finals").text
    assert all(layer in final for layer in fate.final_layers)
    # the neighbourhood is drawn: the picked node and what it became
    names = page.js(
        "return [...document.querySelectorAll('#explorer-graph g.node title')]"
        ".map(t => t.textContent)"
    )
    assert "ONNX node: /stage1/Add" in names
    assert any(n.startswith("engine layer: ") for n in names)
    page.screenshot("search-fate")


def test_a_layer_without_parser_line_has_its_fate(reports: dict[str, Path], open_page: Any) -> None:
    # the yolov8 excerpt shows the parsing of three nodes only: the others are known by
    # the layers of the network as parsed
    name = "/model/backbone0/bn/BatchNormalization"
    build = trtlog.parse(REPORTS["yolov8"]["build"])
    fate = trtlog.fate(build, name)
    page = open_page(reports["yolov8"])
    page.js("location.hash = arguments[0]", "#explore=" + _quote(name))
    assert page.wait("return document.getElementById('explorer-fate')")
    assert page.css("#explorer-fate").text == fate.kind == "fused"
    steps = [li.text for li in page.all("#explorer-steps li")]
    assert [t.split(" by ")[0] for t in steps] == [
        f"{s.relation} {s.target}" for s in fate.steps if s.relation != "registered as"
    ]


def test_a_layer_shows_what_merged_into_it(reports: dict[str, Path], open_page: Any) -> None:
    build = trtlog.parse(REPORTS["tinynet"]["build"])
    layer = _engine(build).layers[4]
    expected = trtlog.provenance(build, layer.name)
    page = open_page(reports["tinynet"])
    page.js("location.hash = arguments[0]", "#explore=" + _quote(layer.name))
    assert page.wait("return document.querySelectorAll('#explorer-nodes li').length")
    shown = page.js(
        "return [...document.querySelectorAll('#explorer-nodes li')].map(li => li.dataset.name)"
    )
    assert shown == list(expected.onnx_nodes)


def test_layers_table_sorts_and_filters(reports: dict[str, Path], open_page: Any) -> None:
    engine = trtlog.load_engine(
        REPORTS["json_only"]["build"], profile=REPORTS["json_only"]["profile"]
    )
    frame = engine.layers_frame()
    page = open_page(reports["json_only"])

    def first_row() -> list[str]:
        return page.js(  # type: ignore[no-any-return]
            "const r = document.querySelector('#layers-table .tr[data-row=\"0\"]');"
            "return [...r.children].map(c => c.textContent)"
        )

    def status() -> str:
        return str(page.css("#layers-table .tstatus").text)

    assert first_row()[0] == "0"
    assert status() == f"{len(frame)} rows"
    page.css('#layers-table .th[data-key="ms"]').click()  # slowest first
    slowest = frame.iloc[int(frame["time_ms"].to_numpy().argmax())]
    assert first_row()[0] == str(slowest["index"])
    assert first_row()[1] == slowest["name"]
    page.css('#layers-table input[data-key="type"]').send_keys("Reformat")
    reformats = int((frame["type"] == "Reformat").sum())
    assert 0 < reformats < len(frame)
    assert page.wait(
        "return document.querySelector('#layers-table .tstatus').textContent === arguments[0]",
        f"showing {reformats} of {len(frame)} rows",
    ), status()
    types = page.js(
        "return [...document.querySelectorAll('#layers-table .tr')]"
        ".map(r => r.children[2].textContent)"
    )
    assert set(types) == {"Reformat"}
    # a click on a row shows the layer's details
    page.css('#layers-table .tr[data-row="0"]').click()
    assert page.css("#layer-detail h3").text.startswith("Layer ")


def test_myelin_kernels_sit_folded_under_their_region(
    reports: dict[str, Path], open_page: Any
) -> None:
    engine = _engine(trtlog.parse(REPORTS["bert"]["build"]))
    groups = [g for g in engine.groups("myelin") if g.kernels]
    assert groups
    page = open_page(reports["bert"])
    rows = page.all("#layers-table .tr")
    heads = page.all("#layers-table .tr.group")
    assert len(heads) == len(groups)
    before = len(page.all("#layers-table .tr"))
    assert before == len(engine.layers) - sum(len(g.kernels) for g in groups) + len(groups)
    heads[0].click()
    after = page.wait(
        "const n = document.querySelector('#layers-table .tstatus'); "
        "return document.querySelectorAll('#layers-table .tr.child').length"
    )
    assert after  # kernels rendered under the region (the list shows the visible ones)
    child = page.css("#layers-table .tr.child")
    assert "·" in child.text  # the decoded op sequence of a generated kernel
    assert rows
    # and why this build "has 89 layers": the region's sentence
    assert groups[0].summary in page.css("#layers ul.myelin-notes").text


def test_the_names_only_dump_shows_the_region_whole(
    reports: dict[str, Path], open_page: Any
) -> None:
    engine = _engine(trtlog.parse(REPORTS["bert_names"]["build"]))
    page = open_page(reports["bert_names"])
    names = page.js(
        "return [...document.querySelectorAll('#layers-table .tr')]"
        ".map(r => r.children[1].textContent)"
    )
    assert names == [layer.name for layer in engine.layers]
    assert any(n.startswith("{ForeignNode[") for n in names)


def test_module_tree_expands(reports: dict[str, Path], open_page: Any) -> None:
    engine = _engine(trtlog.parse(REPORTS["tinynet"]["build"]))
    engine = engine.with_profile(trtlog.load_profile(REPORTS["tinynet"]["profile"]))
    tree = engine.module_tree()
    stage1 = tree.find("/stage1")
    page = open_page(reports["tinynet"])
    node = page.css('#module-tree details[data-path="/stage1"]')
    assert node.get_attribute("open") is None
    summary = node.find_element("css selector", "summary")
    assert f"{stage1.layers} layers" in summary.text
    summary.click()
    kids = page.wait(
        'return [...document.querySelectorAll(\'#module-tree details[data-path="/stage1"]'
        " > .kids > details')].map(d => d.dataset.path)"
    )
    # (a submodule without a layer of its own is not listed)
    assert kids == ["/stage1/" + "/".join(c.path[1:]) for c in stage1.children if c.layers]
    # "layers" filters the layers table to that module
    summary.find_element("css selector", "a.mlayers").click()
    assert page.css('#layers-table input[data-key="module"]').get_attribute("value") == "/stage1/*"


def test_comparison_shows_the_split_group(reports: dict[str, Path], open_page: Any) -> None:
    kwargs = REPORTS["tinynet"]
    cmp = trtlog.compare(
        kwargs["reference"],
        kwargs["build"],
        profile_a=kwargs["reference_profile"],
        profile_b=kwargs["profile"],
    )
    split = [g for g in cmp.groups if g.kind == "split"]
    assert split
    page = open_page(reports["tinynet"])
    group = page.css(f"#cmp-group-{split[0].id}")
    assert group.get_attribute("data-kind") == "split"
    assert split[0].describe() in group.text
    assert all(n in group.text for n in split[0].qdq_nodes)
    rows = len(cmp.steps)
    assert page.css("#cmp-table .tstatus").text == f"{rows} rows"
    page.css("#cmp-changed").click()
    changed = sum(1 for s in cmp.steps if s.marker != "=")
    assert page.wait(
        "return document.querySelector('#cmp-table .tstatus').textContent === arguments[0]",
        f"showing {changed} of {rows} rows",
    )
    page.css("#cmp-module").send_keys("/stage1")

    def modules(step: Any) -> list[str]:
        views = []
        if step.index_a is not None:
            views.append(cmp.layers_a[step.index_a])
        if step.index_b is not None:
            views.append(cmp.layers_b[step.index_b])
        return [v.module for v in views]

    in_stage1 = sum(
        1 for step in cmp.steps if step.marker != "=" and any("/stage1" in m for m in modules(step))
    )
    assert 0 < in_stage1 < changed
    assert page.wait(
        "return document.querySelector('#cmp-table .tstatus').textContent === arguments[0]",
        f"showing {in_stage1} of {rows} rows",
    ), page.css("#cmp-table .tstatus").text


def test_evidence_links_scroll_to_their_raw_line(reports: dict[str, Path], open_page: Any) -> None:
    build = trtlog.parse(REPORTS["failed"]["build"])
    page = open_page(reports["failed"])
    link = page.css("#findings-list .ev-lines a.line-link")
    number = int(link.text)
    # the finding quotes its evidence lines, as the log has them
    quote = page.css("#findings-list .finding pre.quote").text
    assert build.lines[number - 1].strip()[:100] in quote
    link.click()
    _assert_line_shown(page, build, number)


def test_links_to_lines_outside_the_excerpt_unfold_the_log(
    reports: dict[str, Path], open_page: Any
) -> None:
    build = trtlog.parse(REPORTS["yolov8"]["build"])
    page = open_page(reports["folded"])
    assert page.css("#log-unfold").is_displayed()
    shown = page.js("return document.querySelectorAll('#log .logline:not(.gap)').length")
    assert 0 < shown < build.line_count
    # a line the page points at is there at once, with the event's kind
    fusion = build.events_of("fusion")[0].span[0]
    page.js("location.hash = arguments[0]", f"#L{fusion}")
    _assert_line_shown(page, build, fusion)
    assert page.css(f"#L{fusion}").get_attribute("data-kind") == "fusion"
    # one it does not point at unfolds the whole log first
    page.js("location.hash = arguments[0]", "#L7")
    _assert_line_shown(page, build, 7)
    assert page.css("#log-info").text.startswith(f"{build.line_count:,} lines")


def _assert_line_shown(page: Any, build: Any, number: int) -> None:
    assert page.wait(
        "const r = document.getElementById('L' + arguments[0]);"
        "return r && r.classList.contains('hl')",
        number,
    ), number
    row = page.css(f"#L{number}")
    text = row.find_element("css selector", ".tx").text
    assert text == build.lines[number - 1].rstrip("\r\n").strip()
    inside = page.js(
        "const b = arguments[0].getBoundingClientRect();"
        "return b.top >= 0 && b.bottom <= window.innerHeight",
        row,
    )
    assert inside


@pytest.mark.parametrize("name", ["hostile", "hostile_big"])
def test_hostile_names_run_no_script_and_show_as_text(
    reports: dict[str, Path], open_page: Any, name: str
) -> None:
    build = trtlog.parse(REPORTS["hostile"]["build"])
    page = open_page(reports[name])
    assert page.js("return window.__pwned") is None
    assert page.js("return document.querySelectorAll('img').length") == 0
    scripts = page.js("return document.querySelectorAll('script').length")
    # the data, the graph's, the engine graph's, the log, its line kinds, dagre, the page's own
    # script and the engine graph's
    assert scripts == 8
    title = page.js("return document.title")
    assert title.startswith("<script>window.__pwned=5</script>.onnx")
    text = page.js("return document.body.innerText")
    for layer in _engine(build).layers:
        visible = layer.name.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
        visible = visible.replace("\x01", "\\x01").replace("\x07", "\\x07")
        assert visible[:40] in text, layer.name
    assert "{{ 7*7 }}" in text
    assert "{% if true %}" in text
    # the unrecognized line is marked, its control characters visible
    unknown = page.all("#log .logline.unrec")
    assert unknown
    assert any("\\x1b[31m" in row.text for row in unknown)
    # the explorer shows a hostile node's fate as text
    page.js(
        "location.hash = arguments[0]",
        "#explore=" + _quote("/blk/<script>window.__pwned=1</script>/Conv"),
    )
    assert page.wait("return document.getElementById('explorer-fate')")
    assert "/blk/<script>window.__pwned=1</script>/Conv" in page.css("#explorer-detail h3").text
    assert page.js("return window.__pwned") is None


def test_failed_build_says_so_first(reports: dict[str, Path], open_page: Any) -> None:
    build = trtlog.parse(REPORTS["failed"]["build"])
    errors = [line for line in build.lines if "Could not find any implementation" in line]
    page = open_page(reports["failed"])
    status = page.css("#status")
    assert "failed" in status.get_attribute("class")
    assert status.text.startswith("Build failed")
    assert errors[0].split("] ", 2)[-1].strip()[:60] in status.text
    assert page.css("#top-findings li").text.startswith("ERROR build-failed")


def _engine(build: Any) -> trtlog.Engine:
    engine = build.engine
    assert engine is not None
    return engine  # type: ignore[no-any-return]


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")
