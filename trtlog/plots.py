"""matplotlib plots of trtlog frames: each takes a frame and an optional Axes, returns the Axes.

A view module (matplotlib, imported here only): plots never call ``show`` or ``savefig`` (the
CLI saves figures). Long layer names are shortened for labels; every plot has a title, axis
labels with units, and a legend where colours carry meaning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

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


def shorten(name: str, width: int = 48) -> str:
    """A readable label for a long layer name: keep its start and end.

    Example:
        >>> shorten("model.model.backbone0.conv.weight + /model/backbone0/conv/Conv", 30)
        'model.model.ba…bone0/conv/Conv'
    """
    name = str(name)
    if len(name) <= width:
        return name
    head = (width - 1) // 2
    return name[:head] + "…" + name[len(name) - (width - 1 - head) :]


def _tight(ax: Axes) -> None:
    figure = ax.get_figure()
    if isinstance(figure, Figure):
        figure.tight_layout()


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    _fig, new = plt.subplots(figsize=size)
    return new


def plot_layer_counts(frame: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Waterfall of the layer count across optimization stages (``layer_counts_frame``).

    The first bar is the original count; each following bar shows the change a stage made
    (green: layers gone, red: layers added), with the running count printed on it.
    """
    ax = _axes(ax, (max(6.0, 0.9 * len(frame) + 2), 4.5))
    ax.set_title("Layer count across optimization stages")
    ax.set_ylabel("layers")
    if frame.empty:
        ax.text(0.5, 0.5, "no layer counts in this log", ha="center", transform=ax.transAxes)
        return ax
    layers = frame["layers"].to_numpy(dtype=float)
    bottoms, heights, colors = [], [], []
    previous = None
    for count in layers:
        if previous is None:
            bottoms.append(0.0)
            heights.append(count)
            colors.append("#4c72b0")
        else:
            bottoms.append(min(previous, count))
            heights.append(max(abs(count - previous), 0.5))
            colors.append(
                "#55a868" if count < previous else "#c44e52" if count > previous else "#999999"
            )
        previous = count
    x = np.arange(len(frame))
    ax.bar(x, heights, bottom=bottoms, color=colors, edgecolor="black", linewidth=0.5)
    for xi, count in zip(x, layers, strict=True):
        ax.annotate(f"{int(count)}", (xi, count), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, [shorten(s, 28) for s in frame["stage"]], rotation=35, ha="right")
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
    _tight(ax)
    return ax


def plot_fusions_by_pass(frame: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Fusions, removals and swaps by optimization pass (``passes_frame``), horizontal bars.

    Passes that ran but printed no effect keep their row (with empty bars).
    """
    ax = _axes(ax, (8.0, max(3.0, 0.35 * len(frame) + 1.5)))
    ax.set_title("Fusions, removals and swaps by pass")
    ax.set_xlabel("events")
    if frame.empty:
        ax.text(0.5, 0.5, "no optimization passes in this log", ha="center", transform=ax.transAxes)
        return ax
    data = frame.assign(total=frame["fusions"] + frame["removals"] + frame["swaps"])
    data = data.sort_values(["total", "fusions", "removals"], ascending=True)
    y = np.arange(len(data))
    ax.barh(y + 0.27, data["fusions"], height=0.27, label="fusions", color="#4c72b0")
    ax.barh(y, data["removals"], height=0.27, label="removals", color="#dd8452")
    ax.barh(y - 0.27, data["swaps"], height=0.27, label="swaps", color="#55a868")
    ax.set_yticks(y, [shorten(p, 36) for p in data["pass_name"]])
    ax.legend(fontsize=8)
    _tight(ax)
    return ax


def engine_tactics(frame: pd.DataFrame) -> pd.DataFrame:
    """The one tactic each tuned layer ends up with (``tactics_frame`` rows, one per layer).

    TensorRT chooses a tactic per format combination, then keeps one combination: the row
    marked ``in_engine`` (the engine layer runs that tactic, from the log's layer dump). A
    layer without one (no layer dump, or a tactic the dump does not show) gets its fastest
    chosen tactic, and ``engine_known`` is False: the log does not say which combination the
    engine kept. Reformat timings are left out. Adds the column ``engine_known``.

    Example:
        >>> import trtlog
        >>> rows = engine_tactics(trtlog.parse_text("[I] [TRT] nothing\\n").tactics_frame())
        >>> list(rows.columns)[-2:]
        ['in_engine', 'engine_known']
    """
    chosen = frame[frame["chosen"] & ~frame["reformat"] & frame["layer"].notna()]
    chosen = chosen[np.isfinite(chosen["time_ms"].to_numpy(dtype=float))]
    known = chosen[chosen["in_engine"]].drop_duplicates("layer")
    rest = chosen[~chosen["layer"].isin(set(known["layer"]))]
    fastest = rest.sort_values(["time_ms", "line"]).drop_duplicates("layer")
    picked = pd.concat([known.assign(engine_known=True), fastest.assign(engine_known=False)])
    out: pd.DataFrame = picked.sort_values("line").reset_index(drop=True)
    return out


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
        ax.text(0.5, 0.5, "no tactic timings in this log", ha="center", transform=ax.transAxes)
        return ax
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
        ax.text(0.5, 0.5, "no chosen tactics in this log", ha="center", transform=ax.transAxes)
        return ax
    labels = [
        f"{shorten(layer, 40)} [{_runner(runner, runner_id)}]"
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
        text = f"{ms:.3g} ms" + (f"  {shorten(name, 36)}" if isinstance(name, str) else "")
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
    if timed:
        values = frame["time_ms"].groupby(keys).sum(min_count=1).fillna(0.0)
    else:
        values = keys.groupby(keys).size().astype(float)
    values = values.sort_values(ascending=False)
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
        ax.text(0.5, 0.5, "no layers", ha="center", transform=ax.transAxes)
        return ax
    labels = [shorten(str(k), 36) for k in values.index]
    _share_bars(ax, labels, values.to_numpy(dtype=float), "ms" if timed else "", "#4c72b0")
    _tight(ax)
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
        ax.text(0.5, 0.5, "no modules at this depth", ha="center", transform=ax.transAxes)
        return ax
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
    _tight(ax)
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
        ax.text(0.5, 0.5, "no memory figures in this log", ha="center", transform=ax.transAxes)
        return ax

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
            f"{m}: {mib:.3g} MiB" for m, mib in zip(last["metric"], last["mib"], strict=True)
        )
        ax.text(
            0.01,
            0.98,
            "engine\n" + text,
            transform=ax.transAxes,
            va="top",
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
    from trtlog.diff.summary import cut_module

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
        ax.text(0.5, 0.5, "no layers to compare", ha="center", transform=ax.transAxes)
        return ax
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
    _tight(ax)
    return ax
