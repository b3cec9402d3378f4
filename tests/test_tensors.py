"""Tensor formats: every Format/Datatype text of formats.md §JSON-5 and of the corpus."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.conftest import corpus_files, corpus_json, needs_corpus
from trtlog.tensors import (
    DTYPE_BITS,
    DTYPE_BYTES,
    Tensor,
    dtype_of,
    inspector_tensor,
    parse_compact_format,
    parse_format,
)

# formats.md §JSON-5.1 (every string it lists, with the variants it names), then the
# (dtype, layout, vector_width, vector_axis) each must give.
JSON_5_1: list[tuple[str, tuple[str | None, str | None, int | None, int | None]]] = [
    ("Row major linear FP32", ("FP32", "linear", None, None)),
    ("Row major linear FP16 format", ("FP16", "linear", None, None)),
    ("Row major linear BFloat16 format", ("BF16", "linear", None, None)),
    ("Row major linear FP8 format", ("FP8", "linear", None, None)),
    ("Row major Int8 format", ("INT8", "linear", None, None)),
    ("Row major linear Int32", ("INT32", "linear", None, None)),
    ("Row major linear Int64 format", ("INT64", "linear", None, None)),
    ("Row major linear UInt8 format", ("UINT8", "linear", None, None)),
    ("Row major linear BOOL", ("BOOL", "linear", None, None)),
    ("Two wide channel vectorized row major FP16 format", ("FP16", "chw2", 2, -3)),
    ("Two wide channel vectorized row major BFloat16 format", ("BF16", "chw2", 2, -3)),
    ("Four wide channel vectorized row major Int8 format", ("INT8", "chw4", 4, -3)),
    ("Four wide channel vectorized row major FP32 format", ("FP32", "chw4", 4, -3)),
    ("Sixteen wide channel vectorized row major FP16 format", ("FP16", "chw16", 16, -3)),
    ("Thirty-two wide channel vectorized row major Int8 format", ("INT8", "chw32", 32, -3)),
    ("Thirty-two wide channel vectorized row major FP16 format", ("FP16", "chw32", 32, -3)),
    ("Thirty-two wide channel vectorized row major FP32 format", ("FP32", "chw32", 32, -3)),
    (
        "Thirty-two wide channel vectorized row major Int8 format with 3 spatial dimensions",
        ("INT8", "cdhw32", 32, -4),
    ),
    ("Channel major FP16 format where channel % 8 == 0", ("FP16", "hwc8", 8, -3)),
    ("Channel major FP16 format where channel % 2 == 0", ("FP16", "hwc2", 2, -3)),
    ("Channel major FP16 format where channel % 4 == 0", ("FP16", "hwc4", 4, -3)),
    ("Channel major FP16 format where channel % 16 == 0", ("FP16", "hwc16", 16, -3)),
    ("Channel major FP32 format where channel % 4 == 0", ("FP32", "hwc4", 4, -3)),
    ("Channel major Int8 format where channel % 4 == 0", ("INT8", "hwc4", 4, -3)),
    ("Channel major BFloat16 format where channel % 8 == 0", ("BF16", "hwc8", 8, -3)),
    (
        "Channel major FP16 format where channel % 8 == 0 with 3 spatial dimensions",
        ("FP16", "dhwc8", 8, -4),
    ),
    (
        "Channel major FP16 format where channel == 4 and column stride % 32 == 0",
        ("FP16", "dla_hwc4", 4, -3),
    ),
    ("Channel major INT8 format where column stride % 32 == 0", ("INT8", "dla_hwc4", None, None)),
    ("Row major INT8 format where column stride % 64 == 0", ("INT8", "dla_linear", None, None)),
    ("Channel major FP32 format", ("FP32", "hwc", None, None)),
    ("Channel major FP16 format", ("FP16", "hwc", None, None)),
    ("Channel major Int8 format", ("INT8", "hwc", None, None)),
    ("Unknown format", (None, None, None, None)),
    # the API documentation's spelling
    ("Channel major FP16 format where C % 8 == 0 and H Stride % 32 == 0", ("FP16", "hwc8", 8, -3)),
    # more spellings seen in TensorRT tools' format tables
    ("Channel major FP32 format with 3 spatial dimensions", ("FP32", "dhwc", None, None)),
    (
        "Channel major FP32 format with 3 spatial dimensions where channel % 4 == 0",
        ("FP32", "dhwc4", 4, -4),
    ),
    (
        "Channel major FP16 format where channel == 1 and column stride % 32 == 0",
        ("FP16", "dla_hwc4", 1, -3),
    ),
    ("Row major FP16 format where column stride % 64 == 0", ("FP16", "dla_linear", None, None)),
    ("Row major linear FP4 format (kLINEAR)", ("FP4", "linear", None, None)),
    # 10.x bare type words
    ("Float", ("FP32", None, None, None)),
    ("Half", ("FP16", None, None, None)),
    ("BFloat16", ("BF16", None, None, None)),
    ("FP8", ("FP8", None, None, None)),
    ("Int8", ("INT8", None, None, None)),
    ("Int32", ("INT32", None, None, None)),
    ("Int64", ("INT64", None, None, None)),
    ("UInt8", ("UINT8", None, None, None)),
    ("Bool", ("BOOL", None, None, None)),
    ("Double", ("FP64", None, None, None)),
    ("Int16", ("INT16", None, None, None)),
    ("None", (None, None, None, None)),
]


@pytest.mark.parametrize(("text", "expected"), JSON_5_1, ids=[t for t, _ in JSON_5_1])
def test_json_5_1_formats(
    text: str, expected: tuple[str | None, str | None, int | None, int | None]
) -> None:
    f = parse_format(text)
    assert (f.dtype, f.layout, f.vector_width, f.vector_axis) == expected
    assert f.text == text
    assert f.element_bits == (DTYPE_BITS[f.dtype] if f.dtype else None)


@pytest.mark.parametrize(
    "text",
    [
        "Row major linear FP16 format.",  # 8.2/8.5 developer-guide snippets end with "."
        "Row major linear FP16",
        "row major linear fp16 format",
        " Row major linear FP16 format ",
    ],
)
def test_format_spelling_variants(text: str) -> None:
    f = parse_format(text)
    assert (f.dtype, f.layout) == ("FP16", "linear")


def test_format_int8_casing() -> None:
    assert parse_format("Channel major INT8 format where channel % 16 == 0").dtype == "INT8"
    assert parse_format("Channel major Int8 format where channel % 16 == 0").layout == "hwc16"


def test_unknown_clause_keeps_dtype_only() -> None:
    f = parse_format("Channel major FP16 format where something else")
    assert (f.dtype, f.layout, f.vector_width) == ("FP16", None, None)
    assert parse_format("").dtype is None


def test_parse_format_is_cached() -> None:
    parse_format.cache_clear()
    parse_format("Row major linear FP32")
    parse_format("Row major linear FP32")
    assert parse_format.cache_info().hits == 1


def test_inspector_tensor_places_the_vector_axis() -> None:
    chw32 = "Thirty-two wide channel vectorized row major Int8 format"
    assert inspector_tensor("x", (1, 64, 56, 56), chw32).vector == (1, 32)
    assert inspector_tensor("x", (64, 56, 56), chw32).vector == (0, 32)
    short = inspector_tensor("x", (1, 64), chw32)
    assert short.vector is None
    assert short.vector_width == 32
    cdhw = chw32 + " with 3 spatial dimensions"
    assert inspector_tensor("x", (1, 64, 4, 56, 56), cdhw).vector == (1, 32)
    assert inspector_tensor("x", None, None, "Device") == Tensor(name="x", location="Device")


def test_dtype_tables() -> None:
    assert dtype_of("Half") == "FP16"
    assert dtype_of("Row") is None
    assert DTYPE_BYTES["FP4"] == 0.5
    assert DTYPE_BYTES["FP32"] == 4
    assert set(DTYPE_BYTES) == set(DTYPE_BITS)


def test_compact_format() -> None:
    f = parse_compact_format("Int8(614400,614400:32,960,1)")
    assert (f.dtype, f.strides, f.vector) == ("INT8", (614400, 614400, 960, 1), (1, 32))
    assert parse_compact_format("Float()").strides == ()


# -- every Format/Datatype value of the corpus -----------------------------------------------

_JSON_FORMAT = re.compile(r'"Format/Datatype"\s*:\s*"([^"]*)"')
_TEXT_FORMAT = re.compile(r"Format/Datatype: (.*?) \}")


def _collect(value: Any, out: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "Format/Datatype" and isinstance(item, str):
                out.add(item)
            else:
                _collect(item, out)
    elif isinstance(value, list):
        for item in value:
            _collect(item, out)


def _corpus_formats() -> set[str]:
    found: set[str] = set()
    for path in corpus_json():
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            _collect(json.loads(text), found)
        except ValueError:  # T22: concatenated arrays, nan, unescaped names
            found.update(_JSON_FORMAT.findall(text))
    for path in corpus_files(".log"):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("Name: "):
                found.update(_TEXT_FORMAT.findall(line))
    return found


@needs_corpus
def test_every_corpus_format_has_a_known_dtype() -> None:
    formats = _corpus_formats()
    assert formats, "the corpus holds layer-info JSON files with formats"
    unknown = sorted(f for f in formats if parse_format(f).dtype is None)
    assert not unknown, f"formats without a dtype: {unknown}"
    long_forms = [f for f in formats if " " in f]
    assert all(parse_format(f).layout is not None for f in long_forms)
