"""The data a report page shows, gathered from builds, engines, comparisons and findings.

A view (STYLE.md §8): every figure comes from trtlog's public API (``summarize``, the
``*_frame`` methods, the merge graph's fates, ``lint``, ``compare``), never re-counted here.
This module only reshapes it for the page: a string table (layer and node names appear in
several sections and are stored once), column arrays for the big tables, and the list of
log lines that some part of the page points at.

The result is plain JSON-ready data (``None`` for a missing value: no NaN), which
:mod:`trtlog.html.page` embeds in the page; the page's JavaScript (``assets/report.js``)
is the only reader, and the keys below are its contract.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain, compress, filterfalse, islice
from typing import TYPE_CHECKING, Any

from trtlog._display import number
from trtlog.buildlog.tactics import tactic_columns
from trtlog.engine.footprint import engine_footprint
from trtlog.findings.registry import lint
from trtlog.html.inputs import Inputs, Side
from trtlog.tensors import dims_text

if TYPE_CHECKING:
    import pandas as pd

    from trtlog.buildlog.model import Build
    from trtlog.diff.models import Comparison
    from trtlog.engine.footprint import Footprint
    from trtlog.engine.model import Engine
    from trtlog.findings.models import Finding
    from trtlog.graph.model import MergeGraph

__all__ = ["Progress", "Strings", "collect"]

#: Called with a stage name as the report is made (the CLI's progress display).
Progress = Callable[[str], None]

#: The ``trtlog.summary`` function gives the overview's figures (run, status, times, sizes).
_SEVERITY_RANK = {"error": 2, "warning": 1, "info": 0}

#: Lines of context shown around a line a finding cites, before the whole log is unfolded.
CONTEXT = 2


class Strings:
    """A string table: each distinct string once, referred to by its position.

    Example:
        >>> s = Strings()
        >>> s("a"), s("b"), s("a"), s(None), s.items
        (0, 1, 0, None, ['a', 'b'])
    """

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.items: list[str] = []

    def __call__(self, text: str | None) -> int | None:
        """The position of ``text`` (added when new); ``None`` for ``None``."""
        if text is None:
            return None
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.items)
            self.items.append(text)
        return found

    def many(self, texts: Iterable[str | None]) -> list[int | None]:
        """The positions of several strings (each new one added in the order first met).

        The distinct strings are found in one ``dict.fromkeys``, the new ones among them
        added in the order first met, then one ``map`` over the table (no Python loop per
        string).
        """
        texts = texts if isinstance(texts, list) else list(texts)
        index = self.index
        distinct = dict.fromkeys(texts)
        distinct.pop(None, None)
        fresh = list(filterfalse(index.__contains__, distinct))
        if fresh:
            items = self.items
            index.update(zip(fresh, range(len(items), len(items) + len(fresh)), strict=True))
            items.extend(fresh)
        return list(map(index.get, texts))


def num(value: Any) -> float | None:
    """A float for JSON: ``None`` for a missing value or NaN.

    Example:
        >>> num(float("nan")), num(None), num(2)
        (None, None, 2.0)
    """
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def column(frame: pd.DataFrame, name: str) -> list[Any]:
    """A frame column as a list, with ``None`` for missing values (NA, NaN, infinities)."""
    import numpy as np

    series = frame[name]
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":  # numpy ints and bools: no NA
        plain: list[Any] = series.tolist()
        return plain
    if isinstance(dtype, np.dtype) and dtype.kind == "f":  # NaN and infinities are None
        array = series.to_numpy()
        floats: list[Any] = array.tolist()
        for i in np.flatnonzero(~np.isfinite(array)).tolist():
            floats[i] = None
        return floats
    if dtype.kind == "f":
        series = series.replace([np.inf, -np.inf], np.nan)
    values: list[Any] = series.astype(object).where(series.notna(), None).tolist()
    return values


class Lines:
    """The log lines the page points at (shown before the whole log is unfolded)."""

    def __init__(self) -> None:
        self.wanted: set[int] = set()

    def add(self, line: int | None, context: int = 0) -> None:
        """Mark a line (and ``context`` lines around it) to be shown."""
        if line:
            self.wanted.update(range(max(1, line - context), line + context + 1))

    def add_all(self, lines: Iterable[int], context: int = 0) -> None:
        """Mark several lines."""
        for n in lines:
            self.add(n, context)


# -- the sections ----------------------------------------------------------------------------


def page_scope(build: Build) -> tuple[Build, dict[str, Any] | None]:
    """The builder round the engine comes from (``summarize`` counts that round too).

    The build (or its round) the page shows, and the page's note on the rounds (``None``
    for a build of one round). A round of several is a view over the run's events (all of
    them read): :mod:`trtlog.html.make` takes it once for every section.
    """
    rounds = build.rounds
    if len(rounds) <= 1:
        return build, None
    kept = next((r for r in rounds if r.kept), rounds[-1])
    return build.for_round(kept.index), {
        "rounds": len(rounds),
        "kept": kept.number + 1,
        "first": kept.first_line,
        "last": kept.last_line,
    }


def _overview(
    side: Side,
    findings: Sequence[Finding],
    lines: Lines,
    tactics: Mapping[str, Any] | None = None,
    footprint: Footprint | None = None,
) -> dict[str, Any]:
    """What the Overview section shows (rendered by the template).

    ``tactics``: the tactics frame's columns (:func:`trtlog.buildlog.tactics.tactic_columns`)
    of the round ``summarize`` counts, when already made; ``footprint``: the engine's
    :func:`~trtlog.engine.footprint.engine_footprint`, when made already.
    """
    from trtlog.html.overview import cut_off, layer_time, performance_figure
    from trtlog.summary import summarize

    engine = side.engine
    out: dict[str, Any] = {"engine": None, "summary": None, "top": [], "performance": []}
    summary = None
    if side.build is not None:
        summary = summarize(side.build, tactics=tactics)
        out["summary"] = summary
        out["performance"] = summary.performance.text_lines() if summary.performance else []
        if summary.performance is not None:
            lines.add(summary.performance.first_line)
        for stage in summary.layer_counts:
            lines.add(stage.line)
        for run in side.build.runs:
            lines.add(run.first_line)
            lines.add(run.end_line)
    if engine is not None:
        out["engine"] = {
            "source": engine.source,
            "origin": engine.origin,
            "detailed": engine.detailed,
            "layers": len(engine.layers),
            "total_ms": num(engine.total_ms) if engine.profile is not None else None,
            "profile": engine.profile.source if engine.profile is not None else None,
            "notes": list(engine.notes),
            "footprint": _overview_footprint(
                engine, footprint if footprint is not None else engine_footprint(engine)
            ),
        }

    out["layer_time"] = layer_time(summary, engine)
    out["perf"] = performance_figure(summary.performance if summary is not None else None)
    out["cut_off"] = cut_off(summary)
    out["versus"] = []
    if out["perf"] is not None:
        for row in out["perf"]["rows"]:
            lines.add(row["line"])

    def rank(i: int) -> tuple[int, float, int]:
        f = findings[i]
        return (-_SEVERITY_RANK.get(f.severity, 0), -(num(f.time_ms) or 0.0), i)

    ranked = sorted(range(len(findings)), key=rank)
    out["top"] = [(i, findings[i]) for i in ranked[:6]]
    out["counts"] = {
        s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")
    }
    return out


def _versus(inputs: Inputs, summary: Any) -> list[dict[str, Any]]:
    """The Overview's headline against the reference (:func:`trtlog.html.overview.versus`)."""
    from trtlog.html.overview import versus
    from trtlog.summary import summarize

    ref = inputs.reference
    assert ref is not None
    ref_summary = summarize(ref.build) if ref.build is not None else None
    return versus(summary, inputs.main.engine, ref_summary, ref.engine)


