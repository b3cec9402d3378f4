"""One figure, one text: a time prints the same in ``layers``, ``summary``, ``diff`` and ``lint``.

Every command formats times through :func:`trtlog._display.number` (4 significant digits, no
exponent from 1 up). The figures are read from the raw files with a regex and formatted
here, so each test checks both the value and its text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog._display import number
from trtlog.cli import main

RESNET_FP16 = CORPUS / "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json"
RESNET_FP16_PROFILE = CORPUS / "trt8.x_resnet-pytorch-fp16-a100-trex_profile.json"
RESNET_QAT = CORPUS / "trt8.x_resnet-pytorch-qat-int8-a100-trex_layers-detailed.json"
RESNET_QAT_PROFILE = CORPUS / "trt8.x_resnet-pytorch-qat-int8-a100-trex_profile.json"
DUMP_PROFILE = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log"

LAYER_INFO = FIXTURES / "layer_info"
SMALL_FP16 = LAYER_INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
SMALL_FP16_PROFILE = LAYER_INFO / "trt10.16-like_smallnet-fp16.profile.json"
SMALL_FP32 = LAYER_INFO / "trt11.5-like_smallnet-fp32_layers-detailed.json"
SMALL_FP32_PROFILE = LAYER_INFO / "trt11.5-like_smallnet-fp32.profile.json"


def _profile_total(path: Path) -> float:
    """The sum of a profile's ``averageMs``, read from the raw text."""
    return sum(float(v) for v in re.findall(r'"averageMs"\s*:\s*([-+0-9.eE]+)', path.read_text()))


def _out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


@needs_corpus
def test_a_layer_time_prints_alike_in_layers_and_diff(capsys: pytest.CaptureFixture[str]) -> None:
    fp16, qat = _profile_total(RESNET_FP16_PROFILE), _profile_total(RESNET_QAT_PROFILE)
    text_a, text_b = number(fp16), number(qat)
    layers = _out(["layers", str(RESNET_FP16), "--profile", str(RESNET_FP16_PROFILE)], capsys)
    assert f" {text_a} ms per inference (profile: {text_a} ms" in layers
    diff = _out(
        [
            "diff",
            str(RESNET_FP16),
            str(RESNET_QAT),
            "--profile-a",
            str(RESNET_FP16_PROFILE),
            "--profile-b",
            str(RESNET_QAT_PROFILE),
        ],
        capsys,
    )
    # the steps' footer and the summary's time per inference: 1.017, where diff printed 1.0168
    assert f"time A {text_a} ms, B {text_b} ms" in diff
    assert f"  A {text_a} ms   B {text_b} ms   delta {number(qat - fp16, sign=True)} ms" in diff
    # a layer's time: the same text in both tables
    raw = json.loads(RESNET_FP16_PROFILE.read_text())
    conv = next(r for r in raw[1:] if r["name"] == "Conv_0 + Relu_1")
    row = next(line for line in layers.splitlines() if "  Conv_0 + Relu_1  " in line)
    assert f" {number(conv['averageMs'])} " in row
    step = next(line for line in diff.splitlines() if " Conv_0 + Relu_1 " in line)
    assert f" {number(conv['averageMs'])} " in step.split("|")[-1]


@needs_corpus
def test_a_profile_time_prints_alike_in_layers_and_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the --dumpProfile table's Total row: its Avg.(ms) column
    total = re.search(
        r"\s([0-9.]+)\s+([0-9.]+)\s+[0-9.]+\s+100\.0\s+Total$", DUMP_PROFILE.read_text(), re.M
    )
    assert total is not None
    text = number(float(total.group(2)))
    summary = _out(["summary", str(DUMP_PROFILE)], capsys)
    layers = _out(["layers", str(DUMP_PROFILE)], capsys)
    assert f"engine layer time     {text} ms per inference" in summary
    assert f"layers, {text} ms per inference (profile: {text} ms" in layers


def _scaled(path: Path, folder: Path, factor: float) -> Path:
    """The profile at ``path`` with every time multiplied by ``factor`` (a slow engine)."""
    raw = json.loads(path.read_text())
    for record in raw[1:]:
        for key in ("timeMs", "averageMs", "medianMs"):
            record[key] *= factor
    out = folder / path.name
    out.write_text(json.dumps(raw))
    return out


def test_times_from_ten_seconds_up_print_every_integer_digit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # .4g printed 1.662e+04 ms here: another kind of figure, and 5 of its digits gone
    fp16 = _scaled(SMALL_FP16_PROFILE, tmp_path, 1e5)
    fp32 = _scaled(SMALL_FP32_PROFILE, tmp_path, 1e5)
    total_a, total_b = _profile_total(fp16), _profile_total(fp32)
    assert total_a > 1e4 and total_b > 1e4
    layers = _out(["layers", str(SMALL_FP16), "--profile", str(fp16)], capsys)
    assert f" {number(total_a)} ms per inference" in layers
    alone = _out(["layers", str(fp16)], capsys)
    assert f"records, {number(total_a)} ms per inference" in alone
    # the 10 -> 11 migration check that diff prints first
    diff = _out(
        [
            "diff",
            str(SMALL_FP16),
            str(SMALL_FP32),
            "--profile-a",
            str(fp16),
            "--profile-b",
            str(fp32),
        ],
        capsys,
    )
    line = next(x for x in diff.splitlines() if x.startswith("  Time per inference: A "))
    assert line.startswith(
        f"  Time per inference: A {number(total_a)} ms, B {number(total_b)} ms "
        f"({number(total_b - total_a, sign=True)} ms,"
    )
    for text in (layers, alone, diff):
        assert not re.search(r"\de[+-]\d", text), "an exponent in the output"


def test_a_findings_time_prints_as_the_tables_do() -> None:
    from trtlog.findings.models import Finding

    finding = Finding(rule="x", severity="info", subject="s", message="m", time_ms=16620.123)
    assert finding.to_text().splitlines()[0] == "info x: s (16620.12 ms)"


BUILD_LOG = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build.log"
RUN_LOG = CORPUS / "trt8.4.1_cookbook-mnist-cnn-fp32_run-verbose.log"


@needs_corpus
def test_run_and_build_figures_print_alike_in_summary_and_diff(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = BUILD_LOG.read_text()
    built = re.search(r"Engine built in ([0-9.]+) sec", text)
    qps = re.search(r"\] Throughput: ([0-9.]+) qps", text)
    other = re.search(r"\] Throughput: ([0-9.]+) qps", RUN_LOG.read_text())
    assert built and qps and other
    seconds, rate = number(float(built.group(1)), 3), number(float(qps.group(1)), 6)
    summary = _out(["summary", str(BUILD_LOG)], capsys)
    assert f"engine build          {seconds} s\n" in summary
    assert f"throughput            {rate} qps" in summary
    diff = _out(["diff", str(BUILD_LOG), str(RUN_LOG)], capsys)
    # (diff printed 8.09138 s and 15,374.3 qps: other digits and a separator for one figure)
    assert re.search(rf"  engine build \(s\) +{re.escape(seconds)} +- ", diff)
    b_rate = number(float(other.group(1)), 6)
    assert re.search(rf"  throughput \(qps\) +{re.escape(rate)} +{re.escape(b_rate)} ", diff)


def test_the_reports_sizes_take_no_exponent() -> None:
    from trtlog.html.data import _mib

    # (.3g printed 1e+03 KiB and 1.5e+03 MiB)
    assert (_mib(1000 * 1024), _mib(1500 << 20), _mib(1536)) == ("1000 KiB", "1500 MiB", "1.5 KiB")
