"""``trend``: how the builds of one model moved, and the build where each figure jumped.

A view over the warehouse tables (DuckDB, pandas; matplotlib only in :func:`plot_trend`).
One row per build of the model, in the order of a ``builds`` column (``trt_version`` by
default, compared as version numbers: 10.8 before 10.13), with the figures a fleet watches:
layer counts, fusions, lone Q/DQ layers, the precision mix of the engine's layers, findings,
build and tactic-selection time, engine size and latency. For each figure, the build where it
changed most from the build before (by at least ``threshold``) is its jump; failed and
cut-off builds are listed but not compared (they printed less, not fewer fusions).

Builds are compared only within a group of the same inference shape (``batch``/``shapes``)
and precision (the ``Precision:`` option, else the engine's layer precisions): the batch-64
run of a sweep is not a "jump" from its batch-1 run, nor an FP32 build from an FP16 one.
Each row has a label that tells it apart (``10.16.1 run 3``), never Python's ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trtlog._display import number
from trtlog.warehouse.schema import TABLES
from trtlog.warehouse.store import WarehouseError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["GROUPINGS", "METRICS", "Jump", "Trend", "plot_trend", "short_id", "trend"]

#: The figures of a trend: column → what it is (the builds column it comes from, or how).
METRICS: dict[str, str] = {
    "layers_final": "layers after the optimizer's last stage (builds.layers_final)",
    "engine_layers": "layers of the engine (builds.engine_layers)",
    "fusions": "fusions the log printed (builds.fusions)",
    "lone_qdq": "Q/DQ layers left alone in the engine (builds.lone_qdq)",
    "fp32_share": "share of the engine's layers running in FP32 (layers.precision)",
    "findings_error": "findings of severity error (builds.findings_error)",
    "findings_warning": "findings of severity warning (builds.findings_warning)",
    "engine_build_seconds": "trtexec's 'Engine built in' (builds.engine_build_seconds)",
    "tactic_selection_seconds": "tactic selection time (builds.tactic_selection_seconds)",
    "engine_size_mib": "engine size (builds.engine_size_mib)",
    "latency_median_ms": "median latency of the performance run (builds.latency_median_ms)",
}

_BUILD_COLUMNS = [m for m in METRICS if m in TABLES["builds"].names]

#: What builds are grouped by before they are compared: ``shape`` (the ``shapes`` column,
#: else ``batch``) and ``precision`` (the ``precision`` option, else ``engine_precisions``).
GROUPINGS = ("shape", "precision")

#: The builds columns a trend row reads besides its figures.
_ROW_COLUMNS = [
    "build_id",
    "run",
    "runs",
    "status",
    "batch",
    "shapes",
    "precision",
    "engine_precisions",
]


@dataclass(frozen=True)
class Jump:
    """The build where a figure changed most from the build before it.

    Attributes:
        metric: the figure (a column of :attr:`Trend.frame`).
        build_id: the build where it jumped.
        label: that build's label (its ``by`` value, and its run in a log of several).
        before: the figure in the build before (of the same group).
        after: the figure in this build.
        change: ``after - before``.
        relative: ``change / |before|`` (``inf`` from 0).
        group: the group of both builds (``batch 4, FP32+FP16``; ``""`` without grouping).
        before_label: the label of the build before.
    """

    metric: str
    build_id: str
    label: str
    before: float
    after: float
    change: float
    relative: float
    group: str = ""
    before_label: str = ""

    def describe(self) -> str:
        """``fusions 120 → 95 (-20.8%) at 10.13.0 after 10.8.0 (build 3f2a9c1d; FP16)``."""
        rel = "new" if math.isinf(self.relative) else f"{100 * self.relative:+.1f}%"
        after = f" after {self.before_label}" if self.before_label else ""
        group = f"; {self.group}" if self.group else ""
        return (
            f"{self.metric} {_num(self.before)} → {_num(self.after)} ({rel}) at {self.label}"
            f"{after} (build {short_id(self.build_id)}{group})"
        )


def _num(value: float) -> str:
    return number(value)


def short_id(build_id: str) -> str:
    """A build id cut to 8 characters, with its run: ``3f2a9c1d``, ``b489744f:2``."""
    source, colon, run = build_id.rpartition(":")
    return f"{source[:8]}:{run}" if colon and run.isdigit() else build_id[:8]


@dataclass
class Trend:
    """The builds of one model, in order, and the jumps of their figures.

    Attributes:
        model: the model.
        by: the ``builds`` column the builds are ordered by.
        frame: one row per build: ``by``'s value (as text), ``label`` (that value, with the
            run of a log of several runs and, where two rows would still read the same, the
            build id), ``group`` (the shape and precision its figures are compared within),
            ``build_id``, ``status``, ``batch``, ``shapes``, ``precision``, the figures of
            :data:`METRICS`, ``precision_mix`` (``FP16 62%, INT8 30%, FP32 8%`` of the
            engine's layers) and ``jumps`` (the figures that jumped at this build). Rows are
            in ``by`` order within each group, the groups in the order of their first build.
        jumps: one per figure and group that changed by at least the threshold.
        grouped_by: the groupings used (:data:`GROUPINGS`).
    """

    model: str
    by: str
    frame: pd.DataFrame
    jumps: list[Jump] = field(default_factory=list)
    grouped_by: tuple[str, ...] = GROUPINGS

    def to_text(self) -> str:
        """The table (grouped rows together) and one line per jump.

        Columns without a value in any row are left out and named under the table.
        """
        groups = list(dict.fromkeys(self.frame["group"]))
        how = " and ".join(self.grouped_by)
        head = f"{self.model}: {len(self.frame)} build(s) by {self.by}"
        if self.grouped_by:
            head += f", compared within {len(groups)} group(s) of one {how}"
        lines = [head]
        drop = {"build_id", self.by}
        if self.grouped_by:
            drop |= {"batch", "shapes", "precision"}  # the group names them
        else:
            drop.add("group")
        drop -= {"label", "status", *METRICS}  # (shown even when the builds are ordered by it)
        shown = self.frame.drop(columns=sorted(drop)).copy()
        shown.insert(1, "build", self.frame["build_id"].map(short_id))
        cells = [[_cell(v) for v in row] for row in shown.itertuples(index=False, name=None)]
        keep = [i for i in range(len(shown.columns)) if any(r[i] for r in cells)]
        empty = [c for i, c in enumerate(shown.columns) if i not in keep and c != "jumps"]
        headers = [str(shown.columns[i]) for i in keep]
        cells = [[r[i] for i in keep] for r in cells]
        widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip())
        lines.append("  ".join("-" * w for w in widths))
        for r in cells:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if empty:
            lines.append(f"(no value in any build: {', '.join(empty)})")
        if self.jumps:
            lines.append("")
            lines += ["jump: " + j.describe() for j in self.jumps]
        else:
            lines.append("\nno figure changed by the threshold between two builds of a group")
        return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return number(value)
    text = str(value)
    return "" if text in ("<NA>", "nan", "None") else text


def trend(
    wh: Any,
    model: str,
    *,
    by: str = "trt_version",
    where: str | None = None,
    threshold: float = 0.10,
    group_by: Sequence[str] = GROUPINGS,
) -> Trend:
    """How the builds of ``model`` moved, ordered by a ``builds`` column.

    Args:
        wh: a warehouse connection (:func:`trtlog.warehouse.open`).
        model: the ``builds.model`` value.
        by: the ``builds`` column to order by (``trt_version`` orders as version numbers).
        where: an extra SQL condition on ``builds`` (``"device LIKE '%A100%'"``).
        threshold: the least relative change (0.10: 10%) that counts as a jump.
        group_by: compare builds only within groups of one ``shape``, one ``precision``,
            both (the default) or neither (``()``).

    Raises:
        WarehouseError: an unknown ``by`` column or grouping, or no build of that model.

    Example::

        t = trend(wh, "yolov8s", by="trt_version")
        [j.describe() for j in t.jumps]
    """
    names = TABLES["builds"].names
    if by not in names:
        raise WarehouseError(f"--by {by!r} is not a builds column; try trt_version, device, ...")
    unknown = [g for g in group_by if g not in GROUPINGS]
    if unknown:
        raise WarehouseError(
            f"cannot group by {', '.join(unknown)}: the groupings are {', '.join(GROUPINGS)}"
        )
    order = "trt_version_parts" if by == "trt_version" else by
    condition = f" AND ({where})" if where else ""
    wanted = [*_ROW_COLUMNS, *_BUILD_COLUMNS]
    frame = wh.execute(
        f"SELECT CAST({by} AS VARCHAR) AS by_value, {', '.join(wanted)} FROM builds "
        f"WHERE model = ?{condition} ORDER BY {order} NULLS FIRST, ingested_at, run, build_id",
        [model],
    ).df()
    # (ordered by one of the row's own columns: that column, not a copy)
    frame = (
        frame.drop(columns="by_value") if by in wanted else frame.rename(columns={"by_value": by})
    )
    if frame.empty:
        known = [
            r[0] for r in wh.execute("SELECT DISTINCT model FROM builds ORDER BY 1").fetchall()
        ]
        raise WarehouseError(
            f"no build of model {model!r}"
            + (f" (models: {', '.join(map(str, known[:12]))})" if known else "")
        )
    mix = _precision_mix(wh, list(frame["build_id"]))
    frame["fp32_share"] = frame["build_id"].map(mix["fp32_share"])
    frame["precision_mix"] = frame["build_id"].map(mix["precision_mix"])
    frame["label"] = _labels(frame, by)
    frame["group"] = [_group(row, group_by) for row in frame.itertuples(index=False)]
    first = {g: i for i, g in reversed(list(enumerate(frame["group"])))}
    frame = frame.assign(_first=frame["group"].map(first)).sort_values("_first", kind="stable")
    ordered = [by, "label", "group", "build_id", "status", "batch", "shapes", "precision"]
    ordered = list(dict.fromkeys([*ordered, *METRICS, "precision_mix"]))
    frame = frame[ordered].reset_index(drop=True)
    jumps = _jumps(frame, threshold)
    at: dict[str, list[str]] = {}
    for j in jumps:
        rel = "new" if math.isinf(j.relative) else f"{100 * j.relative:+.0f}%"
        at.setdefault(j.build_id, []).append(f"{j.metric} {rel}")
    frame["jumps"] = [", ".join(at.get(b, [])) for b in frame["build_id"]]
    return Trend(model=model, by=by, frame=frame, jumps=jumps, grouped_by=tuple(group_by))


def _text(value: Any) -> str | None:
    """A cell as text, or ``None`` for SQL's NULL (pandas' NA, NaN, None)."""
    if value is None or _missing(value):
        return None
    text = str(value)
    return text or None


def _labels(frame: pd.DataFrame, by: str) -> list[str]:
    """Each build's name in the trend: its ``by`` value, its run, else its build id."""
    labels = []
    for value, run, runs in zip(frame[by], frame["run"], frame["runs"], strict=True):
        label = _text(value) or f"no {by}"
        if _text(runs) is not None and int(runs) > 1 and _text(run) is not None:
            label += f" run {int(run) + 1}"
        labels.append(label)
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [
        f"{label} ({b[:8]})" if seen[label] > 1 else label
        for label, b in zip(labels, frame["build_id"], strict=True)
    ]