def _overview_footprint(engine: Engine, footprint: Footprint) -> dict[str, Any] | None:
    """The engine's weights and activations in one line each (``None`` without sizes).

    Weights by the type they are stored in, activations by the type of the tensors written,
    and the largest tensor: the engine's ``footprint`` (see :mod:`trtlog.engine.footprint`).
    """
    from trtlog.engine.footprint import largest_activations

    weights = footprint.weights_by_type
    acts = footprint.activations_by_type
    if not (weights or acts):
        return None
    largest = largest_activations(engine, 1, footprint)

    def line(by: dict[str, int]) -> str | None:
        if not by:
            return None
        parts = ", ".join(f"{k} {_mib(v)}" for k, v in sorted(by.items(), key=lambda kv: -kv[1]))
        return f"{_mib(sum(by.values()))} ({parts})"

    return {
        "weights": line(weights),
        "acts": line(acts),
        "largest": (
            f"{_mib(largest[0][5])}: {largest[0][2]} ({dims_text(largest[0][3])} "
            f"{largest[0][4] or ''}) written by layer {largest[0][0]} {largest[0][1]}"
            if largest
            else None
        ),
    }


def _mib(size: int) -> str:
    """Bytes as MiB (KiB below one MiB), three significant digits (no exponent: ``number``)."""
    if size < 1 << 20:
        return f"{number(size / 1024, 3)} KiB"
    return f"{number(size / (1 << 20), 3)} MiB"


def _findings(
    findings: Sequence[Finding], build: Build | None, s: Strings, lines: Lines
) -> list[dict[str, Any]]:
    log = build.source.name if build is not None else None
    out: list[dict[str, Any]] = []
    append = out.append
    # every finding's names in one call of the table (in order: the same positions as a
    # call per finding), split after: a big engine has thousands of findings
    evidence = [f.evidence for f in findings]
    flat = s.many([n for ev in evidence for n in ev.names])
    at = 0
    for f, ev in zip(findings, evidence, strict=True):
        ev_lines = ev.lines
        source = ev.source
        in_log = build is not None and (source is None or source == log)
        if in_log and ev_lines:
            for n in ev_lines[:6]:
                lines.add(n, CONTEXT)
            lines.add_all(ev_lines)
        end = at + len(ev.names)
        ms = f.time_ms
        refs = ev.reference_layers
        append(
            {
                "rule": f.rule,
                "sev": f.severity,
                "subject": f.subject,
                "msg": f.message,
                "why": f.why,
                "fix": f.mitigation,
                # num(), inline: a finding's time is a float or None
                "ms": ms if ms is None or (type(ms) is float and math.isfinite(ms)) else num(ms),
                "lines": list(ev_lines),
                "inLog": in_log,
                "source": source,
                "layers": list(ev.layers),
                "ref": list(refs) if refs else [],
                "names": flat[at:end],
            }
        )
        at = end
    return out


def _passes(build: Build, s: Strings, lines: Lines) -> dict[str, Any]:
    """Layer counts by stage, the passes, and every fusion, removal and Q/DQ step by pass.

    Read from the frames' rows (:mod:`trtlog.buildlog.passes`) typed as the frames type them
    (:func:`~trtlog.buildlog.rows.typed_columns`), without making the frames: the report of a
    log and its engine imports no pandas (a quarter of a second of every ``trtlog report``).
    """
    from trtlog.buildlog.passes import (
        ROW_SCHEMAS,
        fusion_records,
        layer_count_records,
        pass_records,
        qdq_records,
        removal_records,
    )
    from trtlog.buildlog.rows import typed_columns

    def rows(name: str, records: list[dict[str, Any]]) -> dict[str, list[Any]]:
        return typed_columns(name, ROW_SCHEMAS[name], records)

    counts = rows("layer_counts", layer_count_records(build))
    passes = rows("passes", pass_records(build))
    fusions = rows("fusions", fusion_records(build))
    removals = rows("removals", removal_records(build))
    qdq = rows("qdq", qdq_records(build))
    stage_lines = counts["line"]
    lines.add_all(n for n in stage_lines if n)
    events: dict[str, list[Any]] = {"pass": [], "line": [], "what": [], "text": []}

    def add(pass_names: list[Any], at: list[Any], what: list[Any], text: list[str]) -> None:
        events["pass"] += s.many(pass_names)
        events["line"] += at
        events["what"] += s.many(what)
        events["text"] += s.many(text)

    if fusions["line"]:
        texts = [
            " + ".join(inputs) + ("  →  " + result if result else "")
            for inputs, result in zip(fusions["inputs"], fusions["result"], strict=True)
        ]
        add(fusions["pass_name"], fusions["line"], fusions["kind"], texts)
    if removals["line"]:
        texts = [
            (layer or "") + (f" ({detail})" if detail else "")
            for layer, detail in zip(removals["layer"], removals["detail"], strict=True)
        ]
        add(
            removals["pass_name"],
            removals["line"],
            removals["kind"],
            texts,
        )
    if qdq["line"]:
        texts = []
        for layer, other, a, b in zip(
            qdq["layer"],
            qdq["other"],
            qdq["from_type"],
            qdq["to_type"],
            strict=True,
        ):
            text = layer or ""
            if other:
                text += f" ↔ {other}"
            if a or b:
                text += f" ({a or '?'} → {b or '?'})"
            texts.append(text)
        add(qdq["pass_name"], qdq["line"], qdq["kind"], texts)
    return {
        "stages": {
            "stage": counts["stage"],
            "layers": counts["layers"],
            "change": counts["change"],
            "line": stage_lines,
            "run": counts["run"],
            "round": counts["round"],
        },
        "passes": {
            "name": passes["pass_name"],
            "first": passes["first_line"],
            "last": passes["last_line"],
            "runs": passes["runs"],
            "fusions": passes["fusions"],
            "removals": passes["removals"],
            "swaps": passes["swaps"],
            "before": passes["layers_before"],
            "after": passes["layers_after"],
            "desc": passes["description"],
        },
        "events": events,
    }


