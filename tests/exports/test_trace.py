"""Torch-TensorRT's execution profile (a Chrome/Perfetto trace) read as a profile."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.errors import InputError
from trtlog.exports import detect_kind, load_engine, load_profile
from trtlog.exports.trace import trace_runs

LI = FIXTURES / "layer_info"
PERFETTO = LI / "torchtrt-like_smallnet_perfetto.trace"
TORCH_LAYERS = LI / "torchtrt-like_smallnet_layer_information.json"
STEM = "trt10.x_mobilenetv2-torch-tensorrt-fp16-rtx3060m_torchtrt-"
CORPUS_TRACE = CORPUS / f"{STEM}engine-execution-profile.trace"
CORPUS_LAYERS = CORPUS / f"{STEM}layer-information.json"
_EVENT = re.compile(r'"name": "((?:[^"\\]|\\.)*)",\s*"ph": "X",\s*"ts": [\d.]+,\s*"dur": ([\d.]+)')


def test_a_perfetto_trace_is_a_profile() -> None:
    profile = load_profile(PERFETTO)
    (run,) = profile.runs
    assert run.iterations == 2  # every layer ran twice; the metadata event is no layer
    first = run.records[0]
    assert first.name.startswith("[CONVOLUTION]-[aten_ops.convolution.default]-[/stem/conv/")
    # microseconds -> ms: (50 + 54) us over two runs
    assert first.time_ms == pytest.approx(0.104)
    assert first.average_ms == pytest.approx(0.052)
    assert first.median_ms == pytest.approx(0.052)
    pool = next(r for r in run.records if "mean" in r.name)
    assert pool.time_ms == pytest.approx(0.010)  # a B/E pair (6 us) and an X event (4 us)
    assert sum(r.percentage for r in run.records) == pytest.approx(100)
    assert detect_kind(json.loads(PERFETTO.read_text())) == "trace"


def test_a_trace_merges_onto_its_layer_information() -> None:
    engine = load_engine(TORCH_LAYERS, profile=PERFETTO)
    times = [x.time.average_ms for x in engine.layers if x.time]
    assert times == pytest.approx([0.052, 0.030, 0.005, 0.011])
    assert all(x.time is not None and x.time.reason is None for x in engine.layers)


def test_trace_errors_say_what(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no layer execution"):
        trace_runs([{"name": "m", "ph": "M", "pid": 1}], "t.trace")
    with pytest.raises(InputError, match="trace event 0"):
        trace_runs([{"name": "a", "ph": "X", "ts": 0, "pid": 1}], "t.trace")
    with pytest.raises(InputError, match="end event without"):
        trace_runs([{"name": "a", "ph": "E", "ts": 0, "pid": 1, "tid": 1}], "t.trace")


def test_two_engines_are_two_runs() -> None:
    runs = trace_runs(
        [
            {"name": "a", "ph": "X", "ts": 0, "dur": 10, "pid": "e0", "tid": 1},
            {"name": "b", "ph": "X", "ts": 10, "dur": 10, "pid": "e1", "tid": 1},
        ],
        "t.trace",
    )
    assert [[r.name for r in run.records] for run in runs] == [["a"], ["b"]]


@needs_corpus
def test_corpus_trace_times_equal_the_raw_text() -> None:
    raw = CORPUS_TRACE.read_text(encoding="utf-8")
    found = [(json.loads(f'"{n}"'), float(d)) for n, d in _EVENT.findall(raw)]
    assert len(found) == raw.count('"ph":')  # every event is a complete one
    profile = load_profile(CORPUS_TRACE)
    durations: dict[str, list[float]] = {}
    for name, us in found:
        durations.setdefault(name, []).append(us / 1000)
    assert [r.name for r in profile.records] == list(durations)
    for record in profile.records:
        assert record.time_ms == pytest.approx(sum(durations[record.name]))
        assert record.median_ms == pytest.approx(statistics.median(durations[record.name]))
    assert profile.total_ms == pytest.approx(sum(us for _, us in found) / 1000)
    assert profile.iterations == 1


@needs_corpus
def test_corpus_trace_merges_onto_every_layer() -> None:
    engine = load_engine(CORPUS_LAYERS, profile=CORPUS_TRACE)
    raw = CORPUS_TRACE.read_text(encoding="utf-8")
    assert len(engine.layers) == len(_EVENT.findall(raw))
    assert all(x.time is not None and x.time.known for x in engine.layers)
    assert engine.total_ms == pytest.approx(sum(float(d) for _, d in _EVENT.findall(raw)) / 1000)
    opened = trtlog.load_profile(CORPUS_TRACE)
    assert len(opened.records) == len(engine.layers)
