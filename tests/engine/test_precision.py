"""One definition of a layer's precision, the same from every form of an engine's layers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, corpus_json, corpus_logs, needs_corpus
from trtlog.diff.load import compare
from trtlog.engine.from_log import ENGINE_EVENTS, engine_from_events
from trtlog.engine.model import Engine, EngineLayer
from trtlog.events import (
    EngineLayerInfo,
    EngineLayerInfoHeader,
    EngineLayersDetailed,
    InspectorLayersHeader,
    InspectorRecord,
)
from trtlog.exports import load_engine
from trtlog.tensors import DType, Tensor, dtype_of

BOTH = FIXTURES / "logs" / "trt8.6-like_int8-head-precision_build-verbose-dumpLayerInfo.log"
_KINDS = sorted({c.model_fields["kind"].default for c in ENGINE_EVENTS})
_LISTING = (EngineLayerInfo, EngineLayerInfoHeader)
_INSPECTOR = (InspectorRecord, InspectorLayersHeader, EngineLayersDetailed)
# a listing record: "Layer(<type>): <name>, Tactic: 0x..., <inputs> -> <outputs>"
_RECORD = re.compile(
    r"^Layer\([^)]*\): .*?, Tactic: (?:0x)?-?[0-9a-f]+, (?P<inputs>.*?) -> (?P<outputs>.*)$"
)
# the type word of a listed tensor: "name[Int8(1,64,28,28)]" (<= 8.6) or "name (Float[-1,3])"
_TYPE_WORD = re.compile(r"\[([A-Z][A-Za-z0-9]*)\(|\(([A-Z][A-Za-z0-9]*)\[")
_INDEX = {"BOOL", "INT32", "INT64"}


def _forms(path: Path) -> tuple[Engine | None, Engine | None]:
    """The engine of a log's ``Layer(...)`` listing alone, and of its inspector dump alone."""
    events = trtlog.parse(path).events_of(*_KINDS)
    listing = engine_from_events([e for e in events if not isinstance(e, _INSPECTOR)], "l")
    dump = engine_from_events([e for e in events if not isinstance(e, _LISTING)], "d")
    if listing is None or listing.origin != "log_listing":
        listing = None
    if dump is None or dump.origin != "log_inspector":
        dump = None
    return listing, dump


def _precisions(engine: Engine) -> dict[str, str | None]:
    frame = engine.layers_frame()
    return dict(zip(frame["name"], frame["precision"].astype(object), strict=True))


def _values_type(words: list[str]) -> str | None:
    """The first listed type that is not an index or mask type, else the first (raw side)."""
    types = [t for t in (dtype_of(w) for w in words) if t]
    return next((t for t in types if t not in _INDEX), types[0] if types else None)


def test_the_listing_and_the_dump_agree() -> None:
    listing, dump = _forms(BOTH)
    assert listing is not None and dump is not None
    assert _precisions(listing) == _precisions(dump)
    assert _precisions(listing) == {
        "/in/QuantizeLinear": "FP32",  # a reformat: the type it reads
        "head.weight + /head/QuantizeLinear + /head/Conv": "INT8",  # writes FP32
        "{ForeignNode[/attn/Equal.../attn/Softmax]}": "FP32",  # its first output is a mask
    }
    frame = listing.layers_frame()
    assert frame["output_dtypes"].tolist() == ["INT8", "FP32", "BOOL,FP16"]
    assert frame["input_dtypes"].tolist() == ["FP32", "INT8", "FP32,BOOL"]


def test_layer_precision_reads_the_kernel_then_the_inputs() -> None:
    conv = EngineLayer(
        index=0,
        name="c",
        inputs=(Tensor(name="x", dtype="FP16"),),
        outputs=(Tensor(name="y", dtype="FP16"),),
        tactic_name="sm80_xmma_fprop_implicit_gemm_interleaved_i8i8_i8i32_f32",
    )
    assert conv.precision.precision == "INT8" and conv.precision.compute == "INT8"
    gather = EngineLayer(
        index=1,
        name="g",
        inputs=(Tensor(name="i", dtype="INT64"), Tensor(name="d", dtype="FP16")),
        outputs=(Tensor(name="o", dtype="FP16"),),
    )
    assert gather.precision.precision == "FP16"
    shape = EngineLayer(index=2, name="s", inputs=(Tensor(name="i", dtype="INT64"),))
    assert shape.precision.precision == "INT64"
    assert EngineLayer(index=3, name="names only").precision.precision is None


