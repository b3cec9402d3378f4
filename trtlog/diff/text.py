"""Text renderings of a comparison: the side-by-side table and the summary.

Part of the view package :mod:`trtlog.diff` (no dependencies beyond the models).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trtlog._display import number, visible
from trtlog.diff.models import Comparison, ComparisonSummary, LayerView, PassFusion
from trtlog.diff.summary import step_times, sum_known
from trtlog.names import is_qdq_node, is_weights_name, split_name
from trtlog.tensors import dims_text

__all__ = ["fit", "render_steps", "render_summary"]

# -- text ----------------------------------------------------------------------------------


def _middle(text: str, width: int) -> str:
    """Cut in the middle; an ONNX path (``/a/b/Conv``) keeps its end, the specific part."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    if text.startswith("/"):
        return "…" + text[len(text) - width + 1 :]
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def fit(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, shortened the way layer names read best.

    A fused name keeps its first and last parts (or its first part and how many follow), a
    reformat says what it feeds, anything else keeps its start and end.

    Example:
        >>> fit("/a/conv/Conv + /a/bn/BatchNormalization + /a/act/Relu + /a/Add", 36)
        '/a/conv/Conv + … + /a/Add'
        >>> fit("resnetv15_stage1_conv1_fwd + resnetv15_stage1_batchnorm1_fwd", 32)
        'resnetv15_stage1_conv1_fwd (+1)'
        >>> fit("m.cv1.weight + /m/cv1/_weight_quantizer/QuantizeLinear + /m/cv1/Conv", 30)
        '/m/cv1/Conv (+2)'
        >>> fit("/model/stage1/cv1/conv/Conv", 16)
        '…1/cv1/conv/Conv'
        >>> fit("Reformatting CopyNode for Input Tensor 0 to /stage1/Add + /stage1/act/Relu", 40)
        'Reformat(in 0) → /stage1/Add (+1)'
        >>> fit("PWN(/stage1/Add, /stage1/act/Relu)", 24)
        'PWN(/stage1/Add (+1))'
        >>> fit("model.model.backbone0.conv.weight", 16)
        'model.m…v.weight'
    """
    text = visible(text)  # one line: a newline in a name would make a row of its own
    if len(text) <= width:
        return text
    parts = split_name(text)
    if parts.op == "reformat" and parts.target is not None:
        way = "out" if "output" in (parts.detail or "") else "in"
        label = f"Reformat({way}{'' if parts.index is None else f' {parts.index}'}) → "
        if width - len(label) >= 12:
            return label + fit(parts.target.text, width - len(label))
    elif parts.op in ("fusion", "merge", "pointwise") and len(parts.parts) > 1:
        sep = {"fusion": " + ", "merge": " || ", "pointwise": ", "}[parts.op]
        texts = [p.text for p in parts.parts]
        first, last, n = texts[0], texts[-1], len(texts)
        # the part that says what the layer computes: not a weight or a Q/DQ node
        key = next((t for t in texts if not (is_weights_name(t) or is_qdq_node(t))), first)
        head, tail = ("PWN(", ")") if parts.op == "pointwise" else ("", "")
        more = f" (+{n - 1}){tail}"
        middle = f"{sep}…" if n > 2 else ""
        shorts = [f"{head}{first}{middle}{sep}{last}{tail}", head + key + more]
        if key != first:  # a leading weight name says less than the operation
            shorts.reverse()
        for short in shorts:
            if len(short) <= width:
                return short
        if width - len(more) - len(head) >= 8:
            return head + _middle(key, width - len(more) - len(head)) + more
    return _middle(text, width)


def _cell(values: Sequence[str], widths: Sequence[int]) -> str:
    return " ".join(fit(v, w).ljust(w) for v, w in zip(values, widths, strict=True))


def _ms(value: float | None, sign: bool = False) -> str:
    """A time in ms as every command prints it (:func:`~trtlog._display.number`)."""
    if value is None:
        return ""
    return number(value, sign=sign)


def render_steps(
    cmp: Comparison,
    *,
    column_size: int | None = None,
    width: int | None = None,
    only_changed: bool = False,
) -> str:
    """The side-by-side table of a comparison, one row per step.

    Each row: its number, the marker (``=`` same, ``~`` aligned but different, ``-`` only in
    A, ``+`` only in B), then for A and for B the layer type, precision, output shape and
    name in a column of ``column_size`` characters (long fused names keep their first and
    last parts), then, when a profile was given, A's and B's time and the delta (ms), why
    the row is ``~``, and how a pair not matched by name was matched (``[structure 0.95]``)
    or why a one-sided layer found no counterpart. ``width`` sets the column size from a
    total line width instead (and cuts rows at it); ``only_changed`` leaves out the ``=`` rows.
    """
    timed = any(v.time_ms is not None for v in (*cmp.layers_a, *cmp.layers_b))
    time_w = 3 + 3 * 10 if timed else 0
    if column_size is None:
        column_size = 60 if width is None else (width - 7 - 3 - time_w) // 2
    column_size = max(column_size, 12)
    views = (*cmp.layers_a, *cmp.layers_b)
    fields = [
        ("type", min(18, max([4, *(len(v.type or "") for v in views)]))),
        ("prec", min(12, max([4, *(len(v.precision or "") for v in views)]))),
        ("shape", min(16, max([5, *(len(dims_text(v.shape)) for v in views)]))),
    ]
    for drop in ("type", "shape", "prec"):  # a narrow column keeps the name readable
        if sum(w + 1 for _f, w in fields) + 16 <= column_size:
            break
        fields = [(f, w) for f, w in fields if f != drop]
    widths = [w for _f, w in fields]
    widths.append(column_size - sum(w + 1 for w in widths))

    def cell(view: LayerView | None, note: str = "") -> str:
        if view is None:
            return " " * column_size
        if note:
            return fit(note, column_size).ljust(column_size)
        values = {
            "type": view.type or "",
            "prec": view.precision or "",
            "shape": dims_text(view.shape),
        }
        return _cell([*(values[f] for f, _w in fields), view.name], widths)

    def header(side: str) -> str:
        return _cell([*(f for f, _w in fields), f"{side} name"], widths)

    top = f"{'#':>4}   {header('A')} | {header('B')}"
    if timed:
        top += f" | {'A ms':>9} {'B ms':>9} {'delta ms':>9}"
    top += "  why"
    rule = "-" * min(len(top), width or len(top))
    lines = [cmp.a.describe(), cmp.b.describe(), "", top[:width] if width else top, rule]
    first_a: dict[int, int] = {}
    first_b: dict[int, int] = {}
    for s, (ta, tb, delta, rep_a, rep_b) in zip(cmp.steps, step_times(cmp), strict=True):
        if s.index_a is not None:
            first_a.setdefault(s.index_a, s.number)
        if s.index_b is not None:
            first_b.setdefault(s.index_b, s.number)
        if only_changed and s.marker == "=":
            continue
        va = cmp.layers_a[s.index_a] if s.index_a is not None else None
        vb = cmp.layers_b[s.index_b] if s.index_b is not None else None
        note_a = f'  " same layer as row {first_a[va.index]}' if va and rep_a else ""
        note_b = f'  " same layer as row {first_b[vb.index]}' if vb and rep_b else ""
        row = f"{s.number:>4} {s.marker} {cell(va, note_a)} | {cell(vb, note_b)}"
        if timed:
            row += f" | {_ms(ta):>9} {_ms(tb):>9} {_ms(delta, True):>9}"
        if s.match not in (None, "name") and s.confidence is not None:
            row += f"  [{s.match} {s.confidence:.2f}]"  # how a pair not made by name was made
        if s.reasons:
            row += "  " + ", ".join(s.reasons)
        elif s.why:
            row += f"  ({s.why})"
        row = row.rstrip()
        lines.append((row[:width] if width else row).rstrip())
    footer = "rows: " + "  ".join(f"{m} {n}" for m, n in cmp.markers().items())
    if cmp.groups:
        footer += f"; {len(cmp.groups)} group(s) of ONNX nodes fused differently"
    if timed:
        total_a = sum_known(v.time_ms for v in cmp.layers_a)
        total_b = sum_known(v.time_ms for v in cmp.layers_b)
        footer += f"; time A {_ms(total_a) or '-'} ms, B {_ms(total_b) or '-'} ms"
    lines += ["", footer]
    if not cmp.aligned:
        lines += [f"note: {n}" for n in cmp.notes[:1]]
    if width:
        lines[:2] = [_middle(line, width) for line in lines[:2]]
        lines[-1] = _middle(lines[-1], width) if cmp.aligned else lines[-1]
    return "\n".join(lines) + "\n"


#: Significant digits of a run or build figure, as ``trtlog summary`` prints the same figure
#: (seconds to 3, the profile's layer time to 4, trtexec's rates, latencies and sizes to 6).
_DIGITS = {"s": 3, "layer time (profile)": 4}


def _figure(value: float | None, metric: str = "", unit: str = "") -> str:
    """A run or build figure as ``summary`` prints it.

    A count with thousands separators, else :func:`~trtlog._display.number` with the digits
    of :data:`_DIGITS` (default 6).
    """
    if value is None:
        return "-"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return number(value, _DIGITS.get(metric, _DIGITS.get(unit, 6)))


def _fusion_text(f: PassFusion) -> str:
    names = [fit(x, 60) for x in f.inputs]
    if f.kind == "fusion_into" and len(names) > 1:
        return " and ".join(names[:-1]) + " into " + names[-1]
    if f.kind == "horizontal_merge":
        return " || ".join(names)
    return " with ".join(names)


def render_summary(summary: ComparisonSummary, limit: int = 10) -> str:
    """The summary as text, with at most ``limit`` entries per list."""
    out: list[str] = ["Compared", *(f"  {line}" for line in summary.compared)]

    def more(items: Sequence[Any]) -> None:
        if len(items) > limit:
            out.append(f"  ... and {len(items) - limit} more")

    if summary.alignment_failed:
        out += [
            "",
            f"Alignment failed: {summary.alignment_reason}.",
            *(
                [f"  ({summary.paired} of {summary.possible} computing layers were paired.)"]
                if summary.same_model is False
                else []
            ),
            "  Per-layer deltas, precision and tactic changes would compare unrelated layers",
            "  and are left out; the totals by layer type and precision below still compare.",
        ]
    if summary.model_evidence:
        verdict = {True: "one model", False: "two models", None: "not told"}[summary.same_model]
        out += ["", f"Same model? {verdict}", *(f"  - {e}" for e in summary.model_evidence)]
    if summary.totals:
        out += ["", f"{'Run and build':<30}{'A':>14}{'B':>14}{'B/A':>9}"]
        for row in summary.totals:
            ratio = f"{number(row.ratio, 3)}x" if row.ratio is not None else ""
            label = f"{row.metric} ({row.unit})"
            fa, fb = (_figure(v, row.metric, row.unit) for v in (row.a, row.b))
            out.append(f"  {label:<28}{fa:>14}{fb:>14}{ratio:>9}")
    keys = ("layers", "reformats", "qdq", "myelin_regions", "myelin_kernels")
    labels = ("layers", "reformats", "lone Q/DQ", "Myelin regions", "Myelin kernels")
    if summary.layers_a.get("layers") or summary.layers_b.get("layers"):
        out += ["", f"{'Layers':<18}{'A':>7}{'B':>7}"]
        for key, label in zip(keys, labels, strict=True):
            a, b = summary.layers_a.get(key, 0), summary.layers_b.get(key, 0)
            if key == "layers" or a or b:
                out.append(f"  {label:<16}{a:>7}{b:>7}")
        out.append("  rows: " + "  ".join(f"{m} {n}" for m, n in summary.markers.items()))
    if summary.matches:
        ways = ", ".join(f"{k} {n}" for k, n in summary.matches.items())
        out.append(f"  pairs matched by {ways}")
    for title, groups in (
        ("Fused in A, split in B", summary.split),
        ("Split in A, fused in B", summary.merged),
        ("Fused differently on both sides", summary.regrouped),
    ):
        if not groups:
            continue
        out += ["", f"{title} ({len(groups)})"]
        for g in groups[:limit]:
            out.append(f"  group {g.id}: {g.describe()}")
            out += [f"    A[{i}] {fit(n, 100)}" for i, n in zip(g.layers_a, g.names_a, strict=True)]
            out += [f"    B[{j}] {fit(n, 100)}" for j, n in zip(g.layers_b, g.names_b, strict=True)]
        more(groups)
    if summary.precision_changes:
        ways = ", ".join(f"{k} x{n}" for k, n in summary.precision_transitions.items())
        out += ["", f"Precision changes ({len(summary.precision_changes)}): {ways}"]
        for change in summary.precision_changes[:limit]:
            out.append(
                f"  row {change.step:>4}  {change.before}→{change.after}  {fit(change.name, 90)}"
            )
        more(summary.precision_changes)
    if summary.tactic_changes:
        out += ["", f"Tactic changes ({len(summary.tactic_changes)})"]
        for t in summary.tactic_changes[:limit]:
            ms = ""
            if t.time_a_ms is not None and t.time_b_ms is not None:
                ms = f"  {_ms(t.time_a_ms)} → {_ms(t.time_b_ms)} ms"
            out.append(f"  row {t.step:>4}  {fit(t.name, 70)}{ms}")
            out.append(f"            A: {fit(t.tactic_a, 90)}")
            out.append(f"            B: {fit(t.tactic_b, 90)}")
        more(summary.tactic_changes)
    for title, views in (
        ("Reformats only in B (added)", summary.reformats_added),
        ("Reformats only in A (removed)", summary.reformats_removed),
    ):
        if views:
            out += ["", f"{title} ({len(views)})"]
            for v in views[:limit]:
                what = "Q/DQ" if v.qdq or is_qdq_node(v.name) else "reformat"
                out.append(f"  [{v.index}] {what} {v.precision or ''}  {fit(v.name, 90)}".rstrip())
            more(views)
    by_key = (("By layer type", summary.by_type), ("By precision", summary.by_precision))
    for title, keyed in by_key:
        if not keyed:
            continue
        out += ["", f"{title:<26}{'layers A':>9}{'layers B':>9}{'A ms':>10}{'B ms':>10}"]
        for r in keyed[:limit]:
            out.append(
                f"  {fit(r.key, 23):<24}{r.layers_a:>9}{r.layers_b:>9}"
                f"{_ms(r.time_a_ms) or '-':>10}{_ms(r.time_b_ms) or '-':>10}"
            )
        more(keyed)
    passes = summary.passes
    if passes is not None:
        out += ["", "Optimizer passes"]
        if not (passes.counts or passes.only_a or passes.only_b):
            out.append("  the same fusions on both sides")
        if passes.counts:
            out.append(f"  {'pass':<32}{'runs A':>8}{'runs B':>8}{'fused A':>9}{'fused B':>9}")
            for c in passes.counts[:limit]:
                out.append(
                    f"  {fit(c.pass_name, 31):<32}{c.runs_a:>8}{c.runs_b:>8}"
                    f"{c.fusions_a:>9}{c.fusions_b:>9}"
                )
            more(passes.counts)
        for title, fusions, other in (
            ("Fusions in A and not in B", passes.only_a, "B"),
            ("Fusions in B and not in A", passes.only_b, "A"),
        ):
            if fusions:
                out.append(f"  {title} ({len(fusions)})")
                for f in fusions[:limit]:
                    also = f"  ({other} fused them in {f.other_pass})" if f.other_pass else ""
                    out.append(f"    line {f.line}: {f.pass_name or '?'}: {_fusion_text(f)}{also}")
                more(fusions)
    if summary.time_a_ms is not None or summary.time_b_ms is not None:
        out += [
            "",
            f"Time per inference (sum of layer times; modules at depth {summary.module_depth})",
        ]
        line = f"  A {_ms(summary.time_a_ms) or '-'} ms   B {_ms(summary.time_b_ms) or '-'} ms"
        if summary.delta_ms is not None and summary.time_a_ms:
            pct = 100.0 * summary.delta_ms / summary.time_a_ms
            line += f"   delta {_ms(summary.delta_ms, True)} ms ({pct:+.1f}%)"
        out.append(line)
        rows = [m for m in summary.modules if m.time_a_ms is not None or m.time_b_ms is not None]
        rows = rows[:limit]
        if rows:
            out.append(f"  {'module':<40}{'A ms':>10}{'B ms':>10}{'delta':>10}")
            for m in rows:
                out.append(
                    f"  {fit(m.module, 39):<40}{_ms(m.time_a_ms) or '-':>10}"
                    f"{_ms(m.time_b_ms) or '-':>10}{_ms(m.delta_ms, True) or '-':>10}"
                )
    if summary.notes:
        out += ["", "Notes", *(f"  - {n}" for n in summary.notes)]
    return "\n".join(out) + "\n"
