"""matplotlib plots of trtlog frames: each takes a frame and an optional Axes, returns the Axes.

A view module (matplotlib, imported here only): plots never call ``show`` or ``savefig`` (the
CLI saves figures). Long layer names are shortened for labels; every plot has a title, axis
labels with units, and a legend where colours carry meaning.
"""

from __future__ import annotations

import itertools
import math
import re
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from trtlog.engine.model import time_by_key
from trtlog.frames.choices import engine_tactics  # re-exported: plots used to hold it
from trtlog.names import cut_module

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "engine_tactics",
    "plot_diff",
    "plot_fusions_by_pass",
    "plot_layer_counts",
    "plot_memory_by_stage",
    "plot_module_time",
    "plot_slowest_tactics",
    "plot_tactic_timing",
    "plot_time_by",
    "shorten",
]


#: Characters after which a long name may be cut (the words of layer names end there).
_BREAKS = " /.+,()[]{}:"


@lru_cache(maxsize=8)
def _words(breaks: str) -> re.Pattern[str]:
    cls = "[" + re.escape(breaks) + "]"
    return re.compile(f"[^{cls[1:-1]}]*{cls}+|[^{cls[1:-1]}]+")


#: The largest figure a plot makes (inches): a 41-stage waterfall was 4,668 px wide.
_MAX_SIZE = (16.0, 24.0)


def shorten(name: str, width: int = 48, breaks: str = _BREAKS) -> str:
    """A readable label for a long layer name: its first and last words, at most ``width``.

    Names are cut between words (after `` ``, ``/``, ``.``, ``+``, brackets...: ``breaks``),
    never inside one, unless the words are too long to show enough of the name. Kernel names
    break at ``_`` too (``breaks=_BREAKS + "_"``).

    Example:
        >>> shorten("model.model.backbone0.conv.weight + /model/backbone0/conv/Conv", 30)
        'model.model.…conv/Conv'
        >>> shorten("layer1.0.conv1.weight + QuantizeLinear_18 + Conv_20", 30)
        'layer1.0.conv1.…Conv_20'

    A ``$`` comes out escaped (a backslash before it): matplotlib would read the text
    between two of them as maths (and fail on some) where a name holds them.
    """
    return plain_text(_shorten(str(name), width, breaks))


def plain_text(text: str) -> str:
    """``text`` as matplotlib shows it verbatim: each ``$`` escaped, so no maths is read.

    Example:
        >>> plain_text("a$b") == "a" + chr(92) + "$b"
        True
    """
    return text.replace("$", r"\$")


