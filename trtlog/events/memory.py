"""Events of the memory family: memory use, memory planning, engine generation, save and load.

formats.md §B.7, §B.8 (``[MemUsageChange]``, ``[MemUsageSnapshot]``), §H (block assignment,
activation/persistent memory, engine generation, trtexec's engine build/save/load lines, the
library's engine load lines) and §I.4 (runtime memory at context creation).

Part of the data model (pydantic only). Each class's ``kind`` is the event name of formats.md;
sizes printed in bytes are ``int`` fields named ``bytes``, sizes printed in MiB keep the unit in
the field name (``cpu_mib``, ``size_mib``).
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict

from trtlog.events.base import EventBase
from trtlog.events.fields import LayerName

__all__ = [
    "ActivationMemory",
    "ActivationReservation",
    "BlockAssignment",
    "BlockAssignmentDone",
    "BlockAssignmentPhase",
    "BlockCount",
    "BlockSize",
    "CacheSerialized",
    "EmbeddedMemoryCap",
    "EngineBuilt",
    "EngineDeserializationTime",
    "EngineDeserialized",
    "EngineGenerated",
    "EngineKernel",
    "EngineKernelCount",
    "EngineLoadSize",
    "EngineSize",
    "KernelIndexSet",
    "LayerMemory",
    "LayerMemorySkipped",
    "MaxBatchWarning",
    "MemoryChange",
    "MemoryEvent",
    "MemorySnapshot",
    "MemoryStats",
    "NetworkIoCount",
    "PersistentMemory",
    "PlanContents",
    "PlanCrossDeviceWarning",
    "RuntimeMemoryVerbose",
    "SaveFailed",
    "WeightsConversionWarning",
    "WeightsFp16Issues",
    "WeightsIssue",
]


class MemoryChange(EventBase):
    """``[MemUsageChange] <phase>: CPU <+d>, GPU <+d>, now: CPU <c>, GPU <g> (MiB)`` (8.0+).

    Attributes:
        phase: what used the memory (``Init CUDA``, ``Init builder kernel library``,
            ``TensorRT-managed allocation in building engine``...).
        cpu_delta_mib: the change of CPU memory (may be negative).
        gpu_delta_mib: the change of GPU memory (may be negative).
        cpu_mib: the CPU memory in use after it.
        gpu_mib: the GPU memory in use after it.
    """

    kind: Literal["memory_change"] = "memory_change"
    phase: str
    cpu_delta_mib: int
    gpu_delta_mib: int
    cpu_mib: int
    gpu_mib: int


class MemorySnapshot(EventBase):
    """``[MemUsageSnapshot] <phase>: CPU <c> MiB, GPU <g> MiB`` (8.0-8.2).

    Attributes:
        phase: ``Builder begin``, ``Builder end``, ``deserializeCudaEngine begin``...
        cpu_mib: CPU memory in use.
        gpu_mib: GPU memory in use.
    """

    kind: Literal["memory_snapshot"] = "memory_snapshot"
    phase: str
    cpu_mib: int
    gpu_mib: int


class MemoryStats(EventBase):
    """``[MemUsageStats] Peak memory usage ...`` (8.4+).

    ``... of TRT CPU/GPU memory allocators: CPU <c> MiB, GPU <g> MiB``; 10.0 also prints
    ``... during Engine building and serialization: CPU: <c> MiB`` (no GPU figure).

    Attributes:
        scope: ``allocators`` or ``build_and_serialization``.
        cpu_mib: the peak CPU memory.
        gpu_mib: the peak GPU memory, if printed.
    """

    kind: Literal["memory_stats"] = "memory_stats"
    scope: Literal["allocators", "build_and_serialization"] = "allocators"
    cpu_mib: int
    gpu_mib: int | None = None


class BlockAssignmentPhase(EventBase):
    """``Pre-optimized block assignment.`` / ``Optimized block assignment.`` ([V], 7.x-8.6).

    Attributes:
        phase: ``pre_optimized`` or ``optimized``.
    """

    kind: Literal["block_assignment_phase"] = "block_assignment_phase"
    phase: Literal["pre_optimized", "optimized"]


class BlockSize(EventBase):
    """``Block size <n>``: one memory block of an assignment ([V], 7.x-8.x).

    Attributes:
        bytes: the block size.
    """

    kind: Literal["block_size"] = "block_size"
    bytes: int


class BlockCount(EventBase):
    """``Total number of blocks in [pre-]optimized block assignment: <n>`` ([V], 8.x-10.x).

    Attributes:
        phase: ``pre_optimized`` or ``optimized``.
        blocks: the number of blocks.
    """

    kind: Literal["block_count"] = "block_count"
    phase: Literal["pre_optimized", "optimized"]
    blocks: int


class BlockAssignment(EventBase):
    """``[BlockAssignment] Started assigning block shifts. This will take <n> steps to complete.``.

    Attributes:
        steps: the number of steps announced (8.5+).
    """

    kind: Literal["block_assignment"] = "block_assignment"
    steps: int


class BlockAssignmentDone(EventBase):
    """The block assignment is done (8.2+).

    ``[BlockAssignment] Algorithm <alg> took <t>ms to assign <k> blocks to <n> nodes requiring
    <b> bytes.``

    Attributes:
        algorithm: the algorithm (``ShiftNTopDown``...).
        ms: the time it took, in milliseconds.
        blocks: the number of blocks.
        nodes: the number of nodes.
        bytes: the memory required.
    """

    kind: Literal["block_assignment_done"] = "block_assignment_done"
    algorithm: str
    ms: float
    blocks: int
    nodes: int
    bytes: int


class ActivationMemory(EventBase):
    """``Total Activation Memory: <n>`` (``bytes`` suffix in later 10.x; [V] ≤ 8.0, [I] after).

    Attributes:
        bytes: the activation memory of the engine.
    """

    kind: Literal["activation_memory"] = "activation_memory"
    bytes: int


class ActivationReservation(EventBase):
    """``Reserving memory for activation tensors. Host: <n> bytes Device: <n> bytes`` ([V], 8.2).

    Attributes:
        host_bytes: host memory reserved.
        device_bytes: device memory reserved.
    """

    kind: Literal["activation_reservation"] = "activation_reservation"
    host_bytes: int
    device_bytes: int


class NetworkIoCount(EventBase):
    """``Detected <n> inputs and <m> output network tensors.`` (``input`` singular in ≤ 6).

    Attributes:
        inputs: the number of network inputs.
        outputs: the number of network outputs.
    """

    kind: Literal["network_io_count"] = "network_io_count"
    inputs: int
    outputs: int


class PersistentMemory(EventBase):
    """An engine memory total ([I], 8.4+; ``bytes`` suffix in later 10.x).

    ``Total Host Persistent Memory: <n>``, ``Total Device Persistent Memory: <n>``,
    ``Total Scratch Memory: <n>`` (8.4 - 10.x early), ``Max Scratch Memory: <n> bytes`` (later
    10.x), ``Total Weights Memory: <n>`` (10.0+).

    Attributes:
        memory: ``host_persistent``, ``device_persistent``, ``scratch``, ``max_scratch`` or
            ``weights``.
        bytes: the size.
    """

    kind: Literal["persistent_memory"] = "persistent_memory"
    memory: Literal["host_persistent", "device_persistent", "scratch", "max_scratch", "weights"]
    bytes: int


class LayerMemory(EventBase):
    """``Layer: <layer> Host Persistent: <n> Device Persistent: <n> Scratch Memory: <n>`` ([V]).

    8.5/8.6 print bare numbers, 10.x adds ``bytes`` after each; 8.0-8.2 print ``Layer: <layer>
    HostPersistent: <n> DevicePersistent: <n>`` (no scratch figure).

    Attributes:
        layer: the engine layer.
        host_persistent_bytes: its host persistent memory.
        device_persistent_bytes: its device persistent memory.
        scratch_bytes: its scratch memory (``None`` in 8.0-8.2).
    """

    kind: Literal["layer_memory"] = "layer_memory"
    layer: LayerName
    host_persistent_bytes: int
    device_persistent_bytes: int
    scratch_bytes: int | None = None


class LayerMemorySkipped(EventBase):
    """``Skipped printing memory information for <n> layers with 0 memory size i.e. ...`` ([V]).

    Attributes:
        layers: the number of layers without memory (8.6+).
    """

    kind: Literal["layer_memory_skipped"] = "layer_memory_skipped"
    layers: int


class EngineGenerated(EventBase):
    """``Engine generation completed in <s> seconds.`` ([V] ≤ 8.x, [I] 9.x+).

    ≤ 6 print ``Data initialization and engine generation completed in <s> seconds.``.

    Attributes:
        seconds: the engine generation time.
    """

    kind: Literal["engine_generated"] = "engine_generated"
    seconds: float


class KernelIndexSet(EventBase):
    """``Finalize: <layer> Set kernel index: <n>``: the engine kernel of a layer ([V], 8.5+).

    Attributes:
        layer: the engine layer.
        index: its kernel's index in the engine (see ``engine_kernel``).
    """

    kind: Literal["kernel_index_set"] = "kernel_index_set"
    layer: LayerName
    index: int


class EngineKernelCount(EventBase):
    """``Total number of generated kernels selected for the engine: <n>`` ([V], 8.5+).

    Attributes:
        kernels: the number of kernels in the engine.
    """

    kind: Literal["engine_kernel_count"] = "engine_kernel_count"
    kernels: int


class EngineKernel(EventBase):
    """``Kernel: <n> <kind>``: one kernel of the engine ([V], 8.5+), after ``engine_kernel_count``.

    Attributes:
        index: the kernel index.
        kernel_kind: how it is stored (``CASK_STATIC``,
            ``TRT_SERIALIZABLE:generatedNativePointwise``...).
    """

    kind: Literal["engine_kernel"] = "engine_kernel"
    index: int
    kernel_kind: str


class PlanContents(EventBase):
    """``Adding <n> engine(s) to plan file.`` / ``Adding <n> engine weights(s) to plan file.``.

    [V], 8.6+.

    Attributes:
        what: ``engines`` or ``engine_weights``.
        count: the number added (8.6+).
    """

    kind: Literal["plan_contents"] = "plan_contents"
    what: Literal["engines", "engine_weights"]
    count: int


class CacheSerialized(EventBase):
    """A builder cache was serialized with the engine ([I], 10.x).

    ``Serialized <n> bytes of code generator cache.``, ``Serialized <n> bytes of compilation
    cache.``, ``Serialized <n> timing cache entries``.

    Attributes:
        cache: ``code_generator``, ``compilation`` or ``timing``.
        bytes: the size, for the byte caches.
        entries: the number of entries, for the timing cache.
    """

    kind: Literal["cache_serialized"] = "cache_serialized"
    cache: Literal["code_generator", "compilation", "timing"]
    bytes: int | None = None
    entries: int | None = None


class WeightsIssue(BaseModel):
    """One ``- <n> weights are affected by this issue: <reason>`` line and its weights list.

    Attributes:
        count: the number of weights affected.
        reason: the issue as printed (``Detected subnormal FP16 values.``).
        weights: the weights listed by the verbose ``  List of affected weights: ...`` line
            (``<layer>.weight`` / ``<layer>.bias``), when printed.

    Example:
        >>> WeightsIssue(count=2, reason="Detected subnormal FP16 values.").weights
        ()
    """

    model_config = ConfigDict(frozen=True, defer_build=True, extra="forbid")

    count: int
    reason: str
    weights: tuple[str, ...] = ()


class WeightsConversionWarning(EventBase):
    """TensorRT changed weights when converting their type ([W] block, 8.6+), ONE event.

    ::

        TensorRT encountered issues when converting weights between types and that could ...
        If this is not the desired behavior, please modify the weights or retrain with ...
        Check verbose logs for the list of affected weights.
        - 63 weights are affected by this issue: Detected subnormal FP16 values.
          List of affected weights: a.weight, b.bias          ([V], when verbose)

    Attributes:
        count: the number of weights affected (summed over the issues).
        issues: each ``- <n> weights are affected by this issue: <reason>`` line, in order.
    """

    kind: Literal["weights_conversion_warning"] = "weights_conversion_warning"
    count: int
    issues: tuple[WeightsIssue, ...] = ()


class MaxBatchWarning(EventBase):
    """``The getMaxBatchSize() function should not be used with an engine built ...``.

    8.5/8.6 ([W]).
    """

    kind: Literal["max_batch_warning"] = "max_batch_warning"


class EngineBuilt(EventBase):
    """trtexec's ``Engine built in <s> sec.`` / ``Engine loaded in <s> sec.`` (7.2+).

    Attributes:
        seconds: the time.
        loaded: ``True`` for ``Engine loaded in`` (the engine was read from a file).
    """

    kind: Literal["engine_built"] = "engine_built"
    seconds: float
    loaded: bool = False


class EngineSize(EventBase):
    """trtexec's ``Created engine with size: <n> MiB`` / ``Loaded engine with size: <n> MiB``.

    9.x+.

    Attributes:
        size_mib: the serialized engine size.
        phase: ``created`` or ``loaded``.
    """

    kind: Literal["engine_size"] = "engine_size"
    size_mib: float
    phase: Literal["created", "loaded"] = "created"


class EngineDeserialized(EventBase):
    """trtexec's ``Engine deserialized in <s> sec.`` / ``SafeEngine deserialized in <s> sec.``.

    8.4+.

    Attributes:
        seconds: the deserialization time.
        safe: ``True`` for a safety engine.
    """

    kind: Literal["engine_deserialized"] = "engine_deserialized"
    seconds: float
    safe: bool = False


class SaveFailed(EventBase):
    """trtexec could not save the engine ([E], all versions).

    ``Saving engine to file failed.``, ``Cannot open engine file: <f>``, ``Engine serialization
    failed``.

    Attributes:
        reason: ``write``, ``open`` or ``serialization``.
        path: the engine file, for ``open``.
    """

    kind: Literal["save_failed"] = "save_failed"
    reason: Literal["write", "open", "serialization"]
    path: str | None = None


class EngineLoadSize(EventBase):
    """The library's ``Loaded engine size: <n> MiB`` (8.2+; ``MB`` in 8.0) on deserialization.

    Attributes:
        size_mib: the size as printed (a whole number).
        unit: the unit printed (``MiB`` or ``MB``).
    """

    kind: Literal["engine_load_size"] = "engine_load_size"
    size_mib: int
    unit: Literal["MiB", "MB"] = "MiB"


class EngineDeserializationTime(EventBase):
    """The library's ``Deserialization required <n> microseconds.`` ([V] 8.x; ``Deserialize`` ≤ 6).

    Attributes:
        microseconds: the deserialization time.
    """

    kind: Literal["engine_deserialization_time"] = "engine_deserialization_time"
    microseconds: int


class EmbeddedMemoryCap(EventBase):
    """A Jetson module TensorRT does not know: a default memory cap ([W], 8.x-10.x).

    ``Unknown embedded device detected. Using <n>MiB as the allocation cap for memory on
    embedded devices.`` TensorRT did not find the Jetson module in its table and caps its
    allocations at a default share of the memory; the build goes on (the fatal 8.2 form, ``Assertion
    upperBound != 0 failed. Unknown embedded device detected. ...``, is an internal error).

    Attributes:
        cap_mib: the allocation cap, in MiB as printed.
    """

    kind: Literal["embedded_memory_cap"] = "embedded_memory_cap"
    cap_mib: int


class WeightsFp16Issues(EventBase):
    """``Weights [name=<w>] had the following issues when converted to FP16:`` and its lines.

    The per-weights form of 8.4/8.5 ([W]): the issue lines (`` - Subnormal FP16 values
    detected.``, `` - Values less than smallest positive FP16 Subnormal value detected. ...``)
    and the closing advice belong to it.

    Attributes:
        weights: the weights' name (``<layer>.weight`` or ``.bias``).
        issues: the issue lines, without the leading ``- ``.
        advice: whether the closing ``If this is not the desired behavior ...`` line follows.
    """

    kind: Literal["weights_fp16_issues"] = "weights_fp16_issues"
    weights: str
    issues: tuple[str, ...] = ()
    advice: bool = False


class PlanCrossDeviceWarning(EventBase):
    """``Using an engine plan file across different models of devices is not recommended ...``.

    [W], on deserialization.
    """

    kind: Literal["plan_cross_device_warning"] = "plan_cross_device_warning"


class RuntimeMemoryVerbose(EventBase):
    """Memory the runtime sets up for an execution context ([V], §I.4).

    ``Total per-runner device persistent memory is <n>``, ``Total per-runner host persistent
    memory is <n>`` (8.0: ``Total per-runner device memory is <n>`` / ``... host memory is``),
    ``Allocated activation device memory of size <n>`` (8.x), ``Allocated device scratch memory
    of size <n>`` and ``- Runner scratch: <n> bytes`` (10.16).

    Attributes:
        memory: ``per_runner_device_persistent``, ``per_runner_host_persistent``,
            ``per_runner_device``, ``per_runner_host``, ``activation_device``,
            ``scratch_device`` or ``runner_scratch``.
        bytes: the size.
    """

    kind: Literal["runtime_memory_verbose"] = "runtime_memory_verbose"
    memory: Literal[
        "per_runner_device_persistent",
        "per_runner_host_persistent",
        "per_runner_device",
        "per_runner_host",
        "activation_device",
        "scratch_device",
        "runner_scratch",
    ]
    bytes: int


MemoryEvent = (
    WeightsFp16Issues
    | EmbeddedMemoryCap
    | MemoryChange
    | MemorySnapshot
    | MemoryStats
    | BlockAssignmentPhase
    | BlockSize
    | BlockCount
    | BlockAssignment
    | BlockAssignmentDone
    | ActivationMemory
    | ActivationReservation
    | NetworkIoCount
    | PersistentMemory
    | LayerMemory
    | LayerMemorySkipped
    | EngineGenerated
    | KernelIndexSet
    | EngineKernelCount
    | EngineKernel
    | PlanContents
    | CacheSerialized
    | WeightsConversionWarning
    | MaxBatchWarning
    | EngineBuilt
    | EngineSize
    | EngineDeserialized
    | SaveFailed
    | EngineLoadSize
    | EngineDeserializationTime
    | PlanCrossDeviceWarning
    | RuntimeMemoryVerbose
)
