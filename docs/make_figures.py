"""Draw the README's figures into docs/figures/ (one PNG per plot kind).

Uses the real logs of ../shared/corpus when they are next to the project (richer tactic, memory
and module data), else the bundled fixtures. Run from the project root:

    .venv/bin/python docs/make_figures.py
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import trtlog

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"
OUT = ROOT / "docs" / "figures"


def _pick(corpus_name: str, fixture: Path) -> Path:
    path = CORPUS / corpus_name
    return path if path.exists() else fixture


def main() -> int:
    """Draw every figure; return the exit code."""
    warnings.simplefilter("ignore")
    OUT.mkdir(parents=True, exist_ok=True)
    yolo = trtlog.parse(FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log")
    qat = trtlog.parse(
        _pick("trt8.5.10_resnet18-qat-qdq-best_build-verbose.log", Path(yolo.source.name))
    )
    layers = _pick(
        "trt8.6_controlnet-fp16_layers-detailed.json",
        FIXTURES / "layer_info" / "trt10.x_resnet18-v1-7-fp16-int8-sparse_layers-detailed.json",
    )
    profile = _pick(
        "trt8.6_controlnet-fp16_profile.json",
        FIXTURES / "layer_info" / "resnet18_synthetic.profile.json",
    )
    engine = trtlog.load_engine(layers, profile=profile)
    tiny = FIXTURES / "logs"
    comparison = trtlog.compare(
        tiny / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log",
        tiny / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
        profile_a=FIXTURES / "layer_info" / "trt8.6.1_tinynet-fp16.profile.json",
        profile_b=FIXTURES / "layer_info" / "trt8.6.1_tinynet-qdq-int8.profile.json",
    )
    figures: dict[str, Callable[[], object]] = {
        "layer-counts": lambda: trtlog.plot_layer_counts(yolo.layer_counts_frame()),
        "fusions": lambda: trtlog.plot_fusions_by_pass(yolo.passes_frame()),
        "tactics": lambda: trtlog.plot_tactic_timing(qat.tactics_frame(), max_layers=20),
        "slowest-tactics": lambda: trtlog.plot_slowest_tactics(qat.tactics_frame(), top=12),
        "memory": lambda: trtlog.plot_memory_by_stage(qat.memory_frame()),
        "time-by-type": lambda: trtlog.plot_time_by(engine.layers_frame(), by="type", top=12),
        "time-by-precision": lambda: trtlog.plot_time_by(engine.layers_frame(), by="precision"),
        "modules": lambda: trtlog.plot_module_time(engine.modules_frame(), top=12),
        "diff": lambda: trtlog.plot_diff(comparison.frame(), by="type"),
    }
    for name, draw in figures.items():
        ax = draw()
        figure = ax.get_figure()  # type: ignore[attr-defined]
        figure.savefig(OUT / f"{name}.png", dpi=80)
        plt.close(figure)
        print("wrote", OUT / f"{name}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
