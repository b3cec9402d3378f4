"""TensorRT 11 logs: strongly typed builds, the 11.x deprecations, ``--refPair`` accuracy checks.

And the neighbours that print trtexec-like lines: TensorRT-RTX's ``tensorrt_rtx`` and the
TensorRT-LLM code generator's bare lines. The fixtures are written from trtexec 11's source
and NVIDIA's migration pages (fixtures/README.md).
"""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.cli import main
from trtlog.events import (
    AccuracyCheck,
    MlirCodegen,
    PreOptionNotice,
    ReferenceOutputLoaded,
    RefPair,
)
from trtlog.summary import summarize

LOGS = FIXTURES / "logs"
LI = FIXTURES / "layer_info"
BUILD_11 = LOGS / "trt11.5-like_smallnet-fp32_build-verbose-dumpLayerInfo.log"
BUILD_10 = LOGS / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"
REFPAIR = LOGS / "trt11.5-like_smallnet-fp16_run-refPair-accuracy.log"
RTX = LOGS / "tensorrt-rtx-like_smallnet_run.log"
TRTLLM = LOGS / "trtllm-like_mlir-codegen-excerpt.log"
FP32_JSON = LI / "trt11.5-like_smallnet-fp32_layers-detailed.json"
FP16_JSON_10 = LI / "trt10.16-like_smallnet-fp16_layers-detailed.json"


def test_the_11x_build_log_is_fully_recognised_and_strongly_typed() -> None:
    build = trtlog.parse(BUILD_11)
    assert build.unrecognized == []
    assert build.trt_version == (11, 5, 0)
    assert build.options.precision == "Strongly Typed"
    assert build.options.strongly_typed
    summary = summarize(build)
    assert summary.strongly_typed
    assert "strongly typed: the precision follows the model's own types" in summary.to_text()
    # the 10.x build of the same model is weakly typed (and says so with a deprecation)
    old = trtlog.parse(BUILD_10)
    assert old.unrecognized == []
    assert not old.options.strongly_typed and not summarize(old).strongly_typed
    assert "typing" not in summarize(old).to_text()


def test_11x_deprecation_warnings_name_the_flag_and_the_way_back() -> None:
    build = trtlog.parse(BUILD_11)
    notices = build.of(PreOptionNotice)
    assert [(e.notice, e.flag, e.replacement, e.severity) for e in notices] == [
        ("flag_default", "--noDataTransfers", "--includeDataTransfers", "warning"),
        ("flag_default", "--useCudaGraph", "--noCudaGraph", "warning"),
        ("flag_default", "--separateProfileRun", None, "warning"),
    ]
    run = trtlog.parse(REFPAIR).of(PreOptionNotice)
    assert [(e.notice, e.flag, e.replacement) for e in run] == [
        ("flag_default", "--useSpinWait", "--noSpinWait")
    ]


def test_the_11x_one_line_dump_gives_the_engine_of_the_json_export() -> None:
    from_log = trtlog.parse(BUILD_11).engine
    assert from_log is not None and from_log.detailed and from_log.notes == ()
    # the log's own --dumpProfile table gives its engine times; the JSON takes the same table
    assert from_log.profile is not None
    from_json = trtlog.load_engine(FP32_JSON, profile=from_log.profile)
    pd.testing.assert_frame_equal(from_log.layers_frame(), from_json.layers_frame())
    pd.testing.assert_frame_equal(from_log.tensors_frame(), from_json.tensors_frame())
    stem = from_log.layers[0]
    assert stem.inputs[0].dtype == "FP32" and stem.inputs[0].layout == "linear"
    assert stem.inputs[0].strides == (150528, 50176, 224, 1)
    assert stem.inputs[0].stride_order == (0, 1, 2, 3)
    # the 10.x dump of the same model (built with --fp16) reads as before
    old = trtlog.parse(BUILD_10).engine
    assert old is not None and old.detailed
    assert {x.precision.compute for x in old.layers} >= {"FP16"}


