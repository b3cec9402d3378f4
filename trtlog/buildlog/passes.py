"""TensorRT's optimizer passes: what each one does, which ran where, what it fused and removed.

A view over events (pydantic only, no pandas). :data:`PASS_GLOSSARY` says in one line what
each pass does (from NVIDIA's documentation of layer fusion and Q/DQ processing and from what
the corpus logs show each pass printing; ``docs/passes.md`` has the long form) and
:func:`describe_pass` looks a name up, saying so for a pass it does not know.

The frames (``fusions_frame``, ``removals_frame``, ``qdq_frame``, ``passes_frame``) and the
summary count with the same functions, so a figure is the same whichever view shows it:
:class:`PassIndex` says which pass was running at a line, :func:`removal_events` is the one
definition of "a layer was removed", :func:`qdq_events` of "a Q/DQ optimizer event",
:func:`fusion_pass` the pass a fusion is attributed to, and :func:`pass_records` the per-pass
counts.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from trtlog.events import (
    ConcatElimination,
    ConvScaleFusion,
    CopyGenerated,
    Event,
    Fusion,
    FusionInto,
    HorizontalMerge,
    LayerCount,
    LayerRemoved,
    LayerSwap,
    PassRun,
    QdqDedup,
    QdqPhase,
    QdqSwap,
    Retarget,
    SliceElimination,
)

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = [
    "FUSION_KINDS",
    "PASS_GLOSSARY",
    "QDQ_TYPES",
    "REMOVAL_KINDS",
    "ROW_SCHEMAS",
    "STAGE_PASS",
    "PassIndex",
    "fusion_pass",
    "fusion_records",
    "layer_count_records",
    "pass_records",
    "qdq_events",
    "qdq_records",
    "removal_events",
    "removal_records",
]

#: What each optimizer pass (or stage) does, in one line. The names are TensorRT's, as the
#: log prints them (``Running: <pass> on <layer>``, ``<pass>: Fusing a with b``); the stages
#: without a ``Running:`` line (``HorizontalMerge``, ``SliceElimination``,
#: ``ConcatElimination``) are named as trtlog names them.
PASS_GLOSSARY: dict[str, str] = {
    # -- constants and weights
    "ConstShuffleFusion": "folds a Shuffle (reshape/transpose) that follows a constant into the "
    "constant, so the reshaped values are stored directly",
    "ConstEltFusion": "merges a constant into the elementwise layer that reads it (a bias added "
    "to a MatMul's output becomes part of that layer)",
    "ConstWeightsQuantizeFusion": "Q/DQ: fuses a weight constant with the QuantizeLinear that "
    "quantizes it; the weights are quantized at build time and stored in INT8",
    "ConstWeightsFusion": "fuses a layer's (quantized) weight constant into the convolution or "
    "GEMM that uses it, which then owns the weights",
    "ConstQDQInitializersFusion": "Q/DQ: folds the scale and zero-point constants of a Q or DQ "
    "layer into it; the log prints a Removing line for each constant layer absorbed",
    # -- convolution, GEMM and their epilogues
    "ConvReluFusion": "fuses a convolution (or a GEMM run as one) with the ReLU after it, "
    "computed in the convolution's epilogue",
    "ConvScaleFusion": "folds a Scale layer (an inference BatchNormalization) into the weights "
    "and bias of the convolution before it",
    "ConvEltwiseSumFusion": "fuses a residual Add into the convolution that produces one of its "
    "inputs: the sum is done in the convolution's epilogue",
    "ConvActPoolFusion": "fuses a convolution and its activation with the pooling layer after "
    "them into one layer",
    "ConvReshapeBiasAddFusion": "folds the bias add after a convolution (a MatMul or Gemm "
    "that MatMulToConvTransform turned into one) and its reshape into the convolution; it "
    "prints only its Running: line",
    "DeconvScaleFusion": "folds a Scale layer (BatchNormalization) into the deconvolution "
    "before it",
    "DeconvReluFusion": "fuses a deconvolution with the ReLU after it",
    "MatMulToConvTransform": "runs a MatMul with constant weights as a 1x1 convolution "
    "(Convert layer type ... from MATRIX_MULTIPLY to CONVOLUTION)",
    "FCToConvTransform": "runs a FullyConnected layer as a 1x1 convolution (Convert layer "
    "type ... from FULLY_CONNECTED to CONVOLUTION)",
    "ConvPointWiseClipFusion": "fuses a convolution with the Clip (ReLU6) after it, once the "
    "Clip has become a pointwise layer: the clamp runs in the convolution's epilogue",
    # -- elementwise, pointwise, activations
    "ScaleActivationFusion": "fuses a Scale layer (BatchNormalization) with the activation "
    "after it",
    "EltReluFusion": "fuses an elementwise layer with the ReLU after it",
    "EltwiseAddToPwn": "turns an elementwise Add into a pointwise layer (ELEMENTWISE to "
    "POINTWISE) so that it can join a generated pointwise kernel",
    "EltWiseToPointwiseConversion": "turns an elementwise layer into a pointwise layer "
    "(ELEMENTWISE to POINTWISE) so that it can join a generated pointwise kernel",
    "ActivationToPointwiseConversion": "turns an activation layer (a Clip, say) into a "
    "pointwise layer (ACTIVATION to POINTWISE) so that it can be fused into a convolution "
    "or join a generated pointwise kernel",
    "IdentityToCastTransform": "turns an Identity layer into a Cast (IDENTITY to CAST): the "
    "copy it stands for becomes a type conversion TensorRT can remove or run",
    "CastToCopyTransform": "turns a Cast whose input and output types agree into a plain "
    "copy (the log prints CAST to CAST); a later stage may remove it",
    "PointWiseFusion": "fuses chains of pointwise layers (elementwise math, activations) into "
    "one generated PWN(...) kernel",
    "ReduceToPoolingFusion": "runs a Reduce (a GlobalAveragePool exported as ReduceMean) as a "
    "Pooling layer (REDUCE to POOLING)",
    "SoftmaxTopKFusion": "fuses a Softmax with the TopK (ArgMax) that reads it into one layer",
    "LogSoftmaxTopKFusion": "fuses a LogSoftmax with the TopK (ArgMax) that reads it into one "
    "layer",
    # -- shuffles
    "ShuffleShuffleFusion": "combines two consecutive Shuffle layers (reshapes, transposes) "
    "into one",
    "ShuffleErasure": "removes a Shuffle that changes nothing (same shape, identity permutation)",
    "SqueezePushDownFork": "moves a squeeze/unsqueeze Shuffle past a layer with several "
    "readers, so that it can be fused or erased on each branch",
    "SqueezePushDownJoin": "moves a squeeze/unsqueeze Shuffle past a two-input layer, so that "
    "it can be fused or erased",
    # -- Q/DQ placement and fusion (explicit quantization)
    "VanillaSwapWithFollowingQ": "Q/DQ: swaps a layer that commutes with quantization "
    "(MaxPool, Slice, Flatten, Reshape) with the QuantizeLinear after it: Q moves backward, "
    "towards a layer that can absorb it",
    "VanillaSwapWithPreceedingDQ": "Q/DQ: swaps a layer that commutes with quantization with "
    "the DequantizeLinear before it: DQ moves forward, towards a layer that can absorb it",
    "SplitQAcrossPrecedingFanIn": "Q/DQ: copies a QuantizeLinear that follows a fan-in "
    "(Concat, Add) onto each of its inputs, so that every producer can write INT8",
    "HorizontalMergeQNodes": "Q/DQ: when several QuantizeLinear layers quantize one tensor "
    "with the same scale, keeps one and removes the duplicates (Eliminating ... which "
    "duplicates, then Removing)",
    "QConvScaleFusion": "Q/DQ: folds the BatchNormalization (and activation) after a quantized "
    "convolution into it; the log prints Removing for the absorbed layer",
    "QuantizeDoubleInputNodes": "Q/DQ: fuses the DequantizeLinear on a two-input layer's "
    "inputs (activation and weights, or both sides of an Add) and the QuantizeLinear on its "
    "output into it (fusing (a and b) into c): the layer runs in INT8",
    "QuantizeSingleInputNodes": "Q/DQ: fuses the DequantizeLinear before a single-input layer "
    "(pooling) and the QuantizeLinear after it into the layer, which runs in INT8",
    "QuantizeConvWithResidualAdd": "Q/DQ: quantizes a convolution together with the residual "
    "Add (and ReLU) after it: the output quantizer moves in front of the Add and is fused, "
    "so convolution, Add and ReLU run as one INT8 layer",
    "QDQToCopy": "Q/DQ: a Quantize or Dequantize layer no neighbour could absorb becomes a "
    "standalone conversion (QUANTIZE or DEQUANTIZE to kQDQ) that runs as its own kernel",
    # -- stages without a Running: line (named by trtlog)
    "HorizontalMerge": "TensorRT's tensor-merging stage: layers that read the same input and "
    "do the same kind of work are merged side by side into one wider layer (Merging "
    "layers: a || b)",
    "SliceElimination": "a stage: removes a Slice whose output is a view of its input, by "
    "retargeting its readers to the input tensor",
    "ConcatElimination": "a stage: removes a Concatenation by having its inputs write straight "
    "into the output buffer",
    "Myelin": "TensorRT's Myelin graph compiler: a {ForeignNode[a...b]} region of the network "
    "is handed to it and compiled into its own generated kernels",
    # -- the stages of "After <stage>: N layers" lines (a removal printed before one of them,
    #    outside any pass, is the stage's)
    "dead-layer removal": "a stage: removes layers whose outputs nothing uses",
    "final dead-layer removal": "a stage: removes the layers left unused after the fusions",
    "dupe layer removal": "a stage: removes layers that compute the same thing as another "
    "layer on the same inputs",
    "Myelin optimization": "a stage: hands the regions the Myelin compiler takes to it; each "
    "becomes one {ForeignNode[...]} layer",
    "scale fusion": "a stage: fuses Scale layers (BatchNormalization) into their neighbours",
    "vertical fusions": "a stage: fuses a layer with the layer that reads its output (the "
    "Fusing a with b lines of the passes before it)",
    "tensor merging": "a stage: merges layers side by side (see HorizontalMerge)",
    "slice removal": "a stage: removes Slices that are views of their input (see SliceElimination)",
    "concat removal": "a stage: removes Concatenations (see ConcatElimination)",
    "reformat layers": "a stage: adds the reformat layers that convert between the formats "
    "the chosen tactics read and write",
    "adding DebugOutput nodes": "a stage (10.x): adds the outputs of tensors marked for "
    "debugging; the first stage of each builder round",
}

#: What :func:`describe_pass` says of a pass the glossary does not know.
UNKNOWN_PASS = (
    "not in trtlog's pass glossary (docs/passes.md); TensorRT adds passes in new releases"
)


def describe_pass(name: str | None) -> str:
    """One line on what a pass does, or :data:`UNKNOWN_PASS` for a pass trtlog does not know.

    Example:
        >>> describe_pass("ShuffleShuffleFusion")
        'combines two consecutive Shuffle layers (reshapes, transposes) into one'
        >>> describe_pass("FancyNewFusion") == UNKNOWN_PASS
        True
    """
    return PASS_GLOSSARY.get(name or "", UNKNOWN_PASS)


#: The event kinds that fuse layers (one fusion each).
FUSION_KINDS = ("fusion", "fusion_into", "conv_scale_fusion", "horizontal_merge")

#: The event kinds that remove a layer from the network.
REMOVAL_KINDS = ("layer_removed", "qdq_dedup", "slice_elimination", "concat_elimination")

# what TensorRT does in its own stages, never inside a pass: slice and concatenation
# eliminations ("After slice removal"), horizontal merges ("Merging layers: a || b", printed
# before "After tensor merging", 8.5.10 bevformer-tsa line 483)
STAGE_PASS = {
    "slice_elimination": "SliceElimination",
    "concat_elimination": "ConcatElimination",
    "horizontal_merge": "HorizontalMerge",
}


class PassIndex:
    """Which pass (or stage) was running at a line: the one attribution rule of every view.

    ``Running: <pass> on <layer>`` opens a pass; its scope ends at the next ``Running:`` line,
    a layer count (``After <stage>: N layers``) or a Q/DQ optimizer phase line (``QDQ graph
    optimizer ...``): what follows those belongs to a stage, not to the pass. The frames, the
    summary, the merge graph and the per-pass comparison all read it from
    :attr:`Build.pass_index <trtlog.buildlog.Build.pass_index>`, so a fusion is credited to the same
    pass whichever view shows it (:meth:`of`).

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] [TRT] Running: ConstWeightsFusion on w\\n[V] [TRT] x\\n"
        ...                "[V] [TRT] After vertical fusions: 3 layers\\n[V] [TRT] Removing y\\n")
        >>> index = PassIndex(b)
        >>> index.at(2), index.at(4), index.stage_after(4), index.stage_after(2)
        ('ConstWeightsFusion', None, None, 'vertical fusions')
    """

    def __init__(self, build: Build) -> None:
        marks: list[tuple[int, PassRun | None]] = [(e.span[0], e) for e in build.of(PassRun)]
        marks += [(e.span[0], None) for e in build.events_of("layer_count", "qdq_phase")]
        marks.sort(key=lambda m: m[0])
        self.lines = [line for line, _ in marks]
        self.runs = [run for _, run in marks]
        self.names = [run.pass_name if run is not None else None for run in self.runs]
        stages = build.of(LayerCount)
        self._stage_lines = [e.span[0] for e in stages]
        self._stages = [e.stage for e in stages]

    def run_at(self, line: int) -> PassRun | None:
        """The ``Running:`` line whose pass is running at ``line``, or ``None``."""
        i = bisect.bisect_right(self.lines, line) - 1
        return self.runs[i] if i >= 0 else None

    def at(self, line: int) -> str | None:
        """The pass running at ``line``, or ``None`` outside any pass."""
        i = bisect.bisect_right(self.lines, line) - 1
        return self.names[i] if i >= 0 else None

    get = at  # the earlier name

    def of(self, event: Any) -> str | None:
        """The pass (or stage) an optimizer event is credited to.

        Its own ``<pass>:`` prefix (``ConvReluFusion: Fusing a with b``), else the stage its
        kind belongs to (:data:`STAGE_PASS`: ``Merging layers`` lines are the tensor-merging
        stage's, whatever pass ran last), else the pass running at its line.
        """
        named: str | None = getattr(event, "pass_name", None)
        return named or STAGE_PASS.get(event.kind) or self.at(event.span[0])

    def stage_after(self, line: int) -> str | None:
        """The stage of the first layer count after ``line`` (``After <stage>: N layers``).

        A removal printed outside any pass is that stage's work (``dead-layer removal``).
        """
        i = bisect.bisect_right(self._stage_lines, line)
        return self._stages[i] if i < len(self._stages) else None


#: The layer types of Q/DQ layers in ``Swap the layer type of x from <T1> to <T2>`` lines.
QDQ_TYPES = frozenset({"QUANTIZE", "DEQUANTIZE", "kQDQ"})

# the kinds qdq_events() reads
QDQ_KINDS = ("qdq_swap", "layer_swap", "qdq_dedup", "qdq_phase", "fusion_into")


#: The events of the Q/DQ optimizer (:func:`qdq_events`).
QdqEvent = QdqSwap | LayerSwap | QdqDedup | QdqPhase | FusionInto

#: The events that remove a layer (:func:`removal_events`).
RemovalEvent = LayerRemoved | QdqDedup | SliceElimination | ConcatElimination


def qdq_events(events: Iterable[Event]) -> list[QdqEvent]:
    """The Q/DQ optimizer's events, in file order (the rows of ``qdq_frame``).

    Swaps of a Q or DQ layer with its neighbour (``Swapping``), type swaps to or from a Q/DQ
    type (``QUANTIZE``/``DEQUANTIZE`` → ``kQDQ``), duplicates eliminated, the optimizer's
    phase lines, and Q/DQ layers fused into their consumer (``fusing (a and b) into c``).
    A type swap between other types (``ELEMENTWISE`` to ``POINTWISE``, 8.4.12 yolov8 seed line
    224; ``REDUCE`` to ``POOLING``) and the 7.x/8.0 ``Convert layer type`` lines have nothing
    to do with quantization and are left out.

    Example:
        >>> from trtlog import parse_text
        >>> head = "[V] [TRT] Swap the layer type of "
        >>> b = parse_text(head + "add from ELEMENTWISE to POINTWISE\\n"
        ...                + head + "q from QUANTIZE to kQDQ\\n")
        >>> [e.span[0] for e in qdq_events(b.events)]
        [2]
    """
    out: list[QdqEvent] = []
    for event in events:
        if isinstance(event, QdqSwap):
            if event.from_type in QDQ_TYPES or event.to_type in QDQ_TYPES:
                out.append(event)
        elif isinstance(event, LayerSwap | QdqDedup | QdqPhase | FusionInto):
            out.append(event)
    return out


def fusion_pass(event: Any, index: PassIndex) -> str | None:
    """The pass a fusion event is attributed to (see :meth:`PassIndex.of`)."""
    return index.of(event)


def removal_events(events: Iterable[Event]) -> list[RemovalEvent]:
    """The events that remove a layer, each removal once, in file order.

    ``Removing x`` lines, Q/DQ duplicates eliminated, slice and concatenation eliminations.
    ``HorizontalMergeQNodes`` prints two lines for one removal: ``Eliminating x which duplicates
    (Q) y`` and then ``Removing x`` (8.4.12 yolov8 seed lines 177-178; 8.5.10 resnet18-QAT lines
    2542-2564, 8 removals in 16 lines). The ``Removing`` line only confirms the elimination, so
    the elimination stands for both.

    Example:
        >>> from trtlog import parse_text
        >>> log = (
        ...     "[V] [TRT] Running: HorizontalMergeQNodes on q1\\n"
        ...     "[V] [TRT] Eliminating q2 which duplicates (Q) q1\\n"
        ...     "[V] [TRT] Removing q2\\n"
        ... )
        >>> [(e.kind, e.span[0]) for e in removal_events(parse_text(log).events)]
        [('qdq_dedup', 2)]
    """
    out: list[RemovalEvent] = []
    eliminated: dict[str, int] = {}  # layer -> its elimination, until its "Removing" line
    for event in events:
        if isinstance(event, QdqDedup):
            eliminated[event.layer] = event.span[0]
            out.append(event)
        elif isinstance(event, LayerRemoved):
            if eliminated.pop(event.layer, None) is None:
                out.append(event)
        elif isinstance(event, SliceElimination | ConcatElimination):
            out.append(event)
        elif isinstance(event, PassRun):
            eliminated.clear()  # the confirmation follows within the same pass
    return out


def pass_records(build: Build) -> list[dict[str, Any]]:
    """One record per optimization pass: how often it ran and what it did (``passes_frame``).

    Counted once per build (the records are copies: a caller may change them).

    Keys: ``pass_name``, ``first_line``/``last_line`` (its first and last ``Running:`` line or
    event), ``runs`` (``Running:`` lines), ``fusions`` (the fusions attributed to it, every
    kind of :data:`FUSION_KINDS`), ``removals`` (:func:`removal_events`) and ``swaps``
    (``Swapping`` and type swaps) done while it ran, ``layers_before``/``layers_after`` (the
    layer counts printed just before its first and just after its last activity),
    ``description`` (:func:`describe_pass`). Sorted by first line.
    """
    return [dict(record) for record in build._pass_records]


def passes_of(build: Build) -> list[dict[str, Any]]:
    """:func:`pass_records` counted (``Build._pass_records`` keeps them)."""
    index = build.pass_index
    stats: dict[str, dict[str, Any]] = {}

    def touch(name: str, line: int) -> dict[str, Any]:
        row = stats.setdefault(
            name,
            {
                "pass_name": name,
                "first_line": line,
                "last_line": line,
                "runs": 0,
                "fusions": 0,
                "removals": 0,
                "swaps": 0,
            },
        )
        row["first_line"] = min(row["first_line"], line)
        row["last_line"] = max(row["last_line"], line)
        return row

    for run in build.of(PassRun):
        touch(run.pass_name, run.span[0])["runs"] += 1
    for fusion in build.events_of(*FUSION_KINDS):
        name = index.of(fusion)
        if name:
            touch(name, fusion.span[0])["fusions"] += 1
    removals = build._removal_events
    swaps = build.events_of("qdq_swap", "layer_swap")
    for events, count_as in ((removals, "removals"), (swaps, "swaps")):
        for event in events:
            name = index.of(event)
            if name:
                touch(name, event.span[0])[count_as] += 1
    counts = [(e.span[0], e.layers) for e in build.of(LayerCount)]
    for row in stats.values():
        before = [n for line, n in counts if line < row["first_line"]]
        after = [n for line, n in counts if line > row["last_line"]]
        row["layers_before"] = before[-1] if before else None
        row["layers_after"] = after[0] if after else None
        row["description"] = describe_pass(row["pass_name"])
    return sorted(stats.values(), key=lambda r: r["first_line"])


# -- the optimizer frames' rows ------------------------------------------------------------

#: The columns and dtypes of the frames whose rows this module makes (``layer_counts_frame``,
#: ``fusions_frame``, ``removals_frame``, ``qdq_frame``, ``passes_frame``): the frames' schemas
#: (:data:`trtlog.frames.schema.SCHEMAS` takes them), and the types
#: :func:`trtlog.buildlog.rows.typed_columns` gives the rows without making the frames.
ROW_SCHEMAS: dict[str, dict[str, str]] = {
    "layer_counts": {
        "order": "int64",
        "line": "int64",
        "stage": "string",
        "layers": "int64",
        "change": "Int64",
        "run": "Int64",
        "round": "Int64",
    },
    "fusions": {
        "line": "int64",
        "kind": "string",
        "pass_name": "string",
        "inputs": "object",
        "result": "string",
        "n_inputs": "int64",
    },
    "removals": {
        "line": "int64",
        "kind": "string",
        "pass_name": "string",
        "layer": "string",
        "detail": "string",
    },
    "qdq": {
        "line": "int64",
        "kind": "string",
        "pass_name": "string",
        "layer": "string",
        "other": "string",
        "from_type": "string",
        "to_type": "string",
        "qdq": "string",
    },
    "passes": {
        "pass_name": "string",
        "first_line": "int64",
        "last_line": "int64",
        "runs": "int64",
        "fusions": "int64",
        "removals": "int64",
        "swaps": "int64",
        "layers_before": "Int64",
        "layers_after": "Int64",
        "description": "string",
    },
}


def layer_count_records(build: Build) -> list[dict[str, Any]]:
    """The rows of ``layer_counts_frame``: one per ``Original:`` / ``After <stage>:`` line.

    Keys: those of :data:`ROW_SCHEMAS` ``["layer_counts"]`` (see
    :func:`trtlog.frames.layer_counts_frame`).
    """
    records = []
    previous: dict[tuple[int | None, int | None], int] = {}
    for order, event in enumerate(build.of(LayerCount)):
        where = build.round_of(event)
        if where is not None:
            run, number = where.run, where.number
        else:
            found = build.run_of(event)
            run, number = (found.index if found else None), None
        before = previous.get((run, number))
        if before is None and number is not None:
            before = previous.get((run, None))  # a round starts from the network as it was
        records.append(
            {
                "order": order,
                "line": event.span[0],
                "stage": event.stage,
                "layers": event.layers,
                "change": None if before is None else event.layers - before,
                "run": run,
                "round": number,
            }
        )
        previous[run, number] = event.layers
    return records


def fusion_records(build: Build) -> list[dict[str, Any]]:
    """The rows of ``fusions_frame``: one per fusion, by line.

    See :func:`trtlog.frames.fusions_frame`.
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []
    for fusion in build.of(Fusion):
        inputs = (fusion.first, fusion.second)
        records.append(_fusion_row(fusion, passes.of(fusion), inputs, " + ".join(inputs)))
    for into in build.of(FusionInto):
        records.append(_fusion_row(into, passes.of(into), into.sources, into.target))
    for conv in build.of(ConvScaleFusion):
        inputs = (conv.conv, conv.scale)
        records.append(_fusion_row(conv, passes.of(conv), inputs, conv.conv))
    for merge in build.of(HorizontalMerge):
        result = " || ".join(merge.layers)
        records.append(_fusion_row(merge, passes.of(merge), merge.layers, result))
    records.sort(key=lambda r: r["line"])
    return records


def _fusion_row(
    event: Any, pass_name: str | None, inputs: Sequence[str], result: str | None
) -> dict[str, Any]:
    return {
        "line": event.span[0],
        "kind": event.kind,
        "pass_name": pass_name,
        "inputs": tuple(inputs),
        "result": result,
        "n_inputs": len(inputs),
    }


def removal_records(build: Build) -> list[dict[str, Any]]:
    """The rows of ``removals_frame``: one per removal, by line.

    See :func:`trtlog.frames.removals_frame`.
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []

    def add(event: Any, layer: str, detail: str | None = None) -> None:
        records.append(
            {
                "line": event.span[0],
                "kind": event.kind,
                "pass_name": passes.of(event),
                "layer": layer,
                "detail": detail,
            }
        )

    for event in build._removal_events:
        if isinstance(event, LayerRemoved):
            add(event, event.layer)
        elif isinstance(event, SliceElimination):
            add(event, event.slice, f"{event.from_tensor} -> {event.to_tensor}")
        elif isinstance(event, ConcatElimination):
            add(event, event.concat)
        elif isinstance(event, QdqDedup):
            add(event, event.layer, event.duplicate_of)
    for copy in build.of(CopyGenerated):
        add(copy, copy.tensor, f"{copy.target} ({copy.reason})")
    for ret in build.of(Retarget):
        add(ret, ret.tensor, ret.target)
    records.sort(key=lambda r: r["line"])
    return records


def qdq_records(build: Build) -> list[dict[str, Any]]:
    """The rows of ``qdq_frame``: one per Q/DQ optimizer event (:func:`qdq_events`).

    A fusion into a consumer gives one row per Q/DQ layer fused. See
    :func:`trtlog.frames.qdq_frame`.
    """
    passes = build.pass_index
    records: list[dict[str, Any]] = []

    def add(line: int, kind: str, layer: str, **extra: str | None) -> None:
        row: dict[str, Any] = {
            "line": line,
            "kind": kind,
            "pass_name": passes.at(line),
            "layer": layer,
            "other": None,
            "from_type": None,
            "to_type": None,
            "qdq": None,
        }
        row.update(extra)
        records.append(row)

    for event in qdq_events(build.events_of(*QDQ_KINDS)):
        line = event.span[0]
        if isinstance(event, QdqSwap):
            add(line, "qdq_swap", event.layer, from_type=event.from_type, to_type=event.to_type)
        elif isinstance(event, LayerSwap):
            add(line, "layer_swap", event.first, other=event.second)
        elif isinstance(event, QdqDedup):
            add(line, "qdq_dedup", event.layer, other=event.duplicate_of, qdq=event.qdq)
        elif isinstance(event, QdqPhase):
            add(line, "qdq_phase", event.phase, pass_name=None)  # a phase, not in a pass
        elif isinstance(event, FusionInto):
            for source in event.sources:
                add(line, "fusion_into", source, other=event.target)
    return records
