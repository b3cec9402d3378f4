"""Loading trtexec's JSON exports: ``--exportProfile``, ``--exportTimes`` (and layer info).

Part of the parser (JSON side). Files are read as text (UTF-8, UTF-8/16 with BOM, ``.gz``),
parsed with the tolerant reader of :mod:`trtlog.parse.jsonio`, recognised by their shape and
turned into the models of :mod:`trtlog.layers`. A file that is not the export asked for gets
an :class:`~trtlog.errors.InputError` that names the file, says what it looks like and which
loader reads it.
"""

from __future__ import annotations

import codecs
import gzip
import operator
import os
import sys
import warnings
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from trtlog._pydantic import assemble, gc_paused
from trtlog.engine import merge_profile
from trtlog.errors import InputError
from trtlog.layers import (
    Engine,
    EngineLayer,
    IoProfile,
    IoTensor,
    Profile,
    ProfileRecord,
    ProfileRun,
    Times,
    TimingRecord,
    TimingRun,
)
from trtlog.names import OnnxSource, onnx_nodes_of_name, parse_metadata
from trtlog.numbers import parse_tactic
from trtlog.parse.jsonio import read_json_values
from trtlog.parse.source import looks_utf16
from trtlog.performance import performances
from trtlog.tensors import Tensor, dtype_of, inspector_tensor, parse_format

__all__ = [
    "JsonInput",
    "JsonKind",
    "LayerInfoWarning",
    "detect_kind",
    "engine_from_events",
    "engine_from_json",
    "engine_from_placement",
    "load_engine",
    "load_profile",
    "load_times",
    "profile_from_events",
    "profile_from_json",
    "read_json_bytes",
    "read_json_file",
    "times_from_json",
    "wrong_kind",
]


JsonKind = Literal["layers", "profile", "times", "output", "trace", "unknown"]

_LOADER = {
    "layers": "trtlog.load_engine (or `trtlog layers FILE`)",
    "profile": "trtlog.load_profile (or `trtlog layers FILE`)",
    "times": "trtlog.load_times (or `trtlog layers FILE`)",
    "output": "nothing in trtlog yet (it holds output tensor values, not timings)",
    "trace": "nothing in trtlog: it holds per-layer totals without the iteration count; have "
    "Torch-TensorRT write its profile in the TREx format (profile_format='trex', the "
    "default), which trtlog.load_profile reads",
}
_DESCRIPTION = {
    "layers": "a layer-info export (--exportLayerInfo)",
    "profile": "a per-layer profile (--exportProfile)",
    "times": "a timing trace (--exportTimes)",
    "output": "an output dump (--exportOutput)",
    "trace": "a Chrome/Perfetto trace (Torch-TensorRT profile_format='perfetto')",
    "unknown": "JSON of no trtexec export shape",
}
_TIMES_KEYS = {"computeMs", "latencyMs", "startComputeMs", "endComputeMs"}


#: What the JSON loaders take.
JsonInput = str | os.PathLike[str] | bytes


def read_json_file(path: JsonInput) -> tuple[str, list[Any]]:
    """The name and top-level JSON values of an export file (``.gz`` allowed).

    ``path`` is a path, ``"-"`` for standard input, or the file's bytes.

    Raises:
        InputError: missing, empty, binary or not JSON.
        TypeError: ``path`` is none of these.
    """
    if isinstance(path, bytes | bytearray):
        name, raw = "<bytes>", bytes(path)
    elif not isinstance(path, str | os.PathLike):
        raise TypeError(
            "trtlog.load_engine, load_profile and load_times take a path to a JSON export "
            f"(str or os.PathLike; .gz too), '-' for standard input or its bytes, not "
            f"{type(path).__name__}"
        )
    elif os.fspath(path) == "-":
        name, raw = "<stdin>", sys.stdin.buffer.read()
    else:
        name = os.fspath(path)
        p = Path(name)
        if not p.is_file():
            raise InputError(
                "no such file" if not p.exists() else "this is not a file",
                source=name,
                hint="check the path (relative to the working folder)",
            )
        raw = p.read_bytes()
    return read_json_bytes(raw, name)


def read_json_bytes(raw: bytes, name: str) -> tuple[str, list[Any]]:
    """The top-level JSON values of an export's bytes (gzip, a BOM and UTF-16 allowed).

    Raises:
        InputError: empty, binary or not JSON.
    """
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputError(f"the gzip file cannot be read ({exc})", source=name) from None
    if raw.startswith(codecs.BOM_UTF8):
        text = raw[3:].decode("utf-8", errors="replace")
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = raw.decode("utf-16", errors="replace")
    elif utf16 := looks_utf16(raw[:4096]):  # UTF-16 without a BOM: its NUL pattern
        text = raw.decode(utf16, errors="replace")
    else:
        if b"\x00" in raw[:4096]:
            raise InputError(
                "this is a binary file, not a JSON export",
                source=name,
                hint="pass the .json file trtexec wrote with --exportLayerInfo, "
                "--exportProfile or --exportTimes",
            )
        text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        raise InputError("the file is empty", source=name, hint="re-run trtexec with the export")
    first = text.lstrip()[:1]
    if first not in ("{", "["):
        raise InputError(
            f"this is not JSON (it starts with {text.lstrip()[:30]!r})",
            source=name,
            line=1,
            hint="logs are read with trtlog.parse; JSON exports with load_engine, "
            "load_profile or load_times",
        )
    try:
        return name, read_json_values(text, source=name)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        column = getattr(exc, "colno", None)
        raise InputError(
            f"the file is not JSON even after repairing what trtexec writes ({exc})",
            source=name,
            line=line if isinstance(line, int) else None,
            column=column if isinstance(column, int) else None,
            hint="the file may be truncated; re-export it",
        ) from None


