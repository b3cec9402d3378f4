"""Across builds: N-way compare by ONNX node and module, trend with jumps, the CLI's trend."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.cli import main
from trtlog.warehouse import WarehouseError, compare, open, plot_trend, trend
from trtlog.warehouse.driver import ingest

TS = "[01/10/2026-10:00:00]"


def _toy_log(
    version: str,
    layers: int,
    fusions: int,
    seconds: float,
    latency: float,
    precision: str = "FP32+FP16",
) -> str:
    """A small build log of model toy.onnx printed by TensorRT ``version``."""
    major, minor, patch = (int(p) for p in version.split("."))
    code = f"{major}{minor:02d}{patch:02d}" if major >= 10 else f"{major}{minor}{patch:02d}"
    banner = f"TensorRT.trtexec [TensorRT v{code}] # trtexec --onnx=toy.onnx --fp16 --verbose"
    lines = [
        f"&&&& RUNNING {banner}",
        f"{TS} [I] === Model Options ===",
        f"{TS} [I] Model: toy.onnx",
        f"{TS} [I] === Build Options ===",
        f"{TS} [I] Precision: {precision}",
        f"{TS} [V] [TRT] Original: {layers + fusions} layers",
        *(f"{TS} [V] [TRT] ConvReluFusion: Fusing conv{i} with relu{i}" for i in range(fusions)),
        f"{TS} [V] [TRT] After vertical fusions: {layers} layers",
        f"{TS} [I] Engine built in {seconds} sec.",
        f"{TS} [I] === Performance summary ===",
        f"{TS} [I] Throughput: {1000 / latency:.2f} qps",
        f"{TS} [I] Latency: min = {latency} ms, max = {latency} ms, mean = {latency} ms, "
        f"median = {latency} ms, percentile(90%) = {latency} ms, percentile(95%) = {latency} ms, "
        f"percentile(99%) = {latency} ms",
        f"&&&& PASSED {banner}",
    ]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("toy")
    builds = {  # version: layers, fusions, build seconds, latency
        "10.8.0": (12, 8, 30.0, 1.00),
        "10.13.0": (15, 5, 31.0, 1.50),  # lost 3 fusions, latency up 50%
        "10.9.0": (12, 8, 60.0, 1.02),  # build time doubled
    }
    for version, figures in builds.items():
        (folder / f"toy-{version}.log").write_text(_toy_log(version, *figures))
    root = folder / "wh"
    assert ingest([folder], to=root).ingested == 3
    return root


def test_trend_orders_versions_as_numbers_and_finds_the_jumps(toy: Path) -> None:
    result = trend(open(toy), "toy")
    assert list(result.frame["trt_version"]) == ["10.8.0", "10.9.0", "10.13.0"]
    assert list(result.frame["fusions"]) == [8, 8, 5]
    jumps = {j.metric: j for j in result.jumps}
    assert jumps["fusions"].label == "10.13.0" and jumps["fusions"].change == -3
    assert jumps["layers_final"].after == 15
    assert jumps["engine_build_seconds"].label == "10.9.0"
    assert jumps["engine_build_seconds"].relative == pytest.approx(1.0)
    assert jumps["latency_median_ms"].label == "10.13.0"
    assert "fusions -38%" in result.frame["jumps"].iloc[2]
    text = result.to_text()
    assert "jump: fusions 8 → 5 (-37.5%) at 10.13.0" in text
    assert len(plot_trend(result.frame)) == sum(
        result.frame[m].notna().any()
        for m in [
            "layers_final",
            "fusions",
            "findings_error",
            "findings_warning",
            "engine_build_seconds",
            "latency_median_ms",
        ]
    )


def test_trend_threshold_and_errors(toy: Path) -> None:
    con = open(toy)
    assert {j.metric for j in trend(con, "toy", threshold=0.6).jumps} == {"engine_build_seconds"}
    with pytest.raises(WarehouseError, match="no build of model 'yolo' \\(models: toy\\)"):
        trend(con, "yolo")
    with pytest.raises(WarehouseError, match="not a builds column"):
        trend(con, "toy", by="colour")


def test_trend_command(toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "trend.png"
    assert main(["trend", str(toy), "--model", "toy", "--plot", str(image)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("toy: 3 build(s) by trt_version, compared within 1 group(s)")
    assert image.stat().st_size > 10_000
    assert main(["trend", str(toy), "--model", "toy", "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith("trt_version,label,group,build_id,status,batch,shapes,precision,")
    assert main(["trend", str(toy), "--model", "nope"]) == 2
    assert "no build of model 'nope'" in capsys.readouterr().err
    assert main(["trend", str(toy), "--model", "toy", "--where", "nope = 1"]) == 2


SWEEP = FIXTURES / "logs" / "trt10.16-like_batch-sweep_two-runs.log"


def test_trend_compares_runs_of_one_shape_only(tmp_path: Path) -> None:
    # a sweep: batch 1, then batch 64, in one file (the "+2491% jump ... at None")
    raw = SWEEP.read_text(encoding="utf-8")
    shapes = re.findall(r"Input inference shape : (\w+)=(\S+)", raw)
    latencies = [float(v) for v in re.findall(r"Latency: .*median = ([\d.]+) ms", raw)]
    version = re.search(r"TensorRT version: (\S+)", raw)
    assert len(shapes) == len(latencies) == 2 and version is not None
    shutil.copy(SWEEP, tmp_path)
    root = tmp_path / "wh"
    ingest([tmp_path / SWEEP.name], to=root)
    con = open(root)
    rows = con.execute("SELECT shapes, latency_median_ms FROM builds ORDER BY run").fetchall()
    assert rows == [(f"{t}:{d}", m) for (t, d), m in zip(shapes, latencies, strict=True)]
    result = trend(con, "sweepnet")
    assert result.jumps == []
    labels = [f"{version.group(1)} run 1", f"{version.group(1)} run 2"]
    assert list(result.frame["label"]) == labels
    assert [g.split(",")[0] for g in result.frame["group"]] == [
        f"shapes {t}:{d}" for t, d in shapes
    ]
    text = result.to_text()
    assert "None" not in text and "no figure changed" in text
    # without grouping the two runs compare, and the jump names both, never None
    (jump,) = trend(con, "sweepnet", group_by=()).jumps
    assert jump.relative == pytest.approx(latencies[1] / latencies[0] - 1)
    assert jump.describe().startswith(
        f"latency_median_ms {latencies[0]:g} → {latencies[1]:g} "
        f"(+{100 * (latencies[1] / latencies[0] - 1):.1f}%) at {labels[1]} after {labels[0]}"
    )
    assert "None" not in jump.describe()


def test_trend_keeps_fp16_and_fp32_builds_apart(tmp_path: Path) -> None:
    builds = {  # file: version, latency, precision
        "toy-a.log": ("10.8.0", 1.00, "FP32+FP16"),
        "toy-b.log": ("10.9.0", 2.00, "FP32"),
        "toy-c.log": ("10.13.0", 1.05, "FP32+FP16"),
        "toy-d.log": ("10.14.0", 2.04, "FP32"),
    }
    for name, (version, latency, precision) in builds.items():
        text = _toy_log(version, 12, 8, 30.0, latency, precision)
        (tmp_path / name).write_text(text, encoding="utf-8")
    ingest([tmp_path], to=tmp_path / "wh")
    con = open(tmp_path / "wh")
    result = trend(con, "toy")
    logged = {
        re.search(r"Precision: (.+)", (tmp_path / n).read_text()).group(1)  # type: ignore[union-attr]
        for n in builds
    }
    assert set(result.frame["group"]) == logged == {"FP32+FP16", "FP32"}
    assert result.jumps == []  # 1.00 → 1.05 and 2.00 → 2.04: under 10% within each
    mixed = trend(con, "toy", group_by=())
    assert {j.metric for j in mixed.jumps} == {"latency_median_ms"}
    # by precision alone, by shape alone (all one shape: the FP16 and FP32 builds mix)
    assert trend(con, "toy", group_by=["precision"]).jumps == []
    assert trend(con, "toy", group_by=["shape"]).jumps != []
    with pytest.raises(WarehouseError, match="cannot group by colour"):
        trend(con, "toy", group_by=["colour"])


def test_engine_precisions_are_the_layers_precisions(wh: Any) -> None:
    rows = wh.execute(
        "SELECT build_id, engine_precisions FROM builds WHERE engine_precisions IS NOT NULL"
    ).fetchall()
    assert rows
    for build_id, text in rows:
        counts = wh.execute(
            "SELECT precision, count(*) n FROM layers WHERE build_id = ? AND precision IS NOT "
            "NULL GROUP BY 1 ORDER BY n DESC, precision",
            [build_id],
        ).fetchall()
        assert text == "+".join(p for p, _ in counts), build_id


def test_trend_command_groups_and_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SWEEP, tmp_path)
    ingest([tmp_path / SWEEP.name], to=tmp_path / "wh")
    assert main(["trend", str(tmp_path / "wh"), "--model", "sweepnet"]) == 0
    out = capsys.readouterr().out
    assert "None" not in out and "run 1" in out and "run 2" in out
    assert "no figure changed" in out
    assert main(["trend", str(tmp_path / "wh"), "--model", "sweepnet", "--group-by", "none"]) == 0
    out = capsys.readouterr().out
    assert "jump: latency_median_ms" in out and "None" not in out


@pytest.fixture(scope="module")
def tinynets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tinynet FP16 and Q/DQ INT8 builds, each log with its profile."""
    folder = tmp_path_factory.mktemp("tiny")
    for name in (
        "logs/trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log",
        "logs/trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
        "layer_info/trt8.6.1_tinynet-fp16.profile.json",
        "layer_info/trt8.6.1_tinynet-qdq-int8.profile.json",
    ):
        shutil.copy(FIXTURES / name, folder)
    ingest([folder], to=folder / "wh")
    return folder


