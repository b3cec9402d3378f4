"""The report's fusion bisection from every pairing of inputs: a log with its layer dump, a
log with the layer JSON apart (``trtlog report LOG --layers JSON``), a log alone, JSON alone.

The fusions come from the log's optimizer lines and the final layers from wherever the
layers are; where a pairing lacks a fact, the section says which. The log without its dump
is made here from the tinynet fixture (its ``--dumpLayerInfo`` block cut out), and
``trt8.6.1_tinynet-qdq-int8_layers-detailed.json`` is that dump as ``--exportLayerInfo``
writes it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.cli import main
from trtlog.html.engine_graph import bisection_section

WITH_DUMP = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
LAYERS_JSON = FIXTURES / "layer_info" / "trt8.6.1_tinynet-qdq-int8_layers-detailed.json"
# another model's export (a ViT attention block)
OTHER_JSON = FIXTURES / "layer_info" / "trt8.2-like_vit-attention-fp16_layers-detailed.json"


def _without_dump(folder: Path) -> Path:
    """The tinynet build log without its layer dump (``Layer Information:`` to ``Bindings:``)."""
    lines = WITH_DUMP.read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.endswith("[I] Layer Information:"))
    end = next(i for i, line in enumerate(lines) if line.startswith("Bindings:")) + 1
    while not lines[end].startswith("["):  # the binding names
        end += 1
    path = folder / "tinynet-qdq-int8_build-verbose.log"
    path.write_text("\n".join(lines[:start] + lines[end:]), encoding="utf-8")
    return path


def _section(page: str) -> str:
    return page.split('<section id="bisect"', 1)[1].split("</section>", 1)[0]


def test_the_json_is_the_logs_dump() -> None:
    dump = trtlog.parse(WITH_DUMP).engine
    assert dump is not None
    raw = LAYERS_JSON.read_text(encoding="utf-8")
    assert re.findall(r'"Name": "([^"]*)",\s*"LayerType"', raw) == [x.name for x in dump.layers]


def test_a_log_and_its_layer_json_apart_bisect_as_the_log_with_its_dump(tmp_path: Path) -> None:
    log = _without_dump(tmp_path)
    build = trtlog.parse(log)
    assert build.engine is None  # (no dump, no placement lines: nothing of its own)
    alone = bisection_section(build)
    assert alone["layers"] == [] and "--exportLayerInfo JSON (--layers)" in alone["why"]
    engine = trtlog.load_engine(LAYERS_JSON)
    apart = bisection_section(build, engine)
    together = bisection_section(trtlog.parse(WITH_DUMP))
    assert apart["why"] is None and len(apart["layers"]) == len(together["layers"]) > 0
    for got, want in zip(apart["layers"], together["layers"], strict=True):
        assert (got["name"], got["index"], got["step"]) == (
            want["name"],
            want["index"],
            want["step"],
        )
        # the fusions the log's lines show (those known from names only may differ)
        assert [f for f in got["fusions"] if f["line"]] == [f for f in want["fusions"] if f["line"]]
        # the command that goes on names the JSON, and the JSON's layer
        assert shlex.split(got["command"]) == [
            *("trtlog", "bisect", str(log), "--layers", str(LAYERS_JSON)),
            *("--layer", got["name"]),
        ]
    # each breakable fusion's line is a line of the raw log that names its pass
    text = log.read_text(encoding="utf-8").split("\n")
    for region in apart["layers"]:
        for f in region["fusions"]:
            if f["layer"]:
                assert f["pass"] in text[f["line"] - 1]


def test_the_page_made_from_the_pair_shows_the_section(tmp_path: Path) -> None:
    log = _without_dump(tmp_path)
    # trtlog report LOG --layers JSON
    out = tmp_path / "page.html"
    assert main(["report", str(log), "--layers", str(LAYERS_JSON), "-o", str(out), "-q"]) == 0
    section = _section(out.read_text(encoding="utf-8"))
    assert 'data-missing="bisect"' not in section
    names = re.findall(r'<summary><a href="#layer-(\d+)" class="layer-link">', section)
    engine = trtlog.load_engine(LAYERS_JSON)
    expected = bisection_section(trtlog.parse(log), engine)["layers"]
    assert [int(i) for i in names] == [r["index"] for r in expected]
    assert f"--layers {LAYERS_JSON}" in section


def test_each_pairing_without_the_facts_says_which_is_missing(tmp_path: Path) -> None:
    log = _without_dump(tmp_path)
    cases = {
        # the log alone: no layers anywhere
        "needs the engine's layers": trtlog.report(log),
        # the JSON alone: no fusion lines
        "needs the --verbose build log": trtlog.report(LAYERS_JSON),
        # another build's JSON: none of its layers was made by this log's fusions
        "is the JSON of the build this log made?": trtlog.report(log, OTHER_JSON),
    }
    for why, report in cases.items():
        section = _section(str(report))
        assert 'data-missing="bisect"' in section and why in section.replace("&#39;", "'"), why


def test_bisect_takes_the_layer_json_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _without_dump(tmp_path)
    region = bisection_section(trtlog.parse(log), trtlog.load_engine(LAYERS_JSON))["layers"][0]
    argv = shlex.split(region["command"])[1:]
    assert main(argv) == 0
    out = capsys.readouterr().out
    step = region["step"]
    assert f"Step: break fusion(s) {step['first']}-{step['last']} of {step['low']}-" in out
    # the follow-up commands keep the JSON
    assert f"--layers {LAYERS_JSON} --fusions {step['first']}-{step['last']}" in out


@needs_corpus
def test_a_real_log_with_its_names_only_export() -> None:
    log = CORPUS / "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log"
    names = CORPUS / "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json"
    engine = trtlog.load_engine(names)
    section = bisection_section(trtlog.parse(log), engine)
    assert section["layers"], section["why"]
    raw_names = re.findall(r'"([^"]+)"', names.read_text(encoding="utf-8"))
    text = log.read_text(encoding="utf-8").split("\n")
    for region in section["layers"]:
        assert region["name"] in raw_names
        for f in region["fusions"]:
            if f["layer"]:
                assert f["pass"] in text[f["line"] - 1]
            if f["tensor"]:  # on its producer's parser line
                assert f["tensor"] in text[f["tensorLine"] - 1]


@pytest.mark.browser
def test_the_section_in_chromium(tmp_path: Path, open_page: Any) -> None:
    log = _without_dump(tmp_path)
    paired = trtlog.report(log, LAYERS_JSON).write(tmp_path / "paired.html")
    alone = trtlog.report(log).write(tmp_path / "alone.html")
    expected = bisection_section(trtlog.parse(log), trtlog.load_engine(LAYERS_JSON))["layers"]
    page = open_page(paired)
    summaries = page.js(
        "return [...document.querySelectorAll('#bisect details.bisect-layer summary a')]"
        ".map(a => a.textContent)"
    )
    assert summaries == [r["name"] for r in expected]
    assert "no-data" not in page.css('#nav a[href="#bisect"]').get_attribute("class")
    page.js("document.getElementById('bisect').scrollIntoView()")
    page.screenshot("bisection-section-from-log-and-layer-json")
    # the layer's link opens its row in the layers table
    page.css("#bisect details.bisect-layer summary a").click()
    first = expected[0]["index"]
    assert page.wait(
        "return document.querySelector('#layer-detail h3')?.textContent === arguments[0]",
        f"Layer {first}",
    )
    # its detail lists the layer's ONNX nodes (it showed "[object HTMLParagraphElement],...")
    detail = page.css("#layer-detail").text
    assert "[object" not in detail and "ONNX node(s)" in detail
    assert len(page.all("#layer-detail ul.onnx-nodes li")) == len(
        trtlog.load_engine(LAYERS_JSON).layers[first].onnx_nodes
    )
    page.screenshot("bisection-log-and-layer-json")
    page = open_page(alone)
    link = page.css('#nav a[href="#bisect"]')
    assert "no-data" in link.get_attribute("class")
    assert "needs the engine\u2019s layers" in link.get_attribute("title").replace("'", "\u2019")
