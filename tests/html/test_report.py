"""``trtlog.report``: the page's contents, its safety and its figures (without a browser)."""

from __future__ import annotations

import base64
import gc
import hashlib
import html
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from tests.conftest import CORPUS, FIXTURES, ROOT, needs_corpus
from tests.html.conftest import REPORTS
from trtlog.html.data import Strings, collect, graph_section
from trtlog.html.inputs import resolve
from trtlog.html.make import SECTIONS
from trtlog.html.page import decode_embedded, embed_json

VENDOR = ROOT / "trtlog" / "html" / "vendor"


class _Scripts(HTMLParser):
    """The page's script blocks (attributes and text) and every other start tag."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.tags: list[str] = []
        self.handlers: list[str] = []
        self._in: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.handlers += [name for name, _ in attrs if name.startswith("on")]
        if tag == "script":
            self._in = dict(attrs)
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._in is not None:
            self.scripts.append((self._in, "".join(self._text)))
            self._in = None


def _scripts(page: str) -> _Scripts:
    parser = _Scripts()
    parser.feed(page)
    return parser


@pytest.fixture(scope="module")
def hostile() -> str:
    return trtlog.report(FIXTURES / "logs" / "hostile-names_build-verbose-dumpLayerInfo.log")


def test_embedded_json_cannot_end_its_script_block() -> None:
    value = {"n": "</script><script>alert(1)</script><!-- ]]> \u2028\u2029 & {{ 7*7 }} \x01"}
    text = embed_json(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\u2028" not in text and "\u2029" not in text and "\x01" not in text
    import json

    assert json.loads(text) == value


def test_hostile_names_stay_data(hostile: str) -> None:
    build = trtlog.parse(FIXTURES / "logs" / "hostile-names_build-verbose-dumpLayerInfo.log")
    parsed = _scripts(hostile)
    # exactly the page's own blocks: no script, image or handler from the input
    kinds = [attrs.get("type") for attrs, _ in parsed.scripts]
    # (the engine graph's block sits in its section; its script after the page's own)
    assert kinds == [*["application/json"] * 3, *["application/octet-stream"] * 2, None, None, None]
    assert "img" not in parsed.tags
    assert parsed.handlers == []  # no on...= attribute anywhere
    for attrs, text in parsed.scripts:
        assert "</script" not in text.lower()
        if attrs.get("type") is None:
            assert "__pwned" not in text
    # the names come back out of the data exactly
    data = decode_embedded(hostile)
    names = set(data["S"])
    assert build.engine is not None
    for layer in build.engine.layers:
        assert layer.name in names
    graph = decode_embedded(hostile, "trtlog-graph")  # (its own block and string table)
    assert {layer.name for layer in build.engine.layers} <= set(graph["S"])
    assert decode_embedded(hostile, "trtlog-log") == build.to_text()
    # the template escaped what it shows itself
    assert "<title>&lt;script&gt;window.__pwned=5&lt;/script&gt;.onnx" in hostile
    # a template expression in a name is text, never evaluated
    overview = hostile.split('<section id="findings"', 1)[0]
    assert "&lt;img src=x onerror=&#34;window.__pwned=7&#34;&gt; {{ 7*7 }} an error" in overview


def test_csp_allows_only_the_pages_own_scripts_and_no_network(hostile: str) -> None:
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', hostile)
    assert csp is not None
    text = html.unescape(csp.group(1))  # an attribute value: the template escaped its quotes
    policy = dict(p.strip().split(" ", 1) for p in text.split(";"))
    assert policy["default-src"] == "'none'"
    assert "connect-src" not in policy  # default-src 'none' covers fetch, XHR, WebSocket
    code = [text for attrs, text in _scripts(hostile).scripts if attrs.get("type") is None]
    hashes = {
        "'sha256-" + base64.b64encode(hashlib.sha256(c.encode()).digest()).decode() + "'"
        for c in code
    }
    assert set(policy["script-src"].split()) == hashes
    assert "http://" not in hostile.split("<script", 1)[0]
    assert not re.search(r'(src|href)="(https?:)?//', hostile)


def test_vendored_library_is_the_recorded_release() -> None:
    text = (VENDOR / "dagre.min.js").read_bytes()
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    assert hashlib.sha256(text).hexdigest() in readme
    assert b're="3.1.3"' in text and "| 3.1.3 |" in readme
    assert (VENDOR / "dagre.LICENSE").read_text(encoding="utf-8").startswith("Copyright (c)")


def test_report_api_returns_the_page_and_writes_it(tmp_path: Path) -> None:
    log = REPORTS["tinynet"]["build"]
    target = tmp_path / "page.html"
    page = trtlog.report(log, path=target, title="tinynet <int8>")
    assert isinstance(page, str) and page.startswith("<!DOCTYPE html>")
    assert target.read_text(encoding="utf-8") == page
    assert "<title>tinynet &lt;int8&gt; · trtlog report</title>" in page
    assert page.write(tmp_path / "again.html").read_text(encoding="utf-8") == page
    assert set(page.sections) == {k for k, _ in SECTIONS} - {"tactics", "memory", "compare"}
    # the same page whatever the input form (path, Build, engine given apart)
    build = trtlog.parse(log)
    assert trtlog.report(build, title="tinynet <int8>") == page


def test_report_is_reproducible() -> None:
    build = trtlog.parse(REPORTS["yolov8"]["build"])
    assert trtlog.report(build) == trtlog.report(build)


def test_report_takes_json_only_and_says_what_is_missing() -> None:
    kwargs = REPORTS["json_only"]
    page = trtlog.report(**kwargs)
    assert page.sections == ("overview", "findings", "layers", "modules")
    data = decode_embedded(page)
    engine = trtlog.load_engine(kwargs["build"], profile=kwargs["profile"])
    assert data["layers"]["count"] == len(engine.layers)
    assert data["log"] is None and decode_embedded(page, "trtlog-graph") is None
    assert "graph" not in data
    assert "needs the trtexec --verbose build log" in data["available"]["passes"]


def test_report_rejects_what_it_cannot_show() -> None:
    with pytest.raises(TypeError, match="Build, an Engine or a path"):
        trtlog.report(123)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a log or an engine"):
        trtlog.report(None)
    with pytest.raises(ValueError, match="numbered from 1"):
        trtlog.report(REPORTS["yolov8"]["build"], run=3)
    with pytest.raises(trtlog.InputError):
        trtlog.report(ROOT / "no-such.log")


@pytest.mark.slow
@pytest.mark.parametrize("order", ["function first", "submodule first"])
def test_trtlog_report_is_the_function_in_any_import_order(order: str) -> None:
    first = "trtlog.report" if order == "function first" else "import trtlog.html.page"
    code = (
        "import sys, trtlog\n"
        f"{first}\n"
        "page = trtlog.report(trtlog.parse_text('[I] [TRT] Original: 5 layers\\n'))\n"
        "assert page.startswith('<!DOCTYPE html>')\n"
        "from trtlog import report\n"
        "import trtlog.html\n"
        "assert report is trtlog.report is trtlog.html.report\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_import_trtlog_stays_light() -> None:
    code = (
        "import sys, trtlog, trtlog.html.command\n"
        "heavy = {'pandas', 'networkx', 'matplotlib', 'jinja2', 'lark'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() in ("[]", "['lark']")


def test_strings_table() -> None:
    s = Strings()
    assert s.many(["a", None, "b", "a"]) == [0, None, 1, 0]
    assert s("b") == 1 and s.items == ["a", "b"]


def _data(name: str) -> tuple[dict[str, Any], Any]:
    inputs = resolve(**REPORTS[name])
    return collect(inputs), inputs


def test_page_data_is_trtlogs_own_figures() -> None:
    collected, inputs = _data("tinynet")
    data = collected["data"]
    s = data["S"]
    main = inputs.main
    frame = main.engine.layers_frame()
    table = data["layers"]["table"]
    assert [s[i] for i in table["name"]] == frame["name"].tolist()
    assert table["ms"] == frame["time_ms"].tolist()
    assert [[s[n] for n in nodes] for nodes in table["nodes"]] == [
        list(n) for n in frame["onnx_nodes"]
    ]
    # fates: each ONNX node's kind as the merge graph says
    graph = main.build.merge_graph()
    fates = {f.node: f.kind for f in graph.fates()}
    g = graph_section(inputs)  # (the page's own block, with its own string table)
    assert g is not None
    gs = g["S"]
    kinds = g["nodeKinds"]
    shown = {
        (kinds[g["nodes"]["kind"][node]], gs[g["nodes"]["name"][node]]): g["fateKinds"][kind]
        for node, kind in zip(g["fates"]["node"], g["fates"]["kind"], strict=True)
    }
    assert {n: k for (what, n), k in shown.items() if what == "onnx_node"} == fates
    # and the layers of the network as parsed that no parser line ties to a node
    for (what, name), kind in shown.items():
        if what == "intermediate":
            assert graph.fate(name).kind == kind
    # findings: trtlog lint's, with the same inputs
    kwargs = REPORTS["tinynet"]
    expected = trtlog.lint(
        kwargs["build"],
        reference=kwargs["reference"],
        profile=kwargs["profile"],
        reference_profile=kwargs["reference_profile"],
    )
    findings = collected["findings"]
    assert findings == expected
    assert [f["rule"] for f in data["findings"]] == [f.rule for f in findings]
    assert [f["lines"] for f in data["findings"]] == [list(f.evidence.lines) for f in findings]
    # the comparison rows are cmp.frame()'s
    cmp = collected["comparison"]
    assert data["cmp"]["rows"]["marker"] == cmp.frame()["marker"].tolist()
    assert data["cmp"]["markers"] == cmp.markers()


def test_time_by_type_adds_up_to_the_engine_time() -> None:
    collected, inputs = _data("json_only")
    layers = collected["data"]["layers"]
    total = sum(r[2] or 0.0 for r in layers["byType"])
    assert total == pytest.approx(inputs.main.engine.total_ms)
    assert sum(r[1] for r in layers["byType"]) == len(inputs.main.engine.layers)


def test_tactics_keep_per_layer_counts_when_rows_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    from trtlog.html import data as data_module

    log = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
    build = trtlog.parse(log)
    frame = build.tactics_frame()
    monkeypatch.setattr(data_module, "TACTIC_ROWS", 1)
    monkeypatch.setattr(data_module, "TACTICS_PER_LAYER", 1)
    tactics = collect(resolve(build))["data"]["tactics"]
    assert tactics["rows"] == len(frame)
    assert tactics["kept"] < len(frame)
    timed = int((~frame["skipped"] & frame["time_ms"].notna()).sum())
    assert sum(tactics["layers"]["timed"]) == timed
    # the rows kept: every chosen, fastest or engine row, and the fastest other
    marked = frame["chosen"] | frame["fastest"] | frame["in_engine"] | frame["cached"]
    assert tactics["kept"] >= int(marked.sum())


def test_the_log_is_whole_and_its_line_kinds_are_the_events() -> None:
    import gzip

    build = trtlog.parse(REPORTS["failed"]["build"])
    page = trtlog.report(build)
    assert decode_embedded(page, "trtlog-log") == build.to_text()
    data = decode_embedded(page)
    codes_b64 = re.search(r'id="trtlog-codes"[^>]*>([^<]*)<', page)
    assert codes_b64 is not None
    codes = gzip.decompress(base64.b64decode(codes_b64.group(1)))
    kinds = data["log"]["kinds"]
    assert len(codes) == build.line_count
    for event in build.events:
        for n in range(event.span[0], event.span[1] + 1):
            assert kinds[codes[n - 1]] == [event.kind, event.severity]
    # every line a finding cites is in the excerpt, with its text
    numbers, texts = data["log"]["excerpt"]
    shown = dict(zip(numbers, texts, strict=True))
    for finding in data["findings"]:
        for n in finding["lines"]:
            assert shown[n] == build.lines[n - 1].rstrip("\r\n")


@needs_corpus
def test_overview_figures_are_the_logs_own() -> None:
    """Checked against the raw text of a corpus log (lines found with grep)."""
    log = CORPUS / "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log"
    if not log.exists():
        pytest.skip(f"{log.name} is not in the corpus")
    page = trtlog.report(log)
    text = log.read_text(encoding="utf-8")
    lines = text.splitlines()

    def fact(row: str) -> str:
        found = re.search(rf'<tr id="fact-{row}"><th>[^<]*</th><td>(.*?)</td></tr>', page)
        assert found is not None, row
        return found.group(1)

    # line 77: "[I] TensorRT version: 8.5.10"
    assert lines[76].endswith("TensorRT version: 8.5.10") and fact("trt") == "8.5.10"
    # line 68: "[I] Selected Device: NVIDIA RTX 2000 Ada Generation Laptop GPU"
    assert fact("device").startswith("NVIDIA RTX 2000 Ada Generation Laptop GPU")
    assert lines[67].endswith("Selected Device: NVIDIA RTX 2000 Ada Generation Laptop GPU")
    # line 11: "[I] Precision: FP32+FP16+INT8"
    assert lines[10].endswith("Precision: FP32+FP16+INT8") and fact("precision") == "FP32+FP16+INT8"
    # line 6529: "[I] Engine built in 53.4699 sec."
    assert lines[6528].endswith("Engine built in 53.4699 sec.")
    assert fact("build-time") == "53.4699 s"
    # line 6404: "Formats and tactics selection completed in 6.146 seconds."
    assert "completed in 6.146 seconds." in lines[6403] and fact("tactic-time") == "6.146 s"
    # line 2176: "Original: 359 layers", the first count the layers row links to
    assert lines[2175].endswith("Original: 359 layers")
    assert fact("layers").startswith('359 (Original, <a href="#L2176">line 2176</a>)')
    assert '<div id="status" class="status passed">' in page  # "&&&& PASSED" on line 8839
    assert lines[-1].startswith("&&&& PASSED")


@needs_corpus
def test_rounds_are_said_and_the_kept_round_is_shown() -> None:
    log = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log"
    if not log.exists():
        pytest.skip(f"{log.name} is not in the corpus")
    build = trtlog.parse(log)
    kept = next(r for r in build.rounds if r.kept)
    page = trtlog.report(build)
    assert f"TensorRT built this network {len(build.rounds)} times" in page
    assert f"those of round {kept.number + 1}" in page
    data = decode_embedded(page)
    # the stages shown are the kept round's, as summarize counts them
    stages = build.for_round(kept.index).layer_counts_frame()
    assert data["passes"]["stages"]["line"] == stages["line"].tolist()


def test_browser_tests_skip_locally_and_fail_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.html.conftest import _unavailable

    monkeypatch.delenv("TRTLOG_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no headless browser"):
        _unavailable("no headless browser: apt-get install chromium chromium-driver")
    monkeypatch.setenv("TRTLOG_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="required here"):
        _unavailable("no headless browser: apt-get install chromium chromium-driver")


def test_a_report_imports_no_matplotlib() -> None:
    """The page draws its charts itself: a page with a Tactics section loads no matplotlib."""
    code = (
        "import sys, trtlog\n"
        "import warnings; warnings.simplefilter('ignore')\n"
        f"page = trtlog.report({str(REPORTS['yolov8']['build'])!r})\n"
        "assert 'Tactics' in page and 'engine' in page\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


_JSON_TEXT = st.text(
    alphabet=st.characters(exclude_categories=["Cs"]), max_size=12
) | st.sampled_from(["\u2028\u2029", "\x7f", "😀é→", "</script>", "0.00001", "1e-5", ""])
_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _JSON_TEXT,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_JSON_TEXT, inner, max_size=5),
    max_leaves=30,
)


@given(_JSON_VALUES)
def test_embedded_json_is_the_standard_encoders_with_or_without_orjson(value: Any) -> None:
    # the page's data is written by orjson when installed: the text must be json.dumps's,
    # byte for byte (escapes, floats), so a page does not depend on an optional package
    pytest.importorskip("orjson")
    from trtlog.exports import jsonio

    fast = embed_json(value)
    previous = jsonio.USE_ORJSON
    jsonio.USE_ORJSON = False
    try:
        assert fast == embed_json(value)
    finally:
        jsonio.USE_ORJSON = previous


def test_orjson_writes_the_data_when_it_can() -> None:
    pytest.importorskip("orjson")
    from trtlog.html.page import _orjson_text

    value = {"name": "a\u2192b \U0001f600 \x7f", "ms": [1.5, 0.0001, 2e-10, None, 3]}
    assert _orjson_text(value) == json.dumps(value, separators=(",", ":"))
    # orjson writes 1e-05 as 0.00001: the values that hold such a float (and only those,
    # a dict's keys one by one) are the standard encoder's; the text is json.dumps's
    inexact: list[Any] = [
        {"ms": 1e-05},
        {"rows": [1.0, 2.0], "memory": {"mib": [2.5e-07, 3.0], "kind": "a"}, "s": "0.00001"},
        {"a": {"b": {"c": {"d": {"e": [-3.2e-06]}}}}, "x": 1e-4},
        [1e-05, {"ms": 1e-05}],
    ]
    for value in inexact:
        assert _orjson_text(value) == json.dumps(value, separators=(",", ":")), value


@pytest.mark.parametrize("name", ["tinynet", "yolov8", "bert", "json_only"])
def test_page_fates_and_module_tree_are_the_api_s(name: str) -> None:
    """The page reads fates as graph edges and the module tree as its figures (no models):
    every step, final layer and reason is ``MergeGraph.fates()``'s, and every module's
    figures are ``Engine.module_tree()``'s."""
    collected, inputs = _data(name)
    data = collected["data"]
    main = inputs.main
    g = graph_section(inputs)  # (the page's own block, with its own string table)
    if g is not None:
        s = g["S"]
        scope = collected["scope"]  # the build (or round) the page shows
        engine = main.engine if main.engine_given else None
        graph = scope.merge_graph(engine) if engine is not None else scope.merge_graph()
        fates = graph.fates()
        assert len(g["fates"]["node"]) >= len(fates) > 0
        layer_names = [s[n] for n in g["nodes"]["name"]]
        for i, fate in enumerate(fates):
            assert g["fateKinds"][g["fates"]["kind"][i]] == fate.kind
            reason = g["fates"]["reason"][i]
            assert (s[reason] if reason is not None else None) == fate.reason
            assert [layer_names[k] for k in g["fates"]["finals"][i]] == list(fate.final_layers)
            assert s[g["nodes"]["name"][g["fates"]["node"][i]]] == fate.node
            e = g["edges"]
            names = g["nodes"]["name"]
            assert [
                (
                    g["relations"][e["rel"][k]],
                    s[names[e["s"][k]]],
                    s[names[e["t"][k]]],
                    s[e["pass"][k]] if e["pass"][k] is not None else None,
                    e["line"][k],
                    g["evidence"][e["ev"][k]],
                )
                for k in g["fates"]["steps"][i]
            ] == [
                (x.relation, x.source, x.target, x.pass_name, x.line, x.evidence)
                for x in fate.steps
            ]
    assert main.engine is not None
    tree = main.engine.module_tree()

    def same(shown: list[Any], node: Any) -> None:
        label, layers, own, nodes, ms, split, precisions, children, hidden = shown
        assert data["S"][label] == (node.path[-1] if node.path else "/")
        assert (layers, own, nodes, precisions) == (
            node.layers,
            node.own_layers,
            node.onnx_nodes,
            node.precisions,
        )
        assert ms == (node.time_ms if node.time_ms == node.time_ms else None)
        assert split == node.split_ms
        # a submodule without a layer (its nodes run in layers of this module) is left out
        listed = [c for c in node.children if c.layers]
        assert hidden == len(node.children) - len(listed)
        assert len(children) == len(listed)
        for a, b in zip(children, listed, strict=True):
            same(a, b)

    same(data["modules"], tree)