def _shorten(name: str, width: int, breaks: str) -> str:
    if len(name) <= width:
        return name
    room = width - 1
    words = _words(breaks).findall(name)

    def last(budget: int) -> str:
        taken: list[str] = []
        for word in reversed(words):  # the last words first: the op, the layer's own name
            if sum(map(len, taken)) + len(word) > budget:
                break
            taken.insert(0, word)
        return "".join(taken)

    def first(budget: int) -> str:
        taken = ""
        for word in words:
            if len(taken) + len(word) > budget:
                break
            taken += word
        return taken

    # the last word whole when it is not most of the room (the op, the layer's own name)
    end = last(max(room // 2, len(words[-1]) if len(words[-1]) <= 0.7 * room else 0))
    head = first(room - len(end))
    end = last(room - len(head))  # what the head left unused
    head, end = head.rstrip(" +,"), end.lstrip(" +,")
    if not end:  # a last word longer than the room: cut it
        end = name[len(name) - room // 2 :]
    if len(head) + len(end) < 0.6 * room:  # long words: better cut one than show little
        head = name[: room - len(end)]
    return head + "…" + end


def _tight(ax: Axes, counts: str | None = None) -> None:
    """Finish a plot: integer ticks on a count axis, readable labels, everything in the figure.

    ``counts`` names the axis that counts things (``x`` or ``y``): its ticks are whole
    numbers. Then, drawing the figure to measure it: crowded tick labels turn upright and
    shrink, a legend that covers data moves beside the axes, and annotations that run past
    the axes (kernel names next to bars) get room, by widening a figure the plot made or
    else by extending the axis.
    """
    from matplotlib.ticker import MaxNLocator

    if counts in ("x", "y"):
        axis = ax.xaxis if counts == "x" else ax.yaxis
        axis.set_major_locator(MaxNLocator(integer=True))
    figure = ax.get_figure()
    if not isinstance(figure, Figure):
        return
    figure.tight_layout()
    renderer = _renderer(figure)
    if renderer is None:
        return
    _uncrowd_ticks(ax, renderer)
    _legend_off_data(ax, renderer)
    _fit_annotations(ax, figure)


def _renderer(figure: Figure) -> Any:
    """Lay the figure out (without rasterizing it) and return a renderer to measure with."""
    figure.draw_without_rendering()
    get = getattr(figure.canvas, "get_renderer", None)
    return get() if get is not None else None


def _overlap(a: Any, b: Any) -> bool:
    return bool(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1)


def _uncrowd_ticks(ax: Axes, renderer: Any) -> None:
    """X tick labels that overlap turn upright, then shrink (no smaller than 6 pt)."""
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    figure = ax.get_figure()
    dpi = float(figure.dpi) if isinstance(figure, Figure) else 100.0

    def crowded() -> bool:
        # level labels collide when their boxes meet; slanted ones (parallel lines of text)
        # when the ticks are closer than a line of text measured across the slant
        angle = math.radians(labels[0].get_rotation() % 180)
        if angle < 0.01 or abs(angle - math.pi / 2) < 0.01:  # level or upright: the boxes
            boxes = [t.get_window_extent(renderer) for t in labels]
            return any(_overlap(a, b) for a, b in itertools.pairwise(boxes))
        line = 1.3 * float(labels[0].get_fontsize()) * dpi / 72
        xs = sorted(ax.transData.transform((t.get_position()[0], 0))[0] for t in labels)
        gap = min(b - a for a, b in itertools.pairwise(xs))
        return bool(gap * math.sin(angle) < line)

    if len(labels) < 2 or not crowded():
        return
    for t in labels:
        t.set_rotation(90)
        t.set_horizontalalignment("center")
    size = float(labels[0].get_fontsize())
    while crowded() and size > 6:
        size -= 1
        for t in labels:
            t.set_fontsize(size)
    if isinstance(figure, Figure):
        figure.tight_layout()
        _renderer(figure)


def _data_boxes(ax: Axes, renderer: Any) -> list[Any]:
    """Display boxes of what the axes show: bars, points, line vertices."""
    from matplotlib.transforms import Bbox

    boxes = [p.get_window_extent(renderer) for p in ax.patches if p.get_visible()]
    for collection in ax.collections:
        offsets = np.asarray(collection.get_offsets())
        if offsets.size:
            points = ax.transData.transform(offsets)
            boxes += [Bbox.from_extents(x - 3, y - 3, x + 3, y + 3) for x, y in points]
    for line in ax.get_lines():
        points = ax.transData.transform(np.asarray(line.get_xydata()))
        boxes += [Bbox.from_extents(x - 3, y - 3, x + 3, y + 3) for x, y in points]
    return [b for b in boxes if b.width >= 0 and b.height >= 0]


def _legend_off_data(ax: Axes, renderer: Any) -> None:
    """A legend that covers a bar, point or line moves beside the axes (upper left)."""
    legend = ax.get_legend()
    if legend is None:
        return
    box = legend.get_window_extent(renderer)
    if not any(_overlap(box, b) for b in _data_boxes(ax, renderer)):
        return
    handles, labels = ax.get_legend_handles_labels()
    size = legend.get_texts()[0].get_fontsize() if legend.get_texts() else 8
    ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        borderaxespad=0.0,
        fontsize=size,
    )
    figure = ax.get_figure()
    if isinstance(figure, Figure):
        moved = ax.get_legend()
        if figure in _OWNED and moved is not None:
            _grow(figure, moved.get_window_extent(_renderer(figure)).width)
        figure.tight_layout()
        _renderer(figure)


def _grow(figure: Figure, pixels: float) -> None:
    """Widen a figure a plot made by ``pixels`` (within :data:`_MAX_SIZE`)."""
    width, height = figure.get_size_inches()
    figure.set_size_inches(min(_MAX_SIZE[0], width + pixels / figure.dpi), height)


def _fit_annotations(ax: Axes, figure: Figure) -> None:
    """Room for the annotations of a horizontal bar plot: nothing past the axes' right edge."""
    from matplotlib.text import Annotation

    notes = [t for t in ax.texts if isinstance(t, Annotation) and t.get_visible()]
    if not notes:
        return
    for _ in range(6):
        renderer = _renderer(figure)
        right = ax.get_window_extent(renderer).x1
        over = max(t.get_window_extent(renderer).x1 for t in notes) - right
        top = ax.get_window_extent(renderer).y1
        above = max(t.get_window_extent(renderer).y1 for t in notes) - top
        if over <= 0.5 and above <= 0.5:
            return
        if over > 0.5:
            # room from the axis while the longest bar keeps over half the width, then from
            # a wider figure (when the plot made it)
            width_px = ax.get_window_extent(renderer).width
            low, high = ax.get_xlim()
            wanted = high + (high - low) * (over + 4) / max(width_px, 1.0)
            longest = max(float(np.asarray(t.xy)[0]) for t in notes)
            roomy = (longest - low) / (wanted - low) >= 0.55
            if roomy or figure not in _OWNED or figure.get_size_inches()[0] >= _MAX_SIZE[0]:
                ax.set_xlim(low, wanted)
            else:
                _grow(figure, over + 4)
        if above > 0.5:
            height_px = ax.get_window_extent(renderer).height
            low, high = ax.get_ylim()
            if ax.get_yscale() == "linear":
                ax.set_ylim(low, high + (high - low) * (above + 4) / max(height_px, 1.0))
        figure.tight_layout()


def _empty(ax: Axes, message: str) -> Axes:
    """A plot with nothing to draw: its title and axis labels, and why it is empty."""
    ax.text(0.5, 0.5, message, ha="center", transform=ax.transAxes)
    ax.set_xticks([])  # an empty frame's 0-1 axes would only show made-up ticks
    ax.set_yticks([])
    _tight(ax)
    return ax


#: Figures the plots created themselves (they may resize them; a caller's figure stays put).
_OWNED: weakref.WeakSet[Figure] = weakref.WeakSet()


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    width, height = min(size[0], _MAX_SIZE[0]), min(size[1], _MAX_SIZE[1])
    figure, new = plt.subplots(figsize=(width, height))
    _OWNED.add(figure)
    return new


def plot_layer_counts(frame: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Waterfall of the layer count across optimization stages (``layer_counts_frame``).

    The first bar is the original count; each following bar shows the change a stage made
    (green: layers gone, red: layers added), with the running count printed on it. When the
    log holds several runs or builder rounds (8.6+ builds once per backend strategy), each
    starts with a full bar of its own under a ``run N`` / ``round N`` label, so that one
    round's end is never compared with the next round's start.
    """
    ax = _axes(ax, (max(6.0, 0.9 * len(frame) + 2), 4.5))
    ax.set_title("Layer count across optimization stages")
    ax.set_ylabel("layers")
    if frame.empty:
        return _empty(ax, "no layer counts in this log")
    layers = frame["layers"].to_numpy(dtype=float)
    # the change each stage made, as the frame defines it: a run starts with a full bar, and
    # a builder round starts from the network as the stages before the rounds left it
    changes = frame["change"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    bottoms, heights, colors = [], [], []
    for count, change in zip(layers, changes, strict=True):
        if np.isnan(change):
            bottoms.append(0.0)
            heights.append(count)
            colors.append("#4c72b0")
        else:
            previous = count - change
            bottoms.append(min(previous, count))
            heights.append(max(abs(change), 0.5))
            colors.append(
                "#55a868" if count < previous else "#c44e52" if count > previous else "#999999"
            )
    x = np.arange(len(frame))
    ax.bar(x, heights, bottom=bottoms, color=colors, edgecolor="black", linewidth=0.5)
    for xi, count in zip(x, layers, strict=True):
        ax.annotate(f"{int(count)}", (xi, count), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, [shorten(s, 28) for s in frame["stage"]], rotation=35, ha="right")
    _label_rounds(ax, frame)
    from matplotlib.patches import Patch

    ax.legend(
        handles=[
            Patch(color="#4c72b0", label="original"),
            Patch(color="#55a868", label="layers removed"),
            Patch(color="#c44e52", label="layers added"),
            Patch(color="#999999", label="no change"),
        ],
        fontsize=8,
    )
    _tight(ax, counts="y")
    return ax


def _label_rounds(ax: Axes, frame: pd.DataFrame) -> None:
    """Separate and label the runs and builder rounds of a layer-count waterfall."""
    runs = [None if pd.isna(v) else int(v) for v in frame["run"]]
    rounds = [None if pd.isna(v) else int(v) for v in frame["round"]]
    keys = list(zip(runs, rounds, strict=True))
    several_runs = len(set(runs)) > 1
    if not several_runs and len({r for r in rounds if r is not None}) <= 1:
        return
    for i, (run, number) in enumerate(keys):
        if i > 0 and keys[i - 1] == (run, number):
            continue
        if i > 0:
            ax.axvline(i - 0.5, color="black", linestyle=":", linewidth=0.8)
        parts = [f"run {run + 1}"] if several_runs and run is not None else []
        if len({r for k, r in keys if k == run}) > 1:  # this run built more than once
            parts.append("network" if number is None else f"round {number + 1}")
        ax.text(  # above the plot area, where no bar or count can be
            i - 0.4,
            1.01,
            ", ".join(parts),
            transform=ax.get_xaxis_transform(),
            va="bottom",
            fontsize=8,
            style="italic",
        )
    ax.set_title(ax.get_title(), pad=16)


def plot_fusions_by_pass(frame: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Fusions, removals and swaps by optimization pass (``passes_frame``), horizontal bars.

    One bar per pass, centred on its label, stacking its fusions, removals and swaps, with
    the total printed after it. Passes that ran but printed no effect keep their row (an
    empty bar and a 0).
    """
    ax = _axes(ax, (8.0, max(3.0, 0.35 * len(frame) + 1.5)))
    ax.set_title("Fusions, removals and swaps by pass")
    ax.set_xlabel("events")
    if frame.empty:
        return _empty(ax, "no optimization passes in this log")
    data = frame.assign(total=frame["fusions"] + frame["removals"] + frame["swaps"])
    data = data.sort_values(["total", "fusions", "removals"], ascending=True)
    y = np.arange(len(data))
    # one bar per pass, on its label: fusions, removals and swaps stacked, the total after it
    left = np.zeros(len(data))
    for column, color in (("fusions", "#4c72b0"), ("removals", "#dd8452"), ("swaps", "#55a868")):
        values = data[column].to_numpy(dtype=float)
        ax.barh(y, values, left=left, height=0.7, label=column, color=color)
        left += values
    for yi, (total, f, r, w) in enumerate(
        zip(data["total"], data["fusions"], data["removals"], data["swaps"], strict=True)
    ):
        parts = [f"{n} {k}" for n, k in ((f, "f"), (r, "r"), (w, "s")) if n]
        text = f"{total}" + (f"  ({', '.join(parts)})" if len(parts) > 1 else "")
        ax.annotate(
            text, (total, yi), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7
        )
    ax.set_yticks(y, [shorten(p, 36) for p in data["pass_name"]])
    ax.legend(fontsize=8, loc="lower right")
    _tight(ax, counts="x")
    return ax


def plot_tactic_timing(frame: pd.DataFrame, ax: Axes | None = None, max_layers: int = 40) -> Axes:
    """Every timed tactic per layer (``tactics_frame``), time on a log scale.

    All candidates as points, the fastest of each runner, the winner of each format
    combination, and one star per layer: the tactic the engine runs (see
    :func:`engine_tactics`; a hollow star when the log does not say which combination the
    engine kept, and the fastest winner stands in).

    Layers are ordered as the log tuned them; reformat timings are left out. At most
    ``max_layers`` layers (the ones with the most candidates) are shown.
    """
    timed = frame[~frame["skipped"] & ~frame["reformat"] & frame["time_ms"].notna()]
    timed = timed[np.isfinite(timed["time_ms"].to_numpy(dtype=float))]
    layers = list(dict.fromkeys(timed["layer"].dropna()))
    if len(layers) > max_layers:
        counts = timed["layer"].value_counts()
        keep = set(counts.index[:max_layers])
        layers = [name for name in layers if name in keep]
    ax = _axes(ax, (max(7.0, 0.35 * len(layers) + 3), 5.0))
    ax.set_title("Tactic timing per layer")
    ax.set_ylabel("time per run (ms, log scale)")
    if not layers:
        return _empty(ax, "no tactic timings in this log")
    position = {name: i for i, name in enumerate(layers)}
    data = timed[timed["layer"].isin(position)]
    x = data["layer"].map(position).to_numpy(dtype=float)
    jitter = (np.random.default_rng(0).random(len(x)) - 0.5) * 0.3
    ax.scatter(x + jitter, data["time_ms"], s=8, alpha=0.35, color="#8c8c8c", label="candidate")
    fastest = data[data["fastest"]]
    ax.scatter(
        fastest["layer"].map(position),
        fastest["time_ms"],
        s=22,
        marker="D",
        color="#4c72b0",
        label="fastest of its runner",
    )
    engine = engine_tactics(data)
    picked = set(zip(engine["layer"], engine["line"], strict=True))
    winners = data[
        data["chosen"]
        & ~pd.Series(
            [(a, b) in picked for a, b in zip(data["layer"], data["line"], strict=True)],
            index=data.index,
            dtype=bool,
        )
    ]
    if not winners.empty:
        ax.scatter(
            winners["layer"].map(position),
            winners["time_ms"],
            s=36,
            marker="^",
            color="#dd8452",
            label="best of another format combination",
            zorder=3,
        )
    for known, fill, label in (
        (True, "#c44e52", "chosen: the engine runs it"),
        (False, "none", "chosen (fastest combination; the log does not show the engine's)"),
    ):
        rows = engine[engine["engine_known"] == known]
        if not rows.empty:
            ax.scatter(
                rows["layer"].map(position),
                rows["time_ms"],
                s=110,
                marker="*",
                facecolors=fill,
                edgecolors="#c44e52",
                linewidths=1.0,
                zorder=4,
                label=label,
            )
    ax.set_yscale("log")
    ax.set_xticks(range(len(layers)), [shorten(n, 32) for n in layers], rotation=60, ha="right")
    ax.legend(fontsize=8)
    _tight(ax)
    return ax


def plot_slowest_tactics(frame: pd.DataFrame, ax: Axes | None = None, top: int = 15) -> Axes:
    """The ``top`` layers whose tactic takes the longest (``tactics_frame``), one bar per layer.

    Each layer counts once, with the tactic the engine runs (:func:`engine_tactics`): not
    the winner of every format combination TensorRT timed. A hatched bar is a layer whose
    engine tactic the log does not show (its fastest chosen tactic stands in).
    """
    chosen = engine_tactics(frame)
    chosen = chosen.sort_values("time_ms", ascending=False).head(top).iloc[::-1]
    ax = _axes(ax, (9.0, max(3.0, 0.35 * len(chosen) + 1.5)))
    ax.set_title(
        f"Slowest {len(chosen)} tactic{'s' if len(chosen) != 1 else ''} the engine runs"
        if len(chosen)
        else "Slowest tactics the engine runs"
    )
    ax.set_xlabel("time of the layer's chosen tactic (ms)")
    if chosen.empty:
        return _empty(ax, "no chosen tactics in this log")
    labels = [
        f"{shorten(layer, 40)} [{plain_text(_runner(runner, runner_id))}]"
        for layer, runner, runner_id in zip(
            chosen["layer"], chosen["runner"], chosen["runner_id"], strict=True
        )
    ]
    y = np.arange(len(chosen))
    known = chosen["engine_known"].to_numpy(dtype=bool)
    ax.barh(y[known], chosen["time_ms"][known], color="#4c72b0", label="tactic in the engine")
    if (~known).any():
        ax.barh(
            y[~known],
            chosen["time_ms"][~known],
            color="#a6bddb",
            hatch="//",
            edgecolor="#4c72b0",
            label="engine's tactic not in the log: fastest chosen",
        )
        ax.legend(fontsize=7, loc="lower right")
    ax.set_yticks(y, labels)
    for yi, (ms, name) in enumerate(zip(chosen["time_ms"], chosen["tactic_name"], strict=True)):
        kernel = f"  {shorten(name, 36, _BREAKS + '_')}" if isinstance(name, str) else ""
        text = f"{ms:.3g} ms{kernel}"
        ax.annotate(
            text, (ms, yi), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7
        )
    _tight(ax)
    return ax


def _runner(runner: object, runner_id: object) -> str:
    """The runner's name, or ``runner <id>`` where TensorRT 5/6 print only its number."""
    if isinstance(runner, str):
        return runner
    try:
        return f"runner {int(runner_id)}"  # type: ignore[call-overload]
    except (TypeError, ValueError):  # NA
        return "runner ?"


def _share_bars(ax: Axes, labels: list[str], values: np.ndarray, unit: str, color: str) -> None:
    """Horizontal bars, largest on top, each annotated with its value and share."""
    total = float(np.nansum(values))
    y = np.arange(len(values))
    ax.barh(y, values, color=color)
    ax.set_yticks(y, labels)
    for yi, value in zip(y, values, strict=True):
        share = f" ({100 * value / total:.1f}%)" if total > 0 else ""
        text = f"{value:.3g} {unit}{share}" if unit else f"{int(value)}{share}"
        ax.annotate(
            text, (value, yi), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7
        )
    ax.margins(x=0.25)


def plot_time_by(
    frame: pd.DataFrame, by: str = "type", ax: Axes | None = None, top: int = 15
) -> Axes:
    """Engine time per layer ``type`` or ``precision`` (``layers_frame``), horizontal bars.

    Needs a merged profile; without one the bars count layers instead, and the title says so.
    Groups beyond the ``top`` largest are summed into one "other" bar.
    """
    if by not in ("type", "precision", "module", "parameter_type"):
        raise ValueError(f"by must be type, precision, module or parameter_type, not {by!r}")
    timed = bool(frame["time_ms"].notna().any())
    keys = frame[by].astype("object").where(frame[by].notna(), "?")
    if timed:  # (added up as the other views add: time_by_key)
        rows = time_by_key(keys.tolist(), frame["time_ms"].astype(float).tolist())
        values = pd.Series({key: ms or 0.0 for key, _, ms in rows}, dtype=float)
    else:
        values = keys.groupby(keys).size().astype(float)
    values = values.sort_values(ascending=False, kind="stable")
    if len(values) > top:
        other = values.iloc[top - 1 :].sum()
        values = pd.concat([values.iloc[: top - 1], pd.Series({"other": other})])
    values = values.iloc[::-1]
    ax = _axes(ax, (8.0, max(3.0, 0.35 * len(values) + 1.5)))
    noun = by.replace("_", " ")
    if timed:
        ax.set_title(f"Time by layer {noun}")
        ax.set_xlabel("time per inference (ms)")
    else:
        ax.set_title(f"Layers by {noun} (no profile merged: counts, not time)")
        ax.set_xlabel("layers")
    if values.empty:
        return _empty(ax, "no layers")
    labels = [shorten(str(k), 36) for k in values.index]
    _share_bars(ax, labels, values.to_numpy(dtype=float), "ms" if timed else "", "#4c72b0")
    _tight(ax, counts=None if timed else "x")
    return ax


def plot_module_time(
    frame: pd.DataFrame, ax: Axes | None = None, depth: int | None = None, top: int = 20
) -> Axes:
    """Time (or layer count, without a profile) per ONNX module (``modules_frame``).

    ``depth`` picks the level of the module tree (1 = the top modules); by default the first
    level with at least two modules that hold layers. The ``top`` largest modules are shown.
    A hatched part is time split evenly from a layer whose nodes span several modules (a
    Myelin region, a horizontal merge: ``split_ms``).
    """
    held = frame[frame["layers"] > 0] if not frame.empty else frame
    if depth is None:
        counts = held["depth"].value_counts()
        levels = sorted(d for d in counts.index.astype(int) if d > 0 and counts[d] >= 2)
        depth = levels[0] if levels else 1
    level = held[held["depth"] == depth]
    timed = bool(level["time_ms"].notna().any())
    column = "time_ms" if timed else "layers"
    level = level.sort_values(column, ascending=False).head(top).iloc[::-1]
    ax = _axes(ax, (9.0, max(3.0, 0.35 * len(level) + 1.5)))
    what = "Time" if timed else "Layers"
    ax.set_title(f"{what} by module (depth {depth})")
    ax.set_xlabel("time per inference (ms)" if timed else "layers")
    if level.empty:
        return _empty(ax, "no modules at this depth")
    labels = [shorten(m, 44) for m in level["module"]]
    values = level[column].fillna(0).to_numpy(dtype=float)
    _share_bars(ax, labels, values, "ms" if timed else "", "#55a868")
    split = level["split_ms"].fillna(0).to_numpy(dtype=float) if "split_ms" in level else None
    if timed and split is not None and (split > 0).any():
        # the share of layers timed as a whole but spread over several modules (Myelin
        # regions, horizontal merges): an even split, not a measurement
        ax.barh(
            np.arange(len(split)),
            split,
            left=values - split,
            color="none",
            edgecolor="#2d6a3e",
            hatch="///",
            linewidth=0,
            label="even share of a layer spanning modules (Myelin region, merge)",
        )
        ax.legend(fontsize=7, loc="lower right")
    _tight(ax, counts=None if timed else "x")
    return ax


def plot_memory_by_stage(frame: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """CPU and GPU memory after each stage (``memory_frame``), in MiB.

    Lines: the process totals ``[MemUsageChange]`` and ``[MemUsageSnapshot]`` lines print, in
    log order (``Init CUDA``, ``Init builder kernel library``, ...), each GPU point labelled with
    the stage's GPU delta. Bars: what TensorRT itself manages (``TensorRT-managed allocation in
    building engine``...), a different account that the lines do not include. The engine's own
    figures (activation, persistent, scratch) are listed in a text box when the log has them.
    """
    totals = frame[frame["kind"].isin(["memory_change", "memory_snapshot"])]
    values = totals[totals["metric"].isin(["cpu", "gpu"])]
    stages = list(dict.fromkeys(zip(values["line"], values["stage"], strict=True)))
    ax = _axes(ax, (max(7.0, 0.8 * len(stages) + 3), 5.0))
    ax.set_title("Memory by stage")
    ax.set_ylabel("memory (MiB)")
    if not stages:
        return _empty(ax, "no memory figures in this log")

    def figure(line: int, metric: str) -> float:
        return float(values[(values["line"] == line) & (values["metric"] == metric)]["mib"].sum())

    managed = [str(stage).startswith("TensorRT-managed") for _, stage in stages]
    x = np.arange(len(stages))
    for metric, color in (("cpu", "#4c72b0"), ("gpu", "#c44e52")):
        ys = [
            np.nan if m else figure(line, metric)
            for (line, _), m in zip(stages, managed, strict=True)
        ]
        shown = ~np.isnan(np.asarray(ys, dtype=float))
        if shown.any():
            ax.plot(
                x[shown],
                np.asarray(ys)[shown],
                marker="o",
                color=color,
                label=f"{metric.upper()} in use",
            )
    if any(managed):
        xs = [xi for xi, m in zip(x, managed, strict=True) if m]
        ys = [figure(stages[xi][0], "gpu") for xi in xs]
        ax.bar(xs, ys, width=0.5, color="#dd8452", alpha=0.7, label="GPU managed by TensorRT")
    deltas = totals[totals["metric"] == "gpu_delta"].set_index("line")["mib"]
    for xi, (line, _) in zip(x, stages, strict=True):
        if line in deltas.index and deltas[line]:
            ax.annotate(
                f"{deltas[line]:+.0f}",
                (xi, figure(line, "gpu")),
                xytext=(0, 5),
                textcoords="offset points",
                ha="center",
                fontsize=7,
                color="#c44e52",
            )
    ax.set_xticks(x, [shorten(stage, 30) for _, stage in stages], rotation=35, ha="right")
    engine = frame[(frame["stage"] == "engine") & frame["layer"].isna()]
    if not engine.empty:
        last = engine.drop_duplicates("metric", keep="last")
        text = "\n".join(
            f"{plain_text(m)}: {mib:.3g} MiB"
            for m, mib in zip(last["metric"], last["mib"], strict=True)
        )
        ax.text(  # beside the axes: over them it would hide the lines
            1.01,
            0.0,
            "engine\n" + text,
            transform=ax.transAxes,
            va="bottom",
            ha="left",
            fontsize=7,
            bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.8},
        )
    ax.legend(fontsize=8, loc="upper right")
    _tight(ax)
    return ax


# -- comparing two builds (trtlog.compare) --------------------------------------------------


def plot_diff(
    frame: pd.DataFrame,
    ax: Axes | None = None,
    by: str = "module",
    depth: int | None = None,
    top: int = 20,
) -> Axes:
    """Time of A vs B per module (or per layer type) as paired bars (``Comparison.frame()``).

    Each layer counts once per side (rows that repeat a split layer are skipped). ``by`` is
    ``module`` (ONNX modules cut at ``depth`` parts, by default the shallowest depth that
    gives two modules) or ``type`` (layer types). Without a profile on either side the bars
    count layers instead. The ``top`` groups with the most time (or layers) are shown, each
    pair labelled with B minus A.
    """
    if by not in ("module", "type"):
        raise ValueError(f"by must be 'module' or 'type', not {by!r}")
    timed = bool(frame["time_a_ms"].notna().any() or frame["time_b_ms"].notna().any())
    sides: dict[str, pd.Series] = {}
    if by == "module" and depth is None:
        modules = pd.concat([frame["module_a"], frame["module_b"]]).dropna()
        depth = next(
            (
                d
                for d in range(1, 8)
                if modules[modules != "/"].map(lambda m, d=d: cut_module(m, d)).nunique() >= 2
            ),
            1,
        )
    for side in ("a", "b"):
        rows = frame[frame[f"index_{side}"].notna() & ~frame[f"repeated_{side}"]]
        if by == "module":
            keys = rows[f"module_{side}"].map(lambda m: cut_module(str(m), depth or 1))
        else:
            keys = rows[f"type_{side}"].fillna("?")
        if timed:
            sides[side] = rows[f"time_{side}_ms"].groupby(keys).sum(min_count=1)
        else:
            sides[side] = rows[f"index_{side}"].groupby(keys).size()
    data = pd.DataFrame({"a": sides["a"], "b": sides["b"]}).fillna(0.0)
    data = data.assign(size=data.max(axis=1)).sort_values("size", ascending=False).head(top)
    data = data.iloc[::-1]
    what = "module" if by == "module" else "layer type"
    ax = _axes(ax, (9.0, max(3.0, 0.45 * len(data) + 1.5)))
    ax.set_title(f"{'Time' if timed else 'Layers'} per {what}: A vs B")
    ax.set_xlabel("time per inference (ms)" if timed else "layers (no profile given)")
    if data.empty:
        return _empty(ax, "no layers to compare")
    y = np.arange(len(data))
    ax.barh(y + 0.2, data["a"], height=0.4, label="A", color="#4c72b0")
    ax.barh(y - 0.2, data["b"], height=0.4, label="B", color="#dd8452")
    ax.set_yticks(y, [shorten(str(k), 40) for k in data.index])
    for yi, (a, b) in enumerate(zip(data["a"], data["b"], strict=True)):
        delta = b - a
        text = f"{delta:+.3g} ms" if timed else f"{delta:+.0f}"
        ax.annotate(
            text,
            (max(a, b), yi),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
            color="#55a868" if delta < 0 else "#c44e52" if delta > 0 else "#666666",
        )
    ax.legend(fontsize=8, loc="best")
    ax.margins(x=0.15)
    _tight(ax, counts=None if timed else "x")
    return ax
