"""Parse throughput and peak memory on a generated verbose log (issue 2 benchmark).

Generates a ``trtexec --verbose`` log of at least ``--mb`` megabytes (default 50) from
realistic line mixes: a model of many layers, each parsed by the ONNX parser, optimized,
autotuned (tactic timing lines dominate, as in real verbose logs: about a third of all
lines), placed, dumped in the engine layer listing and the inspector dump, and profiled; every
message family appears. Then, in the same process:

(a) ``trtlog.parse`` on the file: full typed events;
(b) the baseline: a plain Python loop that matches each line against the trtexec envelope
    regex and then tries five regexes (fusion, running, removing, tactic, fastest tactic).

(c) ``build.tactics_frame()`` after (a);
(d) (a) and then touching every event (``build.events`` built from the event store);
(e) the eager parse of trtlog 0.1 (the line parser building every event while parsing), and
    the same loop over its events as (d).

Each is timed in every round (CPU time), and the ratios are taken per round against the
baseline of the same round: min / median / max are printed. Targets (issue 14): parse ≤ 2.0x
the baseline, parse + tactics_frame ≤ 3.0x, (d) ≤ (e); retained memory (traced Python
allocations still held by the Build) ≤ 2.5x the file; with ``--rss-mb N``, a log of N MB is
generated and parsed in a fresh process whose peak RSS must stay ≤ 3.5x the file.

With ``--breakdown``, where the time of (c) and of (d) beyond the parse goes (each part timed
on a fresh parse, min / median / max of the rounds): the engine layers' tactics from the log's
last layer dump, the ``tactic_timing`` columns, the other autotuner kinds' columns (their
deferred messages read), the rest of the frame (the state carried forward, the marks, pandas:
``tactics_frame()`` minus the two reads of columns it makes again); the events of every hot row (from
the group texts the scan kept), and the rest of ``build.events`` (the deferred messages, the
file order).

Usage: python bench/parse_throughput.py [--mb 50] [--keep FILE] [--repeat 5] [--rss-mb 1000]
       [--breakdown]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trtlog
from trtlog._pydantic import gc_paused
from trtlog.buildlog.model import SourceMeta
from trtlog.buildlog.parsing import build_of_text
from trtlog.buildlog.tactics import _FAST_FIELDS, _engine_tactics
from trtlog.parser.source import iter_lines, read_text

KERNELS = [
    "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16",
    "sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize64x64x32_stage5_warpsize2x2x1_g1_tensor16x8x16",
    "sm80_xmma_fprop_implicit_gemm_interleaved_i8i8_i8i32_f32_nchw_vect_c_32kcrs_vect_c_32_nchw_vect_c_32_tilesize64x96x64_stage3_warpsize2x2x1_g1_tensor16x8x32_t1r3s3",
    "sm75_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize64x128x32_stage1_warpsize2x2x1_g1_tensor16x8x8",
    "sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x64x16_stage4_warpsize2x2x1_g1_tensor16x8x8",
    "sm86_xmma_fprop_implicit_gemm_indexed_wo_smem_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize128x16x64_stage1_warpsize4x1x1_g1_tensor16x8x16",
    "ampere_h16816gemm_64x64_ldg8_stages_64x5_tn",
    "sm50_xmma_pooling_tiled_FP32NCHW_kMAX_tP2_tQ16_tR2_tS2_tU2_tV2_tUnroll6_tThreads128",
]
RUNNERS = ["CaskConvolution", "CaskFlattenConvolution", "CudnnConvolution", "CaskGemmConvolution"]


class LogWriter:
    """Builds the log text line by line with a trtexec envelope."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.second = 0
        self.count = 0

    def ts(self) -> str:
        self.count += 1
        if self.count % 400 == 0:
            self.second += 1
        s = self.second
        return f"[01/10/2024-{21 + s // 3600 % 3:02d}:{s // 60 % 60:02d}:{s % 60:02d}]"

    def v(self, body: str) -> str:
        return f"{self.ts()} [V] [TRT] {body}\n"

    def i(self, body: str, trt: bool = True) -> str:
        return f"{self.ts()} [I] {'[TRT] ' if trt else ''}{body}\n"

    def w(self, body: str) -> str:
        return f"{self.ts()} [W] [TRT] {body}\n"

    def num(self) -> str:
        return f"{self.rng.lognormvariate(-3, 1.2):.6g}"

    def tactic(self) -> str:
        return f"0x{self.rng.getrandbits(64):016x}"


