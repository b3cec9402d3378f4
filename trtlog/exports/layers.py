"""Loading ``--exportLayerInfo`` and ``IEngineInspector`` JSON into an engine's model.

Part of the exports package. Names-only and detailed exports of TensorRT 8.2 to 11 (11's
``I/O Tensors`` and split ``Datatype``/``Format`` too) and Torch-TensorRT's layer information;
tensors, tactics, metadata and every other key of a layer are kept. :func:`load_engine` merges
a profile and a timing trace when given.
"""

from __future__ import annotations

import operator
import os
import warnings
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from trtlog._pydantic import assemble, gc_paused
from trtlog.engine.model import (
    LAYER_ROW_COLUMNS,
    NAMES_ONLY_NOTE,
    Engine,
    EngineLayer,
    IoProfile,
    IoTensor,
    LayerEdges,
    LayerTable,
    LayerTime,
    Profile,
    Times,
    is_reformat_layer,
    precision_of,
)
from trtlog.engine.modules import module_of_node
from trtlog.engine.profile import exact_times, layer_time, merge_profile, record_time
from trtlog.errors import InputError
from trtlog.exports.profile import load_profile
from trtlog.exports.read import JsonInput, detect_kind, read_json_file, wrong_kind
from trtlog.exports.times import load_times
from trtlog.names import common_module, onnx_nodes_of_name, parse_kernel_name, parse_metadata
from trtlog.numbers import parse_tactic
from trtlog.tensors import Tensor, dims_text, dtype_of, inspector_tensor, parse_format

__all__ = ["LayerInfoWarning", "engine_from_json", "load_engine"]

# -- layer info (engines) ------------------------------------------------------------------

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
        """One tensor object: the :class:`Tensor` of an equal object read before, if any."""
        if type(obj) is not dict:
            raise TypeError(f"is not a tensor object: {str(obj)[:60]}")
        # the objects as trtexec writes them ("plain": exactly the keys of one shape, each
        # of its type) are read with one C call (seven dict.get calls cost more than the rest
        # of a cache hit) and cached; anything else is built by _build
        n = len(obj)
        strides_raw = order_raw = None
        try:
            if n == 4:  # 8.2 - 10.x: Name, Location, Dimensions, Format/Datatype
                name, dims_raw, location, fmt = _GET_10(obj)
                datatype = None
            elif n == 5:  # TensorRT 11: Name, Dimensions, Location, Datatype, Format
                name, dims_raw, location, fmt, datatype = _GET_11(obj)
            elif n == 7:  # TensorRT 11 with Strides and StrideOrder
                name, dims_raw, location, fmt, datatype, strides_raw, order_raw = _GET_11_STRIDED(
                    obj
                )
                if strides_raw is None or order_raw is None:
                    return self._build(obj)
            elif n == 6:  # TensorRT 11 with one of them
                name, dims_raw, location, fmt, datatype = _GET_11(obj)
                strides_raw, order_raw = obj.get("Strides"), obj.get("StrideOrder")
                if (strides_raw is None) == (order_raw is None):
                    return self._build(obj)
            else:
                return self._build(obj)
        except KeyError:
            return self._build(obj)
        if not (
            type(name) is str
            and type(dims_raw) is list
            and type(fmt) is str
            and type(location) is str
            and (n == 4 or type(datatype) is str)
            and (strides_raw is None or type(strides_raw) is list)
            and (order_raw is None or type(order_raw) is list)
        ):
            return self._build(obj)
        # the cache key holds the numbers as written: equal numbers convert alike (1.0 and 1
        # both to 1), and a miss converts and checks them below
        dims_key = tuple(dims_raw)
        key = (
            (name, fmt, location, dims_key)
            if datatype is None
            else (name, fmt, location, datatype, dims_key)
        )
        plain = strides_raw is None and order_raw is None
        try:
            if plain:
                tensor = self.seen.get(key)
                if tensor is not None:
                    return tensor
            else:
                found = self.strided.get(key)
                if found is not None and found[1] == strides_raw and found[2] == order_raw:
                    return found[0]
        except TypeError:  # an unhashable number: the conversion below names it
            pass
        tensor = self._make(
            name,
            _ints(dims_key, dims_raw, "dimensions"),
            _clean_format(fmt),
            location,
            {},
            datatype,
            None if strides_raw is None else _ints(tuple(strides_raw), strides_raw, "strides"),
            None if order_raw is None else _ints(tuple(order_raw), order_raw, "stride order"),
            "Format/Datatype" if datatype is None else "Datatype",
            fmt,
        )
        if plain:
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


