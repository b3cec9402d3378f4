"""Layer-name splitting: the fast paths give what the general rules give."""

from __future__ import annotations

import re
from unittest.mock import patch

from hypothesis import given
from hypothesis import strategies as st

from trtlog import names
from trtlog.names import (
    _METADATA_SEPARATORS,
    ComposedName,
    _split,
    parse_metadata,
    split_name,
    split_top,
)

NAME_PIECES = st.sampled_from(
    [
        "/a/Conv",
        "conv1",
        "x",
        " + ",
        " || ",
        ", ",
        "+",
        "PWN(",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "{ForeignNode[",
        "...",
        "]}",
        "_clone_1",
        "_myl0_3",
        " [profile 1]",
        "Reformatting CopyNode for Input Tensor 0 to ",
        "Reformatted Output Tensor 1 to ",
        "(Unnamed Layer* 7) [ElementWise]",
    ]
)
NAMES = st.lists(NAME_PIECES, min_size=1, max_size=12).map("".join)


def _split_top_reference(text: str, sep: str) -> list[str]:
    """Character by character: split where the bracket depth is zero."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth = max(depth - 1, 0)
        elif depth == 0 and text.startswith(sep, i):
            out.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    out.append(text[start:])
    return out


@given(NAMES, st.sampled_from([" + ", " || ", ", ", "+"]))
def test_split_top_matches_the_character_scan(text: str, sep: str) -> None:
    assert split_top(text, sep) == _split_top_reference(text, sep)


@given(NAMES)
def test_leaf_fast_path_changes_nothing(text: str) -> None:
    fast = _split(text)
    with patch.object(names, "decorated", lambda _text: True):  # always: no fast path
        slow = _split(text)
    assert fast == slow


@given(NAMES)
def test_decorated_is_the_regex(text: str) -> None:
    assert names.decorated(text) == (names._DECORATED.search(text) is not None)


@given(st.lists(st.sampled_from(["/a/Conv", "/b/Relu", " | doc", "x"]), min_size=1, max_size=6))
def test_metadata_fast_split_matches_the_regex(names: list[str]) -> None:
    text = "\x1e".join(f"[ONNX Layer: {n}]" for n in names).replace("\x1e", "\x1f", 1)
    pieces = [p for p in _METADATA_SEPARATORS.split(text) if p]
    expected = tuple(re.sub(r"^\[ONNX Layer: |\]$", "", p).split(" | ")[0] for p in pieces)
    assert parse_metadata(text)[0] == expected


METADATA_PIECES = st.sampled_from(
    [
        "[ONNX Layer: ",
        "]",
        "\x1e",
        "\x1f",
        "\ufffd",
        "/a/Conv",
        "x",
        " | ",
        "Local Function: f",
        "][",
    ]
)


@given(st.lists(METADATA_PIECES, max_size=12).map("".join))
def test_metadata_whole_text_fast_path_changes_nothing(text: str) -> None:
    assert parse_metadata(text) == names._parse_groups(text)


COMPOSED = st.one_of(
    NAMES,
    st.tuples(NAMES, NAMES).map(lambda ends: f"{{ForeignNode[{ends[0]}...{ends[1]}]}}"),
    NAMES.map(lambda n: f"{{ForeignNode[{n}]}}"),
    NAMES.map(lambda n: f"Reformatting CopyNode for Network Input {n}"),
    NAMES.map(lambda n: f"Reformatting CopyNode for Input Tensor 0 to {n}"),
)


@given(COMPOSED, st.booleans())
def test_onnx_nodes_fast_paths_change_nothing(text: str, ordered: bool) -> None:
    """Reformats and plain ForeignNode ranges skip the name tree; the answer is the same."""
    nodes = ["/a/Conv", "x", "conv1", "/a/Conv_clone_1"] if ordered else None
    order = {n: i for i, n in enumerate(nodes)} if nodes else None
    fast = names.onnx_nodes_of_name(text, order, nodes)
    with (
        patch.object(names, "reformat_name", lambda _: False),
        patch.object(names, "foreign_range_ends", lambda _: None),
    ):
        slow = names.onnx_nodes_of_name(text, order, nodes)
    assert fast == slow
    assert names.reformat_name(text) == (split_name(text).base.op == "reformat")


def test_split_examples() -> None:
    assert split_name("a + b").members() == ["a", "b"]
    assert split_name("plain/name.with-dots").op == "leaf"
    assert split_name("x_clone_3").op == "clone"
    assert split_name("Reformatting CopyNode for Input Tensor 0 to a + b").op == "reformat"


def _members_reference(name: ComposedName) -> list[str]:
    """Every leaf's text in print order, a reformat holding none, without repeats."""
    out: list[str] = []

    def walk(node: ComposedName) -> None:
        if node.op == "leaf":
            out.append(node.text)
        elif node.op != "reformat":
            for part in node.parts:
                walk(part)

    walk(name)
    return list(dict.fromkeys(out))


@given(NAMES)
def test_members_are_the_leaves_in_order(text: str) -> None:
    name = split_name(text)
    assert name.members() == _members_reference(name)
    for part in name.parts:
        assert part.members() == _members_reference(part)
