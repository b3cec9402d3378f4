"""Golden frames of the TensorRT 11 fixtures (``fixtures/golden/<fixture>/*.csv``).

For each input (a layer JSON with its profile, or a log's layer dump with its ``--dumpProfile``
table): ``layers.csv`` (:meth:`Engine.layers_frame`), ``tensors.csv``
(:meth:`Engine.tensors_frame`) and ``io_tensors.json`` (the 11.x ``I/O Tensors``, empty for a
10.x export). Regenerate with ``pytest --update-golden`` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import trtlog
from tests.conftest import FIXTURES
from trtlog.engine.model import Engine

GOLDEN = FIXTURES / "golden"
LI = FIXTURES / "layer_info"
LOGS = FIXTURES / "logs"

CASES: dict[str, tuple[Path, Path | None]] = {
    p.stem: (p, q)
    for p, q in [
        (
            LI / "trt10.16-like_smallnet-fp16_layers-detailed.json",
            LI / "trt10.16-like_smallnet-fp16.profile.json",
        ),
        (LI / "trt10.16-like_smallnet-fp16-autocast_layers-detailed.json", None),
        (
            LI / "trt11.5-like_smallnet-fp16-autocast_layers-detailed.json",
            LI / "trt11.5-like_smallnet-fp16-autocast.profile.json",
        ),
        (
            LI / "trt11.5-like_smallnet-fp16-autocast_layers-names.json",
            LI / "trt11.5-like_smallnet-fp16-autocast.profile.json",
        ),
        (
            LI / "trt11.5-like_smallnet-fp32_layers-detailed.json",
            LI / "trt11.5-like_smallnet-fp32.profile.json",
        ),
        (
            LI / "trt11.5-like_smallnet-qdq-int8_layers-detailed.json",
            LI / "trt11.5-like_smallnet-qdq-int8.profile.json",
        ),
        (LI / "torchtrt-like_smallnet_layer_information.json", None),
        (LOGS / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log", None),
        (LOGS / "trt11.5-like_smallnet-fp32_build-verbose-dumpLayerInfo.log", None),
    ]
}


def _engine(path: Path, profile: Path | None) -> Engine:
    if path.suffix == ".json":
        return trtlog.load_engine(path, profile=profile)
    build = trtlog.parse(path)
    engine = build.engine
    assert engine is not None
    table = build.dumped_profile()  # the log's --dumpProfile table
    return engine.with_profile(table) if table is not None else engine


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_frames(name: str, update_golden: bool) -> None:
    engine = _engine(*CASES[name])
    # every fixture reads completely: the only note is the names-only one
    assert all(n.startswith("names-only engine") for n in engine.notes)
    assert bool(engine.notes) == (not engine.detailed)
    texts = {
        "layers.csv": engine.layers_frame().to_csv(index=False, lineterminator="\n"),
        "tensors.csv": engine.tensors_frame().to_csv(index=False, lineterminator="\n"),
        "io_tensors.json": json.dumps(
            [t.model_dump(mode="json") for t in engine.io_tensors], indent=1, ensure_ascii=False
        )
        + "\n",
    }
    for file, text in texts.items():
        golden = GOLDEN / name / file
        if update_golden:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text, encoding="utf-8")
        assert text == golden.read_text(encoding="utf-8"), file
