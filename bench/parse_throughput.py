"""Parse speed and memory against a plain regex loop, on real corpus logs and a generated one.

The baseline is the issue's plain loop: every line matched against the trtexec envelope,
then tried against five message regexes (fusion, running, removing, tactic, fastest tactic).
Each round times the baseline and ``trtlog.parse`` on the same file (CPU time, alternated);
the ratio is taken per round. Inputs (``--input``, default all three):

* ``real``: every verbose build log of the corpus (``../shared/corpus`` or
  ``$TRTLOG_CORPUS``) whose lines mostly carry the trtexec envelope the baseline reads,
  each repeated to at least ``--real-mb`` megabytes (default 10): the median and the worst
  ratio over the logs (targets: median <= 2.0, worst <= 2.5);
* ``mix``: every log of the corpus (run-phase lines, program output and pastes included)
  one after the other, repeated to at least ``--mix-mb`` megabytes (default 50): the ratio
  (target <= 2.5) and the peak RSS of a fresh process parsing it (target <= 3x the file);
* ``generated``: a generated ``trtexec --verbose`` log of ``--mb`` megabytes (default 50),
  realistic line mixes of a model of many layers (every message family appears): the
  ratio, ``parse`` + ``tactics_frame()``, and touching every event against the line
  parser's eager parse.

Usage: python bench/parse_throughput.py [--input real|mix|generated] [--repeat 3]
       [--real-mb 10] [--mix-mb 50] [--mb 50] [--keep FILE] [--no-rss]
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
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trtlog
from trtlog.buildlog.model import SourceMeta
from trtlog.buildlog.parsing import build_of_text
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
    """Every event built while parsing, by the line parser's own loop (``iter_events``)."""
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


def corpus() -> Path:
    """The shared corpus of real logs."""
    return Path(
        os.environ.get("TRTLOG_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus")
    )


def _enveloped(path: Path) -> float:
    """The share of ``path``'s lines that carry the trtexec envelope the baseline reads."""
    with path.open(encoding="utf-8", errors="surrogateescape") as f:
        lines = f.readlines()
    return sum(1 for line in lines if ENVELOPE.match(line)) / max(1, len(lines))


def real_logs(root: Path) -> list[Path]:
    """The corpus's verbose build logs the baseline reads (most lines in its envelope)."""
    found = [
        p
        for p in sorted(root.glob("*.log"))
        if "verbose" in p.name and "build" in p.name and p.stat().st_size > 300_000
    ]
    return [p for p in found if _enveloped(p) >= 0.5]


def repeated(sources: list[Path], megabytes: float, into: Path) -> Path:
    """The texts of ``sources`` one after the other, repeated to at least ``megabytes``."""
    texts = [p.read_text(encoding="utf-8", errors="surrogateescape") for p in sources]
    unit = "".join(t if t.endswith("\n") else t + "\n" for t in texts)
    copies = max(1, int(megabytes * 1e6 / max(1, len(unit))) + 1)
    into.write_text(unit * copies, encoding="utf-8", errors="surrogateescape")
    return into