def _layer_fields(obj: dict[str, Any], index: int) -> dict[str, Any]:
    """A layer object's field dict (every field, in field order) with the JSON's values.

    The values go in as they are; every key without a field of its own goes to
    ``parameters``, in the JSON's order.
    """
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
    return data


def _layer_from_json(
    obj: Any,
    index: int,
    reader: _TensorReader,
    node_order: dict[str, int] | None,
    nodes: list[str] | None,
    known: tuple[tuple[str, ...], Any] | None = None,
) -> EngineLayer:
    """One layer object; ``known`` is its ONNX nodes and their source, when already read."""
    if type(obj) is str:
        onnx, source = known or onnx_nodes_of_name(obj, node_order, nodes)
        return EngineLayer(index=index, name=obj, onnx_nodes=onnx, onnx_source=source)
    if not isinstance(obj, dict):
        raise InputError(
            f"Layers[{index}] is neither a name nor a layer object", source=reader.source
        )
    data = _layer_fields(obj, index)
    data["name"] = layer_name = str(data["name"])
    data["inputs"] = reader.read(data["inputs"], index, "Inputs")
    data["outputs"] = reader.read(data["outputs"], index, "Outputs")
    tactic_raw = data["tactic"]
    try:
        data["tactic"] = parse_tactic(str(tactic_raw)) if tactic_raw not in (None, "") else None
    except ValueError as exc:
        raise InputError(f"Layers[{index}].TacticValue: {exc}", source=reader.source) from None
    metadata = data["metadata"]
    if known is not None:
        data["onnx_nodes"], data["onnx_source"] = known
    elif names := parse_metadata(metadata)[0] if metadata and type(metadata) is str else ():
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


# -- the fast path: the layers frame's values straight from the JSON (issue 14) -------------

# the 8.2/8.5 spelling of the layer keys: a layer that uses any takes the general path
_CAMEL_KEYS = frozenset(k for k in _LAYER_KEYS if k[:1].islower())
_GET_10 = operator.itemgetter("Name", "Dimensions", "Location", "Format/Datatype")
_GET_10_INTERNAL = operator.itemgetter("Name", "Dimensions", "Format/Datatype")
# (dtype, layout, dims text, name) of one tensor
_TensorValues = tuple[str, str | None, str, str]


