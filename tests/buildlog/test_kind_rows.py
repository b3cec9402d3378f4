"""kind_rows knows an inspector record's kind without building it (issue 15: size and speed).

The method of the inspector record makes its parameters per row, so the store used to build
every record of every dump to learn that it is an ``inspector_record`` (the report's raw
log colours each line by kind). The method refuses (``ValueError``: the line becomes
``unrecognized``) only a message holding a run of 17 or more hex digits: the store takes the
kind of any other record whose tensor lists convert without calling it. A property test
checks the claim on the method; the store's answers are checked against an eager parse
(here on records that refuse, and over every fixture and corpus log in
``tests/buildlog/test_lazy_views.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lark import Token

from tests.buildlog.test_store import LOGS, lazy_and_eager
from tests.conftest import FIXTURES
from trtlog.buildlog.store import _LONG_NUMBER
from trtlog.parser.families.layers import LayersTransformer
from trtlog.parser.source import read_text
from trtlog.parser.stream import Deferred

_TENSOR = "[ { Name: x, Location: Device, Dimensions: [1,3], Format/Datatype: Half }]"
_RECORD = "Name: /a/Conv{n}, LayerType: CaskConvolution, Inputs: {ins}, Outputs: {outs}"


def _log(tails: list[str], inputs: list[str] | None = None) -> str:
    lines = ["[04/18/2025-03:51:19] [V] [TRT] Layers:"]
    for n, tail in enumerate(tails):
        ins = inputs[n] if inputs is not None else _TENSOR
        lines.append(_RECORD.format(n=n, ins=ins, outs=_TENSOR) + tail)
    lines.append("[04/18/2025-03:51:20] [I] [TRT] done")
    return "\n".join(lines) + "\n"


def _check(text: str) -> dict[int, str]:
    lazy, eager = lazy_and_eager(text)
    rows = sorted(
        (first, last, kind, severity)
        for kind, firsts, lasts, severities in lazy.kind_rows()
        for first, last, severity in zip(firsts, lasts, severities, strict=True)
    )
    assert rows == [(e.span[0], e.span[1], e.kind, e.severity) for e in eager.events]
    store = lazy.__dict__["_store"]
    known = dict(store._known)
    for i, kind in known.items():
        assert store._cold[i].__class__ is Deferred
        assert store._cold[i].event().kind == kind
    assert lazy.counts() == eager.counts()
    assert lazy.events_of("unrecognized") == eager.events_of("unrecognized")
    assert lazy.columns("inspector_record") == eager.columns("inspector_record")
    assert lazy.events == eager.events
    return known


def test_records_without_long_numbers_stay_unbuilt() -> None:
    tails = [
        ", ParameterType: Convolution, Kernel: [3,3], TacticValue: 0x00000000000003ea",
        ", TacticName: sm80_xmma, StreamId: 0, Metadata: [ONNX Layer: /a/Conv]",
        ', Weights: {"Type": "Half", "Count": 864}, Scale: 0.5, Count: 1234567890123456',
    ]
    known = _check(_log(tails))
    assert sorted(known.values()) == ["inspector_record"] * 3


def test_records_that_refuse_are_parsed_and_unrecognized() -> None:
    tails = [
        ", TacticValue: 0x00000000000003ea",
        ", TacticValue: 0x1000000000000000000",  # past 64 bits: unrecognized
        ", StreamId: " + "9" * 5000,  # past int()'s digit limit
        ", Count: 12345678901234567890",  # 20 digits: parsed (it fits no 64-bit int)
        ", Kernel: [3,3]",
    ]
    known = _check(_log(tails))
    assert len(known) == 2  # the two records without a long number


def test_a_tensor_list_that_does_not_convert_is_parsed() -> None:
    bad = "[ { Name: x, Location: Device, Dimensions: [1,-], Format/Datatype: Half }]"
    _check(_log([", Kernel: [3,3]"] * 3, inputs=[_TENSOR, bad, _TENSOR]))


_PIECES = st.sampled_from(
    [
        "TacticValue: ",
        "StreamId: ",
        "Kernel: ",
        "Metadata: ",
        "Weights: ",
        "[ONNX Layer: /a/b | Local Function: f]",
        "\x1e",
        ", ",
        "0x",
        "-",
        "[",
        "]",
        "{",
        "}",
        '"',
        ":",
        "1e5",
        "inf",
        "nan",
        "\\",
    ]
)
_TEXT = st.lists(
    st.one_of(_PIECES, st.text("0123456789abcdefABCDEF", min_size=1, max_size=20)), max_size=14
).map("".join)


@given(_TEXT)
def test_the_record_method_refuses_only_long_numbers(tail: str) -> None:
    method = LayersTransformer().inspector_record
    assert getattr(method, "refuses_only_long_numbers", False)
    text = ", " + tail
    try:
        fields = method(Token("A", "layer"), Token("B", "Conv"), (), (), Token("C", text))
    except ValueError:
        assert _LONG_NUMBER.search(text) is not None
    else:
        assert fields["kind"] == "inspector_record"


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name[:70])
def test_columns_of_some_fields_are_those_of_every_field(path: Path) -> None:
    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    lazy.kind_rows()
    for kind in eager.counts():
        every = eager.columns(kind)
        fields = [f for f in every if f not in ("line", "end_line", "severity")][:1]
        some = lazy.columns(kind, fields)
        assert list(some) == ["line", "end_line", "severity", *fields]
        assert some == {k: every[k] for k in some}, kind


def test_lint_reads_the_layers_of_the_dumps_without_building_the_records() -> None:
    # the layer lines of the findings' evidence: names and lines as columns
    from trtlog.findings.context import LintContext

    path = FIXTURES / "logs" / "trt10.10_bert-matcher-fp16_engine-layers-detailed.log"
    _info, text = read_text(path)
    lazy, eager = lazy_and_eager(text)
    lazy.kind_rows()
    store = lazy.__dict__["_store"]
    records = [i for i, kind in store._known.items() if kind == "inspector_record"]
    assert len(records) >= 40
    lines = LintContext(lazy, None, None, None).layer_lines
    assert lines == LintContext(eager, None, None, None).layer_lines
    assert sum(map(len, lines.values())) >= len(records)
    assert all(store._cold[i].__class__ is Deferred for i in records)


# -- the builder's layer listing: it refuses only dims int() cannot read ---------------------

_LISTING = (
    "[04/18/2025-03:51:19] [V] [TRT] Layer(CaskConvolution): /a/Conv{n}, "
    "Tactic: 0x00000000000003ea, {io}"
)


def _listing_log(ios: list[str]) -> str:
    lines = ["[04/18/2025-03:51:19] [V] [TRT] Engine Layer Information:"]
    lines += [_LISTING.format(n=n, io=io) for n, io in enumerate(ios)]
    lines.append("[04/18/2025-03:51:20] [I] [TRT] done")
    return "\n".join(lines) + "\n"


def test_listing_lines_stay_unbuilt_and_those_that_refuse_are_parsed() -> None:
    good = "x (Half[1,64:8,56,56]) -> y[Float(1,3)]"
    ios = [good, good, "x (Half[1,,56]) -> y[Float(1,3)]", "x[Half(1:)] -> y (Int8[-])", good]
    known = _check(_listing_log(ios))
    assert sorted(known.values()) == ["engine_layer_info"] * 3  # the two that refuse: parsed
    lazy, eager = lazy_and_eager(_listing_log(ios))
    refused = [e.span[0] for e in lazy.events_of("unrecognized")][:-1]  # (the last: "done")
    assert refused == [4, 5]
    assert lazy.events_of("unrecognized") == eager.events_of("unrecognized")


_DIMS_TEXT = st.text("0123456789-:,", max_size=10)
_NAME = st.text("ab1-:,()[] ", max_size=8)
_DESCRIPTOR = st.one_of(
    st.builds(lambda w, d: f"[{w}({d})]", st.sampled_from(["Half", "Float", "Int8"]), _DIMS_TEXT),
    st.builds(lambda w, d: f" ({w}[{d}])", st.sampled_from(["Half", "Float", "Int8"]), _DIMS_TEXT),
)
_LIST = st.lists(st.builds(str.__add__, _NAME, _DESCRIPTOR), max_size=3).map(", ".join)
_IO = st.one_of(
    st.builds(lambda a, b: f"{a} -> {b}", _LIST, _LIST),
    st.builds(lambda a, b: f"{a}{b}", _LIST, _NAME),  # a truncated paste
)


@example("x[Half(1,,3)] -> y (Int8[4,72:])")  # refused
@example("x (Half[1,64:8,56,56]) -> y[Float(1,3)]")
@given(_IO)
def test_the_listing_method_refuses_only_dims_that_do_not_convert(io: str) -> None:
    from trtlog.parser.families.layers import dims_may_refuse

    method = LayersTransformer().engine_layer_info
    assert getattr(method, "refuses_only_when", None) is dims_may_refuse
    text = ", " + io
    try:
        fields = method(Token("A", "Conv"), Token("B", "layer"), 1002, Token("C", text))
    except ValueError:
        assert dims_may_refuse(text)
    else:
        assert fields["kind"] == "engine_layer_info"
    # a test of texts joined by line ends finds what one of them holds, and only that
    assert dims_may_refuse(text + "\n" + "x[Half(1,3)]") == dims_may_refuse(text)


_TENSOR_ITEM = st.builds(
    lambda name, dims, strides, fmt: (
        f"Name: {name}, Location: Device, Dimensions: [{dims}]"
        + (f", Datatype: Int8, Format: kCHW32, Strides: [{strides}]" if fmt else "")
        + ("" if fmt else ", Format/Datatype: Channel major FP16 format where channel % 8 == 0")
    ),
    _NAME,
    _DIMS_TEXT,
    _DIMS_TEXT,
    st.booleans(),
)
_TENSORS = st.lists(_TENSOR_ITEM, max_size=3).map(
    lambda items: "[ { " + " }, { ".join(items) + " }]" if items else "[]"
)


@example("[ { Name: x, Location: Device, Dimensions: [1,-], Format/Datatype: Half }]")
@example("[ { Name: x, Location: Device, Dimensions: [1,3], Format/Datatype: Half }]")
@given(_TENSORS)
def test_the_tensor_lists_refuse_only_dims_that_do_not_convert(text: str) -> None:
    """The inspector's tensor-list callback: a ValueError only for a text its refusal
    test finds (the store tests the texts instead of converting them)."""
    from trtlog.buildlog.store import _refusal_test_of
    from trtlog.parser.families.layers import dims_may_refuse

    convert = LayersTransformer().INPUT_LIST
    assert _refusal_test_of(convert) is dims_may_refuse
    try:
        convert(Token("INPUT_LIST", text))
    except ValueError:
        assert dims_may_refuse(text)


# -- the refusal tests are one byte map and one search: the same answers as the regexes ------

_RUN_TEXT = st.lists(
    st.one_of(
        st.text("0123456789-:,([)] \n", max_size=12),
        st.sampled_from(["Half", "x", "\u0663", "\u00b2", "\udc80", "é", "(1,64:8)", "[-1]"]),
        st.text("9", min_size=3990, max_size=4010),
    ),
    max_size=8,
).map("".join)


@example("[" + "9" * 4001 + "]")
@example("[" + "9" * 4000 + ",-1:2]")
@example("(\u0663,)")  # an Arabic-Indic digit: \d and int() read it
@example("[1:\u0663:2]")
@example("(1:2:3)")
@given(_RUN_TEXT)
def test_the_dims_test_finds_what_the_runs_one_by_one_find(text: str) -> None:
    from trtlog.parser.families.layers import _DIMS, _DIMS_RUN, dims_may_refuse

    one_by_one = any(_DIMS.fullmatch(run) is None for run in _DIMS_RUN.findall(text))
    assert dims_may_refuse(text) == one_by_one


@example("0x" + "f" * 16)
@example("é" + "a" * 17)
@example("\udc80" + "1" * 16 + "\u0663")
@given(st.text("0123456789abcdefABCDEFxg\u0663é\udc80 \n", max_size=40))
def test_the_long_number_test_finds_what_the_regex_finds(text: str) -> None:
    from trtlog.buildlog.store import has_long_number

    assert has_long_number(text) == (_LONG_NUMBER.search(text) is not None)


# -- a node's tensor list and a profile row: their kind known without building them ----------

_IO_DIMS = st.lists(
    st.one_of(
        st.integers(-5, 10**6).map(str),
        st.sampled_from(["\u0663", "1\u0663", "9" * 700, "9" * 5000, "-" + "9" * 4400]),
    ),
    max_size=3,
).map(", ".join)
_IO_ITEMS = st.lists(
    st.one_of(
        st.builds(
            lambda name, dims, dtype: f"[{name} -> ({dims}){dtype}]",
            st.text("ab/ _-[]()>,", max_size=6),
            _IO_DIMS,
            st.sampled_from(["[FLOAT]", "[HALF]", "", "[x y]"]),
        ),
        st.just("[optional input, not set]"),
        st.text("ab[]()->, 1", max_size=8),
    ),
    max_size=3,
).map(", ".join)


@example("[x -> (1, " + "9" * 5000 + ")[FLOAT]],")
@example("[x -> (1, 3)[FLOAT]], [y -> ()[HALF]],")
@given(_IO_ITEMS)
def test_a_node_line_refuses_only_dims_that_do_not_convert(items: str) -> None:
    from trtlog.parser.families.onnx import OnnxTransformer, dims_may_refuse

    transformer = OnnxTransformer()
    for method in (transformer.onnx_node_inputs, transformer.onnx_node_outputs):
        assert getattr(method, "refuses_only_when", None) is dims_may_refuse
        text = " " + items
        try:
            fields = method(Token("A", "/a/Conv"), Token("B", "Conv"), Token("C", text))
        except ValueError:
            assert dims_may_refuse(text)
        else:
            assert fields["kind"] == "onnx_node_io"
        # joined by line ends with others, a test finds what one of them holds
        assert dims_may_refuse(text + "\n" + "[x -> (1)]") == dims_may_refuse(text)


@given(
    st.text(max_size=12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.one_of(st.none(), st.floats()),
)
def test_a_profile_row_refuses_nothing(name: str, value: float, median: float | None) -> None:
    from trtlog.parser.families.runtime import RuntimeTransformer

    transformer = RuntimeTransformer()
    for method, args in (
        (transformer.profile_row_86, (value, value, median, value, Token("N", name))),
        (transformer.profile_row_84, (Token("N", name), value, value, median, value)),
        (transformer.profile_row_7x, (Token("N", name), value, value, value)),
    ):
        refuses = getattr(method, "refuses_only_when")  # noqa: B009 (a mark, not typed)
        assert not refuses(name)
        assert method(*args)["kind"] == "profile_row"


def test_node_lines_and_profile_rows_stay_unbuilt_and_those_that_refuse_are_parsed() -> None:
    head = "[04/18/2025-03:51:19] [V] [TRT] "
    node = "/a/Conv{n} [Conv] inputs: [x -> (1, {d})[FLOAT]], [w -> (8, 3)[HALF]],"
    text = "".join(
        head + node.format(n=n, d=d) + "\n" for n, d in enumerate(["3", "9" * 5000, "3", "4"])
    )
    text += "[04/18/2025-03:51:20] [I] === Profile (2 iterations ) ===\n"
    text += "[04/18/2025-03:51:20] [I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer\n"
    row = "[04/18/2025-03:51:20] [I]        2.35       0.0057       0.0056       0.2   "
    for name in ("/a/Conv0", "/a/Conv1", "Total"):
        text += row + name + "\n"
    known = _check(text)
    assert sorted(known.values()) == ["onnx_node_io"] * 3 + ["profile_row"] * 3
    lazy, _eager = lazy_and_eager(text)
    assert [e.span[0] for e in lazy.events_of("unrecognized")] == [2]


# -- generated logs: the kinds kind_rows knows are those of an eager parse -------------------

_POOL = [
    "/m0/Conv [Conv] inputs: [input -> (1, 64, 56, 56)[HALF]], [w -> (64, 64, 3, 3)[HALF]],",
    "/m0/Conv [Conv] outputs: [/m0/Conv_output_0 -> (1, 64, 56, 56)[HALF]],",
    "/a/Conv + /a/Relu (CaskConvolution[0x80000009]) profiling completed in 0.0527958 seconds. "
    "Fastest Tactic: 0x8133287637ebdcd9 Time: 0.00335499",
    "Skipping CaskFlattenConvolution: No valid tactics for /a/Conv + /a/Relu",
    "ConvReluFusion: Fusing /a/Conv with /a/Relu",
    "=== Profile (2 iterations ) ===",
    "   Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer",
    "       2.35       0.0057       0.0056       0.2   /a/Conv + /a/Relu",
    "Engine Layer Information:",
    "Layer(CaskConvolution): /a/Conv, Tactic: 0x00000000000003ea, "
    "x (Half[1,64:8,56,56]) -> y[Float(1,3)]",
    "Layers:",
    _RECORD.format(n=1, ins=_TENSOR, outs=_TENSOR) + ", TacticValue: 0x00000000000003ea",
    "Original: 12 layers",
]
_MUTATIONS = [
    lambda s: s,
    lambda s: s.replace("56", "9" * 5000, 1),
    lambda s: s.replace("64", "6" * 700, 1),
    lambda s: s.replace(",", ",,", 1),
    lambda s: s.replace("0x", "0x1", 1),
    lambda s: s.replace("3", "\u0663", 1),
    lambda s: s.replace("a", "é", 1),
    lambda s: s.replace("1", "-", 1),
    lambda s: s + " x",
    lambda s: s[: len(s) // 2],
]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_POOL),
            st.sampled_from(range(len(_MUTATIONS))),
            st.sampled_from(["V", "I", "W"]),
        ),
        min_size=1,
        max_size=24,
    )
)
def test_the_kinds_of_generated_logs_are_those_of_an_eager_parse(
    lines: list[tuple[str, int, str]],
) -> None:
    text = "".join(
        f"[04/18/2025-03:51:19] [{letter}] [TRT] {_MUTATIONS[m](line)}\n"
        for line, m, letter in lines
    )
    lazy, eager = lazy_and_eager(text)
    kinds = ("onnx_node_io", "profile_row", "runner_profiled", "runner_skipped", "fusion")
    lazy.kind_rows()
    for kind in kinds:  # from what kind_rows kept (no second match), then built from it
        assert lazy.columns(kind) == eager.columns(kind), kind
        assert lazy.events_of(kind) == eager.events_of(kind), kind
    _check(text)
