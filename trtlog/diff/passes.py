"""Per-pass differences of two verbose logs: fusions one optimizer made and the other not.

Part of the view package :mod:`trtlog.diff` (events only). A fusion is identified by its pass
and the clone-normalised names it fused; the passes that ran and fused are counted per side.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trtlog.buildlog.passes import FUSION_KINDS
from trtlog.diff.models import PassComparison, PassCount, PassFusion
from trtlog.events import ConvScaleFusion, Fusion, FusionInto, HorizontalMerge, PassRun
from trtlog.names import normalize_name, split_name

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = ["compare_passes"]

# -- optimizer passes ----------------------------------------------------------------------


@dataclass(slots=True)
class _FusionEvent:
    pass_name: str | None
    kind: str
    inputs: tuple[str, ...]
    line: int

    @property
    def key(self) -> frozenset[frozenset[str]]:
        return frozenset(
            frozenset(normalize_name(m) for m in split_name(x).members()) for x in self.inputs
        )


def _fusion_events(build: Build) -> tuple[list[_FusionEvent], Counter[str]]:
    runs = Counter(e.pass_name for e in build.of(PassRun))
    passes = build.pass_index  # the attribution of the frames and the merge graph
    out: list[_FusionEvent] = []
    for e in build.events_of(*FUSION_KINDS):  # every kind of fusion, in file order
        if isinstance(e, Fusion):
            inputs: tuple[str, ...] = (e.first, e.second)
        elif isinstance(e, FusionInto):
            inputs = (*e.sources, e.target)
        elif isinstance(e, HorizontalMerge):
            inputs = tuple(e.layers)
        elif isinstance(e, ConvScaleFusion):
            inputs = (e.conv, e.scale)
        else:
            raise AssertionError(f"not a fusion: {e.kind}")
        out.append(_FusionEvent(passes.of(e), e.kind, inputs, e.span[0]))
    return out, runs


def compare_passes(build_a: Build, build_b: Build) -> PassComparison:
    """Fusions each side's optimizer made that the other's did not, and per-pass counts.

    A fusion is identified by its pass and the (clone-normalised) names it fused; the same
    names fused by another pass on the other side are reported as ``other_pass``.
    """
    fa, runs_a = _fusion_events(build_a)
    fb, runs_b = _fusion_events(build_b)

    def only(mine: list[_FusionEvent], theirs: list[_FusionEvent]) -> tuple[PassFusion, ...]:
        left = Counter((f.pass_name, f.key) for f in theirs)
        by_nodes: dict[frozenset[frozenset[str]], str | None] = {}
        for f in theirs:
            by_nodes.setdefault(f.key, f.pass_name)
        out = []
        for f in mine:
            k = (f.pass_name, f.key)
            if left[k] > 0:
                left[k] -= 1
                continue
            other = by_nodes.get(f.key)
            out.append(
                PassFusion(
                    pass_name=f.pass_name,
                    kind=f.kind,
                    inputs=f.inputs,
                    line=f.line,
                    other_pass=other if other != f.pass_name else None,
                )
            )
        return tuple(out)

    fus_a = Counter(f.pass_name or "?" for f in fa)
    fus_b = Counter(f.pass_name or "?" for f in fb)
    names = list(dict.fromkeys([*runs_a, *fus_a, *runs_b, *fus_b]))
    counts = [
        PassCount(
            pass_name=n,
            runs_a=runs_a[n],
            runs_b=runs_b[n],
            fusions_a=fus_a[n],
            fusions_b=fus_b[n],
        )
        for n in names
        if (runs_a[n], fus_a[n]) != (runs_b[n], fus_b[n])
    ]
    counts.sort(key=lambda c: -(abs(c.fusions_a - c.fusions_b) * 1000 + abs(c.runs_a - c.runs_b)))
    return PassComparison(counts=tuple(counts), only_a=only(fa, fb), only_b=only(fb, fa))