def test_refpair_checks_are_events_with_tensor_metric_value_threshold_and_verdict() -> None:
    build = trtlog.parse(REFPAIR)
    assert build.unrecognized == []
    checks = build.of(AccuracyCheck)
    assert [(c.tensor, c.metric, c.value, c.threshold, c.verdict) for c in checks] == [
        ("logits", "Cosine", 0.000214, None, "pass"),
        ("logits", "Cosine", 0.001837, 0.001, "fail"),
    ]
    pairs = build.of(RefPair)
    assert [(p.role, p.index, p.items) for p in pairs] == [
        ("header", None, ()),
        ("pair", 0, ()),
        ("inputs", None, ("images:pair0/images.bin",)),
        ("ref_outputs", None, ("logits:pair0/logits.bin",)),
        ("pair", 1, ()),
        ("inputs", None, ("images:pair1/images.bin",)),
        ("ref_outputs", None, ("logits:pair1/logits.bin",)),
    ]
    loaded = build.of(ReferenceOutputLoaded)
    assert [(e.tensor, e.file, e.volume, e.bytes) for e in loaded] == [
        ("logits", "pair0/logits.bin", 1000, 2000),
        ("logits", "pair1/logits.bin", 1000, 2000),
    ]
    assert len(build.events_of("accuracy_failed")) == 1


def test_summary_shows_the_accuracy_verdicts() -> None:
    summary = summarize(trtlog.parse(REFPAIR))
    assert summary.strongly_typed and summary.accuracy_failed
    assert [(a.pair, a.verdict, a.threshold) for a in summary.accuracy] == [
        (0, "pass", 0.001),  # the options' Accuracy Threshold
        (1, "fail", 0.001),  # printed on the failure
    ]
    text = summary.to_text()
    assert "accuracy              FAILED: 2 check(s), 1 pass, 1 fail" in text
    assert "PASS  logits pair 0: Cosine 0.000214 (threshold 0.001), line 82" in text
    assert "FAIL  logits pair 1: Cosine 0.001837 (threshold 0.001), line 83" in text
    # a run that loads an engine has no build time ("Engine loaded in" is not one)
    assert summary.engine_build_seconds is None
    data = json.loads(summary.model_dump_json())
    assert data["accuracy"][1]["verdict"] == "fail"


def test_cli_summary_of_the_refpair_run(capsys: pytest.CaptureFixture[str]) -> None:
    # the command in this process (tests/cli/test_cli.py runs the entry point in its own)
    assert main(["summary", str(REFPAIR)]) == 0
    out = capsys.readouterr().out
    assert "FAIL  logits pair 1" in out
    assert "typing                strongly typed" in out


def test_tensorrt_rtx_run_reads_like_a_trtexec_run() -> None:
    build = trtlog.parse(RTX)
    assert build.unrecognized == []
    assert len(build.runs) == 1
    assert build.trt_version is None  # TensorRT-RTX's own version is not a TensorRT version
    kinds = Counter(e.kind for e in build.events)
    assert kinds["perf_stat"] == 2 and kinds["binding_created"] == 2


def test_trtllm_codegen_lines_between_builder_lines() -> None:
    build = trtlog.parse(TRTLLM)
    codegen = build.of(MlirCodegen)
    assert [(e.file, e.function, e.span[0]) for e in codegen] == [
        ("mlir_fusion_codegen.cpp", "codegen", 6),
        ("mlir_fusion_codegen.cpp", "codegen", 7),
    ]
    assert codegen[0].kernel is not None and codegen[0].kernel.startswith("dual_gemm_fused_kdag_")
    # TensorRT-LLM's own logger lines are not TensorRT's: left unrecognized, and counted
    assert [e.span[0] for e in build.unrecognized] == [1, 2, 3]


def test_e8m0_block_scales_in_an_11x_layer_dump() -> None:
    text = (
        "[11/24/2026-09:41:28] [I] Layer Information:\n"
        "[11/24/2026-09:41:28] [I] Layers:\n"
        "Name: /fc/Gemm, LayerType: gemm, Inputs: [ { Name: x, Location: Device, "
        "Dimensions: [1,64], Datatype: FP8, Format: Row major linear FP8 format (kLINEAR) }, "
        "{ Name: x_scale, Location: Device, Dimensions: [1,2], Datatype: E8M0, "
        "Format: Row major linear E8M0 format (kLINEAR), Strides: [2,1], StrideOrder: [0,1] }], "
        "Outputs: [ { Name: y, Location: Device, Dimensions: [1,10], Datatype: Half, "
        "Format: Row major linear FP16 format (kLINEAR) }], TacticValue: 0x0000000000000001, "
        "StreamId: 0, Metadata: [ONNX Layer: /fc/Gemm]\n"
    )
    engine = trtlog.parse_text(text).engine
    assert engine is not None and engine.notes == ()
    x, scale = engine.layers[0].inputs
    assert (x.dtype, scale.dtype, scale.element_bits) == ("FP8", "E8M0", 8)
    assert scale.strides == (2, 1) and scale.layout == "linear"
    assert engine.tensors_frame()["dtype"].tolist()[:2] == ["FP8", "E8M0"]


