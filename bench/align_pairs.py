"""Pairs matched and unmatched by ``trtlog.compare`` on the corpus's comparable exports.

Every pair of exports of one model at two precisions (or two exports of one model) in
``../shared/corpus``: layers on each side, pairs (rows with a layer on both sides), layers
left unmatched on each side, and the convolutions (``conv`` layers) of A that found a
convolution of B. Run it with a checkout first on ``PYTHONPATH`` to measure that checkout
(``docs/comparison.md`` keeps the figures of main before and after structural alignment)::

    PYTHONPATH=. python bench/align_pairs.py
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import trtlog

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

RESNET = "trt8.x_resnet-pytorch-{}-a100-trex_layers-detailed.json"
PAIRS = [
    (RESNET.format("fp16"), RESNET.format("qat-int8")),
    (RESNET.format("fp16"), RESNET.format("qat-residual-int8")),
    (RESNET.format("fp16"), RESNET.format("qat-residual-qgap-int8")),
    (RESNET.format("qat-int8"), RESNET.format("qat-residual-int8")),
    (RESNET.format("qat-residual-int8"), RESNET.format("qat-residual-qgap-int8")),
    (
        "trt10.4_mobilenetv2-fp16-rtx3060_layers-detailed.json",
        "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json",
    ),
    (
        "trt10.4_mobilenetv2-fp16-rtx3060_layers-detailed.json",
        "trt10.x_mobilenetv2-torch-tensorrt-fp16-jetson_layers-detailed-inspector.json",
    ),
    (
        "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
        "trt10.x_resnet18-torch-tensorrt_layers-detailed-inspector-indented.json",
    ),
    (
        "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
        "seeds/trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json",
    ),
    (
        "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
        "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log",
    ),
    (
        "trt8.6.1_resnet50-int8_layers-detailed.json",
        "trt8.x_resnet50-tensorflow-qat-int8-rtx3090-trex_layers-detailed.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
    ),
    (
        "trt8.4.1_cookbook-mnist-cnn-fp16_build-verbose.log",
        "trt8.6.0_cookbook-mnist-cnn-fp16_build-verbose.log",
    ),
]

_CONV = ("Convolution", "ConvActPool")


def _is_conv(t: str | None) -> bool:
    return bool(t) and any(c in str(t) for c in _CONV)


def main() -> None:
    """Print one markdown row per pair."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=len(PAIRS), help="the first N pairs only")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print("| A | B | layers A/B | pairs | only A | only B | convs of A paired | s |")
    print("|---|---|---|---|---|---|---|---|")
    if not CORPUS.is_dir():
        print("(no corpus at ../shared/corpus: nothing measured)")
        return
    for a, b in PAIRS[: args.pairs]:
        start = time.perf_counter()
        try:
            cmp = trtlog.compare(CORPUS / a, CORPUS / b)
        except trtlog.InputError as e:
            print(f"| {a} | {b} | error: {e} |")
            continue
        took = time.perf_counter() - start
        m = cmp.markers()
        pairs = m["="] + m["~"]
        convs = [v.index for v in cmp.layers_a if _is_conv(v.type)]
        paired = {
            s.index_a
            for s in cmp.steps
            if s.index_a is not None
            and s.index_b is not None
            and _is_conv(cmp.layers_b[s.index_b].type)
        }
        conv = f"{sum(1 for i in convs if i in paired)}/{len(convs)}" if convs else "-"
        print(
            f"| {a.split('_')[1]} | {b.split('_')[-2] if a.split('_')[1] == b.split('_')[1] else b.split('_')[1]} "
            f"| {len(cmp.layers_a)}/{len(cmp.layers_b)} | {pairs} | {m['-']} | {m['+']} | {conv} "
            f"| {took:.2f} |"
        )


if __name__ == "__main__":
    main()
