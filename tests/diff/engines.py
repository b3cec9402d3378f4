"""Synthetic engines and known edits of them, for the alignment tests and bench/compare.py.

An engine is a chain of blocks (fused convolutions, residual convolutions, pooling,
pointwise layers) whose ONNX nodes come from ``Metadata``. :func:`edit` applies the changes
quantization and TensorRT versions make (precision, a fused layer split in two, a Q/DQ
reformat inserted, layers dropped or added, a clone renamed, two layers swapped) and returns
the layer pairs a correct alignment must find.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from trtlog.engine.model import Engine, EngineLayer
from trtlog.tensors import DType, Tensor

Edit = Literal["keep", "drop", "precision", "split", "clone", "swap", "qdq", "insert"]
EDITS: tuple[Edit, ...] = ("keep", "drop", "precision", "split", "clone", "swap", "qdq", "insert")


@dataclass
class Block:
    """One layer of a synthetic engine before it is numbered."""

    nodes: tuple[str, ...]
    type: str = "CaskConvolution"
    dtype: DType = "FP16"
    tactic: int = 1
    name: str | None = None
    origin: int | None = None  # the A layer it comes from (None: only in B)
    tags: tuple[str, ...] = ()

    def layer(self, index: int) -> EngineLayer:
        dims = (1, 64, 56, 56)
        qdq = self.type == "Reformat"
        return EngineLayer(
            index=index,
            name=self.name or " + ".join(self.nodes),
            type=self.type,
            inputs=(Tensor(name=f"in{index}", dtype="FP16" if qdq else self.dtype, dims=dims),),
            outputs=(Tensor(name=f"out{index}", dtype=self.dtype, dims=dims, layout="linear"),),
            tactic=self.tactic,
            onnx_nodes=self.nodes,
            onnx_source="metadata",
        )


def blocks(n: int, seed: int = 0) -> list[Block]:
    """``n`` layers of a made-up network (unique node names, metadata on every layer)."""
    rng = random.Random(seed)
    out: list[Block] = []
    for k in range(n):
        m = f"/model/stage{k // 50}/block{k}"
        kind = rng.random()
        nodes: tuple[str, ...]
        if kind < 0.5:
            out.append(Block((f"{m}/conv/Conv", f"{m}/act/Relu"), tactic=rng.getrandbits(63)))
        elif kind < 0.75:
            nodes = (f"{m}/conv/Conv", f"{m}/Add", f"{m}/act/Relu")
            out.append(Block(nodes, tactic=rng.getrandbits(63)))
        elif kind < 0.9:
            out.append(Block((f"{m}/pool/MaxPool",), type="CaskPooling", tactic=7))
        else:
            nodes = (f"{m}/Mul", f"{m}/Sigmoid")
            out.append(Block(nodes, type="PointWiseV2", name=f"PWN({m}/Mul, {m}/Sigmoid)"))
    return out


def engine(layers: list[Block], source: str = "synthetic") -> Engine:
    """An engine of these blocks, numbered in order."""
    return Engine(
        source=source,
        origin="layer_json",
        detailed=True,
        layers=tuple(b.layer(i) for i, b in enumerate(layers)),
    )


@dataclass
class Edited:
    """An edited copy of a block list and what a correct alignment finds."""

    blocks: list[Block] = field(default_factory=list)
    pairs: set[tuple[int, int]] = field(default_factory=set)
    only_a: set[int] = field(default_factory=set)
    only_b: set[int] = field(default_factory=set)
    reasons: dict[tuple[int, int], str] = field(default_factory=dict)


def edit(source: list[Block], edits: list[Edit], seed: int = 0) -> Edited:
    """Apply ``edits[i]`` to layer ``i`` (a swap exchanges it with the next kept layer)."""
    rng = random.Random(seed)
    out: list[Block] = []
    pending_swap: Block | None = None
    drops: set[int] = set()
    for i, (b, what) in enumerate(zip(source, edits, strict=True)):
        new: list[Block] = []
        if what == "drop":
            drops.add(i)
        elif what == "precision" and b.type == "CaskConvolution":
            new.append(Block(b.nodes, b.type, "INT8", b.tactic + 1, b.name, i, ("precision",)))
        elif what == "split" and len(b.nodes) >= 2:
            new.append(Block(b.nodes[:1], b.type, b.dtype, b.tactic, None, i, ("split",)))
            new.append(Block(b.nodes[1:], "PointWiseV2", b.dtype, 3, None, i, ("split",)))
        elif what == "clone":
            nodes = (f"{b.nodes[0]}_clone_{rng.randint(0, 3)}", *b.nodes[1:])
            name = b.name.replace(b.nodes[0], nodes[0]) if b.name else None
            new.append(Block(nodes, b.type, b.dtype, b.tactic, name, i, ("renamed",)))
        elif what == "qdq":
            q = f"{b.nodes[0].rsplit('/', 1)[0]}/_input_quantizer/QuantizeLinear"
            new.append(Block((q,), "Reformat", "INT8", 1002))
            new.append(Block(b.nodes, b.type, b.dtype, b.tactic, b.name, i))
        elif what == "insert":
            new.append(Block(b.nodes, b.type, b.dtype, b.tactic, b.name, i))
            new.append(Block((f"/inserted/after{i}/Identity",), "NoOp", tactic=0))
        else:
            new.append(Block(b.nodes, b.type, b.dtype, b.tactic, b.name, i))
        if what == "swap" and pending_swap is None and len(new) == 1:
            pending_swap = new[0]
            continue
        out.extend(new)
        if pending_swap is not None and new:
            out.append(pending_swap)
            pending_swap = None
    if pending_swap is not None:
        out.append(pending_swap)
    result = Edited(blocks=out, only_a=drops)
    for j, b in enumerate(out):
        if b.origin is None:
            result.only_b.add(j)
        else:
            result.pairs.add((b.origin, j))
            for tag in b.tags:
                result.reasons[(b.origin, j)] = tag
    return result


def random_edits(n: int, rates: dict[Edit, float], seed: int = 0) -> list[Edit]:
    """One edit per layer, drawn with these rates (the rest ``keep``)."""
    rng = random.Random(seed)
    out: list[Edit] = []
    for _ in range(n):
        r = rng.random()
        chosen: Edit = "keep"
        for what, rate in rates.items():
            if r < rate:
                chosen = what
                break
            r -= rate
        out.append(chosen)
    return out
