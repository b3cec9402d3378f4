"""``compare``: N builds of one model lined up by ONNX node or by module.

A view over the warehouse tables (DuckDB and pandas). :func:`trtlog.compare` aligns two
engines by the ONNX nodes their layers hold; the warehouse stores, per build, every node
with the layer that holds it as that alignment sees it (``onnx_nodes``: clone suffixes
removed, Q/DQ and weights told apart), so N builds line up by joining on the node: one row
per node, one group of columns per build. By module, the rows are ONNX modules (the
``module`` of each layer in ``layers``, optionally cut at a depth) with each build's layer
count, time and precisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from trtlog.warehouse.store import WarehouseError

if TYPE_CHECKING:
    import pandas as pd

    from trtlog.engine.model import Engine

__all__ = ["compare", "resolve_builds"]

_NODE_FIELDS = ("layer", "layer_index", "layers", "precision", "time_ms", "fate")


def resolve_builds(con: Any, builds: Sequence[str]) -> list[str]:
    """Full build ids from ids or unique prefixes.

    Raises:
        WarehouseError: an id matches no build, or several.
    """
    out = []
    for given in builds:
        found = [
            r[0]
            for r in con.execute(
                "SELECT build_id FROM builds WHERE starts_with(build_id, ?) ORDER BY build_id",
                [given],
            ).fetchall()
        ]
        exact = [f for f in found if f == given]
        if exact:
            found = exact
        if not found:
            raise WarehouseError(f"no build has the id {given!r}")
        if len(found) > 1:
            shown = ", ".join(found[:4])
            raise WarehouseError(f"{given!r} is the start of {len(found)} build ids ({shown}...)")
        out.append(found[0])
    return out


def _labels(builds: Sequence[str], labels: Sequence[str] | None) -> list[str]:
    if labels is None:
        return [f"b{i + 1}" for i in range(len(builds))]
    if len(labels) != len(builds) or len(set(labels)) != len(labels):
        raise WarehouseError("give one distinct label per build")
    return list(labels)


def compare(
    wh: Any,
    builds: Sequence[str],
    *,
    by: Literal["node", "layer", "module"] = "node",
    labels: Sequence[str] | None = None,
    depth: int | None = None,
) -> pd.DataFrame:
    """Line up N builds (of one model) by ONNX node or by module.

    Args:
        wh: a warehouse connection (:func:`trtlog.warehouse.open`).
        builds: build ids (or unique prefixes), the reference first.
        by: ``node`` (one row per ONNX node), ``layer`` (one row per layer of the reference,
            each other build aligned to it as :func:`trtlog.compare` aligns two engines: by
            name, then by kind of op and shape, so that exports whose ONNX nodes are
            numbered differently still line up) or ``module`` (one row per ONNX module).
        labels: a name per build for its columns (default ``b1``, ``b2``...).
        depth: by module, cut module paths to this many levels (default: whole paths).

    Returns:
        By node: ``node``, ``kind`` (``node``, ``qdq``, ``weights``), ``module``, then per
        build ``<label>_layer``, ``_layer_index``, ``_layers`` (how many layers hold the node),
        ``_precision``, ``_time_ms`` (the layer's time, shared by its nodes) and ``_fate``
        (from the log's merge graph), then ``builds`` (how many builds hold the node) and
        ``fusion``: ``same`` when the node shares its layer with the same ONNX nodes
        (Q/DQ and weights aside) in every build, ``split`` when some build holds it with
        fewer of the reference's nodes and none with more, ``merged`` the other way round,
        ``regrouped`` otherwise, ``missing`` when a build does not hold it. By module:
        ``module``, then per build ``<label>_layers``, ``_time_ms`` and ``_precisions``
        (``FP16:12 INT8:30``). By layer: ``layer``, ``type``, then per build ``<label>_layer``,
        ``_layer_index``, ``_precision``, ``_time_ms``, ``_match`` (``name``, ``structure``,
        ``shape``, ``position``; ``ref`` for the reference), ``_confidence`` and ``_reasons``,
        then ``builds`` (how many builds hold a counterpart); a layer of another build that
        pairs with none of the reference's gets a row of its own. A build whose layers do not
        align with the reference's (:attr:`trtlog.diff.Comparison.alignment_failed`: another
        model, or nothing says it is the same one) pairs none: each of its layers gets a row
        of its own, and ``frame.attrs["not_comparable"]`` maps its label to the reason.
        ``frame.attrs["builds"]`` maps each label to its build id.

    Raises:
        WarehouseError: an unknown or ambiguous build id, or labels that do not fit.

    Example::

        frame = compare(wh, ["3f2a", "9c1d"], labels=["fp16", "int8"])
        frame[frame["fusion"] == "split"][["node", "fp16_layer"]]
    """
    ids = resolve_builds(wh, builds)
    names = _labels(ids, labels)
    if by == "node":
        frame = _by_node(wh, ids, names)
    elif by == "layer":
        frame = _by_layer(wh, ids, names)
    else:
        frame = _by_module(wh, ids, names, depth)
    frame.attrs["builds"] = dict(zip(names, ids, strict=True))
    return frame


def _by_node(wh: Any, ids: list[str], names: list[str]) -> pd.DataFrame:
    import pandas as pd

    rows = wh.execute(
        "SELECT build_id, node, kind, module, layer, layer_index, layers, precision, time_ms, "
        "fate FROM onnx_nodes WHERE list_contains(?, build_id)",
        [ids],
    ).df()
    per = {b: rows[rows["build_id"] == b].drop_duplicates("node") for b in ids}
    order: dict[str, None] = {}
    for b in ids:  # the reference's nodes in layer order, then each other build's new ones
        part = per[b].sort_values(["layer_index", "node"], na_position="last", kind="stable")
        order.update(dict.fromkeys(part["node"]))
    out = pd.DataFrame({"node": list(order)})
    first = rows.drop_duplicates("node").set_index("node")
    out["kind"] = out["node"].map(first["kind"])
    out["module"] = out["node"].map(first["module"])
    groups: list[dict[str, frozenset[str]]] = []
    for b, name in zip(ids, names, strict=True):
        part = per[b].set_index("node")
        for column in _NODE_FIELDS:
            out[f"{name}_{column}"] = out["node"].map(part[column])
        groups.append(_mates(per[b]))
    out["builds"] = sum(out[f"{n}_layer"].notna().astype(int) for n in names)
    out["fusion"] = [_fusion(node, groups) for node in out["node"]]
    return out


_LAYER_COLUMNS = (
    "index, name, type, parameter_type, output_dtypes, output_dims, tactic, tactic_name, "
    "onnx_nodes, onnx_source, time_ms, precision"
)


def _engine_of(wh: Any, build: str) -> tuple[Engine, list[str | None]]:
    """The build's engine as the ``layers`` table keeps it, and each layer's ``precision``.

    The table keeps no tensor names: the alignment has no graph neighbours to use, only
    names, kinds of op and output shapes.
    """
    from trtlog.engine.model import Engine, EngineLayer, LayerTime
    from trtlog.tensors import Tensor, dtype_of

    rows = wh.execute(
        f"SELECT {_LAYER_COLUMNS} FROM layers WHERE build_id = ? ORDER BY index", [build]
    ).fetchall()
    layers = []
    precisions = []
    for index, name, kind, ptype, dtypes, dims, tactic, kernel, nodes, source, ms, prec in rows:
        precisions.append(prec)
        dtype = dtype_of(dtypes.split(",")[0]) if dtypes else None
        shape = _dims(dims)
        known = shape is not None or dtype is not None
        outputs = (Tensor(name="", dims=shape, dtype=dtype),) if known else ()
        layers.append(
            EngineLayer(
                index=index,
                name=name,
                type=kind,
                parameter_type=ptype,
                outputs=outputs,
                tactic=tactic,
                tactic_name=kernel,
                onnx_nodes=tuple(nodes or ()),
                onnx_source=source or "none",
                time=None if ms is None or ms != ms else LayerTime(average_ms=ms),
            )
        )
    detailed = any(layer.type is not None for layer in layers)
    engine = Engine(source=build, origin="layer_json", detailed=detailed, layers=tuple(layers))
    return engine, precisions


def _dims(text: str | None) -> tuple[int, ...] | None:
    try:
        return tuple(int(d) for d in text.split("x")) if text else None
    except ValueError:
        return None


def _by_layer(wh: Any, ids: list[str], names: list[str]) -> pd.DataFrame:
    import pandas as pd

    from trtlog.diff.align import compare_engines

    reference, ref_precisions = _engine_of(wh, ids[0])
    rows: list[dict[str, Any]] = [{"layer": x.name, "type": x.type} for x in reference.layers]
    for row, layer, precision in zip(rows, reference.layers, ref_precisions, strict=True):
        _put(row, names[0], layer, precision, "ref", 1.0, ())
    apart: dict[str, str] = {}
    for build, label in zip(ids[1:], names[1:], strict=True):
        other, precisions = _engine_of(wh, build)
        cmp = compare_engines(reference, other)
        if cmp.alignment_failed:  # another model, or nothing says it is one: no pairs
            apart[label] = cmp.alignment_reason or "alignment failed"
            for layer, precision in zip(other.layers, precisions, strict=True):
                row = {"layer": None, "type": layer.type}
                rows.append(row)
                _put(row, label, layer, precision, None, None, ())
            continue
        for s in cmp.steps:
            if s.index_b is None:
                continue
            layer = other.layers[s.index_b]
            if s.index_a is not None and f"{label}_layer" not in rows[s.index_a]:
                row = rows[s.index_a]
            else:  # one-sided in this build, or a second piece of a layer it split
                row = {"layer": None, "type": layer.type}
                rows.append(row)
            _put(row, label, layer, precisions[s.index_b], s.match, s.confidence, s.reasons)
    out = pd.DataFrame.from_records(rows)
    columns = ["layer", "type"]
    for label in names:
        columns += [f"{label}_{c}" for c in _LAYER_FIELDS]
    out = out.reindex(columns=columns)
    out["builds"] = sum(out[f"{n}_layer"].notna().astype(int) for n in names)
    out.attrs["not_comparable"] = apart
    return out


_LAYER_FIELDS = ("layer", "layer_index", "precision", "time_ms", "match", "confidence", "reasons")


def _put(
    row: dict[str, Any],
    label: str,
    layer: Any,
    precision: str | None,
    match: str | None,
    confidence: float | None,
    reasons: tuple[str, ...],
) -> None:
    row[f"{label}_layer"] = layer.name
    row[f"{label}_layer_index"] = layer.index
    row[f"{label}_precision"] = precision
    row[f"{label}_time_ms"] = layer.time.average_ms if layer.time is not None else None
    row[f"{label}_match"] = match
    row[f"{label}_confidence"] = confidence
    row[f"{label}_reasons"] = "; ".join(reasons) or None


def _mates(part: pd.DataFrame) -> dict[str, frozenset[str]]:
    """Node → the ONNX nodes (Q/DQ and weights aside) that share its layer in one build."""
    key = part["layer_index"].astype("string").fillna(part["layer"].astype("string"))
    main = part[part["kind"].fillna("node") == "node"]
    together: dict[str, set[str]] = {}
    for node, k in zip(main["node"], key[main.index], strict=True):
        if k is not None and k == k:
            together.setdefault(str(k), set()).add(node)
    out = {}
    for node, k in zip(part["node"], key, strict=True):
        if k is not None and k == k:
            out[node] = frozenset(together.get(str(k), set()) | {node})
    return out


def _fusion(node: str, groups: list[dict[str, frozenset[str]]]) -> str:
    if any(node not in g for g in groups):
        return "missing"
    ref = groups[0][node]
    others = [g[node] for g in groups[1:]]
    if all(o == ref for o in others):
        return "same"
    if all(o <= ref for o in others):
        return "split"
    if all(o >= ref for o in others):
        return "merged"
    return "regrouped"


def _cut(module: str | None, depth: int | None) -> str:
    if not module:
        return "/"
    if depth is None:
        return module
    parts = [p for p in module.split("/") if p]
    return "/" + "/".join(parts[:depth])


def _by_module(wh: Any, ids: list[str], names: list[str], depth: int | None) -> pd.DataFrame:
    import pandas as pd

    rows = wh.execute(
        "SELECT build_id, module, precision, time_ms FROM layers WHERE list_contains(?, build_id)",
        [ids],
    ).df()
    rows["module"] = [_cut(m if isinstance(m, str) else None, depth) for m in rows["module"]]
    modules = sorted(set(rows["module"]))
    out = pd.DataFrame({"module": modules})
    for b, name in zip(ids, names, strict=True):
        part = rows[rows["build_id"] == b]
        grouped = part.groupby("module")
        out[f"{name}_layers"] = out["module"].map(grouped.size()).astype("Int64")
        out[f"{name}_time_ms"] = out["module"].map(grouped["time_ms"].sum(min_count=1))
        mix = grouped["precision"].agg(_mix)
        out[f"{name}_precisions"] = out["module"].map(mix)
    return out


def _mix(values: pd.Series) -> str:
    counts = values.fillna("?").value_counts()
    return " ".join(f"{k}:{v}" for k, v in sorted(counts.items()))
