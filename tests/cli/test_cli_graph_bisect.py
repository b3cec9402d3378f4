"""``trtlog graph --engine`` and ``trtlog bisect``, called in-process."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES
from trtlog.cli import main

LAYERS = FIXTURES / "layer_info" / "trt11.5-like_smallnet-fp32_layers-detailed.json"
PROFILE = FIXTURES / "layer_info" / "trt11.5-like_smallnet-fp32.profile.json"
BERT = FIXTURES / "logs" / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log"
TINYNET = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
QAT = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"


@pytest.mark.parametrize("suffix", [".svg", ".dot", ".graphml"])
def test_graph_engine_writes_each_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    out = tmp_path / f"g{suffix}"
    assert main(["graph", "--engine", str(LAYERS), "-o", str(out)]) == 0
    engine = trtlog.load_engine(LAYERS)
    said = capsys.readouterr().out
    assert f"{len(engine.layers)} layers" in said
    text = out.read_text()
    for layer in engine.layers:  # every layer is drawn, by its name
        assert layer.name in text
    if suffix == ".svg":
        ET.fromstring(text.encode())
    elif suffix == ".graphml":
        assert nx.read_graphml(out).number_of_nodes() == len(engine.layers) + 2  # + in, out


def test_graph_engine_from_a_log_opens_a_region_and_colours_by_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bert.svg"
    assert main(["graph", "--engine", str(BERT), "-o", str(out), "--open", "all"]) == 0
    kernels = len(re.findall(r"_myl\d+_\d+, LayerType", BERT.read_text()))
    assert "0 Myelin region(s) folded" in capsys.readouterr().out
    assert out.read_text().count('class="node layer"') == 89 and kernels == 88
    # time needs a profile; with one, the nodes are shaded
    assert main(["graph", "--engine", str(BERT), "-o", str(out), "--color-by", "time"]) == 2
    assert "--profile" in capsys.readouterr().err
    timed = tmp_path / "t.svg"
    argv = ["graph", "--engine", str(LAYERS), "--profile", str(PROFILE), "-o", str(timed)]
    assert main([*argv, "--color-by", "time"]) == 0
    assert 'fill="#ff' in timed.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["graph", "--engine", str(LAYERS), "-o", "x.png"], "write .svg, .dot or .graphml"),
        (["graph", str(TINYNET), "--engine", str(LAYERS), "-o", "x.svg"], "not both"),
        (["graph", "-o", "x.svg"], "give a LOG"),
        (["graph", "--engine", str(BERT), "-o", "x.svg", "--open", "7"], "no such Myelin"),
    ],
)
def test_graph_engine_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    argv = [str(tmp_path / a) if a.startswith("x.") else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bisect_prints_a_step_with_commands(capsys: pytest.CaptureFixture[str]) -> None:
    if not QAT.exists():
        pytest.skip("the corpus is not there")
    layer = "layer1.0.conv2.weight + QuantizeLinear_32 + Conv_34 + Add_42 + Relu_43"
    assert main(["bisect", str(QAT), "--layer", layer]) == 0
    out = capsys.readouterr().out
    assert "TensorRT 8.5.10" in out and "polygraphy run " in out and "mark_output" in out
    follow = re.findall(r"--fusions (\d+)-(\d+)", out)
    assert len(follow) == 2  # the two ways on
    # the follow-up runs, and the JSON says the same plan
    low, high = follow[1]
    assert main(["bisect", str(QAT), "--layer", layer, "--fusions", f"{low}-{high}"]) == 0
    searched = re.search(r"Step: break fusion\(s\) \d+-\d+ of (\d+)-(\d+)", capsys.readouterr().out)
    assert searched is not None  # (the range, from its first breakable fusion)
    assert int(low) <= int(searched.group(1)) <= int(searched.group(2)) <= int(high)
    assert main(["bisect", str(QAT), "--layer", layer, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["target"] == ["layer", layer] and plan["steps"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--layer", "nope"], "no layer named 'nope'"),
        (["--pass", "Nope"], "passes that fused"),
        (["--layer", "x", "--fusions", "3-1"], "1 <= A <= B"),
        (["--layer", "x", "--fusions", "a"], "give A-B"),
    ],
)
def test_bisect_usage_errors(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["bisect", str(TINYNET), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