class _Scan:
    """Reads the values the layers frame shows straight from a layer JSON, without objects.

    It reads only what trtexec writes as it writes it (the plain objects of
    :class:`_TensorReader`, every tensor typed, the field keys with their declared types) and
    gives up (``None``) on anything else: such a file takes the general path, which names
    what is wrong, and is read as before. A file it reads gives the same frame, notes and
    (built on access) layers as the general path; ``tests/exports/test_lazy_engine.py``
    compares the two over every fixture and corpus file.
    """

    def __init__(self) -> None:
        #: Format text as written (8.2 - 10.x), or (Format, Datatype) (11.x) -> (dtype, layout)
        self.formats: dict[str | tuple[str, str], tuple[str | None, str | None]] = {}
        #: a list of integers (dims, strides) as a tuple -> its dims text
        self.ints: dict[tuple[Any, ...], str] = {}
        #: TacticValue as written -> (the tactic, its hex text)
        self.tactics: dict[str, tuple[int, str]] = {}

    def _text(self, values: list[Any]) -> str | None:
        """The dims text of a list of integers; ``None`` for anything else."""
        key = tuple(values)
        try:
            text = self.ints.get(key)
        except TypeError:  # an unhashable value
            return None
        if text is None:
            # equal values hash alike, so a hit (1.0 for 1) converts as the general path does
            if not all(type(v) is int for v in key):
                return None
            text = self.ints[key] = dims_text(key)
        return text

    def tensor(self, obj: Any) -> _TensorValues | None:
        if type(obj) is not dict:
            return None
        try:
            n = len(obj)
            if n == 4:
                name, dims, location, fmt = _GET_10(obj)
                datatype = None
            elif n == 5:
                name, dims, location, fmt, datatype = _GET_11(obj)
                if type(datatype) is not str:
                    return None
            elif n == 7:
                name, dims, location, fmt, datatype, strides, order = _GET_11_STRIDED(obj)
                if (
                    type(datatype) is not str
                    or type(strides) is not list
                    or type(order) is not list
                    or self._text(strides) is None
                    or self._text(order) is None
                ):
                    return None
            elif n == 3:  # no Location: Myelin's internal tensors in 10.x
                name, dims, fmt = _GET_10_INTERNAL(obj)
                location = datatype = None
            else:
                return None
        except KeyError:
            return None
        if (
            type(name) is not str
            or type(dims) is not list
            or type(fmt) is not str
            or (location is not None and type(location) is not str)
        ):
            return None
        # _text(dims), inlined: two tensors a layer
        key = tuple(dims)
        try:
            text = self.ints.get(key)
        except TypeError:  # an unhashable value
            return None
        if text is None and (text := self._text(dims)) is None:
            return None
        # 8.2 - 10.x tensors have no Datatype: their formats are keyed by the text alone
        parts = self.formats.get(fmt if datatype is None else (fmt, datatype))
        if parts is None:
            one = inspector_tensor("", None, _clean_format(fmt), None, None, datatype=datatype)
            parts = (one.dtype, one.layout)
            self.formats[fmt if datatype is None else (fmt, datatype)] = parts
        dtype, layout = parts
        if dtype is None:  # an untyped tensor: the general path writes the note
            return None
        return dtype, layout, text, name

    def tensors(self, items: Any) -> list[_TensorValues] | None:
        if not items:
            return []
        if type(items) is not list:
            return None
        if len(items) == 1:  # most layers read one tensor and write one
            one = self.tensor(items[0])
            return None if one is None else [one]
        tensor = self.tensor
        out = [tensor(obj) for obj in items]
        return None if None in out else out  # type: ignore[return-value]

    def tactic(self, raw: Any) -> tuple[int, str] | tuple[None, None] | None:
        if raw is None or raw == "":
            return None, None
        if type(raw) is not str:
            return None
        found = self.tactics.get(raw)
        if found is None:
            try:
                value = parse_tactic(raw)
            except ValueError:
                return None
            found = self.tactics[raw] = (value, f"0x{value:016x}")
        return found


def _dtypes_layouts(tensors: list[_TensorValues]) -> tuple[str | None, str | None]:
    """As :func:`trtlog.frames.engine._dtypes_layouts`: comma-joined, ``None`` for none."""
    if len(tensors) == 1:
        return tensors[0][0], tensors[0][1]
    if not tensors:
        return None, None
    layouts = [t[1] for t in tensors if t[1] is not None]
    return ",".join([t[0] for t in tensors]), ",".join(layouts) if layouts else None


