"""A layered (Sugiyama-style) layout of a directed graph, in plain Python.

Part of the graph package, with no dependency: :mod:`trtlog.graph.engine_graph` lays out an
engine's layer graph with it for ``trtlog graph --engine -o x.svg`` and for the report's
engine graph, whose page draws the coordinates it gives (the browser lays out only the
small neighbourhoods of engines too big to draw whole).

The steps are the classic four, each kept linear or near it so that an engine of thousands
of layers lays out in a fraction of a second:

1. cycles: an edge against the given order (the engine's execution order) is reversed;
2. ranks: longest path from the sources, then each source moved down to just above its
   first consumer (a constant or a weight feeds the layer that reads it, not row 0);
3. order: dummy nodes on edges that span ranks (up to a budget: the longest edges past it
   are drawn straight), then barycentre sweeps down and up;
4. coordinates: each rank packed left to right, nodes pulled towards the mean of their
   neighbours' positions in alternating sweeps, never closer than their widths allow.

Example:
    >>> placed = layered_layout([40.0, 40.0, 40.0], [(0, 1), (0, 2)])
    >>> [round(y) for _x, y in placed.nodes]
    [0, 60, 60]
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple

__all__ = ["Layout", "layered_layout"]

#: Vertical distance between two ranks' centres (node height included).
RANK_STEP = 60.0
#: Horizontal gap between two neighbours of a rank.
GAP = 16.0
#: Width reserved for an edge's bend point.
DUMMY_WIDTH = 8.0
#: Barycentre sweeps (each one down and one up).
SWEEPS = 4
#: Dummy nodes allowed per real node: past it the longest edges are drawn straight.
DUMMY_BUDGET = 8


class Layout(NamedTuple):
    """Where each node's centre is and the points each edge passes through.

    Attributes:
        nodes: ``(x, y)`` of each node's centre, in the order given.
        edges: for each edge, in the order given, the points from its source's centre to
            its target's, bends included.
        width: the drawing's width (from 0).
        height: the drawing's height (from 0).
        ranks: each node's rank (row), 0 at the top.
    """

    nodes: list[tuple[float, float]]
    edges: list[list[tuple[float, float]]]
    width: float
    height: float
    ranks: list[int]


def layered_layout(
    widths: Sequence[float], edges: Sequence[tuple[int, int]], rank_step: float = RANK_STEP
) -> Layout:
    """Lay out ``len(widths)`` nodes (their widths given) joined by ``edges`` (pairs of positions).

    The nodes' order is taken as a topological order where the graph has one (an engine's
    execution order): an edge from a later node to an earlier one is laid out reversed.
    Self-loops are ignored.
    """
    n = len(widths)
    pairs = [(a, b) if a < b else (b, a) for a, b in edges if a != b]
    rank = _ranks(n, pairs)
    # the rows, with dummies on the edges that span ranks
    width = list(widths)
    rank_of = list(rank)
    succ: list[list[int]] = [[] for _ in range(n)]
    chains: list[list[int]] = []
    budget = DUMMY_BUDGET * max(n, 1)
    spans = sorted(range(len(pairs)), key=lambda k: rank[pairs[k][1]] - rank[pairs[k][0]])
    for k in spans:
        a, b = pairs[k]
        chain = [a]
        span = rank[b] - rank[a]
        if 1 < span <= budget:
            budget -= span - 1
            for r in range(rank[a] + 1, rank[b]):
                width.append(DUMMY_WIDTH)
                rank_of.append(r)
                succ.append([])
                chain.append(len(width) - 1)
        chain.append(b)
        for u, v in pairwise(chain):
            if rank_of[v] == rank_of[u] + 1:
                succ[u].append(v)
        chains.append(chain)
    total = len(width)
    pred: list[list[int]] = [[] for _ in range(total)]
    for u in range(total):
        for v in succ[u]:
            pred[v].append(u)
    rows = _order(total, rank_of, succ, pred)
    xs = _coordinates(rows, width, succ, pred)
    ys = [r * rank_step for r in rank_of]
    points = [(xs[i], ys[i]) for i in range(total)]
    by_pair: list[list[tuple[float, float]]] = [[] for _ in pairs]
    for k, chain in zip(spans, chains, strict=True):
        by_pair[k] = [points[i] for i in chain]
    # each edge in the order given, from its own source (a reversed edge's points reversed)
    out_edges: list[list[tuple[float, float]]] = []
    k = 0
    for a, b in edges:
        if a == b:
            out_edges.append([points[a], points[b]])
            continue
        path = by_pair[k]
        out_edges.append(path if a < b else path[::-1])
        k += 1
    right = max((xs[i] + width[i] / 2 for i in range(total)), default=0.0)
    bottom = max(ys, default=0.0)
    return Layout(points[:n], out_edges, right, bottom, rank)


def _ranks(n: int, pairs: list[tuple[int, int]]) -> list[int]:
    """Longest-path ranks in the given order, sources moved down to their first consumer."""
    preds: list[list[int]] = [[] for _ in range(n)]
    succs: list[list[int]] = [[] for _ in range(n)]
    for a, b in pairs:
        preds[b].append(a)
        succs[a].append(b)
    rank = [0] * n
    for v in range(n):  # every edge goes forward: one pass in order is a topological pass
        if preds[v]:
            rank[v] = max(rank[u] for u in preds[v]) + 1
    for v in range(n - 1, -1, -1):
        if not preds[v] and succs[v]:
            rank[v] = min(rank[w] for w in succs[v]) - 1
    return rank


def _order(
    total: int, rank_of: list[int], succ: list[list[int]], pred: list[list[int]]
) -> list[list[int]]:
    """Each rank's nodes left to right, after barycentre sweeps (first met order to start)."""
    depth = max(rank_of, default=-1) + 1
    rows: list[list[int]] = [[] for _ in range(depth)]
    # start from a depth-first order from the sources (children near their parent)
    seen = [False] * total
    for start in range(total):
        if seen[start] or pred[start]:
            continue
        stack = [start]
        while stack:
            v = stack.pop()
            if seen[v]:
                continue
            seen[v] = True
            rows[rank_of[v]].append(v)
            stack.extend(reversed(succ[v]))
    for v in range(total):
        if not seen[v]:
            rows[rank_of[v]].append(v)
    pos = [0.0] * total
    for row in rows:
        for i, v in enumerate(row):
            pos[v] = float(i)
    for _ in range(SWEEPS):
        for sweep in (range(1, depth), range(depth - 2, -1, -1)):
            for r in sweep:
                near = pred if sweep.step == 1 else succ
                row = rows[r]
                keys = {}
                for i, v in enumerate(row):
                    others = near[v]
                    keys[v] = sum(pos[u] for u in others) / len(others) if others else float(i)
                row.sort(key=keys.__getitem__)
                for i, v in enumerate(row):
                    pos[v] = float(i)
    return rows