def _group(row: Any, group_by: Sequence[str]) -> str:
    """``batch 4, FP32+FP16``: what a build's figures are compared within."""
    parts = []
    if "shape" in group_by:
        shapes, batch = _text(row.shapes), _text(row.batch)
        parts.append(f"shapes {shapes}" if shapes else f"batch {batch}" if batch else "")
    if "precision" in group_by:
        precision, layers = _text(row.precision), _text(row.engine_precisions)
        parts.append(precision or (f"layers {layers}" if layers else ""))
    return ", ".join(p for p in parts if p)


def _precision_mix(wh: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
    counts = wh.execute(
        "SELECT build_id, coalesce(precision, '?') AS precision, count(*) AS n FROM layers "
        "WHERE list_contains(?, build_id) GROUP BY ALL ORDER BY build_id, n DESC, precision",
        [ids],
    ).fetchall()
    per: dict[str, list[tuple[str, int]]] = {}
    for build_id, precision, n in counts:
        per.setdefault(build_id, []).append((precision, int(n)))
    shares: dict[str, Any] = {}
    texts: dict[str, Any] = {}
    for build_id, parts in per.items():
        total = sum(n for _, n in parts)
        known = sum(n for p, n in parts if p != "?")  # a names-only engine: precision unknown
        shares[build_id] = sum(n for p, n in parts if p == "FP32") / known if known else None
        texts[build_id] = ", ".join(f"{p} {100 * n / total:.0f}%" for p, n in parts)
    return {"fp32_share": shares, "precision_mix": texts}


#: Builds whose figures are not compared (a failed or cut-off build printed less).
UNFINISHED = ("failed", "cut_off")


def _jumps(frame: pd.DataFrame, threshold: float) -> list[Jump]:
    """Per group and figure, the biggest change between two builds that follow each other."""
    out = []
    finished = frame[~frame["status"].isin(UNFINISHED)]
    for group in dict.fromkeys(finished["group"]):
        part = finished[finished["group"] == group]
        for metric in METRICS:
            best: Jump | None = None
            previous: tuple[float, str] | None = None
            for label, build_id, value in zip(
                part["label"], part["build_id"], part[metric], strict=True
            ):
                if _missing(value):
                    continue
                value = float(value)
                if previous is not None and value != previous[0]:
                    before, before_label = previous
                    change = value - before
                    relative = change / abs(before) if before else math.inf
                    if abs(relative) >= threshold and (
                        best is None or abs(relative) > abs(best.relative)
                    ):
                        best = Jump(
                            metric,
                            build_id,
                            str(label),
                            before,
                            value,
                            change,
                            relative,
                            group=str(group),
                            before_label=before_label,
                        )
                previous = (value, str(label))
            if best is not None:
                out.append(best)
    return out


def _missing(value: Any) -> bool:
    import pandas as pd

    return bool(pd.isna(value))


def plot_trend(
    frame: pd.DataFrame, metrics: Sequence[str] | None = None, axes: Sequence[Axes] | None = None
) -> list[Axes]:
    """One small panel per figure of a trend, builds along the x axis, jumps marked.

    Several figures with different units do not share one axis, so this plot takes and
    returns a sequence of Axes (one per figure) instead of one.

    Args:
        frame: :attr:`Trend.frame`.
        metrics: the figures to draw (default: those with at least one value).
        axes: where to draw them (default: a new figure with one row of panels per two).

    Returns:
        The Axes drawn on, one per figure.
    """
    import matplotlib.pyplot as plt

    by = frame.columns[0]
    chosen = [m for m in (metrics or METRICS) if frame[m].notna().any()]
    groups = list(dict.fromkeys(frame["group"]))
    if axes is None:
        n = max(len(chosen), 1)
        rows = math.ceil(n / 2)
        fig, grid = plt.subplots(rows, 2, figsize=(11, 2.6 * rows), squeeze=False)
        flat = list(grid.ravel())
        for extra in flat[len(chosen) :]:
            extra.set_visible(False)
        axes = flat[: len(chosen)]
        fig.suptitle(f"{len(frame)} builds by {by}")
    labels = list(frame["label"])
    unfinished = frame["status"].isin(UNFINISHED).to_numpy()
    for ax, metric in zip(axes, chosen, strict=False):
        values = frame[metric].astype("float64").to_numpy()
        for k, group in enumerate(groups):  # one line per group: only those compare
            known = [
                i
                for i, (v, g) in enumerate(zip(values, frame["group"], strict=True))
                if v == v and not unfinished[i] and g == group
            ]
            ax.plot(known, values[known], marker="o", color=f"C{k % 10}", label=group or None)
        if len(groups) > 1 and metric == chosen[0]:
            ax.legend(fontsize=6, loc="best")
        failed = [i for i, v in enumerate(values) if v == v and unfinished[i]]
        if failed:
            ax.plot(failed, values[failed], "x", color="grey", label="failed or cut off")
            ax.legend(fontsize=7, loc="best")
        for i, tag in enumerate(frame["jumps"]):
            if any(t.startswith(metric + " ") for t in str(tag).split(", ")):
                ax.plot([i], [values[i]], "o", markersize=12, color="tab:red", fillstyle="none")
        ax.set_title(metric, fontsize=9)
        ax.set_xticks(range(len(frame)))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
        ax.margins(x=0.08, y=0.15)
    if axes:
        axes[0].get_figure().tight_layout()  # type: ignore[union-attr]
    return list(axes)
