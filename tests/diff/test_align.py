"""The alignment: known edits are recovered, a build compared with itself is all ``=``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.diff.engines import EDITS, Block, blocks, edit, engine, random_edits
from trtlog.diff import Comparison, compare_engines
from trtlog.engine.model import Engine, EngineLayer
from trtlog.tensors import Tensor


def _pairs(cmp: Comparison) -> set[tuple[int, int]]:
    return {
        (s.index_a, s.index_b) for s in cmp.steps if s.index_a is not None and s.index_b is not None
    }


def _check_rows(cmp: Comparison, size_a: int, size_b: int) -> None:
    """Every B layer on exactly one row, every A layer on at least one, rows numbered."""
    assert [s.number for s in cmp.steps] == list(range(1, len(cmp.steps) + 1))
    b_rows = [s.index_b for s in cmp.steps if s.index_b is not None]
    assert sorted(b_rows) == list(range(size_b))
    assert {s.index_a for s in cmp.steps if s.index_a is not None} == set(range(size_a))
    for s in cmp.steps:
        assert (s.marker == "~") == bool(s.reasons)
        assert (s.marker == "-") == (s.index_b is None)
        assert (s.marker == "+") == (s.index_a is None)


@given(n=st.integers(1, 40), seed=st.integers(0, 10_000))
def test_an_engine_compared_with_itself_is_all_equal(n: int, seed: int) -> None:
    eng = engine(blocks(n, seed))
    cmp = compare_engines(eng, eng)
    assert [(s.marker, s.index_a, s.index_b) for s in cmp.steps] == [("=", i, i) for i in range(n)]
    assert cmp.groups == () and cmp.unmatched_a == () and cmp.unmatched_b == ()


@given(
    edits=st.lists(st.sampled_from(EDITS), min_size=1, max_size=40),
    seed=st.integers(0, 10_000),
)
def test_random_edits_are_recovered(edits: list[str], seed: int) -> None:
    source = blocks(len(edits), seed)
    edited = edit(source, edits, seed)  # type: ignore[arg-type]
    cmp = compare_engines(engine(source), engine(edited.blocks))
    _check_rows(cmp, len(source), len(edited.blocks))
    assert _pairs(cmp) == edited.pairs
    assert set(cmp.unmatched_a) == edited.only_a
    assert set(cmp.unmatched_b) == edited.only_b
    reasons = {(s.index_a, s.index_b): s.reasons for s in cmp.steps}
    for pair, tag in edited.reasons.items():
        assert any(r.startswith(tag) for r in reasons[pair]), (pair, tag, reasons[pair])
    for i, j in edited.pairs - set(edited.reasons):
        a, b = source[i], edited.blocks[j]
        if a.tactic == b.tactic and a.dtype == b.dtype and a.nodes == b.nodes:
            assert reasons[(i, j)] in ((), ("order",)), (i, j, reasons[(i, j)])


def test_a_large_edited_engine_is_recovered() -> None:
    rates = {"precision": 0.4, "split": 0.03, "drop": 0.02, "insert": 0.02, "qdq": 0.1}
    rates |= {"swap": 0.01, "clone": 0.01}
    source = blocks(1500, 7)
    edited = edit(source, random_edits(1500, rates, 7), 7)  # type: ignore[arg-type]
    cmp = compare_engines(engine(source), engine(edited.blocks))
    _check_rows(cmp, len(source), len(edited.blocks))
    assert _pairs(cmp) == edited.pairs
    assert set(cmp.unmatched_a) == edited.only_a
    assert set(cmp.unmatched_b) == edited.only_b
    splits = sum(
        1 for i in set(i for i, _j in edited.pairs) if [p for p in edited.pairs if p[0] == i][1:]
    )
    assert len([g for g in cmp.groups if g.kind == "split"]) == splits


def _layer(index: int, name: str, nodes: tuple[str, ...] = (), **kw: object) -> EngineLayer:
    source = "metadata" if nodes else "none"
    return EngineLayer(index=index, name=name, onnx_nodes=nodes, onnx_source=source, **kw)  # type: ignore[arg-type]


def _engine(*layers: EngineLayer, detailed: bool = True) -> Engine:
    return Engine(source="x", origin="layer_json", detailed=detailed, layers=layers)


def test_one_fp16_layer_becomes_int8_pieces_and_qdq_reformats() -> None:
    fp16 = Tensor(name="t", dtype="FP16", dims=(1, 32, 8, 8), layout="hwc8")
    int8 = Tensor(name="t", dtype="INT8", dims=(1, 32, 8, 8), layout="chw32")
    a = _engine(
        _layer(
            0,
            "/c/Conv + /Add + /r/Relu",
            ("/c/Conv", "/Add", "/r/Relu"),
            type="CaskConvolution",
            outputs=(fp16,),
        ),
    )
    b = _engine(
        _layer(
            0,
            "w + /c/wq/QuantizeLinear + /c/Conv",
            ("/c/wq/QuantizeLinear", "/c/Conv", "/add_q/QuantizeLinear"),
            type="CaskConvolution",
            outputs=(int8,),
        ),
        _layer(
            1,
            "/add_q/DequantizeLinear",
            ("/add_q/DequantizeLinear",),
            type="Reformat",
            inputs=(int8,),
            outputs=(fp16,),
        ),
        _layer(2, "PWN(/Add, /r/Relu)", ("/Add", "/r/Relu"), type="PointWiseV2", outputs=(fp16,)),
    )
    cmp = compare_engines(a, b)
    rows = [(s.marker, s.index_a, s.index_b) for s in cmp.steps]
    assert rows == [("~", 0, 0), ("+", None, 1), ("~", 0, 2)]
    assert "split" in cmp.steps[0].reasons and "precision FP16→INT8" in cmp.steps[0].reasons
    (group,) = cmp.groups
    assert group.kind == "split"
    assert group.nodes == ("/c/Conv", "/Add", "/r/Relu")
    assert (group.layers_a, group.layers_b) == ((0,), (0, 2))
    assert group.qdq_nodes == ("/add_q/QuantizeLinear", "/add_q/DequantizeLinear")
    assert group.describe().startswith("3 nodes were 1 layer in A and 2 layers in B")


def test_layers_merged_in_b() -> None:
    a = _engine(_layer(0, "x", ("x",)), _layer(1, "y", ("y",)), _layer(2, "z", ("z",)))
    b = _engine(_layer(0, "x + y", ("x", "y")), _layer(1, "z", ("z",)))
    cmp = compare_engines(a, b)
    assert [(s.marker, s.index_a, s.index_b, s.reasons) for s in cmp.steps] == [
        ("~", 0, 0, ("merged",)),
        ("~", 1, 0, ("merged",)),
        ("=", 2, 1, ()),
    ]
    assert [g.kind for g in cmp.groups] == ["merged"]


def test_renamed_clones_and_profile_copies_align() -> None:
    a = _engine(_layer(0, "/q/QuantizeLinear_clone_0 + /c/Conv"), _layer(1, "/d/Relu [profile 1]"))
    b = _engine(_layer(0, "/q/QuantizeLinear_clone_3 + /c/Conv"), _layer(1, "/d/Relu"))
    cmp = compare_engines(a, b)
    assert [(s.marker, s.reasons) for s in cmp.steps] == [("~", ("renamed",)), ("~", ("renamed",))]


def test_reordered_layers_are_paired_not_dropped() -> None:
    a = _engine(*(_layer(i, n, (n,)) for i, n in enumerate("abcde")))
    b = _engine(*(_layer(i, n, (n,)) for i, n in enumerate("abdce")))
    cmp = compare_engines(a, b)
    assert _pairs(cmp) == {(0, 0), (1, 1), (2, 3), (3, 2), (4, 4)}
    assert [s.reasons for s in cmp.steps].count(("order",)) == 1
    assert cmp.unmatched_a == cmp.unmatched_b == ()


def test_a_myelin_region_against_its_kernels() -> None:
    a = _engine(
        _layer(0, "/pre/Conv", ("/pre/Conv",)),
        _layer(1, "{ForeignNode[/attn/MatMul.../attn/Softmax]}", type="Myelin"),
        _layer(2, "/post/Conv", ("/post/Conv",)),
    )
    b = _engine(
        _layer(0, "/pre/Conv", ("/pre/Conv",)),
        _layer(1, "__myl_MulAdd_myl0_0", type="kgen"),
        _layer(2, "/attn/q/MatMul_myl0_1", type="gemm"),
        _layer(3, "__myl_Softmax_myl0_2", type="kgen"),
        _layer(4, "/post/Conv", ("/post/Conv",)),
    )
    cmp = compare_engines(a, b)
    assert [(s.marker, s.index_a, s.index_b) for s in cmp.steps] == [
        ("=", 0, 0),
        ("~", 1, 1),
        ("~", 1, 2),
        ("~", 1, 3),
        ("=", 2, 4),
    ]
    assert all({"split", "myelin"} <= set(s.reasons) for s in cmp.steps[1:4])


def test_reformats_pair_by_the_layer_they_feed_or_their_place() -> None:
    f32 = Tensor(name="i", dtype="FP32", dims=(1, 3, 8, 8))
    f16 = Tensor(name="o", dtype="FP16", dims=(1, 3, 8, 8))
    i8 = Tensor(name="o", dtype="INT8", dims=(1, 3, 8, 8))
    a = _engine(
        _layer(
            0,
            "Reformatting CopyNode for Input Tensor 0 to /c/Conv",
            type="Reformat",
            inputs=(f32,),
            outputs=(f16,),
        ),
        _layer(1, "/c/Conv", ("/c/Conv",)),
    )
    b = _engine(
        _layer(
            0,
            "/c/in_q/QuantizeLinear",
            ("/c/in_q/QuantizeLinear",),
            type="Reformat",
            inputs=(f32,),
            outputs=(i8,),
        ),
        _layer(1, "/c/Conv", ("/c/Conv",)),
    )
    cmp = compare_engines(a, b)
    assert [(s.marker, s.index_a, s.index_b) for s in cmp.steps] == [("~", 0, 0), ("=", 1, 1)]
    assert "reformat FP32→FP16 vs FP32→INT8" in cmp.steps[0].reasons


def test_names_only_against_detailed_compares_names_and_nodes_only() -> None:
    t = Tensor(name="t", dtype="INT8", dims=(1, 8))
    a = _engine(_layer(0, "a + b"), _layer(1, "c"), detailed=False)
    b = _engine(
        _layer(0, "a + b", ("a",), type="CaskConvolution", outputs=(t,), tactic=5),
        _layer(1, "c", ("a",), type="NoOp", outputs=(t,)),
    )
    cmp = compare_engines(a, b)
    assert cmp.markers() == {"=": 2, "~": 0, "-": 0, "+": 0}
    assert cmp.node_source == "name"
    assert cmp.groups == ()
    assert any("names-only" in n for n in cmp.notes)
    assert cmp.summary().names_only


def test_nothing_in_common_is_all_one_sided_with_a_note() -> None:
    a = _engine(_layer(0, "a", ("a",)), _layer(1, "b", ("b",)))
    b = _engine(_layer(0, "x", ("x",)))
    cmp = compare_engines(a, b)
    assert cmp.markers() == {"=": 0, "~": 0, "-": 2, "+": 1}
    assert any("same model" in n for n in cmp.notes)


def test_layer_indexes_are_positions() -> None:
    a = _engine(_layer(5, "a", ("a",)), _layer(9, "b", ("b",)))
    cmp = compare_engines(a, a)
    assert [(s.index_a, s.index_b) for s in cmp.steps] == [(0, 0), (1, 1)]
    assert [v.index for v in cmp.layers_a] == [0, 1]


def test_blocks_helper_is_deterministic() -> None:
    assert blocks(5, 3) == blocks(5, 3)
    assert isinstance(blocks(1)[0], Block)


def test_myelin_kernels_renumbered_by_another_build_pair_by_their_ops() -> None:
    def kernels(*names: str) -> Engine:
        return _engine(*(_layer(i, n, type="kgen") for i, n in enumerate(names)))

    a = kernels("__myl_AddMul_myl0_0", "__myl_Exp_myl0_1", "__myl_AddMul_myl0_2")
    b = kernels("__myl_AddMul_myl1_0", "__myl_AddMul_myl1_1", "__myl_Exp_myl1_2")
    cmp = compare_engines(a, b)
    assert [(s.index_a, s.index_b, s.reasons) for s in cmp.steps] == [
        (0, 0, ("renamed",)),
        (2, 1, ("order", "renamed")),
        (1, 2, ("renamed",)),
    ]
    assert cmp.layers_a[0].onnx_nodes == ()  # a generated kernel's name lists ops, not nodes
