"""Plots: Agg backend, assertions on artists, labels and counts (STYLE.md §11)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba
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


@functools.cache
def _parsed(path: Path) -> trtlog.Build:
    """A corpus log parsed once for this file's tests (they only read the build; the
    ResNet-18 log is plotted by five of them)."""
    return trtlog.parse(path)


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
    build = _parsed(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log")
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
        frame = _parsed(CENTERPOINT).tactics_frame()
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
        frame = _parsed(CENTERPOINT).tactics_frame()
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
    build = _parsed(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log")
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


def test_layer_counts_of_several_builder_rounds() -> None:
    """10.16 builds once per backend strategy: each round starts from the network's 24 layers."""
    build = trtlog.parse(FIXTURES / "logs" / "trt10.16-like_three-rounds_build-verbose.log")
    frame = build.layer_counts_frame()
    ax = plot_layer_counts(frame)
    rects = _rects(ax)
    assert len(rects) == len(frame) == 13
    colors = [tuple(r.get_facecolor()) for r in rects]
    red = to_rgba("#c44e52")
    # the only layers "added" are the reformat layers of each round (13->15, 5->6, 5->6)
    added = [s for s, c in zip(frame["stage"], colors, strict=True) if c == red]
    assert added == ["reformat layers"] * 3
    starts = frame.index[frame["stage"] == "adding DebugOutput nodes"]
    assert [rects[i].get_height() for i in starts] == [0.5, 0.5, 0.5]  # no change: 24 -> 24
    labels = [t.get_text() for t in ax.texts if t.get_text()[0].isalpha()]
    assert labels == ["network", "round 1", "round 2", "round 3"]


# -- what a figure shows stays in it, readable ----------------------------


def _draw(ax: Axes) -> tuple[Any, Any]:
    figure = ax.get_figure()
    assert figure is not None
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    return figure, renderer


def _inside(inner: object, outer: object, slack: float = 1.0) -> bool:
    return bool(
        inner.x0 >= outer.x0 - slack  # type: ignore[attr-defined]
        and inner.x1 <= outer.x1 + slack  # type: ignore[attr-defined]
        and inner.y0 >= outer.y0 - slack  # type: ignore[attr-defined]
        and inner.y1 <= outer.y1 + slack  # type: ignore[attr-defined]
    )


def _overlap(a: object, b: object) -> bool:
    return bool(
        a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1  # type: ignore[attr-defined]
    )


def _data_boxes(ax: Axes, renderer: Any) -> list[object]:
    """Bars, scatter points and line vertices, as display boxes (a point: 6 px square)."""
    from matplotlib.transforms import Bbox

    boxes: list[object] = [p.get_window_extent(renderer) for p in ax.patches]
    points = [np.asarray(c.get_offsets()) for c in ax.collections]
    points += [np.asarray(line.get_xydata()) for line in ax.get_lines()]
    for xy in points:
        if xy.size:
            for x, y in ax.transData.transform(xy):
                boxes.append(Bbox.from_extents(x - 3, y - 3, x + 3, y + 3))
    return boxes


def _check_figure(ax: Axes) -> None:
    """Every text in the figure; annotations in the axes; the legend off the data."""
    from matplotlib.text import Annotation

    figure, renderer = _draw(ax)
    page = figure.bbox
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    texts += [t for t in ax.get_xticklabels() if t.get_text() and x0 <= t.get_position()[0] <= x1]
    texts += [t for t in ax.get_yticklabels() if t.get_text() and y0 <= t.get_position()[1] <= y1]
    legend = ax.get_legend()
    for text in texts:
        if text.get_text() and text.get_visible():
            box = text.get_window_extent(renderer)
            assert _inside(box, page), (text.get_text(), box, page)
    frame = ax.get_window_extent(renderer)
    for note in ax.texts:
        if isinstance(note, Annotation):
            assert _inside(note.get_window_extent(renderer), frame), note.get_text()
    if legend is not None:
        box = legend.get_window_extent(renderer)
        assert _inside(box, page)
        assert not any(_overlap(box, b) for b in _data_boxes(ax, renderer))


def _integer_ticks(ticks: np.ndarray) -> bool:
    return bool(np.all(np.isclose(ticks, np.round(ticks))))