def detect_kind(value: Any) -> JsonKind:
    """Which trtexec export a parsed JSON value looks like.

    Example:
        >>> detect_kind([{"count": 3}, {"name": "a", "timeMs": 1}])
        'profile'
        >>> detect_kind({"Layers": ["a", "b"], "Bindings": ["x"]})
        'layers'
    """
    if isinstance(value, dict):
        if "Layers" in value or "layers" in value:
            return "layers"
        return "unknown"
    if not isinstance(value, list) or not value:
        return "unknown"
    items = [v for v in value if isinstance(v, dict)]
    if all(isinstance(v, str) for v in value):
        return "layers"
    if items and any("timeMs" in v or "averageMs" in v for v in items):
        return "profile"
    if items and len(items) == 1 and set(items[0]) == {"count"}:
        return "profile"
    if items and any(_TIMES_KEYS & set(v) for v in items):
        return "times"
    if items and all("values" in v and "name" in v for v in items):
        return "output"
    if items and all("ph" in v and "dur" in v for v in items):
        return "trace"
    if items and all("Name" in v and ("LayerType" in v or "Inputs" in v) for v in items):
        return "layers"
    return "unknown"


def wrong_kind(name: str, found: JsonKind, wanted: JsonKind) -> InputError:
    """The error for a JSON export of another kind than the one asked for (says what reads it)."""
    hint = f"read it with {_LOADER[found]}" if found in _LOADER else None
    return InputError(
        f"this is {_DESCRIPTION[found]}, not {_DESCRIPTION[wanted]}", source=name, hint=hint
    )


def _float(value: Any) -> float:
    if type(value) is float:  # fast path
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


_PROFILE_KEYS = frozenset(("name", "timeMs", "averageMs", "medianMs", "percentage"))
_PROFILE_FIELDS_SET = frozenset(ProfileRecord.model_fields)


@gc_paused()
def load_profile(path: JsonInput) -> Profile:
    """Read an ``--exportProfile`` file (any version; 7.x files with one array per run too).

    Use ``profile.records`` (first run), ``profile.iterations`` and ``profile.total_ms``.

    Raises:
        InputError: the file is missing, not JSON, or another kind of export.
    """
    name, values = read_json_file(path)
    return profile_from_json(values, name)


def profile_from_json(values: Sequence[Any], name: str) -> Profile:
    """A :class:`Profile` from the top-level JSON values of an ``--exportProfile`` file.

    Raises:
        InputError: a value is another kind of export, or an entry is malformed.
    """
    nan = float("nan")
    runs = []
    for value in values:
        kind = detect_kind(value)
        if kind != "profile":
            raise wrong_kind(name, kind, "profile")
        iterations: int | None = None
        records = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise InputError(f"profile entry {i} is not an object", source=name)
            try:
                if len(item) == 1 and "count" in item:
                    iterations = int(item["count"])
                    continue
                known: dict[str, Any] = {
                    "name": str(item["name"]),
                    "time_ms": _float(item["timeMs"]),
                    "average_ms": _float(item["averageMs"]),
                    "median_ms": _float(item["medianMs"]) if "medianMs" in item else None,
                    "percentage": _float(item.get("percentage", nan)),
                }
            except (KeyError, TypeError, ValueError, OverflowError) as exc:
                raise InputError(
                    f"profile entry {i} ({str(item)[:80]}) lacks or garbles {exc}",
                    source=name,
                    hint="expected name, timeMs, averageMs, percentage (and medianMs 8.4+)",
                ) from None
            # name, timeMs and averageMs are there (read above); a record with only the
            # known keys (the usual case) needs no set difference
            known_keys = 3 + ("medianMs" in item) + ("percentage" in item)
            unknown = item.keys() - _PROFILE_KEYS if len(item) != known_keys else ()
            extra = {k: item[k] for k in item if k in unknown} if unknown else {}
            records.append(assemble(ProfileRecord, known, extra, _PROFILE_FIELDS_SET))
        runs.append(ProfileRun(iterations=iterations, records=tuple(records)))
    return Profile(source=name, runs=tuple(runs))


# key in the file → field of TimingRecord, per key set (formats.md JSON-1)
_TIMES_8 = {
    "startEnqMs": "enqueue_start_ms",
    "endEnqMs": "enqueue_end_ms",
    "startH2dMs": "h2d_start_ms",
    "endH2dMs": "h2d_end_ms",
    "startComputeMs": "compute_start_ms",
    "endComputeMs": "compute_end_ms",
    "startD2hMs": "d2h_start_ms",
    "endD2hMs": "d2h_end_ms",
    "h2dMs": "h2d_ms",
    "computeMs": "compute_ms",
    "d2hMs": "d2h_ms",
    "latencyMs": "latency_ms",
    "endToEndMs": "end_to_end_ms",
}
_TIMES_7 = {
    "startInMs": "h2d_start_ms",
    "endInMs": "h2d_end_ms",
    "startComputeMs": "compute_start_ms",
    "endComputeMs": "compute_end_ms",
    "startOutMs": "d2h_start_ms",
    "endOutMs": "d2h_end_ms",
    "inMs": "h2d_ms",
    "computeMs": "compute_ms",
    "outMs": "d2h_ms",
    "latencyMs": "latency_ms",
    "endToEndMs": "end_to_end_ms",
}
# 7.1/7.2 write the input-copy times under the Enq keys and the enqueue times under In keys
_TIMES_71 = {
    **_TIMES_7,
    "startEnqMs": "h2d_start_ms",
    "endEnqMs": "h2d_end_ms",
    "startInMs": "enqueue_start_ms",
    "endInMs": "enqueue_end_ms",
}


def _times_keys(item: dict[str, Any]) -> tuple[Literal["7.0", "7.1", "8.0", "8.4"], dict[str, str]]:
    if "startH2dMs" in item or "h2dMs" in item:
        return ("8.0" if "endToEndMs" in item else "8.4"), _TIMES_8
    if "startEnqMs" in item:
        return "7.1", _TIMES_71
    return "7.0", _TIMES_7


