"""Build-process rules: failed builds, skipped tactics, DLA fallback, timing cache, calibration."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, corpus_logs, needs_corpus
from tests.findings.inputs import (
    CENTERPOINT,
    CRASH,
    DLA,
    GOOGLENET_INT8,
    MNIST_BEST,
    MNIST_FP16_10,
    PATTERNS_FAILED,
    PLUGIN_FAILED,
    QAT_RESNET,
    SILENT_FAILED,
    TINY_FP16,
    TINY_INT8,
    YOLO,
    build,
    lint,
    of,
)
from trtlog.events.autotune import TimingCacheLoaded

LOGS = FIXTURES / "logs"

# -- build-failed --------------------------------------------------------------------------------


def test_no_kernel_for_a_fused_qdq_layer() -> None:
    (f,) = of(lint(PATTERNS_FAILED), "build-failed")
    assert f.severity == "error"
    assert f.subject.startswith("layer4.conv.weight + /layer4/conv/_weight_quantizer/Quantiz")
    assert f.message.startswith("the build failed: Could not find any implementation for node ")
    assert "/layer4/up/_input_quantizer/QuantizeLinear" in f.evidence.names
    assert "no kernel implements this fused layer with its Q/DQ nodes" in f.why
    assert f.evidence.lines[0] == 56 and f.evidence.lines[-1] == 62  # ... &&&& FAILED


@needs_corpus
def test_missing_plugin() -> None:
    (f,) = of(lint(PLUGIN_FAILED), "build-failed")
    assert f.subject == "CustomOpModel-N-0-AddScalar"
    assert "Plugin not found" in f.message and "[AddScalar]" in f.message
    assert "a plugin the model needs is not registered" in f.why
    assert "--staticPlugins/--dynamicPlugins" in f.mitigation


@needs_corpus
def test_failure_without_an_error_line() -> None:
    (f,) = of(lint(SILENT_FAILED), "build-failed")
    assert f.subject == "build"
    assert "failed without printing an error after line 112" in f.message
    assert "Finish parsing network model" in f.message
    assert f.evidence.lines == (112, 113)


@needs_corpus
def test_myelin_crash_names_the_region_being_autotuned() -> None:
    (f,) = of(lint(CRASH), "build-failed")
    assert f.subject == "{ForeignNode[18 + (Unnamed Layer* 1) [Shuffle]...If_6_OutputLayer]}"
    assert 'Assertion `0 && "Unsupported type"\' failed' in f.message
    assert "the builder was autotuning {ForeignNode[18" in f.message
    assert f.why == "the Myelin compiler crashed on an internal assertion"
    assert f.evidence.lines == (347, 348)


def test_onnx_parser_assertion() -> None:
    (f,) = of(lint(LOGS / "trt7.0_onnx-parse-error_python-legacy.log"), "build-failed")
    assert f.subject == "resize1"
    assert "it names resize1 [Resize]" in f.message
    assert f.why.startswith("the ONNX parser could not import the node (Resize)")


def test_bad_command_line() -> None:
    (f,) = of(lint(LOGS / "trtexec-like_help-text-T19.log"), "build-failed")
    assert f.message == "the build failed: Unknown option: --fp17"
    assert f.why == "trtexec rejected its command line before building anything"


def test_python_api_build_that_stopped_at_an_error() -> None:
    text = (
        "[TRT] [E] 10: Could not find any implementation for node /conv/Conv.\n"
        "[TRT] [E] 10: [optimizer.cpp::computeCosts::3869] Error Code 10: Internal Error "
        "(Could not find any implementation for node /conv/Conv.)\n"
    )
    found = trtlog.lint(trtlog.parse_text(text), rules=["build-failed"])
    assert [f.subject for f in found] == ["/conv/Conv"]
    assert "no kernel (tactic) could run this layer" in found[0].why


def test_recovered_errors_are_not_a_failure() -> None:
    text = (
        "[I] [TRT] Loaded engine size: 1 MiB\n"
        "[E] [TRT] 1: [defaultAllocator.cpp::deallocate::42] Error Code 1: Cuda Runtime "
        "(invalid argument)\n"
        "[I] Engine built in 1.2 sec.\n"
    )
    assert not trtlog.lint(trtlog.parse_text(text), rules=["build-failed"])


@pytest.mark.parametrize("path", [TINY_FP16, TINY_INT8, YOLO, DLA], ids=lambda p: p.name)
def test_fixture_builds_that_passed(path: Path) -> None:
    assert not of(lint(path), "build-failed")


def _passed(path: Path) -> bool:
    runs = build(path).runs
    return bool(runs) and all(r.status == "passed" for r in runs)


@needs_corpus
@pytest.mark.parametrize(
    "path", [p for p in corpus_logs() if "FAILED" not in p.name], ids=lambda p: p.name
)
def test_corpus_builds_that_did_not_fail(path: Path) -> None:
    found = of(lint(path), "build-failed")
    if "CRASH" in path.name:
        assert len(found) == 1
    else:
        assert not found, (path.name, _passed(path))


# -- tactic-memory-skip --------------------------------------------------------------------------


@needs_corpus
def test_tactics_skipped_for_workspace() -> None:
    (f,) = of(lint(CENTERPOINT), "tactic-memory-skip")
    assert f.severity == "info"
    assert f.subject == "35 tactics"
    assert "the largest asked for 16,771.1 MiB, 4,096.0 MiB available" in f.message
    assert "workspace: 4096 MiB; device memory 40,396 MiB" in f.message
    assert "--workspace=16772" in f.mitigation  # 8.2: before --memPoolSize


@needs_corpus
def test_a_workspace_of_one_kib() -> None:
    (f,) = of(lint(MNIST_FP16_10), "tactic-memory-skip")
    assert "the largest asked for 984,576 bytes, 1,024 bytes available" in f.message
    assert "Myelin exceeded its memory budget 4 times" in f.message
    assert "--memPoolSize=workspace:2," in f.mitigation  # Myelin needed 1.1 MiB


def test_no_skipped_tactics() -> None:
    assert not of(lint(TINY_INT8), "tactic-memory-skip")


# -- dla-fallback --------------------------------------------------------------------------------


def test_dla_fallbacks_subgraph_limit_and_transitions() -> None:
    found = of(lint(DLA), "dla-fallback")
    assert [(f.subject, f.severity) for f in found] == [
        ("3 layers", "warning"),
        ("DLA subgraphs", "warning"),
        ("DLA↔GPU transitions", "warning"),
    ]
    fallbacks, limit, transitions = found
    assert "1 constants (harmless)" in fallbacks.message
    assert "/neck/Gather (operation unsupported on DLA: GATHER)" in fallbacks.message
    assert "only 3 of 5 DLA candidate nodes were offloaded" in fallbacks.message
    assert "use static shapes for the DLA part" in fallbacks.mitigation
    assert limit.evidence.names == ("/head/cls/Conv", "/head/reg/Conv")
    assert "switches between DLA and GPU 3 times (3 DLA layers, 5 GPU layers)" in (
        transitions.message
    )
    assert "the profile shows 4 DLA transfers (images to nvm, " in transitions.message
    assert transitions.time_ms == pytest.approx(0.4182, abs=1e-4)


def test_only_constants_fell_back() -> None:
    text = (
        "[I] DLACore: 0\n"
        "[W] [TRT] Layer '/Constant_output_0' (CONSTANT): Unsupported on DLA. Switching this "
        "layer's device type to GPU.\n"
    )
    (f,) = trtlog.lint(trtlog.parse_text(text), rules=["dla-fallback"])
    assert f.severity == "info"


@needs_corpus
def test_no_dla_rule_without_dla() -> None:
    """8.4 prints a DLA summary ("0 out of 1 candidates") in every build, DLA or not."""
    assert not of(lint(CRASH), "dla-fallback")


# -- slow-build-no-timing-cache ------------------------------------------------------------------


@needs_corpus
def test_a_long_build_without_a_timing_cache() -> None:
    (f,) = of(lint(CENTERPOINT), "slow-build-no-timing-cache")
    raw = Path(CENTERPOINT).read_text(encoding="utf-8")
    built = float(re.findall(r"Engine built in ([\d.]+) sec", raw)[-1])
    tactics = sum(map(float, re.findall(r"selection completed in ([\d.]+) seconds", raw)))
    assert built >= 60 and f.severity == "warning"
    assert f"the build took {built:.1f} s (Engine built in)" in f.message
    assert f"most of the {tactics:.1f} s of tactic timing" in f.why
    assert "--timingCacheFile" in f.mitigation


def test_an_invalid_timing_cache() -> None:
    (f,) = of(lint(PATTERNS_FAILED), "slow-build-no-timing-cache")
    assert f.severity == "info"
    assert "was invalid" in f.message
    assert f.evidence.lines == (13, 49)  # timingCacheFile: <path>, the invalid-cache warning


def test_short_build_without_cache_is_quiet() -> None:
    # 37.9 s of tactic selection: a cache would save seconds, not worth a finding
    assert not of(lint(DLA), "slow-build-no-timing-cache")


@pytest.mark.parametrize(
    ("name", "fires"),
    [
        ("trt10.6-trtexec_slow-build-no-cache.log", True),
        ("trt10.6-trtexec_fast-build-no-cache.log", False),
    ],
)
def test_non_verbose_builds_by_their_build_time(name: str, fires: bool) -> None:
    path = FIXTURES / "cases" / name
    seconds = float(re.findall(r"Engine built in ([\d.]+) sec", path.read_text())[-1])
    found = of(lint(path), "slow-build-no-timing-cache")
    assert bool(found) is fires and (seconds >= 60) is fires
    if fires:
        assert found[0].severity == "warning"
        assert f"the build took {seconds:.1f} s" in found[0].message


@needs_corpus
def test_a_build_with_a_cache_file_is_not_reported() -> None:
    assert not of(lint(MNIST_FP16_10), "slow-build-no-timing-cache")


def test_a_slow_build_that_loaded_a_timing_cache_file_is_not_reported(tmp_path: Path) -> None:
    """trtexec's ``Loaded <n> bytes of timing cache from <file>`` (a typed event): the build
    read a cache, whatever the other lines say; the same slow build without it is reported."""
    slow = FIXTURES / "cases" / "trt10.6-trtexec_slow-build-no-cache.log"
    lines = slow.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "Engine built in" in line)
    loaded = "[12/07/2026-09:55:01] [I] Loaded 102855 bytes of timing cache from ./timing.cache\n"
    path = tmp_path / "loaded.log"
    path.write_text("".join([*lines[:at], loaded, *lines[at:]]), encoding="utf-8")
    assert of(lint(slow), "slow-build-no-timing-cache")
    (event,) = trtlog.parse(path).events_of("timing_cache_loaded")
    assert isinstance(event, TimingCacheLoaded)
    assert (event.bytes, event.path) == (102855, "./timing.cache")
    assert not of(lint(path), "slow-build-no-timing-cache")


# -- int8-no-calibration -------------------------------------------------------------------------


@needs_corpus
def test_int8_with_placeholder_ranges() -> None:
    (f,) = of(lint(MNIST_BEST), "int8-no-calibration")
    assert f.severity == "warning"
    assert "no calibration cache was given (Calibration: Dynamic)" in f.message
    assert "19 tensors got trtexec's placeholder dynamic ranges" in f.message


@needs_corpus
def test_int8_without_calibrator_in_7x() -> None:
    assert of(lint(GOOGLENET_INT8), "int8-no-calibration")


@needs_corpus
def test_qdq_builds_need_no_calibration() -> None:
    assert not of(lint(QAT_RESNET), "int8-no-calibration")


def test_fp16_builds_need_no_calibration() -> None:
    assert not of(lint(TINY_FP16), "int8-no-calibration")


def test_corpus_is_present_or_skipped() -> None:
    """The corpus tests above skip cleanly without ../shared/corpus."""
    assert CORPUS.is_dir() or not corpus_logs()
