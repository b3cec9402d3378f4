"""Frames and the plot of a comparison."""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

import trtlog
from tests.conftest import FIXTURES
from trtlog.diff import Comparison
from trtlog.frames import SCHEMAS, diff_frame, diff_onnx_frame
from trtlog.plots import plot_diff

LOGS = FIXTURES / "logs"
A = LOGS / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
B = LOGS / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
PROFILES = {
    "profile_a": FIXTURES / "layer_info" / "trt8.6.1_tinynet-fp16.profile.json",
    "profile_b": FIXTURES / "layer_info" / "trt8.6.1_tinynet-qdq-int8.profile.json",
}


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def timed() -> Comparison:
    return trtlog.compare(A, B, **PROFILES)


@pytest.fixture(scope="module")
def untimed() -> Comparison:
    return trtlog.compare(A, B)


def _schema_of(frame: pd.DataFrame, name: str) -> None:
    assert list(frame.columns) == list(SCHEMAS[name])
    assert [str(t) for t in frame.dtypes] == list(SCHEMAS[name].values())


def test_steps_frame(timed: Comparison) -> None:
    frame = timed.frame()
    _schema_of(frame, "diff")
    assert len(frame) == len(timed.steps) == 13
    assert frame["marker"].tolist() == [s.marker for s in timed.steps]
    split = frame[frame["index_a"] == 3]
    assert split["repeated_a"].tolist() == [False, True]
    assert split["time_a_ms"].isna().tolist() == [False, True]
    assert frame["delta_ms"].sum() == pytest.approx(0.2062 - 0.2416)
    assert frame.loc[4, "reasons"] == "split; q/dq; precision FP16→INT8"
    assert frame["name_a"].isna().tolist() == [m == "+" for m in frame["marker"]]


def test_onnx_frame(timed: Comparison) -> None:
    frame = timed.onnx_frame()
    _schema_of(frame, "diff_onnx")
    assert frame["node"].is_unique
    grouped = frame[frame["group"] == 1]
    assert grouped["node"].tolist() == ["/stage1/cv2/conv/Conv", "/stage1/Add", "/stage1/act/Relu"]
    assert grouped["index_a"].tolist() == [3, 3, 3]
    assert grouped["index_b"].tolist() == [4, 6, 6]
    assert set(grouped["fusion"]) == {"split"}
    fp16 = frame[frame["kind"] == "node"]
    assert set(fp16["fusion"]) == {"same", "split"}
    qdq = frame[frame["kind"] == "qdq"]
    assert len(qdq) == 18 and set(qdq["fusion"]) == {"only_b"}
    assert qdq["layers_a"].eq(0).all()


def test_frames_of_an_unaligned_comparison_keep_their_schema() -> None:
    empty = Comparison.model_validate(
        {
            "a": {"label": "A", "source": "a", "kind": "log"},
            "b": {"label": "B", "source": "b", "kind": "log"},
        }
    )
    for frame, name in ((diff_frame(empty), "diff"), (diff_onnx_frame(empty), "diff_onnx")):
        assert frame.empty
        _schema_of(frame, name)


def _bars(ax: Axes) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_plot_diff_by_module(timed: Comparison) -> None:
    ax = plot_diff(timed.frame())
    assert ax.get_title() == "Time per module: A vs B"
    assert ax.get_xlabel() == "time per inference (ms)"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["/pool", "/head", "/stage2", "/stem", "/stage1"]  # biggest at the top
    bars = _bars(ax)
    assert len(bars) == 10
    widths = {round(b.get_width(), 4) for b in bars}
    assert {0.1287, 0.118} <= widths
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == ["A", "B"]
    assert any(t.get_text() == "-0.0107 ms" for t in ax.texts)


def test_plot_diff_by_type_and_depth(timed: Comparison) -> None:
    ax = plot_diff(timed.frame(), by="type", top=3)
    assert ax.get_title() == "Time per layer type: A vs B"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 3 and labels[-1] == "CaskConvolution"
    _fig, ax2 = plt.subplots()
    assert plot_diff(timed.frame(), ax=ax2, depth=2) is ax2
    assert "/stage1/cv1" in [t.get_text() for t in ax2.get_yticklabels()]


def test_plot_diff_without_profiles_counts_layers(untimed: Comparison) -> None:
    ax = plot_diff(untimed.frame())
    assert ax.get_title() == "Layers per module: A vs B"
    assert ax.get_xlabel() == "layers (no profile given)"
    widths = sorted(int(b.get_width()) for b in _bars(ax))
    # A: /stem 2, /stage1 2, /stage2 1, /pool 1, /head 3; B: 2, 5 (Q, conv, conv, DQ, PWN), 2, 1, 3
    assert widths == [1, 1, 1, 2, 2, 2, 2, 3, 3, 5]


def test_plot_diff_empty_and_bad_argument() -> None:
    empty = Comparison.model_validate(
        {
            "a": {"label": "A", "source": "a", "kind": "log"},
            "b": {"label": "B", "source": "b", "kind": "log"},
        }
    )
    ax = plot_diff(empty.frame())
    assert ax.texts[0].get_text() == "no layers to compare"
    with pytest.raises(ValueError, match="by must be"):
        plot_diff(empty.frame(), by="pass")