@gc_paused()
def load_times(path: JsonInput) -> Times:
    """Read an ``--exportTimes`` file (all four key sets; one array per run too).

    Field names are version-independent (:class:`~trtlog.layers.TimingRecord`); the swapped
    enqueue/input values of 7.1/7.2 files are put back where they belong.

    Raises:
        InputError: the file is missing, not JSON, or another kind of export.
    """
    name, values = read_json_file(path)
    return times_from_json(values, name)


def times_from_json(values: Sequence[Any], name: str) -> Times:
    """A :class:`Times` from the top-level JSON values of an ``--exportTimes`` file.

    Raises:
        InputError: a value is another kind of export, or an entry is malformed.
    """
    runs = []
    for value in values:
        kind = detect_kind(value)
        if kind != "times" and not (isinstance(value, list) and not value):
            raise wrong_kind(name, kind, "times")
        records = []
        keys: Literal["7.0", "7.1", "8.0", "8.4"] = "8.4"
        mapping = _TIMES_8
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise InputError(f"timing entry {i} is not an object", source=name)
            if i == 0:
                keys, mapping = _times_keys(item)
            fields: dict[str, Any] = {}
            for key, raw in item.items():
                field = mapping.get(key) or str(key)
                try:
                    fields[field] = _float(raw)
                except (TypeError, ValueError):
                    fields[field] = raw
            try:
                records.append(TimingRecord(**fields))
            except ValidationError as exc:
                raise InputError(
                    f"timing entry {i}: {exc.errors()[0]['msg']}", source=name
                ) from None
        runs.append(TimingRun(keys=keys, records=tuple(records)))
    return Times(source=name, runs=tuple(runs))


# -- layer info (engines) ------------------------------------------------------------------

_NAMES_ONLY_NOTE = (
    "names-only engine (built with the default profiling verbosity): layers have names, and "
    "the fused ONNX nodes their names list, but no types, tensors, formats, tactics or "
    "metadata. Rebuild with `trtexec --profilingVerbosity=detailed --exportLayerInfo=...` to "
    "get precisions, layouts, kernels and the exact ONNX nodes of every layer."
)
# keys of a layer object that have a field of their own (camelCase ones are the 8.2/8.5
# developer-guide spelling); every other key goes to EngineLayer.parameters
_LAYER_KEYS = {
    "Name": "name",
    "name": "name",
    "LayerType": "type",
    "layerType": "type",
    "Inputs": "inputs",
    "inputs": "inputs",
    "Outputs": "outputs",
    "outputs": "outputs",
    "ParameterType": "parameter_type",
    "parameterType": "parameter_type",
    "TacticName": "tactic_name",
    "tacticName": "tactic_name",
    "TacticValue": "tactic",
    "tacticValue": "tactic",
    "StreamId": "stream_id",
    "streamId": "stream_id",
    "Metadata": "metadata",
    "metadata": "metadata",
}
_TENSOR_KEYS = {
    "Name",
    "name",
    "Location",
    "location",
    "Dimensions",
    "dimensions",
    "Format/Datatype",
    "format/datatype",
    # TensorRT 11 split "Format/Datatype" into a type and a format, and may add strides
    "Datatype",
    "DataType",
    "datatype",
    "dataType",
    "Format",
    "format",
    "Strides",
    "strides",
    "StrideOrder",
    "strideOrder",
}


class LayerInfoWarning(UserWarning):
    """A layer-info export holds what trtlog cannot read in full: the message names the key.

    The same sentence is in the engine's ``notes``; the values stay on the models (unknown
    keys as extras), so nothing is dropped, but a frame column may be empty because of it.
    """


def _get(obj: dict[str, Any], key: str, alternate: str) -> Any:
    value = obj.get(key)
    return obj.get(alternate) if value is None else value


