"""``dynamic-shape-pinned`` on the corpus logs where trtexec chose a shape itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, needs_corpus

PINNED = re.compile(
    r"Dynamic dimensions required for input: (?P<name>.+?), but no shapes were provided\. "
    r"Automatically overriding shape to: (?P<dims>\S+)"
)
BUILDS = [
    "trt10.16.1_cookbook-mnist-cnn-fp32_build.log",
    "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log",
    "trt10.14.1_cookbook-addscalar-plugin_build-noisy-stdout.log",
]


@needs_corpus
@pytest.mark.parametrize("name", BUILDS)
def test_pinned_shape_against_the_raw_line(name: str) -> None:
    path = CORPUS / name
    raw = [m for m in PINNED.finditer(path.read_text(encoding="utf-8"))]
    assert raw
    build = trtlog.parse(path)
    (f,) = [x for x in trtlog.lint(build) if x.rule == "dynamic-shape-pinned"]
    assert f.severity == "warning"
    for m in raw:
        assert f"{m.group('name')}={m.group('dims')}" in f.message
        assert f"--minShapes={m.group('name')}:{m.group('dims')}" in f.mitigation
    assert f.evidence.matched == len(raw)
    assert all(PINNED.search(build.lines_text(n)) for n in f.evidence.lines)


@needs_corpus
def test_inference_run_picks_a_shape_info() -> None:
    """A --loadEngine run without --shapes: trtexec picks the shape it measures (info)."""
    path = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_run-dumpProfile.log"
    m = re.search(r"Automatically setting shape to: (\S+)", path.read_text(encoding="utf-8"))
    assert m is not None
    (f,) = [x for x in trtlog.lint(path) if x.rule == "dynamic-shape-pinned"]
    assert f.severity == "info" and m.group(1) in f.message


@needs_corpus
@pytest.mark.parametrize(
    "name",
    [
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt10.14.1_cookbook-mnist-cnn-fp16_build-verbose-trtexec.log",
    ],
)
def test_builds_with_shapes_are_quiet(name: str) -> None:
    path: Path = CORPUS / name
    assert not PINNED.search(path.read_text(encoding="utf-8"))
    assert not [x for x in trtlog.lint(path) if x.rule == "dynamic-shape-pinned"]