def header(w: LogWriter) -> Iterator[str]:
    yield "&&&& RUNNING TensorRT.trtexec [TensorRT v100400] [b26] # trtexec --onnx=big.onnx --fp16 --int8 --verbose --dumpLayerInfo --dumpProfile\n"
    yield w.i("=== Model Options ===", trt=False)
    yield w.i("Format: ONNX", trt=False)
    yield w.i("Model: big.onnx", trt=False)
    yield w.i("=== Build Options ===", trt=False)
    yield w.i(
        "Memory Pools: workspace: default, dlaSRAM: default, dlaLocalDRAM: default, dlaGlobalDRAM: default, tacticSharedMem: default",
        trt=False,
    )
    yield w.i("Precision: FP32+FP16+INT8", trt=False)
    yield w.i("Profiling verbosity: 2", trt=False)
    yield w.i("", trt=False)
    yield w.i("=== Device Information ===", trt=False)
    yield w.i("Selected Device: NVIDIA A100-SXM4-40GB", trt=False)
    yield w.i("Compute Capability: 8.0", trt=False)
    yield w.i("TensorRT version: 10.4.0", trt=False)
    yield w.i("[MemUsageChange] Init CUDA: CPU +2, GPU +0, now: CPU 26, GPU 1519 (MiB)")
    yield w.i("Start parsing network model.", trt=False)


def model_layers(n: int) -> list[str]:
    names = []
    for k in range(n):
        block = f"/backbone/stage{k // 40}/block{k // 4 % 10}"
        names.append(f"{block}/conv{k % 4}/Conv")
    return names


def onnx_lines(w: LogWriter, names: list[str]) -> Iterator[str]:
    for i, name in enumerate(names):
        prev = f"{names[i - 1]}_output_0" if i else "input"
        yield w.v(f"Parsing node: {name} [Conv]")
        yield w.v(f"Searching for input: {prev}")
        yield w.v(f"Searching for input: model.{i}.weight")
        yield w.v(
            f"{name} [Conv] inputs: [{prev} -> (1, 64, 56, 56)[HALF]], [model.{i}.weight -> (64, 64, 3, 3)[HALF]], "
        )
        yield w.v(f"Registering layer: {name} for ONNX node: {name}")
        yield w.v(f"Registering tensor: {name}_output_0 for ONNX tensor: {name}_output_0")
        yield w.v(f"{name} [Conv] outputs: [{name}_output_0 -> (1, 64, 56, 56)[HALF]], ")


def optimizer_lines(w: LogWriter, names: list[str]) -> Iterator[str]:
    yield w.v("Applying generic optimizations to the graph for inference.")
    yield w.v(f"Original: {len(names) * 2} layers")
    yield w.v(f"After dead-layer removal: {len(names) * 2} layers")
    for name in names:
        relu = name.replace("/Conv", "/Relu")
        yield w.v(f"Running: ConvReluFusion on {name}")
        yield w.v(f"ConvReluFusion: Fusing {name} with {relu}")
        yield w.v(f"Removing {relu}")
    yield w.v(f"After vertical fusions: {len(names)} layers")
    yield w.v("Graph construction completed in 0.412 seconds.")


def autotune_lines(w: LogWriter, names: list[str]) -> Iterator[str]:
    rng = w.rng
    for name in names:
        layer = f"{name} + {name.replace('/Conv', '/Relu')}"
        yield w.v(f"=============== Computing costs for {layer}")
        for combo in range(rng.randint(1, 3)):
            c = 64 * (combo + 1)
            yield w.v(
                f"*************** Autotuning format combination: Half({c * 3136},1:8,{c * 56},{c}) -> Half({c * 3136},1:8,{c * 56},{c}) ***************"
            )
            for runner in RUNNERS:
                rid = 0x80000009 + RUNNERS.index(runner)
                yield w.v(f"--------------- Timing Runner: {layer} ({runner}[0x{rid:08x}])")
                if runner == "CaskFlattenConvolution":
                    yield w.v(f"Skipping {runner}: No valid tactics for {layer}")
                    continue
                best = None
                for _ in range(rng.randint(4, 24)):
                    t = w.num()
                    tac = w.tactic()
                    if best is None or float(t) < float(best[1]):
                        best = (tac, t)
                    if runner.startswith("Cask"):
                        yield w.v(f"Tactic Name: {rng.choice(KERNELS)} Tactic: {tac} Time: {t}")
                    else:
                        yield w.v(f"Tactic: {tac} Time: {t}")
                assert best is not None
                yield w.v(
                    f"{layer} ({runner}[0x{rid:08x}]) profiling completed in {w.num()} seconds. Fastest Tactic: {best[0]} Time: {best[1]}"
                )
                yield w.v(f"Fastest Tactic: {best[0]} Time: {best[1]}")
            yield w.v(f">>>>>>>>>>>>>>> Chose Runner Type: CaskConvolution Tactic: {w.tactic()}")
        yield w.v("=============== Computing reformatting costs")
        yield w.v(
            "*************** Autotuning Reformat: Half(200704,1:8,3584,64) -> Float(200704,3136,56,1) ***************"
        )
        yield w.v(
            f"--------------- Timing Runner: Optimizer Reformat({name}_output_0 -> <out>) (Reformat[0x80000006])"
        )
        for tac in ("0x00000000000003e8", "0x00000000000003ea", "0x0000000000000000"):
            yield w.v(f"Tactic: {tac} Time: {w.num()}")
        yield w.v(f"Fastest Tactic: 0x00000000000003e8 Time: {w.num()}")
    yield w.v("Formats and tactics selection completed in 812.5 seconds.")
    yield w.v(f"After reformat layers: {len(names)} layers")


