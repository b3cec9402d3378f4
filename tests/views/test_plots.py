"""Plots: Agg backend, assertions on artists, labels and counts (STYLE.md §11)."""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib.pyplot as plt
import numpy as np
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
    candidates, _fastest, chosen, used = ax.collections
    timed = frame[~frame["skipped"] & ~frame["reformat"]]
    assert np.asarray(candidates.get_offsets()).shape[0] == len(timed)
    assert np.asarray(chosen.get_offsets()).shape[0] == int(timed["chosen"].sum())
    assert np.asarray(used.get_offsets()).shape[0] == int(timed["in_engine"].sum()) > 0
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == [
        "candidate",
        "fastest of its runner",
        "chosen",
        "chosen and in the engine",
    ]


@needs_corpus
def test_slowest_tactics() -> None:
    build = trtlog.parse(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log")
    ax = plot_slowest_tactics(build.tactics_frame(), top=5)
    assert len(_rects(ax)) == 5
    widths = [p.get_width() for p in _rects(ax)]
    assert widths == sorted(widths)
    assert "ms" in ax.get_xlabel()


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