#: The most layers without a parser line whose fates the page holds (each is a walk of the
#: merge graph; beyond this, such a layer shows what followed it, not its fate).
ORIGINAL_FATES = 5_000

# node kinds and edge evidence of the merge graph, as codes
_NODE_KINDS = ("onnx_node", "onnx_initializer", "intermediate", "engine_layer", "pass")
_FATE_KINDS = ("fused", "folded", "removed", "retargeted", "unexplained")


def graph_texts(build: Build, engine: Engine | None, given: bool) -> dict[str, Any]:
    """The merge graph (nodes, edges) and the fate of every ONNX node, texts as strings.

    The page's graph section of ``build.merge_graph(engine)`` (the build's own merge graph
    unless an engine was given apart from the log), with each node's name and op, each
    edge's pass and each fate's reason as text, not yet in a string table
    (:func:`graph_strings` puts them in one).
    """
    graph = build.merge_graph(engine) if given and engine is not None else build.merge_graph()
    return _graph_texts(graph)


def graph_strings(section: dict[str, Any], s: Strings) -> dict[str, Any]:
    """:func:`graph_texts`'s section with its texts replaced by their positions in ``s``.

    The names first, then the ops, the passes and the reasons (the string table's order).
    """
    nodes, edges, fates = section["nodes"], section["edges"], section["fates"]
    nodes["name"] = s.many(nodes["name"])
    nodes["op"] = s.many(nodes["op"])
    edges["pass"] = s.many(edges["pass"])
    fates["reason"] = s.many(fates["reason"])
    return section


def _graph_texts(graph: MergeGraph) -> dict[str, Any]:
    """:func:`graph_texts` of a merge graph made already.

    Nodes and edges as columns, in the graph's order (an edge by its position: per source in
    node order, its targets as added); the fates from :meth:`MergeGraph.fate_edges`, of
    every ONNX node (in parse order) and of every layer of the network as parsed that no
    parser line ties to a node (an excerpt, or a log without parser lines, knows nodes by
    those), up to :data:`ORIGINAL_FATES` of them.

    Why the whole graph and every ONNX node's fate: the explorer finds any node by name (its
    search, and the links from the other sections), shows the fate of any ONNX node picked,
    walks an engine layer's provenance back through any node, and draws the 60 nodes nearest
    any of them; its script never works a fate out itself (fates are :class:`MergeGraph`'s
    answers). So each node, edge and fate is read once, in one pass each over networkx's
    dicts. A memoised walk shared between the fates (one pass over the graph) was measured
    slower than a walk per fate: the chains from an ONNX node to its layer are two or three
    edges long.
    """
    from trtlog.graph.model import FLOWS

    node_data, succ, pred = graph.node_data(), graph.out_adjacency(), graph.in_adjacency()
    ids = dict(zip(node_data, range(len(node_data)), strict=True))
    kind_code = {k: i for i, k in enumerate(_NODE_KINDS)}
    names: list[str] = []
    kinds: list[int] = []
    ops: list[str | None] = []
    order: list[int | None] = []
    layer: list[int | None] = []
    layer_ids: dict[str, int] = {}  # an engine layer by name (the last of a name)
    by_name: dict[str, int] = {}  # an ONNX node or initializer by name (the first of a name)
    originals: list[int] = []  # the layers no edge comes into
    for i, (node_id, d) in enumerate(node_data.items()):
        kind, name = d["kind"], d["name"]
        names.append(name)
        kinds.append(kind_code.get(kind, 2))  # (a kind the page does not know: intermediate)
        ops.append(d.get("op"))
        order.append(d.get("order"))
        if kind == "engine_layer":
            layer.append(d.get("index"))
            layer_ids[name] = i
            continue
        layer.append(None)
        if kind == "intermediate":
            if not pred[node_id]:
                originals.append(i)
        elif kind == "onnx_node" or kind == "onnx_initializer":
            by_name.setdefault(name, i)
    first: list[int] = []  # each node's first edge
    es: list[int] = []
    et: list[int] = []
    edge_rel: list[str] = []
    edge_pass: list[str | None] = []
    edge_line: list[int] = []
    edge_ev: list[str] = []
    for source, out in succ.items():
        i = ids[source]
        first.append(len(es))
        for target, d in out.items():
            es.append(i)
            et.append(ids[target])
            edge_rel.append(d["relation"])
            edge_pass.append(d["pass_name"])
            edge_line.append(d["line"] or 0)
            edge_ev.append(d["evidence"] or "log")
    relations, evidence = Strings(), Strings()
    # the fates: each start's node on the page (an ONNX node's: the first node of its name)
    starts = graph.onnx_ids()
    f_node: list[int | None] = [by_name.get(node_data[n]["name"]) for n in starts]
    fates_of_originals = len(originals) <= ORIGINAL_FATES
    if fates_of_originals:
        for i in originals:
            # as MergeGraph.fate finds a node by its name
            start = graph.find(
                names[i], ("onnx_node", "onnx_initializer", "intermediate", "engine_layer")
            )
            assert start is not None
            starts.append(start)
            f_node.append(i)
    fate_kind = {k: i for i, k in enumerate(_FATE_KINDS)}
    fates: dict[str, list[Any]] = {"kind": [], "reason": [], "finals": [], "steps": []}
    for start in starts:
        kind, reason, finals, steps = graph.fate_edges(start)
        fates["kind"].append(fate_kind.get(kind, 4))
        fates["reason"].append(reason)
        fates["finals"].append([layer_ids.get(node_data[x]["name"], -1) for x in finals])
        # a step as its edge's position: its source's first edge and its place among them
        # (most sources have one edge)
        fates["steps"].append(
            [
                first[ids[a]] + (0 if len(succ[a]) == 1 else list(succ[a]).index(b))
                for a, b, _ in steps
            ]
        )
    return {
        "nodes": {"name": names, "kind": kinds, "op": ops, "order": order, "layer": layer},
        "edges": {
            "s": es,
            "t": et,
            "rel": relations.many(edge_rel),
            "pass": edge_pass,
            "line": edge_line,
            "ev": evidence.many(edge_ev),
        },
        "nodeKinds": list(_NODE_KINDS),
        "fateKinds": list(_FATE_KINDS),
        "relations": relations.items,
        "evidence": evidence.items,
        "flows": sorted(FLOWS),
        "originals": len(originals),
        "originalFates": fates_of_originals,
        "finalFrom": graph.graph.get("final_layers_from"),
        "finished": bool(graph.graph.get("build_finished")),
        "fates": {"node": f_node, **fates},
    }


