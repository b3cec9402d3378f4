"""The summary and the report name TensorRT-RTX as such, with its own version or none."""

from __future__ import annotations

import re

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.numbers import decode_version

_RTX_FIXTURE = FIXTURES / "logs" / "tensorrt-rtx-like_smallnet_run.log"
_RTX_CORPUS = (
    CORPUS / "tensorrt-rtx_cookbook-identity-dynamic-shape_build-verbose-jit-no-envelope.log"
)


def _fact(html: str) -> tuple[str, str]:
    found = re.search(r'id="fact-trt"><th>([^<]*)</th><td>([^<]*)</td>', html)
    assert found is not None, "the overview shows no version row"
    return found[1], found[2]


def test_a_tensorrt_rtx_banner_shows_its_version() -> None:
    code = re.search(r"\[TensorRT-RTX v(\d+)\]", _RTX_FIXTURE.read_text(encoding="utf-8"))
    assert code is not None
    printed = ".".join(map(str, decode_version(int(code[1]))))
    build = trtlog.parse(_RTX_FIXTURE)
    assert (build.product, build.version_source) == ("TensorRT-RTX", "banner")
    summary = trtlog.summarize(build)
    assert summary.version_row() == ("TensorRT-RTX", printed) == ("TensorRT-RTX", "1.4.0")
    assert f"TensorRT-RTX          {printed}" in summary.to_text()
    assert _fact(trtlog.report(build)) == ("TensorRT-RTX", printed)


def test_a_tensorrt_log_keeps_its_row() -> None:
    path = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
    code = re.search(r"\[TensorRT v(\d+)\]", path.read_text(encoding="utf-8"))
    assert code is not None
    printed = ".".join(map(str, decode_version(int(code[1]))))
    build = trtlog.parse(path)
    assert trtlog.summarize(build).version_row() == ("TensorRT", printed)
    assert _fact(trtlog.report(build)) == ("TensorRT", printed)


@needs_corpus
def test_a_tensorrt_rtx_log_without_banner_is_named_in_the_report() -> None:
    build = trtlog.parse(_RTX_CORPUS)
    assert _fact(trtlog.report(build)) == ("TensorRT-RTX", "version not printed")
