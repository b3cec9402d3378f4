"""A log's final layers from whatever it prints, and where they came from (from_log)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.cli.main import main
from trtlog.engine.from_log import final_layers, with_log_version
from trtlog.engine.model import ORIGIN_TEXT
from trtlog.html.page import decode_embedded

GEMM = FIXTURES / "logs" / "trt8.5-like_gemm-head_build-verbose-placement.log"
LEGACY = FIXTURES / "logs" / "trt6-like_legacy-timing_build-verbose.log"
CRASH = CORPUS / "trt8.4.10_script-if-myelin-best-orin_build-verbose-CRASH.log"
NO_LAYERS = CORPUS / "trt7.1_resnet50-caffe-fp16-jetson_build-multi.log"
_GPU_LAYER = re.compile(r"\[GpuLayer\] ([A-Z_]+): (.*)$", re.MULTILINE)
_LEGACY_TIMING = re.compile(r"--------------- Timing (.+)\(\d+\)$", re.MULTILINE)


def _placed(path: Path) -> list[tuple[str, str]]:
    """``(name, TYPE)`` of the raw ``[GpuLayer] TYPE: name`` lines, first of each name."""
    found: dict[str, str] = {}
    for kind, name in _GPU_LAYER.findall(path.read_text(encoding="utf-8")):
        found.setdefault(name.rstrip(), kind)
    return list(found.items())


def test_placement_lines_keep_their_types() -> None:
    engine = final_layers(trtlog.parse(GEMM))
    assert engine is not None and engine.origin == "log_placement"
    assert [(x.name, x.type) for x in engine.layers] == _placed(GEMM)
    assert "placement lines" in engine.notes[0]
    assert ORIGIN_TEXT[engine.origin] == "the log's placement lines ([GpuLayer] ...)"


def test_layers_group_by_type_of_a_placement_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layers", str(GEMM), "--group-by", "type", "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    counts = {row.split(",")[0]: int(row.split(",")[1]) for row in rows if row}
    expected: dict[str, int] = {}
    for _, kind in _placed(GEMM):
        expected[kind] = expected.get(kind, 0) + 1
    assert counts == expected  # no "?" row: every layer has its printed kind


def test_the_report_shows_a_placement_logs_layers() -> None:
    page = trtlog.report(GEMM)
    assert "layers" in page.sections and "modules" in page.sections
    data = decode_embedded(page)
    assert data["layers"]["count"] == len(_placed(GEMM))
    assert "layers" not in data["available"]


def test_timing_blocks_give_the_final_layers() -> None:
    build = trtlog.parse(LEGACY)
    engine = final_layers(build)
    assert engine is not None and engine.origin == "log_autotuned"
    raw = LEGACY.read_text(encoding="utf-8")
    assert [x.name for x in engine.layers] == list(dict.fromkeys(_LEGACY_TIMING.findall(raw)))
    assert build.merge_graph().graph["final_layers_from"] == "autotuned layers"


def test_explain_says_where_the_final_layers_came_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", str(LEGACY)]) == 0
    n = len(dict.fromkeys(_LEGACY_TIMING.findall(LEGACY.read_text(encoding="utf-8"))))
    assert capsys.readouterr().out.startswith(
        f"{n} final layers (from the layers the autotuner timed)"
    )
    assert main(["explain", str(GEMM)]) == 0
    assert capsys.readouterr().out.startswith(
        f"{len(_placed(GEMM))} final layers (from the log's placement lines"
    )


@needs_corpus
def test_corpus_placement_types_equal_the_raw_lines() -> None:
    engine = final_layers(trtlog.parse(CRASH))
    assert engine is not None and engine.origin == "log_placement"
    assert [(x.name, x.type) for x in engine.layers] == _placed(CRASH)


@needs_corpus
def test_a_log_without_layers_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    raw = NO_LAYERS.read_text(encoding="utf-8")
    assert not re.search(r"GpuLayer|Layers running on|Computing costs|--------------- Timing", raw)
    assert main(["explain", str(NO_LAYERS)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no final layers: the log has no layer dump")
    assert "from the none" not in out


_BANNER = re.compile(r"\[TensorRT v(\d+)\]")
PAIRS = [
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
    ),
    (
        "trt8.6.0_cookbook-mnist-cnn-fp16_layers-names.json",
        "trt8.6.0_cookbook-mnist-cnn-fp16_run-verbose-dumpLayerInfo.log",
    ),
]


@needs_corpus
@pytest.mark.parametrize(("layers", "log"), PAIRS)
def test_a_layer_json_takes_the_version_of_a_log_of_its_engine(layers: str, log: str) -> None:
    from trtlog.numbers import decode_version

    engine = trtlog.load_engine(CORPUS / layers)
    assert engine.trt_version is None  # the JSON prints none
    build = trtlog.parse(CORPUS / log)
    code = _BANNER.search((CORPUS / log).read_text(encoding="utf-8"))
    assert code is not None
    paired = with_log_version(engine, build)
    assert paired.trt_version == decode_version(int(code[1])) == build.trt_version
    # the report of the log with the JSON given apart shows the paired engine
    from trtlog.html.inputs import side

    assert side(CORPUS / log, engine=CORPUS / layers).engine.trt_version == build.trt_version  # type: ignore[union-attr]


@needs_corpus
def test_a_log_of_another_engine_gives_no_version() -> None:
    engine = trtlog.load_engine(CORPUS / PAIRS[0][0])
    other = trtlog.parse(CORPUS / PAIRS[1][1])
    assert other.trt_version is not None
    assert with_log_version(engine, other).trt_version is None


def test_a_logs_own_layers_carry_its_version() -> None:
    build = trtlog.parse(GEMM)
    engine = final_layers(build)
    assert engine is not None and engine.trt_version == build.trt_version == (8, 5, 10)
