"""Typed results of a comparison: rows, fusion groups, pass differences, summary.

Part of the view package :mod:`trtlog.diff` (pydantic only). A :class:`Comparison` holds a
compact :class:`LayerView` of every layer of both sides, the alignment :class:`Step` rows that
refer to them by index, the :class:`FusionGroup` records and the one-sided layers; its methods
render text, build frames (pandas, imported on first use) and summarise.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from trtlog._display import html_table, plural, visible
from trtlog.diff.totals import KeyTotal, TotalRow

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Comparison",
    "ComparisonSummary",
    "FusionGroup",
    "GroupKind",
    "LayerView",
    "Marker",
    "MatchKind",
    "ModuleDelta",
    "NodeSource",
    "PassComparison",
    "PassCount",
    "PassFusion",
    "PrecisionChange",
    "SideInfo",
    "Step",
    "TacticChange",
]

Marker = Literal["=", "~", "-", "+"]
MatchKind = Literal["name", "structure", "shape", "position"]
GroupKind = Literal["split", "merged", "regrouped"]
NodeSource = Literal["metadata", "name"]

_FROZEN = ConfigDict(frozen=True)
# (a field named model_evidence: pydantic before 2.10 warns of its ``model_`` namespace)
_FROZEN_MODEL_FIELDS = ConfigDict(frozen=True, protected_namespaces=())

# -- models --------------------------------------------------------------------------------


class SideInfo(BaseModel):
    """What one side of a comparison was read from.

    Attributes:
        label: ``A`` or ``B``.
        source: the path (or the engine's source) it came from.
        kind: ``log`` (a parsed trtexec log), ``layer_json`` (a layer-info export) or
            ``engine`` (an :class:`~trtlog.engine.Engine` passed in).
        engine_origin: where the layers came from (``layer_json``, ``log_inspector``,
            ``log_listing``, ``log_names``), ``None`` without layers.
        detailed: whether the layers carry types and tensors (``None`` without layers).
        verbosity: the build's ``Profiling verbosity`` as its log prints it (``layer names
            only``, ``none``, ``detailed``), ``None`` when the input does not say.
        layers: the number of engine layers (0 without layers).
        trt_version: the TensorRT version the log prints, if any.
        profile: the profile merged onto the layers, if any.
        passes: whether the input holds the optimizer's verbose lines (per-pass differences).
        strongly_typed: whether the build was strongly typed (``Precision: Strongly Typed``,
            TensorRT 11, an 11.x layer JSON); see :func:`trtlog.engine.strongly_typed`.
    """

    model_config = _FROZEN

    label: Literal["A", "B"]
    source: str
    kind: Literal["log", "layer_json", "engine"]
    engine_origin: str | None = None
    detailed: bool | None = None
    verbosity: str | None = None
    layers: int = 0
    trt_version: str | None = None
    profile: str | None = None
    passes: bool = False
    strongly_typed: bool = False

    @property
    def content(self) -> str:
        """What the layers carry: ``detailed``, ``names only`` or ``builder listing: ...``.

        The builder's ``Engine Layer Information:`` listing has types and formats whatever
        the profiling verbosity (a default build prints it too, with Myelin regions whole), so
        it is not called detailed; the verbosity is added when the log prints it.
        """
        if not self.detailed:
            text = "names only"
        elif self.engine_origin == "log_listing":
            text = "builder listing: types and formats"
        else:
            text = "detailed"
        if self.verbosity and self.engine_origin == "log_listing":
            text += f"; profiling verbosity: {self.verbosity}"
        return text

    def describe(self) -> str:
        """One line: ``A: path — log (TensorRT 8.6.1), 9 layers (detailed), profile``."""
        what = {"log": "log", "layer_json": "layer JSON", "engine": "engine"}[self.kind]
        if self.trt_version:
            what += f" (TensorRT {self.trt_version})"
        if self.engine_origin is None:
            body = "no layer dump"
        else:
            plural = "" if self.layers == 1 else "s"
            body = f"{self.layers} layer{plural} ({self.content})"
        # one line whatever the paths hold (a newline, ESC): escaped as every printed path is
        extra = f", profile {visible(self.profile)}" if self.profile else ""
        extra += ", optimizer passes" if self.passes else ""
        return f"{self.label}: {visible(self.source)} — {what}, {body}{extra}"


class LayerView(BaseModel):
    """One engine layer as a comparison shows it.

    Attributes:
        index: position in its engine (0-based).
        name: the layer name.
        type: the layer type, ``None`` in a names-only engine.
        precision: the layer's precision (:func:`trtlog.engine.model.layer_precision`: the
            kernel's, else its inputs' type); for a reformat ``FP32→INT8`` (input → output
            type).
        shape: the first output's dimensions, if known.
        layout: the first output's layout (``linear``, ``chw32``...), if known.
        tactic: the tactic id, if known.
        tactic_name: the kernel name, if known.
        reformat: whether the layer only converts formats (Q/DQ reformats included).
        qdq: whether the layer holds only Q/DQ nodes (and weights): a Q or DQ left alone.
        myelin: ``region`` for a ``{ForeignNode[...]}`` layer, ``kernel`` for a Myelin kernel.
        onnx_nodes: the ONNX nodes it holds (clone suffixes removed), as the comparison uses
            them (see :attr:`Comparison.node_source`).
        module: the deepest ONNX module holding all its nodes (``/`` when none).
        time_ms: its time per inference from a merged profile, ``None`` without one.
    """

    model_config = _FROZEN

    index: int
    name: str
    type: str | None = None
    precision: str | None = None
    shape: tuple[int, ...] | None = None
    layout: str | None = None
    tactic: int | None = None
    tactic_name: str | None = None
    reformat: bool = False
    qdq: bool = False
    myelin: Literal["region", "kernel"] | None = None
    onnx_nodes: tuple[str, ...] = ()
    module: str = "/"
    time_ms: float | None = None


class Step(BaseModel):
    """One row of the alignment.

    Attributes:
        number: the row number (1-based).
        marker: ``=`` same layer, ``~`` aligned but different (see ``reasons``), ``-`` only
            in A, ``+`` only in B.
        index_a: the A layer (``None`` for ``+``); a layer split over several rows repeats.
        index_b: the B layer (``None`` for ``-``).
        reasons: for ``~``: ``split``/``merged`` (one layer became several), ``order`` (moved),
            ``nodes`` (other ONNX nodes), ``q/dq`` (other Q/DQ nodes), ``myelin``,
            ``name``/``renamed``, ``type A→B``, ``precision A→B`` (the layer's precision,
            :func:`trtlog.engine.model.layer_precision`), ``output type A→B`` (the same
            precision writing another type), ``reformat A vs B``, ``format A→B``,
            ``shape A→B``, ``fusion A→B`` (the ONNX op types each side fused into the layer:
            ``Conv+Relu→Conv+Add+Relu``), ``tactic``.
        group: the :class:`FusionGroup` the row belongs to, if any.
        match: how a pair was matched: ``name`` (shared ONNX nodes, name or reformat
            target), ``structure`` (the same kind of op whose neighbours in the tensor graph
            are paired with each other), ``shape`` (the same kind of op and output shape at
            about the same place), ``position`` (the same part between two pairs: reformats,
            Q/DQ layers); ``None`` for one-sided rows.
        confidence: how sure the match is, 0 to 1 (``None`` for one-sided rows).
        why: for a one-sided row, why no counterpart was found.
    """

    model_config = _FROZEN

    number: int
    marker: Marker
    index_a: int | None = None
    index_b: int | None = None
    reasons: tuple[str, ...] = ()
    group: int | None = None
    match: MatchKind | None = None
    confidence: float | None = None
    why: str | None = None


class FusionGroup(BaseModel):
    """ONNX nodes that the two builds fused into layers differently.

    Attributes:
        id: the group number (1-based, in row order).
        kind: ``split`` (one layer in A, several in B), ``merged`` (several in A, one in B),
            ``regrouped`` (several on both sides).
        nodes: the ONNX nodes both sides hold, in A's order.
        layers_a: the A layers holding them.
        layers_b: the B layers holding them.
        names_a: the names of ``layers_a``.
        names_b: the names of ``layers_b``.
        qdq_nodes: the activation Q/DQ nodes held by, or sitting between, the group's layers
            on either side (weight quantizers left out): where quantization cut the fusion.
    """

    model_config = _FROZEN

    id: int
    kind: GroupKind
    nodes: tuple[str, ...]
    layers_a: tuple[int, ...]
    layers_b: tuple[int, ...]
    names_a: tuple[str, ...] = ()
    names_b: tuple[str, ...] = ()
    qdq_nodes: tuple[str, ...] = ()

    def describe(self) -> str:
        """One sentence: ``7 nodes were 1 layer in A and 3 layers in B (Q/DQ: ...)``."""

        def n(count: int, word: str) -> str:
            return f"{count} {word}{'' if count == 1 else 's'}"

        layers = f"{n(len(self.layers_a), 'layer')} in A and {n(len(self.layers_b), 'layer')} in B"
        if self.nodes:
            were = "was" if len(self.nodes) == 1 else "were"
            text = f"{n(len(self.nodes), 'node')} {were} {layers}"
        else:
            text = f"{layers} (no ONNX node name in common: a Myelin region and its kernels?)"
        if self.qdq_nodes:
            text += " (Q/DQ: " + ", ".join(self.qdq_nodes) + ")"
        return text


class PassFusion(BaseModel):
    """A fusion one side's optimizer made and the other's did not.

    Attributes:
        pass_name: the pass (``ConvReluFusion``...), ``None`` when the log does not say.
        kind: the event kind (``fusion``, ``fusion_into``, ``horizontal_merge``,
            ``conv_scale_fusion``).
        inputs: the names fused, as printed.
        line: the log line.
        other_pass: the pass that fused the same names on the other side, if one did.
    """

    model_config = _FROZEN

    pass_name: str | None
    kind: str
    inputs: tuple[str, ...]
    line: int
    other_pass: str | None = None


class PassCount(BaseModel):
    """How often a pass ran and fused on each side.

    Attributes:
        pass_name: the pass.
        runs_a: ``Running:`` lines in A.
        runs_b: ``Running:`` lines in B.
        fusions_a: fusions in A.
        fusions_b: fusions in B.
    """

    model_config = _FROZEN

    pass_name: str
    runs_a: int = 0
    runs_b: int = 0
    fusions_a: int = 0
    fusions_b: int = 0


class PassComparison(BaseModel):
    """Per-pass differences of two verbose logs.

    Attributes:
        counts: passes whose run or fusion counts differ, biggest difference first.
        only_a: fusions that happened in A and not in B.
        only_b: fusions that happened in B and not in A.
    """

    model_config = _FROZEN

    counts: tuple[PassCount, ...] = ()
    only_a: tuple[PassFusion, ...] = ()
    only_b: tuple[PassFusion, ...] = ()


class Comparison(BaseModel):
    """Two builds aligned layer by layer (see :func:`compare`).

    Attributes:
        a: what A was read from.
        b: what B was read from.
        node_source: ``metadata`` when both engines have ``Metadata`` (exact ONNX nodes),
            else ``name`` (nodes from the fused layer names on both sides).
        layers_a: A's layers.
        layers_b: B's layers.
        steps: the alignment, one row per aligned pair or one-sided layer.
        groups: ONNX-node groups fused differently.
        unmatched_a: A layers with no counterpart (the ``-`` rows).
        unmatched_b: B layers with no counterpart (the ``+`` rows).
        passes: per-pass differences when both inputs are verbose logs.
        totals: the run and build figures of the logs (throughput, latency, build time,
            engine size, memory), which need no layers (see :func:`trtlog.diff.run_totals`).
        notes: what was (not) compared and why.
        same_model: whether the two engines are builds of one model (``None``: nothing
            tells); read through :attr:`alignment_failed` (see docs/comparison.md).
        model_evidence: what told, one line per signal (convolutions, weights, names).
        paired_by_name: computing layers paired by shared ONNX nodes (generated Myelin
            kernels aside).
    """

    model_config = _FROZEN_MODEL_FIELDS

    a: SideInfo
    b: SideInfo
    node_source: NodeSource = "name"
    layers_a: tuple[LayerView, ...] = ()
    layers_b: tuple[LayerView, ...] = ()
    steps: tuple[Step, ...] = ()
    groups: tuple[FusionGroup, ...] = ()
    unmatched_a: tuple[int, ...] = ()
    unmatched_b: tuple[int, ...] = ()
    passes: PassComparison | None = None
    totals: tuple[TotalRow, ...] = ()
    notes: tuple[str, ...] = ()
    same_model: bool | None = None
    model_evidence: tuple[str, ...] = ()
    paired_by_name: int = 0

    @property
    def aligned(self) -> bool:
        """Whether layers were aligned (both sides have an engine)."""
        return self.a.engine_origin is not None and self.b.engine_origin is not None

    def alignment(self) -> tuple[int, int]:
        """How many computing layers found a counterpart, of how many could have.

        Computing layers are those that are not reformats or lone Q/DQ layers; the second
        figure is the smaller side's count of them. A pair counts when it was matched by
        name, structure or shape (not by position alone), and a layer counts once: several
        layers merged into one count as many as the side with fewer of them.
        """
        count_a = sum(1 for v in self.layers_a if not (v.reformat or v.qdq))
        count_b = sum(1 for v in self.layers_b if not (v.reformat or v.qdq))
        pairs = [
            (s.index_a, s.index_b)
            for s in self.steps
            if s.index_a is not None
            and s.index_b is not None
            and s.match in ("name", "structure", "shape")
            and not (self.layers_a[s.index_a].reformat or self.layers_a[s.index_a].qdq)
        ]
        # layers, not rows: many layers merged into one count once on that side
        paired = min(len({i for i, _j in pairs}), len({j for _i, j in pairs}))
        return paired, min(count_a, count_b)

    @property
    def alignment_failed(self) -> bool:
        """Whether the layers of the two engines cannot be compared one by one.

        Either nothing shows that the engines are builds of one model (:attr:`same_model` is
        ``False``: their convolutions or weights differ, or ``None``: no signal either way;
        see docs/comparison.md), or fewer than half the computing layers of the smaller side
        found a counterpart. Per-layer
        deltas and tactic changes would then compare unrelated layers; the views show the
        totals by layer type and precision instead, and :attr:`alignment_reason` says why.
        """
        if not self.aligned:
            return False
        paired, possible = self.alignment()
        # a layer-by-layer comparison needs a signal that says one model (docs/comparison.md)
        return self.same_model is not True or (possible > 0 and paired < 0.5 * possible)

    @property
    def alignment_reason(self) -> str | None:
        """Why the alignment failed, in one sentence (``None`` when it did not)."""
        if not self.alignment_failed:
            return None
        if self.same_model is False:
            said = [
                e.removesuffix(": two models")
                for e in self.model_evidence
                if e.endswith(": two models")
            ]
            return "two different models: " + "; ".join(said or self.model_evidence)
        paired, possible = self.alignment()
        if self.same_model is None:
            return (
                "nothing shows these are builds of one model: fewer than half the computing "
                "layers pair by ONNX name, and there are too few convolutions or weights to "
                f"compare ({paired} of {possible} computing layers paired by shape or "
                "structure alone)"
            )
        return (
            f"only {paired} of {possible} computing layers found a counterpart by name, "
            "structure or shape"
        )

    def __repr__(self) -> str:
        """One line: ``<Comparison 'a.log' (9 layers) vs 'b.log' (13 layers): = 4 ~ 5 ...>``."""
        rows = " ".join(f"{m} {n}" for m, n in self.markers().items())
        return (
            f"<Comparison {self.a.source!r} ({plural(len(self.layers_a), 'layer')}) vs "
            f"{self.b.source!r} ({plural(len(self.layers_b), 'layer')}): {rows}, "
            f"{plural(len(self.groups), 'fusion group')}>"
        )

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """A small table for notebooks: the two sides, rows per marker, groups, notes."""
        return html_table(
            "trtlog.Comparison",
            [
                ("A", self.a.describe()),
                ("B", self.b.describe()),
                ("rows", " ".join(f"{m} {n}" for m, n in self.markers().items())),
                ("fusion groups", len(self.groups)),
                ("notes", "; ".join(self.notes) if self.notes else None),
            ],
        )

    def markers(self) -> dict[str, int]:
        """How many rows of each marker (``=``, ``~``, ``-``, ``+``)."""
        counts = Counter(s.marker for s in self.steps)
        return {m: counts.get(m, 0) for m in ("=", "~", "-", "+")}

    def to_text(
        self, column_size: int | None = None, width: int | None = None, only_changed: bool = False
    ) -> str:
        """The side-by-side table, one row per step (see :func:`render_steps`)."""
        from trtlog.diff.text import render_steps

        return render_steps(self, column_size=column_size, width=width, only_changed=only_changed)

    def summary(self, module_depth: int | None = None) -> ComparisonSummary:
        """Counts, fusion groups, precision and tactic changes, reformats, passes, times."""
        from trtlog.diff.summary import summarize_comparison

        return summarize_comparison(self, module_depth=module_depth)

    def frame(self) -> pd.DataFrame:
        """One row per step (see :func:`trtlog.frames.diff_frame`)."""
        from trtlog.frames.diff import diff_frame

        return diff_frame(self)

    def onnx_frame(self) -> pd.DataFrame:
        """One row per ONNX node (see :func:`trtlog.frames.diff_onnx_frame`)."""
        from trtlog.frames.diff import diff_onnx_frame

        return diff_onnx_frame(self)

    def to_json(self, indent: int | None = 1) -> str:
        """The comparison and its summary as JSON (times without a profile are ``null``)."""
        import json

        data = self.model_dump(mode="json")
        data["summary"] = self.summary().model_dump(mode="json")
        return json.dumps(data, indent=indent, ensure_ascii=False)


class PrecisionChange(BaseModel):
    """A layer whose precision differs between the sides.

    Attributes:
        step: the row number.
        index_a: the A layer.
        index_b: the B layer.
        name: the B layer's name (the A layer's for a merge).
        before: A's precision.
        after: B's precision.
    """

    model_config = _FROZEN

    step: int
    index_a: int
    index_b: int
    name: str
    before: str
    after: str


class TacticChange(BaseModel):
    """A layer whose tactic (kernel) differs between the sides.

    Attributes:
        step: the row number.
        index_a: the A layer.
        index_b: the B layer.
        name: the B layer's name.
        tactic_a: A's tactic (kernel name when known, else the id in hex).
        tactic_b: B's tactic.
        time_a_ms: A's time, if profiled.
        time_b_ms: B's time, if profiled.
    """

    model_config = _FROZEN

    step: int
    index_a: int
    index_b: int
    name: str
    tactic_a: str
    tactic_b: str
    time_a_ms: float | None = None
    time_b_ms: float | None = None


class ModuleDelta(BaseModel):
    """Time per inference of one ONNX module on each side.

    Attributes:
        module: the module (``/model/backbone0``), cut at the summary's depth.
        layers_a: A layers in it.
        layers_b: B layers in it.
        time_a_ms: A's time (ms), ``None`` without a profile.
        time_b_ms: B's time (ms), ``None`` without a profile.
        delta_ms: B minus A, when both are known.
    """

    model_config = _FROZEN

    module: str
    layers_a: int = 0
    layers_b: int = 0
    time_a_ms: float | None = None
    time_b_ms: float | None = None
    delta_ms: float | None = None


class ComparisonSummary(BaseModel):
    """What changed between two builds, in numbers and lists (see :meth:`to_text`).

    Attributes:
        compared: one line per side saying what was read.
        node_source: where the ONNX nodes came from (``metadata`` or ``name``).
        names_only: whether a side is names-only (compared by names and ONNX nodes only).
        layers_a: A's layer counts: ``layers``, ``reformats``, ``qdq``, ``myelin_kernels``.
        layers_b: B's layer counts.
        markers: rows per marker.
        split: groups fused in A and split in B.
        merged: groups split in A and fused in B.
        regrouped: groups fused differently on both sides.
        precision_changes: layers whose precision differs.
        precision_transitions: ``FP16→INT8`` → how many layers.
        tactic_changes: layers whose tactic differs.
        reformats_added: reformat layers only B has.
        reformats_removed: reformat layers only A has.
        passes: per-pass differences (both inputs verbose logs), else ``None``.
        time_a_ms: A's total layer time per inference, ``None`` without a profile.
        time_b_ms: B's total layer time per inference.
        delta_ms: B minus A.
        module_depth: the depth module paths are cut at for ``modules``.
        modules: per-module times, biggest change first.
        matches: pairs per way of matching (``name``, ``structure``, ``shape``,
            ``position``).
        alignment_failed: whether the layers failed to align (see
            :attr:`Comparison.alignment_failed`); then the precision and tactic changes and
            the per-module times are left out (they would compare unrelated layers).
        alignment_reason: why the alignment failed (:attr:`Comparison.alignment_reason`).
        same_model: whether the engines are builds of one model (:attr:`Comparison.same_model`).
        model_evidence: what told (:attr:`Comparison.model_evidence`).
        paired: computing layers that found a counterpart (see :meth:`Comparison.alignment`).
        possible: the smaller side's computing layers.
        by_type: layers and time per layer type on each side.
        by_precision: layers and time per precision on each side.
        totals: the run and build figures of the logs.
        notes: what was not compared and why.
    """

    model_config = _FROZEN_MODEL_FIELDS

    compared: tuple[str, ...]
    node_source: NodeSource
    names_only: bool
    layers_a: dict[str, int]
    layers_b: dict[str, int]
    markers: dict[str, int]
    split: tuple[FusionGroup, ...] = ()
    merged: tuple[FusionGroup, ...] = ()
    regrouped: tuple[FusionGroup, ...] = ()
    precision_changes: tuple[PrecisionChange, ...] = ()
    precision_transitions: dict[str, int] = {}
    tactic_changes: tuple[TacticChange, ...] = ()
    reformats_added: tuple[LayerView, ...] = ()
    reformats_removed: tuple[LayerView, ...] = ()
    passes: PassComparison | None = None
    time_a_ms: float | None = None
    time_b_ms: float | None = None
    delta_ms: float | None = None
    module_depth: int = 1
    modules: tuple[ModuleDelta, ...] = ()
    matches: dict[str, int] = {}
    alignment_failed: bool = False
    alignment_reason: str | None = None
    same_model: bool | None = None
    model_evidence: tuple[str, ...] = ()
    paired: int = 0
    possible: int = 0
    by_type: tuple[KeyTotal, ...] = ()
    by_precision: tuple[KeyTotal, ...] = ()
    totals: tuple[TotalRow, ...] = ()
    notes: tuple[str, ...] = ()

    def to_text(self, limit: int = 10) -> str:
        """The summary as text, at most ``limit`` entries per list."""
        from trtlog.diff.text import render_summary

        return render_summary(self, limit=limit)
