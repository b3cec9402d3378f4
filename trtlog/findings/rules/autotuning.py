"""Autotuning rules: structured sparsity the builder found but did not use, fast-skipped tactics.

Part of the view package :mod:`trtlog.findings`. Both read verbose autotuning lines as typed
events: ``(Sparsity) Found N layer(s) eligible ... / Chose M layer(s) ...`` (one pair per
build, one more for Myelin's own layers) and ``Fast skip Tactic:<id> which exceed time limit
during pre-run``.
"""

from __future__ import annotations

from collections.abc import Iterator

from trtlog.events import SparsityChosen, SparsityEligible, TacticFastSkipped
from trtlog.findings.base import make, rule
from trtlog.findings.context import LintContext, short
from trtlog.findings.models import Finding

__all__ = ["check_sparsity_not_chosen", "check_tactics_fast_skipped"]


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@rule(
    "sparsity-not-chosen",
    "info",
    "Structured sparsity enabled but not used",
    "With --sparsity=enable TensorRT looks for layers whose weights have the 2:4 "
    "structured-sparsity pattern (Ampere and newer) and times sparse tactics for them; it "
    "keeps a sparse tactic only where it is faster. When it finds eligible layers and chooses "
    "none (or fewer), the engine runs dense there: sparse kernels pay off on large "
    "convolutions and GEMMs, seldom on small ones. When it finds no eligible layer, the "
    "weights were not pruned 2:4 and the flag does nothing.",
    needs=("log",),
)
def check_sparsity_not_chosen(ctx: LintContext) -> Iterator[Finding]:
    """Each ``(Sparsity) Found`` line whose ``Chose`` line keeps fewer layers."""
    eligible = ctx.events(SparsityEligible)
    if not eligible:
        return
    chosen = ctx.events(SparsityChosen)
    for found in eligible:
        # its Chose line: the next one of the same compiler (TensorRT's or Myelin's)
        pick = next(
            (c for c in chosen if c.myelin == found.myelin and c.span[0] > found.span[0]), None
        )
        who = "Myelin " if found.myelin else ""
        if found.count == 0:
            yield make(
                ctx,
                check_sparsity_not_chosen,
                f"{who}sparsity".strip(),
                f"sparsity is enabled but {who}TensorRT found no layer with 2:4 sparse weights",
                "--sparsity=enable changes nothing for this model",
                "prune the weights to the 2:4 pattern before export (ModelOpt sparsity, or "
                "PyTorch's ASP) and fine-tune, or drop the flag",
                lines=[found.span[0], *([pick.span[0]] if pick else [])],
            )
            continue
        used = pick.count if pick is not None else 0
        if pick is None or used >= found.count:
            continue
        dense = [x for x in found.layers if x not in set(pick.layers)]
        shown = ", ".join(short(x, 50) for x in dense[:3]) + (
            f" and {len(dense) - 3} more" if len(dense) > 3 else ""
        )
        yield make(
            ctx,
            check_sparsity_not_chosen,
            short(", ".join(dense), 80) if 0 < len(dense) <= 2 else _n(found.count, "layer"),
            f"{who}TensorRT found {_n(found.count, 'layer')} eligible for sparse tactics and "
            f"chose {used}" + (f": {shown} run dense" if dense else ""),
            "for these layers the dense tactic timed faster than the sparse one, so the 2:4 "
            "pruning buys no speed here (small layers and small batches rarely gain)",
            "nothing to fix if the timings are right; to gain from sparsity, build for the "
            "batch size you serve (larger GEMMs/convolutions favour sparse kernels) and check "
            "the pruned layers are the large ones",
            lines=[found.span[0], pick.span[0]],
            names=dense,
        )


@rule(
    "tactics-fast-skipped",
    "info",
    "Tactics dropped after a slow first run",
    "While timing a layer, TensorRT 8.6+ runs each tactic once first and drops it when that "
    "run already exceeds the time of the fastest tactic so far by a margin ('Fast skip "
    "Tactic ... which exceed time limit during pre-run'). The skipped tactics were never "
    "candidates; the skip shortens the build. Their 'Time:' lines show the one pre-run.",
    needs=("log",),
)
def check_tactics_fast_skipped(ctx: LintContext) -> Iterator[Finding]:
    """How many tactics the autotuner dropped after their pre-run."""
    skipped = ctx.events(TacticFastSkipped)
    if not skipped:
        return
    distinct = len({e.tactic for e in skipped})
    yield make(
        ctx,
        check_tactics_fast_skipped,
        _n(len(skipped), "tactic"),
        f"the autotuner dropped {_n(len(skipped), 'tactic')} ({distinct} distinct) after a "
        "first run slower than its time limit",
        "none: these tactics were far slower than the best one; skipping them saves build "
        "time, and their printed times are of a single run",
        "nothing to do",
        lines=[e.span[0] for e in skipped[:20]],
        line_count=len(skipped),
    )
