"""The lint context's columns and batches against reading every layer object.

The rules scan per-layer columns (:func:`~trtlog.findings.context.layer_columns`),
pre-filtered layer lists (``qdq_layers``, ``weighted_layers``), per-type answers, and
assemble findings without validation. Each is checked here against the plain per-layer
reading on every fixture and corpus layer JSON and every log's layer dump, and every finding
must be what validation would build.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, corpus_logs, layer_json_files
from tests.findings.inputs import build
from tests.findings.test_golden import CASES
from trtlog import Engine, Finding
from trtlog.engine import EngineLayer
from trtlog.findings.context import (
    NAME_BRACED,
    NAME_COPY,
    NAME_FOREIGN,
    NAME_MYELIN,
    NAME_SOFT,
    LintContext,
    _name_flags,
    layer_columns,
    name_flags,
)
from trtlog.findings.models import Evidence


def _log_files() -> list[Path]:
    return sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs()


LAYER_FILES = layer_json_files()
LOG_FILES = _log_files()


@functools.cache
def _engine(path: Path) -> Engine | None:
    """The engine of a layer JSON or of a log's layer dump."""
    if path.suffix == ".json":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return trtlog.load_engine(path)
    return build(path).engine


def _log_engines() -> list[Engine]:
    """The engines of the logs that print a layer dump."""
    return [e for p in LOG_FILES if (e := _engine(p)) is not None]


def _flags(name: str) -> int:
    """The NAME_* bits, from the string tests the rules made."""
    return (
        NAME_MYELIN * ("_myl" in name)
        | NAME_FOREIGN * name.startswith("{ForeignNode[")
        | NAME_SOFT * ("oft" in name)
        | NAME_BRACED * (name.startswith("{") and name.endswith("}"))
        | NAME_COPY * name.startswith(("Reformatting CopyNode for ", "Reformatted Input Tensor "))
        | NAME_COPY * name.startswith("Reformatted Output Tensor ")
    )


def test_there_are_engines_to_check() -> None:
    assert len(LAYER_FILES) >= 5
    assert sum(_engine(p) is not None for p in LOG_FILES) >= 3


@pytest.mark.parametrize("path", LAYER_FILES, ids=lambda p: p.name)
def test_columns_are_the_layer_values(path: Path) -> None:
    """The values of every layer."""
    engine = _engine(path)
    assert engine is not None
    _check_columns(engine)


def test_columns_of_log_engines_are_the_layer_values() -> None:
    for engine in _log_engines():
        _check_columns(engine)


def _check_columns(engine: Engine) -> None:
    layers = engine.layers
    expected = (
        [x.name for x in layers],
        [x.type for x in layers],
        [x.origin for x in layers],
        [x.onnx_nodes for x in layers],
        [len(x.inputs) for x in layers],
        [len(x.outputs) for x in layers],
        [_flags(x.name) for x in layers],
        all(x.index == i for i, x in enumerate(layers)),
    )
    assert tuple(layer_columns(engine)) == expected


@pytest.mark.parametrize("path", LAYER_FILES, ids=lambda p: p.name)
def test_layer_lists_and_caches_are_the_per_layer_answers(path: Path) -> None:
    """qdq_layers, weighted_layers, roles, INT8 and the tensor graph, as each layer says."""
    engine = _engine(path)
    assert engine is not None
    _check_lists(engine)


def test_layer_lists_and_caches_of_log_engines() -> None:
    for engine in _log_engines():
        _check_lists(engine)


def _check_lists(engine: Engine) -> None:
    fast = LintContext(None, engine)
    plain = LintContext(None, engine)
    layers = engine.layers
    roles = [plain._qdq_role(x) for x in layers]
    assert [fast.qdq_role(x) for x in layers] == roles
    assert fast.qdq_layers == tuple(x for x, r in zip(layers, roles, strict=True) if r)
    assert fast.weighted_layers == tuple(x for x in layers if plain._is_weighted(x))
    assert [fast.is_int8(x) for x in layers] == [
        x.precision.compute == "INT8" or any(t.dtype == "INT8" for t in x.inputs) for x in layers
    ]
    producers: dict[str, int] = {}
    consumers: dict[str, list[int]] = {}
    for x in layers:
        for t in x.outputs:
            producers.setdefault(LintContext.key(x, t.name), x.index)
        for t in x.inputs:
            consumers.setdefault(LintContext.key(x, t.name), []).append(x.index)
    assert fast.producers == producers
    assert dict(fast.consumers) == consumers
    for x in layers:
        downstream = sorted({i for t in x.outputs for i in consumers.get(fast.key(x, t.name), ())})
        assert [y.index for y in fast.downstream(x)] == downstream
        upstream = [producers.get(fast.key(x, t.name)) for t in x.inputs]
        assert [y.index for y in fast.upstream(x)] == [i for i in upstream if i is not None]


