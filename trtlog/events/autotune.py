"""Events of builder set-up and autotuning (formats.md §F, §G).

Part of the data model (pydantic only). Tactic ids are unsigned 64-bit integers whatever the
version printed (decimal or hex, T26; :func:`trtlog.numbers.format_tactic` gives the 8.4+
spelling); times are milliseconds as floats (``inf`` occurs).
"""

from __future__ import annotations

from typing import Literal

from trtlog.events.base import EventBase
from trtlog.events.fields import LayerName
from trtlog.tensors import CompactFormat

__all__ = [
    "AutotuneCombination",
    "AutotuneEvent",
    "AutotuneReformat",
    "CompilerBackend",
    "FastestTactic",
    "HostIoReservation",
    "KernelNote",
    "LayerCostsHeader",
    "LegacyRunnerChoice",
    "LegacyTimingHeader",
    "ProfileStart",
    "ReformatCostsHeader",
    "RunnerChoice",
    "RunnerProfiled",
    "RunnerSkipped",
    "TacticGpuError",
    "TacticNameSet",
    "TacticSkipped",
    "TacticSkippedMemory",
    "TacticSource",
    "TacticTiming",
    "TacticsDone",
    "TimingCacheMode",
    "TimingCacheWarning",
    "TimingRunner",
    "WorkspaceHint",
]


class TacticSource(EventBase):
    """``Using <src> as a tactic source`` / ``Disabling unused tactic source: <SRC>, <SRC>``.

    Attributes:
        sources: the tactic sources named (``cublasLt``, ``CUBLAS``...).
        enabled: ``True`` for ``Using``, ``False`` for ``Disabling``.
    """

    kind: Literal["tactic_source"] = "tactic_source"
    sources: tuple[str, ...]
    enabled: bool


class TimingCacheMode(EventBase):
    """``Local|Global timing cache in use. ...`` (8.2+)."""

    kind: Literal["timing_cache_mode"] = "timing_cache_mode"
    mode: Literal["local", "global"]


class TimingCacheWarning(EventBase):
    """The timing cache could not be used.

    Attributes:
        reason: ``invalid`` (``Detected invalid timing cache...``) or ``unreadable``.
        path: the cache file, for ``unreadable``.
    """

    kind: Literal["timing_cache_warning"] = "timing_cache_warning"
    reason: Literal["invalid", "unreadable"]
    path: str | None = None


class ProfileStart(EventBase):
    """``Constructing optimization profile number <i> [<k>/<n>].`` (or ``out of <n>``)."""

    kind: Literal["profile_start"] = "profile_start"
    profile: int
    position: int | None = None
    count: int


class HostIoReservation(EventBase):
    """``Reserving memory for host IO tensors. Host: <n> bytes`` (8.6)."""

    kind: Literal["host_io_reservation"] = "host_io_reservation"
    bytes: int


class CompilerBackend(EventBase):
    """``Compiler backend is used during engine build|execution.`` (10.x)."""

    kind: Literal["compiler_backend"] = "compiler_backend"
    phase: Literal["build", "execution"]


class WorkspaceHint(EventBase):
    """``Some tactics do not have sufficient workspace memory to run. ...``."""

    kind: Literal["workspace_hint"] = "workspace_hint"


class ReformatCostsHeader(EventBase):
    """``=============== Computing reformatting costs`` (often several in a row)."""

    kind: Literal["reformat_costs_header"] = "reformat_costs_header"


class LayerCostsHeader(EventBase):
    """``=============== Computing costs for <layer>`` (the name can be empty)."""

    kind: Literal["layer_costs_header"] = "layer_costs_header"
    layer: LayerName


class AutotuneReformat(EventBase):
    """``*************** Autotuning Reformat: <from> -> <to> ***************``."""

    kind: Literal["autotune_reformat"] = "autotune_reformat"
    from_format: CompactFormat
    to_format: CompactFormat


class AutotuneCombination(EventBase):
    """``*************** Autotuning format combination: <ins> -> <outs> ***************``.

    Attributes:
        inputs: input formats (strides, not dims; T15); may be empty.
        outputs: output formats; may be empty.
    """

    kind: Literal["autotune_combination"] = "autotune_combination"
    inputs: tuple[CompactFormat, ...]
    outputs: tuple[CompactFormat, ...]


class TimingRunner(EventBase):
    """``--------------- Timing Runner: <layer> (<runner>[<id>])``.

    Attributes:
        layer: the layer timed; for reformats a synthetic text such as
            ``Optimizer Reformat(<in> -> x)``.
        runner: the runner (``CaskConvolution``, ``Reformat``...).
        runner_id: the 10.x runner id (``0x80000009``), if printed.
    """

    kind: Literal["timing_runner"] = "timing_runner"
    layer: LayerName
    runner: str
    runner_id: int | None = None


class LegacyTimingHeader(EventBase):
    """``--------------- Timing <layer>(<runnerId>)`` (TRT ≤ 6)."""

    kind: Literal["legacy_timing_header"] = "legacy_timing_header"
    layer: LayerName
    runner_id: int


class TacticTiming(EventBase):
    """One timed tactic: ``Tactic: <id> Time: <ms>`` and all its version shapes (G.7).

    Attributes:
        tactic: the tactic id (unsigned 64-bit).
        time_ms: the measured time in milliseconds.
        tactic_name: the kernel name, for the 8.5+ ``Tactic Name: <k> Tactic: ...`` shape.
        split_k: ``numSplitK`` of gemm kernels, when printed.
    """

    kind: Literal["tactic_timing"] = "tactic_timing"
    tactic: int
    time_ms: float
    tactic_name: str | None = None
    split_k: int | None = None