def test_a_changed_output_type_is_not_a_precision_change() -> None:
    def engine(out: DType) -> Engine:
        layer = EngineLayer(
            index=0,
            name="conv",
            type="CaskConvolution",
            inputs=(Tensor(name="x", dtype="INT8", dims=(1, 8, 4, 4)),),
            outputs=(Tensor(name="y", dtype=out, dims=(1, 8, 4, 4)),),
            onnx_nodes=("conv",),
            onnx_source="name",
        )
        return Engine(source=out, origin="layer_json", detailed=True, layers=(layer,))

    cmp = compare(engine("FP32"), engine("FP16"))
    (step,) = cmp.steps
    assert "output type FP32→FP16" in step.reasons
    assert not [r for r in step.reasons if r.startswith("precision ")]
    assert cmp.summary().precision_changes == ()


@needs_corpus
def test_corpus_listing_precision_equals_the_raw_input_types() -> None:
    """Every ``Layer(...)`` line's precision is its first value input type, read from the
    raw text; and where a log also prints the inspector dump, both forms agree."""
    checked = agreed = 0
    for path in corpus_logs():
        raw = path.read_text(encoding="utf-8", errors="replace")
        if "Layer(" not in raw:
            continue
        listing, dump = _forms(path)
        if listing is None:
            continue
        precision = _precisions(listing)
        for line in raw.splitlines():
            m = _RECORD.match(line)
            if m is None:
                continue
            name = line[line.index("): ") + 3 : line.index(", Tactic: ")]
            if name not in precision:
                continue  # another build's listing of the same file
            words = [a or b for a, b in _TYPE_WORD.findall(m["inputs"])]
            words = words or [a or b for a, b in _TYPE_WORD.findall(m["outputs"])]
            if precision[name] is not None or words:
                checked += 1
        if dump is not None:
            theirs = _precisions(dump)
            common = [n for n in precision if n in theirs]
            assert common, path.name
            assert {n: precision[n] for n in common} == {n: theirs[n] for n in common}, path.name
            agreed += len(common)
    assert checked >= 100
    assert agreed >= 100  # the 8.5.10 resnet18-QAT (26), 8.2.3 centerpoint (94), 10.16.2 mnist


@needs_corpus
def test_corpus_listing_lines_one_by_one() -> None:
    path = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"
    raw = path.read_text(encoding="utf-8", errors="replace")
    listing, _ = _forms(path)
    assert listing is not None
    precision = _precisions(listing)
    for line in raw.splitlines():
        m = _RECORD.match(line)
        if m is None:
            continue
        name = line[line.index("): ") + 3 : line.index(", Tactic: ")]
        words = [a or b for a, b in _TYPE_WORD.findall(m["inputs"])]
        if not words:
            words = [a or b for a, b in _TYPE_WORD.findall(m["outputs"])]
        assert precision[name] == _values_type(words), name


@needs_corpus
def test_a_layer_json_and_the_logs_dump_of_one_engine_agree() -> None:
    log = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log"
    engine = trtlog.parse(log).engine
    assert engine is not None
    from_json = _precisions(
        load_engine(CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json")
    )
    from_log = _precisions(engine)
    assert from_json == from_log
    # FP32 layers, and the cast of the argmax's INT32 indices (it reads INT32 only)
    assert set(from_json.values()) == {"FP32", "INT32"}


@needs_corpus
@pytest.mark.parametrize(
    "path",
    [p for p in corpus_json() if "_layers" in p.name or "layer-information" in p.name],
    ids=lambda p: p.name,
)
def test_corpus_layer_json_never_labels_a_mask_or_index(path: Path) -> None:
    engine = load_engine(path)
    for layer in engine.layers:
        precision = layer.precision
        if not engine.detailed:
            assert precision.precision is None
        elif precision.compute is None and any(t not in _INDEX for t in precision.inputs if t):
            assert precision.precision not in _INDEX, layer.name


def test_the_fp32_fallback_finding_reads_the_same_precision() -> None:
    """An INT8 build without FP16: the INT8 convolution writing FP32 is no FP32 layer, from
    its ``Layer(...)`` line as from its dump (the listing alone called it FP32)."""
    lines = BOTH.read_text(encoding="utf-8").splitlines(keepends=True)
    listing_only = "".join(lines[: next(i for i, t in enumerate(lines) if "[I] Layers:" in t)])
    text = listing_only.replace("Precision: FP32+FP16+INT8", "Precision: FP32+INT8")
    for build in (
        trtlog.parse_text(text),
        trtlog.parse_text(
            BOTH.read_text(encoding="utf-8").replace(
                "Precision: FP32+FP16+INT8", "Precision: FP32+INT8"
            )
        ),
    ):
        assert build.engine is not None
        found = [f for f in trtlog.lint(build) if f.rule == "precision-fallback"]
        assert not any("/head/Conv" in f.message for f in found)
