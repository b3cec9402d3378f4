"""--exportProfile and --exportTimes loaders, the tolerant JSON reader and kind detection."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from tests.conftest import CORPUS, FIXTURES, corpus_json, needs_corpus
from trtlog.errors import InputError
from trtlog.exports.jsonio import JsonRepairWarning, read_json_values
from trtlog.exports.profile import load_profile
from trtlog.exports.read import detect_kind
from trtlog.exports.times import load_times

PROFILE_84 = (
    '[\n  { "count" : 10 }\n'
    ', { "name" : "Reformatting CopyNode for Input Tensor 0 to conv", "timeMs" : 1.5, '
    '"averageMs" : 0.15, "medianMs" : 0.15, "percentage" : 30 }\n'
    ', { "name" : "conv", "timeMs" : 3.5, "averageMs" : 0.35, "medianMs" : 0.34, '
    '"percentage" : 70 }\n]\n'
)
PROFILE_72 = """[
  { "count" : 3 }
, { "name" : "conv1 + relu1", "timeMs" : 9, "averageMs" : 3, "percentage" : 100 }
]
"""


def write(tmp_path: Path, text: str, name: str = "x.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_profile_8_4(tmp_path: Path) -> None:
    profile = load_profile(write(tmp_path, PROFILE_84))
    assert profile.iterations == 10
    assert [r.name for r in profile.records] == [
        "Reformatting CopyNode for Input Tensor 0 to conv",
        "conv",
    ]
    assert profile.records[1].median_ms == 0.34
    assert profile.has_median
    assert profile.total_ms == pytest.approx(0.5)


def test_profile_7_x_without_median(tmp_path: Path) -> None:
    profile = load_profile(write(tmp_path, PROFILE_72))
    assert profile.records[0].median_ms is None and not profile.has_median


def test_profile_with_unescaped_quote_and_nan_is_read_with_a_warning(tmp_path: Path) -> None:
    text = PROFILE_84.replace('"conv", "timeMs" : 3.5', '"conv "x" \\y", "timeMs" : nan')
    with pytest.warns(JsonRepairWarning, match="unescaped quote"):
        profile = load_profile(write(tmp_path, text))
    record = profile.records[1]
    assert record.name == 'conv "x" \\y'
    assert math.isnan(record.time_ms)


@pytest.mark.parametrize("count", ["Infinity", "inf", "1e400"])
def test_profile_count_that_is_not_a_whole_number_is_an_input_error(
    tmp_path: Path, count: str
) -> None:
    """``{"count": inf}`` (after repair) names the entry; no OverflowError escapes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JsonRepairWarning)
        with pytest.raises(InputError, match="profile entry 0"):
            load_profile(write(tmp_path, f'[{{"count": {count}}}]'))


def test_profile_runs_appended_by_a_loop(tmp_path: Path) -> None:
    with pytest.warns(JsonRepairWarning, match="2 top-level values"):
        profile = load_profile(write(tmp_path, PROFILE_84 + PROFILE_72))
    assert len(profile.runs) == 2
    assert profile.runs[1].records[0].name == "conv1 + relu1"


def test_unknown_keys_are_kept(tmp_path: Path) -> None:
    text = PROFILE_72.replace('"percentage" : 100', '"percentage" : 100, "stream" : 2')
    record = load_profile(write(tmp_path, text)).records[0]
    assert record.model_extra == {"stream": 2}
    assert json.loads(record.model_dump_json())["stream"] == 2


TIMES = {
    "7.0": '[ { "startInMs" : 1, "endInMs" : 2, "startComputeMs" : 2, "endComputeMs" : 5, '
    '"startOutMs" : 5, "endOutMs" : 6, "inMs" : 1, "computeMs" : 3, "outMs" : 1, '
    '"latencyMs" : 5, "endToEndMs" : 5.5 } ]',
    "7.1": '[ { "startEnqMs" : 0.2, "endEnqMs" : 0.3, "startInMs" : 0.6, "endInMs" : 5, '
    '"startComputeMs" : 0.3, "endComputeMs" : 4.8, "startOutMs" : 4.8, "endOutMs" : 4.9, '
    '"inMs" : 0.1, "computeMs" : 4.5, "outMs" : 0.1, "latencyMs" : 4.7, "endToEndMs" : 4.7 } ]',
    "8.0": '[ { "startEnqMs" : 1, "endEnqMs" : 1.1, "startH2dMs" : 1.2, "endH2dMs" : 1.3, '
    '"startComputeMs" : 1.3, "endComputeMs" : 2, "startD2hMs" : 2, "endD2hMs" : 2.1, '
    '"h2dMs" : 0.1, "computeMs" : 0.7, "d2hMs" : 0.1, "latencyMs" : 0.9, "endToEndMs" : 1.1 } ]',
    "8.4": '[ { "startEnqMs" : 1, "endEnqMs" : 1.1, "startH2dMs" : 1.2, "endH2dMs" : 1.3, '
    '"startComputeMs" : 1.3, "endComputeMs" : 2, "startD2hMs" : 2, "endD2hMs" : 2.1, '
    '"h2dMs" : 0.1, "computeMs" : 0.7, "d2hMs" : 0.1, "latencyMs" : 0.9 } ]',
}