def test_big_payloads_decode_the_same_with_isal_or_zlib(monkeypatch: pytest.MonkeyPatch) -> None:
    # isal (the fast extra) compresses a big page's log and data: its bytes differ from
    # zlib's, what the page decodes does not
    pytest.importorskip("isal")
    import gzip

    from trtlog.html import page as page_module

    build = trtlog.parse(REPORTS["yolov8"]["build"])
    pages = {}
    for use in (True, False):
        monkeypatch.setattr(page_module, "COMPRESS_ABOVE", 0)
        monkeypatch.setattr(page_module, "FAST_ABOVE", 0)
        monkeypatch.setattr(page_module, "USE_ISAL", use)
        pages[use] = trtlog.report(build)
    fast, standard = pages[True], pages[False]
    assert fast != standard
    for element in ("trtlog-log", "trtlog-data"):
        assert decode_embedded(fast, element) == decode_embedded(standard, element)
    assert decode_embedded(fast, "trtlog-log") == build.to_text()
    codes = []
    for page in (fast, standard):
        found = re.search(r'id="trtlog-codes"[^>]*>([^<]*)<', page)
        assert found is not None
        codes.append(found.group(1))
    assert codes[0] != codes[1]  # a big log's line kinds take isal too
    unpacked = [gzip.decompress(base64.b64decode(packed)) for packed in codes]
    assert unpacked[0] == unpacked[1]
    assert len(unpacked[0]) == build.line_count
    # the non-compressed parts of the page are the same
    blocks = re.compile(r"(<script [^>]*>)[A-Za-z0-9+/=]+(</script>)")
    assert blocks.sub(r"\1\2", fast) == blocks.sub(r"\1\2", standard)
    # a gzip member any reader takes (the browser's DecompressionStream: tests/browser)
    packed = re.search(r'id="trtlog-log"[^>]*>([^<]*)<', fast)
    assert packed is not None
    raw = base64.b64decode(packed.group(1))
    assert raw[:3] == b"\x1f\x8b\x08" and raw[4:8] == b"\0\0\0\0"  # gzip, deflate, mtime 0
    assert gzip.decompress(raw).decode() == build.to_text()


