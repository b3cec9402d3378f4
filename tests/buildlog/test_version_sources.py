"""The TensorRT version from every place a log prints it (trtlog.buildlog.header)."""

from __future__ import annotations

import re

import trtlog
from tests.conftest import FIXTURES, corpus_logs, needs_corpus
from trtlog.buildlog.header import library_version

_LIBRARY = re.compile(
    r"load(?:ed)? shared library libnvinfer_builder_resource(?:_sm\d+)?\.so\.([\d.]+)"
)
_BANNER = re.compile(r"\[TensorRT v\d+\]|TensorRT version: ")


def test_library_version_of_builder_resources() -> None:
    assert library_version("libnvinfer_builder_resource_sm89.so.10.16.0") == (10, 16, 0)
    assert library_version("libnvinfer_builder_resource.so.8.6.0") == (8, 6, 0)
    assert library_version("/usr/lib/libnvinfer_plugin.so.10.3.0") == (10, 3, 0)
    assert library_version("libnvinfer.so.10") is None  # the major version alone
    assert library_version("libcublasLt.so.12.4.5") is None


def test_a_python_log_takes_its_version_from_the_builder_resource() -> None:
    text = (
        "[V] Trying to load shared library libnvinfer_builder_resource_sm89.so.10.16.0\n"
        "[V] Loaded shared library libnvinfer_builder_resource_sm89.so.10.16.0\n"
        "[I] [MemUsageChange] Init builder kernel library: CPU +1, GPU +0, now: CPU 1, GPU 2"
        " (MiB)\n"
    )
    build = trtlog.parse_text(text)
    assert build.trt_version == (10, 16, 0)
    assert build.runs == ()  # a library line starts no run


def test_the_banner_wins_over_a_library_name() -> None:
    text = (
        "&&&& RUNNING TensorRT.trtexec [TensorRT v101401] # trtexec --onnx=m.onnx\n"
        "[04/25/2026-00:54:26] [V] [TRT] Loaded shared library "
        "libnvinfer_builder_resource_sm89.so.10.16.0\n"
    )
    build = trtlog.parse_text(text)
    assert build.trt_version == (10, 14, 1)
    assert build.runs[0].trt_version == (10, 14, 1)


def test_each_run_keeps_its_own_library_version() -> None:
    text = (
        "&&&& RUNNING TensorRT.trtexec # trtexec --onnx=a.onnx\n"
        "[V] [TRT] Loaded shared library libnvinfer_builder_resource.so.8.6.1\n"
        "&&&& RUNNING TensorRT.trtexec # trtexec --onnx=b.onnx\n"
        "[V] [TRT] Loaded shared library libnvinfer_builder_resource.so.10.3.0\n"
    )
    build = trtlog.parse_text(text)
    assert [r.trt_version for r in build.runs] == [(8, 6, 1), (10, 3, 0)]
    assert build.trt_version == (8, 6, 1)


@needs_corpus
def test_corpus_versions_from_library_names() -> None:
    """Each corpus log whose only version is a builder resource's name gets that version."""
    checked = 0
    for path in corpus_logs():
        raw = path.read_text(encoding="utf-8", errors="replace")
        found = _LIBRARY.search(raw)
        if found is None or _BANNER.search(raw):
            continue
        build = trtlog.parse(path)
        assert build.trt_version == tuple(int(p) for p in found[1].split(".")), path.name
        checked += 1
    assert checked >= 3  # the 10.16 Python-logger and bare logs of 2026-12-07


def test_a_tensorrt_rtx_banner_gives_its_own_version() -> None:
    path = FIXTURES / "logs" / "tensorrt-rtx-like_smallnet_run.log"
    code = int(re.search(r"\[TensorRT-RTX v(\d+)\]", path.read_text(encoding="utf-8"))[1])  # type: ignore[index]
    build = trtlog.parse(path)
    (run,) = build.runs
    assert run.rtx_version == (code // 10000, code // 100 % 100, code % 100) == (1, 4, 0)
    assert run.trt_version is None and build.trt_version is None  # not a TensorRT version
