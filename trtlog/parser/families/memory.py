"""Keyword rules and transformer of memory use, planning and engine build/save/load.

Part of the parser (grammars/memory.lark): the dispatcher sends messages here by the rules
below; the transformer turns each parsed alternative into the fields of its event
(trtlog.events.memory). formats.md §B.7, §B.8, §H and §I.4.

One multi-line construct is a continuation (formats.md T4): the weights-conversion warning,
whose 4 [W] lines (and, in verbose logs, the [V] lists of affected weights) are one event.
"""

from __future__ import annotations

from lark import Token, v_args

from trtlog.events.memory import WeightsIssue
from trtlog.names import split_top
from trtlog.parser.family import BaseTransformer, Continuation, Family, Fields, Rule

__all__ = ["FAMILY"]

_PERSISTENT = {
    "Total Host Persistent Memory": "host_persistent",
    "Total Device Persistent Memory": "device_persistent",
    "Total Scratch Memory": "scratch",
    "Max Scratch Memory": "max_scratch",
    "Total Weights Memory": "weights",
}
_RUNTIME = {
    "Total per-runner device persistent memory": "per_runner_device_persistent",
    "Total per-runner host persistent memory": "per_runner_host_persistent",
    "Total per-runner device memory": "per_runner_device",
    "Total per-runner host memory": "per_runner_host",
    "Allocated activation device memory": "activation_device",
    "Allocated device scratch memory": "scratch_device",
}


