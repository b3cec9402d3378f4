"""Plots: Agg backend, assertions on artists, labels and counts (STYLE.md §11)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.plots import (
    plot_fusions_by_pass,
    plot_layer_counts,
    plot_memory_by_stage,
    plot_module_time,
    plot_slowest_tactics,
    plot_tactic_timing,
    plot_time_by,
    shorten,
)

YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def _rects(ax: Axes) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_layer_counts_waterfall() -> None:
    build = trtlog.parse(YOLO)
    ax = plot_layer_counts(build.layer_counts_frame())
    assert ax.get_title() == "Layer count across optimization stages"
    assert len(_rects(ax)) == 5
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0] == "Original" and "dupe layer removal" in labels
    assert _rects(ax)[2].get_height() == pytest.approx(602)  # 755 -> 153
    assert [t.get_text() for t in ax.texts][:3] == ["755", "755", "153"]


def test_plot_on_given_axes_returns_it() -> None:
    _fig, ax = plt.subplots()
    build = trtlog.parse(YOLO)
    assert plot_fusions_by_pass(build.passes_frame(), ax=ax) is ax
    assert len(ax.patches) == 3 * len(build.passes_frame())  # fusions, removals, swaps


def test_empty_frames_give_a_labelled_empty_plot() -> None:
    build = trtlog.parse_text("[I] [TRT] nothing\n")
    for plot, frame in (
        (plot_layer_counts, build.layer_counts_frame()),
        (plot_fusions_by_pass, build.passes_frame()),
        (plot_tactic_timing, build.tactics_frame()),
        (plot_slowest_tactics, build.tactics_frame()),
    ):
        ax = plot(frame)
        assert ax.get_title()
        assert "no " in ax.texts[0].get_text()


@needs_corpus
def test_tactic_timing_points_and_highlights() -> None:
    build = trtlog.parse(CORPUS / "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log")
    frame = build.tactics_frame()
    ax = plot_tactic_timing(frame)
    assert ax.get_yscale() == "log"
    timed = frame[~frame["skipped"] & ~frame["reformat"]]
    legend = ax.get_legend()
    assert legend is not None
    labels = [t.get_text() for t in legend.get_texts()]
    points = {
        label: np.asarray(c.get_offsets()).shape[0]
        for label, c in zip(labels, ax.collections, strict=True)
    }
    assert points["candidate"] == len(timed)
    # one star per tuned layer: the tactic the engine runs (the layer dump says which)
    layers = timed[timed["chosen"]]["layer"].nunique()
    assert points["chosen: the engine runs it"] == int(timed["in_engine"].sum()) == layers > 0
    assert points.get("best of another format combination", 0) == (
        int(timed["chosen"].sum()) - layers
    )


@needs_corpus
def test_slowest_tactics() -> None:
    build = trtlog.parse(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log")
    ax = plot_slowest_tactics(build.tactics_frame(), top=5)
    assert len(_rects(ax)) == 5
    widths = [p.get_width() for p in _rects(ax)]
    assert widths == sorted(widths)
    assert "ms" in ax.get_xlabel()


CENTERPOINT = CORPUS / "trt8.2.3_centerpoint-rpn-centerhead-fp16_build-verbose.log"


@needs_corpus
def test_slowest_tactics_rank_the_tactic_the_engine_runs() -> None:
    """CenterPoint 8.2.3: Conv_60 + Relu_61's FP32 combination chose a 1.09734 ms tactic
    (line 10599), but the engine runs tactic 8170606396342855895 (layer dump, line 16113),
    timed at 0.111872 ms (line 11019): one bar per layer, the engine's tactic."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = trtlog.parse(CENTERPOINT).tactics_frame()
    lines = CENTERPOINT.read_text(encoding="utf-8").splitlines()
    assert lines[11018].endswith("Tactic: 8170606396342855895 Time: 0.111872")
    assert lines[10598].endswith("Tactic: -7989138351613022500 Time: 1.09734")
    assert "Conv_60 + Relu_61, Tactic: 8170606396342855895" in lines[16112]
    ax = plot_slowest_tactics(frame, top=15)
    labels = _bar_labels(ax)
    assert len(labels) == len(set(labels)) == 14  # the 14 tuned layers, once each
    assert ax.get_title() == "Slowest 14 tactics the engine runs"
    bars = dict(zip(labels, (r.get_width() for r in _rects(ax)), strict=True))
    assert bars["Conv_60 + Relu_61 [CaskConvolution]"] == 0.111872
    assert max(bars.values()) < 1.0
    assert ax.get_legend() is None  # every bar is the engine's own tactic
    ax = plot_slowest_tactics(frame, top=1)
    assert ax.get_title() == "Slowest 1 tactic the engine runs"


@needs_corpus
def test_tactic_plot_has_one_chosen_star_per_layer() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = trtlog.parse(CENTERPOINT).tactics_frame()
    ax = plot_tactic_timing(frame)
    legend = ax.get_legend()
    assert legend is not None
    labels = [t.get_text() for t in legend.get_texts()]
    stars = ax.collections[labels.index("chosen: the engine runs it")]
    xs = np.asarray(stars.get_offsets())[:, 0]
    assert len(xs) == len(set(xs)) == 14


def _tactic_rows(*rows: tuple[str, str, float, bool, bool]) -> pd.DataFrame:
    from trtlog.frames import SCHEMAS
    from trtlog.frames.schema import frame_from_records

    records = []
    for line, (layer, combination, ms, chosen, in_engine) in enumerate(rows, start=1):
        records.append(
            dict.fromkeys(SCHEMAS["tactics"])
            | {
                "line": line,
                "layer": layer,
                "runner": "CaskConvolution",
                "reformat": False,
                "format_combination": combination,
                "time_ms": ms,
                "fastest": chosen,
                "chosen": chosen,
                "skipped": False,
                "cached": False,
                "in_engine": in_engine,
            }
        )
    return frame_from_records("tactics", records)


