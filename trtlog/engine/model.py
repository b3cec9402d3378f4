"""Models of a built engine and of trtexec's JSON exports: layers, profiles, timing traces.

The engine package's data model (pydantic only). ``--exportLayerInfo`` (formats.md JSON-3) and a
log's layer dumps become an :class:`Engine` of :class:`EngineLayer` objects, ``--exportProfile``
(JSON-2) a :class:`Profile`, ``--exportTimes`` (JSON-1) a :class:`Times`. Models keep keys they do
not know (``extra="allow"``), so nothing a newer TensorRT writes is dropped. The JSON loaders live
in :mod:`trtlog.exports`, the engine of a log's layer dumps in :mod:`trtlog.engine.from_log`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trtlog._display import html_table, number, plural, top_counts
from trtlog._pydantic import ExactJson
from trtlog.names import ComposedName, MyelinKernel, OnnxSource, parse_kernel_name, split_name
from trtlog.tensors import DType, Tensor, dtype_of

if TYPE_CHECKING:
    import pandas as pd

    from trtlog.buildlog import Build
    from trtlog.engine.modules import ModuleNode
    from trtlog.engine.myelin import MyelinGroup

__all__ = [
    "MYELIN_LAYER_TYPES",
    "NAMES_ONLY_NOTE",
    "ORIGIN_TEXT",
    "Engine",
    "EngineLayer",
    "IoProfile",
    "IoTensor",
    "LayerPrecision",
    "LayerTime",
    "Profile",
    "ProfileRecord",
    "ProfileRun",
    "Times",
    "TimingRecord",
    "TimingRun",
    "compute_precision",
    "is_reformat_layer",
    "layer_precision",
    "precision_of",
    "strongly_typed",
    "time_by_key",
    "total_of",
]

_MODEL = ConfigDict(frozen=True, defer_build=True, extra="allow", ser_json_inf_nan="constants")


def total_of(values: Iterable[float]) -> float:
    """The exact sum of ``values`` (``math.fsum``), with infinities and NaN as IEEE adds them.

    trtexec writes ``inf``, ``-inf`` and ``nan`` where a time overflowed or was not measured;
    ``math.fsum`` raises on ``inf + -inf`` and on an overflowing partial sum, where the plain
    sum gives NaN or an infinity.

    Example:
        >>> total_of([0.1, 0.2]), total_of([float("inf"), float("-inf")])
        (0.30000000000000004, nan)
    """
    values = list(values)
    try:
        return math.fsum(values)
    except (ValueError, OverflowError):
        return sum(values, 0.0)


def time_by_key(
    keys: Iterable[str | None], times: Iterable[float | None]
) -> list[tuple[str, int, float | None]]:
    """Layers and time per key (a layer's type, precision or module), biggest first.

    ``keys`` and ``times`` run over the same layers; a missing key is ``?``. A key's time is
    :func:`total_of` of its layers' known times (``None`` and NaN are unknown), ``None`` when
    none is known. Sorted by time (unknown last), then layers, then key: what
    ``trtlog layers --group-by``, ``plot_time_by`` and the report's charts show, added up as
    the module tree and ``Engine.total_ms`` add.

    Example:
        >>> time_by_key(["Conv", None, "Conv"], [0.1, 0.5, 0.2])
        [('?', 1, 0.5), ('Conv', 2, 0.30000000000000004)]
    """
    layers: dict[str, int] = {}
    known: dict[str, list[float]] = {}
    for key, ms in zip(keys, times, strict=True):
        name = "?" if key is None or key != key else str(key)
        layers[name] = layers.get(name, 0) + 1
        if ms is not None and ms == ms:  # (NaN: not measured)
            known.setdefault(name, []).append(ms)
    rows = [
        (name, n, total_of(known[name]) if name in known else None) for name, n in layers.items()
    ]
    rows.sort(key=lambda r: (r[2] is None, -(r[2] or 0.0), -r[1], r[0]))
    return rows


class ProfileRecord(BaseModel):
    """One layer of an ``--exportProfile`` file.

    Attributes:
        name: the layer name as the profiler reports it (can differ from the layer JSON:
            ``[profile N]`` suffixes, Myelin kernel names, reformat names).
        time_ms: total time over all iterations (ms).
        average_ms: time per iteration (ms).
        median_ms: median time per iteration (ms), 8.4+; ``None`` before.
        percentage: share of the total layer time (%).
    """

    model_config = _MODEL

    name: str
    time_ms: float
    average_ms: float
    median_ms: float | None = None
    percentage: float


class ProfileRun(BaseModel):
    """One top-level array of a profile file (looped 7.x scripts append one per run).

    Attributes:
        iterations: the ``{"count": N}`` header, if present.
        records: the layers in execution order, zero-time layers included.
    """

    model_config = _MODEL

    iterations: int | None = None
    records: tuple[ProfileRecord, ...] = ()

    @property
    def total_ms(self) -> float:
        """Sum of the per-iteration averages (ms), i.e. the layer time of one inference."""
        return total_of(r.average_ms for r in self.records)


class Profile(ExactJson):
    """An ``--exportProfile`` file.

    Attributes:
        source: where it was read from.
        runs: one entry per top-level array (usually one).

    Example:
        >>> p = Profile(source="x", runs=(ProfileRun(iterations=10, records=(
        ...     ProfileRecord(name="a", time_ms=1.0, average_ms=0.1, percentage=100.0),)),))
        >>> p.iterations, p.records[0].name, p.has_median
        (10, 'a', False)
    """

    model_config = _MODEL

    source: str
    runs: tuple[ProfileRun, ...]

    @property
    def records(self) -> tuple[ProfileRecord, ...]:
        """The records of the first run (see ``runs`` for the others)."""
        return self.runs[0].records if self.runs else ()

    @property
    def iterations(self) -> int | None:
        """The iteration count of the first run."""
        return self.runs[0].iterations if self.runs else None

    @property
    def has_median(self) -> bool:
        """Whether the records carry ``medianMs`` (TensorRT 8.4+)."""
        return any(r.median_ms is not None for r in self.records)

    @property
    def total_ms(self) -> float:
        """Layer time of one inference in the first run (ms)."""
        return self.runs[0].total_ms if self.runs else 0.0

    def __repr__(self) -> str:
        """One line: ``<Profile 'p.json': 388 records, 3.592 ms per inference, 1 run>``."""
        return (
            f"<Profile {self.source!r}: {plural(len(self.records), 'record')}, "
            f"{number(self.total_ms)} ms per inference, {plural(len(self.runs), 'run')}>"
        )

    __str__ = __repr__


TimesKeys = Literal["7.0", "7.1", "8.0", "8.4"]


class TimingRecord(BaseModel):
    """One inference of an ``--exportTimes`` file, with version-independent field names.

    Times are milliseconds on the benchmark clock; ``*_start_ms``/``*_end_ms`` are absolute
    (6 significant digits, so prefer the durations, JSON-1), the others durations. Fields a
    version does not write are ``None``. The 7.1/7.2 files swap the enqueue and input values
    under their keys; the loader puts them back where they belong.

    Attributes:
        enqueue_start_ms: start of the enqueue call.
        enqueue_end_ms: end of the enqueue call.
        h2d_start_ms: start of the host-to-device (input) copy.
        h2d_end_ms: end of the host-to-device copy.
        compute_start_ms: start of GPU compute.
        compute_end_ms: end of GPU compute.
        d2h_start_ms: start of the device-to-host (output) copy.
        d2h_end_ms: end of the device-to-host copy.
        h2d_ms: input copy duration.
        compute_ms: GPU compute duration.
        d2h_ms: output copy duration.
        latency_ms: h2d + compute + d2h.
        end_to_end_ms: end-to-end host latency (≤ 8.2 only).
    """

    model_config = _MODEL

    enqueue_start_ms: float | None = None
    enqueue_end_ms: float | None = None
    h2d_start_ms: float | None = None
    h2d_end_ms: float | None = None
    compute_start_ms: float | None = None
    compute_end_ms: float | None = None
    d2h_start_ms: float | None = None
    d2h_end_ms: float | None = None
    h2d_ms: float | None = None
    compute_ms: float | None = None
    d2h_ms: float | None = None
    latency_ms: float | None = None
    end_to_end_ms: float | None = None


class TimingRun(BaseModel):
    """One top-level array of a times file.

    Attributes:
        keys: which key set the file uses (``7.0``, ``7.1`` (7.1-7.2), ``8.0`` (8.0-8.2),
            ``8.4`` (8.4+)).
        records: one per inference, in order.
    """

    model_config = _MODEL

    keys: TimesKeys
    records: tuple[TimingRecord, ...] = ()


class Times(ExactJson):
    """An ``--exportTimes`` file.

    Attributes:
        source: where it was read from.
        runs: one entry per top-level array (usually one).
    """

    model_config = _MODEL

    source: str
    runs: tuple[TimingRun, ...]

    @property
    def records(self) -> tuple[TimingRecord, ...]:
        """The records of the first run (see ``runs`` for the others)."""
        return self.runs[0].records if self.runs else ()

    def __repr__(self) -> str:
        """One line: ``<Times 't.json': 5,000 inferences, 1 run>``."""
        return (
            f"<Times {self.source!r}: {plural(len(self.records), 'inference')}, "
            f"{plural(len(self.runs), 'run')}>"
        )

    __str__ = __repr__


# -- engines -------------------------------------------------------------------------------

#: The note of an engine whose layers have names only (a default-verbosity build).
NAMES_ONLY_NOTE = (
    "names-only engine (built with the default profiling verbosity): layers have names, and "
    "the fused ONNX nodes their names list, but no types, tensors, formats, tactics or "
    "metadata. Rebuild with `trtexec --profilingVerbosity=detailed --exportLayerInfo=...` to "
    "get precisions, layouts, kernels and the exact ONNX nodes of every layer."
)


#: Layer types of Myelin-internal kernels in 10.x detailed dumps (an open set).
MYELIN_LAYER_TYPES = frozenset(
    {
        "kgen",
        "gemm",
        "shape_call",
        "fusion",
        "signal",
        "wait",
        "correlation",
        "deconv",
        "conv_act_pool",
        "maxpool",
        "avgpool",
        "conv",
        "reduce",
        "copy",
        "MyelinReformat",
    }
)


class LayerTime(BaseModel):
    """A layer's time from a profile, or why it has none.

    Attributes:
        average_ms: time per inference (ms); NaN when the profile has no record for the layer.
        total_ms: time over all profiled iterations (ms); NaN likewise.
        median_ms: median per inference (ms), profiles of 8.4+; ``None`` otherwise.
        percentage: share of the profile's total layer time (%); NaN likewise.
        profile_names: the profile records that make up this time (several for a Myelin
            region whose kernels the profile lists one by one).
        reason: why the time is missing, or how it was matched when not by exact name.
    """

    model_config = _MODEL

    average_ms: float = math.nan
    total_ms: float = math.nan
    median_ms: float | None = None
    percentage: float = math.nan
    profile_names: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def known(self) -> bool:
        """Whether the profile gave this layer a time."""
        return not math.isnan(self.average_ms)


class LayerPrecision(BaseModel):
    """The element types a layer reads, computes in and writes.

    Attributes:
        inputs: the input tensors' types (``None`` where the format does not say).
        compute: the math precision when the kernel name or weights give it away
            (``i8i8`` kernels, ``Weights: Int8``...), else ``None``.
        outputs: the output tensors' types.
        precision: the layer's precision (:func:`layer_precision`: the kernel's, else its
            inputs'): the ``precision`` column of ``layers_frame``.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    inputs: tuple[str | None, ...] = ()
    compute: str | None = None
    outputs: tuple[str | None, ...] = ()
    precision: str | None = None

    @property
    def summary(self) -> str:
        """``FP16->INT8`` style: the distinct input types, an arrow, the output types."""

        def join(types: tuple[str | None, ...]) -> str:
            seen = [t for t in dict.fromkeys(types) if t]
            return "+".join(seen) if seen else "?"

        return f"{join(self.inputs)}->{join(self.outputs)}"


class EngineLayer(BaseModel):
    """One layer of a built engine, from a layer-info JSON or a log's layer dump.

    Attributes:
        index: position in the engine's execution order (0-based).
        name: the engine layer name (fused names, reformats, ``{ForeignNode[...]}``...).
        type: ``LayerType`` (``CaskConvolution``, ``Reformat``, ``Myelin``, ``kgen``...);
            ``None`` in a names-only engine.
        inputs: input tensors (dims, dtype, layout from ``Format/Datatype``).
        outputs: output tensors.
        parameter_type: ``ParameterType`` (``Convolution``, ``Reformat``...), if any.
        parameters: every other key of the layer, as in the JSON (``Kernel``, ``Weights``,
            ``Origin``, ``EventId``...): nothing TensorRT writes is dropped.
        tactic: ``TacticValue`` (unsigned 64-bit), if any.
        tactic_name: ``TacticName`` (kernel), if any.
        stream_id: ``StreamId``, if any.
        metadata: ``Metadata`` as written (``[ONNX Layer: x]`` groups), if any.
        onnx_nodes: the original ONNX nodes the layer computes (see ``onnx_source``).
        onnx_source: where ``onnx_nodes`` come from: the ``metadata``, the layer ``name``
            (fused parts), a ``{ForeignNode[a...b]}`` ``range`` expanded with the parse order
            of the ONNX nodes, or ``none`` (reformats, copies, Myelin internals).
        time: the layer's time once a profile is merged (see ``Engine.with_profile``).
    """

    model_config = _MODEL

    index: int
    name: str
    type: str | None = None
    inputs: tuple[Tensor, ...] = ()
    outputs: tuple[Tensor, ...] = ()
    parameter_type: str | None = None
    parameters: dict[str, Any] = Field(default_factory=dict)
    tactic: int | None = None
    tactic_name: str | None = None
    stream_id: int | None = None
    metadata: str | None = None
    onnx_nodes: tuple[str, ...] = ()
    onnx_source: OnnxSource = "none"
    time: LayerTime | None = None

    @property
    def parts(self) -> ComposedName:
        """The layer name split into its composed parts."""
        return split_name(self.name)

    @property
    def origin(self) -> str | None:
        """``Origin`` of a reformat (``REFORMAT``, ``QDQ``...), when the JSON gives it."""
        value = self.parameters.get("Origin")
        return str(value) if value is not None else None

    @property
    def is_reformat(self) -> bool:
        """A layer that only converts formats (reformat copy nodes, ``Reformat`` types)."""
        return is_reformat_layer(self.type, self.name)

    @property
    def myelin(self) -> MyelinKernel | None:
        """The Myelin kernel this layer is (10.x detailed engines), or ``None``."""
        return parse_kernel_name(self.name)

    @property
    def is_myelin_kernel(self) -> bool:
        """A kernel of a Myelin region: a ``_myl<graph>_<index>`` name or a Myelin layer type."""
        return self.myelin is not None or (
            self.type in MYELIN_LAYER_TYPES and self.type != "Myelin"
        )

    @property
    def profile_index(self) -> int | None:
        """``N`` of a `` [profile N]`` suffix (engines with several optimization profiles)."""
        parts = self.parts
        return parts.index if parts.op == "profile" else None

    @property
    def precision(self) -> LayerPrecision:
        """The element types in and out, the kernel's precision and the layer's."""
        return LayerPrecision(
            inputs=tuple(t.dtype for t in self.inputs),
            compute=compute_precision(self),
            outputs=tuple(t.dtype for t in self.outputs),
            precision=layer_precision(self.tactic_name, self.parameters, self.inputs, self.outputs),
        )


# kernel-name fragments that state the math precision (CASK/cuDNN/cuBLAS naming)
_KERNEL_PRECISION = (
    ("fp8", "FP8"),
    ("e4m3", "FP8"),
    ("i8i8", "INT8"),
    ("imma", "INT8"),
    ("int8", "INT8"),
    ("bf16", "BF16"),
    ("f16f16", "FP16"),
    ("h16816", "FP16"),
    ("h884", "FP16"),
    ("h1688", "FP16"),
    ("hgemm", "FP16"),
    ("fp16", "FP16"),
    ("tf32", "FP32"),
    ("f32f32", "FP32"),
    ("sgemm", "FP32"),
    ("scudnn", "FP32"),
    ("fp32", "FP32"),
)


_REFORMATS = (
    "Reformatting CopyNode for ",
    "Reformatted Input Tensor ",
    "Reformatted Output Tensor ",
)


def is_reformat_layer(layer_type: str | None, name: str) -> bool:
    """Whether a layer of this type and name only converts formats (see ``is_reformat``)."""
    return layer_type in ("Reformat", "MyelinReformat") or name.startswith(_REFORMATS)


# kernel name -> the precision its name tells (None: it tells none); engines repeat kernels
_PRECISION_OF_KERNEL: dict[str, str | None] = {}


def strongly_typed(build: Build | None, engine: Engine | None) -> bool:
    """Whether a build was strongly typed: its model's types decide every precision.

    ``Precision: Strongly Typed`` in the log (``--stronglyTyped`` in 10.x; every 11.x build),
    a TensorRT 11 log (11 builds nothing else), or an engine in TensorRT 11's shape
    (:attr:`Engine.trt11_shape`). ``--fp16``/``--int8`` and calibration do not exist there.
    """
    if build is not None and (build.options.strongly_typed or (build.trt_version or (0,)) >= (11,)):
        return True
    return engine is not None and engine.trt11_shape


def compute_precision(layer: EngineLayer) -> str | None:
    """The precision a layer computes in, when its kernel name or weights tell it.

    The kernel's evidence only; :func:`layer_precision` is a layer's precision (this, else its
    inputs' type).
    """
    return precision_of(layer.tactic_name, layer.parameters)


# element types that index, count or mask rather than carry the values a layer computes on
# (a Gather's INT64 indices, a Myelin region's BOOL attention mask, a shape tensor)
_INDEX_TYPES = frozenset(("BOOL", "INT32", "INT64"))


def _values_type(tensors: Sequence[Tensor]) -> str | None:
    """The first type of ``tensors`` that is not an index or mask type, else the first type."""
    first = None
    for t in tensors:
        dtype = t.dtype
        if dtype is not None:
            if dtype not in _INDEX_TYPES:
                return dtype
            if first is None:
                first = dtype
    return first


def layer_precision(
    kernel: str | None,
    parameters: dict[str, Any],
    inputs: Sequence[Tensor],
    outputs: Sequence[Tensor] = (),
) -> str | None:
    """A layer's precision: what it computes in, the same from every form of its layers.

    1. the kernel name (``TacticName``) when it tells the math precision (``i8i8``, ``imma``,
       ``h1688``, ``fp16``...: :func:`precision_of`);
    2. else the weights' type (``Weights: {"Type": "Int8"}``);
    3. else the type of its inputs: the first input type that is not an index or mask type
       (``BOOL``, ``INT32``, ``INT64``), else the first input type;
    4. else, with no typed input, its outputs read the same way.

    An INT8 convolution writing FP32 is INT8 whether the kernel name (detailed dump, layer
    JSON) or its ``Int8`` input (the builder's ``Layer(...)`` listing) says so; a Myelin region
    whose first output is a BOOL mask is the type of the values it reads. A reformat is the
    type it reads (its output type is in the output-types column). Names-only layers have
    none. See docs/guide.md, "A layer's precision".

    Example:
        >>> from trtlog.tensors import Tensor
        >>> i8, f32 = Tensor(name="x", dtype="INT8"), Tensor(name="y", dtype="FP32")
        >>> layer_precision(None, {}, [i8], [f32])
        'INT8'
        >>> layer_precision(None, {}, [Tensor(name="m", dtype="BOOL"), f32], [])
        'FP32'
    """
    found = precision_of(kernel, parameters)
    if found is not None:
        return found
    return _values_type(inputs) or _values_type(outputs)


def precision_of(kernel: str | None, parameters: dict[str, Any]) -> str | None:
    """The compute precision a kernel name (``TacticName``) or a layer's weights tell, if any.

    What :func:`compute_precision` reads from a layer, from its values.
    """
    if kernel:
        if kernel in _PRECISION_OF_KERNEL:
            found = _PRECISION_OF_KERNEL[kernel]
        else:
            lower = kernel.lower()
            found = next((d for fragment, d in _KERNEL_PRECISION if fragment in lower), None)
            if len(_PRECISION_OF_KERNEL) < 65536:
                _PRECISION_OF_KERNEL[kernel] = found
        if found is not None:
            return found
    for key in ("Weights", "ConvWeights"):
        weights = parameters.get(key)
        if isinstance(weights, dict) and isinstance(weights.get("Type"), str):
            return dtype_of(weights["Type"])
    return None


class IoProfile(BaseModel):
    """One optimization profile of an engine input or output (TensorRT 11 ``ProfileInfo``).

    Attributes:
        min_shape: ``MinShape``, the smallest shape the profile accepts.
        opt_shape: ``OptShape``, the shape the kernels were tuned for.
        max_shape: ``MaxShape``, the largest shape.
        format: ``Format`` as printed (``Row major linear FP32 format (kLINEAR)``).
        layout: the memory layout ``format`` names (``linear``, ``chw32``...), if it names one.
        vector_width: elements packed along the channel axis, if the format packs any.

    Keys TensorRT adds later are kept as extras.
    """

    model_config = _MODEL

    min_shape: tuple[int, ...] | None = None
    opt_shape: tuple[int, ...] | None = None
    max_shape: tuple[int, ...] | None = None
    format: str | None = None
    layout: str | None = None
    vector_width: int | None = None


class IoTensor(BaseModel):
    """An engine input or output as TensorRT 11's ``I/O Tensors`` list describes it.

    TensorRT 11 replaced the name list ``Bindings`` of ``--exportLayerInfo`` and
    ``IEngineInspector`` JSON with these objects; :attr:`Engine.bindings` still lists their
    names, as ``Bindings`` did.

    Attributes:
        name: ``Name``.
        mode: ``input`` or ``output`` (``IOMode``), when the JSON says.
        io_mode: ``IOMode`` as printed (``Input``, ``Output``).
        dtype: the element type ``DataType`` names (``Float`` → ``FP32``).
        data_type: ``DataType`` as printed.
        dims: ``Dimensions`` (``-1`` for a dynamic axis).
        location: ``Location`` (``Device``, ``Host``).
        shape_inference: ``IsShapeInferenceIO``: a shape tensor, read on the host.
        profiles: one entry per optimization profile (``ProfileInfo``).

    Keys TensorRT adds later are kept as extras.

    Example:
        >>> t = IoTensor(name="x", mode="input", dtype="FP32", dims=(1, 3))
        >>> t.is_input, t.profiles
        (True, ())
    """

    model_config = _MODEL

    name: str
    mode: Literal["input", "output"] | None = None
    io_mode: str | None = None
    dtype: DType | None = None
    data_type: str | None = None
    dims: tuple[int, ...] | None = None
    location: str | None = None
    shape_inference: bool | None = None
    profiles: tuple[IoProfile, ...] = ()

    @property
    def is_input(self) -> bool:
        """Whether this is an engine input (``IOMode: Input``)."""
        return self.mode == "input"


EngineOrigin = Literal[
    "layer_json", "log_inspector", "log_listing", "log_names", "log_placement", "log_autotuned"
]

#: Where an engine's layers came from, as a phrase (``Engine.origin`` → text).
ORIGIN_TEXT: dict[str, str] = {
    "layer_json": "the layer JSON",
    "log_inspector": "the log's layer dump",
    "log_listing": "the log's engine layer listing (Engine Layer Information)",
    "log_names": "the log's names-only layer dump",
    "log_placement": "the log's placement lines ([GpuLayer] ...)",
    "log_autotuned": "the layers the log's autotuner timed",
}


class Engine(ExactJson):
    """A built engine's layers, as a layer-info JSON or a log's layer dump describes them.

    Attributes:
        source: where the layers came from.
        origin: ``layer_json`` (``--exportLayerInfo`` or ``IEngineInspector`` JSON),
            ``log_inspector`` (the inspector text in a log: ``--dumpLayerInfo`` or the 10.x
            builder ``Layers:`` dump), ``log_listing`` (the builder's ``Engine Layer
            Information:``), ``log_names`` (a names-only inspector dump in a log),
            ``log_placement`` (a log without a layer dump: its ``[GpuLayer] TYPE: name``
            placement lines, types as printed) or ``log_autotuned`` (the layers its autotuner
            timed: ``Computing costs for``, ``Timing Runner:``, the TRT 5-7 ``Timing name(n)``
            blocks). :data:`ORIGIN_TEXT` says it in words.
        detailed: whether layers carry types and tensors (``--profilingVerbosity=detailed``);
            a names-only engine has names and, from them, the fused parts.
        layers: in execution order.
        bindings: the engine's I/O tensor names, when given (``Bindings`` before TensorRT 11,
            the names of ``I/O Tensors`` from 11 on).
        io_tensors: the engine's inputs and outputs with their types, shapes and per-profile
            formats (TensorRT 11 ``I/O Tensors``); empty before 11.
        profile: the merged ``--exportProfile``, if any.
        times: the ``--exportTimes`` trace, if any.
        notes: what the reader should know (a names-only engine says what a detailed build
            would add; profile matching reports what it could not match).
        regions: names of the engine's Myelin regions (``{ForeignNode[...]}``) known from
            elsewhere (a log's placement lines or builder listing), which label the Myelin
            kernel groups of a detailed engine (in graph order).
        extras: top-level JSON keys other than ``Layers``, ``Bindings`` and ``I/O Tensors``
            (``Engine Metadata``, ``ProfilingVerbosity``... in TensorRT 11), as written.
        trt_version: the TensorRT version that built it, when known: a log's engine has its
            log's; a layer JSON (which prints none) takes the version of a log of the same
            engine paired with it (:func:`trtlog.engine.from_log.with_log_version`).
    """

    model_config = ConfigDict(frozen=True, defer_build=True, ser_json_inf_nan="constants")

    source: str
    origin: EngineOrigin
    detailed: bool
    layers: tuple[EngineLayer, ...]
    bindings: tuple[str, ...] = ()
    io_tensors: tuple[IoTensor, ...] = ()
    profile: Profile | None = None
    times: Times | None = None
    notes: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    extras: dict[str, Any] = Field(default_factory=dict)
    trt_version: tuple[int, ...] | None = None

    def layer(self, name: str) -> EngineLayer:
        """The first layer called ``name``.

        Raises:
            KeyError: no layer has that name.
        """
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise KeyError(name)

    @property
    def inputs(self) -> tuple[IoTensor, ...]:
        """The engine's inputs (TensorRT 11 ``I/O Tensors``; empty before 11)."""
        return tuple(t for t in self.io_tensors if t.mode == "input")

    @property
    def outputs(self) -> tuple[IoTensor, ...]:
        """The engine's outputs (TensorRT 11 ``I/O Tensors``; empty before 11)."""
        return tuple(t for t in self.io_tensors if t.mode == "output")

    @property
    def trt11_shape(self) -> bool:
        """Whether the layers came in TensorRT 11's shape: ``I/O Tensors``, split ``Datatype``.

        TensorRT 11 builds only strongly typed engines, so such an engine was built strongly
        typed. (A 10.x export of a ``--stronglyTyped`` build does not tell.)
        """
        if self.io_tensors:
            return True
        return any(t.datatype is not None for x in self.layers[:8] for t in x.inputs)

    @property
    def total_ms(self) -> float:
        """The sum of the known layer times per inference (ms); NaN without a profile."""
        known = [t.average_ms for lay in self.layers if (t := lay.time) is not None and t.known]
        return total_of(known) if known else math.nan

    def with_profile(self, profile: Profile) -> Engine:
        """This engine with the layer times of ``profile``.

        See :func:`trtlog.engine.merge_profile`.
        """
        from trtlog.engine.profile import merge_profile

        return merge_profile(self, profile)

    def groups(
        self, kind: Literal["myelin"] = "myelin", regions: Sequence[str] | None = None
    ) -> list[MyelinGroup]:
        """Layers grouped by ``kind``.

        ``"myelin"`` groups Myelin kernels under their region (see
        :func:`trtlog.engine.myelin_groups`).

        Args:
            kind: the grouping (only ``"myelin"``).
            regions: ``{ForeignNode[...]}`` names that label the kernel groups in graph order
                (e.g. the layer names of a default build of the same model); by default the
                engine's :attr:`regions`.

        Raises:
            ValueError: an unknown kind.
        """
        from trtlog.engine.myelin import engine_groups

        return engine_groups(self, kind, regions)

    def module_tree(self) -> ModuleNode:
        """Layers, time and precision rolled up the ONNX module hierarchy.

        See :func:`trtlog.engine.module_tree`.
        """
        from trtlog.engine.modules import module_tree

        return module_tree(self)

    def layers_frame(self) -> pd.DataFrame:
        """One row per layer (see :func:`trtlog.frames.layers_frame`)."""
        from trtlog.frames import layers_frame

        return layers_frame(self)

    def tensors_frame(self) -> pd.DataFrame:
        """One row per tensor edge (see :func:`trtlog.frames.tensors_frame`)."""
        from trtlog.frames import tensors_frame

        return tensors_frame(self)

    def profile_frame(self) -> pd.DataFrame:
        """The merged profile's records (see :func:`trtlog.frames.profile_frame`)."""
        from trtlog.frames import profile_frame

        return profile_frame(self.profile)

    def times_frame(self) -> pd.DataFrame:
        """The timing trace, one row per inference (see :func:`trtlog.frames.times_frame`)."""
        from trtlog.frames import times_frame

        return times_frame(self.times)

    def modules_frame(self) -> pd.DataFrame:
        """The module tree as a frame (see :func:`trtlog.frames.modules_frame`)."""
        from trtlog.frames import modules_frame

        return modules_frame(self.module_tree())

    # -- display (every layer with its tensors: the default repr runs to megabytes) -------

    def __repr__(self) -> str:
        """One line: ``<Engine 'm.json': 388 layers (layer_json, detailed), 3.592 ms>``."""
        what = "detailed" if self.detailed else "names only"
        total = self.total_ms
        timed = f", {number(total)} ms per inference" if total == total else ""
        return (
            f"<Engine {self.source!r}: {plural(len(self.layers), 'layer')} "
            f"({self.origin}, {what}){timed}>"
        )

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """A small table for notebooks: source, layers by type, precision, time, notes."""
        total = self.total_ms
        return html_table(
            "trtlog.Engine",
            [
                ("source", self.source),
                ("from", self.origin),
                ("detailed", "yes" if self.detailed else "no (names only)"),
                (
                    "TensorRT",
                    ".".join(map(str, self.trt_version)) if self.trt_version else None,
                ),
                ("layers", f"{len(self.layers):,}"),
                ("types", top_counts(lay.type for lay in self.layers) if self.detailed else None),
                ("reformats", sum(lay.is_reformat for lay in self.layers)),
                ("profile", self.profile.source if self.profile else None),
                ("time per inference", f"{number(total)} ms" if total == total else None),
                ("notes", "; ".join(self.notes) if self.notes else None),
            ],
        )
