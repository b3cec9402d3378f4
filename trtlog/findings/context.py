"""What the rules read: the build, its engine, layer times, the tensor graph, Q/DQ facts.

Part of the view package :mod:`trtlog.findings` (pydantic models in, no pandas). A
:class:`LintContext` is made once per :func:`~trtlog.findings.lint` call; its indexes are
built lazily and cached, so that a rule pays only for what it reads and every index is built
once (the rules run over 50 MB logs and 20,000-layer engines). Rules read events by their
class (``ctx.events(Fusion, FusionInto)``, typed), so ``mypy --strict`` checks every field a
rule reads.
"""

from __future__ import annotations

import bisect
import heapq
import math
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar, overload

from trtlog._display import number
from trtlog.engine.model import (
    MYELIN_LAYER_TYPES,
    Engine,
    EngineLayer,
    compute_precision,
    is_reformat_layer,
    strongly_typed,
)
from trtlog.events import (
    BindingCreated,
    CalibratorExplicitPrecision,
    EngineLayerInfo,
    EventBase,
    FusionInto,
    InspectorBinding,
    InspectorLayerName,
    InspectorRecord,
    OnnxParseNode,
    OptionKv,
    PlacementDla,
    PlacementGpu,
    ProfileRow,
    QdqDedup,
    QdqPhase,
    QdqSwap,
)
from trtlog.names import (
    is_qdq_node,
    is_quantize_scale_node,
    is_quantizer_name,
    is_weights_name,
    normalize_name,
    op_of,
)
from trtlog.summary.outcome import Outcome, outcomes
from trtlog.tensors import Tensor

if TYPE_CHECKING:
    from trtlog.buildlog import Build
    from trtlog.diff import Comparison

__all__ = [
    "CONV_TYPES",
    "FLOAT_TYPES",
    "LOW_TYPES",
    "NAME_BRACED",
    "NAME_COPY",
    "NAME_FOREIGN",
    "NAME_MYELIN",
    "NAME_SOFT",
    "LayerColumns",
    "LintContext",
    "fmt_ms",
    "layer_columns",
    "name_flags",
    "short",
]


#: Element types of a float tensor, and of a quantized one.
FLOAT_TYPES = frozenset({"FP32", "FP16", "BF16"})
LOW_TYPES = frozenset({"INT8", "FP8", "INT4", "FP4", "UINT8"})

#: Layer types of weighted (quantizable) operations: convolutions and GEMMs.
CONV_TYPES = frozenset(
    {
        "CaskConvolution",
        "CaskGemmConvolution",
        "CaskFlattenConvolution",
        "CaskDeconvolution",
        "CaskConvActPool",
        "ConvActPool",
        "CudnnConvolution",
        "CudnnDeconvolution",
        "Convolution",
        "Deconvolution",
        "CaskGemm",
        "CaskGemmMatrixMultiply",
        "MatrixMultiply",
        "CublasMatrixMultiply",
        "FullyConnected",
        "CaskFullyConnected",
        "gemm",
        "correlation",
        "conv",
        "conv_act_pool",
        "deconv",
        "fusion",
    }
)
_WEIGHTED_OPS = frozenset({"Conv", "ConvTranspose", "Gemm", "MatMul", "Convolution", "Linear"})

_DUMP_RECORDS = (InspectorRecord, EngineLayerInfo, InspectorLayerName, ProfileRow)
_PLACEMENTS = (PlacementGpu, PlacementDla)
T = TypeVar("T")
E1 = TypeVar("E1", bound=EventBase)
E2 = TypeVar("E2", bound=EventBase)
E3 = TypeVar("E3", bound=EventBase)


#: names of tensors that layers write (``/x/Conv_output_0``, ``157``, ``__mye12``, reformats)
_INNER_TENSOR = re.compile(
    r"_output(?:_\d+)?$|^/|^\d+$|Reformatted |^__my|\(Unnamed Layer\*|_out(?:put)?_?\d*$"
)


class Span(NamedTuple):
    """An event's lines and severity, without the event (see :meth:`LintContext.last_event`)."""

    span: tuple[int, int]
    severity: str | None


def _first_line(event: Any) -> int:
    return int(event.span[0])


#: the names of the reformats TensorRT inserts (never a quantizer, unless of ``Origin: QDQ``)
_COPY_NAMES = ("Reformatting CopyNode", "Reformatted ")


def _origin(layer: EngineLayer) -> str | None:
    """``layer.origin`` without the property call (asked of every layer by several rules)."""
    value = layer.parameters.get("Origin")
    return value if value is None or type(value) is str else str(value)


