"""What two builds compare without aligned layers: run and build figures, totals by key.

Two logs without layer dumps (TensorRT 7.1 ResNet-50 FP16 and INT8 builds on a Jetson, each
with seven trtexec runs) compare their throughput and latency; two engines whose layers do not
align show their time per layer type and precision instead of pairs of unrelated layers.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus
from trtlog.cli.main import main
from trtlog.engine.model import total_of

FP16_LOG = "trt7.1_resnet50-caffe-fp16-jetson_build-multi.log"
INT8_LOG = "trt7.1_resnet50-caffe-int8-jetson_build-multi.log"
MNIST = "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json"
RESNET = "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json"
RESNET_PROFILE = "trt8.x_resnet-pytorch-fp16-a100-trex_profile.json"

_THROUGHPUT = re.compile(r"\] \[I\] throughput: ([0-9.]+) qps")


def _last_throughput(path: Path) -> float:
    return float(_THROUGHPUT.findall(path.read_text())[-1])


@needs_corpus
def test_two_logs_without_layers_compare_their_run_figures() -> None:
    cmp = trtlog.compare(CORPUS / FP16_LOG, CORPUS / INT8_LOG)
    assert not cmp.aligned and cmp.steps == ()
    totals = {t.metric: t for t in cmp.totals}
    throughput = totals["throughput"]
    assert throughput.a == _last_throughput(CORPUS / FP16_LOG)
    assert throughput.b == _last_throughput(CORPUS / INT8_LOG)
    assert throughput.better == "higher"
    assert totals["latency (median)"].a is not None
    assert "only the run and build figures are compared" in cmp.notes[0]


@needs_corpus
def test_diff_of_two_logs_without_layers_prints_their_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["diff", str(CORPUS / FP16_LOG), str(CORPUS / INT8_LOG)]) == 0
    out = capsys.readouterr().out
    assert "has no layers to compare" not in out
    row = next(line for line in out.splitlines() if line.strip().startswith("throughput (qps)"))
    a, b = _last_throughput(CORPUS / FP16_LOG), _last_throughput(CORPUS / INT8_LOG)
    assert row.split()[2:4] == [f"{a:g}", f"{b:g}"]
    assert "e+0" not in out  # no exponent notation for times


@needs_corpus
def test_unrelated_exports_fail_to_align_and_compare_totals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """MNIST's 9 layers against ResNet's 36: no pair of convolutions is a pair."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trtlog.JsonRepairWarning)
        cmp = trtlog.compare(CORPUS / MNIST, CORPUS / RESNET, profile_b=CORPUS / RESNET_PROFILE)
    assert cmp.alignment_failed
    summary = cmp.summary()
    assert summary.alignment_failed
    assert summary.tactic_changes == () and summary.precision_changes == ()
    assert summary.modules == ()
    # B's time per layer type: the profile's records, added up per raw LayerType
    raw_layers = json.loads((CORPUS / RESNET).read_text())["Layers"]
    raw_profile = json.loads((CORPUS / RESNET_PROFILE).read_text())
    ms = {r["name"]: r["averageMs"] for r in raw_profile if "name" in r}
    by_type: dict[str, list[float]] = {}
    for layer in raw_layers:
        by_type.setdefault(layer["LayerType"], []).append(ms[layer["Name"]])
    found = {t.key: t for t in summary.by_type}
    for kind, times in by_type.items():
        assert found[kind].layers_b == len(times)
        assert found[kind].time_b_ms == total_of(times)
    assert main(["diff", str(CORPUS / MNIST), str(CORPUS / RESNET)]) == 0
    out = capsys.readouterr().out
    assert "Alignment failed" in out
    assert "Tactic changes" not in out and "Precision changes" not in out
    assert "By layer type" in out and "By precision" in out
