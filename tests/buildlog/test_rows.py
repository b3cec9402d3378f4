"""Frames' rows read as typed columns without pandas (the report's reader) equal the frames.

The report reads the optimizer's frames (layer counts, passes, fusions, removals, Q/DQ), the
memory frame and, for an engine from a log's layer dump, the layers frame from their rows
(:mod:`trtlog.buildlog.passes`, :mod:`trtlog.buildlog.memory`, :mod:`trtlog.engine.rows`) typed by
:func:`trtlog.buildlog.rows.type_columns`, so that ``trtlog report`` imports no pandas. Each column
must be what ``trtlog.html.data.column`` reads from the frame: on every fixture and corpus
log, and on crafted rows that take the frames' edge paths (an integer past 64 bits, a lone
surrogate, NaN and infinities). The layers' time per type or precision (``time_by_key``) is
checked against the raw JSON files, and the report's process against its imports.
"""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import trtlog
from tests.conftest import FIXTURES, ROOT, corpus_logs
from trtlog.buildlog import Build
from trtlog.buildlog.memory import MEMORY_SCHEMA, memory_records
from trtlog.buildlog.passes import (
    ROW_SCHEMAS,
    fusion_records,
    layer_count_records,
    pass_records,
    qdq_records,
    removal_records,
)
from trtlog.buildlog.rows import type_columns, typed_columns
from trtlog.engine.model import time_by_key
from trtlog.engine.rows import LAYER_SCHEMA, layer_columns
from trtlog.errors import InputError
from trtlog.frames.schema import frame_from_columns, frame_from_records
from trtlog.html.data import Strings, _layers, column

LOGS = sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs()


@functools.cache
def _build(path: Path) -> Build | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return trtlog.parse(path)
        except InputError:
            return None


#: frame name -> (its rows, its frame), by build
_FRAMES = {
    "layer_counts": (layer_count_records, Build.layer_counts_frame),
    "passes": (pass_records, Build.passes_frame),
    "fusions": (fusion_records, Build.fusions_frame),
    "removals": (removal_records, Build.removals_frame),
    "qdq": (qdq_records, Build.qdq_frame),
    "memory": (memory_records, Build.memory_frame),
}


def _frame_columns(frame: Any) -> dict[str, list[Any]]:
    """What the report read from a frame before: ``column`` of each (an object column as is)."""
    return {
        c: frame[c].tolist() if str(frame[c].dtype) == "object" else column(frame, c)
        for c in frame.columns
    }


def _schema(name: str) -> dict[str, str]:
    return MEMORY_SCHEMA if name == "memory" else ROW_SCHEMAS[name]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_the_rows_typed_are_the_frames_columns(path: Path) -> None:
    build = _build(path)
    if build is None:
        pytest.skip(f"{path.name} is not a log trtlog reads (an InputError)")
    for name, (records, frame) in _FRAMES.items():
        typed = typed_columns(name, _schema(name), records(build))
        assert typed == _frame_columns(frame(build)), name


def test_the_layers_section_of_a_layer_dump_equals_the_frame_s() -> None:
    """The section reads the layer objects' columns (``layer_columns``), as the layers frame
    does. Every log with a dump."""
    checked = []
    for path in LOGS:
        build = _build(path)
        if build is None or build.engine is None:
            continue
        engine = build.engine
        fast_strings, general_strings = Strings(), Strings()
        fast = _layers(engine, fast_strings)
        general = _layers(engine, general_strings, general=True)
        assert json.dumps(fast) == json.dumps(general), path.name
        assert fast_strings.items == general_strings.items, path.name
        typed = type_columns("layers", LAYER_SCHEMA, layer_columns(engine))
        assert typed == _frame_columns(engine.layers_frame()), path.name
        checked.append(path.name)
    # the fixtures alone hold eleven logs with a layer dump (the corpus adds its own)
    assert len(checked) >= 11, checked


def _memory_row(**values: Any) -> dict[str, Any]:
    row = dict.fromkeys(MEMORY_SCHEMA)
    row.update(line=1, stage="s", kind="memory_change", metric="cpu", bytes=1, mib=1.0)
    row.update(values)
    return row


@pytest.mark.parametrize(
    "row",
    [
        {"bytes": 1 << 70, "mib": float(1 << 50)},  # a nullable integer past 64 bits: missing
        {"run": -(1 << 63) - 1},
        {"bytes": (1 << 63) - 1, "run": -(1 << 63)},  # the bounds themselves fit
        {"mib": math.inf},
        {"mib": -math.inf},
        {"mib": math.nan, "bytes": None},
        {"stage": "a\udcffb", "layer": "\ud800"},  # lone surrogates: escaped, as Arrow shows
        {"stage": None, "metric": "ünïcødé ✓", "layer": ""},
    ],
)
def test_typed_columns_take_the_frames_edge_paths(row: dict[str, Any]) -> None:
    records = [_memory_row(), _memory_row(**row)]
    frame = frame_from_records("memory", records)
    assert typed_columns("memory", MEMORY_SCHEMA, records) == _frame_columns(frame)


