"""``trtlog graph``: write the merge graph to a file (part of the command-line package)."""

from __future__ import annotations

import argparse
import sys

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
    p.add_argument("file", metavar="LOG", help="a trtexec --verbose log, or - for stdin")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        help="the file to write: .graphml, .json (node-link) or .dot",
    )
    p.add_argument("--layers", metavar="JSON", help="the --exportLayerInfo of the same build")
    p.add_argument(
        "--match", metavar="REGEX", help="only nodes whose name matches, with their chains"
    )
    add_run_option(p)


def run(args: argparse.Namespace) -> int:
    """Write the merge graph as GraphML, node-link JSON or Graphviz DOT text."""
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
            f"wrote {path} ({graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges)\n"
        )
    return 0