def ratios(path: Path, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Per round: baseline seconds, parse seconds, and their ratio (CPU time)."""
    trtlog.parse(path)  # the grammars and the patterns the log uses, outside the timing
    base: list[float] = []
    parse: list[float] = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        baseline(path)
        base.append(time.process_time() - t0)
        gc.collect()
        t0 = time.process_time()
        build = trtlog.parse(path)
        parse.append(time.process_time() - t0)
        del build
    return base, parse, [p / b for p, b in zip(parse, base, strict=True)]


def run_real(repeat: int, megabytes: float) -> None:
    root = corpus()
    logs = real_logs(root) if root.is_dir() else []
    if not logs:
        print(f"real logs: none (no corpus at {root})")
        return
    medians = []
    with tempfile.TemporaryDirectory() as tmp:
        for log in logs:
            big = repeated([log], megabytes, Path(tmp) / log.name)
            base, parse, ratio = ratios(big, repeat)
            medians.append(statistics.median(ratio))
            print(
                f"  {log.name[:64]:64} {big.stat().st_size / 1e6:5.1f} MB  parse/baseline "
                f"{_stats(ratio)}  (parse {min(parse):.3f} s, baseline {min(base):.3f} s)"
            )
            big.unlink()
    print(
        f"real logs ({len(logs)}, each >= {megabytes:g} MB): median of the medians "
        f"{statistics.median(medians):.2f} (target <= 2.0), worst {max(medians):.2f} "
        f"(target <= 2.5)"
    )


def run_mix(repeat: int, megabytes: float, rss: bool) -> None:
    root = corpus()
    logs = sorted(root.glob("*.log")) + sorted(root.glob("seeds/*.log")) if root.is_dir() else []
    if not logs:
        print(f"real mix: none (no corpus at {root})")
        return
    with tempfile.TemporaryDirectory() as tmp:
        big = repeated(logs, megabytes, Path(tmp) / "mix.log")
        size = big.stat().st_size
        base, parse, ratio = ratios(big, repeat)
        print(
            f"real mix ({len(logs)} logs, {size / 1e6:.0f} MB): parse/baseline {_stats(ratio)} "
            f"(target <= 2.5; parse {min(parse):.3f} s, baseline {min(base):.3f} s)"
        )
        if rss:
            peak = peak_rss(big)
            print(
                f"real mix: peak RSS of a fresh parse {peak / 1e6:.0f} MB = {peak / size:.2f}x "
                "the file (target <= 3)"
            )


def run_generated(repeat: int, megabytes: float, keep: Path | None) -> None:
    path = keep or Path(tempfile.mkstemp(suffix=".log")[1])
    if not (keep and path.exists()):
        generate(path, megabytes)
    mb = path.stat().st_size / 1e6
    eager_parse(path).tactics_frame()  # every matcher the log uses, outside the timing
    rounds: dict[str, list[float]] = {k: [] for k in ("base", "parse", "tactics", "touch", "eager")}
    for _ in range(repeat):
        t0 = time.process_time()
        baseline(path)
        rounds["base"].append(time.process_time() - t0)
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
            event.kind  # noqa: B018 (the same loop on both sides)
        rounds["eager"].append(time.process_time() - t0)
        del build
    base = rounds["base"]
    parse_ratio = [p / b for p, b in zip(rounds["parse"], base, strict=True)]
    frame_ratio = [
        (p + t) / b for p, t, b in zip(rounds["parse"], rounds["tactics"], base, strict=True)
    ]
    touch_ratio = [t / e for t, e in zip(rounds["touch"], rounds["eager"], strict=True)]
    print(f"generated log ({mb:.1f} MB), seconds and ratios (min / median / max of {repeat}):")
    print(f"  baseline {_stats(base)}, trtlog.parse {_stats(rounds['parse'])}")
    print(f"  parse / baseline:                  {_stats(parse_ratio)}")
    print(f"  parse + tactics_frame / baseline:  {_stats(frame_ratio)}")
    print(f"  parse + every event / eager parse: {_stats(touch_ratio)}")
    if not keep:
        os.unlink(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", choices=("real", "mix", "generated"), action="append")
    ap.add_argument("--repeat", type=int, default=3, help="timed rounds (min/median/max)")
    ap.add_argument("--real-mb", type=float, default=10.0, help="size of each real log (MB)")
    ap.add_argument("--mix-mb", type=float, default=50.0, help="size of the real mix (MB)")
    ap.add_argument("--mb", type=float, default=50.0, help="size of the generated log (MB)")
    ap.add_argument("--keep", type=Path, help="write the generated log here and keep it")
    ap.add_argument("--no-rss", action="store_true", help="skip the real mix's peak RSS")
    args = ap.parse_args()
    inputs = args.input or ["real", "mix", "generated"]
    trtlog.parse_text("[I] [TRT] Original: 1 layers\n")  # the grammars, outside the timing
    if "real" in inputs:
        run_real(args.repeat, args.real_mb)
    if "mix" in inputs:
        run_mix(args.repeat, args.mix_mb, not args.no_rss)
    if "generated" in inputs:
        run_generated(args.repeat, args.mb, args.keep)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