def test_roles_of_an_engine_numbered_by_hand() -> None:
    """Layer indices that are not positions: roles are asked layer by layer."""
    engine = _engine(FIXTURES / "layer_info" / "trt8.6-like_patternnet-qdq_layers-detailed.json")
    assert engine is not None
    layers = tuple(
        EngineLayer.model_validate({**x.model_dump(), "index": x.index + 100})
        for x in engine.layers
    )
    shifted = engine.model_copy(update={"layers": layers})
    ctx = LintContext(None, shifted)
    assert not ctx.columns.positional
    plain = [LintContext(None, engine).qdq_role(x) for x in engine.layers]
    assert [ctx.qdq_role(x) for x in layers] == plain
    assert any(plain)


@pytest.mark.parametrize(
    "name",
    [
        "{ForeignNode[/a/MatMul.../a/Softmax]}",
        "{conv1,pool1,conv2}",
        "__myl_MaxrSubExpSumDiv_myl0_5",
        "Reformatting CopyNode for Input Tensor 0 to /a/Conv",
        "Reformatted Output Tensor 0 to /b/Add",
        "/model/attn/Softmax",
        "{",
        "",
    ],
)
def test_name_flags(name: str) -> None:
    assert name_flags(name) == _flags(name)
    assert _name_flags([name]) == [_flags(name)]  # the columns' inline version


def _all_findings() -> list[tuple[str, list[Finding]]]:
    out = [(p.name, trtlog.lint(e)) for p in LAYER_FILES if (e := _engine(p)) is not None]
    for name, (path, profile, reference, reference_profile) in sorted(CASES.items()):
        found = trtlog.lint(
            path, profile=profile, reference=reference, reference_profile=reference_profile
        )
        out.append((f"golden {name}", found))
    for path in sorted((FIXTURES / "fragments").glob("*.txt")):
        if not path.name.endswith(".reference.txt"):
            out.append((path.name, trtlog.lint(path)))
    return out


def test_findings_are_what_validation_builds() -> None:
    """Findings are assembled without validation: each equals its validated copy, types too."""
    seen = 0
    for label, findings in _all_findings():
        for f in findings:
            again = Finding.model_validate(f.model_dump())
            assert again == f, label
            assert repr(again) == repr(f), label  # (an int where a float belongs shows here)
            assert again.model_fields_set == f.model_fields_set, label
            assert again.evidence.model_fields_set == f.evidence.model_fields_set, label
            assert type(f.evidence) is Evidence
            seen += 1
    assert seen > 100


def _contexts() -> list[tuple[str, LintContext]]:
    """A lint context of every layer JSON and every log with a layer dump."""
    out = []
    for path in LAYER_FILES:
        engine = _engine(path)
        if engine is not None:
            out.append((path.name, LintContext(None, engine, None, None)))
    for path in LOG_FILES:
        if _engine(path) is not None:
            b = build(path)
            out.append((path.name, LintContext(b, b.engine, None, None)))
    # with layer times (shares, and severities raised by them)
    from trtlog.inputs import engine_with_profile

    for name, (path, profile, _ref, _ref_profile) in sorted(CASES.items()):
        if profile is not None:
            log = build(path) if path.suffix == ".log" else None
            engine = log.engine if log is not None else _engine(path)
            timed = engine_with_profile(engine, log, profile)
            out.append((f"{name} (profiled)", LintContext(log, timed, None, None)))
    return out


