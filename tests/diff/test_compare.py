"""``compare``: what it accepts, what it says when nothing is comparable, times and passes."""

from __future__ import annotations

import gzip
import math
import random
from pathlib import Path

import pytest

import trtlog
from tests.conftest import FIXTURES
from tests.diff.engines import blocks, edit, engine, random_edits
from trtlog.diff import compare_engines, step_times
from trtlog.engine.model import LayerTime, Profile, ProfileRecord, ProfileRun

NAMES = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8_layers-names.json"
QDQ_LOG = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"

PASSES_A = """\
[03/12/2024-10:15:02] [V] [TRT] Original: 3 layers
[03/12/2024-10:15:02] [V] [TRT] Running: ConvReluFusion on /c/Conv
[03/12/2024-10:15:02] [V] [TRT] ConvReluFusion: Fusing /c/Conv with /c/Relu
[03/12/2024-10:15:02] [V] [TRT] ConvEltwiseSumFusion: Fusing /c/Conv + /c/Relu with /Add
"""
PASSES_B = """\
[03/12/2024-10:15:02] [V] [TRT] Original: 3 layers
[03/12/2024-10:15:02] [V] [TRT] Running: ConvReluFusion on /c/Conv
[03/12/2024-10:15:02] [V] [TRT] ConvReluFusion: Fusing /c/Conv with /c/Relu
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_accepts_paths_builds_and_engines() -> None:
    build = trtlog.parse(QDQ_LOG)
    assert build.engine is not None
    by_path = trtlog.compare(QDQ_LOG, QDQ_LOG)
    by_objects = trtlog.compare(build, build.engine)
    assert by_path.markers() == by_objects.markers() == {"=": 13, "~": 0, "-": 0, "+": 0}
    assert (by_objects.a.kind, by_objects.b.kind) == ("log", "engine")
    assert by_path.passes is not None and by_path.passes.only_a == ()
    assert by_objects.passes is None
    assert any("B is not a verbose log" in n for n in by_objects.notes)


def test_a_gzipped_layer_json_is_read_as_json(tmp_path: Path) -> None:
    packed = tmp_path / "layers.json.gz"
    packed.write_bytes(gzip.compress(NAMES.read_bytes()))
    cmp = trtlog.compare(packed, NAMES)
    assert cmp.a.kind == "layer_json" and cmp.markers()["="] == 25


def test_nothing_comparable_raises_with_a_hint(tmp_path: Path) -> None:
    log = _write(tmp_path, "plain.log", "[03/12/2024-10:15:02] [I] [TRT] Original: 3 layers\n")
    with pytest.raises(trtlog.InputError) as err:
        trtlog.compare(NAMES, log)
    message = str(err.value)
    assert message.startswith(f"{log}: B has no layers to compare")
    assert "--dumpLayerInfo --profilingVerbosity=detailed" in message
    assert "--exportLayerInfo JSON" in message


def test_two_verbose_logs_without_layer_dumps_compare_their_passes(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.log", PASSES_A)
    b = _write(tmp_path, "b.log", PASSES_B)
    cmp = trtlog.compare(a, b)
    assert not cmp.aligned and cmp.steps == ()
    assert cmp.passes is not None
    assert [(f.pass_name, f.inputs) for f in cmp.passes.only_a] == [
        ("ConvEltwiseSumFusion", ("/c/Conv + /c/Relu", "/Add"))
    ]
    assert cmp.passes.only_b == ()
    assert "layers not aligned" in cmp.notes[0]
    summary = cmp.summary().to_text()
    assert "Fusions in A and not in B (1)" in summary and "no layer dump" in summary
    assert "note: layers not aligned" in cmp.to_text()


def test_a_log_without_dump_and_one_with_compare_their_passes(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.log", PASSES_A)
    cmp = trtlog.compare(
        a, QDQ_LOG, profile_a=FIXTURES / "layer_info" / "trt8.6.1_tinynet-fp16.profile.json"
    )
    assert cmp.steps == () and cmp.passes is not None
    assert any("the profile of A is not used" in n for n in cmp.notes)


def _timed(seed: int, n: int) -> tuple[trtlog.Engine, trtlog.Engine]:
    rng = random.Random(seed)
    source = blocks(n, seed)
    rates = {"split": 0.1, "drop": 0.1, "insert": 0.1, "qdq": 0.1, "swap": 0.05}
    edited = edit(source, random_edits(n, rates, seed), seed)  # type: ignore[arg-type]

    def with_times(e: trtlog.Engine) -> trtlog.Engine:
        layers = tuple(
            layer.model_copy(update={"time": LayerTime(average_ms=rng.random())})
            for layer in e.layers
        )
        return e.model_copy(update={"layers": layers})

    return with_times(engine(source)), with_times(engine(edited.blocks))


@pytest.mark.parametrize("seed", range(5))
def test_row_deltas_add_up_to_the_difference_of_totals(seed: int) -> None:
    a, b = _timed(seed, 60)
    cmp = compare_engines(a, b)
    deltas = [d for _ta, _tb, d, _ra, _rb in step_times(cmp)]
    assert all(d is not None for d in deltas)
    assert math.fsum(d or 0.0 for d in deltas) == pytest.approx(b.total_ms - a.total_ms)
    frame = cmp.frame()
    assert frame["time_a_ms"].sum() == pytest.approx(a.total_ms)
    assert frame["time_b_ms"].sum() == pytest.approx(b.total_ms)
    summary = cmp.summary()
    assert summary.delta_ms == pytest.approx(b.total_ms - a.total_ms)
    assert math.fsum(m.delta_ms or 0.0 for m in summary.modules) == pytest.approx(summary.delta_ms)


def test_a_profile_object_is_merged() -> None:
    eng = engine(blocks(3))
    names = [layer.name for layer in eng.layers]
    profile = Profile(
        source="p.json",
        runs=(
            ProfileRun(
                records=tuple(
                    ProfileRecord(name=n, time_ms=1.0, average_ms=0.5, percentage=33.3)
                    for n in names
                )
            ),
        ),
    )
    cmp = trtlog.compare(eng, eng, profile_b=profile)
    assert [v.time_ms for v in cmp.layers_a] == [None] * 3
    assert [v.time_ms for v in cmp.layers_b] == [0.5] * 3
    assert cmp.b.profile == "p.json"
    assert cmp.summary().delta_ms is None and cmp.summary().time_b_ms == pytest.approx(1.5)
    assert [d for _a, _b, d, _ra, _rb in step_times(cmp)] == [None] * 3