@v_args(inline=True)
class MemoryTransformer(BaseTransformer):
    """Builds memory events."""

    def weights_fp16_issues(self, weights: Token, *rest: Token | str | None) -> Fields:
        issues = tuple(x for x in rest[:-1] if isinstance(x, str))
        return {
            "kind": "weights_fp16_issues",
            "weights": str(weights),
            "issues": issues,
            "advice": rest[-1] is not None if rest else False,
        }

    def fp16_issue(self, _start: Token, text: Token) -> str:
        return str(text).strip()

    def embedded_memory_cap(self, cap: int) -> Fields:
        return {"kind": "embedded_memory_cap", "cap_mib": cap}

    def memory_change(
        self, phase: Token, cpu_delta: int, gpu_delta: int, cpu: int, gpu: int
    ) -> Fields:
        return {
            "kind": "memory_change",
            "phase": str(phase),
            "cpu_delta_mib": cpu_delta,
            "gpu_delta_mib": gpu_delta,
            "cpu_mib": cpu,
            "gpu_mib": gpu,
        }

    def memory_snapshot(self, phase: Token, cpu: int, gpu: int) -> Fields:
        return {"kind": "memory_snapshot", "phase": str(phase), "cpu_mib": cpu, "gpu_mib": gpu}

    def memory_stats(self, cpu: int, gpu: int) -> Fields:
        return {"kind": "memory_stats", "scope": "allocators", "cpu_mib": cpu, "gpu_mib": gpu}

    def memory_stats_build(self, cpu: int) -> Fields:
        return {
            "kind": "memory_stats",
            "scope": "build_and_serialization",
            "cpu_mib": cpu,
            "gpu_mib": None,
        }

    def block_assignment_pre(self) -> Fields:
        return {"kind": "block_assignment_phase", "phase": "pre_optimized"}

    def block_assignment_optimized(self) -> Fields:
        return {"kind": "block_assignment_phase", "phase": "optimized"}

    def block_size(self, size: int) -> Fields:
        return {"kind": "block_size", "bytes": size}

    def block_count_pre(self, blocks: int) -> Fields:
        return {"kind": "block_count", "phase": "pre_optimized", "blocks": blocks}

    def block_count_optimized(self, blocks: int) -> Fields:
        return {"kind": "block_count", "phase": "optimized", "blocks": blocks}

    def block_assignment(self, steps: int) -> Fields:
        return {"kind": "block_assignment", "steps": steps}

    def block_assignment_done(
        self, algorithm: Token, ms: float, blocks: int, nodes: int, size: int
    ) -> Fields:
        return {
            "kind": "block_assignment_done",
            "algorithm": str(algorithm),
            "ms": ms,
            "blocks": blocks,
            "nodes": nodes,
            "bytes": size,
        }

    def activation_memory(self, size: int) -> Fields:
        return {"kind": "activation_memory", "bytes": size}

    def activation_reservation(self, host: int, device: int) -> Fields:
        return {"kind": "activation_reservation", "host_bytes": host, "device_bytes": device}

    def network_io_count(self, inputs: int, outputs: int) -> Fields:
        return {"kind": "network_io_count", "inputs": inputs, "outputs": outputs}

    def persistent_memory(self, label: Token, size: int) -> Fields:
        return {"kind": "persistent_memory", "memory": _PERSISTENT[str(label)], "bytes": size}

    def layer_memory(self, layer: Token, host: int, device: int, scratch: int) -> Fields:
        return {
            "kind": "layer_memory",
            "layer": str(layer),
            "host_persistent_bytes": host,
            "device_persistent_bytes": device,
            "scratch_bytes": scratch,
        }

    def layer_memory_legacy(self, layer: Token, host: int, device: int) -> Fields:
        return {
            "kind": "layer_memory",
            "layer": str(layer),
            "host_persistent_bytes": host,
            "device_persistent_bytes": device,
            "scratch_bytes": None,
        }

    def layer_memory_skipped(self, layers: int) -> Fields:
        return {"kind": "layer_memory_skipped", "layers": layers}

    def engine_generated(self, seconds: float) -> Fields:
        return {"kind": "engine_generated", "seconds": seconds}

    def kernel_index_set(self, layer: Token, index: int) -> Fields:
        return {"kind": "kernel_index_set", "layer": str(layer), "index": index}

    def engine_kernel_count(self, kernels: int) -> Fields:
        return {"kind": "engine_kernel_count", "kernels": kernels}

    def engine_kernel(self, index: int, kernel_kind: Token) -> Fields:
        return {"kind": "engine_kernel", "index": index, "kernel_kind": str(kernel_kind)}

    def plan_engines(self, count: int) -> Fields:
        return {"kind": "plan_contents", "what": "engines", "count": count}

    def plan_engine_weights(self, count: int) -> Fields:
        return {"kind": "plan_contents", "what": "engine_weights", "count": count}

    def cache_code_generator(self, size: int) -> Fields:
        return {"kind": "cache_serialized", "cache": "code_generator", "bytes": size}

    def cache_compilation(self, size: int) -> Fields:
        return {"kind": "cache_serialized", "cache": "compilation", "bytes": size}

    def cache_timing(self, entries: int) -> Fields:
        return {"kind": "cache_serialized", "cache": "timing", "entries": entries}

    def weights_issue(
        self, _start: Token, count: int, reason: Token, listed: Token | None
    ) -> WeightsIssue:
        weights: tuple[str, ...] = ()
        if listed is not None:
            names = str(listed).split(":", 1)[1].strip()
            weights = tuple(n.strip() for n in split_top(names, ", ") if n.strip())
        return WeightsIssue(count=count, reason=str(reason).strip(), weights=weights)

    def weights_conversion_warning(
        self,
        _head: Token,
        _advice: Token | None,
        _check: Token | None,
        *issues: WeightsIssue,
    ) -> Fields:
        return {
            "kind": "weights_conversion_warning",
            "count": sum(issue.count for issue in issues),
            "issues": issues,
        }

    def max_batch_warning(self) -> Fields:
        return {"kind": "max_batch_warning"}

    def engine_built(self, seconds: float) -> Fields:
        return {"kind": "engine_built", "seconds": seconds, "loaded": False}

    def engine_loaded(self, seconds: float) -> Fields:
        return {"kind": "engine_built", "seconds": seconds, "loaded": True}

    def engine_size_created(self, size: float) -> Fields:
        return {"kind": "engine_size", "size_mib": size, "phase": "created"}

    def engine_size_loaded(self, size: float) -> Fields:
        return {"kind": "engine_size", "size_mib": size, "phase": "loaded"}

    def engine_deserialized(self, seconds: float) -> Fields:
        return {"kind": "engine_deserialized", "seconds": seconds, "safe": False}

    def safe_engine_deserialized(self, seconds: float) -> Fields:
        return {"kind": "engine_deserialized", "seconds": seconds, "safe": True}

    def save_failed_write(self) -> Fields:
        return {"kind": "save_failed", "reason": "write", "path": None}

    def save_failed_open(self, path: Token | None) -> Fields:
        return {"kind": "save_failed", "reason": "open", "path": str(path or " ")[1:]}

    def save_failed_serialization(self) -> Fields:
        return {"kind": "save_failed", "reason": "serialization", "path": None}

    def engine_load_size(self, size: int, unit: Token) -> Fields:
        return {"kind": "engine_load_size", "size_mib": size, "unit": str(unit)}

    def engine_deserialization_time(self, microseconds: int) -> Fields:
        return {"kind": "engine_deserialization_time", "microseconds": microseconds}

    def plan_cross_device_warning(self) -> Fields:
        return {"kind": "plan_cross_device_warning"}

    def runtime_memory(self, label: Token, size: int) -> Fields:
        return {"kind": "runtime_memory_verbose", "memory": _RUNTIME[str(label)], "bytes": size}

    def runner_scratch(self, size: int) -> Fields:
        return {"kind": "runtime_memory_verbose", "memory": "runner_scratch", "bytes": size}