def _group_totals(keys: list[str | None], times: Any) -> list[list[Any]]:
    """Layers and time per key (a layer's ``type`` or ``precision``), biggest first.

    :func:`~trtlog.engine.model.time_by_key` (what ``trtlog layers --group-by`` and
    ``plot_time_by`` show) of the layers' times (``time_ms``, a float array, NaN unknown).
    """
    from trtlog.engine.model import time_by_key

    return [[key, layers, num(ms)] for key, layers, ms in time_by_key(keys, times.tolist())]


#: The layers-frame columns the page shows as strings.
_LAYER_TEXT = (
    "name",
    "type",
    "precision",
    "input_dtypes",
    "output_dtypes",
    "output_layouts",
    "output_dims",
    "tactic_hex",
    "tactic_name",
    "onnx_source",
    "module",
    "time_reason",
    "origin",
)


_FOOTPRINT = ("weights_bytes", "activation_bytes")


def _layer_values(
    engine: Engine, general: bool = False, made: Mapping[str, Sequence[Any]] | None = None
) -> tuple[dict[str, list[Any]], Any]:
    """The layers frame's columns the page shows (as :func:`column` reads them), and times.

    The times: the ``time_ms`` column as a float array. Read without making the frame: the
    columns it is made of (:func:`trtlog.engine.rows.layer_columns`; ``made``, when made
    already), typed as the frame types them (no pandas: a report of a log's layer dump);
    ``general``: from the frame itself (the tests' reference).
    """
    import numpy as np

    if general:
        frame = engine.layers_frame()
        values = {c: column(frame, c) for c in (*_LAYER_TEXT, "index", "is_reformat")}
        values["onnx_nodes"] = frame["onnx_nodes"].tolist()
        values["time_ms"] = column(frame, "time_ms")
        values["percentage"] = column(frame, "percentage")
        values.update({c: column(frame, c) for c in _FOOTPRINT})
        return values, frame["time_ms"].to_numpy(dtype=float)
    from trtlog.buildlog.rows import type_columns
    from trtlog.engine.rows import LAYER_SCHEMA, layer_columns

    read: tuple[str, ...] = (*_LAYER_TEXT, "index", "is_reformat", "onnx_nodes", "time_ms")
    read += ("percentage", *_FOOTPRINT)
    if made is None:
        made = layer_columns(engine)
    values = type_columns("layers", {c: LAYER_SCHEMA[c] for c in read}, made)
    return values, np.array(made["time_ms"], dtype=float)


def _finite_or_none(array: Any) -> list[Any]:
    """A float array as a list, ``None`` for NaN and infinities (:func:`column`)."""
    import numpy as np

    out: list[Any] = array.tolist()
    for i in np.flatnonzero(~np.isfinite(array)).tolist():
        out[i] = None
    return out


def _layers(
    engine: Engine,
    s: Strings,
    general: bool = False,
    made: Mapping[str, Sequence[Any]] | None = None,
    footprint: Footprint | None = None,
) -> dict[str, Any]:
    """The engine's layers as columns, with Myelin kernels grouped under their region.

    ``general``: read the layers frame even when the loader's values are at hand (tests);
    ``made``: the engine's :func:`~trtlog.engine.rows.layer_columns` and ``footprint`` its
    :func:`~trtlog.engine.footprint.engine_footprint`, when made already.
    """
    import numpy as np

    from trtlog.engine.myelin import group_summary, group_values

    values, ms = _layer_values(engine, general, made)
    nodes = values["onnx_nodes"]
    many = s.many
    # (the strings enter the table in this order: the page's bytes depend on it)
    table = {
        "index": values["index"],
        "name": many(values["name"]),
        "type": many(values["type"]),
        "precision": many(values["precision"]),
        "inTypes": many(values["input_dtypes"]),
        "outTypes": many(values["output_dtypes"]),
        "outLayouts": many(values["output_layouts"]),
        "dims": many(values["output_dims"]),
        "tactic": many(values["tactic_hex"]),
        "kernel": many(values["tactic_name"]),
        "nodes": _split_as(many(list(chain.from_iterable(nodes))), nodes),
        "nodeSource": many(values["onnx_source"]),
        "module": many(values["module"]),
        "ms": values["time_ms"],
        "share": values["percentage"],
        "reason": many(values["time_reason"]),
        "reformat": values["is_reformat"],
        "origin": many(values["origin"]),
        "weights": values["weights_bytes"],
        "acts": values["activation_bytes"],
    }
    names = values["name"]
    groups = group_values(engine)
    first = dict(zip(reversed(names), range(len(names) - 1, -1, -1), strict=True))
    # a kernel's positions (one per layer of that name: the first free one is taken)
    wanted = {k for g in groups for k in g.kernels}
    positions: dict[str, list[int]] = {}
    if wanted:
        for i in compress(range(len(names)), map(wanted.__contains__, names)):
            positions.setdefault(names[i], []).append(i)
    shown = []
    for g in groups:
        members: list[int] = []
        for kernel in g.kernels:
            found = positions.get(kernel)
            if found:
                members.append(found.pop(0) if len(found) > 1 else found[0])
        region = None
        if g.region is not None and not g.kernels:
            region = first.get(g.region)
        shown.append(
            {
                "label": g.region or f"Myelin graph {g.graph}",
                "graph": g.graph,
                "region": region,
                "kernels": members,
                "types": g.kernel_types,
                "ops": {str(members[k]): list(g.ops[name]) for k, name in _ops(g, members)},
                "nodes": len(g.onnx_nodes),
                "ms": num(g.time_ms),
                "summary": group_summary(g.region, g.graph, g.kernels, g.kernel_types),
            }
        )
    return {
        "table": table,
        "count": len(names),
        "timed": bool((~np.isnan(ms)).any()),
        "profile": engine.profile.source if engine.profile is not None else None,
        "total": num(engine.total_ms) if engine.profile is not None else None,
        "myelin": shown,
        "byType": _group_totals(values["type"], ms),
        "byPrecision": _group_totals(values["precision"], ms),
        "footprint": _footprint(engine, values, footprint),
        "notes": list(engine.notes),
    }