def _text(value: Any) -> str | None:
    return None if pd.isna(value) else str(value)


def _ids(con: Any) -> tuple[str, str]:
    rows = dict(con.execute("SELECT model, build_id FROM builds").fetchall())
    return rows["tinynet"], rows["tinynet-qdq"]


def test_compare_by_node_agrees_with_the_two_build_compare(tinynets: Path) -> None:
    con = open(tinynets / "wh")
    fp16, int8 = _ids(con)
    frame = compare(con, [fp16[:10], int8[:10]], labels=["fp16", "int8"])
    assert frame.attrs["builds"] == {"fp16": fp16, "int8": int8}
    pair = trtlog.compare(
        trtlog.parse(tinynets / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"),
        trtlog.parse(tinynets / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"),
        profile_a=tinynets / "trt8.6.1_tinynet-fp16.profile.json",
        profile_b=tinynets / "trt8.6.1_tinynet-qdq-int8.profile.json",
    ).onnx_frame()
    mine = frame.set_index("node")
    for node, layer_a, layer_b in zip(pair["node"], pair["layer_a"], pair["layer_b"], strict=True):
        assert _text(mine.loc[str(node), "fp16_layer"]) == _text(layer_a), node
        assert _text(mine.loc[str(node), "int8_layer"]) == _text(layer_b), node
    # the residual add: fused into the convolution in FP16, its own layer in INT8
    assert mine.loc["/stage1/Add", "fusion"] == "split"
    assert mine.loc["/stem/conv/Conv", "fusion"] == "same"
    qdq = frame[frame["kind"] == "qdq"]
    assert len(qdq) and (qdq["fusion"] == "missing").all()  # the FP16 build has no Q/DQ


def test_compare_by_module_and_errors(tinynets: Path) -> None:
    con = open(tinynets / "wh")
    fp16, int8 = _ids(con)
    frame = compare(con, [fp16, int8], by="module", depth=1)
    layers = con.execute(
        "SELECT build_id, count(*) FROM layers WHERE build_id IN (?, ?) GROUP BY 1", [fp16, int8]
    ).fetchall()
    assert dict(layers) == {fp16: frame["b1_layers"].sum(), int8: frame["b2_layers"].sum()}
    assert "/stage1" in set(frame["module"])
    with pytest.raises(WarehouseError, match="no build has the id"):
        compare(con, [fp16, "zzz"])
    with pytest.raises(WarehouseError, match="start of 2 build ids"):
        compare(con, [""])
    with pytest.raises(WarehouseError, match="one distinct label per build"):
        compare(con, [fp16, int8], labels=["x", "x"])


@pytest.mark.parametrize("by", ["status", "precision", "batch", "fusions", "run"])
def test_trend_by_a_column_the_rows_also_read(toy: Path, by: str) -> None:
    result = trend(open(toy), "toy", by=by)
    assert list(result.frame.columns).count(by) == 1
    assert len(result.frame) == 3
    assert "None" not in result.to_text()
