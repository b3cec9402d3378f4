"""Engines from layer-info JSON and from logs: loading, profile merge, Myelin groups, modules."""

from __future__ import annotations

import contextlib
import json
import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from tests.conftest import CORPUS, FIXTURES, corpus_json, needs_corpus
from trtlog.engine.model import Engine, EngineLayer, Profile, ProfileRecord, ProfileRun
from trtlog.errors import InputError
from trtlog.exports.jsonio import JsonRepairWarning
from trtlog.exports.layers import LayerInfoWarning, engine_from_json, load_engine
from trtlog.exports.read import detect_kind, read_json_file
from trtlog.frames import SCHEMAS
from trtlog.names import onnx_nodes_of_name

# seed copies (fixtures/README.md): these tests run without the corpus
RESNET18 = FIXTURES / "layer_info"
BERT = FIXTURES / "logs"


def _layer_jsons() -> list[Path]:
    out = []
    for path in corpus_json():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JsonRepairWarning)
            if detect_kind(read_json_file(path)[1][0]) == "layers":
                out.append(path)
    return out


LAYER_JSONS = _layer_jsons()
PAIRS = [
    (
        "trt-unknown_bev-as-model-fp16_layers-detailed-prettyprinted.json",
        "trt-unknown_bev-as-model-fp16_profile.json",
    ),
    (
        "trt-unknown_lidar-dmt-model-qdq-tofp16_layers-detailed.json",
        "trt-unknown_lidar-dmt-model-qdq-tofp16_profile.json",
    ),
    (
        "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
        "trt10.4_resnet18-fp16-rtx3060_profile.json",
    ),
    ("trt8.6_controlnet-fp16_layers-detailed.json", "trt8.6_controlnet-fp16_profile.json"),
    (
        "trt-unknown_detr-resnet50-int8-layerprec_layers-names.json",
        "trt-unknown_detr-resnet50-int8-layerprec_profile.json",
    ),
]


@needs_corpus
@pytest.mark.parametrize("path", LAYER_JSONS, ids=lambda p: p.name)
def test_every_corpus_layer_json_loads(path: Path) -> None:
    engine = load_engine(path)
    assert engine.layers
    assert [layer.index for layer in engine.layers] == list(range(len(engine.layers)))
    frame = engine.layers_frame()
    assert list(frame.columns) == list(SCHEMAS["layers"])
    assert len(frame) == len(engine.layers)
    if engine.detailed:
        assert any(layer.type for layer in engine.layers)
        assert any(t.dtype for layer in engine.layers for t in layer.outputs)
    else:
        assert engine.notes and "profilingVerbosity=detailed" in engine.notes[0]


@needs_corpus
@pytest.mark.parametrize(("layers", "profile"), PAIRS, ids=lambda v: v[:30])
def test_corpus_profiles_merge_completely(layers: str, profile: str) -> None:
    engine = load_engine(CORPUS / layers, profile=CORPUS / profile)
    assert engine.profile is not None
    assert all(layer.time is not None and layer.time.known for layer in engine.layers)
    assert engine.total_ms == pytest.approx(engine.profile.total_ms)
    percentages = sum(layer.time.percentage for layer in engine.layers if layer.time)
    assert percentages == pytest.approx(100, abs=0.5)
    assert not any("match no layer" in note for note in engine.notes)


