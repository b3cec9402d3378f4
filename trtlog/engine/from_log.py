"""The engine a log describes: its layer dumps, placement lines or autotuned layers as an Engine.

Part of the engine package (events in, engine models out; pydantic only). A verbose log can
print the engine's layers several ways: the inspector dump (``--dumpLayerInfo``, or the 10.x
builder ``Layers:`` dump), the builder's ``Engine Layer Information:`` listing, a names-only
dump; without any of them, the placement lines (``[GpuLayer] ...``) or the layers the
autotuner timed still name the network's layers. ``Build.engine`` is the first;
:func:`engine_from_placement` and :func:`engine_from_autotuned` are what the merge graph and
the CLI fall back on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from trtlog.engine.model import NAMES_ONLY_NOTE, Engine, EngineLayer, EngineOrigin
from trtlog.events import (
    EngineLayerInfo,
    EngineLayerInfoHeader,
    EngineLayersDetailed,
    Event,
    EventBase,
    ForeignNodeMetadata,
    InspectorBinding,
    InspectorLayerName,
    InspectorLayersHeader,
    InspectorRecord,
    LayerCostsHeader,
    LegacyTimingHeader,
    OnnxParseNode,
    PlacementDla,
    PlacementGpu,
    PlacementList,
    ProfileRow,
    TimingRunner,
)
from trtlog.names import OnnxSource, onnx_nodes_of_name

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = [
    "ENGINE_EVENTS",
    "PairedVersion",
    "engine_from_autotuned",
    "engine_from_events",
    "engine_from_placement",
    "final_layers",
    "paired_version",
    "same_engine",
    "with_log_version",
]

# every event class engine_from_events reads; it skips every other event (a lazy Build hands
# it only these)
ENGINE_EVENTS: tuple[type[EventBase], ...] = (
    EngineLayerInfo,
    EngineLayerInfoHeader,
    EngineLayersDetailed,
    ForeignNodeMetadata,
    InspectorBinding,
    InspectorLayerName,
    InspectorLayersHeader,
    InspectorRecord,
    LayerCostsHeader,
    LegacyTimingHeader,
    OnnxParseNode,
    PlacementDla,
    PlacementGpu,
    PlacementList,
    ProfileRow,  # a pasted profile table alone is a names-only engine
    TimingRunner,
)


_DUMP_STARTS: dict[type[EventBase], str] = {
    EngineLayerInfoHeader: "listing",
    EngineLayersDetailed: "inspector",
    InspectorLayersHeader: "inspector",
}

#: A record of a layer dump.
DumpRecord = InspectorRecord | InspectorLayerName | EngineLayerInfo | ProfileRow


def _json_like(value: Any) -> Any:
    """An inspector-record parameter value as the layer JSON holds it (objects as dicts)."""
    if isinstance(value, tuple):
        if value and all(
            isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value
        ):
            return {k: _json_like(v) for k, v in value}
        return [_json_like(v) for v in value]
    return value


def _node_order(events: Sequence[Event]) -> list[str] | None:
    found = [e.node for e in events if isinstance(e, OnnxParseNode)]
    return list(dict.fromkeys(found)) or None


def _onnx_of(
    name: str,
    foreign: dict[str, tuple[str, ...]],
    order: dict[str, int] | None,
    nodes: list[str] | None,
) -> tuple[tuple[str, ...], OnnxSource]:
    """A log layer's ONNX nodes: the ForeignNode metadata line first, else its name."""
    if name in foreign:
        return foreign[name], "metadata"
    return onnx_nodes_of_name(name, order, nodes)


class _Dumps(NamedTuple):
    """The layer dump a log's engine is made of, and what the other dumps' lines add."""

    position: int
    kind: str
    records: list[DumpRecord]
    foreign: dict[str, tuple[str, ...]]
    bindings: dict[int, list[str]]


