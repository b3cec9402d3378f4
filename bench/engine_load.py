"""Engine load time: the real corpus's layer JSONs, and a generated one of 20,000 layers.

**The real corpus** (``--corpus [DIR]``, default ``../shared/corpus``), with ``--compare TREE``
to time another checkout of trtlog in turn with this one:

- a fresh process, ``python -c "import trtlog; e = trtlog.load_engine(F, profile=P);
  e.layers_frame()"`` against ``python -c "import json, pandas;
  pandas.DataFrame(json.load(open(F))['Layers'])"`` on the same file, for the exports in
  :data:`FRESH`: median wall time and peak RSS of ``--repeat`` rounds, each command once per
  round, in turn; target: both ratios at most 1.3. It also prints which of the log's modules
  (parser, grammars, Lark, comparison) the command imports: none.
- every engine task a user runs on a layer JSON, from the file on (load included): the layers
  frame, lint, the tensors and modules frames, the Myelin groups, and a comparison of two
  builds of one model, for every layer JSON of the corpus with its profile. Each tree's tasks
  run in a child process of their own (the best of several runs of each), ``--repeat``
  children per tree in turn, and the medians are compared: target, no task of this tree more
  than 10% slower than the other's.

**The generated engine** (the default): a ``--exportLayerInfo`` file
(``--profilingVerbosity=detailed``, TRT 10 shape: ``{"Layers": [...], "Bindings": [...]}``,
pretty-printed as trtexec writes it) of ``--layers`` layers (default 20,000) cycling through
fused convolutions with ``Metadata``, reformats, pointwise and Myelin layers, plus an
``--exportProfile`` file with one record per layer and the ``{"count": N}`` header. The same
engine is also written in the TensorRT 11 shape: every tensor with ``Datatype`` + ``Format``
and ``Strides``/``StrideOrder`` instead of ``Format/Datatype``, ``I/O Tensors`` objects
instead of ``Bindings``, and the new top-level keys. Then, in the same process, ``--repeat``
rounds of (interleaved, so load on a shared machine moves them alike):

(a) ``trtlog.load_engine(layers, profile=profile).layers_frame()`` with orjson (the
    ``trtlog[fast]`` extra) when it is installed, and with the standard library's json
    (``trtlog.exports.jsonio.USE_ORJSON = False``);
(b) the baseline: ``json.load`` of the layer file plus ``pandas.DataFrame(records)``;
(c) (a) for the same model in the TensorRT 11 shape, without and with strides.

It prints min/median/max of the times and of each round's ratio to the baseline of the same
round, and of loading the 11.x shape against the 10.x one.

Each round writes a new model whose layer names no earlier round used, so every timed load is
a first load: trtlog's name caches cannot help it. The baseline runs as a user would run it,
with Python's garbage collector on; trtlog pauses the collector while it builds an engine
(:func:`trtlog._pydantic.gc_paused`), so the baseline with the collector paused, one that also
reads the profile and the floor (see :func:`floor`) are printed for reference.

Usage: python bench/engine_load.py [--layers 20000] [--repeat 5] [--keep DIR]
       python bench/engine_load.py --corpus [DIR] [--compare TREE] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd

import trtlog
from trtlog._pydantic import assemble
from trtlog.engine.model import EngineLayer, ProfileRecord
from trtlog.engine.profile import record_time
from trtlog.exports import jsonio
from trtlog.exports.read import read_json_file
from trtlog.frames.schema import SCHEMAS, frame_from_columns
from trtlog.tensors import Tensor

INT8_CHW32 = "Thirty-two wide channel vectorized row major Int8 format"
HALF = "Row major linear FP16 format"
KERNEL = "sm80_xmma_fprop_implicit_gemm_interleaved_i8i8_i8i32_f32_nchw_vect_c_32kcrs_vect_c_32"


# the TensorRT 11 split of each format: Datatype word and Format text
_SPLIT = {
    INT8_CHW32: ("Int8", "Thirty-two wide channel vectorized row major Int8 format (kCHW32)"),
    HALF: ("Half", "Row major linear FP16 format (kLINEAR)"),
}
SHAPE = {"shape": 10, "strides": 1}  # what the generators write (set by generate())


def _tensor(name: str, dims: list[int], fmt: str) -> dict[str, Any]:
    if SHAPE["shape"] == 10:
        return {"Name": name, "Location": "Device", "Dimensions": dims, "Format/Datatype": fmt}
    datatype, text = _SPLIT[fmt]
    obj: dict[str, Any] = {
        "Name": name,
        "Location": "Device",
        "Dimensions": dims,
        "Datatype": datatype,
        "Format": text,
    }
    if SHAPE["strides"]:
        strides = [1] * len(dims)
        for i in range(len(dims) - 2, -1, -1):
            strides[i] = strides[i + 1] * dims[i + 1]
        obj["Strides"] = strides
        obj["StrideOrder"] = list(range(len(dims)))
    return obj


def _metadata(*nodes: str) -> str:
    return "\x1e".join(f"[ONNX Layer: {n}]" for n in nodes)


def _conv(i: int, prefix: str, previous: str) -> dict[str, Any]:
    nodes = [f"{prefix}/conv/Conv", f"{prefix}/bn/BatchNormalization", f"{prefix}/act/Relu"]
    return {
        "Name": " + ".join(nodes),
        "LayerType": "CaskConvolution",
        "Inputs": [_tensor(previous, [1, 64, 56, 56], INT8_CHW32)],
        "Outputs": [_tensor(f"{prefix}/act/Relu_output_0", [1, 64, 56, 56], INT8_CHW32)],
        "ParameterType": "Convolution",
        "Kernel": [3, 3],
        "PaddingMode": "kEXPLICIT_ROUND_DOWN",
        "PrePadding": [1, 1],
        "PostPadding": [1, 1],
        "Stride": [1, 1],
        "Dilation": [1, 1],
        "OutMaps": 64,
        "Groups": 1,
        "Weights": {"Type": "Int8", "Count": 36864},
        "Bias": {"Type": "Float", "Count": 64},
        "HasBias": 1,
        "HasReLU": 1,
        "HasSparseWeights": i % 2,
        "Activation": "RELU",
        "TacticName": f"{KERNEL}_tilesize{64 + i % 3 * 32}x64x64",
        "TacticValue": f"0x{(0x9AE0C0D2FB3A0000 + i) & 0xFFFFFFFFFFFFFFFF:016x}",
        "StreamId": 0,
        "Metadata": _metadata(*nodes),
    }


def _reformat(_: int, prefix: str, previous: str) -> dict[str, Any]:
    return {
        "Name": f"Reformatting CopyNode for Input Tensor 0 to {prefix}/add/Add",
        "LayerType": "Reformat",
        "Inputs": [_tensor(previous, [1, 64, 56, 56], INT8_CHW32)],
        "Outputs": [
            _tensor(f"Reformatted Input Tensor 0 to {prefix}/add/Add", [1, 64, 56, 56], HALF)
        ],
        "ParameterType": "Reformat",
        "Origin": "REFORMAT",
        "TacticValue": "0x00000000000003e8",
        "StreamId": 0,
        "Metadata": "",
    }


def _pointwise(_: int, prefix: str, previous: str) -> dict[str, Any]:
    return {
        "Name": f"PWN(PWN({prefix}/add/Add, {prefix}/mul/Mul), {prefix}/act2/Sigmoid)",
        "LayerType": "PointWiseV2",
        "Inputs": [
            _tensor(f"Reformatted Input Tensor 0 to {prefix}/add/Add", [1, 64, 56, 56], HALF)
        ],
        "Outputs": [_tensor(f"{prefix}/act2/Sigmoid_output_0", [1, 64, 56, 56], HALF)],
        "ParameterType": "PointWise",
        "ParameterSubType": "PointWiseExpression",
        "NbInputArgs": 1,
        "InputArgs": ["arg0"],
        "NbOutputVars": 1,
        "OutputVars": ["var3"],
        "TacticValue": "0x000000000000001c",
        "StreamId": 0,
        "Metadata": _metadata(f"{prefix}/add/Add", f"{prefix}/mul/Mul", f"{prefix}/act2/Sigmoid"),
    }


def _myelin(_: int, prefix: str, previous: str) -> dict[str, Any]:
    return {
        "Name": f"{{ForeignNode[{prefix}/attn/MatMul...{prefix}/attn/Softmax]}}",
        "LayerType": "Myelin",
        "Inputs": [_tensor(previous, [1, 64, 56, 56], HALF)],
        "Outputs": [_tensor(f"{prefix}/attn/Softmax_output_0", [1, 64, 56, 56], HALF)],
        "TacticValue": "0x0000000000000000",
        "StreamId": 0,
        "Metadata": "",
    }


def generate(
    count: int, model: str = "model", shape: int = 10, strides: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The layer JSON value and the profile records of a model of ``count`` layers.

    Every name starts with ``/<model>/``: models of different names share no layer name.
    ``shape`` is 10 (``Format/Datatype``, ``Bindings``) or 11 (the TensorRT 11 keys, with
    ``Strides``/``StrideOrder`` on every tensor unless ``strides`` is false).
    """
    SHAPE["shape"] = shape
    SHAPE["strides"] = int(strides)
    layers: list[dict[str, Any]] = []
    previous = "input"
    makers = (_conv, _reformat, _pointwise, _myelin)
    for i in range(count):
        prefix = f"/{model}/stage{i // 400}/block{i // 4 % 100}"
        layer = makers[i % 4](i, prefix, previous)
        layers.append(layer)
        previous = layer["Outputs"][0]["Name"]
    average = [0.002 + (i * 37 % 101) / 10000 for i in range(count)]
    total = sum(average)
    profile: list[dict[str, Any]] = [{"count": 1000}]
    profile += [
        {
            "name": layer["Name"],
            "timeMs": round(ms * 1000, 4),
            "averageMs": ms,
            "medianMs": ms,
            "percentage": 100 * ms / total,
        }
        for layer, ms in zip(layers, average, strict=True)
    ]
    if shape == 10:
        return {"Layers": layers, "Bindings": ["input", previous]}, profile

    def io(name: str, mode: str) -> dict[str, Any]:
        dims = [1, 64, 56, 56]
        return {
            "Name": name,
            "IOMode": mode,
            "DataType": "Int8",
            "Dimensions": dims,
            "Location": "Device",
            "IsShapeInferenceIO": False,
            "ProfileInfo": [
                {
                    "MinShape": dims,
                    "OptShape": dims,
                    "MaxShape": dims,
                    "Format": _SPLIT[INT8_CHW32][1],
                }
            ],
        }

    value = {
        "Layers": layers,
        "I/O Tensors": [io("input", "Input"), io(previous, "Output")],
        "ProfilingVerbosity": "kDETAILED",
        "Engine Metadata": {"TensorRTVersion": "11.5.0"},
    }
    return value, profile


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The fastest of ``repeat`` runs, in CPU seconds of this process (GC collected before each).

    CPU time, not wall time: the code is single-threaded, so on an idle machine the two agree,
    and on a shared one CPU time does not count the time other processes took.
    """
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def floor(layers_path: Path, profile_path: Path) -> None:
    """The least any typed loader does: no parsing, no derived values.

    Reads both files with ``json``, assembles (without validation, as trtlog does) one
    object per layer, per distinct tensor, per profile record and per layer time, and builds
    the layers frame from one plain value per cell (no dtype, layout, ONNX node, module,
    precision or hex text derived). What trtlog adds on top is the issue's semantics.
    """
    layers = json.loads(layers_path.read_bytes())["Layers"]
    records = {}
    for r in json.loads(profile_path.read_bytes())[1:]:
        data = {
            "name": r["name"],
            "time_ms": r["timeMs"],
            "average_ms": r["averageMs"],
            "median_ms": r["medianMs"],
            "percentage": r["percentage"],
        }
        records[r["name"]] = assemble(ProfileRecord, data, {}, _FIELDS[ProfileRecord])
    seen: dict[tuple[Any, ...], Tensor] = {}
    built = []
    for i, obj in enumerate(layers):
        tensors = []
        for t in obj["Inputs"] + obj["Outputs"]:
            key = (t["Name"], tuple(t["Dimensions"]), t["Format/Datatype"], t["Location"])
            tensor = seen.get(key)
            if tensor is None:
                data = {"name": key[0], "dims": key[1], "format": key[2], "location": key[3]}
                tensor = seen[key] = assemble(Tensor, data, {}, _FIELDS[Tensor])
            tensors.append(tensor)
        time_ = record_time(records[obj["Name"]])  # as the merge builds it
        data = {
            "index": i,
            "name": obj["Name"],
            "inputs": tuple(tensors[:1]),
            "outputs": tuple(tensors[1:]),
            "parameters": obj,
            "time": time_,
        }
        built.append(assemble(EngineLayer, data, {}, _FIELDS[EngineLayer]))
    schema = SCHEMAS["layers"]
    plan = ["o" if d == "object" else "b" if "ool" in d else "f" if d == "float64" else
            "s" if d == "string" else "i" for d in schema.values()]  # fmt: skip
    rows = []
    for layer in built:
        d = layer.__dict__
        cell = {"i": d["index"], "s": d["name"], "f": d["time"].average_ms, "b": False, "o": ()}
        rows.append(tuple([cell[k] for k in plan]))
    frame_from_columns("layers", dict(zip(schema, zip(*rows, strict=True), strict=True)))


_FIELDS = {cls: frozenset(cls.model_fields) for cls in (EngineLayer, ProfileRecord, Tensor)}


def write_model(
    folder: Path, count: int, model: str, shape: int = 10, strides: bool = True
) -> tuple[Path, Path]:
    """Write the layer JSON and profile of model ``model``; return their paths."""
    layers_path = folder / f"{model}.layers.json"
    profile_path = folder / f"{model}.profile.json"
    value, profile = generate(count, model, shape, strides)
    layers_path.write_text(json.dumps(value, indent=4), encoding="utf-8")
    profile_path.write_text(json.dumps(profile, indent=4), encoding="utf-8")
    return layers_path, profile_path


def _stats(values: list[float]) -> str:
    """``min / median / max`` of ``values``."""
    return " / ".join(f"{f(values):.3f}" for f in (min, statistics.median, max))


# -- the real corpus: each layer JSON in this process and in others, and a fresh process ------

#: The exports the fresh-process target names (a ~58-layer export with its profile, and two
#: more of that size), by file name: the layer JSON and its profile (``None``: it has none).
FRESH = (
    ("trt8.6.1_resnet50-int8_layers-detailed.json", "trt8.6.1_resnet50-int8_profile.json"),
    ("trt10.4_mobilenetv2-fp16-rtx3060_layers-detailed.json", None),
    (
        "trt10.4_resnet18-fp16-rtx3060_layers-detailed.json",
        "trt10.4_resnet18-fp16-rtx3060_profile.json",
    ),
)
#: Two builds of one model, compared (``trtlog.compare``) as an engine task.
COMPARED = (
    "trt8.x_resnet-pytorch-fp16-a100-trex_layers-detailed.json",
    "trt8.x_resnet-pytorch-qat-int8-a100-trex_layers-detailed.json",
)

FRESH_OURS = (
    "import sys, trtlog; e = trtlog.load_engine(sys.argv[1], profile=sys.argv[2] or None); "
    "e.layers_frame()"
)
FRESH_BASE = "import sys, json, pandas; pandas.DataFrame(json.load(open(sys.argv[1]))['Layers'])"
#: What the fresh process imports (printed once per tree: the import graph of the path).
FRESH_MODULES = (
    FRESH_OURS + "; heavy = ('trtlog.diff', 'trtlog.parser', 'trtlog.buildlog', 'lark', "
    "'networkx', 'matplotlib', 'duckdb'); print(sorted(m for m in heavy if m in sys.modules))"
)

#: The engine tasks, timed in a child process of each tree (so the trees' code never mix):
#: each is what a user does with a layer JSON, from the file on (load included).
TASKS = r"""
import gc, json, sys, time, warnings
warnings.simplefilter("ignore")
import trtlog
from trtlog.frames import modules_frame, tensors_frame

