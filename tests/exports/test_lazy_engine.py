"""The engine loader's fast path (issue 14) against the general path, over every layer JSON.

``load_engine`` reads the layers frame straight from the JSON and builds the layer objects
when ``Engine.layers`` is first read; the general path builds every object first. Both must
give the same frame, the same engine (layers, times, notes) and the same serialisation.
"""

from __future__ import annotations

import copy
import pickle
import warnings
from pathlib import Path

import pandas as pd
import pytest

import trtlog
from trtlog.engine import Engine
from trtlog.exports import jsonio
from trtlog.exports import layers as layers_module
from trtlog.exports.read import read_json_file

from ..conftest import FIXTURES, corpus_json, layer_json_files

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


def _load(
    path: Path, profile: Path | None, general: bool, monkeypatch: pytest.MonkeyPatch
) -> Engine:
    with monkeypatch.context() as m:
        if general:
            m.setattr(layers_module, "_scan_rows", lambda *args: None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return trtlog.load_engine(path, profile=profile)


def test_the_fixtures_are_found() -> None:
    assert len(LAYER_FILES) >= 10
    assert sum(profile is not None for _, profile in PAIRS) >= 5


@pytest.mark.parametrize(("path", "profile"), PAIRS, ids=[p.name for p, _ in PAIRS])
def test_fast_path_equals_the_general_path(
    path: Path, profile: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    general = _load(path, profile, True, monkeypatch)
    fast = _load(path, profile, False, monkeypatch)
    assert general.layer_table() is None
    frame = fast.layers_frame()
    pd.testing.assert_frame_equal(frame, general.layers_frame())
    assert fast.notes == general.notes
    assert fast.profile == general.profile
    # the layers are built on access, equal to the general path's, times included
    assert fast.layers == general.layers
    assert fast == general
    assert fast.model_dump() == general.model_dump()
    assert fast.model_dump_json() == general.model_dump_json()
    assert fast.model_fields_set == general.model_fields_set
    # and the frame read from the objects is the same as the one read from the JSON
    assert fast.layer_table() is not None or general.layer_table() is None
    pd.testing.assert_frame_equal(fast.model_copy().layers_frame(), frame)


def test_the_fast_path_reads_every_fixture_written_as_trtexec_writes_it() -> None:
    for path in sorted(LAYER_INFO.glob("*layers*.json")):
        engine = trtlog.load_engine(path)
        assert engine.layer_table() is not None, path.name


def test_layers_are_built_on_first_access_and_cached() -> None:
    path = LAYER_INFO / "trt11.5-like_smallnet-fp16-autocast_layers-detailed.json"
    engine = trtlog.load_engine(path)
    assert "layers" not in engine.__dict__
    frame = engine.layers_frame()
    assert "layers" not in engine.__dict__  # the frame needs no layer object
    layers = engine.layers
    assert list(engine.__dict__) == list(Engine.model_fields)  # field order kept
    assert engine.layers is layers
    assert [layer.name for layer in layers] == list(frame["name"])


def test_copies_pickles_and_repr_of_a_lazy_engine() -> None:
    path = LAYER_INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
    profile = LAYER_INFO / "trt10.16-like_smallnet-fp16.profile.json"
    engine = trtlog.load_engine(path, profile=profile)
    again = trtlog.load_engine(path, profile=profile)
    assert pickle.loads(pickle.dumps(engine)) == again
    assert copy.deepcopy(again) == engine
    assert copy.copy(trtlog.load_engine(path)).layers == trtlog.load_engine(path).layers
    assert "layers" in repr(trtlog.load_engine(path))
    assert dict(trtlog.load_engine(path))["layers"] == engine.model_copy(
        update={"profile": None}
    ).layers[:0] + tuple(trtlog.load_engine(path).layers)
    copied = engine.model_copy(update={"notes": ()})
    assert copied.layer_table() is None and copied.layers == engine.layers


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
def test_generated_engines_read_alike_on_both_paths(
    shape: int,
    strides: bool,
    profile_edit: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import json

    bench = _bench_generator()
    value, profile = bench.generate(64, "t", shape, strides)  # type: ignore[attr-defined]
    if profile_edit == "records missing":  # layers without a time: exact names are enough
        profile = profile[:40]
    elif profile_edit == "records extra":
        profile = [*profile, {**profile[5], "name": "extra"}]
    elif profile_edit == "dup":  # a duplicated record name: the tolerant merge
        profile = [*profile, profile[7]]
    layers_path = tmp_path / "e.json"
    profile_path = tmp_path / "p.json"
    layers_path.write_text(json.dumps(value, indent=4))
    profile_path.write_text(json.dumps(profile))
    general = _load(layers_path, profile_path, True, monkeypatch)
    fast = _load(layers_path, profile_path, False, monkeypatch)
    table = fast.layer_table()
    if profile_edit == "dup":  # the tolerant merge needed the layer objects
        assert table is None
    else:
        assert table is not None and table.times is not None
    pd.testing.assert_frame_equal(fast.layers_frame(), general.layers_frame())
    assert fast == general
    assert fast.notes == general.notes


def test_a_lazy_engine_hashes_and_updates_like_an_eager_one() -> None:
    path = LAYER_INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
    with pytest.raises(TypeError, match="unhashable"):  # extras is a dict, as before
        hash(trtlog.load_engine(path))
    updated = trtlog.load_engine(path).model_copy(update={"layers": ()})
    assert list(updated.model_dump()) == list(Engine.model_fields)  # field order kept
    assert updated.layers == () and updated.layer_table() is None
    assert len(updated.layers_frame()) == 0


# -- reading each tensor once (issue 14: a layer's input is the output the layer before wrote) --


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
def test_an_input_equal_to_the_previous_output_reads_as_the_general_path(
    dims_in: list[object], location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    path = tmp_path / "chain.json"
    path.write_text(json.dumps(_chain(dims_in, location)))
    general = _load(path, None, True, monkeypatch)
    fast = _load(path, None, False, monkeypatch)
    assert fast.layer_table() is not None  # read by the scan, chain and all
    frame = fast.layers_frame()
    pd.testing.assert_frame_equal(frame, general.layers_frame())
    assert fast.layers == general.layers and fast.notes == general.notes
    b = fast.layers[1]
    assert b.inputs[0].dims == (1, 8) if dims_in[1] == 8 else (1, 9)
    assert b.inputs[0].location == location
    # an equal object is the tensor the previous layer wrote: one object, not two
    assert (b.inputs[0] is fast.layers[0].outputs[0]) == (dims_in[1] == 8 and location == "Device")
    assert frame["input_layouts"].tolist() == ["linear", "linear", "linear,linear"]


def test_lazy_layers_share_the_tensors_of_a_chain(tmp_path: Path) -> None:
    import json

    bench = _bench_generator()
    paths = bench.write_model(tmp_path, 200, "c")  # type: ignore[attr-defined]
    raw = json.loads(paths[0].read_text())["Layers"]
    engine = trtlog.load_engine(paths[0], profile=paths[1])
    layers = engine.layers
    # a layer that reads the tensor the layer before it wrote (an equal object: three in
    # four here; a convolution after a Myelin layer reads it in another format) shares it
    chained = [i for i in range(1, 200) if raw[i]["Inputs"][0] == raw[i - 1]["Outputs"][0]]
    assert len(chained) == 150
    assert all(layers[i].inputs is layers[i - 1].outputs for i in chained)
    assert not any(layers[i].inputs[0] == layers[i - 1].outputs[0] for i in range(0, 200, 4)[1:])
    eager = engine.model_copy()
    assert eager.layers == layers
    # what is read one by one before the bulk build is what the bulk build gives
    single = trtlog.load_engine(paths[0], profile=paths[1])
    picked = [single.layer_at(i) for i in (0, 57, 199)]
    assert [single.layers[i] for i in (0, 57, 199)] == picked == [layers[i] for i in (0, 57, 199)]
    assert single.layers[57] is picked[1]
    assert single.layers == layers and single.model_dump() == engine.model_dump()


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
