"""Short reprs and notebook tables of the big objects; dir(trtlog); kinds with a typo."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, needs_corpus

YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
RESNET18 = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json"
RESNET18_PROFILE = FIXTURES / "layer_info" / "resnet18_synthetic.profile.json"


def test_build_repr_is_one_line() -> None:
    build = trtlog.parse(YOLO)
    text = repr(build)
    assert text == (
        f"<Build {str(YOLO)!r}: 286 lines, {len(build.events)} events, TensorRT 8.4.12, 1 run>"
    )
    assert str(build) == text
    html = build._repr_html_()
    assert html.startswith("<table>") and "8.4.12" in html and "286" in html
    assert len(html) < 3000


def test_engine_profile_and_times_reprs() -> None:
    engine = trtlog.load_engine(RESNET18, profile=RESNET18_PROFILE)
    assert repr(engine) == (
        f"<Engine {str(RESNET18)!r}: 25 layers (layer_json, detailed), 0.472 ms per inference>"
    )
    assert repr(engine.profile).endswith(": 25 records, 0.472 ms per inference, 1 run>")
    html = engine._repr_html_()
    assert "CaskConvolution" in html and "0.472 ms" in html
    names_only = trtlog.load_engine(
        FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8_layers-names.json"
    )
    assert repr(names_only).endswith("25 layers (layer_json, names only)>")


def test_merge_graph_and_comparison_reprs() -> None:
    graph = trtlog.parse(YOLO).merge_graph()
    text = repr(graph)
    assert text.startswith(f"<MergeGraph {str(YOLO)!r}: {graph.number_of_nodes()} nodes (")
    assert "3 engine layers" in text and text.endswith("final layers from layer dump>")
    assert "engine_layer 3" in graph._repr_html_()
    cmp = trtlog.compare(RESNET18, RESNET18)
    assert repr(cmp).endswith("(25 layers): = 25 ~ 0 - 0 + 0, 0 fusion groups>")
    assert "<table>" in cmp._repr_html_()


@needs_corpus
def test_reprs_stay_short_on_big_inputs() -> None:
    """repr(Build) was 6.1 MB for a 2 MB log, repr(Engine) 603 KB for ControlNet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build = trtlog.parse(CORPUS / "trt8.5.10_bevformer-tsa-msda-plugin-best_build-verbose.log")
    engine = trtlog.load_engine(
        CORPUS / "trt8.6_controlnet-fp16_layers-detailed.json",
        profile=CORPUS / "trt8.6_controlnet-fp16_profile.json",
    )
    times = trtlog.load_times(CORPUS / "trt10.4_mobilenetv2-fp16-rtx3060_times.json")
    for obj in (build, engine, engine.profile, times, build.merge_graph()):
        assert len(repr(obj)) < 300 and "\n" not in repr(obj)
    assert repr(engine).endswith("388 layers (layer_json, detailed), 3.592 ms per inference>")
    assert repr(times).endswith(": 12,852 inferences, 1 run>")
    for obj in (build, engine, build.merge_graph()):
        assert len(obj._repr_html_()) < 4000


def test_dir_lists_every_public_name_without_importing_views() -> None:
    code = (
        "import sys, trtlog; names = dir(trtlog); "
        "missing = [n for n in trtlog.__all__ if n not in names]; "
        "heavy = [m for m in ('pandas', 'networkx', 'matplotlib') if m in sys.modules]; "
        "print(missing, heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[] []"
    names = dir(trtlog)
    for name in ("fate", "provenance", "members", "plot_tactic_timing", "findings_frame"):
        assert name in names


def test_events_of_a_typo_says_what_was_meant() -> None:
    build = trtlog.parse(YOLO)
    with pytest.raises(ValueError, match=r"unknown event kind 'fusoin' \(did you mean 'fusion'"):
        build.events_of("fusoin")
    with pytest.raises(ValueError, match=r"kind 'zzz'; trtlog\.events\.EVENT_CLASSES lists"):
        build.events_of("layer_count", "zzz")
    assert build.events_of("fusion", "layer_count")