def test_a_plain_integer_past_64_bits_is_the_frames_error() -> None:
    records = [_memory_row(line=1 << 64)]
    with pytest.raises(InputError) as frame_error:
        frame_from_records("memory", records)
    with pytest.raises(InputError) as rows_error:
        typed_columns("memory", MEMORY_SCHEMA, records)
    assert str(rows_error.value) == str(frame_error.value)
    assert "'line' of the memory frame does not fit in int64" in str(rows_error.value)


def test_type_columns_reads_more_than_a_thousand_rows_as_the_frame() -> None:
    """Above 1,000 rows the frame takes Arrow's paths (strings, nullable integers)."""
    n = 1500
    columns: dict[str, list[Any]] = {
        "line": list(range(n)),
        "run": [None] * n,
        "stage": [None if i % 7 == 0 else f"stage {i % 5}" for i in range(n)],
        "kind": ["memory_change"] * n,
        "metric": ["cpu"] * (n - 1) + ["\udcfe"],
        "layer": [None] * n,
        "bytes": [i * 1024 if i % 3 else None for i in range(n)],
        "mib": [i / 1024 if i % 11 else math.nan for i in range(n)],
    }
    frame = frame_from_columns("memory", columns)
    assert type_columns("memory", MEMORY_SCHEMA, columns) == _frame_columns(frame)


def test_time_by_type_is_the_raw_files_sum() -> None:
    """``trtlog layers --group-by type``: each type's layers and the exact sum of their
    ``averageMs``, read here from the two JSON files with the json module."""
    stem = FIXTURES / "layer_info" / "trt11.5-like_smallnet-qdq-int8"
    layers_path = Path(f"{stem}_layers-detailed.json")
    profile_path = Path(f"{stem}.profile.json")
    types = {
        layer["Name"]: layer["LayerType"] for layer in json.loads(layers_path.read_text())["Layers"]
    }
    by_type: dict[str, list[float]] = {}
    for record in json.loads(profile_path.read_text())[1:]:
        by_type.setdefault(types[record["name"]], []).append(record["averageMs"])
    out = subprocess.run(
        [sys.executable, "-m", "trtlog", "layers", str(layers_path), "--profile",
         str(profile_path), "--group-by", "type", "--format", "json"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    rows = {r["type"]: (r["layers"], r["time_ms"]) for r in json.loads(out.stdout)}
    assert rows == {t: (len(ms), math.fsum(ms)) for t, ms in by_type.items()}
    # the report's chart adds them up the same way
    engine = trtlog.load_engine(layers_path, profile=profile_path)
    section = _layers(engine, Strings())
    assert {key: (n, ms) for key, n, ms in section["byType"]} == rows


def test_time_by_key_counts_missing_keys_and_times() -> None:
    nan = math.nan
    rows = time_by_key(["A", None, "B", "A", None, "C"], [0.1, 0.2, nan, 0.2, None, nan])
    # C and B have no known time: last, by layers then key; a missing key is "?"
    assert rows == [("A", 2, 0.30000000000000004), ("?", 2, 0.2), ("B", 1, None), ("C", 1, None)]
    assert time_by_key(["x"], [math.inf]) == [("x", 1, math.inf)]
    assert math.isnan(time_by_key(["x", "x"], [math.inf, -math.inf])[0][2] or 0.0)


def test_group_by_a_column_with_missing_values() -> None:
    """A layer JSON of names only has no precision: every layer is in the ``?`` row."""
    path = FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8_layers-names.json"
    out = subprocess.run(
        [sys.executable, "-m", "trtlog", "layers", str(path), "--group-by", "precision",
         "--format", "json"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    rows = json.loads(out.stdout)
    names = json.loads(path.read_text())["Layers"]
    assert rows == [{"precision": "?", "layers": len(names), "time_ms": None, "percentage": None}]


def test_the_report_imports_no_pandas(tmp_path: Path) -> None:
    """``trtlog report`` of a log with its layer dump, and of a layer JSON with its profile:
    pandas (with pyarrow) takes a third of a second to import, the comparison's package (a
    report without a reference) a tenth of that; networkx is the merge graph's, which a page of
    a log shows."""
    log = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
    stem = FIXTURES / "layer_info" / "trt11.5-like_smallnet-qdq-int8"
    script = (
        "import sys\n"
        "from trtlog.cli import main\n"
        "for args in sys.argv[1:]:\n"
        "    try:\n"
        "        main(args.split('|'))\n"
        "    except SystemExit as e:\n"
        "        assert not e.code, e.code\n"
        "heavy = ('pandas', 'pyarrow', 'matplotlib', 'trtlog.diff')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    layers, profile = f"{stem}_layers-detailed.json", f"{stem}.profile.json"
    runs = [
        f"report|{log}|-o|{tmp_path / 'a.html'}",
        f"report|{layers}|--profile|{profile}|-o|{tmp_path / 'b.html'}",
    ]
    out = subprocess.run(
        [sys.executable, "-c", script, *runs],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "a.html").stat().st_size > 0 and (tmp_path / "b.html").stat().st_size > 0
