"""``trtlog graph``: write the merge graph, or the engine's layer graph, to a file.

Part of the command-line package.
"""

from __future__ import annotations

import argparse
import sys

from trtlog._display import visible
from trtlog.cli.common import (
    UsageError,
    add_run_option,
    check_regex,
    graph_of,
    output_folder,
)

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog graph``."""
    p.add_argument("file", metavar="LOG", nargs="?", help="a trtexec --verbose log, or - for stdin")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        help="the file to write: .graphml, .json (node-link) or .dot; with --engine: .svg, "
        ".dot or .graphml",
    )
    p.add_argument(
        "--engine",
        metavar="FILE",
        help="draw the engine's layer graph instead: a layer JSON (--exportLayerInfo) or a log "
        "with a layer dump; Myelin regions folded unless --open",
    )
    p.add_argument(
        "--open",
        metavar="REGION",
        action="append",
        default=[],
        help="with --engine: draw this Myelin region open (its label, its graph number, or "
        "'all'); repeatable",
    )
    p.add_argument(
        "--color-by",
        choices=("type", "precision", "time"),
        default="type",
        help="with --engine: the SVG's node colours (time needs --profile)",
    )
    p.add_argument("--profile", metavar="JSON", help="with --engine: the --exportProfile JSON")
    p.add_argument("--layers", metavar="JSON", help="the --exportLayerInfo of the same build")
    p.add_argument(
        "--match", metavar="REGEX", help="only nodes whose name matches, with their chains"
    )
    add_run_option(p)


def run(args: argparse.Namespace) -> int:
    """Write the merge graph as GraphML, node-link JSON or DOT, or the engine's layer graph.

    ``trtlog graph LOG -o g.graphml`` writes the merge graph (which ONNX nodes became which
    layer, by which pass). ``trtlog graph --engine FILE -o g.svg`` writes the engine's own
    graph: a node per layer, an edge per tensor labelled with its shape, type and format,
    Myelin kernels folded into their region (``--open`` opens one). SVG is drawn by trtlog's
    own layered layout (no graphviz); DOT and GraphML are written through networkx.
    """
    if args.engine:
        return _engine(args)
    if args.file is None:
        raise UsageError("give a LOG (the merge graph) or --engine FILE (the layer graph)")
    from trtlog.graph import write_graph

    output_folder(args.output)
    if args.match:
        check_regex(args.match, "--match")
    graph = graph_of(args)
    if args.match:
        graph = graph.subgraph_matching(args.match)
    try:
        path = write_graph(graph, args.output)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not getattr(args, "quiet", False):  # -q: only errors
        sys.stdout.write(
            f"wrote {visible(str(path))} ({graph.number_of_nodes()} nodes, "
            f"{graph.number_of_edges()} edges)\n"
        )
    return 0


def _engine(args: argparse.Namespace) -> int:
    """``trtlog graph --engine FILE``: the engine's layer graph as SVG, DOT or GraphML."""
    from trtlog.cli.common import load_engine
    from trtlog.graph.engine_graph import SUFFIXES, engine_graph, write_engine_graph

    if args.file is not None:
        raise UsageError("give either LOG (the merge graph) or --engine FILE, not both")
    if args.layers or args.match:
        raise UsageError("--layers and --match are for the merge graph, not --engine")
    if not args.output.lower().endswith(SUFFIXES):
        raise UsageError(f"{args.output}: with --engine write .svg, .dot or .graphml")
    output_folder(args.output)
    engine = load_engine(argparse.Namespace(**{**vars(args), "file": args.engine, "times": None}))
    if args.color_by == "time" and engine.profile is None:
        raise UsageError("--color-by time needs the layers' times: add --profile JSON")
    graph = engine_graph(engine)
    opened = _opened(graph, args.open)
    path = write_engine_graph(graph, args.output, opened, args.color_by)
    view = graph.view(opened)
    sys.stdout.write(
        f"wrote {visible(str(path))} ({len(view.nodes)} nodes, {len(view.edges)} edges; "
        f"{graph.layer_count} layers, {len(graph.regions) - len(opened)} Myelin region(s) "
        "folded)\n"
    )
    return 0


def _opened(graph: object, wanted: list[str]) -> list[int]:
    """The positions of the regions ``--open`` names (a label, a graph number or ``all``)."""
    from trtlog.graph.engine_graph import EngineGraph

    assert isinstance(graph, EngineGraph)
    out: list[int] = []
    for text in wanted:
        if text == "all":
            return list(range(len(graph.regions)))
        found = [
            k
            for k, r in enumerate(graph.regions)
            if text in (r.label, str(r.graph), f"Myelin graph {r.graph}")
        ]
        if not found:
            known = ", ".join(f"{r.graph} ({r.label})" for r in graph.regions) or "none"
            raise UsageError(f"--open {text}: no such Myelin region; the engine has: {known}")
        out.extend(found)
    return out