def tail_lines(w: LogWriter, names: list[str]) -> Iterator[str]:
    yield w.i(
        "[BlockAssignment] Started assigning block shifts. This will take 94 steps to complete."
    )
    yield w.i(
        "[BlockAssignment] Algorithm ShiftNTopDown took 1.38893ms to assign 3 blocks to 27 nodes requiring 22118400 bytes."
    )
    yield w.i("Total Activation Memory: 467884032 bytes")
    yield w.i("Total Weights Memory: 157136256 bytes")
    yield w.i("Engine generation completed in 812.9 seconds.")
    yield w.v("Engine Layer Information:")
    for name in names:
        layer = f"{name} + {name.replace('/Conv', '/Relu')}"
        yield (
            f"Layer(CaskConvolution): {layer}, Tactic: {w.tactic()}, {name}_in (Half[1,64:8,56,56]) "
            f"-> {name}_output_0 (Half[1,64:8,56,56])\n"
        )
    yield w.i("Layers:", trt=False)
    for name in names:
        layer = f"{name} + {name.replace('/Conv', '/Relu')}"
        yield (
            f"Name: {layer}, LayerType: CaskConvolution, Inputs: [ {{ Name: {name}_in, Location: Device, "
            f"Dimensions: [1,64,56,56], Format/Datatype: Channel major FP16 format where channel % 8 == 0 }}], "
            f"Outputs: [ {{ Name: {name}_output_0, Location: Device, Dimensions: [1,64,56,56], Format/Datatype: "
            f"Channel major FP16 format where channel % 8 == 0 }}], ParameterType: Convolution, Kernel: [3,3], "
            f"PaddingMode: kEXPLICIT_ROUND_DOWN, PrePadding: [1,1], PostPadding: [1,1], Stride: [1,1], Dilation: [1,1], "
            f'OutMaps: 64, Groups: 1, Weights: {{"Type": "Half", "Count": 36864}}, Bias: {{"Type": "Half", "Count": 64}}, '
            f"HasBias: 1, HasReLU: 1, TacticName: {w.rng.choice(KERNELS)}, TacticValue: {w.tactic()}, StreamId: 0, "
            f"Metadata: [ONNX Layer: {name}]\x1e[ONNX Layer: {name.replace('/Conv', '/Relu')}]\n"
        )
    yield w.i("", trt=False)
    yield w.i("=== Performance summary ===", trt=False)
    yield w.i("Throughput: 412.5 qps", trt=False)
    yield w.i(
        "Latency: min = 2.31 ms, max = 2.52 ms, mean = 2.4 ms, median = 2.39 ms, percentile(90%) = 2.45 ms, percentile(95%) = 2.47 ms, percentile(99%) = 2.5 ms",
        trt=False,
    )
    yield w.i("=== Profile (412 iterations ) ===", trt=False)
    yield w.i("   Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer", trt=False)
    for name in names:
        yield w.i(
            f"       2.35       0.0057       0.0056       0.2   {name} + {name.replace('/Conv', '/Relu')}",
            trt=False,
        )
    yield "&&&& PASSED TensorRT.trtexec [TensorRT v100400] [b26] # trtexec --onnx=big.onnx --fp16 --int8 --verbose\n"