def _reformat_dtype_plain(ctx: LintContext) -> list[Finding]:
    """``reformat-dtype`` as it was written before its batch (one ``make`` per reformat)."""
    from trtlog.findings.base import make
    from trtlog.findings.context import short
    from trtlog.findings.rules.reformat import (
        _LOW,
        _lines,
        _severity,
        check_reformat_dtype,
        reformats,
    )

    out = []
    for r in reformats(ctx):
        if r.kind != "dtype":
            continue
        src_dtype, dst_dtype = r.src_dtype, r.dst_dtype
        t = ctx.time_at(r.index)
        share = ctx.share(t)
        inputs, outputs = ctx.tensor_names_at(r.index)
        up = ctx.upstream_at(r.index, inputs)
        down = ctx.downstream_at(r.index, outputs)
        names = ctx.columns.names
        neighbours: list[int] = []
        between = ""
        if up and down:
            between = f" between {short(names[up[0]], 70)} and {short(names[down[0]], 70)}"
            neighbours = [up[0], down[0]]
        elif down:
            between, neighbours = f" for {short(names[down[0]], 70)}", [down[0]]
        ints = {src_dtype, dst_dtype} & _LOW
        severity = _severity(ctx, t, "info")
        if ints and ctx.has_qdq:
            severity = "warning"
            cause = (
                "a quantized layer is fed by (or feeds) an unquantized one without a Q/DQ "
                "pair: a missing Q/DQ, or an activation that was not fused"
            )
            fix = (
                "add the missing Q/DQ pair (or fuse the activation) so both sides agree on "
                "INT8, or remove the Q/DQ of the quantized side"
            )
        elif ints:
            cause = (
                "TensorRT picked INT8 for one side and a float precision for the other "
                "(implicit quantization chooses per layer by speed; plugins and layers without "
                "an INT8 kernel stay in float)"
            )
            fix = (
                "nothing to fix if the float side is meant to be float; otherwise give it an "
                "INT8 implementation, or quantize the model explicitly with Q/DQ nodes"
            )
        else:
            cause = (
                f"the layers on its two sides run in {src_dtype} and {dst_dtype}: one had no "
                "kernel in the other precision, or was pinned to it"
            )
            fix = (
                "let both sides run in the same precision (--precisionConstraints with "
                "--layerPrecisions for the pinned layer), or accept the copy"
            )
        out.append(
            make(
                ctx,
                check_reformat_dtype,
                r.name,
                f"{short(r.name, 100)} converts {src_dtype}→{dst_dtype}{between}",
                f"{cause}; the copy runs on every inference" + (f" ({share})" if share else ""),
                fix,
                severity=severity,
                lines=_lines([r]),
                layers=[r.index, *neighbours],
                time_ms=t,
            )
        )
    return out


def test_reformat_dtype_batch_is_the_plain_rule() -> None:
    from trtlog.findings.rules.reformat import check_reformat_dtype

    seen = 0
    for label, ctx in _contexts():
        fast = list(check_reformat_dtype(ctx))
        assert fast == _reformat_dtype_plain(ctx), label
        seen += len(fast)
    # dtype reformats: one in the fixtures, more in the corpus
    assert seen >= (5 if CORPUS.is_dir() else 1)


def _timed_contexts(tmp_path: Path) -> list[tuple[str, LintContext]]:
    """Loader engines with their profiles merged, beside logs.

    A generated engine of ``bench/engine_load.py`` (the report benchmark's shape: thousands of
    dtype reformats, Myelin regions) and the fixtures' layer JSONs that have a profile, each
    with a log whose records name other layers and with none.
    """
    import importlib.util
    import json

    from tests.findings.inputs import TINY_INT8, TINY_INT8_PROFILE

    bench = Path(__file__).resolve().parents[2] / "bench" / "engine_load.py"
    spec = importlib.util.spec_from_file_location("_engine_load_bench", bench)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    value, profile = module.generate(400)
    layers, records = tmp_path / "g.layers.json", tmp_path / "g.profile.json"
    layers.write_text(json.dumps(value))
    records.write_text(json.dumps(profile))
    engines = [("generated", trtlog.load_engine(layers, profile=records))]
    info = TINY_INT8_PROFILE.parent
    for path in sorted(info.glob("*.json")):
        if path.name.endswith(".profile.json"):
            continue
        mate = path.with_name(path.name.replace(".layers.json", ".profile.json"))
        if mate.exists() and mate != path:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                engines.append((path.name, trtlog.load_engine(path, profile=mate)))
    out = []
    for label, engine in engines:
        for log in (None, TINY_INT8):
            b = None if log is None else trtlog.parse(log)
            if b is not None:
                assert b.line_count  # line offsets known, as in a report
            out.append((f"{label} with {log.name if log else 'no log'}", LintContext(b, engine)))
    return out


def test_reformat_dtype_batch_of_timed_engines(tmp_path: Path) -> None:
    """reformat-dtype of timed loader engines (shares, raised severities) is the plain rule."""
    from trtlog.findings.rules.reformat import check_reformat_dtype

    timed = seen = 0
    for label, ctx in _timed_contexts(tmp_path):
        assert ctx.engine is not None, label
        timed += ctx.engine.profile is not None
        fast = list(check_reformat_dtype(ctx))
        assert fast == _reformat_dtype_plain(LintContext(ctx.build, ctx.engine)), label
        seen += len(fast)
    assert timed >= 2
    assert seen >= 100  # (the generated engine: a dtype reformat every few layers)


def test_has_qdq_is_the_per_layer_test() -> None:
    """has_qdq (a search of the joined node names first) is the per-layer test it skips."""
    from trtlog.names import is_quantizer_name

    answers = set()
    for label, ctx in _contexts():
        if ctx.build is not None:
            continue  # (a log's Q/DQ lines decide first)
        columns = ctx.columns
        plain = any(
            origin == "QDQ" or any("uantize" in n and is_quantizer_name(n) for n in nodes)
            for origin, nodes in zip(columns.origins, columns.onnx_nodes, strict=True)
        )
        assert ctx.has_qdq == plain, label
        answers.add(plain)
    assert answers == {True, False}