def short(text: str, width: int = 90) -> str:
    """``text`` cut to ``width`` characters with an ellipsis in the middle."""
    if len(text) <= width:
        return text
    half = (width - 1) // 2
    return text[:half] + "…" + text[-(width - 1 - half) :]


def fmt_ms(value: float | None) -> str:
    """``0.0152 ms`` (4 significant digits, every integer digit), or ``?`` when unknown."""
    if value is None or math.isnan(value):
        return "?"
    return f"{number(value)} ms"


#: bits of :attr:`LayerColumns.name_flags`: what a layer name holds
NAME_MYELIN = 1  #: ``_myl`` (a Myelin kernel name may follow: ``parse_kernel_name``)
NAME_FOREIGN = 2  #: starts with ``{ForeignNode[`` (a Myelin region)
NAME_SOFT = 4  #: ``oft`` (a Softmax, by name)
NAME_BRACED = 8  #: ``{...}`` (a 7.x DLA subgraph, or a Myelin region)
NAME_COPY = 16  #: starts as the reformats TensorRT inserts are named (``Reformatting CopyNode``)

_COPY_PREFIXES = (
    "Reformatting CopyNode for ",
    "Reformatted Input Tensor ",
    "Reformatted Output Tensor ",
)


class LayerColumns(NamedTuple):
    """What the rules scan of every layer, one list per value, in layer order.

    Rules test these first and look at a layer object only when the cheap test passes: reading
    a few fields of 20,000 layer objects costs several times more than reading lists (the
    objects and their tensors lie all over the heap). Types and origins are one string object
    per distinct value, and the name tests the rules make are bits of one small int per layer,
    so that a scan touches no layer's own strings.

    Attributes:
        names: ``layer.name``.
        types: ``layer.type``.
        origins: ``layer.origin``.
        onnx_nodes: ``layer.onnx_nodes``.
        n_inputs: ``len(layer.inputs)``.
        n_outputs: ``len(layer.outputs)``.
        name_flags: the ``NAME_*`` bits of each name.
        positional: whether every layer's ``index`` is its position (as loaders number them).
    """

    names: list[str]
    types: list[str | None]
    origins: list[str | None]
    onnx_nodes: list[tuple[str, ...]]
    n_inputs: list[int]
    n_outputs: list[int]
    name_flags: list[int]
    positional: bool = True


def name_flags(name: str) -> int:
    """The ``NAME_*`` bits of a layer name.

    Example:
        >>> name_flags("{ForeignNode[/a/MatMul.../a/Softmax]}") == (
        ...     NAME_FOREIGN | NAME_SOFT | NAME_BRACED)
        True
    """
    flags = 0
    if "_myl" in name:
        flags |= NAME_MYELIN
    if name.startswith("{"):
        if name.startswith("{ForeignNode["):
            flags |= NAME_FOREIGN
        if name.endswith("}"):
            flags |= NAME_BRACED
    elif name.startswith(_COPY_PREFIXES):
        flags |= NAME_COPY
    if "oft" in name:
        flags |= NAME_SOFT
    return flags


def _name_flags(names: list[str]) -> list[int]:
    """:func:`name_flags` of every name, its tests inline (a fifth faster over 20,000 names)."""
    return [
        (NAME_MYELIN if "_myl" in n else 0)
        | (NAME_SOFT if "oft" in n else 0)
        | (
            (NAME_FOREIGN if n.startswith("{ForeignNode[") else 0)
            | (NAME_BRACED if n.endswith("}") else 0)
            if n[:1] == "{"
            else (NAME_COPY if n[:1] == "R" and n.startswith(_COPY_PREFIXES) else 0)
        )
        for n in names
    ]


def _one_each(values: Iterable[str | None]) -> list[str | None]:
    """``values`` with one string object per distinct value (a scan then stays in cache)."""
    first: dict[str | None, str | None] = {}
    return [first.setdefault(v, v) for v in values]


def layer_columns(engine: Engine) -> LayerColumns:
    """The :class:`LayerColumns` of an engine's layers."""
    layers = engine.layers
    names = []
    types: list[str | None] = []
    origins: list[str | None] = []
    onnx_nodes: list[tuple[str, ...]] = []
    n_inputs: list[int] = []
    n_outputs: list[int] = []
    positional = True
    for i, layer in enumerate(layers):
        d = layer.__dict__  # the fields, without an attribute lookup each
        positional = positional and d["index"] == i
        names.append(d["name"])
        types.append(d["type"])
        value = d["parameters"].get("Origin")
        origins.append(None if value is None else str(value))
        onnx_nodes.append(d["onnx_nodes"])
        n_inputs.append(len(d["inputs"]))
        n_outputs.append(len(d["outputs"]))
    return LayerColumns(
        names,
        _one_each(types),
        _one_each(origins),
        onnx_nodes,
        n_inputs,
        n_outputs,
        _name_flags(names),
        positional,
    )


