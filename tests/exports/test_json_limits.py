"""Hostile JSON exports ("Bombs" and the JSON crash sites): a clear InputError or a
load within the README's limits, never RecursionError, MemoryError, OverflowError or a hang.

Each case runs with orjson (the ``trtlog[fast]`` extra) and with the standard library's json.
"""

from __future__ import annotations

import io
import math
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import trtlog
from trtlog.cli import main
from trtlog.exports import jsonio

from ..conftest import FIXTURES

LAYER_INFO = FIXTURES / "layer_info"


@pytest.fixture(params=["orjson", "json"])
def decoder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param == "orjson":
        pytest.importorskip("orjson")
    monkeypatch.setattr(jsonio, "USE_ORJSON", request.param == "orjson")
    yield str(request.param)


LOADERS: list[Callable[[bytes], Any]] = [trtlog.load_engine, trtlog.load_profile, trtlog.load_times]


@pytest.mark.parametrize("depth", [1_500, 100_000])
@pytest.mark.parametrize("loader", LOADERS, ids=lambda f: f.__name__)
def test_deeply_nested_json_is_an_input_error(
    depth: int, loader: Callable[[bytes], Any], decoder: str
) -> None:
    for doc in (
        b"[" * depth + b"]" * depth,
        b'{"Layers": ["a"], "X": ' + b'{"a": ' * depth + b"1" + b"}" * depth + b"}",
    ):
        with pytest.raises(trtlog.InputError, match="nested deeper than trtlog reads") as info:
            loader(doc)
        assert "hint" in str(info.value)


@pytest.mark.parametrize("loader", LOADERS, ids=lambda f: f.__name__)
def test_an_integer_of_100000_digits_says_so_where_it_is(
    loader: Callable[[bytes], Any], decoder: str
) -> None:
    doc = b'[{"count": 1},\n {"name": "a", "timeMs": ' + b"7" * 100_000 + b', "averageMs": 1}]'
    with pytest.raises(trtlog.InputError) as info:
        loader(doc)
    message = str(info.value)
    assert "integer of 100000 digits" in message
    assert "<bytes>:2:26:" in message  # line and column of the number
    assert "even after repairing" not in message


def test_a_400_digit_integer_time_is_an_input_error_not_an_overflow(decoder: str) -> None:
    big = b"1" + b"0" * 400
    with pytest.raises(trtlog.InputError, match="timing entry 0"):
        trtlog.load_times(b'[{"startComputeMs": ' + big + b', "endComputeMs": 2.0}]')
    doc = b'[{"count": 1}, {"name": "a", "timeMs": ' + big + b', "averageMs": 1.0}]'
    with pytest.raises(trtlog.InputError, match="profile entry 1"):
        trtlog.load_profile(doc)


def test_1e400_reads_as_infinity(decoder: str) -> None:
    doc = b'[{"count": 1}, {"name": "a", "timeMs": 1e400, "averageMs": -1e400, "percentage": 1}]'
    record = trtlog.load_profile(doc).records[0]
    assert record.time_ms == math.inf and record.average_ms == -math.inf


def test_inf_and_minus_inf_from_trtexec_add_up_to_nan_without_raising(decoder: str) -> None:
    profile = (
        b'[{"count": 2}, {"name": "conv1 + relu1", "timeMs": inf, "averageMs": inf, '
        b'"percentage": 50}, {"name": "pool1", "timeMs": -inf, "averageMs": -inf, '
        b'"percentage": 50}]'
    )
    with pytest.warns(jsonio.JsonRepairWarning, match="nan/inf"):
        loaded = trtlog.load_profile(profile)
    assert math.isnan(loaded.total_ms)
    assert "nan ms per inference" in repr(loaded)
    engine = trtlog.load_engine(b'{"Layers": ["conv1 + relu1", "pool1"]}', profile=loaded)
    assert math.isnan(engine.total_ms)
    assert math.isnan(engine.module_tree().time_ms)
    frame = engine.modules_frame()
    assert math.isnan(frame["time_ms"].iloc[0])


@pytest.mark.parametrize("bindings", [b"5", b'"x"', b'{"a": 1}', b"true"])
def test_bindings_that_are_not_a_list_are_an_input_error(bindings: bytes, decoder: str) -> None:
    with pytest.raises(trtlog.InputError, match="'Bindings' is not a list"):
        trtlog.load_engine(b'{"Layers": ["a", "b"], "Bindings": ' + bindings + b"}")


def test_duplicate_keys_keep_the_last_value_with_either_decoder(decoder: str) -> None:
    doc = (
        b'{"Layers": [{"Name": "first", "LayerType": "Reformat", "Name": "conv1", '
        b'"Inputs": [], "Outputs": []}], "Layers": ["a", "b", "c"]}'
    )
    engine = trtlog.load_engine(doc)
    assert [layer.name for layer in engine.layers] == ["a", "b", "c"]
    doc = b'{"Layers": [{"Name": "first", "LayerType": "Conv", "Name": "conv1"}]}'
    assert trtlog.load_engine(doc).layers_frame()["name"].tolist() == ["conv1"]


def test_a_long_string_loads_whole(decoder: str) -> None:
    name = "/model/" + "x" * 5_000_000
    doc = b'{"Layers": [{"Name": "' + name.encode() + b'", "LayerType": "Conv"}, "b"]}'
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = trtlog.load_engine(doc)
    frame = engine.layers_frame()
    assert frame["name"].iloc[0] == name
    assert engine.layers[0].name == name


def test_diff_reads_a_layer_json_on_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = LAYER_INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
    stdin = io.TextIOWrapper(io.BytesIO(path.read_bytes()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["diff", "-", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("A: <stdin>")
    assert "8 layers" in out.splitlines()[0]


def test_diff_refuses_a_run_of_json_on_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = LAYER_INFO / "trt10.16-like_smallnet-fp16_layers-detailed.json"
    stdin = io.TextIOWrapper(io.BytesIO(path.read_bytes()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["diff", "-", str(path), "--run-a", "1"]) == 2
    assert "standard input is JSON" in capsys.readouterr().err