def _coordinates(
    rows: list[list[int]], width: list[float], succ: list[list[int]], pred: list[list[int]]
) -> list[float]:
    """The x of each node's centre: rows packed, then pulled towards their neighbours."""
    x = [0.0] * len(width)
    for row in rows:
        at = 0.0
        for v in row:
            x[v] = at + width[v] / 2
            at += width[v] + GAP
    depth = len(rows)
    for _ in range(SWEEPS):
        for sweep, near in ((range(1, depth), pred), (range(depth - 2, -1, -1), succ)):
            for r in sweep:
                _place_row(rows[r], x, width, near)
    low = min((x[v] - width[v] / 2 for row in rows for v in row), default=0.0)
    return [v - low for v in x]


def _place_row(row: list[int], x: list[float], width: list[float], near: list[list[int]]) -> None:
    """Move a row's nodes towards the mean x of their neighbours, keeping order and gaps.

    Each node wants the mean of its neighbours (or stays); the wanted positions are then
    made feasible from the left, and from the right, and the two averaged (the balanced
    placement of a one-dimensional packing).
    """
    if not row:
        return
    want = []
    for v in row:
        others = near[v]
        want.append(sum(x[u] for u in others) / len(others) if others else x[v])
    left = list(want)
    for i in range(1, len(row)):
        least = left[i - 1] + (width[row[i - 1]] + width[row[i]]) / 2 + GAP
        left[i] = max(left[i], least)
    right = list(want)
    for i in range(len(row) - 2, -1, -1):
        most = right[i + 1] - (width[row[i + 1]] + width[row[i]]) / 2 - GAP
        right[i] = min(right[i], most)
    placed = [(a + b) / 2 for a, b in zip(left, right, strict=True)]
    # the average of two feasible packings is feasible: each gap is at least the least one
    for v, value in zip(row, placed, strict=True):
        x[v] = value