def _footprint(
    engine: Engine, values: dict[str, list[Any]], footprint: Footprint | None = None
) -> dict[str, Any]:
    """Weights and activation bytes by layer type and precision, and the largest tensors.

    ``footprint``: the engine's :func:`~trtlog.engine.footprint.engine_footprint`, when made
    already.
    """
    from trtlog.engine.footprint import bytes_by_key, largest_activations

    w, a = values["weights_bytes"], values["activation_bytes"]
    known_w = [x for x in w if x is not None]
    known_a = [x for x in a if x is not None]
    return {
        "weights": sum(known_w) if known_w else None,
        "acts": sum(known_a) if known_a else None,
        "byType": [list(r) for r in bytes_by_key(values["type"], w, a)],
        "byPrecision": [list(r) for r in bytes_by_key(values["precision"], w, a)],
        "largest": [
            [index, layer, tensor, dims_text(dims), dtype, size]
            for index, layer, tensor, dims, dtype, size in largest_activations(
                engine, 10, footprint
            )
        ],
    }


def _split_as(flat: list[Any], groups: list[Any]) -> list[list[Any]]:
    """``flat`` cut into lists as long as each of ``groups``."""
    items = iter(flat)
    return [list(islice(items, len(group))) for group in groups]


def _ops(group: Any, members: list[int]) -> Iterable[tuple[int, str]]:
    """``(position in members, kernel name)`` of the kernels whose ops were decoded."""
    for k, name in enumerate(group.kernels[: len(members)]):
        if name in group.ops:
            yield k, name


def _modules(
    engine: Engine, s: Strings, columns: Mapping[str, Sequence[Any]] | None = None
) -> list[Any]:
    """The module tree as nested lists.

    At most :data:`trtlog.names.MODULE_DEPTH` levels deep: the JSON encoders, and the page's
    reader, go down one level at a time. Each node: name, layers, own layers, ONNX nodes, ms,
    split ms, precision mix, children, and how many submodules are left out. The figures of
    :meth:`Engine.module_tree` (:func:`~trtlog.engine.modules.module_figures`, which that tree
    is made of), without a model per module (a big model has tens of thousands). A module
    without a layer (its nodes all run in layers of its parent, fused with its siblings:
    ``reader/conv1``, ``reader/relu`` in one ``reader`` layer) is left out of its parent's
    children: a row of "0 layers" and no time says nothing the parent's own layers do not.
    ``columns``: the engine's :func:`~trtlog.engine.rows.layer_columns`, when made already.
    """
    import numpy as np

    from trtlog.engine.modules import module_figures

    figures = module_figures(engine, columns)
    walk, parent = figures.preorder, figures.parent
    # the modules' names enter the string table depth first (the page's order)
    names = np.empty(len(walk), dtype=object)
    names[walk] = s.many(list(map(figures.names.__getitem__, walk)))
    isfinite = math.isfinite
    times: list[Any] = figures.time
    splits: list[Any] = figures.split
    if not all(map(isfinite, compress(times, times))):  # (None and 0.0 aside)
        times = [None if ms is None or not isfinite(ms) else ms for ms in times]
    if not all(map(isfinite, splits)):
        splits = [ms if isfinite(ms) else None for ms in splits]
    made = [
        [name, layers, own, nodes, ms, split, precisions, [], 0]
        for name, layers, own, nodes, ms, split, precisions in zip(
            names.tolist(),
            figures.layers,
            figures.own,
            figures.nodes,
            times,
            splits,
            figures.precisions,  # (module_figures made them for this call: no copy)
            strict=True,
        )
    ]
    # each module's children, in order: the modules sorted by parent (stably), one run each
    by_parent = np.argsort(parent, kind="stable")[1:]  # (the root's parent, -1, sorts first)
    if len(by_parent):
        ups = np.asarray(parent)[by_parent]
        cuts = np.flatnonzero(np.diff(ups)) + 1
        starts = [0, *cuts.tolist()]
        ends = [*cuts.tolist(), len(ups)]
        children = by_parent.tolist()
        counts = figures.layers
        for up, a, b in zip(ups[starts].tolist(), starts, ends, strict=True):
            kept = [made[c] for c in children[a:b] if counts[c]]
            made[up][7] = kept
            made[up][8] = b - a - len(kept)
    return made[0]


#: Above this many tactic rows, the page keeps per layer only the rows that matter (chosen,
#: fastest, cached, the engine's) and the fastest others (:data:`TACTICS_PER_LAYER`); the
#: per-layer counts stay those of every row, and the log holds the rest.
TACTIC_ROWS = 50_000
TACTICS_PER_LAYER = 12