pairs, compared, repeat, only = json.loads(sys.argv[1])

def load(path, profile):
    return trtlog.load_engine(path, profile=profile)

tasks = {
    "load+layers_frame": lambda p, q: load(p, q).layers_frame(),
    "load+lint": lambda p, q: trtlog.lint(load(p, q)),
    "load+tensors_frame": lambda p, q: tensors_frame(load(p, q)),
    "load+modules_frame": lambda p, q: modules_frame(load(p, q).module_tree()),
    "load+groups": lambda p, q: load(p, q).groups("myelin"),
}
out = {}
for path, profile in pairs:
    for name, task in tasks.items():
        if only and not any(o in name for o in only):
            continue
        task(path, profile)  # (imports and first-use caches: not timed)
        best = float("inf")
        for _ in range(repeat):
            gc.collect()
            start = time.process_time()
            task(path, profile)
            best = min(best, time.process_time() - start)
        out[f"{name} {path.rsplit('/', 1)[-1]}"] = best
if compared and (not only or any(o in "load+compare" for o in only)):
    a, b = compared
    run = lambda: trtlog.compare(load(a, None), load(b, None))
    run()
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    out["load+compare " + b.rsplit("/", 1)[-1]] = best
print(json.dumps(out))
"""


def corpus_pairs(folder: Path) -> list[tuple[Path, Path | None]]:
    """Every layer JSON of the corpus with the profile written with it (same model), if any."""
    from trtlog.exports.read import detect_kind

    pairs: list[tuple[Path, Path | None]] = []
    for path in sorted(folder.glob("*.json")):
        try:
            kind = detect_kind(json.loads(path.read_bytes()))
        except ValueError:
            continue
        if kind != "layers":
            continue
        stem = path.name.split("_layers")[0]
        profiles = sorted(folder.glob(f"{stem}*profile*.json"))
        pairs.append((path, profiles[0] if profiles else None))
    return pairs


#: A small process that starts the command and reports its wall time and its own peak RSS:
#: a child forked from this process (pandas and trtlog imported) would count this process's
#: pages as its own.
LAUNCH = (
    "import os, sys, time\n"
    "start = time.perf_counter()\n"
    "pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "wall = time.perf_counter() - start\n"
    "cpu = usage.ru_utime + usage.ru_stime\n"
    "print(wall, cpu, usage.ru_maxrss, os.waitstatus_to_exitcode(status))\n"
)


def run_child(tree: Path, args: list[str]) -> tuple[float, float, int, str]:
    """``python args`` with ``tree`` first on the path.

    Returns the wall and CPU seconds (user + system) of the child, its peak RSS (KiB) and
    what it printed.
    """
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", LAUNCH, sys.executable, *args],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    *out, last = done.stdout.splitlines()
    wall, cpu, rss, code = last.split()
    if int(code):
        raise SystemExit(f"{args[:2]} failed in {tree} (exit {code}): {done.stderr[-2000:]}")
    return float(wall), float(cpu), int(rss), "\n".join(out)


def corpus_main(
    folder: Path,
    trees: dict[str, Path],
    rounds: int,
    repeat: int,
    only: str | None = None,
    files: list[str] | None = None,
    tasks: list[str] | None = None,
) -> int:
    """The real-corpus mode: the fresh-process comparison, then every engine task per tree."""
    print(f"corpus: {folder}; trees: " + ", ".join(f"{k}={v}" for k, v in trees.items()))
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average) at the start")
    if only != "tasks":
        fresh_processes(folder, trees, rounds)
    if only != "fresh":
        engine_tasks(folder, trees, rounds, repeat, files, tasks)
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average) at the end")
    return 0


def fresh_processes(folder: Path, trees: dict[str, Path], rounds: int) -> None:
    """The fresh-process command of each tree against the json + pandas one (:data:`FRESH`)."""
    first = next(iter(trees.values()))
    for name, tree in trees.items():
        layers, profile = FRESH[0]
        *_, out = run_child(
            tree, ["-c", FRESH_MODULES, str(folder / layers), str(folder / str(profile))]
        )
        print(f"fresh process of {name} imports of trtlog.diff/parser/buildlog, lark, networkx, "
              f"matplotlib, duckdb: {out.strip()}")  # fmt: skip
    print(
        f"fresh process: {rounds} rounds, each command once per round in turn; the medians of "
        "the wall and CPU (user + system) seconds and of the peak RSS, and the median of each "
        "round's ratio to the json + pandas baseline (target: at most 1.3)"
    )
    for layers, profile_name in FRESH:
        path = folder / layers
        prof = "" if profile_name is None else str(folder / profile_name)
        runs: dict[str, list[tuple[float, float, int]]] = {k: [] for k in (*trees, "base")}
        for _ in range(rounds):
            wall, cpu, rss, _ = run_child(first, ["-c", FRESH_BASE, str(path)])
            runs["base"].append((wall, cpu, rss))
            for name, tree in trees.items():
                wall, cpu, rss, _ = run_child(tree, ["-c", FRESH_OURS, str(path), prof])
                runs[name].append((wall, cpu, rss))

        def median(key: str, at: int, runs: dict[str, list[Any]] = runs) -> float:
            return float(statistics.median(r[at] for r in runs[key]))

        def ratio(key: str, at: int, runs: dict[str, list[Any]] = runs) -> float:
            pairs = zip(runs[key], runs["base"], strict=True)
            return float(statistics.median(a[at] / b[at] for a, b in pairs))

        print(f"  {layers}{' + profile' if profile_name else ''}: baseline {median('base', 0):.3f} s "
              f"wall, {median('base', 1):.3f} s CPU, {median('base', 2) / 1024:.0f} MiB")  # fmt: skip
        for name in trees:
            print(f"    {name}: {median(name, 0):.3f} s wall, {median(name, 1):.3f} s CPU, "
                  f"{median(name, 2) / 1024:.0f} MiB; ratios: wall {ratio(name, 0):.2f}, "
                  f"CPU {ratio(name, 1):.2f}, RSS {ratio(name, 2):.2f}")  # fmt: skip


def engine_tasks(
    folder: Path,
    trees: dict[str, Path],
    rounds: int,
    repeat: int,
    files: list[str] | None = None,
    tasks: list[str] | None = None,
) -> None:
    """Every engine task of every corpus layer JSON, in a child process per tree and round.

    ``files`` and ``tasks``: only the files and tasks whose names hold one of these.
    """
    pairs = [
        (str(p), None if q is None else str(q))
        for p, q in corpus_pairs(folder)
        if not files or any(f in p.name for f in files)
    ]
    compared = (
        [str(folder / n) for n in COMPARED] if all((folder / n).exists() for n in COMPARED) else []
    )
    print(f"engine tasks over {len(pairs)} layer JSON files: CPU seconds, the best of "
          f"{repeat} in each child, the median over {rounds} children per tree (in turn)")  # fmt: skip
    times: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            argument = json.dumps([pairs, compared, repeat, tasks or []])
            *_, out = run_child(tree, ["-c", TASKS, argument])
            for task, seconds in json.loads(out).items():
                times[name].setdefault(task, []).append(seconds)
    names = list(trees)
    header = "".join(f"{n:>12}" for n in names)
    ratio = f"  {names[0]}/{names[1]}" if len(names) > 1 else ""
    print(f"  {'task':<80}{header}{ratio}")
    worst = 0.0
    for task in times[names[0]]:
        medians = [statistics.median(times[n][task]) for n in names]
        cells = "".join(f"{1000 * m:>10.2f}ms" for m in medians)
        line = f"  {task:<80}{cells}"
        if len(names) > 1:
            r = medians[0] / medians[1]
            worst = max(worst, r)
            line += f"  {r:.2f}"
        print(line)
    if len(names) > 1:
        print(f"worst task ratio {names[0]}/{names[1]}: {worst:.2f} (target: at most 1.10)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="write the generated files here and keep them")
    parser.add_argument(
        "--corpus",
        type=Path,
        nargs="?",
        const=Path(__file__).resolve().parents[2] / "shared" / "corpus",
        help="the real-corpus mode: every layer JSON of this folder (default ../shared/corpus)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="TREE",
        help="with --corpus: also time this other checkout of trtlog, in turn with this one",
    )
    parser.add_argument(
        "--only", choices=("fresh", "tasks"), help="with --corpus: one of its two parts"
    )
    parser.add_argument(
        "--files", nargs="+", help="with --corpus: only the layer JSONs whose names hold one"
    )
    parser.add_argument(
        "--tasks", nargs="+", help="with --corpus: only the tasks whose names hold one"
    )
    parser.add_argument(
        "--best-of", type=int, default=5, help="with --corpus: runs of each task per child"
    )
    args = parser.parse_args(argv)
    if args.corpus is not None:
        trees = {"this": Path(__file__).resolve().parents[1]}
        if args.compare is not None:
            trees["other"] = args.compare.resolve()
        return corpus_main(
            args.corpus, trees, args.repeat, args.best_of, args.only, args.files, args.tasks
        )

    folder = args.keep or Path(tempfile.mkdtemp(prefix="trtlog-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    layers_path, profile_path = write_model(folder, args.layers, "model")
    size = layers_path.stat().st_size / 1e6
    print(
        f"layer JSON: {args.layers} layers, {size:.1f} MB; profile {profile_path.stat().st_size / 1e6:.1f} MB"
    )
    fast = jsonio.USE_ORJSON and jsonio._orjson_loads() is not None
    print(f"orjson: {'installed' if fast else 'not installed (both runs use the standard json)'}")

    engine = trtlog.load_engine(layers_path, profile=profile_path)
    frame = engine.layers_frame()
    timed = int(frame["time_ms"].notna().sum())
    print(f"check: {len(frame)} rows, {timed} with a time, notes: {list(engine.notes) or 'none'}")
    # the same model in the TensorRT 11 shape must give the same frame
    (folder / "11").mkdir(exist_ok=True)
    layers11, profile11 = write_model(folder / "11", args.layers, "model", shape=11)
    size11 = layers11.stat().st_size / 1e6
    engine11 = trtlog.load_engine(layers11, profile=profile11)
    same = engine11.layers_frame().equals(frame)
    print(
        f"check 11.x shape: {size11:.1f} MB, same layers frame as the 10.x file: {same}, "
        f"{len(engine11.io_tensors)} I/O tensors, notes: {list(engine11.notes) or 'none'}"
    )
    del engine, frame, engine11  # a large live heap would slow whatever is timed next
    layers11.unlink()
    profile11.unlink()
    (folder / "11").rmdir()

    # each round reads a model trtlog has not seen (its own layer names), so no run is
    # helped by the name caches an earlier run filled: every load is a first load
    keys = "ours std base both paused floor ours11 ours11s base11 base11s json json11 json11s"
    keys += " dec dec11 dec11s"
    runs: dict[str, list[float]] = {key: [] for key in keys.split()}
    for round_ in range(args.repeat):
        if round_:
            layers_path.unlink()
            profile_path.unlink()
            layers_path, profile_path = write_model(folder, args.layers, f"model{round_}")
        paths = (layers_path, profile_path)
        # the same model in the 11.x shape, under names no other round used: without and
        # with Strides/StrideOrder (printed "where present": here on every tensor), and the
        # 10.x model again under new names for the standard-json run
        paths11 = write_model(folder, args.layers, f"model11x{round_}", shape=11, strides=False)
        paths11s = write_model(folder, args.layers, f"model11s{round_}", shape=11)
        paths_std = write_model(folder, args.layers, f"modelstd{round_}")

        def ours(paths: tuple[Path, Path] = paths) -> None:
            trtlog.load_engine(paths[0], profile=paths[1]).layers_frame()

        def ours_std(paths: tuple[Path, Path] = paths_std) -> None:
            jsonio.USE_ORJSON = False
            try:
                ours(paths)
            finally:
                jsonio.USE_ORJSON = True

        def baseline(paths: tuple[Path, Path] = paths) -> None:
            with open(paths[0], encoding="utf-8") as f:
                pd.DataFrame(json.load(f)["Layers"])

        def baseline_both(paths: tuple[Path, Path] = paths) -> None:
            baseline(paths)
            with open(paths[1], encoding="utf-8") as f:
                pd.DataFrame(json.load(f)[1:])

        def baseline_paused() -> None:
            gc.disable()
            try:
                baseline()
            finally:
                gc.enable()

        def floor_paused(paths: tuple[Path, Path] = paths) -> None:
            gc.disable()  # as trtlog pauses it
            try:
                floor(*paths)
            finally:
                gc.enable()

        def ours11(p: tuple[Path, Path] = paths11) -> None:
            ours(p)

        def ours11s(p: tuple[Path, Path] = paths11s) -> None:
            ours(p)

        def base11(p: tuple[Path, Path] = paths11) -> None:
            baseline(p)

        def base11s(p: tuple[Path, Path] = paths11s) -> None:
            baseline(p)

        # interleaved: load on a shared machine moves all of them alike
        for key, run in (
            ("base", baseline),
            ("ours", ours),
            ("ours11", ours11),
            ("ours11s", ours11s),
            ("std", ours_std),
            ("both", baseline_both),
            ("paused", baseline_paused),
            ("floor", floor_paused),
            ("base11", base11),
            ("base11s", base11s),
        ):
            runs[key].append(best_of(1, run))
        # the JSON decode alone, with the collector paused as trtlog pauses it: the part of a
        # load that grows with the file, whatever reads it
        for key, layer_file in (
            ("json", paths[0]),
            ("json11", paths11[0]),
            ("json11s", paths11s[0]),
        ):

            def decode(path: Path = layer_file) -> None:
                gc.disable()
                try:
                    json.loads(path.read_text(encoding="utf-8"))
                finally:
                    gc.enable()

            runs[key].append(best_of(1, decode))

            def decode_ours(path: Path = layer_file) -> None:
                gc.disable()
                try:
                    read_json_file(path)  # orjson when installed
                finally:
                    gc.enable()

            runs[f"dec{key[4:]}"].append(best_of(1, decode_ours))
        for path in (*paths11, *paths11s, *paths_std):
            path.unlink()

    def ratio(key: str, base: str) -> list[float]:
        return [a / b for a, b in zip(runs[key], runs[base], strict=True)]

    def beyond(key: str) -> list[float]:
        """11.x / 10.x of trtlog's time less its own decode of the layer file, per round."""
        pairs = zip(
            runs[f"ours11{key}"], runs[f"dec11{key}"], runs["ours"], runs["dec"], strict=True
        )
        return [(a - b) / (c - d) for a, b, c, d in pairs]

    n = args.repeat
    print(f"times in CPU seconds, min / median / max of {n} rounds; ratios per round")
    print(f"baseline json.load + DataFrame (layer file): {_stats(runs['base'])} s")
    decoder = "orjson" if fast else "json"
    print(f"trtlog load_engine + profile + layers_frame ({decoder}): {_stats(runs['ours'])} s")
    print(f"ratio: {_stats(ratio('ours', 'base'))}")
    print(f"trtlog, standard json: {_stats(runs['std'])} s")
    print(f"ratio standard json: {_stats(ratio('std', 'base'))}")
    print(f"reference: baseline on both files {_stats(runs['both'])} s, ratio "
          f"{_stats(ratio('ours', 'both'))}")  # fmt: skip
    print(f"reference: baseline with the garbage collector paused, as trtlog pauses it: "
          f"{_stats(runs['paused'])} s (ratio {_stats(ratio('ours', 'paused'))})")  # fmt: skip
    print(f"floor: typed objects and a frame with nothing derived (see floor()): "
          f"{_stats(runs['floor'])} s (ratio to the baseline {_stats(ratio('floor', 'base'))})")  # fmt: skip
    for key, what in (("", "without strides"), ("s", "with Strides/StrideOrder on every tensor")):
        print(
            f"TensorRT 11 shape, {what}: trtlog {_stats(runs[f'ours11{key}'])} s; "
            f"11.x / 10.x load: trtlog {_stats(ratio(f'ours11{key}', 'ours'))}, baseline {_stats(ratio(f'base11{key}', 'base'))}; JSON decode alone "
            f"{_stats(ratio(f'json11{key}', 'json'))} (json), "
            f"{_stats(ratio(f'dec11{key}', 'dec'))} (trtlog's, {decoder}); trtlog beyond its "
            f"decode {_stats(beyond(key))}"
        )
    if not args.keep:
        layers_path.unlink()
        profile_path.unlink()
        folder.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
