"""Frames over events: declared schemas, and values on the seed Q/DQ log and corpus logs."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.frames import SCHEMAS, empty_frame

YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"


@pytest.fixture(scope="module")
def yolo() -> trtlog.Build:
    return trtlog.parse(YOLO)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_empty_frames_have_their_schema(name: str) -> None:
    frame = empty_frame(name)
    assert list(frame.columns) == list(SCHEMAS[name])
    assert {c: str(t) for c, t in frame.dtypes.items()} == SCHEMAS[name]


@pytest.mark.parametrize(
    "method",
    [
        "layer_counts_frame",
        "passes_frame",
        "fusions_frame",
        "removals_frame",
        "qdq_frame",
        "tactics_frame",
        "memory_frame",
    ],
)
def test_frames_keep_their_schema_on_a_log_without_such_events(method: str) -> None:
    build = trtlog.parse_text("[I] [TRT] nothing to see\n")
    frame = getattr(build, method)()
    name = method.removesuffix("_frame")
    assert frame.empty
    assert list(frame.columns) == list(SCHEMAS[name])


def test_layer_counts(yolo: trtlog.Build) -> None:
    frame = yolo.layer_counts_frame()
    assert frame["layers"].tolist() == [755, 755, 153, 153, 153]
    assert frame["change"].tolist()[1:] == [0, -602, 0, 0]
    assert frame["stage"].iloc[0] == "Original"


def test_fusions_match_the_fusing_lines(yolo: trtlog.Build) -> None:
    text = YOLO.read_text(encoding="utf-8")
    frame = yolo.fusions_frame()
    kinds = frame["kind"].value_counts().to_dict()
    assert kinds["fusion"] == text.count(": Fusing ")
    assert kinds["fusion_into"] == text.count(": fusing ")
    assert kinds["horizontal_merge"] == text.count("Merging layers: ")
    pair = frame[frame["kind"] == "fusion_into"].iloc[-1]
    assert pair["n_inputs"] == 2 and pair["result"] == "/model/backbone2/cv1/conv/Conv"
    merge = frame[frame["kind"] == "horizontal_merge"].iloc[0]
    # the tensor-merging stage, not the pass whose "Running:" line came last (EltwiseAddToPwn)
    assert merge["pass_name"] == "HorizontalMerge"
    assert merge["result"].count(" || ") == merge["n_inputs"] - 1


def test_passes(yolo: trtlog.Build) -> None:
    frame = yolo.passes_frame().set_index("pass_name")
    assert frame.loc["QuantizeDoubleInputNodes", "runs"] == 3
    assert frame.loc["QuantizeDoubleInputNodes", "fusions"] == 6
    assert frame.loc["QuantizeDoubleInputNodes", "removals"] == 6
    assert frame.loc["ConstWeightsFusion", "fusions"] == 2
    assert frame.loc["ConstShuffleFusion", "layers_before"] == 755
    assert frame.loc["ConstShuffleFusion", "layers_after"] == 153
    # swaps are the pass's own; the slice and concat eliminations of the later stages are not
    assert frame.loc["EltwiseAddToPwn", "swaps"] == 2
    assert frame.loc["EltwiseAddToPwn", "removals"] == 0
    assert frame.loc["SliceElimination", "removals"] == 3
    assert frame.loc["ConcatElimination", "removals"] == 2


def test_qdq_and_removals(yolo: trtlog.Build) -> None:
    qdq = yolo.qdq_frame()
    swaps = qdq[qdq["kind"] == "qdq_swap"]
    # "Swap the layer type of ... from ELEMENTWISE to POINTWISE" (line 224) is no Q/DQ event
    assert set(zip(swaps["from_type"], swaps["to_type"], strict=True)) == {("QUANTIZE", "kQDQ")}
    assert len(swaps) == YOLO.read_text(encoding="utf-8").count(" from QUANTIZE to kQDQ") == 3
    assert qdq[qdq["kind"] == "qdq_phase"]["pass_name"].isna().all()
    removals = yolo.removals_frame()
    # 15 "Removing" lines, 2 of which confirm a Q/DQ duplicate's elimination
    assert (removals["kind"] == "layer_removed").sum() == 13
    assert (removals["kind"] == "qdq_dedup").sum() == 2
    assert (removals["kind"] == "slice_elimination").sum() == 3


def test_tactics_on_the_seed(yolo: trtlog.Build) -> None:
    frame = yolo.tactics_frame()
    assert len(frame) == 6
    assert frame["reformat"].all()
    assert frame["fastest"].sum() == 2
    assert frame["tactic_hex"].iloc[0] == "0x00000000000003e8"
    assert pd.isna(frame["time_ms"]).sum() == 0


@needs_corpus
def test_tactics_8_4_names_and_choices() -> None:
    build = trtlog.parse(CORPUS / "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log")
    frame = build.tactics_frame()
    text = build.to_text()
    assert len(frame[~frame["skipped"]]) == len(re.findall(r"\] Tactic: \S+ Time: ", text))
    assert frame["skipped"].sum() == text.count(" skipped. Scratch requested: ")
    assert frame["chosen"].sum() == text.count("Chose Runner Type")
    # 8.4 names a tactic on the "Set Tactic Name" line before its timing line (the engine
    # build repeats the lines for the chosen tactics, without timing lines after them)
    named = re.findall(r"Set Tactic Name: \S+ Tactic: (\S+)\n[^\n]*\] Tactic: \1 Time", text)
    assert frame["tactic_name"].notna().sum() == len(named) > 0
    chosen = frame[frame["chosen"]]
    assert (chosen["fastest"]).all()


@needs_corpus
def test_tactics_10_x_profiling_lines() -> None:
    build = trtlog.parse(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log")
    frame = build.tactics_frame()
    assert frame.loc[~frame["cached"], "runner_id"].notna().all()
    text = build.to_text()
    # 0xd15ea5edd15ea5ed is the "no valid tactic" sentinel (every tactic was skipped)
    timed = frame[~frame["cached"]]
    assert timed["fastest"].sum() == text.count("profiling completed in") - text.count(
        "Fastest Tactic: 0xd15ea5edd15ea5ed"
    )
    # timing-cache hits: one row each, the cached winner of its format combination
    cached = frame[frame["cached"]]
    assert len(cached) == text.count(" got cached result: ") == 103
    assert cached["fastest"].all() and cached["chosen"].all() and cached["time_ms"].gt(0).all()
    pool = cached[cached["layer"] == "node_max_pool2d"].iloc[0]
    assert (pool["runner"], pool["tactic_hex"]) == ("CaskPooling", "0xdd39499496c9cc38")
    assert pool["format_combination"] == "Float(25088,784,28,1) -> Float(6272,196,14,1)"
    assert cached["reformat"].sum() == cached["layer"].str.startswith("Optimizer Reformat(").sum()
    skipped = frame[frame["skipped"]]
    assert set(skipped["skip_reason"]) <= {"scratch memory", "insufficient memory"}


def test_memory_frame_on_the_seed(yolo: trtlog.Build) -> None:
    frame = yolo.memory_frame()
    text = yolo.to_text()
    changes = frame[frame["kind"] == "memory_change"]
    # four figures per [MemUsageChange] line, in exact bytes
    assert len(changes) == 4 * text.count("[MemUsageChange]")
    first = changes.iloc[:4].set_index("metric")["bytes"]
    assert first["cpu"] % (1 << 20) == 0
    assert (changes["mib"] * (1 << 20) == changes["bytes"].astype(float)).all()
    assert list(frame["line"]) == sorted(frame["line"])


@needs_corpus
def test_memory_frame_stages_and_layers() -> None:
    build = trtlog.parse(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log")
    frame = build.memory_frame()
    stages = list(dict.fromkeys(frame[frame["kind"] == "memory_change"]["stage"]))
    assert stages[:2] == ["Init CUDA", "Init builder kernel library"]
    init = frame[(frame["stage"] == "Init CUDA") & (frame["metric"] == "gpu")]
    assert init["mib"].tolist() == [1216.0]
    layers = frame[frame["stage"] == "layers"]
    assert layers["layer"].notna().all()
    assert len(layers) >= 2 * build.to_text().count("Host Persistent: ")
    activation = frame[frame["metric"] == "activation"]["bytes"].tolist()
    assert activation[-1] == 602112  # the assigned activation memory after block assignment


@needs_corpus
def test_tactics_in_engine_marks_one_row_per_engine_layer() -> None:
    build = trtlog.parse(CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log")
    frame = build.tactics_frame()
    used = frame[frame["in_engine"]]
    assert used["layer"].is_unique
    assert used["chosen"].all()
    assert engine_tactics(build) >= {
        (x, int(t)) for x, t in zip(used["layer"], used["tactic"], strict=True)
    }
    assert len(used) >= 20


def engine_tactics(build: trtlog.Build) -> set[tuple[str, int]]:
    assert build.engine is not None
    return {(x.name, x.tactic) for x in build.engine.layers if x.tactic is not None}


def test_layers_frame_keeps_64_bit_tactic_ids_exact_next_to_missing_ones() -> None:
    # a column of ints with a None used to go through float64 and lose the low bits
    from trtlog.engine.model import Engine, EngineLayer

    big = 18089810910365349608  # > 2**63, from a real 10.4 ResNet18 export
    engine = Engine(
        source="x",
        origin="layer_json",
        detailed=True,
        layers=(
            EngineLayer(index=0, name="a", tactic=big),
            EngineLayer(index=1, name="b", tactic=None),
            EngineLayer(index=2, name="c", tactic=(1 << 53) + 1),
        ),
    )
    frame = engine.layers_frame()
    assert str(frame["tactic"].dtype) == "UInt64"
    assert int(frame["tactic"][0]) == big and int(frame["tactic"][2]) == (1 << 53) + 1
    assert frame["tactic"].isna().tolist() == [False, True, False]
    assert frame["tactic_hex"][0] == "0xfb0beb2dd64ff6e8"


# -- each removal counted once ------------------------------------------------------


def test_a_qdq_duplicate_eliminated_and_removed_is_one_removal(yolo: trtlog.Build) -> None:
    """HorizontalMergeQNodes prints ``Eliminating x which duplicates (Q) y`` then ``Removing x``
    for one removal (seed lines 177-181: two duplicates)."""
    lines = YOLO.read_text(encoding="utf-8").split("\n")
    assert sum("which duplicates (Q)" in line for line in lines[176:181]) == 2
    passes = yolo.passes_frame().set_index("pass_name")
    assert passes.loc["HorizontalMergeQNodes", "removals"] == 2
    removals = yolo.removals_frame()
    dedups = removals[removals["kind"] == "qdq_dedup"]
    assert dedups["line"].tolist() == [177, 180]
    assert removals["layer"].isin(dedups["layer"]).sum() == len(dedups)  # not twice
    # every removed layer once: one row per "Removing" line, the two confirmations folded in
    text = yolo.to_text()
    removed = removals[removals["kind"].isin(["layer_removed", "qdq_dedup"])]
    assert len(removed) == text.count("] Removing ") == 15


@needs_corpus
def test_resnet18_qat_horizontal_merge_removes_eight_layers() -> None:
    path = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"
    build = trtlog.parse(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    window = lines[2541:2564]  # lines 2542-2564
    assert sum(" which duplicates (Q) " in line for line in window) == 8
    assert sum("] Removing QuantizeLinear_" in line for line in window) == 8
    passes = build.passes_frame().set_index("pass_name")
    assert passes.loc["HorizontalMergeQNodes", "removals"] == 8
    removals = build.removals_frame()
    text = build.to_text()
    assert text.count("] Removing ") == 264
    removed = removals[removals["kind"].isin(["layer_removed", "qdq_dedup"])]
    assert len(removed) == 264
    assert (removals["kind"] == "qdq_dedup").sum() == 8
    assert not removals.duplicated(["layer", "pass_name"]).any()


LEGACY = FIXTURES / "logs" / "trt6-like_legacy-timing_build-verbose.log"


def test_tactics_of_a_5_6_log_are_tied_to_their_layer() -> None:
    """5/6 name the layer in "--------------- Timing <layer>(<runner id>)" and pick with
    "--------------- Chose <runner id> (<tactic>)": every row has its layer, one choice each."""
    frame = trtlog.parse(LEGACY).tactics_frame()
    text = LEGACY.read_text(encoding="utf-8").splitlines()
    assert text[9].endswith("--------------- Timing conv1 + relu1(3)")
    assert text[16].endswith("--------------- Chose 14 (1363534230700867617)")
    assert frame["layer"].notna().all()
    assert list(frame["layer"].unique()) == ["conv1 + relu1", "pool1", "fc1"]
    assert list(frame["runner_id"]) == [3, 3, 3, 14, 14, 8, 5, 5]
    chosen = frame[frame["chosen"]]
    assert list(zip(chosen["layer"], chosen["tactic"], strict=True)) == [
        ("conv1 + relu1", 1363534230700867617),  # line 15, 0.138272 ms
        ("pool1", 2**64 - 1),  # tactic -1, "the only option, timing skipped" (line 19)
        ("fc1", 1),  # line 23, 0.04096 ms
    ]
    # no "Fastest Tactic" line in 5/6: the least time of each runner's block
    fastest = frame[frame["fastest"]]
    assert list(fastest["line"]) == [12, 15, 23]
    assert list(fastest["time_ms"]) == [0.301056, 0.138272, 0.04096]
