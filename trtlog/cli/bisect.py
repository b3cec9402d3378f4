"""``trtlog bisect``: which tensors to mark as outputs to find the fusion that broke accuracy.

Part of the command-line package; the plan is :func:`trtlog.graph.bisect.bisect_plan`.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from trtlog.cli.common import UsageError, add_run_option, log_for, open_file

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog bisect``."""
    p.add_argument("file", metavar="LOG", help="a trtexec --verbose build log, or - for stdin")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--layer", metavar="NAME", help="an engine layer (a fused layer's name)")
    what.add_argument("--node", metavar="NAME", help="an ONNX node: the layer it ended in")
    what.add_argument("--pass", dest="pass_name", metavar="NAME", help="every fusion of a pass")
    p.add_argument(
        "--layers",
        metavar="JSON",
        help="the --exportLayerInfo of the same build, when the log has no layer dump: the "
        "fusions end in its layers",
    )
    p.add_argument(
        "--fusions",
        metavar="A-B",
        help="the fusions left after earlier steps (the numbers this command prints)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    add_run_option(p)


def run(args: argparse.Namespace) -> int:
    """Propose tensors to mark as outputs, in halving steps, to find the fusion at fault.

    From the merge graph: the fusions that built a layer (``--layer``), the layer an ONNX
    node ended in (``--node``) or every layer a pass fused (``--pass``), each with the
    tensor between its parts as the ONNX parser printed it. Step 1 breaks the first half of
    the fusions; rebuild with its command, check the accuracy, and run the follow-up this
    command prints (``--fusions A-B``) until one fusion is left. A log without its own layer
    dump takes the layers of ``--layers`` (the build's --exportLayerInfo). Commands: Polygraphy's
    ``--trt-outputs`` (compared with ONNX Runtime) and the Python API's ``mark_output``;
    trtexec has no option that marks an ONNX tensor as an output.
    """
    from trtlog.graph.bisect import bisect_plan

    span = _span(args.fusions) if args.fusions else None
    build = log_for(args.file, args)
    engine = open_file(args.layers, want=("layers",)).engine if args.layers else None
    try:
        plan = bisect_plan(
            build,
            layer=args.layer,
            node=args.node,
            pass_name=args.pass_name,
            fusions=span,
            engine=engine,
        )
    except KeyError as exc:
        raise UsageError(str(exc.args[0]) if exc.args else str(exc)) from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        _json(plan)
    else:
        _text(plan, args, build.source.name)
    return 0


def _span(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        low, high = int(first), int(last or first)
    except ValueError:
        raise UsageError(f"--fusions {text}: give A-B (1-based fusion numbers)") from None
    if low < 1 or high < low:
        raise UsageError(f"--fusions {text}: give A-B with 1 <= A <= B")
    return low, high


def _json(plan: object) -> None:
    import dataclasses
    import json

    assert dataclasses.is_dataclass(plan) and not isinstance(plan, type)
    data = dataclasses.asdict(plan)
    sys.stdout.write(json.dumps(data, indent=1) + "\n")


def _text(plan: object, args: argparse.Namespace, source: str) -> None:
    from trtlog._display import visible
    from trtlog.graph.bisect import BisectPlan

    assert isinstance(plan, BisectPlan)
    out = sys.stdout.write
    kind, name = plan.target
    version = ".".join(map(str, plan.trt_version)) if plan.trt_version else "unknown"
    out(f"Fusions of {kind} {visible(name)} (TensorRT {version}")
    out(f"; model {visible(plan.model)})\n" if plan.model else ")\n")
    for note in plan.notes:
        out(f"note: {note}\n")
    out(f"{len(plan.fusions)} fusion(s), {len(plan.breakable)} breakable by marking a tensor:\n")
    for f in plan.fusions:
        parts = " | ".join(visible(p) for p in f.parts)
        head = f"  {f.index:>3}  {f.pass_name or '-'} (line {f.line or '-'}): {parts}"
        if f.boundary:
            b = f.boundary[0]
            tensor = visible(b.tensor) if b.tensor else f"the outputs of {visible(b.layer)}"
            where = f" (from {visible(b.layer)}, line {b.line})" if b.tensor else ""
            out(f"{head}\n        mark {tensor}{where}\n")
        else:
            out(f"{head}\n        not breakable: {f.why}\n")
    if not plan.steps:
        out("No fusion here can be broken by marking a tensor.\n")
        return
    step = plan.steps[0]
    marked = ", ".join(visible(b.tensor or f"outputs of {b.layer}") for b in step.boundary)
    out(
        f"\nStep: break fusion(s) {step.first}-{step.last} of {step.low}-{step.high} by marking"
        f" {marked}, rebuild, and check the accuracy.\n"
    )
    for tool, command in step.commands:
        out(f"  {tool}:\n")
        for line in command.splitlines():
            out(f"    {line}\n")
    base = _again(args, source)
    if step.first == step.last == step.high == step.low:
        out(
            f"Fusion {step.first} is the last one left: if breaking it restores the accuracy, "
            "it is the fusion at fault; if not, none of these fusions is.\n"
        )
        return
    out(f"If the accuracy comes back: {base} --fusions {step.first}-{step.last}\n")
    nxt = step.otherwise
    if nxt is not None:
        out(f"If it does not:             {base} --fusions {nxt[0]}-{nxt[1]}\n")


def _again(args: argparse.Namespace, source: str) -> str:
    """The command line of the next step (this one without ``--fusions``).

    ``source``: the log's name (``<stdin>`` when read from standard input: save it first).
    """
    words: list[str] = []
    if args.layer:
        words += ["--layer", args.layer]
    elif args.node:
        words += ["--node", args.node]
    else:
        words += ["--pass", args.pass_name]
    if args.run_number is not None:
        words += ["--run", str(args.run_number)]
    if args.layers:
        words += ["--layers", args.layers]
    log = source if source == "<stdin>" else shlex.quote(source)
    return f"trtlog bisect {log} {shlex.join(words)}"
