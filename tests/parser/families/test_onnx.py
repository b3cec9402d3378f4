"""The onnx family's multi-line constructs and the exactness of the parser's node events.

The model-info block, the parser's node error, the deconvolution note and the plugin-library
note are continuations (formats.md T4): one event each, and the lines after them are left to
the events they belong to.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from tests.conftest import FIXTURES, corpus_logs, needs_corpus
from tests.parser.family_checks import (
    check_blank_lines_inside,
    check_partitions_and_agrees,
    multi_line_cases,
)
from trtlog.events.onnx import (
    OnnxModelInfo,
    OnnxNodeError,
    OnnxNodeIo,
    OnnxParseNode,
    OnnxRegisterLayer,
    PluginLibsNote,
)

LOG_70 = FIXTURES / "logs" / "trt7.0_onnx-parse-error_python-legacy.log"

_TS = "[04/24/2026-02:26:01]"
MODEL_INFO = [
    f"{_TS} [I] [TRT] " + "-" * 64,
    f"{_TS} [I] [TRT] Input filename:   /cookbook/00-Data/model/model-addscalar.onnx",
    f"{_TS} [I] [TRT] ONNX IR version:  0.0.11",
    f"{_TS} [I] [TRT] Opset version:    11",
    f"{_TS} [I] [TRT] Producer name:",
    f"{_TS} [I] [TRT] Producer version:",
    f"{_TS} [I] [TRT] Domain:",
    f"{_TS} [I] [TRT] Model version:    0",
    f"{_TS} [I] [TRT] Doc string:",
    f"{_TS} [I] [TRT] " + "-" * 64,
]
NODE_ERROR = [
    f'{_TS} [E] [TRT] ModelImporter.cpp:138: While parsing node number 0 [AddScalar -> "out"]:',
    f"{_TS} [E] [TRT] ModelImporter.cpp:140: --- Begin node ---",
    'input: "inputT0"',
    'output: "out"',
    'name: "CustomOpModel-N-0-AddScalar"',
    'op_type: "AddScalar"',
    "attribute {",
    '  name: "scalar"',
    "  f: 1",
    "  type: FLOAT",
    "}",
    "",
    f"{_TS} [E] [TRT] ModelImporter.cpp:141: --- End node ---",
    f"{_TS} [E] [TRT] ModelImporter.cpp:149: ERROR: onnxOpCheckers.cpp:923 In function "
    "checkFallbackPluginImporter:",
    '[6] creator && "Plugin not found, are the plugin name, version, and namespace correct?"',
]


def _parse(lines: list[str]) -> trtlog.Build:
    return trtlog.parse_text("".join(line + "\n" for line in lines))


def _kinds(build: trtlog.Build) -> list[tuple[str, tuple[int, int]]]:
    return [(e.kind, e.span) for e in build.events]


def test_model_info_block_is_one_event_and_stops_at_the_closing_rule() -> None:
    # 10.14.1 (corpus): a plugin's printf follows the closing rule without envelope
    lines = [*MODEL_INFO, "0x733af8e88300[getPluginNamespace]", f"{_TS} [I] Done"]
    build = _parse(lines)
    assert _kinds(build)[:2] == [("onnx_model_info", (1, 10)), ("unrecognized", (11, 11))]
    info = build.events[0]
    assert isinstance(info, OnnxModelInfo)
    assert (info.input_filename, info.opset, info.producer_name) == (
        "/cookbook/00-Data/model/model-addscalar.onnx",
        11,
        "",
    )


def test_model_info_block_without_its_closing_rule() -> None:
    # a doc string with a line break cuts the block short: the first 9 lines still make one
    # event, the doc string's second line is foreign
    lines = [*MODEL_INFO[:8], f"{_TS} [I] [TRT] Doc string:       first line", "second line"]
    build = _parse(lines)
    assert _kinds(build) == [("onnx_model_info", (1, 9)), ("unrecognized", (10, 10))]
    info = build.events[0]
    assert isinstance(info, OnnxModelInfo)
    assert info.doc_string == "first line"


def test_a_lone_rule_line_stays_unrecognized() -> None:
    build = _parse([f"{_TS} [I] [TRT] " + "-" * 64, f"{_TS} [I] Start parsing network model."])
    assert _kinds(build) == [("unrecognized", (1, 1)), ("parse_start", (2, 2))]


def test_node_error_is_one_event_and_leaves_trtexec_follow_ups_alone() -> None:
    lines = [
        *NODE_ERROR,
        f"{_TS} [E] Failed to parse onnx file",
        f"{_TS} [I] Finished parsing network model. Parse time: 0.00104328",
    ]
    build = _parse(lines)
    assert _kinds(build) == [
        ("onnx_node_error", (1, 15)),
        ("app_error", (16, 16)),
        ("parse_end", (17, 17)),
    ]
    error = build.events[0]
    assert isinstance(error, OnnxNodeError)
    assert error.node_inputs == ("inputT0",)
    assert error.node_outputs == ("out",)
    assert error.node_name == "CustomOpModel-N-0-AddScalar"
    assert (error.code, error.function) == (6, "checkFallbackPluginImporter")
    assert error.node_text is not None and error.node_text.endswith("}")


def test_two_node_errors_are_two_events() -> None:
    build = _parse([*NODE_ERROR, *NODE_ERROR])
    assert _kinds(build) == [("onnx_node_error", (1, 15)), ("onnx_node_error", (16, 30))]


def test_a_python_traceback_after_a_node_error_stays_foreign() -> None:
    lines = [
        NODE_ERROR[0],
        NODE_ERROR[-2],
        NODE_ERROR[-1],
        "Traceback (most recent call last):",
        '  File "build.py", line 12, in <module>',
        "RuntimeError: failed to parse the ONNX file",
    ]
    build = _parse(lines)
    assert [e.kind for e in build.events] == ["onnx_node_error"] + ["unrecognized"] * 3
    assert build.events[0].span == (1, 3)
    assert all(getattr(e, "sub_case", None) == "foreign_line" for e in build.events[1:])


def test_seven_x_log_with_cout_block_and_cerr_error() -> None:
    # fixtures/logs/trt7.0_onnx-parse-error_python-legacy.log: 7.0 Python build, the model-info
    # block without envelope, every parser message with its source prefix, a cerr error
    build = trtlog.parse(LOG_70)
    kinds = [e.kind for e in build.events]
    assert kinds.count("onnx_model_info") == 1
    assert kinds.count("onnx_node_error") == 1
    assert kinds[-1] == "unrecognized"  # "terminate called after throwing ..."
    nodes = [e for e in build.events if isinstance(e, OnnxParseNode)]
    assert [(n.node, n.op, n.source_file) for n in nodes] == [
        ("conv1", "Conv", "ModelImporter.cpp"),
        ("relu1", "Relu", "ModelImporter.cpp"),
        ("resize1", "Resize", "ModelImporter.cpp"),
    ]
    error = next(e for e in build.events if isinstance(e, OnnxNodeError))
    assert (error.node_index, error.op, error.code) == (2, "Resize", 5)
    assert [e.kind for e in build.events if e.kind == "unrecognized"] == ["unrecognized"]


def test_plugin_library_note_is_one_event() -> None:
    ts = "[05/01/2023-10:00:00] [I] "
    lines = [
        ts + "The following plugin libraries were identified by the parser as required for a "
        "version-compatible engine:",
        ts + "    ./libA.so",
        ts + "    ./libB.so",
        ts + "These libraries will be added to --dynamicPlugins for use at inference time.",
        ts + "Use --ignoreParsedPluginLibs to disable this behavior.",
        ts + "Start parsing network model.",
    ]
    build = _parse(lines)
    assert _kinds(build) == [("plugin_libs_note", (1, 5)), ("parse_start", (6, 6))]
    note = build.events[0]
    assert isinstance(note, PluginLibsNote)
    assert note.libraries == ("./libA.so", "./libB.so")
    assert note.serialized is False


@pytest.mark.parametrize(
    ("tail", "tensors"),
    [
        ("", []),
        (" [a -> (1)[INT64]],", [{"name": "a", "dims": (1,), "dtype": "INT64"}]),
        # a name holding " -> " and brackets (T1)
        (
            " [x -> y [1] -> (2, -1)[HALF]], [optional input, not set],",
            [{"name": "x -> y [1]", "dims": (2, -1), "dtype": "HALF"}, {"name": None}],
        ),
        # a list the item grammar cannot read stays one name
        (" [odd", [{"name": "[odd"}]),
    ],
)
def test_node_io_lists(tail: str, tensors: list[dict[str, Any]]) -> None:
    build = _parse([f"[01/10/2024-21:52:52] [V] [TRT] n [Concat] inputs:{tail}"])
    event = build.events[0]
    assert isinstance(event, OnnxNodeIo)
    got = [t.model_dump(exclude_defaults=True) for t in event.tensors]
    assert got == [{k: v for k, v in t.items() if v is not None or k == "name"} for t in tensors]


_PARSING = re.compile(r"\] (?:\[TRT\] )?(?:ModelImporter\.cpp:\d+: )?Parsing node: (.*)$")
_REGISTERING = re.compile(r"\] (?:\[TRT\] )?Registering layer: (.*)$")


@needs_corpus
@pytest.mark.parametrize("path", corpus_logs(), ids=lambda p: p.name)
def test_parse_node_and_register_layer_events_are_exact(path: Path) -> None:
    # The merge graph expands {ForeignNode[a...b]} ranges with the parse order of the nodes:
    # every "Parsing node:" / "Registering layer:" line must give its event, in order.
    text = path.read_text(encoding="utf-8", errors="replace")
    build = trtlog.parse(path)
    parsed = [m.group(1) for m in map(_PARSING.search, text.splitlines()) if m]
    nodes = [f"{e.node} [{e.op}]" for e in build.events if isinstance(e, OnnxParseNode)]
    assert nodes == parsed
    registered = [m.group(1) for m in map(_REGISTERING.search, text.splitlines()) if m]
    layers = [
        f"{e.layer} for ONNX node: {e.node}"
        if e.node is not None
        else f"{e.layer} required by ONNX-TRT"
        for e in build.of(OnnxRegisterLayer)
    ]
    assert layers == [r.rstrip() for r in registered]


# Pieces of the family's messages: generated text reaches the grammar's corners (prefixes,
# continuations, names holding the fixed text around them).
PIECES = st.sampled_from(
    [
        "[04/24/2026-02:26:01] [E] [TRT] ",
        "[V] [TRT] ",
        "[TensorRT] VERBOSE: ",
        "ModelImporter.cpp:138: ",
        "[TRT]ModelImporter.cpp:1: ",
        "While parsing node number ",
        "0",
        " [AddScalar",
        ' -> "',
        '"]:',
        "--- Begin node ---",
        "--- End node ---",
        'input: "x"',
        "attribute {",
        "}",
        "ERROR: ",
        "a.cpp:12 In function f:",
        "[6] ",
        "-" * 64,
        "Input filename:   ",
        "Opset version:    ",
        "Model version:    ",
        "Parsing node: ",
        " [Conv]",
        "] inputs:",
        " [x -> (1, -1)[FLOAT]],",
        "[optional input, not set], ",
        "Registering layer: ",
        " for ONNX node: ",
        " required by ONNX-TRT",
        "Using kernel: (3, 3)",
        ", strides: (1, 1)",
        "Original shape: (_, 4)",
        ", squeezing to: (_,)",
        "Running deconvolution with: ",
        "Padding mode: NOTSET",
        "Set shape of input tensor ",
        " for optimization profile 0 to: MIN=1 OPT=1 MAX=1",
        " to: 1x2",
        "\n",
        " ",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=40).map("".join)


@given(TEXT)
def test_family_text_parses_partitions_and_agrees(text: str) -> None:
    check_partitions_and_agrees(text)


@pytest.mark.parametrize(("lines", "expected"), multi_line_cases("onnx"))
def test_blank_lines_inside_a_construct(lines: list[str], expected: dict[str, Any]) -> None:
    check_blank_lines_inside(lines, expected)