@needs_corpus
def test_layer_counts_plot_of_41_stages_fits() -> None:
    """10.16.1 MNIST fp16 prints 41 layer counts: the figure was 4,668 px wide at 120 dpi."""
    build = _parsed(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log")
    frame = build.layer_counts_frame()
    assert len(frame) == 41
    ax = plot_layer_counts(frame)
    figure, _ = _draw(ax)
    assert figure.get_size_inches()[0] * 120 <= 1920
    _check_figure(ax)
    assert _integer_ticks(ax.get_yticks())
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    assert len(labels) == 41
    # slanted labels are parallel lines of text: the ticks are at least a line apart, measured
    # across the slant (upright ones: their boxes side by side)
    angle = np.radians(labels[0].get_rotation())
    xs = [ax.transData.transform((t.get_position()[0], 0))[0] for t in labels]
    line = labels[0].get_fontsize() * figure.dpi / 72
    assert min(np.diff(xs)) * np.sin(angle) >= line


def test_count_axes_have_whole_ticks() -> None:
    """A 5-layer log: the layer axis was ticked 0.0, 0.5, 1.0..."""
    text = (
        "[I] [TRT] Original: 5 layers\n"
        "[V] [TRT] Running: ConvReluFusion on a\n"
        "[V] [TRT] ConvReluFusion: Fusing a with b\n"
        "[I] [TRT] After vertical fusions: 4 layers\n"
    )
    build = trtlog.parse_text(text)
    ax = plot_layer_counts(build.layer_counts_frame())
    _check_figure(ax)
    assert _integer_ticks(ax.get_yticks())
    ax = plot_fusions_by_pass(build.passes_frame())
    _check_figure(ax)
    assert _integer_ticks(ax.get_xticks())
    engine = trtlog.load_engine(RESNET18)
    ax = plot_time_by(engine.layers_frame(), by="type")
    _check_figure(ax)
    assert _integer_ticks(ax.get_xticks())


@needs_corpus
def test_fusion_bars_sit_on_their_labels() -> None:
    build = _parsed(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log")
    frame = build.passes_frame()
    ax = plot_fusions_by_pass(frame)
    _check_figure(ax)
    ticks = list(ax.get_yticks())
    for rect in _rects(ax):
        center = rect.get_y() + rect.get_height() / 2
        assert min(abs(center - t) for t in ticks) < 1e-9
    assert len(_rects(ax)) == 3 * len(frame)
    totals = {t.get_text().split()[0] for t in ax.texts}
    assert str(int((frame["fusions"] + frame["removals"] + frame["swaps"]).max())) in totals


@needs_corpus
def test_slowest_tactics_kernel_names_stay_in_the_figure() -> None:
    build = _parsed(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log")
    ax = plot_slowest_tactics(build.tactics_frame())
    _check_figure(ax)
    assert any("sm80_xmma" in t.get_text() for t in ax.texts)
    ax = plot_tactic_timing(build.tactics_frame())
    _check_figure(ax)  # its legend moves beside the axes: inside, it covered points


@needs_corpus
@pytest.mark.parametrize(
    "plot",
    ["memory", "modules", "time-by", "diff"],
)
def test_other_plots_keep_their_texts_in_the_figure(plot: str) -> None:
    if plot == "memory":
        build = _parsed(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log")
        ax = plot_memory_by_stage(build.memory_frame())
        _, renderer = _draw(ax)
        (box,) = [t for t in ax.texts if t.get_text().startswith("engine\n")]
        assert not any(
            _overlap(box.get_window_extent(renderer), b) for b in _data_boxes(ax, renderer)
        )  # the engine's figures were drawn over the CPU line
    elif plot == "diff":
        from trtlog.plots import plot_diff

        cmp = trtlog.compare(
            CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
            CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
        )
        ax = plot_diff(cmp.frame())
        assert _integer_ticks(ax.get_xticks())  # no profile: layers
    else:
        engine = trtlog.load_engine(
            CORPUS / "trt8.6_controlnet-fp16_layers-detailed.json",
            profile=CORPUS / "trt8.6_controlnet-fp16_profile.json",
        )
        ax = (
            plot_module_time(engine.modules_frame())
            if plot == "modules"
            else plot_time_by(engine.layers_frame())
        )
    _check_figure(ax)


@needs_corpus
def test_short_names_are_cut_between_words() -> None:
    """Every layer name of resnet18-QAT and ControlNet, cut to 40: no word cut in two."""
    breaks = " /.+,()[]{}:"  # where a layer name's words end

    qat = _parsed(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log").engine
    assert qat is not None
    names = [lay.name for lay in qat.layers]
    names += [
        lay.name
        for lay in trtlog.load_engine(CORPUS / "trt8.6_controlnet-fp16_layers-detailed.json").layers
    ]
    cut = 0
    for name in names:
        short = shorten(name, 40)
        assert len(short) <= 40
        if short == name:
            continue
        cut += 1
        head, _, tail = short.partition("…")
        assert not head or name[len(head)] in breaks or head[-1] in breaks, (name, short)
        assert not tail or name[len(name) - len(tail) - 1] in breaks, (name, short)
    assert cut > 100