def generate(path: Path, megabytes: float, seed: int = 0) -> None:
    """Write a verbose log of at least ``megabytes`` MB to ``path``."""
    w = LogWriter(random.Random(seed))
    target = int(megabytes * 1e6)
    # a model of 400 layers per chunk (about 8 MB of log); smaller chunks for a log asked under
    # 4 MB (the smoke tests' runs), so that it is about the size asked
    per_chunk = 400 if megabytes >= 4 else max(10, round(400 * megabytes / 8))
    size = 0
    with path.open("w", encoding="utf-8", newline="") as out:
        for line in header(w):
            out.write(line)
        chunk = 0
        while size < target:
            names = [f"/m{chunk}{n}" for n in model_layers(per_chunk)]
            for part in (onnx_lines, optimizer_lines, autotune_lines):
                for line in part(w, names):
                    out.write(line)
            for line in tail_lines(w, names):
                out.write(line)
            size = out.tell()
            chunk += 1


ENVELOPE = re.compile(r"^\[(\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d)\] \[([VIWEF])\] (?:\[TRT\] )?(.*)")
BASELINE = [
    re.compile(r"^(\w+): Fusing (.*) with (.*)$"),
    re.compile(r"^Running: (\w+) on (.*)$"),
    re.compile(r"^Removing (.*)$"),
    re.compile(r"^(?:Tactic Name: \S+ )?Tactic: (0x[0-9a-f]+|-?\d+) Time: (\S+)$"),
    re.compile(r"^Fastest Tactic: (\S+) Time: (\S+)$"),
]


def baseline(path: Path) -> int:
    """The plain loop of the issue: envelope regex, then five message regexes."""
    hits = 0
    with path.open(encoding="utf-8", newline="") as f:
        for line in f:
            m = ENVELOPE.match(line)
            if m:
                body = m.group(3)
                for pattern in BASELINE:
                    if pattern.match(body):
                        hits += 1
                        break
    return hits


def _stats(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def eager_parse(path: Path) -> trtlog.Build:
    """Every event built while parsing, by the line parser (trtlog 0.1's ``parse``)."""
    info, text = read_text(path)
    return build_of_text(text, SourceMeta(name=info.name), strict=False, lines=iter_lines(text))


def peak_rss(path: Path) -> int:
    """Peak resident memory (bytes) of a fresh process that parses ``path``."""
    code = (
        "import resource, sys, trtlog\n"
        "b = trtlog.parse(sys.argv[1])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": root},
    )
    return int(out.stdout.split()[-1]) * 1024  # ru_maxrss is in KiB on Linux


