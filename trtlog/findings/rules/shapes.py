"""Shape rules: dynamic inputs that trtexec pinned to one shape because none was given.

Part of the view package :mod:`trtlog.findings`. ``Dynamic dimensions required for input: x,
but no shapes were provided. Automatically overriding shape to: 1x3x224x224`` means the
engine's optimization profile is that one shape (min = opt = max): it serves nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator

from trtlog.events import DynamicShapeOverride
from trtlog.findings.base import make, rule
from trtlog.findings.context import LintContext, short
from trtlog.findings.models import Finding

__all__ = ["check_dynamic_shape_pinned"]


def _dims(dims: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in dims) if dims else "scalar"


@rule(
    "dynamic-shape-pinned",
    "warning",
    "Dynamic inputs pinned to one shape",
    "An ONNX model with dynamic dimensions needs an optimization profile (--minShapes, "
    "--optShapes, --maxShapes). Without one, trtexec picks a shape itself (batch 1, and 1 "
    "for every other dynamic dimension) and builds the engine for that shape alone: it "
    "rejects any other shape at run time, and the benchmark measured only that one.",
    needs=("log",),
    other_severities=(("info", "for a run that loads an engine"),),
)
def check_dynamic_shape_pinned(ctx: LintContext) -> Iterator[Finding]:
    """Trtexec's ``Automatically overriding shape to`` (build) and ``setting shape`` (run)."""
    events = ctx.events(DynamicShapeOverride)
    if not events:
        return
    build = [e for e in events if e.phase == "build"]
    run = [e for e in events if e.phase != "build"]
    if build:
        inputs = list(dict.fromkeys(e.tensor for e in build))
        shapes = {e.tensor: _dims(e.dims) for e in build}
        shown = ", ".join(f"{short(t, 40)}={shapes[t]}" for t in inputs[:4])
        more = f" and {len(inputs) - 4} more" if len(inputs) > 4 else ""
        example = inputs[0]
        dims = build[0].dims
        bigger = "x".join(str(d) for d in (max(dims[0], 1) * 8, *dims[1:])) if dims else "..."
        yield make(
            ctx,
            check_dynamic_shape_pinned,
            short(", ".join(inputs), 80),
            f"{len(inputs)} dynamic input{'' if len(inputs) == 1 else 's'} had no shape, so "
            f"trtexec built the engine for one shape only: {shown}{more}",
            "the engine's profile is that single shape (min = opt = max): other batch sizes "
            "or resolutions fail at run time, and the timings are of that shape only",
            f"give the range: --minShapes={example}:{_dims(dims)} "
            f"--optShapes={example}:{bigger} --maxShapes={example}:{bigger} (one "
            "name:dims per input, comma-separated; trtexec 7.0+), or --shapes= when one "
            "shape is all the engine must serve",
            lines=[e.span[0] for e in build[:20]],
            names=inputs,
            line_count=len(build),
        )
    if run and not build:
        inputs = list(dict.fromkeys(e.tensor for e in run))
        shown = ", ".join(f"{short(e.tensor, 40)}={_dims(e.dims)}" for e in run[:4])
        yield make(
            ctx,
            check_dynamic_shape_pinned,
            short(", ".join(inputs), 80),
            f"the run gave no shape for {len(inputs)} dynamic input"
            f"{'' if len(inputs) == 1 else 's'}; trtexec picked {shown}",
            "the throughput and latency are for that shape, which may not be the one the "
            "application runs",
            "pass --shapes=name:dims with the shape to measure",
            severity="info",
            lines=[e.span[0] for e in run[:20]],
            names=inputs,
            line_count=len(run),
        )
