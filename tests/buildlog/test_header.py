"""The build header (trtlog.buildlog.header): runs, version, options by block, device."""

from __future__ import annotations

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.buildlog.header import Options, decode_version, derive_header

LOGS = FIXTURES / "logs"


@pytest.mark.parametrize(
    ("code", "version"),
    [
        (8001, (8, 0, 1)),
        (8412, (8, 4, 12)),
        (8601, (8, 6, 1)),
        (100300, (10, 3, 0)),
        (101303, (10, 13, 3)),
    ],
)
def test_decode_version(code: int, version: tuple[int, ...]) -> None:
    assert decode_version(code) == version


def test_header_of_a_run_log() -> None:
    build = trtlog.parse(LOGS / "trt10.16-like_run_summary-profile.log")
    assert build.trt_version == (10, 16, 1)
    assert build.command_line is not None and build.command_line.startswith("trtexec --loadEngine")
    (run,) = build.runs
    assert (run.status, run.test, run.build_number) == ("passed", "TensorRT.trtexec", 11)
    options = build.options
    assert options.precisions == ("FP32", "FP16")
    assert options.get("Tactic sources", "Build") == "Using default tactic sources"
    assert options.get("Dump refittable layers") == "Disabled"
    assert options.loaded_engine == "model.trt"
    assert options.saved_engine is None
    assert options.get("Output(s)s format", "Build") == "fp32:CHW"
    assert [(f.direction, f.per_tensor, f.dtype, f.layouts) for f in options.io_formats] == [
        ("input", True, "fp16", ("chw",)),
        ("output", False, "fp32", ("CHW",)),
    ]
    build_shape, calibration, inference = options.shapes
    assert (build_shape.phase, build_shape.tensor, build_shape.profile) == ("build", "x", 0)
    assert build_shape.max_dims == (16, 1, 28, 28)
    assert calibration.model and calibration.tensor is None
    assert inference.dims == (4, 1, 28, 28)
    device = build.device
    assert device is not None
    assert (device.name, device.compute_capability, device.sms) == ("NVIDIA H100 PCIe", "9.0", 114)
    assert (device.global_memory_mib, device.shared_memory_per_sm_kib) == (81081, 228)
    assert (device.memory_bus_width_bits, device.ecc, device.device_id) == (5120, True, 0)
    assert (device.compute_clock_ghz, device.memory_clock_ghz) == (1.755, 1.593)
    assert [(d.index, d.name) for d in device.available] == [(0, "NVIDIA H100 PCIe")]


def test_options_come_from_the_first_run() -> None:
    build = trtlog.parse(LOGS / "trt7.1-like_two-runs_perf-block.log")
    assert len(build.runs) == 2
    assert build.options.get("Max batch") == "1"
    assert build.options.get("Prototxt") == "net.prototxt"
    assert build.options.model == "net.prototxt"  # "Model:" is empty for Caffe: the prototxt
    assert build.options.get("Workspace") == "16 MB"
    assert [f.text for f in build.options.io_formats] == ["fp32:CHW", "fp32:CHW"]
    assert build.trt_version is None  # 7.x prints no version
    assert build.device is None


def test_precision_helpers() -> None:
    assert Options(blocks={"Build": {"Precision": "Strongly Typed"}}).strongly_typed
    options = Options(blocks={"Build": {"Precision": "FP32+FP16 (prefer precision constraints)"}})
    assert options.precisions == ("FP32", "FP16")
    assert options.precision_constraints == "prefer"
    assert Options().precisions == ()


def test_lines_before_the_first_banner_form_run_zero() -> None:
    text = (
        "# a comment a human added\n"
        "[04/14/2026-01:36:48] [I] TensorRT version: 8001\n"
        "&&&& RUNNING TensorRT.trtexec [TensorRT v8001] # trtexec --onnx=m.onnx\n"
        "&&&& PASSED TensorRT.trtexec [TensorRT v8001] # trtexec --onnx=m.onnx\n"
    )
    build = trtlog.parse_text(text)
    assert [(r.index, r.first_line, r.last_line, r.status) for r in build.runs] == [
        (0, 1, 2, None),
        (1, 3, 4, "passed"),
    ]
    assert build.runs[0].trt_version == (8, 0, 1)


def test_a_run_without_footer_has_no_status() -> None:
    header = derive_header(
        trtlog.parse_text(
            "&&&& RUNNING TensorRT.trtexec [TensorRT v8410] # trtexec --onnx=./script.onnx\n"
            "[11/23/2022-10:41:32] [I] TensorRT version: 8.4.10\n"
        ).events,
        2,
    )
    assert header.runs[0].status is None
    assert header.runs[0].trt_version == (8, 4, 10)


@needs_corpus
def test_corpus_headers() -> None:
    multi = trtlog.parse(CORPUS / "trt7.1_googlenet-caffe-int8-jetson_build-multi.log")
    assert len(multi.runs) == 7
    assert all(r.status == "passed" for r in multi.runs)
    assert multi.options.get("Max batch") == "1"  # the first run's options
    old = trtlog.parse(CORPUS / "trt8.0.3_cookbook-mnist-cnn-fp16_build-verbose.log")
    assert old.trt_version == (8, 0, 3)
    # lines after "&&&& PASSED" belong to the last run (T20)
    assert old.runs[0].last_line == len(old.lines)
