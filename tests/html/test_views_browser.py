"""What a reader sees on the report page, read as rendered text in headless Chromium.

Evidence quotes line by line, a module tree whose cells do not run into each other and lists
no module without a layer, chart labels inside their charts, one layer time in the
Overview, the run's performance as a figure, a cut-off log said in the page, and the
headline against a reference. Figures are compared with the raw text of the fixture.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from tests.html.conftest import REPORTS

pytestmark = pytest.mark.browser

LOGS = FIXTURES / "logs"
JSON = FIXTURES / "layer_info"

_QUOTE_LINE = re.compile(r"^\s*(\d+)  (.*)$")


def _clipped(text: str, width: int = 240) -> str:
    return text if len(text) <= width else text[: width - 1] + "\u2026"


@pytest.mark.parametrize("name", ["failed", "tinynet"])  # tinynet: the README's example page
def test_evidence_quotes_show_each_line_as_the_log_has_it(
    reports: dict[str, Path], open_page: Any, name: str
) -> None:
    build = trtlog.parse(REPORTS[name]["build"])
    page = open_page(reports[name])
    quotes = page.all("#findings-list pre.quote")
    assert quotes
    shown = 0
    for quote in quotes:
        text = quote.get_attribute("innerText")
        assert "\\x0a" not in text and "\\n" not in text
        for line in text.rstrip("\n").split("\n"):
            m = _QUOTE_LINE.match(line)
            assert m, line
            number = int(m.group(1))
            raw = build.lines[number - 1].rstrip("\r\n").strip()
            assert m.group(2) == _clipped(raw), number
            shown += 1
    # a finding quotes up to three of its lines, each on its own line
    assert shown > len(quotes)


def _big_engine(folder: Path) -> tuple[Path, Path]:
    """A layer JSON of 1,309 layers in one module (45 its own) and its profile."""
    layers = []
    for i in range(1264):
        name = f"/big/block{i // 4}/op{i % 4}/Conv"
        layers.append(_layer(name, "CaskConvolution"))
    layers += [_layer(f"/big/Add_{i}", "PointWiseV2") for i in range(45)]
    records: list[dict[str, Any]] = [{"count": 100}]
    records += [
        {"name": layer["Name"], "timeMs": 3.2, "averageMs": 0.032, "medianMs": 0.032}
        for layer in layers
    ]
    path, profile = folder / "big.layers.json", folder / "big.profile.json"
    path.write_text(json.dumps({"Layers": layers, "Bindings": []}), encoding="utf-8")
    profile.write_text(json.dumps(records), encoding="utf-8")
    return path, profile


def _layer(name: str, kind: str) -> dict[str, Any]:
    return {
        "Name": name,
        "LayerType": kind,
        "Inputs": [],
        "Outputs": [],
        "Metadata": f"[ONNX Layer: {name}]",
    }


#: For each summary of the module tree: the cells whose text boxes overlap another's (the
#: boxes of the text itself, not of the grid cells, which never overlap).
_OVERLAPS = """
const out = [];
for (const s of document.querySelectorAll('#module-tree summary')) {
  const boxes = [...s.children].filter(c => c.textContent).map(c => {
    const r = document.createRange(); r.selectNodeContents(c);
    return [c.className, [...r.getClientRects()]];
  });
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++)
    for (const a of boxes[i][1]) for (const b of boxes[j][1])
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5
          && b.top < a.bottom - 0.5)
        out.push(s.textContent.slice(0, 60) + ': ' + boxes[i][0] + ' / ' + boxes[j][0]);
}
return out;
"""


def test_module_tree_cells_do_not_overlap_at_1400_px(tmp_path: Path, open_page: Any) -> None:
    layers, profile = _big_engine(tmp_path)
    engine = trtlog.load_engine(layers, profile=profile)
    big = engine.module_tree().find("/big")
    page = open_page(trtlog.report(layers, profile=profile).write(tmp_path / "big.html"))
    assert page.js("return window.innerWidth") <= 1400
    row = page.css('#module-tree details[data-path="/big"] > summary')
    assert f"{big.layers} layers ({big.own_layers} own)" == "1309 layers (45 own)"
    assert f"{big.layers} layers ({big.own_layers} own)" in row.text
    assert f"{engine.total_ms:.4g} ms" in row.text
    _open_tree(page)
    assert page.js(_OVERLAPS) == []


@needs_corpus
def test_module_tree_of_a_real_model_does_not_overlap(tmp_path: Path, open_page: Any) -> None:
    # the rows that ran into each other: "104 layers (16 own)18.51 ms", "(split 4.33)" over
    # the bar
    stem = CORPUS / "trt-unknown_bev-as-model-fp16"
    layers = Path(f"{stem}_layers-detailed-prettyprinted.json")
    profile = Path(f"{stem}_profile.json")
    page = open_page(trtlog.report(layers, profile=profile).write(tmp_path / "bev.html"))
    assert "(split " in page.css("#module-tree").text
    _open_tree(page)
    assert page.js(_OVERLAPS) == []


def test_module_tree_lists_no_module_without_layers(
    reports: dict[str, Path], open_page: Any
) -> None:
    build = trtlog.parse(REPORTS["tinynet"]["build"])
    assert build.engine is not None
    tree = build.engine.module_tree()

    def walk(node: Any) -> list[Any]:
        return [node, *(m for c in node.children for m in walk(c))]

    modules = walk(tree)
    assert any(m.layers == 0 for m in modules)  # the fixture has such modules
    page = open_page(reports["tinynet"])
    listed = sum(1 for m in modules if m.layers)
    _open_tree(page, listed)
    stats = page.js(
        "return [...document.querySelectorAll('#module-tree .mstat')].map(s => s.textContent)"
    )
    assert not [s for s in stats if s.startswith("0 layer")]
    assert len(stats) == listed


def _open_tree(page: Any, rows: int | None = None) -> None:
    """Open every module of the tree (a module fills its children when it opens)."""
    count = -1
    for _ in range(50):
        now = page.js(
            "for (const d of document.querySelectorAll('#module-tree details')) d.open = true;"
            "return document.querySelectorAll('#module-tree details').length"
        )
        if now == count and (rows is None or now >= rows):
            return
        count = now
        page.wait("return true", timeout=0.1)


#: Every chart text whose box leaves its chart.
_CUT_LABELS = """
return [...document.querySelectorAll('svg.chart')].flatMap(s => {
  const width = s.viewBox.baseVal.width;
  return [...s.querySelectorAll('text')].filter(t => {
    const b = t.getBBox(); return b.x < -0.5 || b.x + b.width > width + 0.5;
  }).map(t => t.textContent);
});
"""


@pytest.mark.parametrize("name", ["json_only", "tinynet", "bert", "yolov8"])
def test_bar_labels_stay_inside_their_chart(
    reports: dict[str, Path], open_page: Any, name: str
) -> None:
    page = open_page(reports[name])
    assert page.all("svg.chart text")
    assert page.js(_CUT_LABELS) == []


def test_bar_labels_of_a_big_model_stay_inside(tmp_path: Path, open_page: Any) -> None:
    # "41.89 ms · 1,309 layers" beside a full-width bar ran past the edge
    layers, profile = _big_engine(tmp_path)
    page = open_page(trtlog.report(layers, profile=profile).write(tmp_path / "big.html"))
    values = page.js(
        "return [...document.querySelectorAll('#layers svg.chart text.value')]"
        ".map(t => t.textContent)"
    )
    assert any("1309 layers" in v for v in values), values
    assert page.js(_CUT_LABELS) == []


def test_overview_names_the_layer_time_once(tmp_path: Path, open_page: Any) -> None:
    log = LOGS / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"
    profile = JSON / "trt10.16-like_smallnet-fp16.profile.json"
    raw = log.read_text(encoding="utf-8")
    total = re.search(r"\]\s+[\d.]+\s+([\d.]+)\s+[\d.]+\s+100\.0\s+Total$", raw, re.M)
    assert total is not None
    records = json.loads(profile.read_text(encoding="utf-8"))
    runs = records[0]["count"]
    json_ms = sum(r["timeMs"] for r in records[1:]) / runs
    logged = float(total.group(1))
    page = open_page(trtlog.report(log, profile=profile).write(tmp_path / "smallnet.html"))
    facts = page.css("#facts").text
    assert len(re.findall(r"layer time", facts)) == 1, facts
    row = page.css("#fact-layer-time td").text
    # the page's profile (the JSON) is the figure; the log's table only when it differs
    assert row.startswith(f"{json_ms:.4g} ms per inference, from {profile}")
    assert (f"{logged:g} ms in " in row) == (abs(logged - json_ms) > 1e-3 * json_ms)
    # alone, the log's own --dumpProfile table is the figure
    page = open_page(trtlog.report(log).write(tmp_path / "alone.html"))
    facts = page.css("#facts").text
    assert len(re.findall(r"layer time", facts)) == 1, facts
    row = page.css("#fact-layer-time td").text
    assert row.startswith(f"{logged:g} ms per inference, from ")
    assert "--dumpProfile" in row


def test_performance_is_a_figure(tmp_path: Path, open_page: Any) -> None:
    log = LOGS / "trt10.16-like_run_summary-profile.log"
    raw = log.read_text(encoding="utf-8")
    page = open_page(trtlog.report(log).write(tmp_path / "run.html"))
    qps = re.search(r"Throughput: ([\d.]+) qps", raw)
    assert qps is not None
    assert page.css("#perf-throughput").text == f"{qps.group(1)} qps"
    stats = {
        m.group(1): {k: float(v) for k, v in re.findall(r"(\w+) = ([\d.]+) ms", m.group(2))}
        for m in re.finditer(r"\] ([A-Z][\w ]+?): (min = .*)$", raw, re.M)
    }
    assert page.css("#perf-latency").text == f"{stats['Latency']['median']:g} ms"
    rows = page.all("#perf tr.perf-row")
    assert [r.find_element("css selector", "th").text for r in rows] == list(stats)
    top = max(s["max"] for s in stats.values())
    width = int(page.css("#perf svg").get_attribute("width")) - 8
    for row, (metric, values) in zip(rows, stats.items(), strict=True):
        median = row.find_element("css selector", "rect.median")
        x = float(median.get_attribute("x")) + 1
        assert x == pytest.approx(width * values["median"] / top, abs=0.02), metric
    texts = [t.text for t in page.all("#perf td.stats")]
    assert f"median {stats['Latency']['median']:g}" in texts[0]
    # the text block is still there, folded
    assert not page.css("#overview pre.performance").is_displayed()


def test_a_cut_off_log_says_so_in_the_page(tmp_path: Path, open_page: Any) -> None:
    whole = REPORTS["tinynet"]["build"].read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.log"
    cut.write_text("".join(whole[:90]), encoding="utf-8")
    assert "&&&& PASSED" not in cut.read_text(encoding="utf-8")
    page = open_page(trtlog.report(cut).write(tmp_path / "cut.html"))
    banner = page.css("#cut-off")
    assert banner.is_displayed()
    assert banner.text.startswith("The log is cut off.")
    assert "line 90 " in banner.text
    notes = {
        n.find_element("xpath", "..").get_attribute("id"): n.text
        for n in page.all("section p.cutoff-note")
    }
    assert {"findings", "passes", "layers", "log"} <= set(notes)
    assert all("cut off at line 90" in t for t in notes.values())


def test_reference_headline_sets_the_two_builds_side_by_side(
    reports: dict[str, Path], open_page: Any
) -> None:
    kwargs = REPORTS["tinynet"]
    page = open_page(reports["tinynet"])
    rows = {
        r.get_attribute("id"): [c.text for c in r.find_elements("css selector", "td")]
        for r in page.all("#versus tbody tr")
    }
    assert set(rows) >= {
        "versus-latency",
        "versus-throughput",
        "versus-size",
        "versus-build",
        "versus-layers",
    }

    def built(path: Path) -> str:
        m = re.search(r"Engine built in ([\d.]+) sec", path.read_text(encoding="utf-8"))
        assert m is not None
        return m.group(1)

    this, ref = built(kwargs["build"]), built(kwargs["reference"])
    assert rows["versus-build"][:2] == [f"{float(this):g} s", f"{float(ref):g} s"]
    change = 100 * (float(this) - float(ref)) / float(ref)
    assert rows["versus-build"][2] == f"{change:+.1f}%"
    layers = [len(_engine(trtlog.parse(kwargs[k])).layers) for k in ("build", "reference")]
    assert rows["versus-layers"][:2] == [str(n) for n in layers]
    # neither log ran inference: said, not left out
    assert rows["versus-throughput"][:2] == ["\u2013", "\u2013"]


def _engine(build: Any) -> Any:
    assert build.engine is not None
    return build.engine