def breakdown(path: Path, repeat: int) -> None:
    """Print where ``tactics_frame()`` and building every event spend their time."""
    parts: dict[str, list[float]] = {
        k: [] for k in ("engine", "columns", "control", "frame rest", "hot", "events rest")
    }
    clock = time.process_time
    for _ in range(repeat):
        gc.collect()
        build = trtlog.parse(path)
        store = build._lazy
        assert store is not None
        t0 = clock()
        with gc_paused():  # as tactics_frame() runs them
            _engine_tactics(build)  # the last detailed layer dump's records
            t1 = clock()
            store.column_parts(
                "tactic_timing", ("tactic", "time_ms", "tactic_name"), arrays=True, severities=False
            )
            t2 = clock()
            for kind, fields in _FAST_FIELDS.items():  # the other autotuner kinds
                store.column_parts(kind, fields, severities=False)
            t3 = clock()
        build.tactics_frame()  # the last dump's records are parsed now
        t4 = clock()
        parts["engine"].append(t1 - t0)
        parts["columns"].append(t2 - t1)
        parts["control"].append(t3 - t2)
        # the frame reads both again (a deferred message read as columns stays deferred)
        parts["frame rest"].append(t4 - t3 - (t2 - t1) - (t3 - t2))
        del build
        gc.collect()
        build = trtlog.parse(path)
        store = build._lazy
        assert store is not None
        t0 = clock()
        with gc_paused():
            for hot in store._hot:
                hot.build()
        t1 = clock()
        build.events  # noqa: B018
        t2 = clock()
        parts["hot"].append(t1 - t0)
        parts["events rest"].append(t2 - t1)
        del build
    print(f"breakdown (seconds, min / median / max of {repeat} fresh parses):")
    print(f"  tactics_frame: the layer dump's tactics    {_stats(parts['engine'])}")
    print(f"                 tactic_timing columns       {_stats(parts['columns'])}")
    print(f"                 other autotuner kinds       {_stats(parts['control'])}")
    print(f"                 the rest (state, pandas)    {_stats(parts['frame rest'])}")
    print(f"  every event:   the hot rows' events        {_stats(parts['hot'])}")
    print(f"                 the rest (deferred, order)  {_stats(parts['events rest'])}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50.0, help="size of the generated log (MB)")
    ap.add_argument("--keep", type=Path, help="write the generated log here and keep it")
    ap.add_argument("--repeat", type=int, default=5, help="timed rounds (min/median/max)")
    ap.add_argument("--no-memory", action="store_true", help="skip the traced-memory run")
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also print where the time of tactics_frame() and of building every event goes",
    )
    ap.add_argument(
        "--rss-mb",
        type=float,
        default=0.0,
        help="also generate a log of this size and report the peak RSS of parsing it",
    )
    args = ap.parse_args()

    path = args.keep or Path(tempfile.mkstemp(suffix=".log")[1])
    if not (args.keep and path.exists()):
        generate(path, args.mb)
    size = path.stat().st_size
    mb = size / 1e6
    with path.open(encoding="utf-8", newline="") as f:
        n_lines = sum(1 for _ in f)
    print(f"log: {mb:.1f} MB, {n_lines} lines ({path if args.keep else 'temporary'})")

    trtlog.parse_text("[I] [TRT] Original: 1 layers\n")  # build the grammars outside the timing
    eager_parse(path).tactics_frame()  # and compile every matcher the log uses
    rounds: dict[str, list[float]] = {k: [] for k in ("base", "parse", "tactics", "touch", "eager")}
    build = None
    for _ in range(args.repeat):
        t0 = time.process_time()
        baseline(path)
        rounds["base"].append(time.process_time() - t0)
        del build
        gc.collect()
        t0 = time.process_time()
        build = trtlog.parse(path)
        rounds["parse"].append(time.process_time() - t0)
        t0 = time.process_time()
        build.tactics_frame()
        rounds["tactics"].append(time.process_time() - t0)
        del build
        gc.collect()
        t0 = time.process_time()
        build = trtlog.parse(path)
        for event in build.events:
            event.kind  # noqa: B018 (touch every event)
        rounds["touch"].append(time.process_time() - t0)
        del build
        gc.collect()
        t0 = time.process_time()
        build = eager_parse(path)
        for event in build.events:
            event.kind  # noqa: B018 (the same loop as (d): both sides touch every event)
        rounds["eager"].append(time.process_time() - t0)
    assert build is not None
    base = rounds["base"]
    parse_ratio = [p / b for p, b in zip(rounds["parse"], base, strict=True)]
    frame_ratio = [
        (p + t) / b for p, t, b in zip(rounds["parse"], rounds["tactics"], base, strict=True)
    ]
    touch_ratio = [t / e for t, e in zip(rounds["touch"], rounds["eager"], strict=True)]
    unrec = build.counts().get("unrecognized", 0)
    print(
        f"events: {len(build.events)} ({unrec} unrecognized); "
        f"lossless: {build.to_text() == path.read_text(encoding='utf-8')}"
    )
    print(f"seconds (min / median / max of {args.repeat} rounds):")
    print(f"  baseline:              {_stats(base)}  ({mb / min(base):.1f} MB/s)")
    print(
        f"  trtlog.parse:          {_stats(rounds['parse'])}  ({mb / min(rounds['parse']):.1f} MB/s)"
    )
    print(f"  tactics_frame():       {_stats(rounds['tactics'])}")
    print(f"  parse + every event:   {_stats(rounds['touch'])}")
    print(f"  eager parse (0.1):     {_stats(rounds['eager'])}")
    print("ratios per round (min / median / max):")
    print(f"  parse / baseline:                  {_stats(parse_ratio)}  (target <= 2.0)")
    print(f"  parse + tactics_frame / baseline:  {_stats(frame_ratio)}  (target <= 3.0)")
    print(f"  parse + every event / eager parse: {_stats(touch_ratio)}  (target <= 1.0)")
    del build
    gc.collect()
    if args.breakdown:
        breakdown(path, args.repeat)
    if not args.no_memory:
        tracemalloc.start()
        build = trtlog.parse(path)
        retained, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"traced memory: retained {retained / 1e6:.0f} MB = {retained / size:.2f}x the file "
            f"(target <= 2.5), peak during parse {peak / 1e6:.0f} MB = {peak / size:.2f}x"
        )
        del build
    if not args.keep:
        os.unlink(path)
    if args.rss_mb:
        big = Path(tempfile.mkstemp(suffix=".log")[1])
        try:
            generate(big, args.rss_mb)
            big_size = big.stat().st_size
            rss = peak_rss(big)
            print(
                f"peak RSS parsing a {big_size / 1e6:.0f} MB log: {rss / 1e6:.0f} MB = "
                f"{rss / big_size:.2f}x the file (target <= 3.5)"
            )
        finally:
            big.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
