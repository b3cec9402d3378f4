"""Pairs matched and unmatched by ``trtlog.compare``, and its same-model judgment, on the corpus.

Every pair of exports of one model at two precisions (or two exports of one model) in
``../shared/corpus``: layers on each side, pairs (rows with a layer on both sides), layers
left unmatched on each side, and the convolutions (``conv`` layers) of A that found a
convolution of B. Then pairs of two different models that structure pairs well, with the
judgment (``Comparison.same_model``) and whether the pair compares (not
``alignment_failed``). Last, the pair accuracy over every pair of the corpus's 45 engines
(``tests/diff/corpus_models.toml`` names the model of each): same-model pairs that compare,
different-model pairs that do not. Run it with a checkout first on ``PYTHONPATH`` to measure
that checkout (``docs/comparison.md`` keeps the figures)::

    PYTHONPATH=. python bench/align_pairs.py
"""

from __future__ import annotations

import argparse
import itertools
import time
import tomllib
import warnings
from pathlib import Path

import trtlog
from trtlog.diff import compare_engines
from trtlog.inputs import open_input

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
MODELS = ROOT / "tests" / "diff" / "corpus_models.toml"

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

#: different models whose layers structure pairs well (the smaller side's computing layers)
DIFFERENT = [
    (
        "trt8.6_controlnet-fp16_layers-detailed.json",
        "trt8.5.10_resnet18-qat-qdq-best_build-verbose.log",
    ),
    (
        "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
        "trt8.x_mobilenet-qat-int8-trex010_layers-detailed.json",
    ),
    (
        "trt10.4_mobilenetv2-fp16-rtx3060_layers-detailed.json",
        "trt8.x_resnet50-tensorflow-qat-int8-rtx3090-trex_layers-detailed.json",
    ),
    (
        "trt8.2.3_centerpoint-rpn-centerhead-fp16_build-verbose.log",
        "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json",
    ),
    (
        "trt-unknown_bev-as-model-fp16_layers-detailed-prettyprinted.json",
        "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
    ),
    (
        "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json",
        "trt8.6.1_resnet50-int8_layers-detailed.json",
    ),
    (
        "trt10.x_vgg16-torch-tensorrt-fp16_layers-detailed-inspector-indented.json",
        "trt10.x_resnet18-torch-tensorrt_layers-detailed-inspector-indented.json",
    ),
    (
        "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json",
        "trt8.5.10_mnist-best_build-verbose.log",
    ),
]

_CONV = ("Convolution", "ConvActPool")


def _is_conv(t: str | None) -> bool:
    return bool(t) and any(c in str(t) for c in _CONV)


def _verdict(cmp: trtlog.Comparison) -> str:
    compares = "not comparable" if cmp.alignment_failed else "compares"
    if not hasattr(cmp, "same_model"):  # a checkout without the judgment (the "before")
        return compares
    same = {True: "one model", False: "two models", None: "not told"}[cmp.same_model]
    return f"{same}; {compares}"


def _rows(pairs: list[tuple[str, str]]) -> None:
    print("| A | B | layers A/B | pairs | only A | only B | convs of A paired | verdict | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for a, b in pairs:
        start = time.perf_counter()
        try:
            cmp = trtlog.compare(CORPUS / a, CORPUS / b)
        except trtlog.InputError as e:
            print(f"| {a} | {b} | error: {e} |")
            continue
        took = time.perf_counter() - start
        m = cmp.markers()
        pairs_ = m["="] + m["~"]
        convs = [v.index for v in cmp.layers_a if _is_conv(v.type)]
        paired = {
            s.index_a
            for s in cmp.steps
            if s.index_a is not None
            and s.index_b is not None
            and _is_conv(cmp.layers_b[s.index_b].type)
        }
        conv = f"{sum(1 for i in convs if i in paired)}/{len(convs)}" if convs else "-"
        name_a, name_b = a.split("_")[1], b.split("_")[1]
        if name_a == name_b:
            name_b = b.split("_")[-2]
        print(
            f"| {name_a} | {name_b} | {len(cmp.layers_a)}/{len(cmp.layers_b)} | {pairs_} "
            f"| {m['-']} | {m['+']} | {conv} | {_verdict(cmp)} | {took:.2f} |"
        )


def _accuracy() -> None:
    """Every pair of the corpus's engines: same-model pairs that compare, others that do not."""
    models: dict[str, str] = tomllib.loads(MODELS.read_text(encoding="utf-8"))
    engines = {}
    for name in models:
        opened = open_input(CORPUS / name, want=("log", "layers"))
        engines[name] = opened.build.engine if opened.build is not None else opened.engine
    counts = {"same": [0, 0], "different": [0, 0]}
    start = time.perf_counter()
    for a, b in itertools.combinations(sorted(engines), 2):
        ea, eb = engines[a], engines[b]
        if ea is None or eb is None:
            continue
        cmp = compare_engines(ea, eb)
        kind = "same" if models[a] == models[b] else "different"
        counts[kind][1] += 1
        counts[kind][0] += int(cmp.alignment_failed == (kind == "different"))
    took = time.perf_counter() - start
    (same, n_same), (other, n_other) = counts["same"], counts["different"]
    print(
        f"\n{len(engines)} engines, {n_same + n_other} pairs ({took:.1f} s): same-model pairs "
        f"that compare {same}/{n_same}; different-model pairs judged not comparable "
        f"{other}/{n_other}; pair accuracy {100 * (same + other) / (n_same + n_other):.1f}%"
    )


def main() -> None:
    """Print one markdown row per pair, then the accuracy over every pair of the corpus."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pairs",
        type=int,
        default=None,
        help="the first N pairs of each table only, without the accuracy over every pair",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if not CORPUS.is_dir():
        print("(no corpus at ../shared/corpus: nothing measured)")
        return
    print("Same model\n")
    _rows(PAIRS[: args.pairs])
    print("\nDifferent models\n")
    _rows(DIFFERENT[: args.pairs])
    if args.pairs is None:
        _accuracy()


if __name__ == "__main__":
    main()