def test_small_payloads_take_zlib_whatever_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    # the pages of small logs (every fixture) do not depend on isal being installed
    from trtlog.html import page as page_module

    build = trtlog.parse(REPORTS["yolov8"]["build"])
    monkeypatch.setattr(page_module, "USE_ISAL", True)
    with_isal = trtlog.report(build)
    monkeypatch.setattr(page_module, "USE_ISAL", False)
    assert trtlog.report(build) == with_isal


@given(_JSON_VALUES)
def test_big_data_text_is_the_standard_encoders_utf8_with_or_without_orjson(value: Any) -> None:
    # big data is embedded compressed as json.dumps(ensure_ascii=False) writes it; the
    # escaped text of smaller data is made from that text; both as without orjson
    pytest.importorskip("orjson")
    from trtlog.exports import jsonio
    from trtlog.html.page import _embedded, _utf8_json

    fast = _utf8_json(value)
    escaped = _embedded(value, fast) if fast is not None else None
    # big data takes orjson's text as it is: the same value, whatever its floats look like
    loose = _utf8_json(value, exact=False)
    if loose is not None:
        assert json.loads(loose) == json.loads(json.dumps(value))
    previous = jsonio.USE_ORJSON
    jsonio.USE_ORJSON = False
    try:
        standard = _utf8_json(value)
        assert fast == standard
        if standard is not None:
            assert escaped == _embedded(value, standard) == _embedded(value)
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            assert standard == text.encode("utf-8")
    finally:
        jsonio.USE_ORJSON = previous