def _tactics(columns: Mapping[str, Any], s: Strings, lines: Lines) -> dict[str, Any]:
    """Every timed tactic by layer: candidates, the fastest, the chosen and the engine's.

    ``columns`` are those of the ``tactics_frame`` of the round the page shows
    (:func:`trtlog.buildlog.tactics.tactic_columns`), read without making the frame: the
    figures are the frame's (a layer grouping of its rows, :func:`_engine_tactics` the
    frame's :func:`trtlog.frames.choices.engine_tactics`), and ``tests/html`` checks them
    against the frame's on every fixture and corpus log.
    """
    import numpy as np

    from trtlog.buildlog.tactics import column_array, layer_codes

    n = len(columns["line"])
    if not n:
        return {"rows": 0}
    line = column_array(columns["line"], np.int64)
    time_ms = column_array(columns["time_ms"], np.float64)
    fastest, chosen, skipped, cached, in_engine, reformat = (
        column_array(columns[c], bool)
        for c in ("fastest", "chosen", "skipped", "cached", "in_engine", "reformat")
    )
    # the layers numbered in the order first met (a missing layer is ""): a grouping by
    # these integers is the grouping by the names (sort=False)
    codes, names, missing = layer_codes(columns["layer"])
    k = len(names)
    timed = ~skipped & ~np.isnan(time_ms)
    best = np.full(k, np.nan)
    np.fmin.at(best, codes[timed], time_ms[timed])
    first = np.full(k, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, codes, line)
    last = np.full(k, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(last, codes, line)
    flags = (
        fastest.astype(np.int64)
        + 2 * chosen
        + 4 * skipped
        + 8 * cached
        + 16 * in_engine
        + 32 * reformat
    )
    if n > TACTIC_ROWS:
        # the rows that say something, and the fastest others of each layer
        marked = (flags & (1 | 2 | 8 | 16)) > 0
        rows = np.flatnonzero(marked | _fastest_of_group(codes, time_ms, timed))
    else:
        rows = np.arange(n)
    picked = _engine_tactics(codes, missing, line, time_ms, chosen, reformat, in_engine)
    engine_lines = line[picked].tolist()
    lines.add_all(n for n in engine_lines if n)

    def texts(name: str, at: Any) -> list[int | None]:
        return _string_ids(columns[name], at, s)

    layer_names = s.many([t or None for t in names])
    return {
        "rows": n,
        "kept": len(rows),
        "perLayer": TACTICS_PER_LAYER if len(rows) < n else None,
        "layers": {
            "layer": layer_names,
            "timed": np.bincount(codes[timed], minlength=k).tolist(),
            "skipped": np.bincount(codes[skipped], minlength=k).tolist(),
            "best": _finite_or_none(best),
            "first": first.tolist(),
            "last": last.tolist(),
            "reformat": (np.bincount(codes[reformat], minlength=k) > 0).tolist(),
        },
        "layer": codes[rows].tolist(),
        "runner": texts("runner", rows),
        "combo": texts("format_combination", rows),
        "tactic": _hex_of(columns, rows),
        "kernel": texts("tactic_name", rows),
        "ms": _finite_or_none(time_ms[rows]),
        "flags": flags[rows].tolist(),
        "reason": texts("skip_reason", rows),
        "line": line[rows].tolist(),
        "engine": {
            "layer": texts("layer", picked),
            "tactic": _hex_of(columns, picked),
            "kernel": texts("tactic_name", picked),
            "ms": _finite_or_none(time_ms[picked]),
            "known": in_engine[picked].tolist(),
            "line": engine_lines,
        },
    }


def _string_ids(values: Any, rows: Any, s: Strings) -> list[int | None]:
    """``s.many`` of the texts of a column of ``tactic_columns`` at ``rows``."""
    from trtlog.buildlog.tactics import column_take, column_texts

    return s.many(column_texts(column_take(values, rows)))


def _engine_tactics(
    codes: Any, missing: Any, line: Any, time_ms: Any, chosen: Any, reformat: Any, in_engine: Any
) -> Any:
    """The rows :func:`trtlog.frames.choices.engine_tactics` keeps, in line order.

    Per tuned layer (reformat timings left out), the first chosen row the engine runs, else
    its fastest chosen row (ties: the first line). A chosen row of a layer with one the
    engine runs is ``engine_known`` exactly when it is such a row, so ``in_engine`` of the
    rows kept is that column.
    """
    import numpy as np

    candidate = chosen & ~reformat & ~missing & np.isfinite(time_ms)
    rows = np.flatnonzero(candidate)
    known = rows[in_engine[rows]]
    _, first = np.unique(codes[known], return_index=True)
    known = known[first]
    rest = rows[~np.isin(codes[rows], codes[known])]
    rest = rest[np.lexsort((line[rest], time_ms[rest]))]
    _, first = np.unique(codes[rest], return_index=True)
    picked = np.concatenate([known, rest[first]])
    return picked[np.argsort(line[picked], kind="stable")]


def _hex_of(columns: Mapping[str, Any], rows: Any) -> list[str | None]:
    """The ``tactic_hex`` texts of ``rows``."""
    from trtlog.buildlog.tactics import column_take

    return column_take(columns["tactic_hex"], rows)


def _fastest_of_group(codes: Any, values: Any, valid: Any) -> Any:
    """Whether each row is among the fastest :data:`TACTICS_PER_LAYER` of its layer.

    ``rank(method="first") <= TACTICS_PER_LAYER`` of the ``values`` grouped by ``codes``
    (ties in row order), rows not ``valid`` left unranked: one stable sort by (layer, value).

    Example:
        >>> import numpy as np
        >>> codes = np.array([0, 0, 1] * 10)
        >>> mask = _fastest_of_group(codes, np.arange(30.0)[::-1], codes == 0)
        >>> int(mask.sum()), bool(mask[-2]), bool(mask[0])
        (12, True, False)
    """
    import numpy as np

    rows = np.flatnonzero(valid)
    keep = np.zeros(len(values), dtype=bool)
    n = len(rows)
    if not n:
        return keep
    group = np.asarray(codes[rows], dtype=np.int64)
    value = values[rows]
    # by group, then value, then row (lexsort is stable: the last key is sorted on first)
    order = np.lexsort((value, group))
    grouped = group[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    place = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    keep[rows[order[place < TACTICS_PER_LAYER]]] = True
    return keep


def _memory(build: Build, s: Strings, lines: Lines) -> dict[str, Any]:
    """Every memory figure: ``memory_frame``'s columns, read from its rows (no pandas)."""
    from trtlog.buildlog.memory import MEMORY_SCHEMA, memory_records
    from trtlog.buildlog.rows import typed_columns

    frame = typed_columns("memory", MEMORY_SCHEMA, memory_records(build))
    at = frame["line"]
    lines.add_all(n for n in at if n)
    return {
        "line": at,
        "stage": s.many(frame["stage"]),
        "kind": s.many(frame["kind"]),
        "metric": s.many(frame["metric"]),
        "layer": s.many(frame["layer"]),
        "bytes": frame["bytes"],
        "mib": frame["mib"],
    }


def _comparison(cmp: Comparison, s: Strings) -> dict[str, Any]:
    """The comparison for the page.

    The aligned rows, the fusion groups, precision and tactic changes, and the times per
    ONNX node and per module.
    """
    frame = cmp.frame()
    onnx = cmp.onnx_frame()
    summary = cmp.summary()
    groups = [
        {
            "id": g.id,
            "kind": g.kind,
            "text": g.describe(),
            "nodes": s.many(g.nodes),
            "a": list(g.layers_a),
            "b": list(g.layers_b),
            "namesA": s.many(g.names_a),
            "namesB": s.many(g.names_b),
            "qdq": s.many(g.qdq_nodes),
        }
        for g in cmp.groups
    ]
    passes = None
    if summary.passes is not None:
        passes = {
            "counts": [
                [p.pass_name, p.runs_a, p.runs_b, p.fusions_a, p.fusions_b]
                for p in summary.passes.counts
            ],
            "onlyA": [
                [f.pass_name, f.kind, " + ".join(f.inputs), f.line, f.other_pass]
                for f in summary.passes.only_a
            ],
            "onlyB": [
                [f.pass_name, f.kind, " + ".join(f.inputs), f.line, f.other_pass]
                for f in summary.passes.only_b
            ],
        }
    return {
        "a": cmp.a.describe(),
        "b": cmp.b.describe(),
        "aligned": cmp.aligned,
        "nodeSource": cmp.node_source,
        "markers": cmp.markers(),
        "notes": list(cmp.notes) + [n for n in summary.notes if n not in cmp.notes],
        "rows": {
            "step": column(frame, "step"),
            "marker": column(frame, "marker"),
            "ia": column(frame, "index_a"),
            "ib": column(frame, "index_b"),
            "nameA": s.many(column(frame, "name_a")),
            "nameB": s.many(column(frame, "name_b")),
            "typeA": s.many(column(frame, "type_a")),
            "typeB": s.many(column(frame, "type_b")),
            "precA": s.many(column(frame, "precision_a")),
            "precB": s.many(column(frame, "precision_b")),
            "shapeA": s.many(column(frame, "shape_a")),
            "shapeB": s.many(column(frame, "shape_b")),
            "moduleA": s.many(column(frame, "module_a")),
            "moduleB": s.many(column(frame, "module_b")),
            "reasons": s.many(column(frame, "reasons")),
            "group": column(frame, "group"),
            "msA": column(frame, "time_a_ms"),
            "msB": column(frame, "time_b_ms"),
            "delta": column(frame, "delta_ms"),
            "kernelA": s.many(column(frame, "kernel_a")),
            "kernelB": s.many(column(frame, "kernel_b")),
            "match": s.many(column(frame, "match")),
            "conf": column(frame, "confidence"),
            "why": s.many(column(frame, "why")),
        },
        "failed": summary.alignment_failed,
        "reason": summary.alignment_reason,
        "alignment": [summary.paired, summary.possible],
        "matches": summary.matches,
        "byType": [
            [t.key, t.layers_a, t.layers_b, num(t.time_a_ms), num(t.time_b_ms)]
            for t in summary.by_type
        ],
        "byPrecision": [
            [t.key, t.layers_a, t.layers_b, num(t.time_a_ms), num(t.time_b_ms)]
            for t in summary.by_precision
        ],
        "totals": [[t.metric, t.unit, num(t.a), num(t.b), t.better] for t in summary.totals],
        "groups": groups,
        "precision": [
            [c.step, c.index_a, c.index_b, s(c.name), c.before, c.after]
            for c in summary.precision_changes
        ],
        "transitions": summary.precision_transitions,
        "tactics": [
            [
                *(c.step, c.index_a, c.index_b, s(c.name), c.tactic_a, c.tactic_b),
                *(num(c.time_a_ms), num(c.time_b_ms)),
            ]
            for c in summary.tactic_changes
        ],
        "modules": [
            [m.module, m.layers_a, m.layers_b, num(m.time_a_ms), num(m.time_b_ms), num(m.delta_ms)]
            for m in summary.modules
        ],
        "moduleDepth": summary.module_depth,
        "onnx": {
            "node": s.many(column(onnx, "node")),
            "kind": s.many(column(onnx, "kind")),
            "module": s.many(column(onnx, "module")),
            "ia": column(onnx, "index_a"),
            "ib": column(onnx, "index_b"),
            "precA": s.many(column(onnx, "precision_a")),
            "precB": s.many(column(onnx, "precision_b")),
            "msA": column(onnx, "time_a_ms"),
            "msB": column(onnx, "time_b_ms"),
            "fusion": s.many(column(onnx, "fusion")),
        },
        "total": [num(summary.time_a_ms), num(summary.time_b_ms), num(summary.delta_ms)],
        "layerCounts": [summary.layers_a, summary.layers_b],
        "passes": passes,
    }


def _compare(inputs: Inputs) -> Comparison:
    """``trtlog.compare`` of the reference (A) and the build (B).

    A side given as a log keeps its log (per-pass differences); a side whose layers came
    from a separate JSON is compared as that engine, with its profile merged.
    """
    ref = inputs.reference
    assert ref is not None

    def arg(side: Side) -> Any:
        if side.build is not None and not side.engine_given:
            return side.build
        return side.engine

    main, other = inputs.main, ref
    from trtlog.diff.load import compare  # only a report with a reference compares

    return compare(
        arg(other),
        arg(main),
        profile_a=other.profile if other.build is not None and not other.engine_given else None,
        profile_b=main.profile if main.build is not None and not main.engine_given else None,
    )


def _lint(inputs: Inputs) -> list[Finding]:
    """``trtlog.lint`` as ``trtlog lint`` runs it with the same inputs."""
    main, ref = inputs.main, inputs.reference
    reference: Any = None
    reference_profile = None
    if ref is not None:
        if ref.build is not None and not ref.engine_given:
            reference, reference_profile = ref.build, ref.profile
        else:
            reference = ref.engine  # its profile is merged already
    subject: Any = main.build if main.build is not None else main.engine
    # the engine unless it is the log's own (lint's default): one from a layer JSON, or the
    # log's with a profile merged (asked of the side: building the log's own engine from its
    # layer dump only to compare would cost more than the rules)
    given = main.engine_given or main.profile_given
    engine = main.engine if main.build is not None and given else None
    return lint(subject, engine, reference, reference_profile=reference_profile)


#: What the explorer says when the merge graph has neither ONNX nodes nor engine layers.
EXPLORER_EMPTY = (
    "needs ONNX parser lines or engine layers: this log has neither (a --verbose "
    "build log with a layer dump, or --layers, fills it)"
)


def graph_section(inputs: Inputs, scope: Build | None = None) -> dict[str, Any] | None:
    """The page's merge graph section with its own string table (``None`` without a build).

    :func:`graph_texts` of the build (or of the builder round the page shows: ``scope``,
    default :func:`page_scope`'s), its texts put in a table of its own (``"S"``, which the
    page's script appends to the page's): the section has its own block in the page.
    """
    main = inputs.main
    if main.build is None:
        return None
    if scope is None:
        scope, _ = page_scope(main.build)
    s = Strings()
    section = graph_strings(graph_texts(scope, main.engine, main.engine_given), s)
    section["S"] = s.items
    return section


def graph_filled(section: dict[str, Any]) -> bool:
    """Whether a graph section holds an ONNX node or an engine layer.

    Else the explorer says :data:`EXPLORER_EMPTY`.
    """
    return any(k in (0, 3) for k in section["nodes"]["kind"])


def collect(
    inputs: Inputs,
    progress: Progress | None = None,
    scoped: tuple[Build, dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data plus the overview for the template.

    Returns a dict with ``data`` (embedded in the page for its script), ``overview`` (the
    template's context for the Overview section), ``lines`` (the log lines the page points
    at) and the objects the page was made from (``findings``, ``comparison``).

    All but the merge graph's section, which :func:`graph_section` makes (it has its own
    string table and its own block in the page). ``scoped``: :func:`page_scope` of the build,
    when taken already.
    """
    step = progress or (lambda _stage: None)
    s = Strings()
    lines = Lines()
    main = inputs.main
    build, engine = main.build, main.engine
    available: dict[str, str | None] = {}
    data: dict[str, Any] = {"v": 1}

    step("findings")
    findings = _lint(inputs)
    data["findings"] = _findings(findings, build, s, lines)
    step("overview")
    scope: Build | None = None
    rounds: dict[str, Any] | None = None
    if build is not None:
        scope, rounds = scoped if scoped is not None else page_scope(build)
    data["rounds"] = rounds
    # the tactics frame's columns for the overview's figures and the Tactics section (the
    # biggest frame of a verbose log, never made: both read its columns), when summarize
    # counts the round this page shows
    tactics = tactic_columns(scope, arrays=True) if scope is not None else None
    # (summarize counts the whole run when the builder kept no round; the page the last one)
    same_round = rounds is None or (build is not None and any(r.kept for r in build.rounds))
    # the engine's footprint, read once: the overview, the layers' columns and the layers
    # section's byte tables all show it
    footprint = engine_footprint(engine) if engine is not None else None
    overview = _overview(main, findings, lines, tactics if same_round else None, footprint)
    if scope is not None:
        step("passes")
        data["passes"] = _passes(scope, s, lines)
        if (
            not data["passes"]["stages"]["stage"]
            and not data["passes"]["passes"]["name"]
            and not data["passes"]["events"]["line"]
        ):
            available["passes"] = (
                "needs the optimizer's lines: this log has no layer count by stage and no "
                "pass (build with --verbose)"
            )
        step("tactics")
        assert tactics is not None
        data["tactics"] = _tactics(tactics, s, lines)
        summary = overview["summary"]
        data["tactics"]["selection"] = summary.tactic_selection_seconds if summary else None
        if not data["tactics"]["rows"]:
            available["tactics"] = (
                "needs the autotuner's lines: this log times no tactic (a --verbose build "
                "log that ran tactic selection has them)"
            )
        step("memory")
        data["memory"] = _memory(scope, s, lines)
        if not data["memory"]["line"]:
            available["memory"] = (
                "needs memory lines ([MemUsageChange], activation and persistent memory of a "
                "build log): this log prints none"
            )
    else:
        for key in ("passes", "tactics", "memory"):
            data[key] = None
        why = "needs the trtexec --verbose build log (this report was made from JSON only)"
        available.update(passes=why, explorer=why, tactics=why, memory=why, log=why)
    if engine is not None:
        from trtlog.engine.rows import layer_columns

        step("layers")
        # the layers' columns, made once: the layers table, the module tree and the engine
        # graph read them
        made = layer_columns(engine, footprint)
        data["layers"] = _layers(engine, s, made=made, footprint=footprint)
        step("modules")
        data["modules"] = _modules(engine, s, made)
        step("engine graph")
        from trtlog.html.engine_graph import engine_graph_section  # (it imports this module)

        # (its own block: see page.render)
        data["engineGraph"] = engine_graph_section(engine, made)
    else:
        data["layers"] = data["modules"] = None
        why = (
            "needs the engine's layers: build with --dumpLayerInfo "
            "--profilingVerbosity=detailed, or pass the --exportLayerInfo JSON (--layers)"
        )
        available.update(layers=why, modules=why)
    step("fusion bisection")
    from trtlog.html.engine_graph import bisection_section

    # (the template shows it: page.render); the layers of a --layers JSON when given apart
    data["bisection"] = bisection_section(scope, engine if main.engine_given else None)
    comparison = None
    if inputs.reference is not None:
        step("comparison")
        overview["versus"] = _versus(inputs, overview["summary"])
        comparison = _compare(inputs)
        data["cmp"] = _comparison(comparison, s)
    else:
        data["cmp"] = None
        available["compare"] = (
            "needs a reference build of the same model: --reference fp16.log (with "
            "--reference-layers and --reference-profile when its layers and times are apart)"
        )
    data["available"] = available
    data["S"] = s.items
    return {
        "data": data,
        "overview": overview,
        "lines": lines.wanted,
        "findings": findings,
        "comparison": comparison,
        "scope": scope,
    }
