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
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from trtlog._files import read_bytes
from trtlog._pydantic import assemble, gc_paused
from trtlog.engine.model import (
    NAMES_ONLY_NOTE,
    Engine,
    EngineLayer,
    IoProfile,
    IoTensor,
    Profile,
    Times,
)
from trtlog.engine.profile import layer_times
from trtlog.errors import InputError
from trtlog.exports.profile import load_profile
from trtlog.exports.read import (
    JsonInput,
    detect_kind,
    read_json_bytes,
    read_json_file,
    wrong_kind,
)
from trtlog.exports.times import load_times
from trtlog.names import onnx_nodes_of_name, parse_metadata
from trtlog.numbers import parse_tactic
from trtlog.tensors import Tensor, dtype_of, inspector_tensor, parse_format

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


# the keys of a tensor object, in the order tensor() unpacks them: 8.2 - 10.x (a Myelin
# internal tensor of 10.x has no Location), TensorRT 11 (with strides)
_GET_10 = operator.itemgetter("Name", "Dimensions", "Location", "Format/Datatype")
_GET_10_INTERNAL = operator.itemgetter("Name", "Dimensions", "Format/Datatype")
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
    """Reads the tensor objects (and the tactics) of one layer JSON.

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
        #: (format, location, [datatype,] dims) as written -> a tensor read of them, whose
        #: fields another tensor of the same values takes (with its own name)
        self.alike: dict[tuple[Any, ...], Tensor] = {}
        #: TacticValue as written -> the tactic (an engine repeats a few hundred)
        self.tactics: dict[str, int] = {}

    def tactic(self, raw: Any, index: int) -> int | None:
        """The tactic of ``Layers[index].TacticValue`` (``None`` for none)."""
        if raw is None or raw == "":
            return None
        text = raw if type(raw) is str else str(raw)
        value = self.tactics.get(text)
        if value is None:
            try:
                value = self.tactics[text] = parse_tactic(text)
            except ValueError as exc:
                raise InputError(
                    f"Layers[{index}].TacticValue: {exc}", source=self.source
                ) from None
        return value

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
        # of its type) are read with one C call and cached; anything else is built by _build
        n = len(obj)
        strides_raw = order_raw = location = datatype = None
        try:
            if n == 4:  # 8.2 - 10.x: Name, Location, Dimensions, Format/Datatype
                name, dims_raw, location, fmt = _GET_10(obj)
            elif n == 3:  # 10.x Myelin internal tensors: no Location
                name, dims_raw, fmt = _GET_10_INTERNAL(obj)
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
            and (type(location) is str or n == 3)
            and (n < 5 or type(datatype) is str)
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
            # another tensor of the same format, dims and location: its fields but the name
            like = self.alike.get(key[1:]) if plain else None
        except TypeError:  # an unhashable number: the conversion below names it
            like = None
        if like is not None:
            data = like.__dict__.copy()  # (the name first: the fields keep their order)
            data["name"] = name
            tensor = assemble(Tensor, data, {}, _TENSOR_FIELDS_SET)
            if datatype is None:
                self._count(tensor, name, "Format/Datatype", "Format/Datatype", fmt)
            else:
                self._count(tensor, name, "Datatype", "Datatype", datatype)
            self.seen[key] = tensor
            return tensor
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
            self.seen[key] = self.alike[key[1:]] = tensor
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
        if datatype is not None:
            self._count(tensor, name, shape, "Datatype", datatype)
        elif combined is not None:
            self._count(tensor, name, shape, "Format/Datatype", combined)
        else:
            self._count(tensor, name, shape, None, None)
        return tensor

    def _count(
        self, tensor: Tensor, name: str, shape: str, key: str | None, text: str | None
    ) -> None:
        """Count a distinct tensor of ``shape``; one without a data type goes to the notes.

        ``key`` and ``text``: the key that names its type and what it says (``None``: none).
        """
        self.shapes[shape] = self.shapes.get(shape, 0) + 1
        if tensor.__dict__["dtype"] is None:
            self.untyped.append((name, key, text))

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


_LAYER_FIELDS_SET = frozenset(EngineLayer.model_fields)
_TENSOR_FIELDS_SET = frozenset(Tensor.model_fields)
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
# the 8.2/8.5 spelling of the layer keys (``name``, ``layerType``...)
_CAMEL_KEYS = frozenset(k for k in _LAYER_KEYS if k[:1].islower())


def _layer_fields(obj: dict[str, Any], index: int) -> dict[str, Any]:
    """A layer object's field dict (every field, in field order) with the JSON's values.

    The values go in as they are; every key without a field of its own goes to
    ``parameters``, in the JSON's order.
    """
    parameters = {k: v for k, v in obj.items() if k not in _LAYER_KEYS}
    if obj.keys().isdisjoint(_CAMEL_KEYS):  # one spelling of each key, as trtexec writes it
        get = obj.get
        return {
            "index": index,
            "name": get("Name", ""),
            "type": get("LayerType"),
            "inputs": get("Inputs"),
            "outputs": get("Outputs"),
            "parameter_type": get("ParameterType"),
            "parameters": parameters,
            "tactic": get("TacticValue"),
            "tactic_name": get("TacticName"),
            "stream_id": get("StreamId"),
            "metadata": get("Metadata"),
            "onnx_nodes": (),
            "onnx_source": "none",
            "time": None,
        }
    data = _LAYER_TEMPLATE.copy()
    for key, value in obj.items():  # (the last of two spellings of a key wins)
        field = _LAYER_KEYS.get(key)
        if field is not None:
            data[field] = value
    data["index"] = index
    data["parameters"] = parameters
    return data


def _layer_data(
    obj: Any,
    index: int,
    reader: _TensorReader,
    node_order: dict[str, int] | None,
    nodes: list[str] | None,
    inputs: tuple[Tensor, ...] | None = None,
) -> tuple[dict[str, Any], AbstractSet[str]]:
    """The fields of one layer object of a layer JSON, and those it sets.

    ``inputs``: its input tensors, when already read. A layer as trtexec writes it (every
    field of its declared type) is taken as it is; anything else is validated, which converts
    what it can (a numeric ``StreamId`` string) and names the rest.
    """
    if type(obj) is str:
        onnx, source = onnx_nodes_of_name(obj, node_order, nodes)
        data = _LAYER_TEMPLATE.copy()
        data["index"], data["name"], data["parameters"] = index, obj, {}
        data["inputs"] = data["outputs"] = ()
        data["onnx_nodes"], data["onnx_source"] = onnx, source
        return data, set(_NAME_FIELDS_SET)
    if type(obj) is not dict:
        raise InputError(
            f"Layers[{index}] is neither a name nor a layer object", source=reader.source
        )
    data = _layer_fields(obj, index)
    name = data["name"]
    if type(name) is not str:
        data["name"] = name = str(name)
    read = reader.read
    data["inputs"] = read(data["inputs"], index, "Inputs") if inputs is None else inputs
    data["outputs"] = read(data["outputs"], index, "Outputs")
    data["tactic"] = reader.tactic(data["tactic"], index)
    metadata = data["metadata"]
    if names := parse_metadata(metadata)[0] if metadata and type(metadata) is str else ():
        data["onnx_nodes"], data["onnx_source"] = names, "metadata"
    else:
        data["onnx_nodes"], data["onnx_source"] = onnx_nodes_of_name(name, node_order, nodes)
    kind, parameter_type, kernel, stream = (
        data["type"],
        data["parameter_type"],
        data["tactic_name"],
        data["stream_id"],
    )
    if (
        (kind is None or type(kind) is str)
        and (parameter_type is None or type(parameter_type) is str)
        and (kernel is None or type(kernel) is str)
        and (metadata is None or type(metadata) is str)
        and (stream is None or type(stream) is int)
    ):
        return data, _LAYER_FIELDS_SET
    try:
        return dict(EngineLayer(**data).__dict__), set(_LAYER_FIELDS_SET)
    except ValidationError as exc:
        err = exc.errors()[0]
        path = ".".join(str(p) for p in err["loc"])
        raise InputError(f"Layers[{index}].{path}: {err['msg']}", source=reader.source) from None


# the fields a names-only layer sets (the rest keep their defaults)
_NAME_FIELDS_SET = frozenset(("index", "name", "onnx_nodes", "onnx_source"))


def _read_layers(
    layers_raw: list[Any],
    reader: _TensorReader,
    order: dict[str, int] | None,
    nodes: list[str] | None,
    profile: Profile | None,
) -> tuple[tuple[EngineLayer, ...], list[str]]:
    """Every layer object of a layer JSON, in order, with its time from ``profile``.

    And the notes of the profile's records that match no layer. A layer that reads the
    single tensor the layer before it wrote (an equal object, as trtexec writes every chain)
    gets that layer's :class:`Tensor` without a cache lookup.
    """
    found: list[tuple[dict[str, Any], AbstractSet[str]]] = []
    append = found.append
    written: Any = None  # the previous layer's single output object
    written_by: tuple[Tensor, ...] | None = None  # and the layer's outputs (that one tensor)
    for i, obj in enumerate(layers_raw):
        chained = None
        if type(obj) is dict:
            items = obj.get("Inputs")
            if type(items) is list and len(items) == 1 and items[0] == written:
                chained = written_by
        layer = _layer_data(obj, i, reader, order, nodes, chained)
        append(layer)
        written = written_by = None
        if type(obj) is dict:
            items = obj.get("Outputs")
            if type(items) is list and len(items) == 1:
                written, written_by = items[0], layer[0]["outputs"]
    notes: list[str] = []
    if profile is not None:  # each layer's time, set before the layer is made
        times, notes = layer_times([data["name"] for data, _ in found], profile)
        for (data, _), time in zip(found, times, strict=True):
            data["time"] = time
    layers = tuple([assemble(EngineLayer, data, {}, given) for data, given in found])
    return layers, notes


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
    detailed = any(isinstance(obj, dict) for obj in layers_raw)
    notes = [] if detailed or not layers_raw else [NAMES_ONLY_NOTE]
    reader = _TensorReader(source)
    layers, unmatched = _read_layers(layers_raw, reader, order, node_order, profile)
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
        "trt_version": None,  # a layer JSON prints none (with_log_version pairs a log)
    }
    given = set(_ENGINE_FIELDS_SET)
    if profile is not None:
        fields["profile"] = profile
        fields["notes"] += tuple(unmatched)
        given.add("profile")
    if times is not None:
        fields["times"] = times
        given.add("times")
    return assemble(Engine, fields, None, given)


# the fields of an engine read from a layer JSON (the others keep their defaults until a
# profile or a timing trace is given)
_ENGINE_FIELDS_SET = frozenset(
    ("source", "origin", "detailed", "layers", "bindings", "io_tensors", "notes", "extras")
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

    The file may be names-only or detailed (8.2 → 11), or the JSON of ``IEngineInspector``,
    also printed object by object by a script (``--- Layer 3 ---`` between the objects: the
    pieces :mod:`trtlog.exports.pieces` finds, as every command reads them).

    Args:
        path: the layer-info JSON: a path (``.gz`` too), ``"-"`` for standard input, or the
            file's bytes.
        profile: an ``--exportProfile`` file (or a loaded :class:`Profile`) to merge onto the
            layers (see :meth:`Engine.with_profile`).
        times: an ``--exportTimes`` file (or a loaded :class:`Times`).

    Raises:
        InputError: a file is missing, not JSON, or another kind of export.
    """
    if isinstance(path, str | os.PathLike) and os.fspath(path) != "-":
        raw: bytes | None = read_bytes(os.fspath(path))
        name = os.fspath(path)
    elif isinstance(path, bytes | bytearray):
        raw, name = bytes(path), "<bytes>"
    else:
        raw, name = None, "<stdin>"
    try:
        name, values = read_json_file(path) if raw is None else read_json_bytes(raw, name)
    except InputError:
        # layer objects a script printed one by one, with its own lines between them (a text
        # that starts as JSON is a JSON document: its own error stands)
        head = raw.lstrip()[:1] if raw else b"{"
        from trtlog.exports.pieces import split_pieces  # (only for a file json cannot read)

        pieces = (
            split_pieces(raw.decode("utf-8", errors="replace"))
            if raw and head not in (b"{", b"[")
            else None
        )
        if pieces is None or pieces.kind != "layers":
            raise
        values = [pieces.document]
    kind = detect_kind(values[0])
    if kind != "layers":
        raise wrong_kind(name, kind, "layers")
    if profile is not None and not isinstance(profile, Profile):
        profile = load_profile(profile)
    if times is not None and not isinstance(times, Times):
        times = load_times(times)
    return _engine(values[0], name, None, True, profile, times)