def _read_dumps(events: Sequence[Event]) -> _Dumps | None:
    """The dump :func:`engine_from_events` makes the engine of (see there), or ``None``."""
    dumps: list[tuple[str, list[DumpRecord]]] = []
    foreign: dict[str, tuple[str, ...]] = {}
    current: tuple[str, list[DumpRecord]] | None = None
    bindings: dict[int, list[str]] = {}
    profiled: list[ProfileRow] = []  # a pasted profile table without any dump
    for event in events:
        if isinstance(event, ProfileRow):
            if not event.is_total:
                profiled.append(event)
            continue
        start = _DUMP_STARTS.get(type(event))
        if start is not None:
            current = (start, [])
            dumps.append(current)
        elif isinstance(event, InspectorRecord | InspectorLayerName):
            if current is None or current[0] == "listing":
                current = ("inspector", [])
                dumps.append(current)
            current[1].append(event)
        elif isinstance(event, EngineLayerInfo):
            if current is None or current[0] != "listing":
                current = ("listing", [])
                dumps.append(current)
            current[1].append(event)
        elif isinstance(event, InspectorBinding) and dumps:
            bindings.setdefault(len(dumps) - 1, []).append(event.name)
        elif isinstance(event, ForeignNodeMetadata) and event.onnx_layers:
            foreign[event.layer] = tuple(event.onnx_layers)
    detailed = [
        (i, d) for i, d in enumerate(dumps) if any(isinstance(e, InspectorRecord) for e in d[1])
    ]
    listings = [(i, d) for i, d in enumerate(dumps) if d[0] == "listing" and d[1]]
    names = [(i, d) for i, d in enumerate(dumps) if d[0] == "inspector" and d[1]]
    candidates = detailed or listings or names
    if not candidates and profiled:
        candidates = [(len(dumps), ("inspector", list(profiled)))]
    if not candidates:
        return None
    index, (dump_kind, records) = candidates[-1]
    return _Dumps(index, dump_kind, records, foreign, bindings)


def engine_from_events(events: Sequence[Event], source: str) -> Engine | None:
    """The engine a log's layer dumps describe, or ``None`` when the log has none.

    Prefers the last inspector dump with detailed records (``--dumpLayerInfo``, or the 10.x
    builder ``Layers:`` dump), then the last ``Engine Layer Information:`` listing, then a
    names-only inspector dump. A ``{ForeignNode[a...b]}`` layer takes its ONNX nodes from the
    autotuner's ``ForeignNode ... Metadata`` line when the log has one (source ``metadata``);
    otherwise the range is expanded with the parse order of the ONNX nodes when the log has
    the parser's verbose lines.
    """
    found = _read_dumps(events)
    if found is None:
        return None
    index, dump_kind, records, foreign, bindings = found
    nodes = _node_order(events)
    order = {n: i for i, n in enumerate(nodes)} if nodes else None
    layers: list[EngineLayer] = []
    for i, record in enumerate(records):
        if isinstance(record, InspectorRecord):
            params = {k: _json_like(v) for k, v in record.parameters}
            parameter_type = params.pop("ParameterType", None)
            how: OnnxSource
            if record.onnx_layers:
                onnx, how = tuple(record.onnx_layers), "metadata"
            else:
                onnx, how = _onnx_of(record.layer, foreign, order, nodes)
            layers.append(
                EngineLayer(
                    index=i,
                    name=record.layer,
                    type=record.layer_type,
                    inputs=record.inputs,
                    outputs=record.outputs,
                    parameter_type=parameter_type,
                    parameters=params,
                    tactic=record.tactic,
                    tactic_name=record.tactic_name,
                    stream_id=record.stream_id,
                    metadata=record.metadata,
                    onnx_nodes=onnx,
                    onnx_source=how,
                )
            )
        elif isinstance(record, EngineLayerInfo):
            onnx, how = _onnx_of(record.layer, foreign, order, nodes)
            layers.append(
                EngineLayer(
                    index=i,
                    name=record.layer,
                    type=record.implementation,
                    inputs=record.inputs,
                    outputs=record.outputs,
                    tactic=record.tactic,
                    onnx_nodes=onnx,
                    onnx_source=how,
                )
            )
        else:
            onnx, how = _onnx_of(record.layer, foreign, order, nodes)
            layers.append(EngineLayer(index=i, name=record.layer, onnx_nodes=onnx, onnx_source=how))
    is_detailed = dump_kind == "listing" or any(isinstance(r, InspectorRecord) for r in records)
    regions = [
        event.layer
        for event in events
        if isinstance(event, PlacementGpu | PlacementDla | EngineLayerInfo)
        and event.layer.startswith("{ForeignNode[")
    ]
    origin: EngineOrigin = (
        "log_listing" if dump_kind == "listing" else "log_inspector" if is_detailed else "log_names"
    )
    notes = [] if is_detailed else [NAMES_ONLY_NOTE]
    if dump_kind == "inspector" and is_detailed:  # never silently empty
        untyped = {
            t.name: t.format
            for layer in layers
            for t in (*layer.inputs, *layer.outputs)
            if t.dtype is None
        }
        if untyped:
            shown = ", ".join(f"{n!r} ({f!r})" for n, f in list(untyped.items())[:3])
            more = f" and {len(untyped) - 3} more" if len(untyped) > 3 else ""
            notes.append(
                f"{len(untyped)} tensors of the layer dump have no data type: their format text "
                f"names none trtlog knows ({shown}{more}); their layers' precision is empty."
            )
    return Engine(
        source=source,
        origin=origin,
        detailed=is_detailed,
        layers=tuple(layers),
        bindings=tuple(bindings.get(index, ())),
        notes=tuple(notes),
        regions=tuple(dict.fromkeys(regions)),
    )