@pytest.mark.parametrize("keys", sorted(TIMES))
def test_times_key_sets(tmp_path: Path, keys: str) -> None:
    times = load_times(write(tmp_path, TIMES[keys]))
    assert times.runs[0].keys == keys
    record = times.records[0]
    assert record.compute_ms is not None and record.latency_ms is not None
    assert (record.end_to_end_ms is None) == (keys == "8.4")
    assert (record.enqueue_start_ms is None) == (keys == "7.0")


def test_times_7_1_swapped_values_are_put_back(tmp_path: Path) -> None:
    record = load_times(write(tmp_path, TIMES["7.1"])).records[0]
    # the file's Enq keys hold the input copy: its duration is inMs
    assert record.h2d_start_ms == 0.2 and record.h2d_end_ms == 0.3
    assert record.enqueue_start_ms == 0.6


@pytest.mark.parametrize(
    ("loader", "text", "message"),
    [
        (load_profile, TIMES["8.4"], "timing trace"),
        (load_times, PROFILE_84, "per-layer profile"),
        (load_profile, '{"Layers": ["a"]}', "layer-info export"),
        (load_profile, '{"something": 1}', "no trtexec export shape"),
        (load_profile, "", "empty"),
        (load_profile, "[01/10/2024-21:52:50] [I] hello", "not JSON"),
        (load_profile, '[{"name": "a", "timeMs": ', "not JSON even after repairing"),
    ],
)
def test_wrong_inputs(tmp_path: Path, loader: object, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=message) as info:
        loader(path)  # type: ignore[operator]
    assert str(path) in str(info.value)


def test_detect_kind() -> None:
    assert detect_kind([{"name": "o", "dimensions": "1x2", "values": [1, 2]}]) == "output"
    assert detect_kind([{"Name": "l", "LayerType": "Reformat"}]) == "layers"
    assert detect_kind(["a", "b"]) == "layers"
    assert detect_kind(42) == "unknown"


@given(
    st.recursive(
        st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=8),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4),
        max_leaves=20,
    )
)
def test_valid_json_reads_unchanged(value: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_json_values(json.dumps(value)) == [value]


@needs_corpus
@pytest.mark.parametrize(
    "path", [p for p in corpus_json() if "profile" in p.name], ids=lambda p: p.name
)
def test_corpus_profiles(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JsonRepairWarning)
        profile = load_profile(path)
    for run in profile.runs:
        assert run.records
        assert sum(r.percentage for r in run.records) == pytest.approx(100, abs=0.5)


@needs_corpus
def test_corpus_times() -> None:
    times = load_times(CORPUS / "trt10.4_mobilenetv2-fp16-rtx3060_times.json")
    assert times.runs[0].keys == "8.4" and len(times.records) > 10000
    with pytest.warns(JsonRepairWarning, match="7 top-level values"):
        old = load_times(CORPUS / "trt7.1_googlenet-caffe-int8-jetson_times.json")
    assert len(old.runs) == 7 and old.runs[0].keys == "7.1"


# -- the log's own --dumpProfile table --------------------------------------


def test_a_log_profile_table_gives_the_engine_its_times() -> None:
    """The DLA fixture prints a names-only dump and a profile table (lines 76-93)."""
    build = trtlog.parse(FIXTURES / "logs" / "trt8.6-like_orin-dla-fallback_build-verbose.log")
    engine = build.engine
    assert engine is not None and engine.profile is not None
    assert engine.profile.source.endswith("(--dumpProfile, line 76)")
    assert engine.profile.iterations == 412
    frame = engine.layers_frame().set_index("name")
    assert frame.loc["/neck/Reshape", "time_ms"] == 0.0310
    assert frame["time_ms"].notna().sum() == 8
    assert set(frame.loc[frame["time_ms"].isna(), "time_reason"]) == {"not in the profile"}


@needs_corpus
def test_resnet18_qat_dump_profile_is_merged_into_build_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[8810].endswith("=== Profile (7477 iterations ) ===")  # line 8811
    rows = [line for line in lines[8812:8836] if line.split()[-1] != "Layer"]
    assert len(rows) == 24  # lines 8813-8836; 8837 is the Total row
    engine = trtlog.parse(path).engine
    assert engine is not None and engine.profile is not None
    frame = engine.layers_frame()
    assert frame["time_ms"].notna().sum() == 24
    softmax = frame.set_index("name").loc["Softmax_312"]
    assert (softmax["time_ms"], softmax["total_ms"], softmax["percentage"]) == (0.0145, 108.58, 4.0)
    assert round(float(frame["time_ms"].sum()), 4) == 0.36  # the Total row: 0.3597 (rounded rows)
    from trtlog.cli import main

    assert main(["layers", str(path)]) == 0
    out = capsys.readouterr().out
    assert "0.0145" in out and "no profile" not in out
    assert "26 layers, 0.36 ms per inference (profile: 0.36 ms over 24 records)" in out
