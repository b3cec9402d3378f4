"""Safe output (item 4): names and messages of the input are data, never control.

Every command and format runs on the hostile-terminal fixtures (a log and a layer JSON whose
names hold ESC/CSI, OSC 8 links ended by ``ESC \\``, OSC titles ended by BEL, ``ESC c``,
backspaces, U+009B, right-to-left overrides, DEL, NUL, a newline, lone CRs and spreadsheet
formulas): text and tables show every control as an escape, JSON and SARIF stay exact JSON,
CSV cells that start like a formula are guarded, GraphML and DOT survive every name.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog._display import clip, csv_cell, json_visible, visible
from trtlog.cli import main
from trtlog.events import OnnxParseNode

LOG = FIXTURES / "logs" / "hostile-terminal_build-verbose-dumpLayerInfo.log"
LAYERS = FIXTURES / "layer_info" / "hostile-terminal_layers-detailed.json"

# what must never reach a terminal raw (tab and newline are layout)
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_fixtures_are_hostile() -> None:
    """The fixtures hold the payloads the tests claim they do (the log as trtlog reads it)."""
    text = LOG.read_text(encoding="utf-8")
    for payload in ("\x1b]8;;", "\x1b\\", "\x07", "\x08", "\x1bc", "\u009b", "\u202e", "\x7f"):
        assert payload in text, repr(payload)
    names = [layer.name for layer in trtlog.load_engine(LAYERS).layers]
    assert any("\n" in n for n in names) and any("\x00" in n for n in names)
    assert any(n.startswith("\r=") for n in names) and any(n.startswith("\t+") for n in names)
    assert any("\r" in n[1:] for n in names)


TEXT_RUNS = [
    ("summary", str(LOG)),
    ("summary", str(LOG), "--passes"),
    ("events", str(LOG)),
    ("layers", str(LOG)),
    ("layers", str(LAYERS)),
    ("layers", str(LAYERS), "--group-by", "module"),
    ("explain", str(LOG)),
    ("explain", str(LOG), "--layers", str(LAYERS)),
    ("lint", str(LOG), "--fail-on", "never"),
    ("lint", str(LAYERS), "--fail-on", "never"),
    ("diff", str(LOG), str(LOG)),
    ("diff", str(LAYERS), str(LAYERS)),
    ("diff", str(LAYERS), str(LAYERS), "--view", "onnx"),
    ("diff", str(LOG), str(LOG), "--view", "summary"),
]


@pytest.mark.parametrize("argv", TEXT_RUNS, ids=lambda a: " ".join(Path(x).name for x in a))
def test_text_output_shows_controls_as_escapes(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    assert out
    found = UNSAFE.search(out)
    assert found is None, f"raw {found.group()!r} in {out[max(0, found.start() - 60) :][:120]!r}"
    assert UNSAFE.search(err) is None


def test_the_escapes_are_visible(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "layers", str(LOG))
    # OSC 8 ended by ESC \ is an escape sequence the parser strips from names, as it strips
    # colour codes
    assert "/blk/click/Relu" in out
    assert "\\u202eevil\\u202c\\u200f\\x7fdel" in out  # RTL override, RLM, DEL
    assert "\\x07bell\\x08\\x08bs" in out  # BEL, BS
    assert "\\x1bc\\x9b31m" in out  # ESC c, the one-character CSI
    _, out, _ = _run(capsys, "events", str(LOG), "--kind", "onnx_parse_node")
    assert "\\u202eevil\\u202c\\u200f\\x7fdel" in out  # the fields' JSON, then shown
    _, out, _ = _run(capsys, "summary", str(LOG))
    assert "\\x1b]8;;http://evil.example\\x07click" in out  # the error message, OSC with BEL


def test_newline_in_a_name_makes_no_table_row(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "layers", str(LAYERS))
    assert code == 0
    rows = out.split("\n\n")[0].splitlines()
    assert len(rows) == 2 + len(trtlog.load_engine(LAYERS).layers)
    assert not any(row.startswith("fake_row") for row in rows)
    assert "/blocks.0/attn/Gather\\nfake_row" in out
    _, out, _ = _run(capsys, "diff", str(LAYERS), str(LAYERS), "--no-summary")
    assert not any(line.lstrip().startswith("fake_row") for line in out.splitlines())


JSON_RUNS = [
    ("summary", str(LOG), "--format", "json"),
    ("events", str(LOG), "--format", "json"),
    ("layers", str(LOG), "--format", "json"),
    ("layers", str(LAYERS), "--format", "json"),
    ("explain", str(LOG), "--format", "json"),
    ("lint", str(LOG), "--format", "json", "--fail-on", "never"),
    ("lint", str(LOG), "--format", "sarif", "--fail-on", "never"),
    ("diff", str(LAYERS), str(LAYERS), "--format", "json"),
    ("diff", str(LOG), str(LOG), "--format", "json", "--view", "onnx"),
    ("diff", str(LOG), str(LOG), "--format", "json", "--view", "summary"),
]


@pytest.mark.parametrize("argv", JSON_RUNS, ids=lambda a: " ".join(Path(x).name for x in a))
def test_json_output_is_exact_json(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    assert UNSAFE.search(out) is None
    json.loads(out)  # exact JSON: it parses (the values are checked below)


def test_json_names_round_trip(capsys: pytest.CaptureFixture[str]) -> None:
    names = [layer.name for layer in trtlog.load_engine(LAYERS).layers]
    _, out, _ = _run(capsys, "layers", str(LAYERS), "--format", "json")
    assert [row["name"] for row in json.loads(out)] == names
    build = trtlog.parse(LOG)
    nodes = [e.node for e in build.events if isinstance(e, OnnxParseNode)]
    _, out, _ = _run(capsys, "events", str(LOG), "--format", "jsonl", "--kind", "onnx_parse_node")
    assert [json.loads(line)["node"] for line in out.splitlines()] == nodes
    _, out, _ = _run(capsys, "lint", str(LOG), "--format", "sarif", "--fail-on", "never")
    messages = [r["message"]["text"] for run in json.loads(out)["runs"] for r in run["results"]]
    assert any("\x1b]8;;http://evil.example\x07click" in m for m in messages)  # exact


@pytest.mark.parametrize(
    "argv",
    [
        ("layers", str(LAYERS), "--format", "csv"),
        ("layers", str(LOG), "--format", "csv"),
        ("events", str(LOG), "--format", "csv"),
        ("diff", str(LAYERS), str(LAYERS), "--format", "csv"),
        ("diff", str(LOG), str(LOG), "--format", "csv", "--view", "onnx"),
    ],
    ids=lambda a: " ".join(Path(x).name for x in a),
)
def test_csv_cells_never_start_a_formula(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, _ = _run(capsys, *argv)
    assert code == 0
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert len(rows) > 1
    width = len(rows[0])
    for row in rows:
        assert len(row) == width  # no cell broke its row
        for value in row:
            if value and value[0] in "=+-@\t\r":
                float(value)  # only a number may start with + or -


def test_csv_guard_and_raw(capsys: pytest.CaptureFixture[str]) -> None:
    names = [layer.name for layer in trtlog.load_engine(LAYERS).layers]
    _, out, _ = _run(capsys, "layers", str(LAYERS), "--format", "csv")
    read = [row["name"] for row in csv.DictReader(io.StringIO(out, newline=""))]
    assert read == [csv_cell(n) for n in names]
    assert '\'\r=HYPERLINK("http://evil.example","x")' in read
    assert "'\t+cmd|' /C calc'!A0" in read
    assert "'@SUM(1+1) with a lone \r inside" in read
    assert '"\'@SUM(1+1) with a lone \r inside"' in out  # the lone CR is quoted
    _, raw, _ = _run(capsys, "layers", str(LAYERS), "--format", "csv", "--csv-raw")
    assert [row["name"] for row in csv.DictReader(io.StringIO(raw, newline=""))] == names


def _unescape_dot(text: str) -> str:
    """A DOT label as Graphviz shows it: ``\\"`` a quote, ``\\\\n`` a line, ``\\\\`` one ``\\``."""
    return re.sub(r'\\(["n\\])', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), text)