class TacticNameSet(EventBase):
    """A tactic's kernel name: ``<layer> Set Tactic Name: <kernel> Tactic: <id>`` (G.6).

    Attributes:
        layer: the layer, when printed.
        tactic_name: the kernel name.
        tactic: the tactic id, when printed (7.x prints an implementation name instead).
        implementation: the 7.x implementation in parentheses (``h1688cudnn``).
        split_k: ``numSplitK`` of gemm kernels, when printed.
    """

    kind: Literal["tactic_name_set"] = "tactic_name_set"
    layer: LayerName | None = None
    tactic_name: str
    tactic: int | None = None
    implementation: str | None = None
    split_k: int | None = None


class TacticSkipped(EventBase):
    """A tactic skipped for want of scratch memory, or the only option (G.8).

    Attributes:
        tactic: the tactic id.
        requested_bytes: scratch memory requested, if printed.
        available_bytes: scratch memory available, if printed.
        only_option: ``Tactic <id> is the only option, timing skipped`` (TRT ≤ 6).
    """

    kind: Literal["tactic_skipped"] = "tactic_skipped"
    tactic: int
    requested_bytes: int | None = None
    available_bytes: int | None = None
    only_option: bool = False


class TacticSkippedMemory(EventBase):
    """A tactic skipped for insufficient device memory ([W], G.9), in all its shapes.

    Attributes:
        variant: ``skipping`` (``Skipping tactic <i> due to ...``), ``device_request``
            (``Tactic Device request: <n>MB Available: <m>MB ...``) or ``allocation``
            (``Requested amount of GPU memory (<n> bytes) could not be allocated ...``).
        index: the tactic's index in the runner (``skipping``).
        tactic: the tactic id (``skipping``).
        requested_bytes: the memory requested (``MB`` values converted to bytes).
        available_bytes: the memory available (``device_request``).
        error_code: ``UNSUPPORTED_STATE`` when the message carries it (9.x+).
        hint: the continuation line of 8.x (``Try decreasing the workspace size ...``).
    """

    kind: Literal["tactic_skipped_memory"] = "tactic_skipped_memory"
    variant: Literal["skipping", "device_request", "allocation"]
    index: int | None = None
    tactic: int | None = None
    requested_bytes: int | None = None
    available_bytes: int | None = None
    error_code: str | None = None
    hint: str | None = None


class FastestTactic(EventBase):
    """``Fastest Tactic: <id> Time: <ms>`` (7.x - 9.x)."""

    kind: Literal["fastest_tactic"] = "fastest_tactic"
    tactic: int
    time_ms: float


class RunnerProfiled(EventBase):
    """``<layer> (<runner>[<id>]) profiling completed in <s> seconds. Fastest Tactic: ...``.

    The 10.x form that folds ``fastest_tactic`` into one line.
    """

    kind: Literal["runner_profiled"] = "runner_profiled"
    layer: LayerName
    runner: str
    runner_id: int | None = None
    seconds: float
    tactic: int
    time_ms: float


class RunnerChoice(EventBase):
    """``>>>>>>>>>>>>>>> Chose Runner Type: <runner> Tactic: <id>``."""

    kind: Literal["runner_choice"] = "runner_choice"
    runner: str
    tactic: int


class LegacyRunnerChoice(EventBase):
    """``--------------- Chose <runnerId> (<tactic>)`` (TRT ≤ 6)."""

    kind: Literal["legacy_runner_choice"] = "legacy_runner_choice"
    runner_id: int
    tactic: int


class RunnerSkipped(EventBase):
    """``<Runner> has no valid tactics for this config, skipping`` / ``Skipping <R>: ...``."""

    kind: Literal["runner_skipped"] = "runner_skipped"
    runner: str
    layer: LayerName | None = None


class TacticGpuError(EventBase):
    """``GPU error during getBestTactic: <layer> : <message>`` ([W])."""

    kind: Literal["tactic_gpu_error"] = "tactic_gpu_error"
    layer: LayerName
    message: str


class TacticsDone(EventBase):
    """``Formats and tactics selection completed in <s> seconds.``."""

    kind: Literal["tactics_done"] = "tactics_done"
    seconds: float


class KernelNote(EventBase):
    """``Unrecognized MMA instruction source format or shape: <kernel>`` (8.5, corpus)."""

    kind: Literal["kernel_note"] = "kernel_note"
    tactic_name: str


AutotuneEvent = (
    TacticSource
    | TimingCacheMode
    | TimingCacheWarning
    | ProfileStart
    | HostIoReservation
    | CompilerBackend
    | WorkspaceHint
    | ReformatCostsHeader
    | LayerCostsHeader
    | AutotuneReformat
    | AutotuneCombination
    | TimingRunner
    | LegacyTimingHeader
    | TacticTiming
    | TacticNameSet
    | TacticSkipped
    | TacticSkippedMemory
    | FastestTactic
    | RunnerProfiled
    | RunnerChoice
    | LegacyRunnerChoice
    | RunnerSkipped
    | TacticGpuError
    | TacticsDone
    | KernelNote
)