def test_resnet18_seed_pair() -> None:
    names = load_engine(RESNET18 / "trt10.x_resnet18-v1-7-fp16-int8_layers-names.json")
    detailed = load_engine(RESNET18 / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json")
    assert len(names.layers) == len(detailed.layers) == 25
    assert [x.name for x in names.layers] == [x.name for x in detailed.layers]
    assert not names.detailed and detailed.detailed
    conv = detailed.layers[1]
    assert conv.type == "CaskConvActPool"
    assert conv.outputs[0].dtype == "INT8" and conv.outputs[0].layout == "chw32"
    assert conv.outputs[0].vector == (1, 32)
    assert conv.onnx_source == "metadata"
    assert conv.onnx_nodes == (
        "resnetv15_conv0_fwd",
        "resnetv15_batchnorm0_fwd",
        "resnetv15_relu0_fwd",
        "resnetv15_pool0_fwd",
    )
    assert conv.precision.compute == "INT8"
    # the names-only engine finds the same nodes in the fused name
    assert names.layers[1].onnx_nodes == conv.onnx_nodes
    assert names.layers[1].onnx_source == "name"
    sparse = detailed.layers_frame()["sparse_weights"]
    assert sparse.notna().any()
    assert detailed.bindings == ("data", "resnetv15_dense0_fwd")


def test_bert_seeds_group_into_one_region() -> None:
    detailed = trtlog.parse(BERT / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log").engine
    default = trtlog.parse(
        BERT / "trt10.10_bert-matcher-fp16_engine-layer-info-names-only.log"
    ).engine
    assert detailed is not None and default is not None
    assert len(default.layers) == 2 and len(detailed.layers) == 89
    regions = [x.name for x in default.layers if x.name.startswith("{ForeignNode[")]
    (group,) = detailed.groups("myelin", regions=regions)
    assert group.region == regions[0]
    assert len(group.kernels) == 88
    assert group.kernel_types["kgen"] > 0 and group.kernel_types["gemm"] > 0
    first = group.ops[
        "__myl_GathGathGathMulAddMulAddCastMeanSubMulMeanAddSqrtDivMulCastMulAdd_myl0_0"
    ]
    assert first[:4] == ("Gather", "Gather", "Gather", "Mul")
    assert "88 kernels" in group.summary and "one {ForeignNode[...]} layer" in group.summary
    (whole,) = default.groups("myelin")
    assert whole.region == regions[0] and not whole.kernels


@needs_corpus
def test_log_and_json_engines_agree() -> None:
    from_json = load_engine(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json")
    build = trtlog.parse(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log")
    from_log = build.engine
    assert from_log is not None and from_log.origin == "log_inspector"
    assert [x.name for x in from_log.layers] == [x.name for x in from_json.layers]
    assert [x.type for x in from_log.layers] == [x.type for x in from_json.layers]
    for a, b in zip(from_log.layers, from_json.layers, strict=True):
        assert [t.dtype for t in a.inputs] == [t.dtype for t in b.inputs]
        assert [t.dims for t in a.outputs] == [t.dims for t in b.outputs]
        assert a.onnx_nodes == b.onnx_nodes
        assert a.parameters == b.parameters
    # the two files come from two builds of the same model (MANIFEST: different commits):
    # kernel choices may differ for a layer, and do for exactly one
    differ = [
        a.name
        for a, b in zip(from_log.layers, from_json.layers, strict=True)
        if a.tactic != b.tactic
    ]
    assert len(differ) <= 1
    assert list(from_log.layers_frame().dtypes) == list(from_json.layers_frame().dtypes)
    names_json = load_engine(CORPUS / "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json")
    names_log = trtlog.parse(
        CORPUS / "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log"
    ).engine
    assert names_log is not None and names_log.origin == "log_names"
    assert [x.name for x in names_log.layers] == [x.name for x in names_json.layers]
    assert names_log.bindings == names_json.bindings


def _engine(*names: str) -> Engine:
    return Engine(
        source="test",
        origin="layer_json",
        detailed=False,
        layers=tuple(EngineLayer(index=i, name=n) for i, n in enumerate(names)),
    )


def _profile(*records: tuple[str, float]) -> Profile:
    return Profile(
        source="p",
        runs=(
            ProfileRun(
                records=tuple(
                    ProfileRecord(name=n, time_ms=10 * t, average_ms=t, percentage=t)
                    for n, t in records
                )
            ),
        ),
    )


def test_merge_duplicates_profiles_and_missing() -> None:
    engine = _engine("a", "a", "b [profile 1]", "c")
    merged = engine.with_profile(_profile(("a", 1.0), ("a", 2.0), ("b", 3.0), ("zz", 4.0)))
    times = [layer.time for layer in merged.layers]
    assert [t.average_ms for t in times[:3] if t] == [1.0, 2.0, 3.0]
    assert times[2] is not None and times[2].reason == "matched without its [profile N] suffix"
    assert times[3] is not None and math.isnan(times[3].average_ms)
    assert times[3].reason == "not in the profile"
    assert "1 profile record(s) match no layer: 'zz'" in merged.notes[-1]


def test_merge_sums_myelin_kernels_into_their_region() -> None:
    engine = _engine("{ForeignNode[a...b]}", "tail")
    profile = _profile(
        ("__myl_AddMul_myl0_0", 1.0), ("/q/MatMul+/k/MatMul_myl0_1", 2.0), ("tail", 3.0)
    )
    region = engine.with_profile(profile).layers[0].time
    assert region is not None and region.average_ms == 3.0
    assert region.profile_names == ("__myl_AddMul_myl0_0", "/q/MatMul+/k/MatMul_myl0_1")
    assert region.reason == "sum of 2 Myelin kernel records"


def test_onnx_nodes_of_names() -> None:
    assert onnx_nodes_of_name("PWN(PWN(a, b), c)") == (("a", "b", "c"), "name")
    assert onnx_nodes_of_name("x_clone_2") == (("x",), "name")
    torch_tensorrt = (
        "[CONVOLUTION]-[aten_ops.convolution.default]-[/conv1/convolution]"
        " + [RELU]-[aten_ops.relu.default]-[/relu/relu]"
    )
    assert onnx_nodes_of_name(torch_tensorrt) == (("/conv1/convolution", "/relu/relu"), "name")
    assert onnx_nodes_of_name("{ForeignNode[a...c]}")[0] == ("a", "c")


def test_module_tree_rolls_up() -> None:
    layers = (
        EngineLayer(index=0, name="x", onnx_nodes=("/enc/l0/a/MatMul", "/enc/l0/a/Add")),
        EngineLayer(index=1, name="y", onnx_nodes=("/enc/l1/b/MatMul",)),
        EngineLayer(index=2, name="z", onnx_nodes=("/enc/l0/a/Relu", "/enc/l1/b/Relu")),
    )
    engine = Engine(source="t", origin="layer_json", detailed=False, layers=layers)
    engine = engine.with_profile(_profile(("x", 1.0), ("y", 2.0), ("z", 4.0)))
    tree = engine.module_tree()
    assert tree.layers == 3 and tree.time_ms == 7.0
    enc = tree.find("/enc")
    assert enc.layers == 3 and enc.own_layers == 1  # z spans l0 and l1
    assert tree.find("/enc/l0/a").time_ms == 1.0
    frame = engine.modules_frame()
    assert list(frame.columns) == list(SCHEMAS["modules"])
    assert frame.loc[frame["module"] == "/enc", "percentage"].item() == pytest.approx(100.0)


def test_not_a_layer_json(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('[{"count": 1}, {"name": "a", "timeMs": 1, "averageMs": 1, "percentage": 100}]')
    with pytest.raises(InputError, match="per-layer profile"):
        load_engine(path)
    bad = tmp_path / "b.json"
    bad.write_text('{"Layers": [{"Name": "a", "Inputs": [5]}]}')
    with pytest.raises(InputError, match=r"Layers\[0\]\.Inputs\[0\] is not a tensor object"):
        load_engine(bad)


def test_unknown_keys_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    path.write_text(
        json.dumps(
            {
                "Layers": [
                    {
                        "Name": "conv",
                        "LayerType": "CaskConvolution",
                        "Inputs": [
                            {
                                "Name": "x",
                                "Dimensions": [1, 3],
                                "Format/Datatype": "Half",
                                "Future": 1,
                            }
                        ],
                        "Outputs": [],
                        "NewKey": [1, 2],
                    }
                ],
                "Bindings": ["x"],
                "EngineVersion": "11.0",
            }
        )
    )
    # unknown keys are kept, and said: a note on the engine and a warning naming the key
    with pytest.warns(LayerInfoWarning) as caught:
        engine = load_engine(path)
    layer = engine.layers[0]
    assert layer.parameters == {"NewKey": [1, 2]}  # layer keys are open-ended parameters
    assert layer.inputs[0].model_extra == {"Future": 1}
    assert engine.extras == {"EngineVersion": "11.0"}
    messages = [str(w.message) for w in caught]
    assert any("'Future' (1)" in m for m in messages)
    assert any("'top level: EngineVersion'" in m for m in messages)
    assert [n for n in engine.notes if "'Future'" in n or "EngineVersion" in n] == [
        m.split(": ", 1)[1] for m in messages
    ]
    assert Engine.model_validate_json(engine.model_dump_json()) == engine


# NaN and infinities included: the reader repairs the nan/inf that trtexec writes
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "Layers",
                    "Name",
                    "Inputs",
                    "Outputs",
                    "Dimensions",
                    "Format/Datatype",
                    "TacticValue",
                    "Metadata",
                    "LayerType",
                    "Location",
                    "StreamId",
                    "TacticName",
                    "ParameterType",
                    "x",
                    # TensorRT 11 keys
                    "Datatype",
                    "Format",
                    "Strides",
                    "StrideOrder",
                    "I/O Tensors",
                    "IOMode",
                    "DataType",
                    "ProfileInfo",
                    "MinShape",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@given(JSON_VALUES)
def test_any_json_value_gives_an_engine_or_an_input_error(value: Any) -> None:
    try:
        engine = engine_from_json(value, "fuzz", warn=False)
    except InputError:
        return
    assert isinstance(engine, Engine)
    # layers are assembled without validation: they must hold what validation would accept
    for layer in engine.layers:
        assert EngineLayer.model_validate(layer.model_dump()) == layer
    assert len(engine.layers_frame()) == len(engine.layers)


@pytest.mark.parametrize(
    ("dims", "expected"),
    [([2.0, 3], (2, 3)), (["12", 4], (12, 4)), ([1.5], None), ([math.inf], None), ([[1]], None)],
)
def test_tensor_dimensions_must_be_whole_numbers(dims: list[Any], expected: Any) -> None:
    """Whole floats and numeric strings are read; 1.5 is not truncated, inf is an InputError."""
    tensor = {"Name": "t", "Location": "Device", "Dimensions": dims, "Format/Datatype": "Half"}
    value = {"Layers": [{"Name": "a", "LayerType": "X", "Inputs": [tensor]}]}
    if expected is None:
        with pytest.raises(
            InputError, match=r"Layers\[0\]\.Inputs\[0\] has dimensions that are not"
        ):
            engine_from_json(value, "x")
    else:
        assert engine_from_json(value, "x").layers[0].inputs[0].dims == expected


PROFILE_ITEMS = st.dictionaries(
    st.sampled_from(["name", "timeMs", "averageMs", "medianMs", "percentage", "count", "x"]),
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    max_size=6,
)


@given(PROFILE_ITEMS | JSON_VALUES)
def test_any_json_file_gives_a_profile_or_an_input_error(value: Any) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.json"
        path.write_text(json.dumps([{"count": 3}, value]), encoding="utf-8")
        for loader in (trtlog.load_profile, trtlog.load_times):
            with contextlib.suppress(InputError):
                loader(path)


def test_tensors_frame_edges_and_padded_bytes() -> None:
    engine = load_engine(RESNET18 / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json")
    frame = engine.tensors_frame()
    assert list(frame.columns) == list(SCHEMAS["tensors"])
    # the network input is read by the first layer and written by none
    (data,) = frame[frame["tensor"] == "data"].itertuples()
    assert data.producer is pd.NA and data.consumer_index == 0
    # the network output is written by the last layer and read by none
    last = frame[frame["tensor"] == engine.bindings[-1]]
    assert last["consumer"].isna().all() and (last["producer_index"] == 24).all()
    # every other edge joins a producer to a later consumer
    inner = frame.dropna(subset=["producer_index", "consumer_index"])
    assert (inner["producer_index"] < inner["consumer_index"]).all()
    assert len(inner) >= 24
    chw32 = frame[(frame["layout"] == "chw32") & (frame["dims"] == "1x64x56x56")].iloc[0]
    assert chw32["bytes"] == 64 * 56 * 56


def test_tensor_bytes_pad_the_vectorized_axis() -> None:
    layer = {
        "Name": "conv",
        "LayerType": "CaskConvolution",
        "Inputs": [],
        "Outputs": [
            {
                "Name": "y",
                "Location": "Device",
                "Dimensions": [2, 3, 4, 5],
                "Format/Datatype": "Thirty-two wide channel vectorized row major Int8 format",
            }
        ],
    }
    (row,) = engine_from_json([layer], "x").tensors_frame().itertuples()
    assert row.dims == "2x3x4x5"
    assert row.bytes == 2 * 32 * 4 * 5  # 3 channels stored as 32


NODE_NAMES = st.lists(st.sampled_from(["/", "a", "b", "Conv", "//", "x.0"]), max_size=6).map(
    "".join
)


@given(st.lists(NODE_NAMES, min_size=1, max_size=4))
def test_layer_module_is_the_common_module_path(nodes: list[str]) -> None:
    from trtlog.names import common_module, module_path

    placed = [n for n in nodes if "/" in n] or nodes  # names without "/" name no module
    paths = [module_path(n) for n in placed]
    common: tuple[str, ...] = paths[0]
    for path in paths[1:]:
        n = 0
        while n < min(len(common), len(path)) and common[n] == path[n]:
            n += 1
        common = common[:n]
    assert common_module(nodes) == "/" + "/".join(common)


@given(st.lists(st.sampled_from(["/", "a", "b", "//", "x.0", "\n", "\n/"]), max_size=8))
def test_one_nodes_module_is_what_the_general_path_gives(parts: list[str]) -> None:
    """The single-node shortcut of ``common_module`` against its general path: the node
    given twice takes the general path and has the same common module."""
    from trtlog.names import common_module

    node = "".join(parts)
    assert common_module([node]) == common_module([node, node])


@needs_corpus
def test_log_engine_expands_foreign_node_ranges_in_parse_order() -> None:
    """Without the ForeignNode metadata lines, ranges expand with the ONNX parse order."""
    path = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    text = "".join(line for line in lines if "] ForeignNode {ForeignNode[" not in line)
    build = trtlog.parse_text(text)
    assert not build.events_of("foreign_node_metadata")
    assert build.engine is not None
    first = build.engine.layers[0]
    assert first.name == "{ForeignNode[node_conv2d...node_relu]}"
    assert first.onnx_nodes == ("node_conv2d", "node_relu") and first.onnx_source == "range"


FOREIGN_LOG = """\
[07/07/2026-02:11:19] [I] TensorRT version: 10.16.1
[07/07/2026-02:11:19] [V] [TRT] ForeignNode {ForeignNode[gemm2.bias...cast_9]} metadata: \
[ONNX Layer: node_view][ONNX Layer: node_linear][ONNX Layer: node_relu]
[07/07/2026-02:11:24] [V] [TRT] Engine Layer Information:
Layer(CaskPooling): node_pool, Tactic: 0xdd39499496c9cc38, x (Float[1,32,28,28]) -> p \
(Float[1,32,14,14])
Layer(Myelin): {ForeignNode[gemm2.bias...cast_9]}, Tactic: 0x0000000000000000, p \
(Float[1,32,14,14]) -> y (Float[1,10])
"""


def test_log_foreign_node_takes_its_onnx_nodes_from_the_metadata_line() -> None:
    """A ``{ForeignNode[a...b]}`` listing row gets the metadata line's nodes, not its name's."""
    engine = trtlog.parse_text(FOREIGN_LOG).engine
    assert engine is not None
    pool, region = engine.layers
    assert (pool.onnx_nodes, pool.onnx_source) == (("node_pool",), "name")
    assert region.onnx_nodes == ("node_view", "node_linear", "node_relu")
    assert region.onnx_source == "metadata"


@needs_corpus
def test_corpus_foreign_node_metadata_names_the_real_onnx_nodes() -> None:
    """10.16.1 MNIST fp16: the last region's name shows TRT helpers; the metadata shows nodes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build = trtlog.parse(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log")
    assert build.engine is not None
    regions = [lay for lay in build.engine.layers if lay.name.startswith("{ForeignNode[")]
    assert [lay.onnx_source for lay in regions] == ["metadata"] * 3
    assert regions[-1].onnx_nodes[0] == "node_view"
    assert "ONNXTRT_Broadcast_4" not in regions[-1].onnx_nodes


def test_layer_module_of_odd_names() -> None:
    """Empty parts are dropped ("a/b/" is in /a), names without a leading "/" are rooted."""
    from trtlog.names import common_module

    assert common_module(("a/b/x",)) == "/a/b"
    assert common_module(("a/b/",)) == "/a"
    assert common_module(("a/b/x", "a//b/y")) == "/a/b"
    assert common_module(("/m/x/Conv", "/m/y/Relu")) == "/m"
    assert common_module(("/a/b/x", "a/b/y", "/z/w")) == "/"  # rooted before comparing
    assert common_module(("/a/b-c/x", "/a/b/y")) == "/a"


def test_layer_json_template_lists_every_field_in_order() -> None:
    from trtlog.exports.layers import _LAYER_TEMPLATE

    assert list(_LAYER_TEMPLATE) == list(EngineLayer.model_fields)


# -- Myelin regions and reformats in the module tree ---------------------

REGION = (
    "{ForeignNode[enc.l0.weight + (Unnamed Layer* 9) [Shuffle].../enc/l1/MatMul + /enc/l1/Add]}"
)


def _region_engine() -> Engine:
    layers = (
        EngineLayer(index=0, name="Reformatting CopyNode for Network Input x"),
        EngineLayer(index=1, name=f"Reformatting CopyNode for Input Tensor 0 to {REGION}"),
        EngineLayer(
            index=2,
            name=REGION,
            type="Myelin",
            onnx_nodes=(
                "enc.l0.weight",
                "(Unnamed Layer* 9) [Shuffle]",
                "/enc/l0/MatMul",
                "/enc/l0/Add",
                "/enc/l1/MatMul",
                "/enc/l1/Add",
            ),
        ),
        EngineLayer(index=3, name="dec.w + /dec/Conv", onnx_nodes=("dec.w", "/dec/Conv")),
        EngineLayer(index=4, name="Reformatting CopyNode for Output Tensor 0 to dec.w + /dec/Conv"),
    )
    engine = Engine(source="t", origin="layer_json", detailed=True, layers=layers)
    return engine.with_profile(
        _profile(
            ("Reformatting CopyNode for Network Input x", 0.5),
            (f"Reformatting CopyNode for Input Tensor 0 to {REGION}", 1.0),
            (REGION, 4.0),
            ("dec.w + /dec/Conv", 2.0),
            ("Reformatting CopyNode for Output Tensor 0 to dec.w + /dec/Conv", 0.25),
        )
    )


def test_module_tree_splits_a_region_over_its_nodes_modules() -> None:
    """Initializers and TensorRT's own layers name no module; a region spans /enc/l0 and l1."""
    from trtlog.engine.modules import layer_modules

    engine = _region_engine()
    where = layer_modules(engine)
    assert [m.how for m in where] == ["none", "served", "split", "nodes", "served"]
    assert where[2].home == ("enc",)
    assert dict(where[2].shares) == {("enc", "l0"): 0.5, ("enc", "l1"): 0.5}
    assert where[1].served == 2 and where[4].served == 3
    tree = engine.module_tree()
    assert tree.time_ms == pytest.approx(7.75)
    enc = tree.find("/enc")
    assert enc.time_ms == pytest.approx(5.0) and enc.split_ms == 0.0  # region + its reformat
    assert enc.own_layers == 2 and enc.layers == 2
    l0 = tree.find("/enc/l0")
    assert l0.time_ms == pytest.approx(2.5) and l0.split_ms == pytest.approx(2.5)
    assert l0.layers == 2 and l0.own_layers == 0
    assert tree.find("/dec").time_ms == pytest.approx(2.25)
    root_own = tree.time_ms - sum(c.time_ms for c in tree.children)
    assert root_own == pytest.approx(0.5)  # only the network-input reformat stays at the root
    frame = engine.layers_frame()
    assert list(frame["module"]) == ["/", "/enc", "/enc", "/dec", "/dec"]
    modules = engine.modules_frame().set_index("module")
    assert modules.loc["/enc/l1", "split_ms"] == pytest.approx(2.5)


@needs_corpus
def test_controlnet_regions_and_reformats_leave_the_root_module() -> None:
    """ControlNet: 7 ForeignNode regions (1.239 ms) and the reformats used to sit in "/"."""
    engine = load_engine(
        CORPUS / "trt8.6_controlnet-fp16_layers-detailed.json",
        profile=CORPUS / "trt8.6_controlnet-fp16_profile.json",
    )
    tree = engine.module_tree()
    assert tree.time_ms == pytest.approx(engine.total_ms)  # nothing lost or counted twice
    # the first region, profile.json line 72: "averageMs" : 0.224357
    block = tree.find("/input_blocks.1/input_blocks.1.1")
    region = engine.layers[69]
    assert region.name.startswith("{ForeignNode[input_blocks.1.1.transformer_blocks.0.norm1")
    assert region.time is not None and region.time.average_ms == 0.224357
    assert block.time_ms > 0.224357 and block.own_layers >= 1
    frame = engine.layers_frame()
    regions = frame[frame["type"] == "Myelin"]
    assert len(regions) == 7
    assert regions["time_ms"].sum() == pytest.approx(1.239, abs=5e-4)
    assert (regions["module"] != "/").all()
    copies = frame["name"].str.startswith("Reformatting CopyNode")
    reformats = frame[copies & (frame["time_ms"] > 0)]
    assert len(reformats) == 59
    at_root = reformats[reformats["module"] == "/"]
    # the one reformat left at the root feeds "/input_blocks.0/input_blocks.0.0/Conv + /Add",
    # a layer whose /Add is at the root (profile.json: 0.00410739 ms)
    assert list(at_root["name"]) == [
        "Reformatting CopyNode for Input Tensor 0 to /input_blocks.0/input_blocks.0.0/Conv + /Add"
    ]
    assert frame.loc[105, "module"] == "/input_blocks.2/input_blocks.2.1"  # feeds a region
    # what stays at the root: /Cast, /Mul, PWN(/Sin), PWN(/Cos), the conv + /Add and its
    # reformat (profile.json: 0.00412379 + 0.00542188 + 0.00449843 + 0.00447757 + 0.00827379
    # + 0.00410739); the Gemm merged over 10 modules (0.0365637) is split among them
    root_own = tree.time_ms - math.fsum(c.time_ms for c in tree.children if c.time_ms == c.time_ms)
    assert root_own == pytest.approx(0.03090285, abs=1e-9)
    assert tree.find("/input_blocks.7").split_ms == pytest.approx(0.0365637 / 10)


def test_module_tree_and_layer_modules_assembled_are_valid() -> None:
    """module_tree and layer_modules assemble their models: validating again changes nothing."""
    from trtlog.engine.modules import LayerModules, ModuleNode, layer_modules

    paths = sorted((FIXTURES / "layer_info").glob("*layers-detailed.json"))
    paths += [p for p in corpus_json() if "layers" in p.name]
    split = served = 0
    for path in paths:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            engine = load_engine(path)
        tree = engine.module_tree()
        assert ModuleNode.model_validate(tree.model_dump()) == tree, path.name
        assert all(n.model_fields_set == set(ModuleNode.model_fields) for n in tree.walk())
        for found in layer_modules(engine):
            again = LayerModules.model_validate(found.model_dump(exclude_unset=True))
            assert again == found and again.model_fields_set == found.model_fields_set
            split += found.how == "split"
            served += found.how == "served"
    if CORPUS.is_dir():  # the fixtures have neither kind: the corpus engines have both
        assert split and served  # both kinds of attribution were checked


def _with_profiles() -> list[tuple[Path, Path | None]]:
    out: list[tuple[Path, Path | None]] = []
    for path in sorted((FIXTURES / "layer_info").glob("*layers*.json")) + [
        p for p in corpus_json() if "layers" in p.name
    ]:
        stem = path.name.split("_layers")[0]
        profiles = [path.parent / (stem + s) for s in (".profile.json", "_profile.json")]
        out.append((path, next((p for p in profiles if p.exists()), None)))
    return out


@pytest.mark.parametrize("path, profile", _with_profiles(), ids=lambda p: getattr(p, "name", ""))
def test_layer_modules_share_one_attribution_per_home_as_the_general_path(
    path: Path, profile: Path | None
) -> None:
    """layer_modules (the ``nodes`` attributions shared per home, the paths kept per node)
    equals ``_by_nodes`` of each layer alone, with ``module_path`` and no shared model."""
    from trtlog.engine.modules import _by_nodes, _model, _splits, layer_modules, served_layer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = load_engine(path, profile=profile)
    got = layer_modules(engine)
    layers = engine.layers
    index: dict[str, int] = {}
    for i, lay in enumerate(layers):
        index.setdefault(lay.name, i)
    own = [_model(_by_nodes(lay.onnx_nodes, _splits(lay.type, lay.name))) for lay in layers]
    for i, (lay, found) in enumerate(zip(layers, got, strict=True)):
        expected = own[i]
        served, nodes = served_layer(layers, i, index)
        if served is not None or nodes:
            general = own[served] if served is not None else _model(_by_nodes(nodes, False))
            if general.how != "none":
                at = None if served is None else layers[served].index
                expected = _model((general.home, general.shares, "served", at))
        assert found == expected, lay.name
        assert found.model_fields_set == expected.model_fields_set, lay.name