def _scan_rows(
    layers_raw: list[Any], order: dict[str, int] | None, nodes: list[str] | None
) -> tuple[list[tuple[Any, ...]], LayerEdges] | None:
    """Every layer's leading layers-frame values and the tensors it reads and writes.

    The rows hold :data:`LAYER_ROW_COLUMNS`; the edges are a
    :class:`~trtlog.engine.model.LayerEdges`. ``None`` when a layer is not what
    :class:`_Scan` reads: the caller then takes the general path.
    """
    scan = _Scan()
    tensor, tensors, tactic_of = scan.tensor, scan.tensors, scan.tactic
    tactic_get = scan.tactics.get
    # the previous layer's single output object and its values (None: none to reuse)
    last_out: Any = None
    written: _TensorValues | None = None
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    edges = LayerEdges([], [], [], [])
    in_name, in_layer = edges.in_names.append, edges.in_layers.append
    out_name, out_layer = edges.out_names.append, edges.out_layers.append
    camel = _CAMEL_KEYS
    # one string object per distinct type and origin (see LayerTable): a scan of the column
    # then reads a handful of strings, not one per layer
    seen: dict[Any, Any] = {}
    one = seen.setdefault
    for i, obj in enumerate(layers_raw):
        if type(obj) is str:  # a names-only export
            onnx, source = onnx_nodes_of_name(obj, order, nodes)
            kernel = parse_kernel_name(obj)
            append(
                (i, obj, None, None, None, None, None, None, None, None, 0, 0, None, None, None,
                 None, None, is_reformat_layer(None, obj), None,
                 None if kernel is None else kernel.graph, onnx, len(onnx), source,
                 common_module(onnx))
            )  # fmt: skip
            continue
        if type(obj) is not dict or not obj.keys().isdisjoint(camel):
            return None
        get = obj.get
        name = get("Name")
        layer_type = get("LayerType")
        parameter_type = get("ParameterType")
        kernel_name = get("TacticName")
        metadata = get("Metadata")
        stream = get("StreamId")
        if (
            type(name) is not str
            or (layer_type is not None and type(layer_type) is not str)
            or (parameter_type is not None and type(parameter_type) is not str)
            or (kernel_name is not None and type(kernel_name) is not str)
            or (metadata is not None and type(metadata) is not str)
            or (stream is not None and type(stream) is not int)
        ):
            return None
        layer_type = one(layer_type, layer_type)
        raw = get("TacticValue")
        tactic: tuple[int, str] | tuple[None, None] | None = (
            tactic_get(raw) if type(raw) is str else None
        )
        if tactic is None and (tactic := tactic_of(raw)) is None:
            return None
        items_in, items_out = get("Inputs"), get("Outputs")
        input_dtypes: str | None
        output_dtypes: str | None
        first_out: _TensorValues | None
        if (
            type(items_in) is list
            and type(items_out) is list
            and len(items_in) == 1
            and len(items_out) == 1
        ):
            # one tensor in and one out, as most layers; a layer that reads the tensor the
            # layer before it wrote (an equal object: the same values) does not read it again
            obj_in = items_in[0]
            one_in = written if obj_in == last_out else tensor(obj_in)
            last_out = items_out[0]
            first_out = written = tensor(last_out)
            if one_in is None or first_out is None:
                return None
            input_dtypes, input_layouts = one_in[0], one_in[1]
            output_dtypes, output_layouts = first_out[0], first_out[1]
            in_name(one_in[3])
            in_layer(i)
            out_name(first_out[3])
            out_layer(i)
            n_in = n_out = 1
        else:
            last_out = written = None
            inputs = tensors(items_in)
            outputs = tensors(items_out)
            if inputs is None or outputs is None:
                return None
            input_dtypes, input_layouts = _dtypes_layouts(inputs)
            output_dtypes, output_layouts = _dtypes_layouts(outputs)
            for t in inputs:
                in_name(t[3])
                in_layer(i)
            for t in outputs:
                out_name(t[3])
                out_layer(i)
            n_in, n_out = len(inputs), len(outputs)
            first_out = outputs[0] if outputs else None
        onnx = parse_metadata(metadata)[0] if metadata else ()
        if onnx:
            source = "metadata"
        else:
            onnx, source = onnx_nodes_of_name(name, order, nodes)
        module = module_of_node(onnx[0]) if len(onnx) == 1 else common_module(onnx)
        kernel = parse_kernel_name(name) if "_myl" in name else None
        origin = get("Origin")
        if origin is not None:
            origin = one(origin, origin) if type(origin) is str else str(origin)
        # as the frame reads it from a layer object: the first of the two keys it has
        if "HasSparseWeights" in obj:
            sparse = bool(obj["HasSparseWeights"])
        elif "ConvHasSparseWeights" in obj:
            sparse = bool(obj["ConvHasSparseWeights"])
        else:
            sparse = None
        append(
            (
                i,
                name,
                layer_type,
                parameter_type,
                precision_of(kernel_name, obj) or (None if first_out is None else first_out[0]),
                input_dtypes,
                output_dtypes,
                input_layouts,
                output_layouts,
                None if first_out is None else first_out[2],
                n_in,
                n_out,
                tactic[0],
                tactic[1],
                kernel_name or None,
                stream,
                origin,
                is_reformat_layer(layer_type, name),
                sparse,
                None if kernel is None else kernel.graph,
                onnx,
                len(onnx),
                source,
                module,
            )
        )
    return rows, edges


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
    ``warn`` (the default), in a :class:`LayerInfoWarning` naming the key. The layer objects
    of an export as trtexec writes it are built when :attr:`Engine.layers` is first read (the
    layers frame does not need them).

    Raises:
        InputError: the value is not a layer-info export.
    """
    return _engine(value, source, node_order, warn, None, None)


def _engine(
    value: Any,
    source: str,
    node_order: list[str] | None,
    warn: bool,
    profile: Profile | None,
    times: Times | None,
) -> Engine:
    """:func:`engine_from_json` with a profile merged and a timing trace attached."""
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
    if isinstance(bindings_raw, dict) or not isinstance(bindings_raw, list | tuple | None):
        raise InputError(
            f"'Bindings' is not a list of tensor names: {str(bindings_raw)[:60]}",
            source=source,
            hint="pass the file trtexec wrote with --exportLayerInfo",
        )
    order = {n: i for i, n in enumerate(node_order)} if node_order else None
    scanned = _scan_rows(layers_raw, order, node_order)
    rows, edges = scanned if scanned is not None else (None, None)
    detailed = any(isinstance(obj, dict) for obj in layers_raw)
    notes = [] if detailed or not layers_raw else [NAMES_ONLY_NOTE]
    layers: tuple[EngineLayer, ...] | None = None
    if rows is None:  # the general path: every layer object now (it names what is wrong)
        reader = _TensorReader(source)
        layers = tuple(
            [
                _layer_from_json(obj, i, reader, order, node_order)
                for i, obj in enumerate(layers_raw)
            ]
        )
        notes += reader.notes(warn=False)
    if unknown:
        keys = ", ".join(f"'{k}'" for k in sorted(unknown))
        notes.append(
            f"the export has keys trtlog does not know: {keys}; their values are kept "
            "(Engine.extras, IoTensor.model_extra) but not read."
        )
    if warn:
        for note in notes[1:] if notes and notes[0] is NAMES_ONLY_NOTE else notes:
            warnings.warn(f"{source}: {note}", LayerInfoWarning, stacklevel=4)
    bindings = tuple(str(b) for b in bindings_raw or ())
    if not bindings and io_tensors:
        bindings = tuple(t.name for t in io_tensors)  # what "Bindings" listed before 11
    fields: dict[str, Any] = {
        "source": source,
        "origin": "layer_json",
        "detailed": detailed,
        "layers": layers,
        "bindings": bindings,
        "io_tensors": io_tensors,
        "profile": None,
        "times": None,
        "notes": tuple(notes),
        "regions": (),
        "extras": extras,
    }
    fields_set = {"source", "origin", "detailed", "layers", "bindings", "io_tensors", "notes"}
    fields_set.add("extras")
    exact = None
    if rows is not None and profile is not None:
        names = [row[1] for row in rows]
        kernels = [row[19] is not None for row in rows]  # myelin_graph: a Myelin kernel
        exact = exact_times(names, kernels, profile)
        if exact is None:  # the tolerant merge needs the layer objects
            rows = None
            fields["layers"] = layers = _build_layers(layers_raw, source, order, node_order, rows)
    if rows is None:
        assert layers is not None
        engine = Engine(**{k: v for k, v in fields.items() if k in fields_set})
        if profile is not None:
            engine = merge_profile(engine, profile, in_place=True)
        if times is not None:
            engine = engine.model_copy(update={"times": times})
        return engine
    # the layers are built when first read: the frame's values are in the table
    del fields["layers"]
    time_values = None
    if exact is not None and profile is not None:
        time_specs, time_values, unmatched = exact
        fields["profile"] = profile
        fields["notes"] += tuple(unmatched)
        fields_set.add("profile")
    if times is not None:
        fields["times"] = times
        fields_set.add("times")

    # layers asked for one by one (Engine.layer_at) before all were built: the same objects
    # are in the engine's layers once they are built
    made: dict[int, EngineLayer] = {}
    reader = _TensorReader(source)

    def one(index: int) -> EngineLayer:
        layer = made.get(index)
        if layer is None:
            time = None
            if exact is not None and profile is not None:
                time = layer_time(profile, time_specs[index])
            layer = _layer_of_row(layers_raw[index], index, table.rows[index], reader, time)
            made[index] = layer
        return layer

    def build() -> tuple[EngineLayer, ...]:
        with gc_paused():
            times = None
            if exact is not None and profile is not None:
                records = profile.records
                times = [
                    record_time(records[spec]) if type(spec) is int else layer_time(profile, spec)
                    for spec in time_specs
                ]
            built = _build_layers(layers_raw, source, order, node_order, table.rows, times)
            if made:
                built = tuple([made.get(i, layer) for i, layer in enumerate(built)])
                made.clear()
        return built

    def tensors(index: int) -> tuple[tuple[Tensor, ...], tuple[Tensor, ...]]:
        layer = made.get(index)
        if layer is not None:
            return layer.inputs, layer.outputs
        obj = layers_raw[index]
        if type(obj) is str:
            return (), ()
        # the reader that builds the layer: the same tensor objects (equal ones are one)
        get = obj.get
        return (
            reader.read(get("Inputs"), index, "Inputs"),
            reader.read(get("Outputs"), index, "Outputs"),
        )

    table = LayerTable(rows, time_values, edges)
    engine = assemble(Engine, fields, None, fields_set)
    private = {"_pending": build, "_table": table, "_one": one, "_io": tensors}
    object.__setattr__(engine, "__pydantic_private__", private)
    return engine


def _build_layers(
    layers_raw: list[Any],
    source: str,
    order: dict[str, int] | None,
    nodes: list[str] | None,
    rows: list[tuple[Any, ...]] | None = None,
    times: list[LayerTime] | None = None,
) -> tuple[EngineLayer, ...]:
    """Every layer object of a layer JSON.

    With ``rows`` (those of :func:`_scan_rows`, which read every layer: no notes to write),
    each layer is built from its row by :func:`_layer_of_row`, with its time from ``times``.
    A layer that reads the single tensor the layer before it wrote (an equal object, as
    trtexec writes every chain) gets that layer's :class:`Tensor` without a cache lookup.
    """
    reader = _TensorReader(source)
    if rows is None:
        return tuple(
            [_layer_from_json(obj, i, reader, order, nodes) for i, obj in enumerate(layers_raw)]
        )
    built: list[EngineLayer] = []
    append = built.append
    written: Any = None  # the previous layer's single output object
    written_by: tuple[Tensor, ...] | None = None  # and the layer's outputs (that one tensor)
    for i, obj in enumerate(layers_raw):
        chained = None
        if type(obj) is dict:
            items = obj.get("Inputs")
            if type(items) is list and len(items) == 1 and items[0] == written:
                chained = written_by
        layer = _layer_of_row(obj, i, rows[i], reader, None if times is None else times[i], chained)
        append(layer)
        written = written_by = None
        if type(obj) is dict:
            items = obj.get("Outputs")
            if type(items) is list and len(items) == 1:
                written, written_by = items[0], layer.__dict__["outputs"]
    return tuple(built)


_TACTIC = LAYER_ROW_COLUMNS.index("tactic")


def _layer_of_row(
    obj: Any,
    index: int,
    row: tuple[Any, ...],
    reader: _TensorReader,
    time: LayerTime | None,
    inputs: tuple[Tensor, ...] | None = None,
) -> EngineLayer:
    """The layer object of a layer :func:`_scan_rows` read into ``row``.

    What :func:`_layer_from_json` builds, without what the scan made sure of or read already:
    the fields have their declared types (no validation), the tactic is parsed and the ONNX
    nodes are known. ``inputs``: the layer's input tensors, when the caller has them.
    """
    if type(obj) is str:  # a names-only export
        layer = _layer_from_json(obj, index, reader, None, None, (row[_ONNX], row[_SOURCE]))
        layer.__dict__["time"] = time
        return layer
    data = _layer_fields(obj, index)
    read = reader.read
    data["inputs"] = read(data["inputs"], index, "Inputs") if inputs is None else inputs
    data["outputs"] = read(data["outputs"], index, "Outputs")
    data["tactic"] = row[_TACTIC]
    data["onnx_nodes"] = row[_ONNX]
    data["onnx_source"] = row[_SOURCE]
    data["time"] = time
    return assemble(EngineLayer, data, {}, _LAYER_FIELDS_SET)


_ONNX = LAYER_ROW_COLUMNS.index("onnx_nodes")
_SOURCE = LAYER_ROW_COLUMNS.index("onnx_source")


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
    The layers frame is read straight from the JSON; the layer objects are built when
    :attr:`Engine.layers` is first read.

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
    if profile is not None and not isinstance(profile, Profile):
        profile = load_profile(profile)
    if times is not None and not isinstance(times, Times):
        times = load_times(times)
    return _engine(values[0], name, None, True, profile, times)
