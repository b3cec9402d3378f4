"""TensorRT 11 layer JSON: ``I/O Tensors``, split ``Datatype``/``Format``, never silently empty.

The fixtures are written from NVIDIA's "Migrating IEngineInspector Usage from TensorRT 10.x to
11.x" page (fixtures/README.md): one engine (``smallnet``, an AutoCast FP16 model built
strongly typed) exported in both shapes, a names-only 11.x export, an FP32 and a Q/DQ engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.errors import InputError
from trtlog.exports.jsonio import JsonRepairWarning
from trtlog.exports.layers import LayerInfoWarning, engine_from_json, load_engine

LI = FIXTURES / "layer_info"
AUTOCAST_10 = LI / "trt10.16-like_smallnet-fp16-autocast_layers-detailed.json"
AUTOCAST_11 = LI / "trt11.5-like_smallnet-fp16-autocast_layers-detailed.json"
AUTOCAST_PROFILE = LI / "trt11.5-like_smallnet-fp16-autocast.profile.json"
NAMES_11 = LI / "trt11.5-like_smallnet-fp16-autocast_layers-names.json"
FP32_11 = LI / "trt11.5-like_smallnet-fp32_layers-detailed.json"
QDQ_11 = LI / "trt11.5-like_smallnet-qdq-int8_layers-detailed.json"
TORCH_LAYERS = LI / "torchtrt-like_smallnet_layer_information.json"
TORCH_TRACE = LI / "torchtrt-like_smallnet_engine_execution_profile.trace"


def test_one_engine_written_both_ways_gives_the_same_frames() -> None:
    old = load_engine(AUTOCAST_10, profile=AUTOCAST_PROFILE)
    new = load_engine(AUTOCAST_11, profile=AUTOCAST_PROFILE)
    pd.testing.assert_frame_equal(old.layers_frame(), new.layers_frame())
    pd.testing.assert_frame_equal(old.tensors_frame(), new.tensors_frame())
    pd.testing.assert_frame_equal(old.modules_frame(), new.modules_frame())
    assert [x.precision for x in old.layers] == [x.precision for x in new.layers]
    assert old.bindings == new.bindings == ("images", "logits")
    assert old.notes == new.notes == ()
    # the comparison sees one engine: every step the same layer
    cmp = trtlog.compare(old, new)
    assert {s.marker for s in cmp.steps} == {"="}
    # and every finding reads the same (the file names in the evidence aside)
    a, b = trtlog.lint(old), trtlog.lint(new)
    assert [(f.rule, f.subject, f.message) for f in a] == [
        (f.rule, f.subject, f.message) for f in b
    ]


def test_split_keys_give_dtype_layout_vector_strides_and_location() -> None:
    engine = load_engine(AUTOCAST_11)
    stem = engine.layers[0]
    (images,) = stem.inputs
    assert (images.dtype, images.layout, images.vector, images.location) == (
        "FP16",
        "linear",
        None,
        "Device",
    )
    assert images.datatype == "Half"
    assert images.format == "Row major linear FP16 format (kLINEAR)"
    assert images.strides == (150528, 50176, 224, 1)
    assert images.stride_order == (0, 1, 2, 3)
    (out,) = stem.outputs
    assert (out.dtype, out.layout, out.vector_width, out.vector) == ("FP16", "hwc8", 8, (1, 8))
    assert out.strides == (401408, 1, 3584, 32)  # channels innermost: channel-major HWC8
    assert out.stride_order == (0, 2, 3, 1)
    assert out.element_bits == 16
    # nothing is lost: the raw file holds what the tensor holds
    raw = json.loads(AUTOCAST_11.read_text())["Layers"][0]["Outputs"][0]
    assert (raw["Datatype"], raw["Format"], raw["Strides"]) == (
        out.datatype,
        out.format,
        list(out.strides or ()),
    )


def test_io_tensors_are_the_engine_inputs_and_outputs() -> None:
    engine = load_engine(AUTOCAST_11)
    assert engine.bindings == ("images", "logits")  # what "Bindings" listed before 11
    (images,) = engine.inputs
    (logits,) = engine.outputs
    assert images.is_input and not logits.is_input
    assert (images.io_mode, images.data_type, images.dtype) == ("Input", "Half", "FP16")
    assert images.dims == (1, 3, 224, 224)
    assert (images.location, images.shape_inference) == ("Device", False)
    (profile,) = images.profiles
    assert profile.min_shape == profile.opt_shape == profile.max_shape == (1, 3, 224, 224)
    assert (profile.format, profile.layout) == ("Row major linear FP16 format (kLINEAR)", "linear")
    assert logits.dims == (1, 1000)
    # the new top-level keys are kept as written
    assert engine.extras == {
        "ProfilingVerbosity": "kDETAILED",
        "Engine Metadata": {"TensorRTVersion": "11.5.0"},
    }
    assert trtlog.Engine.model_validate_json(engine.model_dump_json()) == engine


def test_names_only_11x_export() -> None:
    engine = load_engine(NAMES_11)
    assert not engine.detailed
    assert len(engine.layers) == 6
    assert engine.layers[2].onnx_nodes == ("/stage1/conv2/Conv", "/stage1/Add", "/stage1/act2/Relu")
    assert [t.name for t in engine.io_tensors] == ["images", "logits"]
    assert engine.io_tensors[1].dtype == "FP16"
    assert engine.bindings == ("images", "logits")
    assert len(engine.notes) == 1 and engine.notes[0].startswith("names-only engine")
    assert engine.extras["ProfilingVerbosity"] == "kLAYER_NAMES_ONLY"


def _one_layer(tensor: dict[str, Any], **top: Any) -> dict[str, Any]:
    layer = {"Name": "conv", "LayerType": "CaskConvolution", "Inputs": [tensor], "Outputs": []}
    return {"Layers": [layer], **top}


def test_a_future_key_shape_is_never_silently_empty(tmp_path: Path) -> None:
    # a made-up later shape: the type and layout under keys trtlog does not know
    tensor = {
        "Name": "x",
        "Location": "Device",
        "Dimensions": [1, 8, 4, 4],
        "ElementType": "Half",
        "MemoryLayout": "kHWC8",
    }
    path = tmp_path / "future.json"
    path.write_text(json.dumps(_one_layer(tensor, **{"Tensor Table": []})), encoding="utf-8")
    with pytest.warns(LayerInfoWarning) as caught:
        engine = load_engine(path)
    notes = " ".join(engine.notes)
    assert "1 of 1 tensors have no data type" in notes
    assert "no 'Format/Datatype', 'Datatype' or 'Format' key" in notes
    assert "'ElementType' (1), 'MemoryLayout' (1)" in notes
    assert "'top level: Tensor Table'" in notes
    messages = " ".join(str(w.message) for w in caught)
    assert "'ElementType'" in messages and "'MemoryLayout'" in messages
    assert "'top level: Tensor Table'" in messages
    # the values are kept, and the frame's empty cells are explained by the notes
    (x,) = engine.layers[0].inputs
    assert x.dtype is None and x.model_extra == {"ElementType": "Half", "MemoryLayout": "kHWC8"}
    assert pd.isna(engine.layers_frame()["precision"][0])
    assert engine.extras == {"Tensor Table": []}


def test_an_unknown_datatype_value_is_named(tmp_path: Path) -> None:
    tensor = {
        "Name": "x",
        "Location": "Device",
        "Dimensions": [4],
        "Datatype": "Float12",
        "Format": "Row major linear format (kLINEAR)",
    }
    with pytest.warns(LayerInfoWarning, match="'Datatype' value that names no data type"):
        engine = engine_from_json(_one_layer(tensor), "x.json")
    (x,) = engine.layers[0].inputs
    assert (x.dtype, x.layout, x.datatype) == (None, "linear", "Float12")
    assert "'Float12'" in engine.notes[0]


def test_strided_11x_tensors_convert_numbers_and_name_bad_ones() -> None:
    def tensor(name: str, strides: list[Any], order: list[Any]) -> dict[str, Any]:
        return {
            "Name": name,
            "Location": "Device",
            "Dimensions": [1, 4],
            "Datatype": "Float",
            "Format": "Row major linear FP32 format (kLINEAR)",
            "Strides": strides,
            "StrideOrder": order,
        }

    layers: dict[str, Any] = {
        "Layers": [
            {"Name": "a", "Inputs": [tensor("x", [4.0, 1], ["0", 1])], "Outputs": []},
            # the same tensor again: one Tensor; with other strides: another one
            {"Name": "b", "Inputs": [tensor("x", [4.0, 1], ["0", 1])], "Outputs": []},
            {"Name": "c", "Inputs": [tensor("x", [1, 1], [1, 0])], "Outputs": []},
        ]
    }
    engine = engine_from_json(layers, "x.json")
    a, b, c = (x.inputs[0] for x in engine.layers)
    assert a is b
    assert (a.strides, a.stride_order) == ((4, 1), (0, 1))
    assert (c.strides, c.stride_order) == ((1, 1), (1, 0))
    layers["Layers"][2]["Inputs"][0]["Strides"] = [1, "one"]
    with pytest.raises(InputError, match=r"Layers\[2\]\.Inputs\[0\] .*strides"):
        engine_from_json(layers, "x.json")
    layers["Layers"][2]["Inputs"][0]["Strides"] = [1, [1]]  # unhashable: the general path
    with pytest.raises(InputError, match=r"Layers\[2\]\.Inputs\[0\]"):
        engine_from_json(layers, "x.json")


def test_a_10x_tensor_without_a_type_is_said_too() -> None:
    tensor = {"Name": "x", "Location": "Device", "Dimensions": [4], "Format/Datatype": "Blob"}
    with pytest.warns(LayerInfoWarning, match="'Format/Datatype' value"):
        engine = engine_from_json(_one_layer(tensor, Bindings=["x"]), "x.json")
    assert engine.notes and "'Blob'" in engine.notes[0]


def test_new_data_types_are_dtypes() -> None:
    tensor = {
        "Name": "scales",
        "Location": "Device",
        "Dimensions": [1, 64, 4],
        "Datatype": "E8M0",
        "Format": "Row major linear E8M0 format (kLINEAR)",
    }
    engine = engine_from_json(_one_layer(tensor), "x.json")
    (scales,) = engine.layers[0].inputs
    assert (scales.dtype, scales.element_bits, scales.layout) == ("E8M0", 8, "linear")
    # FP4 and INT4 as TensorRT 11 names them
    for word, dtype, bits in (("FP4", "FP4", 4), ("Int4", "INT4", 4), ("BFloat16", "BF16", 16)):
        tensor = {**tensor, "Datatype": word}
        (t,) = engine_from_json(_one_layer(tensor), "x.json").layers[0].inputs
        assert (t.dtype, t.element_bits) == (dtype, bits)


def test_a_format_naming_the_enum_alone_gives_the_layout() -> None:
    tensor = {
        "Name": "x",
        "Location": "Device",
        "Dimensions": [1, 64, 8, 8],
        "Datatype": "Int8",
        "Format": "kCHW32",
    }
    (x,) = engine_from_json(_one_layer(tensor), "x.json").layers[0].inputs
    assert (x.dtype, x.layout, x.vector) == ("INT8", "chw32", (1, 32))


def test_bad_io_tensors_give_an_input_error() -> None:
    value = {"Layers": [], "I/O Tensors": [{"Name": "x", "Dimensions": [1.5]}]}
    with pytest.raises(InputError, match=r"I/O Tensors\[0\]\.Dimensions"):
        engine_from_json(value, "x.json")
    with pytest.raises(InputError, match="'I/O Tensors' is not a list"):
        engine_from_json({"Layers": [], "I/O Tensors": {"x": 1}}, "x.json")


def test_torch_tensorrt_layer_information_and_trace_load() -> None:
    # <name>_layer_information.json is the inspector's JSON; the TREx-format trace has no
    # {"count": N} header and a comma after the last key of every record
    with pytest.warns(JsonRepairWarning, match="4 trailing comma"):
        engine = load_engine(TORCH_LAYERS, profile=TORCH_TRACE)
    assert engine.profile is not None and engine.profile.iterations is None
    times = [(x.time.average_ms, x.time.reason) for x in engine.layers if x.time]
    assert times == [(0.04982, None), (0.03021, None), (0.00571, None), (0.00953, None)]
    assert engine.layers[0].onnx_nodes == ("/stem/conv/convolution", "/stem/act/relu")
    assert engine.layers_frame()["precision"].tolist() == ["FP16"] * 4
    # the percentages are the trace's own (they sum to 100 over its records)
    assert sum(x.time.percentage for x in engine.layers if x.time) == pytest.approx(100, abs=1e-3)


@pytest.mark.parametrize("path", [AUTOCAST_11, FP32_11, QDQ_11, NAMES_11, TORCH_LAYERS])
def test_11x_fixtures_leave_no_tensor_untyped(path: Path) -> None:
    engine = load_engine(path)
    assert all(t.dtype for x in engine.layers for t in (*x.inputs, *x.outputs))
    assert all(t.dtype for t in engine.io_tensors)
    assert not [n for n in engine.notes if not n.startswith("names-only")]
