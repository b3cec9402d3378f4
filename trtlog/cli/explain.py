"""``trtlog explain``: the merge graph as text or JSON (part of the command-line package)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from trtlog._display import clip, visible
from trtlog.cli.common import (
    UsageError,
    add_run_option,
    log_for,
    table,
)

__all__ = ["add_arguments", "run"]

# the merge graph's final_layers_from, in words
_FROM = {
    "engine": "the given layer JSON",
    "layer dump": "the log's layer dump",
    "placement": "the log's placement lines, [GpuLayer] ...",
    "autotuned layers": "the layers the autotuner timed",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog explain``."""
    p.add_argument("file", metavar="LOG", help="a trtexec --verbose log, or - for stdin")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--node", help="what became of this ONNX node (or original layer)")
    what.add_argument("--layer", help="what is inside this engine layer, and how it got there")
    p.add_argument("--layers", metavar="JSON", help="the --exportLayerInfo of the same build")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_run_option(p)


def run(args: argparse.Namespace) -> int:
    """Which ONNX nodes went into which engine layers, by which passes (the merge graph)."""
    from trtlog.summary.outcome import outcome_of

    build = log_for(args.file, args)
    engine = None
    if args.layers:
        from trtlog.exports.layers import load_engine

        engine = load_engine(args.layers)
    graph = build.merge_graph(engine)
    outcome = outcome_of(build)
    out = sys.stdout
    try:
        if args.node:
            found: Any = graph.fate(args.node)
        elif args.layer:
            found = graph.provenance(args.layer)
        else:
            found = None
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    if found is not None:
        if args.format == "json":
            data = found.model_dump(mode="json")
            data["pass_descriptions"] = _pass_descriptions(found.passes)
            out.write(json.dumps(data, indent=1) + "\n")
        else:
            out.write(found.describe() + "\n")
            _write_pass_legend(found.passes, out)
        return 0
    fates = graph.fates()
    counts: dict[str, int] = {}
    for fate in fates:
        counts[fate.kind] = counts.get(fate.kind, 0) + 1
    finals = graph.final_layers()
    provenances = [graph.provenance(x) for x in finals]
    used = [p for found in provenances for p in found.passes]
    if args.format == "json":
        data = {
            "outcome": outcome.model_dump(mode="json"),
            "final_layers_from": graph.graph.get("final_layers_from"),
            "fates": counts,
            "layers": [found.model_dump(mode="json") for found in provenances],
            "unexplained": [f.model_dump(mode="json") for f in fates if f.kind == "unexplained"],
            "pass_descriptions": _pass_descriptions(used),
        }
        out.write(json.dumps(data, indent=1) + "\n")
        return 0
    source = graph.graph.get("final_layers_from") or "none"
    if outcome.value in ("failed", "killed", "incomplete"):
        # the layers below are where the builder got to, not an engine
        out.write(f"the build did not finish: {outcome.to_text()}\n")
    if finals or source != "none":
        where = _FROM.get(source, source)
        out.write(f"{len(finals)} final layers (from {where}); {len(fates)} ONNX nodes: ")
    else:
        out.write(
            "no final layers: the log has no layer dump, no placement lines and no autotuning "
            f"lines (a build log without --verbose, or a run of a saved engine); "
            f"{len(fates)} ONNX nodes: "
        )
    out.write(", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1])))
    out.write("\n\n")
    rows = []
    for name, found in zip(finals, provenances, strict=True):
        passes = ", ".join(found.passes) or "-"
        rows.append(
            [
                clip(name, 70),
                len(found.onnx_nodes),
                len(found.original_layers),
                passes,
            ]
        )
    if rows:
        table(rows, ["engine layer", "ONNX nodes", "original layers", "passes"], out)
    unexplained = [f for f in fates if f.kind == "unexplained"]
    if unexplained:
        out.write(f"\nunexplained ({len(unexplained)}):\n")
        for fate in unexplained:
            out.write(f"  {visible(fate.node)}: {visible(fate.reason)}\n")
    _write_pass_legend(used, out)
    return 0


def _pass_descriptions(names: Iterable[str]) -> dict[str, str]:
    """Each pass named (once, in order) with what it does (trtlog.buildlog.passes.describe_pass)."""
    from trtlog.buildlog.passes import describe_pass

    return {name: describe_pass(name) for name in dict.fromkeys(names)}


def _write_pass_legend(names: Iterable[str], out: TextIO) -> None:
    """The passes named above, one line each on what they do."""
    described = _pass_descriptions(names)
    if not described:
        return
    out.write("\npasses:\n")
    width = max(len(name) for name in described)
    for name, text in described.items():
        out.write(f"  {name:<{width}}  {text}\n")