def _dot_labels(dot: str) -> dict[str, str]:
    """Node id -> label of the node lines of ``to_dot`` output (test-side reader)."""
    quoted = r'"((?:[^"\\]|\\.)*)"'
    found = re.findall(rf"^  {quoted} \[label={quoted}, shape=\w+\];$", dot, flags=re.M)
    return {node: _unescape_dot(label) for node, label in found}


@pytest.mark.parametrize("suffix", [".graphml", ".json", ".dot"])
def test_graph_exports_survive_hostile_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    out = tmp_path / f"g{suffix}"
    code, stdout, err = _run(capsys, "graph", str(LOG), "--layers", str(LAYERS), "-o", str(out))
    assert code == 0, err
    assert UNSAFE.search(stdout) is None
    graph = trtlog.parse(LOG).merge_graph(trtlog.load_engine(LAYERS))
    names = {n: d["name"] for n, d in graph.nodes(data=True)}
    assert any("\n" in n for n in names.values()) and any("\x00" in n for n in names.values())
    if suffix == ".json":
        back = nx.node_link_graph(json.loads(out.read_text(encoding="utf-8")), edges="edges")
        assert {n: d["name"] for n, d in back.nodes(data=True)} == names  # exact
    elif suffix == ".graphml":
        ET.parse(out)  # valid XML
        back = nx.read_graphml(out)
        xml = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")

        def carried(text: str) -> str:  # what XML 1.0 can hold; the rest as escapes
            return xml.sub(lambda m: f"\\x{ord(m.group()):02x}", text)

        assert {n: d["name"] for n, d in back.nodes(data=True)} == {
            carried(n): carried(v) for n, v in names.items()
        }
        assert back.number_of_edges() == graph.number_of_edges()
        # the names XML can hold come back exactly: quotes, backslashes, <, &, newlines, CR
        exact = [v for v in names.values() if xml.search(v) is None]
        assert any("\n" in v for v in exact) and any("\r" in v for v in exact)
        assert any('"' in v and "\\" in v and "<" in v and "&" in v for v in exact)
        assert set(exact) <= {d["name"] for _, d in back.nodes(data=True)}
    else:
        dot = out.read_text(encoding="utf-8")
        assert UNSAFE.search(dot.replace("\n", "")) is None
        labels = _dot_labels(dot)
        assert len(labels) == graph.number_of_nodes()  # every node line reads back
        shown = sorted(label.split("\n[")[0] for label in labels.values())
        expected = sorted("\n".join(visible(p) for p in n.split("\n")) for n in names.values())
        assert shown == expected
        assert "\\n[" not in "".join(labels.values())  # no literal \n before an op
        assert dot.count(" -> ") == graph.number_of_edges()