class LintContext:
    """The inputs of one lint run and the indexes the rules share (built on first use).

    Args:
        build: the parsed log, if any.
        engine: the engine (layer JSON, or the log's layer dump), with layer times merged
            when a profile is known.
        reference: the reference build (an FP16 build of the same model), if any.
        reference_engine: its engine, with times when its profile is known.
    """

    def __init__(
        self,
        build: Build | None,
        engine: Engine | None,
        reference: Build | None = None,
        reference_engine: Engine | None = None,
    ) -> None:
        self.build = build
        self.engine = engine
        self.reference = reference
        self.reference_engine = reference_engine
        self._memo: dict[str, Any] = {}
        self._nodes: dict[int, tuple[str, ...]] = {}
        self._ops: dict[int, frozenset[str]] = {}
        self._roles: dict[int, Literal["Q", "DQ"] | None] = {}
        self._weighted: dict[int, bool] = {}
        self._weighted_types: dict[str, bool] = {}
        self._int8: dict[int, bool] = {}
        self._node_ops: dict[str, str | None] = {}
        self._by_class: dict[type[EventBase], list[Any]] = {}

    def memo(self, key: str, compute: Callable[[LintContext], T]) -> T:
        """``compute(self)``, computed once per context (an index several rules share)."""
        if key not in self._memo:
            self._memo[key] = compute(self)
        return self._memo[key]  # type: ignore[no-any-return]

    @cached_property
    def outcomes(self) -> list[Outcome]:
        """The outcome of every build of the log (:func:`trtlog.summary.outcome.outcomes`)."""
        return outcomes(self.build) if self.build is not None else []

    # -- sources -----------------------------------------------------------------------------

    @cached_property
    def log_source(self) -> str | None:
        """The log's name (the file line numbers refer to)."""
        return self.build.source.name if self.build is not None else None

    @cached_property
    def layer_source(self) -> str | None:
        """The file the engine layers came from."""
        return self.engine.source if self.engine is not None else None

    @cached_property
    def layers(self) -> tuple[EngineLayer, ...]:
        """The engine's layers (empty without an engine)."""
        return self.engine.layers if self.engine is not None else ()

    @cached_property
    def columns(self) -> LayerColumns:
        """The layers' values the rules scan (see :class:`LayerColumns`)."""
        if self.engine is None:
            return LayerColumns([], [], [], [], [], [], [])
        return layer_columns(self.engine)

    @overload
    def events(self, first: type[E1], /) -> list[E1]: ...

    @overload
    def events(self, first: type[E1], second: type[E2], /) -> list[E1 | E2]: ...

    @overload
    def events(
        self, first: type[E1], second: type[E2], third: type[E3], /
    ) -> list[E1 | E2 | E3]: ...

    @overload
    def events(self, *classes: type[EventBase]) -> list[EventBase]: ...

    def events(self, *classes: type[EventBase]) -> list[Any]:
        """The build's events of these classes, in file order (empty without a log).

        Typed: a rule reads the fields of the classes it asks for, and ``mypy --strict``
        checks them. Several classes are merged from the build's per-kind index, not by
        scanning every event.
        """
        if self.build is None:
            return []
        lists = [found for cls in classes if (found := self._of(cls))]
        if len(lists) <= 1:
            return list(lists[0]) if lists else []
        return list(heapq.merge(*lists, key=_first_line))

    def _of(self, cls: type[EventBase]) -> list[Any]:
        """``build.of(cls)``, asked once per class.

        A lazy build answers from its per-kind index of the parsed messages (built once, on
        the first question), parsing only the deferred messages that may hold the kind: asking
        for a kind the build lacks costs a lookup, not a count of every event.
        """
        found = self._by_class.get(cls)
        if found is None:
            assert self.build is not None
            found = self._by_class[cls] = self.build.of(cls)
        return found

    def last_event(self, first: int, stop: int, skip: Collection[str]) -> Span | None:
        """The last event that ends on a line from ``first`` to before ``stop``, not of ``skip``.

        Its span and severity, read from the kinds and severities of the events
        (``Build.kind_rows``): none is built (a failed 50 MB log has 300,000).
        """
        if self.build is None:
            return None
        best: Span | None = None
        for kind, firsts, lasts, severities in self.build.kind_rows():
            if kind in skip:
                continue
            # each part is in file order: its last event that ends before ``stop``
            i = bisect.bisect_left(lasts, stop) - 1
            if i >= 0 and lasts[i] >= first and (best is None or firsts[i] > best.span[0]):
                best = Span((firsts[i], lasts[i]), severities[i])
        return best

    # -- options ---------------------------------------------------------------------------

    @cached_property
    def option_lines(self) -> dict[str, int]:
        """Option label → the line that printed it (first run)."""
        found: dict[str, int] = {}
        for e in self.events(OptionKv):
            found.setdefault(e.key, e.span[0])
        return found

    def option(self, key: str) -> str | None:
        """The value of a trtexec option label, or ``None``."""
        return self.build.options.get(key) if self.build is not None else None

    @cached_property
    def precisions(self) -> tuple[str, ...]:
        """The precisions the build enabled (``("FP32", "INT8")``); empty when unknown."""
        return self.build.options.precisions if self.build is not None else ()

    @cached_property
    def strongly_typed(self) -> bool:
        """Whether the network was built strongly typed (see :func:`trtlog.engine.strongly_typed`).

        ``--fp16``/``--int8`` and calibration do not exist for such builds.
        """
        return strongly_typed(self.build, self.engine)

    # -- layer times -----------------------------------------------------------------------

    def time(self, layer: EngineLayer) -> float | None:
        """The layer's time per inference (ms), or ``None`` without a profile record."""
        t = layer.time
        if t is None:
            return None
        ms = t.average_ms
        return None if ms != ms else ms  # NaN: not known (LayerTime.known)

    def times(self, layers: Iterable[EngineLayer]) -> float | None:
        """The summed time of layers (ms); ``None`` when none of them has a time."""
        known = [t for t in (self.time(x) for x in layers) if t is not None]
        return math.fsum(known) if known else None

    @cached_property
    def total_ms(self) -> float | None:
        """The engine's time per inference (ms), when a profile is known.

        The profile's own total when the engine carries one (it also counts records no layer
        matches: DLA transfers, host copies), else the sum of the layer times.
        """
        profile = self.engine.profile if self.engine is not None else None
        if profile is not None:
            total = profile.total_ms  # (a sum over the records: asked once)
            if total > 0:
                return total
        return self.times(self.layers)

    @property
    def timed(self) -> bool:
        """Whether layer times are known."""
        return self.total_ms is not None

    def share(self, ms: float | None) -> str:
        """``0.0152 ms, 7.4% of the engine time`` (or ``""`` without times)."""
        total = self.total_ms
        if ms is None or total is None or total <= 0:
            return ""
        return f"{fmt_ms(ms)}, {100 * ms / total:.1f}% of the engine's layer time"

    # -- log lines of layers ---------------------------------------------------------------

    @cached_property
    def layer_lines(self) -> dict[str, list[int]]:
        """Layer name → the log lines that show it (see :meth:`lines_of`), in no order."""
        found: dict[str, list[int]] = defaultdict(list)
        if self.build is None:
            return found
        # class by class, not merged in file order: lines_of sorts what it finds; the names
        # and lines as columns (a log's dumps hold thousands of records no rule reads whole)
        for cls in (*_DUMP_RECORDS, *_PLACEMENTS):
            columns = self.build.columns(cls.model_fields["kind"].default, ("layer",))
            for layer, line in zip(columns["layer"], columns["line"], strict=True):
                found[layer].append(line)
        return found

    def lines_of(self, *names: str) -> tuple[int, ...]:
        """The log lines that show these layers (layer dumps and GPU/DLA placement lines)."""
        if self.build is None:
            return ()
        index = self.layer_lines
        out = {n for name in names for n in index.get(name, ())}
        return tuple(sorted(out))

    # -- ONNX ops --------------------------------------------------------------------------

    @cached_property
    def ops(self) -> dict[str, str]:
        """ONNX node → op type, from the parser's ``Parsing node: x [Op]`` lines."""
        return {e.node: e.op for e in self.events(OnnxParseNode)}

    def op(self, node: str) -> str | None:
        """The op type of an ONNX node (printed, or guessed from its name)."""
        cache = self._node_ops
        if node not in cache:
            cache[node] = op_of(node, self.ops)
        return cache[node]

    def nodes(self, layer: EngineLayer) -> tuple[str, ...]:
        """The layer's ONNX nodes without clone suffixes (none for reformats)."""
        return self._nodes_of(layer.index, layer.onnx_nodes)

    def _nodes_of(self, index: int, onnx_nodes: tuple[str, ...]) -> tuple[str, ...]:
        """:meth:`nodes` of the layer at ``index``, whose ONNX nodes are ``onnx_nodes``."""
        cache = self._nodes
        found = cache.get(index)
        if found is None:
            found = cache[index] = tuple(dict.fromkeys(normalize_name(n) for n in onnx_nodes))
        return found

    def compute_nodes(self, layer: EngineLayer) -> tuple[str, ...]:
        """The layer's ONNX nodes that are neither Q/DQ nodes nor weights."""
        key = ~layer.index  # the node cache holds both lists: negative keys for these
        cache = self._nodes
        found = cache.get(key)
        if found is None:
            found = cache[key] = tuple(
                n for n in self.nodes(layer) if not is_qdq_node(n) and not is_weights_name(n)
            )
        return found

    def layer_ops(self, layer: EngineLayer) -> frozenset[str]:
        """The op types inside a layer: its ONNX nodes' ops (else a Myelin kernel's ops)."""
        cache = self._ops
        found = cache.get(layer.index)
        if found is not None:
            return found
        ops = {op for n in self.compute_nodes(layer) if (op := self.op(n))}
        kernel = layer.myelin
        if kernel is not None and kernel.generated and layer.onnx_source != "metadata":
            # a generated kernel's name lists implementation ops (a DQ shows as Cast+Mul), so
            # it is read only when the layer has no ONNX metadata
            ops.update(kernel.ops)
        found = cache[layer.index] = frozenset(ops)
        return found

    # -- Q/DQ ------------------------------------------------------------------------------

    @cached_property
    def qdq_lines(self) -> tuple[int, ...]:
        """Log lines showing Q/DQ nodes (parser nodes, Q/DQ passes), at most a few."""
        lines: list[int] = []
        for node in self.events(OnnxParseNode):
            if node.op in ("QuantizeLinear", "DequantizeLinear"):
                lines.append(node.span[0])
                break
        for e in self.events(QdqSwap, QdqDedup, FusionInto, CalibratorExplicitPrecision):
            if not isinstance(e, QdqSwap) or e.to_type == "kQDQ":
                lines.append(e.span[0])
                break
        return tuple(sorted(lines))

    @cached_property
    def has_qdq(self) -> bool:
        """Whether the network has Q/DQ nodes (explicit quantization).

        From the parser's nodes, the Q/DQ optimizer's messages, or the engine: layers of Q/DQ
        origin or holding ``QuantizeLinear``/``DequantizeLinear`` nodes.
        """
        if self.qdq_lines:
            return True
        if self.events(QdqPhase, QdqDedup):
            return True
        if any(e.to_type == "kQDQ" for e in self.events(QdqSwap)):
            return True
        columns = self.columns
        if "QDQ" in columns.origins:
            return True
        if not self._quantize_named:
            return False  # no ONNX node name holds "uantize": no quantizer node
        for origin, nodes in zip(columns.origins, columns.onnx_nodes, strict=True):
            if origin == "QDQ":
                return True
            # the substring test first: the regexes run only on the few names that may match
            for n in nodes:
                if "uantize" in n and is_quantizer_name(n):
                    return True
        return False

    @cached_property
    def _quantize_named(self) -> bool:
        """Whether any layer's ONNX node name holds ``uantize`` (one search of them joined).

        Most engines have none: then no layer is a quantizer by its nodes, and the per-layer
        tests of :attr:`has_qdq` and :attr:`_role_map` are left out.
        """
        return "uantize" in "\n".join(chain.from_iterable(self.columns.onnx_nodes))

    @cached_property
    def qdq_layers(self) -> tuple[EngineLayer, ...]:
        """The layers that are only a quantizer or dequantizer (see :meth:`qdq_role`), in order."""
        layers = self.layers
        return tuple(layers[i] for i in self._role_map)

    @cached_property
    def _role_map(self) -> dict[int, Literal["Q", "DQ"]]:
        """Position → role of every layer that has one (:meth:`qdq_role`), in layer order.

        Every layer's role is decided here in one pass, with the cheap tests inline on the
        columns: a 20,000-layer engine has a few Q/DQ layers, and several rules ask every layer.
        """
        columns = self.columns
        found: dict[int, Literal["Q", "DQ"]] = {}
        # what _qdq_role says first, for most layers: neither Q/DQ origin nor a Q/DQ node
        # ("uantize" holds no space: it matches inside one node of the joined text)
        if self._quantize_named:
            candidates = [
                i
                for i, (origin, nodes) in enumerate(
                    zip(columns.origins, columns.onnx_nodes, strict=True)
                )
                if origin == "QDQ" or (nodes and "uantize" in " ".join(nodes))
            ]
        elif "QDQ" in columns.origins:
            candidates = [i for i, origin in enumerate(columns.origins) if origin == "QDQ"]
        else:
            candidates = []
        if not candidates:
            return found
        layers = self.layers
        for i in candidates:
            role = self._qdq_role(layers[i])
            if role is not None:
                found[i] = role
        return found

    @cached_property
    def weighted_layers(self) -> tuple[EngineLayer, ...]:
        """The convolutions and GEMMs (see :meth:`is_weighted`), in order.

        Decided by the layer type where the type decides (once per type), so that only the
        other layers are looked at one by one.
        """
        layers = self.layers
        columns = self.columns
        by_type = self._weighted_types
        found = []
        for i, (kind, flags) in enumerate(zip(columns.types, columns.name_flags, strict=True)):
            if kind is not None and kind != "fusion":
                if kind in CONV_TYPES:
                    found.append(layers[i])
                    continue
                weighted = by_type.get(kind)
                if weighted is None:
                    weighted = self._weighted_type(kind)
                if weighted and not flags & NAME_COPY:
                    found.append(layers[i])
            elif self.is_weighted(layers[i]):
                found.append(layers[i])
        return tuple(found)

    def qdq_role(self, layer: EngineLayer) -> Literal["Q", "DQ"] | None:
        """``Q`` or ``DQ`` for a layer that is only a quantizer or dequantizer, else ``None``.

        A Reformat of ``Origin: QDQ``, a layer whose ONNX nodes are all Q/DQ nodes (weights
        aside), or a ``*_quantize_scale_node``; a ``Reformatting CopyNode`` only with the QDQ
        origin.
        """
        if self.columns.positional:
            return self._role_map.get(layer.index)
        cache = self._roles  # an engine whose indices are not positions (made by hand)
        if layer.index not in cache:
            cache[layer.index] = self._qdq_role(layer)
        return cache[layer.index]

    def _qdq_role(self, layer: EngineLayer) -> Literal["Q", "DQ"] | None:
        if _origin(layer) == "QDQ":
            pass
        elif layer.name.startswith(_COPY_NAMES):
            return None
        elif not any("uantize" in n for n in layer.onnx_nodes):
            return None  # no Q/DQ node (nor *_quantize_scale_node) at all: the common case
        else:
            nodes = [n for n in self.nodes(layer) if not is_weights_name(n)]
            if not nodes or not all(is_qdq_node(n) or is_quantize_scale_node(n) for n in nodes):
                return None
        ins = {t.dtype for t in layer.inputs}
        outs = {t.dtype for t in layer.outputs}
        if outs & LOW_TYPES and not ins & LOW_TYPES:
            return "Q"
        if ins & LOW_TYPES and not outs & LOW_TYPES:
            return "DQ"
        text = " ".join(self.nodes(layer)) or layer.name
        return "DQ" if "equantize" in text else "Q"

    def is_weighted(self, layer: EngineLayer) -> bool:
        """Whether a layer is a convolution or GEMM (a quantizable weighted op)."""
        cache = self._weighted
        found = cache.get(layer.index)
        if found is None:
            found = cache[layer.index] = self._is_weighted(layer)
        return found

    def _is_weighted(self, layer: EngineLayer) -> bool:
        kind = layer.type
        if kind is not None:
            if kind in CONV_TYPES:
                if kind != "fusion":
                    return True
                ops = layer.myelin.ops if layer.myelin else ()  # a fused FC kernel: __myl_Fc
                return "Gemm" in ops or "Fc" in ops
            # the rest depends on the type alone, and on whether the layer is a reformat
            by_type = self._weighted_types.get(kind)
            if by_type is None:
                by_type = self._weighted_type(kind)
            return by_type and not layer.is_reformat
        # a names-only engine: the ops of the nodes the name lists
        return any(self.op(n) in _WEIGHTED_OPS for n in self.compute_nodes(layer))

    def _weighted_type(self, kind: str) -> bool:
        """Whether a layer of this type (none of :data:`CONV_TYPES`) is weighted, if no reformat."""
        lowered = kind.lower()
        found = self._weighted_types[kind] = (
            kind not in MYELIN_LAYER_TYPES
            and not is_reformat_layer(kind, "")
            and ("conv" in lowered or "gemm" in lowered or "matrixmultiply" in lowered)
        )
        return found

    @cached_property
    def quantized(self) -> bool:
        """Whether the build uses INT8 at all: Q/DQ nodes, ``--int8``, or an INT8 layer."""
        if self.has_qdq or "INT8" in self.precisions:
            return True
        return any(self.is_int8(x) for x in self.layers)

    def is_int8(self, layer: EngineLayer) -> bool:
        """Whether a layer reads or computes INT8 (its kernel, weights or an input)."""
        cache = self._int8
        found = cache.get(layer.index)
        if found is None:
            # ``layer.precision.compute``, without building the precision model
            found = cache[layer.index] = compute_precision(layer) == "INT8" or any(
                t.dtype == "INT8" for t in layer.inputs
            )
        return found

    # -- tensor graph ----------------------------------------------------------------------

    @staticmethod
    def key(layer: EngineLayer, tensor: str) -> str:
        """The graph key of a tensor a layer reads or writes.

        Myelin's internal tensors (``__myln_k_arg__bb1_56``) are named per Myelin graph, and
        two regions of one engine reuse the names: they are keyed with their graph.
        """
        if tensor.startswith("__myl"):
            kernel = layer.myelin
            if kernel is not None:
                return f"{tensor}\x00{kernel.graph}"
        return tensor

    @cached_property
    def _graph(self) -> tuple[dict[str, int], dict[str, list[int]]]:
        """:attr:`producers` and :attr:`consumers`, in one pass over the layers."""
        producers: dict[str, int] = {}
        consumers: dict[str, list[int]] = defaultdict(list)
        key = self.key
        for layer, flags in zip(self.layers, self.columns.name_flags, strict=True):
            d = layer.__dict__  # the fields, without an attribute lookup each
            index = d["index"]
            if flags & NAME_MYELIN:  # a Myelin kernel may key its tensors with its graph
                for t in d["outputs"]:
                    name = key(layer, t.name)
                    if name not in producers:
                        producers[name] = index
                for t in d["inputs"]:
                    consumers[key(layer, t.name)].append(index)
                continue
            # no "_myl" in the layer name: no Myelin kernel (key() keeps every name)
            for t in d["outputs"]:
                name = t.name
                if name not in producers:
                    producers[name] = index
            for t in d["inputs"]:
                consumers[t.name].append(index)
        return producers, consumers

    def first_output_key(self, index: int) -> str | None:
        """The graph key (see :meth:`key`) of the first tensor the layer at ``index`` writes."""
        layer = self.layers[index]
        outputs = layer.outputs
        return self.key(layer, outputs[0].name) if outputs else None

    @cached_property
    def producers(self) -> dict[str, int]:
        """Tensor key (see :meth:`key`) → the index of the layer that writes it."""
        return self._graph[0]

    @cached_property
    def consumers(self) -> dict[str, list[int]]:
        """Tensor key (see :meth:`key`) → the indices of the layers that read it."""
        return self._graph[1]

    def producer_of(self, layer: EngineLayer, tensor: str) -> EngineLayer | None:
        """The layer that writes a tensor ``layer`` reads, if the engine has it."""
        i = self.producers.get(self.key(layer, tensor))
        return self.layers[i] if i is not None else None

    def readers_of(self, layer: EngineLayer, tensor: str) -> list[EngineLayer]:
        """The layers that read a tensor ``layer`` writes (or reads), in engine order."""
        return [self.layers[i] for i in self.consumers.get(self.key(layer, tensor), ())]

    @cached_property
    def bindings(self) -> frozenset[str]:
        """The engine's input and output tensors (from the engine, or the log's bindings)."""
        names: set[str] = set(self.engine.bindings) if self.engine is not None else set()
        for e in self.events(BindingCreated, InspectorBinding):
            names.add(e.name)
        return frozenset(names)

    def is_network_input(self, layer: EngineLayer, tensor: str) -> bool:
        """Whether a tensor ``layer`` reads comes from outside the engine.

        With known bindings, only a binding does; without them, a tensor no layer writes whose
        name is not an inner tensor's (a pasted fragment leaves inner tensors without a
        producer).
        """
        return self._is_input(self.key(layer, tensor), tensor)

    def _is_input(self, key: str, tensor: str) -> bool:
        if key in self.producers:
            return False
        if self.bindings:
            return key in self.bindings
        # no bindings known (a pasted fragment): an input without a producer in the paste is
        # taken for a network input only when its name is not an inner tensor's
        # (docs/fragments-research.md §7.1)
        return _INNER_TENSOR.search(tensor) is None

    def is_network_output(self, layer: EngineLayer, tensor: str) -> bool:
        """Whether a tensor ``layer`` writes leaves the engine (a binding, or never read)."""
        return self._is_output(self.key(layer, tensor), tensor)

    def _is_output(self, key: str, tensor: str) -> bool:
        if self.bindings:
            return key in self.bindings
        return (
            key in self.producers
            and key not in self.consumers
            and _INNER_TENSOR.search(tensor) is None
        )

    # the same questions of the layer at a position

    @cached_property
    def _myelin_graphs(self) -> list[int | None]:
        """Each layer's Myelin graph (:attr:`EngineLayer.myelin`), by position."""
        return [k.graph if (k := x.myelin) is not None else None for x in self.layers]

    def myelin_graph(self, index: int) -> int | None:
        """The Myelin graph of the layer at ``index`` (``layer.myelin.graph``), if a kernel."""
        return self._myelin_graphs[index]

    def key_at(self, index: int, tensor: str) -> str:
        """:meth:`key` of the layer at position ``index``."""
        if tensor.startswith("__myl"):
            graph = self._myelin_graphs[index]
            if graph is not None:
                return f"{tensor}\x00{graph}"
        return tensor

    def is_network_input_at(self, index: int, tensor: str) -> bool:
        """:meth:`is_network_input` of the layer at position ``index``."""
        return self._is_input(self.key_at(index, tensor), tensor)

    def is_network_output_at(self, index: int, tensor: str) -> bool:
        """:meth:`is_network_output` of the layer at position ``index``."""
        return self._is_output(self.key_at(index, tensor), tensor)

    def layer_tensors(self, index: int) -> tuple[tuple[Tensor, ...], tuple[Tensor, ...]]:
        """The inputs and outputs of the layer at position ``index``."""
        layer = self.layers[index]
        return layer.inputs, layer.outputs

    def time_at(self, index: int) -> float | None:
        """:meth:`time` of the layer at position ``index``."""
        return self.time(self.layers[index])

    def qdq_role_at(self, index: int) -> Literal["Q", "DQ"] | None:
        """:meth:`qdq_role` of the layer at position ``index``."""
        if self.columns.positional:
            return self._role_map.get(index)
        return self.qdq_role(self.layers[index])

    def tensor_names_at(self, index: int) -> tuple[list[str], list[str]]:
        """The names of the tensors the layer at ``index`` reads and writes, in order."""
        inputs, outputs = self.layer_tensors(index)
        return [t.name for t in inputs], [t.name for t in outputs]

    def upstream_at(self, index: int, inputs: Sequence[str]) -> list[int]:
        """:meth:`upstream` of the layer at ``index``, whose inputs are named ``inputs``."""
        producers = self.producers
        out = []
        for name in inputs:
            i = producers.get(self.key_at(index, name) if name.startswith("__myl") else name)
            if i is not None:
                out.append(i)
        return out

    def downstream_at(self, index: int, outputs: Sequence[str]) -> list[int]:
        """:meth:`downstream` of the layer at ``index``, whose outputs are named ``outputs``."""
        consumers = self.consumers
        if len(outputs) == 1:  # most layers: the readers of one tensor, already in order
            name = outputs[0]
            found = consumers.get(self.key_at(index, name) if name.startswith("__myl") else name)
            if not found:
                return []
            return [found[0]] if len(found) == 1 else sorted(set(found))
        seen = {i for name in outputs for i in consumers.get(self.key_at(index, name), ())}
        return sorted(seen)

    def layer(self, index: int) -> EngineLayer:
        """The engine layer at ``index``."""
        return self.layers[index]

    def upstream(self, layer: EngineLayer) -> list[EngineLayer]:
        """The layers that write this layer's inputs."""
        out = []
        producers = self.producers
        for t in layer.inputs:
            name = t.name
            i = producers.get(self.key(layer, name) if name.startswith("__myl") else name)
            if i is not None:
                out.append(self.layers[i])
        return out

    def downstream(self, layer: EngineLayer) -> list[EngineLayer]:
        """The layers that read this layer's outputs, in engine order."""
        consumers = self.consumers
        layers = self.layers
        outputs = layer.outputs
        if len(outputs) == 1:  # most layers: the readers of one tensor, already in order
            name = outputs[0].name
            found = consumers.get(self.key(layer, name) if name.startswith("__myl") else name)
            if not found:
                return []
            if len(found) == 1:
                return [layers[found[0]]]
        seen: dict[int, None] = {}
        for t in outputs:
            name = t.name
            for i in consumers.get(self.key(layer, name) if name.startswith("__myl") else name, ()):
                seen[i] = None
        return [layers[i] for i in sorted(seen)]

    # -- the reference -----------------------------------------------------------------------

    @cached_property
    def comparison(self) -> Comparison | None:
        """The reference aligned with this build (``None`` without both engines)."""
        if self.engine is None or self.reference_engine is None:
            return None
        from trtlog.diff import compare  # (only with a reference: its import is 0.04 s)

        return compare(self.reference_engine, self.engine)


def first_lines(events: Sequence[Any], limit: int = 20) -> tuple[int, ...]:
    """The first lines of up to ``limit`` events, in order."""
    return tuple(sorted({e.span[0] for e in events[:limit]}))