_WEIGHTS_LINES = (
    "If this is not the desired behavior, please modify the weights",
    "Check verbose logs for the list of affected weights.",
    "  List of affected weights:",
)


def _is_fp16_issue_line(message: str) -> bool:
    return message.startswith((" - ", "- ", _FP16_ADVICE)) and (
        " weights are affected by this issue: " not in message
    )


_FP16_ADVICE = (
    "If this is not the desired behavior, please modify the weights or retrain with "
    "regularization to reduce"
)


def _is_weights_line(message: str) -> bool:
    return message.startswith(_WEIGHTS_LINES) or (
        message.startswith("- ") and " weights are affected by this issue: " in message
    )


FAMILY = Family(
    name="memory",
    transformer=MemoryTransformer,
    rules=(
        Rule("memory_stats", prefix="[MemUsageStats] "),
        Rule("block_count", prefix="Total number of blocks in "),
        Rule("block_assignment", prefix="[BlockAssignment] "),
        Rule("activation_memory", prefix="Total Activation Memory:"),
        Rule("activation_reservation", prefix="Reserving memory for activation tensors."),
        Rule("network_io_count", prefix="Detected ", contains=" output network tensors."),
        Rule("persistent_memory", prefix="Total Host Persistent Memory:"),
        Rule("persistent_memory", prefix="Total Device Persistent Memory:"),
        Rule("persistent_memory", prefix="Total Scratch Memory:"),
        Rule("persistent_memory", prefix="Max Scratch Memory:"),
        Rule("persistent_memory", prefix="Total Weights Memory:"),
        Rule("layer_memory", prefix="Layer: ", contains=" Host Persistent: "),
        Rule("layer_memory_legacy", prefix="Layer: ", contains=" HostPersistent: "),
        Rule("engine_generated", prefix="Data initialization and engine generation completed"),
        Rule("kernel_index_set", prefix="Finalize: ", contains=" Set kernel index: "),
        Rule("engine_kernel_count", prefix="Total number of generated kernels selected"),
        Rule("plan_contents", prefix="Adding ", contains=" to plan file."),
        Rule(
            "weights_conversion_warning",
            prefix="TensorRT encountered issues when converting weights",
            then="weights_conversion",
        ),
        Rule("max_batch_warning", prefix="The getMaxBatchSize() function should not be used"),
        Rule(
            "weights_fp16_issues",
            prefix="Weights [name=",
            then="weights_fp16_issue_lines",
            bare=True,
        ),
        Rule("plan_cross_device_warning", prefix="Using an engine plan file across different"),
        Rule("runtime_memory_verbose", prefix="Total per-runner "),
        Rule("runtime_memory_verbose", prefix="Allocated activation device memory of size "),
        Rule("runtime_memory_verbose", prefix="Allocated device scratch memory of size "),
    ),
    routed=(
        "embedded_memory_cap",
        "memory_change",
        "memory_snapshot",
        "block_assignment_phase",
        "block_size",
        "layer_memory_skipped",
        "engine_generated",
        "engine_kernel",
        "cache_serialized",
        "engine_built",
        "engine_size",
        "engine_deserialized",
        "save_failed",
        "engine_load_size",
        "engine_deserialization_time",
        "runtime_memory_verbose",
    ),
    continuations=(
        Continuation(
            "weights_fp16_issue_lines",
            bare=_is_fp16_issue_line,
            enveloped=_is_fp16_issue_line,
            max_lines=20,
        ),
        Continuation(
            "weights_conversion",
            bare=_is_weights_line,
            enveloped=_is_weights_line,
            max_lines=100_000,
        ),
    ),
)
