"""``trtlog plot``: one figure per KIND, saved to a file (part of the command-line package)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from trtlog._display import visible
from trtlog.cli.common import (
    LOGGING_OPTIONS,
    UsageError,
    add_run_option,
    add_run_options,
    compare_sides,
    load_engine,
    log_for,
    output_folder,
)

__all__ = ["add_arguments", "run"]

# -- plot: figures from logs and comparisons (one KIND per figure) -------------------------

PlotRunner = Callable[[argparse.Namespace], Any]  # returns the Axes to save
_PLOTS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], PlotRunner]] = {}


def _setup_plot_diff(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", help="build A: a trtexec log or a layer-info JSON")
    p.add_argument("b", help="build B: a trtexec log or a layer-info JSON")
    add_run_options(p)
    p.add_argument("--profile-a", help="an --exportProfile JSON for A")
    p.add_argument("--profile-b", help="an --exportProfile JSON for B")
    p.add_argument("--by", choices=("module", "type"), default="module", help="group layers by")
    p.add_argument("--depth", type=int, help="module depth (default: the first that splits)")
    p.add_argument("--top", type=int, default=20, help="show at most this many groups")


def _plot_diff(args: argparse.Namespace) -> Any:
    """Time (or layers) of A vs B per module or layer type, as paired bars."""
    from trtlog.plots import plot_diff

    cmp = compare_sides(args)
    return plot_diff(cmp.frame(), by=args.by, depth=args.depth, top=args.top)


_PLOTS["diff"] = (_setup_plot_diff, _plot_diff)


def _setup_plot_log(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="LOG", help="a trtexec --verbose log, or - for stdin")
    add_run_option(p)


def _setup_plot_engine(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a layer-info JSON, or a log with a layer dump")
    p.add_argument("--profile", help="an --exportProfile JSON to merge")
    p.add_argument("--times", help=argparse.SUPPRESS)
    add_run_option(p)


def _log_plot(frame: str, plot: str, **options: Any) -> PlotRunner:
    def run(args: argparse.Namespace) -> Any:
        from trtlog import plots

        build = log_for(args.file, args)
        return getattr(plots, plot)(getattr(build, frame)(), **options)

    return run


def _plot_time_by(args: argparse.Namespace) -> Any:
    """Engine time (or layers, without a profile) by layer type, precision or module."""
    from trtlog.plots import plot_time_by

    engine = load_engine(args)
    return plot_time_by(engine.layers_frame(), by=args.by, top=args.top)


def _setup_plot_time_by(p: argparse.ArgumentParser) -> None:
    _setup_plot_engine(p)
    p.add_argument("--by", choices=("type", "precision", "module"), default="type")
    p.add_argument("--top", type=int, default=15, help="show at most this many groups")


def _plot_modules(args: argparse.Namespace) -> Any:
    """Time (or layers) per ONNX module, at one depth of the module tree."""
    from trtlog.plots import plot_module_time

    engine = load_engine(args)
    return plot_module_time(engine.modules_frame(), depth=args.depth, top=args.top)


def _setup_plot_modules(p: argparse.ArgumentParser) -> None:
    _setup_plot_engine(p)
    p.add_argument("--depth", type=int, help="module depth (default: the first that splits)")
    p.add_argument("--top", type=int, default=20, help="show at most this many modules")


for _name, _frame, _plot, _doc in (
    ("layer-counts", "layer_counts_frame", "plot_layer_counts", "Layer count across stages."),
    ("fusions", "passes_frame", "plot_fusions_by_pass", "Fusions and removals by pass."),
    ("tactics", "tactics_frame", "plot_tactic_timing", "Every timed tactic per layer."),
    ("slowest-tactics", "tactics_frame", "plot_slowest_tactics", "The slowest chosen tactics."),
    ("memory", "memory_frame", "plot_memory_by_stage", "CPU and GPU memory by stage."),
):
    _runner = _log_plot(_frame, _plot)
    _runner.__doc__ = _doc
    _PLOTS[_name] = (_setup_plot_log, _runner)
_PLOTS["time-by"] = (_setup_plot_time_by, _plot_time_by)
_PLOTS["modules"] = (_setup_plot_modules, _plot_modules)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog plot``."""
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    for name, (setup, run) in _PLOTS.items():
        doc = (run.__doc__ or "").strip()
        k = kinds.add_parser(
            name, help=doc.split("\n")[0], description=doc, parents=[LOGGING_OPTIONS]
        )
        k.add_argument("-o", "--output", required=True, help="the image to write (.png, .svg...)")
        setup(k)
        k.set_defaults(plot=run)


def _image_path(path: str) -> None:
    """Refuse an image name matplotlib cannot write, or a missing folder, before the work."""
    from pathlib import Path

    from matplotlib.backend_bases import FigureCanvasBase

    known = sorted(FigureCanvasBase.get_supported_filetypes())
    suffix = Path(path).suffix.lower()
    listed = ", ".join("." + k for k in known)
    if not suffix:
        raise UsageError(f"{path} has no extension: name the image file {listed}")
    if suffix[1:] not in known:
        raise UsageError(f"cannot draw a {suffix!r} image ({path}): use {listed}")
    output_folder(path)


def run(args: argparse.Namespace) -> int:
    """Draw a figure into a file (trtlog plot KIND ... -o out.png)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    _image_path(args.output)
    ax = args.plot(args)
    figure = ax.get_figure()
    from trtlog._files import atomic_output

    suffix = args.output.rsplit(".", 1)[-1].lower()
    with atomic_output(args.output, binary=True) as out:  # whole or not at all
        figure.savefig(out, dpi=120, format=suffix)
    if not getattr(args, "quiet", False):  # -q: only errors
        sys.stdout.write(f"wrote {visible(args.output)}\n")
    return 0
