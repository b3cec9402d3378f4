"""The autotune and optimizer families in context (formats.md §D - §G).

The line fixtures check each message on its own; these tests check what a line does to the
lines around it: the Myelin tactic table on the hot path, the 10.x graph dump section, the
two-line scale messages and the 7.1 placement lists, and that no two alternatives of a start
rule match the same message.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.parser.envelope import split_envelope
from trtlog.parser.grammar import matchers
from trtlog.parser.source import split_lines
from trtlog.parser.stream import LogParser, default_dispatcher

_V = "[07/07/2026-02:11:09] [V] [TRT] "
_I = "[07/07/2026-02:11:09] [I] [TRT] "

MYELIN_TABLE = [
    _V + "Enabling FP8 fusions at optimization level 5",
    _V + " (foreignNode) Set user's cuda kernel library",
    _V + " (foreignNode) Autotuning op node_linear: [ONNX Layer: node_linear]",
    _V + " (foreignNode) Sorted table of all evaluated tactics:",
    _V + " (foreignNode) tactic_id, cost(in ms), cost/fastest_cost, prediction_correlation, "
    "kernel_name, tactic_hash, tunable_parameter",
    _V + " (foreignNode)    0, 0.0188384, 1.00000, 0.92564, sm80_xmma_gemm_a, 0x4841c72cefae1,",
    _V + " (foreignNode)   12, 0.0190000, 1.00858, 1.02000, sm80_xmma_gemm_b, 0x1f,",
    _V + " (foreignNode) 1024, 0.0200000, 1.06165, 0.50000, sm80_xmma_gemm_c, 0x2a, tp, 7",
    _V + "Subgraph compilation completed in 5.726 seconds.",
]


def _events(lines: list[str], *, compiled: bool = True) -> list[Any]:
    text = "".join(line + "\n" for line in lines)
    return list(LogParser(compiled=compiled).run(split_lines(text)))


def _kinds(lines: list[str]) -> list[str]:
    return [e.kind for e in _events(lines)]


def test_myelin_table_rows_are_typed_both_ways() -> None:
    fast = _events(MYELIN_TABLE)
    assert fast == _events(MYELIN_TABLE, compiled=False)
    rows = [e for e in fast if e.kind == "myelin_tactic"]
    assert [r.tactic_id for r in rows] == [0, 12, 1024]
    assert [r.kernel for r in rows] == ["sm80_xmma_gemm_a", "sm80_xmma_gemm_b", "sm80_xmma_gemm_c"]
    assert rows[0].tactic_hash == 0x4841C72CEFAE1 and rows[0].tunable is None
    assert rows[2].tunable == "tp" and rows[2].extra_columns == ("7",)
    assert "unrecognized" not in [e.kind for e in fast]


def test_myelin_lines_share_one_exclusive_keyword_row() -> None:
    # The hot path sends a message straight to an exclusive row (no table walk) and remembers
    # its whole-line matcher: every " (foreignNode) " line must reach the same row.
    dispatcher = default_dispatcher()
    routes = {
        id(dispatcher.lookup(line.split("[TRT] ", 1)[1], None)) for line in MYELIN_TABLE[1:-1]
    }
    assert len(routes) == 1
    message = MYELIN_TABLE[5].split("[TRT] ", 1)[1]
    route = dispatcher.lookup(message, None)
    assert route is not None and dispatcher.is_exclusive(route)


GRAPH_DUMP = [
    _V + "Original: 24 layers",
    _V + "After dead-layer removal: 24 layers",
    _V + "SYMBOLIC CHECKS",
    _V + "GRAPH NODES",
    _V + "CONSTANT gemm1.weight",
    _V + "    Output 0",
    _V + "        1024\t1024",
    _V + "CONVOLUTION node_conv2d",
    _V + "    Input 0",
    _V + "        [1,16]\tnBS",
    _V + "Graph construction completed in 0.037093 seconds.",
    _V + "CONSTANT gemm1.weight",
    _V + "    Input 0",
]


def test_graph_dump_is_a_section() -> None:
    events = _events(GRAPH_DUMP)
    assert events == _events(GRAPH_DUMP, compiled=False)
    assert [e.kind for e in events] == [
        "layer_count",
        "layer_count",
        "graph_dump_header",
        "graph_dump_header",
        "graph_dump_layer",
        "graph_dump_io",
        "graph_dump_dims",
        "graph_dump_layer",
        "graph_dump_io",
        "graph_dump_dims",
        "graph_build_done",
        # after the section the same shapes mean nothing
        "unrecognized",
        "unrecognized",
    ]
    layer = events[7]
    assert (layer.layer_type, layer.layer) == ("CONVOLUTION", "node_conv2d")
    assert events[9].values == ("[1,16]", "nBS")


def test_graph_dump_rows_outside_the_section_are_unrecognized() -> None:
    assert _kinds([_V + "CONSTANT gemm1.weight", _V + "        1024\t1024"]) == [
        "unrecognized",
        "unrecognized",
    ]


def test_scale_lines_pair_up_and_stand_alone() -> None:
    lines = [
        _V + "Assigning /a_out_tensor scale and zero-point ",
        _V + "using /b_output_0 scale and zero-point Quantization(scale: {0.5,}, zero-point: {0,})",
        _V + "Assigning /c_out_tensor scale and zero-point ",
        _V + "Generating copy after /Unsqueeze",
    ]
    events = _events(lines)
    assert events == _events(lines, compiled=False)
    assert [(e.kind, e.span) for e in events] == [
        ("scale_assigned", (1, 2)),
        ("scale_assigned", (3, 3)),
        ("copy_inserted", (4, 4)),
    ]
    assert (events[0].source, events[0].scales, events[0].zero_points) == (
        "/b_output_0",
        (0.5,),
        (0.0,),
    )
    assert events[1].source is None


def test_placement_list_takes_the_next_line_only_when_it_is_a_list() -> None:
    lines = [
        _I + "--------------- Layers running on DLA: ",
        _I,
        _I + "--------------- Layers running on GPU: ",
        _I + "conv1 + relu1, pool1",
        _I + "--------------- Layers running on GPU: conv2, pool2",
        _I + "Some tactics do not have sufficient workspace memory to run. Increasing workspace "
        "size may increase performance, please check verbose output.",
    ]
    events = _events(lines)
    assert events == _events(lines, compiled=False)
    assert [(e.kind, e.span) for e in events] == [
        ("placement_list", (1, 2)),
        ("placement_list", (3, 4)),
        ("placement_list", (5, 5)),
        ("workspace_hint", (6, 6)),
    ]
    assert [e.layers for e in events[:3]] == [(), ("conv1 + relu1", "pool1"), ("conv2", "pool2")]


@pytest.mark.parametrize(
    ("message", "layer"),
    [
        # names may hold ": " and " || "; the fixed text after them bounds them
        (
            "a: b || c: 24 available tactics, 12 unparsable, 6 pruned, 18 remaining after tactic "
            "pruning.",
            "a: b || c",
        ),
        (
            "x [Float(1,1) -> Float(1,1)]: 3 available tactics, 0 unparsable, 1 pruned, "
            "2 remaining after tactic pruning.",
            "x [Float(1,1) -> Float(1,1)]",
        ),
    ],
)
def test_tactic_pruning_names(message: str, layer: str) -> None:
    (event,) = _events([_V + message])
    assert (event.kind, event.layer) == ("tactic_pruning", layer)


def test_cached_tactic_layer_with_brackets() -> None:
    line = (
        _V + "(Unnamed Layer* 5) [Shuffle] [Float(1,2) -> Half(1,2), Float(3,4)] got cached "
        "result: Shuffle, tactic 0x0000000000000000, 0.001 ms"
    )
    (event,) = _events([line])
    assert event.kind == "cached_tactic"
    assert event.layer == "(Unnamed Layer* 5) [Shuffle]"
    assert [f.text for f in event.outputs] == ["Half(1,2)", "Float(3,4)"]
    assert event.tactic == 0 and event.time_ms == 0.001


def test_foreign_node_metadata_names_split_like_layer_metadata() -> None:
    line = (
        _V + "ForeignNode {ForeignNode[a...c]} metadata: [ONNX Layer: a]\x1e[ONNX Layer: b | "
        "doc]\x1e[ONNX Layer: c | Local Function: f]"
    )
    (event,) = _events([line])
    assert event.kind == "foreign_node_metadata"
    assert event.layer == "{ForeignNode[a...c]}"
    assert event.onnx_layers == ("a", "b", "c")


def _family_cases(family: str) -> list[tuple[list[str], dict[str, Any]]]:
    out = []
    blocks = (FIXTURES / "lines" / f"{family}.txt").read_text(encoding="utf-8").split("\n\n")
    for block in blocks:
        rows = [r for r in block.split("\n") if r and not r.startswith("#")]
        if len(rows) >= 2:
            out.append((rows[:-1], json.loads(rows[-1])))
    return out


@pytest.mark.parametrize("family", ["autotune", "optimizer"])
def test_no_two_alternatives_match_one_message(family: str) -> None:
    # The compiled matcher tries the alternative that matched last first: alternatives of one
    # start rule must not overlap, or the result would depend on the lines before.
    dispatcher = default_dispatcher()
    fam = next(f for f in dispatcher.families if f.name == family)
    compiled = matchers(fam).compiled()
    checked = 0
    for lines, _expected in _family_cases(family):
        message = split_envelope(lines[-1])[-1].rstrip()
        route = dispatcher.lookup(message, None)
        if route is None or route.family is not fam:
            continue
        matcher = compiled.get(route.rule.start)
        if matcher is not None:
            assert matcher.matches(message) <= 1, message
            checked += 1
    assert checked > 40


def test_tactics_of_a_myelin_build_parse() -> None:
    build = trtlog.parse_text("".join(line + "\n" for line in MYELIN_TABLE))
    assert len(build.events_of("myelin_tactic")) == 3