def test_slowest_tactics_without_a_layer_dump_say_the_engine_tactic_is_unknown() -> None:
    """Two format combinations of conv1 each chose a tactic; no dump says which one stayed."""
    frame = _tactic_rows(
        ("conv1", "Float -> Float", 1.5, True, False),
        ("conv1", "Float -> Float", 2.0, False, False),
        ("conv1", "Half -> Half", 0.25, True, False),
        ("conv2", "Half -> Half", 0.5, True, True),
        ("conv2", "Float -> Float", 0.75, True, False),
    )
    ax = plot_slowest_tactics(frame)
    assert _bar_labels(ax) == ["conv1 [CaskConvolution]", "conv2 [CaskConvolution]"]
    assert [r.get_width() for r in _rects(ax)] == [0.5, 0.25]  # drawn known bars first
    assert [r.get_hatch() for r in _rects(ax)] == [None, "//"]
    legend = ax.get_legend()
    assert legend is not None
    assert "not in the log" in legend.get_texts()[1].get_text()
    ax = plot_tactic_timing(frame)
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == [
        "candidate",
        "fastest of its runner",
        "best of another format combination",
        "chosen: the engine runs it",
        "chosen (fastest combination; the log does not show the engine's)",
    ]


def test_shorten() -> None:
    assert shorten("short") == "short"
    long = "a" * 30 + "b" * 30
    assert len(shorten(long, 21)) == 21
    assert shorten(long, 21).startswith("aaaaaaaaaa") and shorten(long, 21).endswith("bbbbbbbbbb")


RESNET18 = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json"
RESNET18_PROFILE = FIXTURES / "layer_info" / "resnet18_synthetic.profile.json"


def _bar_labels(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def test_time_by_precision_and_type() -> None:
    frame = trtlog.load_engine(RESNET18, profile=RESNET18_PROFILE).layers_frame()
    ax = plot_time_by(frame, by="precision")
    assert ax.get_title() == "Time by layer precision"
    assert ax.get_xlabel() == "time per inference (ms)"
    assert _bar_labels(ax) == ["FP32", "INT8"]  # largest on top
    widths = sorted(r.get_width() for r in _rects(ax))
    assert sum(widths) == pytest.approx(0.472, abs=1e-6)
    assert any("%" in t.get_text() for t in ax.texts)
    ax = plot_time_by(frame, by="type", top=3)
    assert len(_rects(ax)) == 3 and "other" in _bar_labels(ax)
    assert sum(r.get_width() for r in _rects(ax)) == pytest.approx(0.472, abs=1e-6)


def test_time_by_without_profile_counts_layers() -> None:
    frame = trtlog.load_engine(RESNET18).layers_frame()
    ax = plot_time_by(frame, by="type")
    assert "no profile merged" in ax.get_title()
    assert sum(r.get_width() for r in _rects(ax)) == 25
    with pytest.raises(ValueError, match="by must be"):
        plot_time_by(frame, by="colour")


@needs_corpus
def test_module_time_on_controlnet() -> None:
    engine = trtlog.load_engine(
        CORPUS / "trt8.6_controlnet-fp16_layers-detailed.json",
        profile=CORPUS / "trt8.6_controlnet-fp16_profile.json",
    )
    frame = engine.modules_frame()
    ax = plot_module_time(frame, top=10)
    assert ax.get_title() == "Time by module (depth 1)"
    bars = [r for r in _rects(ax) if not r.get_hatch()]
    assert len(bars) == 10
    top_modules = frame[frame["depth"] == 1].nlargest(10, "time_ms")
    assert max(r.get_width() for r in bars) == pytest.approx(top_modules["time_ms"].max())
    assert _bar_labels(ax)[-1] == shorten(top_modules.iloc[0]["module"], 44)
    # the Gemm merged over 10 modules (0.0365637 ms) is split evenly: hatched shares
    hatched = [r for r in _rects(ax) if r.get_hatch()]
    assert len(hatched) == 10
    shown = top_modules.iloc[::-1]["split_ms"].to_numpy()
    assert [r.get_width() for r in hatched] == pytest.approx(list(shown))
    assert sum(shown) > 0


def test_module_time_without_profile() -> None:
    engine = trtlog.load_engine(RESNET18)
    ax = plot_module_time(engine.modules_frame())
    assert ax.get_title().startswith("Layers by module")


@needs_corpus
def test_memory_by_stage() -> None:
    build = trtlog.parse(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log")
    frame = build.memory_frame()
    ax = plot_memory_by_stage(frame)
    assert ax.get_title() == "Memory by stage" and ax.get_ylabel() == "memory (MiB)"
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"CPU in use", "GPU in use"}
    changes = frame[frame["kind"] == "memory_change"]
    process = changes[~changes["stage"].str.startswith("TensorRT-managed")]
    gpu = np.asarray(lines["GPU in use"].get_ydata(), dtype=float)
    assert len(gpu) == process["line"].nunique()
    assert gpu[0] == 1216.0
    managed = changes[changes["stage"].str.startswith("TensorRT-managed")]["line"].nunique()
    assert len(_rects(ax)) == managed == 3
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0] == "Init CUDA"
    assert any(t.get_text().startswith("engine") for t in ax.texts)


def test_memory_by_stage_empty() -> None:
    frame = trtlog.parse_text("[I] [TRT] nothing\n").memory_frame()
    ax = plot_memory_by_stage(frame)
    assert ax.texts[0].get_text() == "no memory figures in this log"