_PLACEMENT_NOTE = (
    "layers from the log's placement lines (`[GpuLayer] TYPE: name`, `[DlaLayer] name`): the "
    "network after graph optimization, with the layer kind the line prints (CONVOLUTION, "
    "MYELIN...) as its type but no tensors, precisions or kernels, and without the reformats "
    "and copies the builder adds later. Build with `--dumpLayerInfo "
    "--profilingVerbosity=detailed` (or pass the --exportLayerInfo JSON) for the engine's own "
    "layers."
)
_AUTOTUNED_NOTE = (
    "layers the log's autotuner timed (`Computing costs for`, `Timing Runner:`, or the TRT 5-7 "
    "`Timing name(n)` blocks): the log lists no layer dump and no placement lines, so these "
    "are the layers that reached tactic selection, names only (layers with a single tactic "
    "may be missing), without the reformats the builder adds later."
)


def engine_from_placement(events: Sequence[Event], source: str) -> Engine | None:
    """The layers a log's GPU/DLA placement lines list, for a log without a layer dump.

    ``[GpuLayer] CONVOLUTION: a + b`` and ``[DlaLayer] {ForeignNode[...]}`` (8.2+), or the 7.x
    ``Layers running on GPU: a, b`` lists; ``None`` when the log has none. The engine is
    names-only, and its note says what it lacks.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[I] [TRT] [GpuLayer] CONVOLUTION: /a/Conv + /a/Relu\\n")
        >>> [(lay.name, lay.onnx_nodes) for lay in engine_from_placement(b.events, "x").layers]
        [('/a/Conv + /a/Relu', ('/a/Conv', '/a/Relu'))]
    """
    names: dict[str, str | None] = {}  # name -> the layer kind its line prints
    for event in events:
        if isinstance(event, PlacementGpu):
            names.setdefault(event.layer, event.layer_type)
        elif isinstance(event, PlacementDla):
            names.setdefault(event.layer, None)
        elif isinstance(event, PlacementList):
            for name in event.layers:
                names.setdefault(name, None)
    if not names:
        return None
    nodes = _node_order(events)
    order = {n: i for i, n in enumerate(nodes)} if nodes else None
    layers = []
    for i, (name, kind) in enumerate(names.items()):
        onnx, how = _onnx_of(name, {}, order, nodes)
        layers.append(EngineLayer(index=i, name=name, type=kind, onnx_nodes=onnx, onnx_source=how))
    return Engine(
        source=source,
        origin="log_placement",
        detailed=False,
        layers=tuple(layers),
        notes=(_PLACEMENT_NOTE,),
        regions=tuple(n for n in names if n.startswith("{ForeignNode[")),
    )


def engine_from_autotuned(events: Sequence[Event], source: str) -> Engine | None:
    """The layers the autotuner timed (``Computing costs for <layer>``), names only.

    For a log without a layer dump and without placement lines; ``None`` when the log has no
    autotuning lines. Reformats the optimizer timed (``Optimizer Reformat(...)``) are left
    out: they are not layers of the network.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[V] [TRT] =============== Computing costs for conv1 + relu1\\n")
        >>> [lay.name for lay in engine_from_autotuned(b.events, "x").layers]
        ['conv1 + relu1']
    """
    names: dict[str, None] = {}
    for event in events:
        if isinstance(event, LayerCostsHeader | TimingRunner | LegacyTimingHeader):
            name = event.layer
            if name and not name.startswith("Optimizer Reformat("):
                names[name] = None
    if not names:
        return None
    nodes = _node_order(events)
    order = {n: i for i, n in enumerate(nodes)} if nodes else None
    layers = []
    for i, name in enumerate(names):
        onnx, how = _onnx_of(name, {}, order, nodes)
        layers.append(EngineLayer(index=i, name=name, onnx_nodes=onnx, onnx_source=how))
    return Engine(
        source=source,
        origin="log_autotuned",
        detailed=False,
        layers=tuple(layers),
        notes=(_AUTOTUNED_NOTE,),
    )