# A --tuneBuildRoutes run as trtexec 11 prints it (shapes from samples/trtexec/trtexec.cpp,
# runTuningLoop, and logging.h's TASK banners); the blank lines around the banners are bare.
TUNING_RUN = """\
&&&& RUNNING TensorRT.trtexec [TensorRT v110500] # trtexec --onnx=m --tuneBuildRoutes=all
[03/02/2026-10:00:00] [I] Expanded to 2 build route configurations
[03/02/2026-10:00:00] [I] Tuning phase1: 2 iterations.

&&&& TASK_BEGIN [iter=0] BuildRoute = 'default'
[03/02/2026-10:00:00] [I] Tuning iteration [0]: default
&&&& TASK_END [iter=0] BuildRoute = 'default'


&&&& TASK_BEGIN [iter=1] BuildRoute = '-conv_use_long_w=1'
[03/02/2026-10:00:00] [I] Tuning iteration [1]: -conv_use_long_w=1
[03/02/2026-10:00:00] [W] Iteration [1] failed: child killed by signal 11 (Segmentation fault)
&&&& TASK_ABORT [iter=1] BuildRoute = '-conv_use_long_w=1'
[03/02/2026-10:00:00] [I] Best iteration: default (gpu_time_ms=1.2345)
[03/02/2026-10:00:00] [I] Tuning summary: 1 / 2 iterations succeeded.
&&&& PASSED TensorRT.trtexec [TensorRT v110500] # trtexec --onnx=m --tuneBuildRoutes=all
&&&& RUNNING TensorRT.trtexec [TensorRT v110500] # trtexec --onnx=m --dryRun
[03/02/2026-10:01:00] [I] Expanded to 2 build route configurations
[03/02/2026-10:01:00] [I] --dryRun: 2 build routes would be tried:
[03/02/2026-10:01:00] [I] [0]:default
[03/02/2026-10:01:00] [I] [TRT] [MemUsageChange] Init CUDA: CPU +0, GPU +0, now: CPU 2, GPU 4 (MiB)
[03/02/2026-10:01:00] [I] [1]:-conv_use_long_w=1
&&&& PASSED TensorRT.trtexec [TensorRT v110500] # trtexec --onnx=m --dryRun
[03/02/2026-10:01:01] [I] [2]:not a route: the listing ended with the banner
"""


def test_the_11x_tuning_loop_lines_are_typed_events() -> None:
    from trtlog.events import (
        TuningBest,
        TuningFailure,
        TuningNote,
        TuningPhase,
        TuningRoute,
        TuningSummary,
        TuningTask,
        Unrecognized,
    )

    build = trtlog.parse_text(TUNING_RUN)
    eager = list(trtlog.iter_events(TUNING_RUN.splitlines(keepends=True)))
    assert [e.kind for e in build.events] == [e.kind for e in eager]
    # only the bare blank lines around the banners and the line after the listing are left
    assert [(e.span[0], e.message) for e in build.of(Unrecognized)] == [
        (4, ""),
        (8, ""),
        (9, ""),
        (24, "[2]:not a route: the listing ended with the banner"),
    ]
    assert [(e.phase, e.iterations) for e in build.of(TuningPhase)] == [(1, 2)]
    assert [(e.phase, e.iteration) for e in build.of(TuningTask)] == [
        ("begin", 0),
        ("end", 0),
        ("begin", 1),
        ("abort", 1),
    ]
    (failure,) = build.of(TuningFailure)
    assert (failure.iteration, failure.reason, failure.severity) == (
        1,
        "child killed by signal 11 (Segmentation fault)",
        "warning",
    )
    assert [(e.route, e.gpu_time_ms) for e in build.of(TuningBest)] == [("default", 1.2345)]
    assert [(e.succeeded, e.total) for e in build.of(TuningSummary)] == [(1, 2)]
    assert [(e.note, e.value) for e in build.of(TuningNote)] == [("dry_run", 2)]
    # a TensorRT message in the listing keeps its own event
    assert build.events[20].kind == "memory_change"
    assert [(e.index, e.route) for e in build.of(TuningRoute)] == [
        (0, "default"),
        (1, "-conv_use_long_w=1"),
    ]
