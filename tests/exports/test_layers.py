"""The engine loader over every layer JSON: figures against the raw JSON, profiles, tensors.

``load_engine`` reads each layer object once into an :class:`~trtlog.engine.EngineLayer`
(tensors read once per distinct object, a layer's input shared with the output the layer
before it wrote), merges a profile by name and gives the layers frame from those objects.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import trtlog
from trtlog.engine import Engine
from trtlog.exports import jsonio
from trtlog.exports import layers as layers_module
from trtlog.exports.read import read_json_file

from ..conftest import CORPUS, FIXTURES, corpus_json, layer_json_files, needs_corpus

LAYER_INFO = FIXTURES / "layer_info"


def _profile_of(path: Path) -> Path | None:
    """The profile written with a layer JSON (same model prefix), if the folder has one."""
    stem = path.name.split("_layers")[0]
    for candidate in sorted(path.parent.glob(f"{stem}*profile*.json")):
        return candidate
    stem = stem.rsplit("_", 1)[0]
    for candidate in sorted(path.parent.glob(f"{stem}*profile*.json")):
        return candidate
    return None


LAYER_FILES = layer_json_files()
PAIRS = [(p, _profile_of(p)) for p in LAYER_FILES]
# the corpus exports with the profile of the same model (same file name up to "_layers")
CORPUS_PAIRS = [
    (p, next(iter(sorted(p.parent.glob(p.name.split("_layers")[0] + "_profile.json"))), None))
    for p in LAYER_FILES
    if p.parent == CORPUS
]


def test_the_fixtures_are_found() -> None:
    assert len(LAYER_FILES) >= 10
    assert sum(profile is not None for _, profile in PAIRS) >= 5


def _raw_layers(path: Path) -> list[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = read_json_file(path)[1][0]
    return value if isinstance(value, list) else value.get("Layers", value.get("layers"))


@needs_corpus
@pytest.mark.parametrize(("path", "profile"), CORPUS_PAIRS, ids=[p.name for p, _ in CORPUS_PAIRS])
def test_a_corpus_export_s_figures_are_the_raw_json_s(path: Path, profile: Path | None) -> None:
    """Layer count, names, types, tactics, tensors and the profile's time, as the file says."""
    raw = _raw_layers(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = trtlog.load_engine(path, profile=profile)
    frame = engine.layers_frame()
    assert len(engine.layers) == len(frame) == len(raw) > 0
    objects = [x for x in raw if isinstance(x, dict)]
    if not objects:  # a names-only export: a list of names
        assert list(frame["name"]) == raw
    else:
        assert len(objects) == len(raw)

        def key(x: dict[str, Any], *names: str) -> Any:
            return next((x[n] for n in names if n in x), None)

        assert list(frame["name"]) == [str(key(x, "Name", "name") or "") for x in raw]
        types = [key(x, "LayerType", "layerType") for x in raw]
        assert frame["type"].tolist() == [t if t is not None else pd.NA for t in types]
        tactics = [key(x, "TacticValue", "tacticValue") for x in raw]
        assert int(frame["tactic"].notna().sum()) == sum(t not in (None, "") for t in tactics)
        for column, keys in (("n_inputs", ("Inputs", "inputs")), ("n_outputs", ("Outputs",))):
            assert frame[column].tolist() == [len(key(x, *keys) or ()) for x in raw]
    if profile is None:
        assert frame["time_ms"].isna().all()
        return
    # every record that names a layer gives that layer its time (the exact match)
    records = [r for r in read_json_file(profile)[1][0] if "name" in r]
    by_name = {r["name"]: r for r in records}
    exact = [by_name.get(name) for name in frame["name"]]
    matched = [(ms, r["averageMs"]) for ms, r in zip(frame["time_ms"], exact, strict=True) if r]
    assert matched, "no layer of the export is named in its profile"
    assert all(ms == average for ms, average in matched)
    assert engine.profile is not None and len(engine.profile.records) == len(records)
    known = frame["time_ms"].dropna()
    assert engine.total_ms == pytest.approx(math.fsum(known))


# -- a generated engine (bench/engine_load.py) and its profile, edited -----------------------


def _bench_generator() -> object:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "bench" / "engine_load.py"
    spec = importlib.util.spec_from_file_location("_engine_load_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("shape", "strides"), [(10, True), (11, False), (11, True)])
@pytest.mark.parametrize("profile_edit", ["whole", "records missing", "records extra", "dup"])
def test_generated_engines_take_their_profile(
    shape: int, strides: bool, profile_edit: str, tmp_path: Path
) -> None:
    value, profile = _bench_generator().generate(64, "t", shape, strides)  # type: ignore[attr-defined]
    if profile_edit == "records missing":  # layers without a time
        profile = profile[:40]
    elif profile_edit == "records extra":
        profile = [*profile, {**profile[5], "name": "extra"}]
    elif profile_edit == "dup":  # a duplicated record name: the second one matches no layer
        profile = [*profile, profile[7]]
    layers_path = tmp_path / "e.json"
    profile_path = tmp_path / "p.json"
    layers_path.write_text(json.dumps(value, indent=4))
    profile_path.write_text(json.dumps(profile))
    engine = trtlog.load_engine(layers_path, profile=profile_path)
    frame = engine.layers_frame()
    averages = [r["averageMs"] for r in profile[1:40]]
    assert frame["time_ms"].tolist()[:39] == averages
    missing = frame[frame["time_ms"].isna()]
    assert len(missing) == (25 if profile_edit == "records missing" else 0)
    assert set(missing["time_reason"]) <= {"not in the profile"}
    unmatched = [n for n in engine.notes if "match no layer" in n]
    assert len(unmatched) == (profile_edit in ("records extra", "dup"))
    # the 11.x shape gives the frame of the 10.x one
    if shape == 11:
        ten, _ = _bench_generator().generate(64, "t", 10, True)  # type: ignore[attr-defined]
        (tmp_path / "ten.json").write_text(json.dumps(ten))
        again = trtlog.load_engine(tmp_path / "ten.json", profile=profile_path)
        pd.testing.assert_frame_equal(again.layers_frame(), frame)


def test_an_engine_pickles_copies_and_compares_as_a_model() -> None:
    path = LAYER_INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
    profile = LAYER_INFO / "trt10.16-like_smallnet-fp16.profile.json"
    engine = trtlog.load_engine(path, profile=profile)
    again = trtlog.load_engine(path, profile=profile)
    assert engine == again
    assert pickle.loads(pickle.dumps(engine)) == again
    assert copy.deepcopy(again) == engine and copy.copy(engine) == engine
    assert Engine.model_validate_json(engine.model_dump_json()) == engine
    assert list(engine.model_dump()) == list(Engine.model_fields)  # field order kept
    with pytest.raises(TypeError, match="unhashable"):  # extras is a dict
        hash(engine)
    updated = engine.model_copy(update={"layers": ()})
    assert updated.layers == () and len(updated.layers_frame()) == 0
    assert engine.model_fields_set == set(Engine.model_fields) - {"regions", "times", "trt_version"}
    # an update of a loaded model adds the keys it updates to the fields set
    assert engine.profile is not None
    one = engine.profile.model_copy(update={"runs": engine.profile.runs[:1]})
    assert one.runs == engine.profile.runs and "runs" in one.model_fields_set
    names = trtlog.load_engine(LAYER_INFO / "trt11.5-like_smallnet-fp16-autocast_layers-names.json")
    renamed = names.layers[0].model_copy(update={"type": "Myelin"})
    assert renamed.type == "Myelin" and "type" in renamed.model_fields_set


# -- reading each tensor once (a layer's input is the output the layer before wrote) ---------


def _chain(dims_in: list[object], location: str = "Device") -> dict[str, object]:
    """Three layers: a writes t, b reads t (as ``dims_in``, at ``location``), c reads b's."""
    fmt = "Row major linear FP16 format"

    def tensor(name: str, dims: list[object], where: str = "Device") -> dict[str, object]:
        return {"Name": name, "Location": where, "Dimensions": dims, "Format/Datatype": fmt}

    return {
        "Layers": [
            {"Name": "a", "LayerType": "Convolution", "Inputs": [tensor("x", [1, 8])],
             "Outputs": [tensor("t", [1, 8])], "TacticValue": "0x1"},
            {"Name": "b", "LayerType": "Reformat", "Inputs": [tensor("t", dims_in, location)],
             "Outputs": [tensor("u", [1, 8])], "TacticValue": "0x2"},
            {"Name": "c", "LayerType": "Pointwise",
             "Inputs": [tensor("u", [1, 8]), tensor("t", [1, 8])],
             "Outputs": [tensor("v", [1, 8])]},
        ]
    }  # fmt: skip


@pytest.mark.parametrize(
    ("dims_in", "location"),
    [([1, 8], "Device"), ([1.0, 8.0], "Device"), ([1, 8], "Host"), ([1, 9], "Device")],
    ids=["equal", "equal-as-floats", "other-location", "other-dims"],
)
def test_an_input_equal_to_the_previous_output_is_that_tensor(
    dims_in: list[object], location: str, tmp_path: Path
) -> None:
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(_chain(dims_in, location)))
    engine = trtlog.load_engine(path)
    frame = engine.layers_frame()
    b = engine.layers[1]
    assert b.inputs[0].dims == ((1, 8) if dims_in[1] == 8 else (1, 9))
    assert b.inputs[0].location == location
    # an equal object is the tensor the previous layer wrote: one object, not two
    same = dims_in[1] == 8 and location == "Device"
    assert (b.inputs[0] is engine.layers[0].outputs[0]) == same
    assert frame["input_layouts"].tolist() == ["linear", "linear", "linear,linear"]
    assert frame["output_dims"].tolist() == ["1x8", "1x8", "1x8"]


def test_layers_share_the_tensors_of_a_chain(tmp_path: Path) -> None:
    paths = _bench_generator().write_model(tmp_path, 200, "c")  # type: ignore[attr-defined]
    raw = json.loads(paths[0].read_text())["Layers"]
    layers = trtlog.load_engine(paths[0], profile=paths[1]).layers
    # a layer that reads the tensor the layer before it wrote (an equal object: three in
    # four here; a convolution after a Myelin layer reads it in another format) shares it
    chained = [i for i in range(1, 200) if raw[i]["Inputs"][0] == raw[i - 1]["Outputs"][0]]
    assert len(chained) == 150
    assert all(layers[i].inputs is layers[i - 1].outputs for i in chained)
    assert not any(layers[i].inputs[0] == layers[i - 1].outputs[0] for i in range(0, 200, 4)[1:])


# -- the two JSON decoders (orjson, the trtlog[fast] extra, and the standard library) --------

PROFILES = sorted(LAYER_INFO.glob("*.profile.json")) + [
    p for p in corpus_json() if "profile" in p.name
]


@pytest.mark.parametrize("path", LAYER_FILES + PROFILES, ids=lambda p: p.name)
def test_orjson_and_the_standard_json_read_alike(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("orjson")
    results = []
    for use in (True, False):
        monkeypatch.setattr(jsonio, "USE_ORJSON", use)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append(read_json_file(path)[1])
    assert results[0] == results[1]


def test_orjson_is_used_when_installed_and_not_when_switched_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    orjson = pytest.importorskip("orjson")
    calls: list[int] = []

    def counting(raw: bytes | str) -> object:
        calls.append(len(raw))
        return orjson.loads(raw)

    monkeypatch.setattr(jsonio, "_ORJSON", [counting])
    path = LAYER_INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
    fast = trtlog.load_engine(path)
    assert calls == [path.stat().st_size]
    monkeypatch.setattr(jsonio, "USE_ORJSON", False)
    standard = trtlog.load_engine(path)
    assert calls == [path.stat().st_size]
    assert standard == fast
    pd.testing.assert_frame_equal(standard.layers_frame(), fast.layers_frame())


def test_what_orjson_rejects_is_read_by_the_standard_path(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("orjson")
    # nan (trtexec writes it), two top-level values (looped 7.x runs), a lone surrogate
    text = b'[{"count": 2}, {"name": "a", "timeMs": nan, "averageMs": 0.5, "percentage": 100}]'
    with pytest.warns(jsonio.JsonRepairWarning, match="nan"):
        profile = trtlog.load_profile(text)
    assert profile.records[0].time_ms != profile.records[0].time_ms
    with pytest.warns(jsonio.JsonRepairWarning, match="2 top-level values"):
        profile = trtlog.load_profile(b'[{"count": 1}]\n[{"count": 2}]')
    assert profile.runs[1].iterations == 2
    assert read_json_file(b'["\\ud800"]')[1] == [["\ud800"]]


def test_the_environment_variable_switches_orjson_off() -> None:
    import subprocess
    import sys

    code = "from trtlog.exports import jsonio; print(jsonio.USE_ORJSON)"
    env = {"TRTLOG_JSON": "json", "PATH": ""}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


_FMT11 = {"Name": "t", "Dimensions": [1, 8], "Location": "Device", "Datatype": "Half"}


@pytest.mark.parametrize(
    ("extra", "plain"),
    [
        ({"Format": "kLINEAR"}, True),
        ({"Format": "kLINEAR", "Strides": [8, 1]}, True),
        ({"Format": "kLINEAR", "StrideOrder": [1, 0]}, True),
        ({"Format": "kLINEAR", "Strides": [8, 1], "StrideOrder": [1, 0]}, True),
        ({"Format": "kLINEAR", "Strides": None, "StrideOrder": [1, 0]}, False),
        ({"Format": "kLINEAR", "Strides": None}, False),
        ({"Format": "kLINEAR", "Other": 1}, False),
        ({"Format": "kLINEAR", "Datatype": None}, False),
        ({"Format": 5}, False),
    ],
    ids=str,
)
def test_the_tensor_reader_caches_plain_objects_and_builds_the_rest(
    extra: dict[str, object], plain: bool
) -> None:
    reader = layers_module._TensorReader("x.json")
    obj = {**_FMT11, **extra}
    first, second = reader.tensor(dict(obj)), reader.tensor(dict(obj))
    assert first == second
    assert (first is second) == plain  # equal plain objects are one Tensor
    assert reader.shapes == {"Datatype": 1 if plain else 2}
    assert first.dims == (1, 8) and first.name == "t"
    assert first.strides == (tuple(extra["Strides"]) if extra.get("Strides") else None)  # type: ignore[arg-type]
    order = extra.get("StrideOrder")
    assert first.stride_order == (tuple(order) if order else None)  # type: ignore[arg-type]
    assert first.dtype == ("FP16" if extra.get("Datatype", 1) is not None else None)
    assert ("Other" in (first.model_extra or {})) == ("Other" in extra)


def test_the_tensor_reader_reads_the_10x_object_and_names_what_is_wrong() -> None:
    reader = layers_module._TensorReader("x.json")
    obj = {"Name": "t", "Location": "Device", "Dimensions": [1, 8.0], "Format/Datatype": "Half"}
    tensor = reader.tensor(obj)
    assert reader.tensor({**obj, "Dimensions": [1, 8]}) is tensor  # 8.0 and 8 key alike
    assert tensor.dims == (1, 8) and tensor.dtype == "FP16" and tensor.format == "Half"
    with pytest.raises(ValueError, match="dimensions that are not integers"):
        reader.tensor({**obj, "Dimensions": [1, [8]]})
    with pytest.raises(ValueError, match="dimensions that are not integers"):
        reader.tensor({**obj, "Dimensions": [1, 8.5]})
    with pytest.raises(TypeError, match="not a tensor object"):
        reader.tensor(["t"])
    lower = reader.tensor({k.lower(): v for k, v in obj.items()})
    assert lower == tensor and lower is not tensor  # an unusual object is built, not cached