def test_report_and_plots_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.html"
    code, out, err = _run(capsys, "report", str(LOG), "--layers", str(LAYERS), "-o", str(report))
    assert code == 0, err
    assert UNSAFE.search(out) is None and report.stat().st_size > 0
    for kind in ("layer-counts", "fusions", "time-by"):
        target = tmp_path / f"{kind}.png"
        code, out, err = _run(capsys, "plot", kind, str(LOG), "-o", str(target))
        assert code == 0, (kind, err)
        assert UNSAFE.search(out) is None


def test_error_messages_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = tmp_path / "name\x1b]0;pwned\x07.log"
    code, _, err = _run(capsys, "summary", str(hostile))
    assert code == 2
    assert UNSAFE.search(err) is None and "\\x1b]0;pwned\\x07" in err


def test_display_helpers() -> None:
    assert visible("a\x1b[2Jb\u202ec\n", lines=True) == "a\\x1b[2Jb\\u202ec\n"
    assert visible("\ud800") == "\\ud800"  # a lone surrogate no longer breaks the output
    assert clip("line\nbreak") == "line\\nbreak"
    text = json.dumps({"k": "\u009b\u202e\ud800\x7f"}, ensure_ascii=False)
    assert json.loads(json_visible(text)) == {"k": "\u009b\u202e\ud800\x7f"}
    assert UNSAFE.search(json_visible(text)) is None
    for value, guarded in [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-x", "'-x"),
        ("@A", "'@A"),
        ("\tA", "'\tA"),
        ("\rA", "'\rA"),
        ("a=b", "a=b"),
        (3, 3),
    ]:
        value_: Any = value
        assert csv_cell(value_) == guarded


def test_warehouse_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in"
    source.mkdir()
    for path in (LOG, LAYERS):
        (source / path.name).write_bytes(path.read_bytes())
    warehouse = str(tmp_path / "wh")
    code, out, err = _run(capsys, "ingest", str(source), "--to", warehouse)
    assert code == 0, err
    assert UNSAFE.search(out + err) is None
    sql = "SELECT name FROM layers ORDER BY name"
    code, out, err = _run(capsys, "query", warehouse, sql)
    assert code == 0, err
    assert UNSAFE.search(out) is None and not any(r.startswith("fake_row") for r in out.split("\n"))
    _, out, _ = _run(capsys, "query", warehouse, sql, "--format", "json")
    names = [row["name"] for row in json.loads(out)]
    assert any("\x1b]8;;" in n for n in names)  # exact
    _, out, _ = _run(capsys, "query", warehouse, sql, "--format", "csv")
    guarded = [row["name"] for row in csv.DictReader(io.StringIO(out, newline=""))]
    assert guarded == [csv_cell(n) for n in names]
    _, out, _ = _run(capsys, "query", warehouse, sql, "--format", "csv", "--csv-raw")
    assert [row["name"] for row in csv.DictReader(io.StringIO(out, newline=""))] == names