def _first(obj: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value = obj.get(key)
        if value is not None:
            return value
    return None


@lru_cache(maxsize=4096)
def _clean_format(text: str) -> str:
    """A ``Format/Datatype`` text without its trailing period and blanks."""
    return text.rstrip(".").strip()


def _int_tuple(raw: Any, what: str) -> tuple[int, ...] | None:
    """A list of integers from the JSON (``None`` stays ``None``); a clear error otherwise."""
    if raw is None:
        return None
    try:
        if type(raw) is list:
            values = tuple(map(int, raw))
            if values != tuple(raw):  # 1.5 -> 1 would be a lie; "12" -> 12 is not
                for value, whole in zip(raw, values, strict=True):
                    if not isinstance(value, str) and value != whole:
                        raise ValueError
            return values
    except (TypeError, ValueError, OverflowError):  # OverflowError: inf (a repaired file)
        pass
    raise ValueError(f"has {what} that are not integers: {raw!r:.60}")


# the keys of a TensorRT 11 tensor object with strides, in the order tensor() unpacks them
_GET_11_STRIDED = operator.itemgetter(
    "Name", "Dimensions", "Location", "Format", "Datatype", "Strides", "StrideOrder"
)
_GET_11 = operator.itemgetter("Name", "Dimensions", "Location", "Format", "Datatype")


def _ints(values: tuple[Any, ...], raw: Any, what: str) -> tuple[int, ...]:
    """``values`` (a tuple of the JSON list ``raw``) as integers; a clear error otherwise."""
    try:
        ints = tuple(map(int, values))
        if ints == values:  # the usual case: ints already (or equal floats, 1.0 == 1)
            return ints
    except (TypeError, ValueError, OverflowError):
        pass
    result = _int_tuple(raw, what)  # strings of digits convert; anything else raises
    assert result is not None
    return result


class _TensorReader:
    """Reads the tensor objects of one layer JSON.

    A tensor one layer writes and the next reads appears twice in the JSON; equal objects
    (same name, dims, format and location, no extra keys) become one :class:`Tensor`. Both
    shapes of the tensor object are read: ``Format/Datatype`` (8.2 - 10.x) and TensorRT 11's
    ``Datatype`` + ``Format`` (+ ``Strides``, ``StrideOrder``). What the reader cannot type
    is counted (tensors without a data type, keys it does not know) for the engine's notes.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.seen: dict[tuple[Any, ...], Tensor] = {}
        #: 11.x tensors with strides: (name, format, location, datatype, dims) -> the tensor
        #: and the Strides/StrideOrder lists it was made from (compared as lists on a hit, which
        #: is cheaper than making and hashing tuples of them)
        self.strided: dict[tuple[Any, ...], tuple[Tensor, Any, Any]] = {}
        #: distinct tensors without a data type: (name, the key and text that named none)
        self.untyped: list[tuple[str, str | None, str | None]] = []
        #: unknown tensor keys -> how many tensor objects carry them
        self.unknown: dict[str, int] = {}
        #: how many distinct tensors had each shape ("Format/Datatype" or "Datatype")
        self.shapes: dict[str, int] = {}

    def read(self, items: Any, index: int, key: str) -> tuple[Tensor, ...]:
        """The tensors of ``Layers[index].<key>`` (``Inputs`` or ``Outputs``)."""
        if not items:
            return ()
        if type(items) is not list:
            raise InputError(f"Layers[{index}].{key} is not a list of tensors", source=self.source)
        tensor = self.tensor
        try:
            if len(items) == 1:
                return (tensor(items[0]),)
            return tuple([tensor(obj) for obj in items])
        except (TypeError, ValueError):
            for i, obj in enumerate(items):  # the slow path names the culprit
                try:
                    tensor(obj)
                except (TypeError, ValueError) as exc:
                    raise InputError(
                        f"Layers[{index}].{key}[{i}] {exc}", source=self.source
                    ) from None
            raise  # pragma: no cover - the loop above raises

    def tensor(self, obj: Any) -> Tensor:
        if type(obj) is not dict:
            raise TypeError(f"is not a tensor object: {str(obj)[:60]}")
        # TensorRT 11's objects, as trtexec writes them, take a fast path: one C call reads
        # all their keys (seven dict.get calls cost more than the rest of a cache hit); the
        # 8.2 - 10.x object and anything unusual take the general one
        if len(obj) == 7:  # with Strides and StrideOrder
            try:
                name, dims_raw, location, fmt, datatype, strides_raw, order_raw = _GET_11_STRIDED(
                    obj
                )
            except KeyError:
                return self._general(obj)
            if (
                type(name) is str
                and type(dims_raw) is list
                and type(fmt) is str
                and type(datatype) is str
                and type(location) is str
                and type(strides_raw) is list
                and type(order_raw) is list
            ):
                dims_key = tuple(dims_raw)
                key = (name, fmt, location, datatype, dims_key)
                try:
                    found = self.strided.get(key)
                except TypeError:  # an unhashable number: the general path names it
                    return self._general(obj)
                if found is not None and found[1] == strides_raw and found[2] == order_raw:
                    return found[0]
                tensor = self._make(
                    name,
                    _ints(dims_key, dims_raw, "dimensions"),
                    _clean_format(fmt),
                    location,
                    {},
                    datatype,
                    _ints(tuple(strides_raw), strides_raw, "strides"),
                    _ints(tuple(order_raw), order_raw, "stride order"),
                    "Datatype",
                    fmt,
                )
                self.strided[key] = (tensor, strides_raw, order_raw)
                return tensor
        elif len(obj) == 5:  # the TensorRT 11 object without strides
            try:
                name, dims_raw, location, fmt, datatype = _GET_11(obj)
            except KeyError:
                return self._general(obj)
            if (
                type(name) is str
                and type(dims_raw) is list
                and type(fmt) is str
                and type(datatype) is str
                and type(location) is str
            ):
                dims_key = tuple(dims_raw)
                key = (name, fmt, location, datatype, dims_key)
                try:
                    cached = self.seen.get(key)
                except TypeError:  # an unhashable number: the general path names it
                    return self._general(obj)
                if cached is not None:
                    return cached
                tensor = self._make(
                    name,
                    _ints(dims_key, dims_raw, "dimensions"),
                    _clean_format(fmt),
                    location,
                    {},
                    datatype,
                    None,
                    None,
                    "Datatype",
                    fmt,
                )
                self.seen[key] = tensor
                return tensor
        return self._general(obj)

    def _general(self, obj: dict[str, Any]) -> Tensor:
        """A tensor object of either shape (the cache misses of the strided 11.x one too)."""
        get = obj.get
        name: Any = get("Name")
        dims_raw: Any = get("Dimensions")
        location: Any = get("Location")
        # four keys: the 8.2 - 10.x object; five or seven: TensorRT 11 (a missing key falls
        # through to the other shape, then to _build)
        n = len(obj)
        datatype = strides_raw = order_raw = None
        if n > 4 and (datatype := get("Datatype")) is not None:
            fmt = None
        else:
            fmt = get("Format/Datatype")
        if fmt is not None:
            # plain (8.2 - 10.x): exactly these four keys, as trtexec writes them; such
            # objects repeat (one layer's output is the next one's input) and become one Tensor
            plain = (
                n == 4
                and type(name) is str
                and type(dims_raw) is list
                and type(fmt) is str
                and type(location) is str
            )
            key: tuple[Any, ...] = (name, fmt, location)
        else:
            if datatype is None:
                datatype = get("Datatype")
            fmt = get("Format")
            if n != 5:  # five keys: no strides (and no room for them)
                strides_raw, order_raw = get("Strides"), get("StrideOrder")
            # plain (11.x): Name, Dimensions, Location, Datatype, Format and, where printed,
            # Strides and StrideOrder: nothing else
            plain = (
                n == 5 + (strides_raw is not None) + (order_raw is not None)
                and type(name) is str
                and type(dims_raw) is list
                and type(fmt) is str
                and type(datatype) is str
                and type(location) is str
                and (strides_raw is None or type(strides_raw) is list)
                and (order_raw is None or type(order_raw) is list)
            )
            key = (name, fmt, location, datatype)
        if not plain:
            return self._build(obj)
        # the cache key holds the numbers as written: equal numbers convert alike (1.0 and 1
        # both to 1), and a miss converts and checks them below
        dims_key = tuple(dims_raw)
        key += (dims_key,)
        strides_key = order_key = None
        if strides_raw is not None or order_raw is not None:
            try:
                found = self.strided.get(key)
            except TypeError:  # an unhashable number: the conversion below names it
                found = None
            if found is not None and found[1] == strides_raw and found[2] == order_raw:
                return found[0]
            strides_key = None if strides_raw is None else tuple(strides_raw)
            order_key = None if order_raw is None else tuple(order_raw)
            tensor = None
        else:
            try:
                tensor = self.seen.get(key)
            except TypeError:  # an unhashable number: the conversion below names it
                tensor = None
        if tensor is None:
            tensor = self._make(
                name,
                _ints(dims_key, dims_raw, "dimensions"),
                _clean_format(fmt),
                location,
                {},
                datatype,
                None if strides_key is None else _ints(strides_key, strides_raw, "strides"),
                None if order_key is None else _ints(order_key, order_raw, "stride order"),
                "Format/Datatype" if datatype is None else "Datatype",
                fmt,
            )
            if strides_key is None and order_key is None:
                self.seen[key] = tensor
            else:
                self.strided[key] = (tensor, strides_raw, order_raw)
        return tensor

    def _build(self, obj: dict[str, Any]) -> Tensor:
        """A tensor object of an unusual shape: missing or unknown keys, lower-case keys."""
        name = _first(obj, "Name", "name")
        location = _first(obj, "Location", "location")
        combined = _first(obj, "Format/Datatype", "format/datatype")
        datatype = _first(obj, "Datatype", "DataType", "datatype", "dataType")
        fmt = combined if combined is not None else _first(obj, "Format", "format")
        unknown = obj.keys() - _TENSOR_KEYS
        extra = {k: obj[k] for k in obj if k in unknown} if unknown else {}
        for k in extra:
            self.unknown[k] = self.unknown.get(k, 0) + 1
        return self._make(
            str(name or ""),
            _int_tuple(_first(obj, "Dimensions", "dimensions"), "dimensions"),
            _clean_format(str(fmt)) if fmt is not None else None,
            None if location is None else str(location),
            extra,
            None if datatype is None else str(datatype),
            _int_tuple(_first(obj, "Strides", "strides"), "strides"),
            _int_tuple(_first(obj, "StrideOrder", "strideOrder"), "stride order"),
            "Format/Datatype" if combined is not None else "Datatype",
            combined,
        )

    def _make(
        self,
        name: str,
        dims: tuple[int, ...] | None,
        fmt: str | None,
        location: str | None,
        extra: dict[str, Any],
        datatype: str | None,
        strides: tuple[int, ...] | None,
        order: tuple[int, ...] | None,
        shape: str,
        combined: str | None,
    ) -> Tensor:
        tensor = inspector_tensor(
            name, dims, fmt, location, extra, datatype=datatype, strides=strides, stride_order=order
        )
        self.shapes[shape] = self.shapes.get(shape, 0) + 1
        if tensor.dtype is None:
            if datatype is not None:
                self.untyped.append((name, "Datatype", datatype))
            elif combined is not None:
                self.untyped.append((name, "Format/Datatype", combined))
            else:
                self.untyped.append((name, None, None))
        return tensor

    def notes(self, warn: bool = True) -> list[str]:
        """What the engine's notes must say about its tensors (and warn with, by default)."""
        out = []
        if self.untyped:
            n = len(self.untyped)
            total = sum(self.shapes.values())
            by_key: dict[str | None, list[tuple[str, str | None, str | None]]] = {}
            for item in self.untyped:
                by_key.setdefault(item[1], []).append(item)
            parts = []
            for key, items in by_key.items():
                names = ", ".join(repr(i[0]) for i in items[:3])
                more = f" and {len(items) - 3} more" if len(items) > 3 else ""
                if key is None:
                    parts.append(
                        f"{len(items)} have no 'Format/Datatype', 'Datatype' or 'Format' key "
                        f"({names}{more}; an engine with dynamic shapes inspected without an "
                        "execution context prints no formats)"
                    )
                else:
                    values = ", ".join(dict.fromkeys(repr(i[2]) for i in items))
                    parts.append(
                        f"{len(items)} have a '{key}' value that names no data type trtlog "
                        f"knows ({values}: {names}{more})"
                    )
            out.append(
                f"{n} of {total} tensors have no data type: {'; '.join(parts)}. Their layers' "
                "precision and the dtype columns are empty for them."
            )
        if self.unknown:
            keys = ", ".join(f"'{k}' ({c})" for k, c in sorted(self.unknown.items()))
            out.append(
                f"tensor objects carry keys trtlog does not know: {keys}; the values are kept "
                "on each tensor (Tensor.model_extra) but not read."
            )
        if warn:
            for note in out:
                warnings.warn(f"{self.source}: {note}", LayerInfoWarning, stacklevel=4)
        return out


def _typed(fields: dict[str, Any]) -> bool:
    """Whether the scalar fields of a layer have the types :class:`EngineLayer` declares."""
    for key in ("type", "parameter_type", "tactic_name", "metadata"):
        value = fields.get(key)
        if value is not None and type(value) is not str:
            return False
    stream = fields.get("stream_id")
    return stream is None or type(stream) is int


_LAYER_FIELDS_SET = frozenset(EngineLayer.model_fields)
# every field of a layer read from JSON, in field order, with what a missing key means
_LAYER_TEMPLATE: dict[str, Any] = {
    "index": 0,
    "name": "",
    "type": None,
    "inputs": None,
    "outputs": None,
    "parameter_type": None,
    "parameters": None,
    "tactic": None,
    "tactic_name": None,
    "stream_id": None,
    "metadata": None,
    "onnx_nodes": (),
    "onnx_source": "none",
    "time": None,
}


def _layer_from_json(
    obj: Any,
    index: int,
    reader: _TensorReader,
    node_order: dict[str, int] | None,
    nodes: list[str] | None,
) -> EngineLayer:
    if type(obj) is str:
        onnx, source = onnx_nodes_of_name(obj, node_order, nodes)
        return EngineLayer(index=index, name=obj, onnx_nodes=onnx, onnx_source=source)
    if not isinstance(obj, dict):
        raise InputError(
            f"Layers[{index}] is neither a name nor a layer object", source=reader.source
        )
    # the JSON's values go straight into the field dict (in field order, from the template);
    # every key without a field of its own goes to parameters, in the JSON's order
    data = _LAYER_TEMPLATE.copy()
    parameters: dict[str, Any] = {}
    field_of = _LAYER_KEYS.get
    for key, value in obj.items():
        field = field_of(key)
        if field is None:
            parameters[key] = value
        else:
            data[field] = value
    data["index"] = index
    data["parameters"] = parameters
    data["name"] = layer_name = str(data["name"])
    data["inputs"] = reader.read(data["inputs"], index, "Inputs")
    data["outputs"] = reader.read(data["outputs"], index, "Outputs")
    tactic_raw = data["tactic"]
    try:
        data["tactic"] = parse_tactic(str(tactic_raw)) if tactic_raw not in (None, "") else None
    except ValueError as exc:
        raise InputError(f"Layers[{index}].TacticValue: {exc}", source=reader.source) from None
    metadata = data["metadata"]
    names = parse_metadata(metadata)[0] if metadata and type(metadata) is str else ()
    if names:
        data["onnx_nodes"], data["onnx_source"] = names, "metadata"
    else:
        data["onnx_nodes"], data["onnx_source"] = onnx_nodes_of_name(layer_name, node_order, nodes)
    if _typed(data):
        return assemble(EngineLayer, data, {}, _LAYER_FIELDS_SET)
    try:  # validation converts what it can (a numeric StreamId string) and names the rest
        return EngineLayer(**data)
    except ValidationError as exc:
        err = exc.errors()[0]
        path = ".".join(str(p) for p in err["loc"])
        raise InputError(f"Layers[{index}].{path}: {err['msg']}", source=reader.source) from None


# top-level keys of a layer-info export that trtlog reads or knows (kept in Engine.extras when
# they have no field): TensorRT 11 adds "I/O Tensors" (replacing "Bindings"), "Engine
# Metadata" and "ProfilingVerbosity"
_TOP_KEYS = frozenset(
    (
        "Layers",
        "layers",
        "Bindings",
        "bindings",
        "I/O Tensors",
        "Engine Metadata",
        "ProfilingVerbosity",
    )
)
_IO_KEYS = frozenset(
    (
        "Name",
        "IOMode",
        "DataType",
        "Datatype",
        "Dimensions",
        "Location",
        "IsShapeInferenceIO",
        "ProfileInfo",
    )
)
_PROFILE_INFO_KEYS = frozenset(("MinShape", "OptShape", "MaxShape", "Format"))
_IO_FIELDS_SET = frozenset(IoTensor.model_fields)
_IO_PROFILE_FIELDS_SET = frozenset(IoProfile.model_fields)


def _io_tensors(raw: Any, source: str, unknown: dict[str, int]) -> tuple[IoTensor, ...]:
    """The ``I/O Tensors`` list of a TensorRT 11 export (unknown keys counted in ``unknown``)."""
    if raw is None:
        return ()
    if type(raw) is not list:
        raise InputError("'I/O Tensors' is not a list of tensor objects", source=source)
    out = []
    for i, obj in enumerate(raw):
        where = f"I/O Tensors[{i}]"
        if type(obj) is not dict:
            raise InputError(f"{where} is not a tensor object: {str(obj)[:60]}", source=source)
        for k in obj.keys() - _IO_KEYS:
            unknown[f"I/O Tensors: {k}"] = unknown.get(f"I/O Tensors: {k}", 0) + 1
        try:
            dims = _int_tuple(obj.get("Dimensions"), "dimensions")
        except ValueError as exc:
            raise InputError(f"{where}.Dimensions {exc}", source=source) from None
        mode_raw = obj.get("IOMode")
        mode = str(mode_raw).lower() if mode_raw is not None else None
        data_type = _first(obj, "DataType", "Datatype")
        dtype = dtype_of(str(data_type)) if data_type is not None else None
        shape_io = obj.get("IsShapeInferenceIO")
        profiles = []
        infos = obj.get("ProfileInfo") or ()
        if type(infos) is not list:
            raise InputError(f"{where}.ProfileInfo is not a list", source=source)
        for j, info in enumerate(infos):
            if type(info) is not dict:
                raise InputError(f"{where}.ProfileInfo[{j}] is not an object", source=source)
            for k in info.keys() - _PROFILE_INFO_KEYS:
                name = f"I/O Tensors: ProfileInfo: {k}"
                unknown[name] = unknown.get(name, 0) + 1
            shapes: dict[str, tuple[int, ...] | None] = {}
            for key in ("MinShape", "OptShape", "MaxShape"):
                try:
                    shapes[key] = _int_tuple(info.get(key), "a shape")
                except ValueError as exc:
                    raise InputError(
                        f"{where}.ProfileInfo[{j}].{key} {exc}", source=source
                    ) from None
            text = info.get("Format")
            fmt = parse_format(_clean_format(str(text))) if text is not None else None
            row: dict[str, Any] = {
                "min_shape": shapes["MinShape"],
                "opt_shape": shapes["OptShape"],
                "max_shape": shapes["MaxShape"],
                "format": None if text is None else str(text),
                "layout": fmt.layout if fmt else None,
                "vector_width": fmt.vector_width if fmt else None,
            }
            extra = {k: info[k] for k in info if k not in _PROFILE_INFO_KEYS}
            profiles.append(assemble(IoProfile, row, extra, _IO_PROFILE_FIELDS_SET))
        data: dict[str, Any] = {
            "name": str(obj.get("Name", "")),
            "mode": mode if mode in ("input", "output") else None,
            "io_mode": None if mode_raw is None else str(mode_raw),
            "dtype": dtype,
            "data_type": None if data_type is None else str(data_type),
            "dims": dims,
            "location": None if obj.get("Location") is None else str(obj["Location"]),
            "shape_inference": shape_io if type(shape_io) is bool else None,
            "profiles": tuple(profiles),
        }
        extra = {k: obj[k] for k in obj if k not in _IO_KEYS}
        out.append(assemble(IoTensor, data, extra, _IO_FIELDS_SET))
    return tuple(out)


def engine_from_json(
    value: Any,
    source: str,
    *,
    node_order: list[str] | None = None,
    warn: bool = True,
) -> Engine:
    """An :class:`Engine` from a parsed layer-info JSON value (see :func:`load_engine`).

    Reads both shapes of the export: ``Bindings`` and ``Format/Datatype`` (8.2 - 10.x) and
    TensorRT 11's ``I/O Tensors`` and split ``Datatype``/``Format`` keys. Tensors left without a
    data type and keys trtlog does not know are listed in the engine's notes and, with
    ``warn`` (the default), in a :class:`LayerInfoWarning` naming the key.

    Raises:
        InputError: the value is not a layer-info export.
    """
    unknown: dict[str, int] = {}
    if isinstance(value, dict):
        layers_raw = value.get("Layers", value.get("layers"))
        bindings_raw = value.get("Bindings", value.get("bindings", ()))
        io_tensors = _io_tensors(value.get("I/O Tensors"), source, unknown)
        extras = {k: v for k, v in value.items() if k not in _COMPONENT_KEYS}
        for k in value.keys() - _TOP_KEYS:
            unknown[f"top level: {k}"] = 1
    else:
        layers_raw, bindings_raw, extras, io_tensors = value, (), {}, ()
    if not isinstance(layers_raw, list):
        raise InputError(
            "this JSON has no Layers list", source=source, hint="pass an --exportLayerInfo file"
        )
    order = {n: i for i, n in enumerate(node_order)} if node_order else None
    reader = _TensorReader(source)
    layers = tuple(
        [_layer_from_json(obj, i, reader, order, node_order) for i, obj in enumerate(layers_raw)]
    )
    detailed = any(isinstance(obj, dict) for obj in layers_raw)
    notes = [] if detailed or not layers else [_NAMES_ONLY_NOTE]
    notes += reader.notes(warn=False)
    if unknown:
        keys = ", ".join(f"'{k}'" for k in sorted(unknown))
        notes.append(
            f"the export has keys trtlog does not know: {keys}; their values are kept "
            "(Engine.extras, IoTensor.model_extra) but not read."
        )
    if warn:
        for note in notes[1:] if notes and notes[0] is _NAMES_ONLY_NOTE else notes:
            warnings.warn(f"{source}: {note}", LayerInfoWarning, stacklevel=3)
    bindings = tuple(str(b) for b in bindings_raw or ())
    if not bindings and io_tensors:
        bindings = tuple(t.name for t in io_tensors)  # what "Bindings" listed before 11
    return Engine(
        source=source,
        origin="layer_json",
        detailed=detailed,
        layers=layers,
        bindings=bindings,
        io_tensors=io_tensors,
        notes=tuple(notes),
        extras=extras,
    )


# the keys the Engine holds in a field of its own (the rest go to Engine.extras)
_COMPONENT_KEYS = frozenset(("Layers", "layers", "Bindings", "bindings", "I/O Tensors"))


@gc_paused()
def load_engine(
    path: JsonInput,
    profile: str | os.PathLike[str] | Profile | None = None,
    times: str | os.PathLike[str] | Times | None = None,
) -> Engine:
    """Read an ``--exportLayerInfo`` file and optionally merge a profile and a timing trace.

    The file may be names-only or detailed (8.2 → 11), or the JSON of ``IEngineInspector``.

    Args:
        path: the layer-info JSON: a path (``.gz`` too), ``"-"`` for standard input, or the
            file's bytes.
        profile: an ``--exportProfile`` file (or a loaded :class:`Profile`) to merge onto the
            layers (see :meth:`Engine.with_profile`).
        times: an ``--exportTimes`` file (or a loaded :class:`Times`).

    Raises:
        InputError: a file is missing, not JSON, or another kind of export.
    """
    name, values = read_json_file(path)
    kind = detect_kind(values[0])
    if kind != "layers":
        raise wrong_kind(name, kind, "layers")
    engine = engine_from_json(values[0], name)
    if profile is not None:
        if not isinstance(profile, Profile):
            profile = load_profile(profile)
        engine = merge_profile(engine, profile, in_place=True)
    if times is not None:
        engine = engine.model_copy(
            update={"times": times if isinstance(times, Times) else load_times(times)}
        )
    return engine


# -- engines from a log's layer dumps ------------------------------------------------------

_DUMP_STARTS = {
    "engine_layer_info_header": "listing",
    "engine_layers_detailed": "inspector",
    "inspector_layers_header": "inspector",
}


def _json_like(value: Any) -> Any:
    """An inspector-record parameter value as the layer JSON holds it (objects as dicts)."""
    if isinstance(value, tuple):
        if value and all(
            isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in value
        ):
            return {k: _json_like(v) for k, v in value}
        return [_json_like(v) for v in value]
    return value


def _node_order(events: Sequence[Any]) -> list[str] | None:
    nodes = [
        getattr(e, "node", None) for e in events if getattr(e, "kind", None) == "onnx_parse_node"
    ]
    found = [n for n in nodes if isinstance(n, str)]
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


def profile_from_events(events: Sequence[Any], source: str) -> Profile | None:
    """The log's own ``--dumpProfile`` table as a :class:`Profile`, or ``None`` without one.

    The last table printed (a run that prints two keeps the second, as
    :func:`trtlog.performance.performances` does); its ``Total`` row is not a layer.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text(
        ...     "[I] === Profile (10 iterations ) ===\\n"
        ...     "[I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer\\n"
        ...     "[I]        2.00       0.2000       0.2000     100.0   conv1\\n"
        ... )
        >>> p = profile_from_events(b.events, "x.log")
        >>> p.iterations, [(r.name, r.average_ms) for r in p.records]
        (10, [('conv1', 0.2)])
    """
    tables = [p.profile for p in performances(events) if p.profile is not None]
    if not tables:
        return None
    table = tables[-1]
    records = tuple(
        ProfileRecord(
            name=row.layer,
            time_ms=row.total_ms,
            average_ms=row.avg_ms,
            median_ms=row.median_ms,
            percentage=row.percent,
        )
        for row in table.layers
    )
    return Profile(
        source=f"{source} (--dumpProfile, line {table.line})",
        runs=(ProfileRun(iterations=table.iterations, records=records),),
    )


def engine_from_events(events: Sequence[Any], source: str) -> Engine | None:
    """The engine a log's layer dumps describe, or ``None`` when the log has none.

    Prefers the last inspector dump with detailed records (``--dumpLayerInfo``, or the 10.x
    builder ``Layers:`` dump), then the last ``Engine Layer Information:`` listing, then a
    names-only inspector dump. A ``{ForeignNode[a...b]}`` layer takes its ONNX nodes from the
    autotuner's ``ForeignNode ... Metadata`` line when the log has one (source ``metadata``);
    otherwise the range is expanded with the parse order of the ONNX nodes when the log has
    the parser's verbose lines.
    """
    dumps: list[tuple[str, list[Any]]] = []
    foreign: dict[str, tuple[str, ...]] = {}
    current: tuple[str, list[Any]] | None = None
    bindings: dict[int, list[str]] = {}
    for event in events:
        kind = event.kind
        start = _DUMP_STARTS.get(kind)
        if start is not None:
            current = (start, [])
            dumps.append(current)
        elif kind in ("inspector_record", "inspector_layer_name"):
            if current is None or current[0] == "listing":
                current = ("inspector", [])
                dumps.append(current)
            current[1].append(event)
        elif kind == "engine_layer_info":
            if current is None or current[0] != "listing":
                current = ("listing", [])
                dumps.append(current)
            current[1].append(event)
        elif kind == "inspector_binding" and dumps:
            bindings.setdefault(len(dumps) - 1, []).append(event.name)
        elif kind == "foreign_node_metadata" and event.onnx_layers:
            foreign[event.layer] = tuple(event.onnx_layers)
    detailed = [
        (i, d) for i, d in enumerate(dumps) if any(e.kind == "inspector_record" for e in d[1])
    ]
    listings = [(i, d) for i, d in enumerate(dumps) if d[0] == "listing" and d[1]]
    names = [(i, d) for i, d in enumerate(dumps) if d[0] == "inspector" and d[1]]
    candidates = detailed or listings or names
    if not candidates:
        return None
    index, (dump_kind, records) = candidates[-1]
    nodes = _node_order(events)
    order = {n: i for i, n in enumerate(nodes)} if nodes else None
    layers: list[EngineLayer] = []
    for i, record in enumerate(records):
        if record.kind == "inspector_record":
            params = {k: _json_like(v) for k, v in record.parameters}
            parameter_type = params.pop("ParameterType", None)
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
                    onnx_source=how,  # type: ignore[arg-type]
                )
            )
        elif record.kind == "engine_layer_info":
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
    is_detailed = dump_kind == "listing" or any(r.kind == "inspector_record" for r in records)
    regions: list[str] = []
    for event in events:
        name = getattr(event, "layer", None)
        if (
            event.kind in ("placement_gpu", "placement_dla", "engine_layer_info")
            and isinstance(name, str)
            and name.startswith("{ForeignNode[")
        ):
            regions.append(name)
    origin: Any = (
        "log_listing" if dump_kind == "listing" else "log_inspector" if is_detailed else "log_names"
    )
    notes = [] if is_detailed else [_NAMES_ONLY_NOTE]
    if dump_kind == "inspector" and is_detailed:  # never silently empty (issue 11)
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
    "layers from the log's placement lines (`[GpuLayer] ...`, `[DlaLayer] ...`): the network "
    "after graph optimization, names only, without the reformats and copies the builder adds "
    "later. Build with `--dumpLayerInfo --profilingVerbosity=detailed` (or pass the "
    "--exportLayerInfo JSON) for the engine's own layers."
)


def engine_from_placement(events: Sequence[Any], source: str) -> Engine | None:
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
    names: dict[str, None] = {}
    for event in events:
        kind = event.kind
        if kind in ("placement_gpu", "placement_dla"):
            names[event.layer] = None
        elif kind == "placement_list":
            names.update(dict.fromkeys(event.layers))
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
        origin="log_names",
        detailed=False,
        layers=tuple(layers),
        notes=(_PLACEMENT_NOTE,),
        regions=tuple(n for n in names if n.startswith("{ForeignNode[")),
    )
