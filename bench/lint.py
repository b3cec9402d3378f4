"""All findings rules over a big verbose log plus a big engine, against the parse time (issue 6).

Generates, with the generators of ``bench/parse_throughput.py`` and ``bench/engine_load.py``:
a ``trtexec --verbose`` log of at least ``--mb`` megabytes (default 50: ONNX parser lines,
optimizer passes, autotuning, memory, a layer dump and a profile table) and a detailed
``--exportLayerInfo`` file of ``--layers`` layers (default 20,000: fused INT8 convolutions,
reformats, point-wise layers, Myelin regions) with its ``--exportProfile``; every other
reformat of the engine becomes a standalone DQ, so that the Q/DQ rules run over all layers too.
Then, in the same process, best of ``--repeat`` runs of:

(a) ``trtlog.parse`` of the log;
(b) ``trtlog.lint`` of that build with the layer JSON's engine and its profile (every rule,
    loaded once beforehand: loading is ``bench/engine_load.py``'s subject);
(c) ``trtlog.lint`` of the build alone (the log's own layer dump and profile table), for
    reference.

It prints the times and the ratio (b)/(a). Target (issue 6): (b) under 25% of (a). CPU time of
this process is measured (``time.process_time``), because the machine is shared.

Usage: python bench/lint.py [--mb 50] [--layers 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_load import generate as generate_engine
from parse_throughput import generate as generate_log

import trtlog


def with_quantizers(value: dict[str, Any], profile: list[dict[str, Any]]) -> int:
    """Turn every other reformat of the generated engine into a standalone DQ (in place).

    The engine then has Q/DQ nodes, so every Q/DQ rule runs over all its layers (the worst
    case); the profile records are renamed with their layers. Returns how many were changed.
    """
    changed = 0
    records = {r["name"]: r for r in profile[1:]}
    for i, layer in enumerate(value["Layers"]):
        if layer["LayerType"] != "Reformat" or i % 8 != 1:
            continue
        target = layer["Name"].rsplit(" to ", 1)[1]
        name = target.rsplit("/", 2)[0] + "/add_quantizer/DequantizeLinear"
        records[layer["Name"]]["name"] = name
        layer["Name"] = name
        layer["Origin"] = "QDQ"
        layer["Metadata"] = f"[ONNX Layer: {name}]"
        changed += 1
    return changed


def timed(repeat: int, run: Callable[[], object]) -> list[float]:
    """The CPU seconds of this process of ``repeat`` runs, sorted."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return sorted(times)


def spread(times: list[float]) -> str:
    """``min/median/max`` of sorted times."""
    return f"{times[0]:.3f} / {statistics.median(times):.3f} / {times[-1]:.3f} s CPU"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--layers", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="trtlog-bench-lint-"))
    log = folder / "build.log"
    layers_path = folder / "model.layers.json"
    profile_path = folder / "model.profile.json"
    generate_log(log, args.mb)
    value, profile = generate_engine(args.layers)
    quantizers = with_quantizers(value, profile)
    layers_path.write_text(json.dumps(value, indent=4), encoding="utf-8")
    profile_path.write_text(json.dumps(profile, indent=4), encoding="utf-8")

    build = trtlog.parse(log)
    engine = trtlog.load_engine(layers_path, profile=profile_path)
    found = trtlog.lint(build, engine)
    by_rule = Counter(f.rule for f in found)
    print(
        f"log: {log.stat().st_size / 1e6:.1f} MB, {len(build.lines)} lines, "
        f"{len(build.events)} events; engine: {len(engine.layers)} layers "
        f"({layers_path.stat().st_size / 1e6:.1f} MB, {quantizers} of them standalone DQ "
        "layers) with a profile"
    )
    print(f"findings: {len(found)} ({', '.join(f'{n} {r}' for r, n in by_rule.most_common())})")

    parse = timed(args.repeat, lambda: trtlog.parse(log))
    lint = timed(args.repeat, lambda: trtlog.lint(build, engine))
    alone = timed(args.repeat, lambda: trtlog.lint(build))
    print("min / median / max of", args.repeat, "runs")
    print(f"(a) parse of the log:                       {spread(parse)}")
    print(f"(b) all rules, log + {args.layers:,}-layer engine: {spread(lint)}")
    print(f"(c) all rules, log alone (its layer dump):  {spread(alone)}")
    ratios = [100 * b / a for a, b in zip(parse, lint, strict=True)]
    print(
        f"ratio (b)/(a), min-to-min / median-to-median / max-to-max: "
        f"{ratios[0]:.1f}% / {100 * statistics.median(lint) / statistics.median(parse):.1f}% / "
        f"{ratios[-1]:.1f}%  (target < 25%)"
    )
    for path in (log, layers_path, profile_path):
        path.unlink()
    folder.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
