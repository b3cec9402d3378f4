"""``split_shape`` (plain tuples, for big merge graphs) gives ``split_name``'s tree."""

from __future__ import annotations

import pytest
from hypothesis import given

from tests.conftest import FIXTURES, corpus_logs, needs_corpus
from tests.test_names import NAMES
from trtlog.names import MAX_DEPTH, ComposedName, Shape, split_name, split_shape


def _same(shape: Shape, name: ComposedName) -> None:
    assert (shape.text, shape.op, shape.number, shape.detail) == (
        name.text,
        name.op,
        name.index,
        name.detail,
    )
    assert len(shape.parts) == len(name.parts)
    for a, b in zip(shape.parts, name.parts, strict=True):
        _same(a, b)


def _check(text: str) -> None:
    shape, name = split_shape(text), split_name(text)
    _same(shape, name)
    assert shape.members() == name.members()


HOSTILE = [
    "PWN(PWN(/a/Add, /a/Mul), /a/Sigmoid)",
    "a + b || c + PWN(d, e)",
    "{ForeignNode[/a/MatMul.../b/Softmax]}",
    "{ForeignNode[a + b...PWN(c, d)]}",
    "{a,b,c}",
    "Reformatting CopyNode for Input Tensor 0 to a + b",
    "Reformatting CopyNode for Network Input images",
    "Reformatted Output Tensor 1 to /c/Conv",
    "x_clone_2 [profile 3]",
    "/l0/key/MatMul+/l0/query/MatMul_myl0_1",
    "__myl_AddCastMean_myl3_7",
    "(Unnamed Layer* 5) [Shuffle]",
    "PWN(" * 40 + "x" + ")" * 40,  # deeper than MAX_DEPTH: the rest stays one leaf
    " + ".join(["PWN(a, b)"] * 50),
    # split_shape's fusion of plain names, and names just outside it
    "/a/Conv + /a/BatchNormalization + /a/Relu",
    "a + b) + c]",
    "a +  + b + ",
    " + ",
    "a + b\n + c",
    "a + Reformatting CopyNode for Input Tensor 0 to b",
    "a + b_clone_1",
    "a + b_myl0_1",
    "a + b || c",
    "a + b [profile 1]",
    "",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_shape_equals_the_composed_name(text: str) -> None:
    _check(text)


def test_the_depth_bound_is_the_same() -> None:
    text = "PWN(" * (MAX_DEPTH + 5) + "x" + ")" * (MAX_DEPTH + 5)
    shape, depth = split_shape(text), 0
    while shape.parts:
        shape, depth = shape.parts[0], depth + 1
    assert depth == MAX_DEPTH  # then the rest is kept whole, as split_name keeps it
    _check(text)


@given(NAMES)
def test_shape_equals_the_composed_name_on_generated_names(text: str) -> None:
    _check(text)


def _layer_names(path: str) -> list[str]:
    import trtlog

    graph = trtlog.parse(path).merge_graph()
    return [d["name"] for _, d in graph.nodes(data=True) if d["kind"] != "pass"]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("logs/*.log")), ids=lambda p: p.name)
def test_shape_equals_the_composed_name_on_fixture_names(path: object) -> None:
    for text in _layer_names(str(path)):
        _check(text)


@needs_corpus
def test_shape_equals_the_composed_name_on_corpus_names() -> None:
    count = 0
    for path in corpus_logs():
        for text in _layer_names(str(path)):
            _check(text)
            count += 1
    assert count > 1000