def test_big_data_is_utf8_json_and_reads_as_the_escaped_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gzip

    from trtlog.html import page as page_module

    build = trtlog.parse(FIXTURES / "logs" / "hostile-names_build-verbose-dumpLayerInfo.log")
    monkeypatch.setattr(page_module, "COMPRESS_ABOVE", 0)
    escaped = trtlog.report(build)
    monkeypatch.setattr(page_module, "FAST_ABOVE", 0)
    utf8 = trtlog.report(build)
    assert decode_embedded(utf8) == decode_embedded(escaped)
    packed = re.search(r'id="trtlog-data"[^>]*>([^<]*)<', utf8)
    assert packed is not None
    text = gzip.decompress(base64.b64decode(packed.group(1))).decode("utf-8")
    assert text == json.dumps(decode_embedded(escaped), ensure_ascii=False, separators=(",", ":"))
    assert not text.isascii()  # the hostile names' characters as they are


def test_the_collector_is_paused_from_the_first_step_to_the_page() -> None:
    """One pause of the collector covers the whole report, the inputs' reading included.

    (Reading a log's engine paused it on its own: its exit, and the page's, each walked
    every young object.) It is running again once the page is made.
    """
    build = trtlog.parse(
        FIXTURES / "logs" / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"
    )
    states: dict[str, bool] = {}

    def note(step: str) -> None:
        states.setdefault(step, gc.isenabled())

    assert gc.isenabled()
    trtlog.report(build, progress=note)
    assert states["reading inputs"] is False
    assert set(states.values()) == {False}, states
    assert gc.isenabled()