def final_layers(build: Build) -> Engine | None:
    """The engine's layers as far as a log tells them, and (``Engine.origin``) from where.

    Its layer dump first (:attr:`Build.engine`, with a ``--dumpProfile`` table merged), else
    its placement lines (:func:`engine_from_placement`), else the layers its autotuner timed
    (:func:`engine_from_autotuned`); ``None`` when the log has none of them (a build log
    without ``--verbose``). The merge graph, ``trtlog layers``, ``trtlog explain`` and the
    report all take a log's layers from here.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[I] [TRT] [GpuLayer] CONVOLUTION: /a/Conv + /a/Relu\\n")
        >>> engine = final_layers(b)
        >>> engine.origin, [(x.name, x.type) for x in engine.layers]
        ('log_placement', [('/a/Conv + /a/Relu', 'CONVOLUTION')])
    """
    engine = build.engine
    if engine is None:
        events = build.events_of(*sorted({c.model_fields["kind"].default for c in ENGINE_EVENTS}))
        engine = engine_from_placement(events, build.source.name) or engine_from_autotuned(
            events, build.source.name
        )
    if engine is None or build.trt_version is None or engine.trt_version is not None:
        return engine
    return engine.model_copy(update={"trt_version": build.trt_version})


def same_engine(a: Engine, b: Engine) -> bool:
    """Whether two descriptions list one engine: the same layer names, in the same order.

    A layer JSON and a log's layer dump of one build name every layer alike (fused names,
    reformats, ``[profile N]`` suffixes); a names-only and a detailed export of it too.
    """
    return bool(a.layers) and [x.name for x in a.layers] == [x.name for x in b.layers]


def with_log_version(engine: Engine, build: Build) -> Engine:
    """``engine`` with the TensorRT version of ``build``, a log of the same engine.

    A layer JSON carries no version (before TensorRT 11, and 11's ``Engine Metadata`` is not
    known to hold one); the log of the build that made it, or of a run that loaded it, does.
    The version is taken only when the log describes the same engine (:func:`same_engine`
    with the log's own layers, :func:`final_layers`) and prints a version; otherwise
    ``engine`` is returned as it is.
    """
    if engine.trt_version is not None or build.trt_version is None:
        return engine
    own = final_layers(build)
    if own is None or not same_engine(engine, own):
        return engine
    return engine.model_copy(update={"trt_version": build.trt_version})


class PairedVersion(NamedTuple):
    """The TensorRT version a layer JSON takes from a log of the same engine (see below).

    Attributes:
        version: the log's version.
        how: ``paired_log`` (the log lists the JSON's layers, by name and in order) or
            ``paired_log_name`` (no log lists layers; every one that prints a version prints
            this one).
        log: the log's name (``Build.source.name``).
    """

    version: tuple[int, ...]
    how: Literal["paired_log", "paired_log_name"]
    log: str


def paired_version(engine: Engine | None, logs: Sequence[Build]) -> PairedVersion | None:
    """The version of ``logs`` (logs paired with a JSON export by their names) that fits.

    The warehouse pairs a layer or profile JSON without a log of its own with the logs of the
    same folder whose name shares its stem (``m_layers.json``, ``m_build.log``,
    ``m_run-verbose.log``), and this decides. A log that lists the engine's layers
    (:func:`final_layers`, :func:`same_engine` with ``engine``) and prints a version gives
    it (``paired_log``); a log that lists other layers describes another engine and is left
    out. Without such a log, the logs that list no layers and print a version give it when
    they all print the same one (``paired_log_name``: the same TensorRT install in one
    folder, not proven by the layers; a profile without layer JSON is paired so with every
    log). ``None`` otherwise, or when ``engine`` has a version.
    """
    if engine is not None and engine.trt_version is not None:
        return None
    unlisted: list[Build] = []
    for build in logs:
        if build.trt_version is None:
            continue
        own = final_layers(build) if engine is not None else None
        if own is None or not own.layers:
            unlisted.append(build)
        elif engine is not None and same_engine(engine, own):
            return PairedVersion(build.trt_version, "paired_log", build.source.name)
    versions = {b.trt_version for b in unlisted}
    if len(versions) == 1:
        first = unlisted[0]
        assert first.trt_version is not None
        return PairedVersion(first.trt_version, "paired_log_name", first.source.name)
    return None
