"""Keyword rules and transformer of builder set-up and autotuning (grammars/autotune.lark).

Part of the parser. Tactic lines dominate verbose logs, so these rules are the hot path: they
are exclusive prefix rules and flat (grammar-compiled). Kernel, layer and runner names are
interned: the same few hundred strings repeat over hundreds of thousands of events.
"""

from __future__ import annotations

from sys import intern

from lark import Token, v_args

from trtlog.parse.family import BaseTransformer, Continuation, Family, Fields, Rule
from trtlog.tensors import CompactFormat, parse_compact_format

__all__ = ["FAMILY"]

_MIB = 1024 * 1024


@v_args(inline=True)
class AutotuneTransformer(BaseTransformer):
    """Builds autotuning events."""

    def FORMAT(self, tok: Token) -> CompactFormat:
        return parse_compact_format(str(tok))

    def formats(self, *items: CompactFormat) -> tuple[CompactFormat, ...]:
        return tuple(items)

    def gemm_params(self, split_k: int, _buffers: int, _kernels: int) -> int:
        return split_k

    def runner_id(self, value: int) -> int:
        return value

    def tactic_timing(self, tactic: int, time: float) -> Fields:
        # Every field spelled out: this is the most frequent event of a verbose log, and a
        # complete dict skips the merge with the class defaults.
        return {
            "kind": "tactic_timing",
            "tactic": tactic,
            "time_ms": time,
            "tactic_name": None,
            "split_k": None,
        }

    def tactic_timing_named(
        self, kernel: Token, split_k: int | None, tactic: int, time: float
    ) -> Fields:
        return {
            "kind": "tactic_timing",
            "tactic": tactic,
            "time_ms": time,
            "tactic_name": intern(str(kernel)),
            "split_k": split_k,
        }

    def tactic_name_set_short(self, kernel: Token, split_k: int | None, tactic: int) -> Fields:
        return {
            "kind": "tactic_name_set",
            "tactic_name": intern(str(kernel)),
            "tactic": tactic,
            "split_k": split_k,
        }

    def tactic_name_set_short_after(self, kernel: Token, tactic: int, split_k: int) -> Fields:
        return self.tactic_name_set_short(kernel, split_k, tactic)

    def tactic_skipped(self, tactic: int, requested: int, available: int) -> Fields:
        return {
            "kind": "tactic_skipped",
            "tactic": tactic,
            "requested_bytes": requested,
            "available_bytes": available,
        }

    def tactic_only_option(self, tactic: int) -> Fields:
        return {"kind": "tactic_skipped", "tactic": tactic, "only_option": True}

    def fastest_tactic(self, tactic: int, time: float) -> Fields:
        return {"kind": "fastest_tactic", "tactic": tactic, "time_ms": time}  # complete

    def tactic_name_set(
        self, layer: Token, kernel: Token, tactic: int, split_k: int | None
    ) -> Fields:
        return {
            "kind": "tactic_name_set",
            "layer": str(layer),
            "tactic_name": intern(str(kernel)),
            "tactic": tactic,
            "split_k": split_k,
        }

    def tactic_name_set_impl(self, layer: Token, impl: Token, kernel: Token) -> Fields:
        return {
            "kind": "tactic_name_set",
            "layer": str(layer),
            "tactic_name": intern(str(kernel)),
            "implementation": str(impl),
        }

    def tactic_name_set_anonymous(self, kernel: Token, tactic: int, split_k: int | None) -> Fields:
        return {
            "kind": "tactic_name_set",
            "tactic_name": intern(str(kernel)),
            "tactic": tactic,
            "split_k": split_k,
        }

    def reformat_costs_header(self, _tail: Token | None = None) -> Fields:
        return {"kind": "reformat_costs_header"}

    def layer_costs_header(self, name: Token | None = None) -> Fields:
        return {"kind": "layer_costs_header", "layer": str(name or "").strip()}

    def autotune_reformat(self, source: CompactFormat, target: CompactFormat) -> Fields:
        return {"kind": "autotune_reformat", "from_format": source, "to_format": target}

    def autotune_combination(
        self,
        inputs: tuple[CompactFormat, ...] | None,
        outputs: tuple[CompactFormat, ...] | None,
    ) -> Fields:
        return {
            "kind": "autotune_combination",
            "inputs": inputs or (),
            "outputs": outputs or (),
        }

    def timing_runner(self, layer: Token | None, runner: Token, runner_id: int | None) -> Fields:
        return {
            "kind": "timing_runner",
            "layer": intern(str(layer or "")),
            "runner": intern(str(runner)),
            "runner_id": runner_id,
        }

    def legacy_timing_header(self, layer: Token, runner_id: int) -> Fields:
        return {"kind": "legacy_timing_header", "layer": str(layer), "runner_id": runner_id}

    def runner_choice(self, runner: Token, tactic: int) -> Fields:
        return {"kind": "runner_choice", "runner": intern(str(runner)), "tactic": tactic}

    def legacy_runner_choice(self, runner_id: int, tactic: int) -> Fields:
        return {"kind": "legacy_runner_choice", "runner_id": runner_id, "tactic": tactic}

    def runner_profiled(
        self,
        layer: Token | None,
        runner: Token,
        runner_id: int | None,
        seconds: float,
        tactic: int,
        time: float,
    ) -> Fields:
        return {
            "kind": "runner_profiled",
            "layer": intern(str(layer or "")),
            "runner": intern(str(runner)),
            "runner_id": runner_id,
            "seconds": seconds,
            "tactic": tactic,
            "time_ms": time,
        }

    def runner_skipped(self, runner: Token) -> Fields:
        return {"kind": "runner_skipped", "runner": intern(str(runner))}

    def runner_skipped_for(self, runner: Token, layer: Token) -> Fields:
        return {"kind": "runner_skipped", "runner": intern(str(runner)), "layer": str(layer)}

    def tactic_gpu_error(self, layer: Token, message: Token) -> Fields:
        return {"kind": "tactic_gpu_error", "layer": str(layer), "message": str(message)}

    def tactics_done(self, seconds: float) -> Fields:
        return {"kind": "tactics_done", "seconds": seconds}

    def state_prefix(self) -> str:
        return "UNSUPPORTED_STATE"

    def memory_hint(self, text: Token) -> str:
        return str(text).strip()

    def tactic_skipped_memory(
        self,
        state: str | None,
        index: int,
        _word: Token,
        requested: int,
        tactic: int,
        hint: str | None,
    ) -> Fields:
        return {
            "kind": "tactic_skipped_memory",
            "variant": "skipping",
            "index": index,
            "tactic": tactic,
            "requested_bytes": requested,
            "error_code": state,
            "hint": hint,
        }

    def tactic_device_request(self, requested_mb: int, available_mb: int) -> Fields:
        return {
            "kind": "tactic_skipped_memory",
            "variant": "device_request",
            "requested_bytes": requested_mb * _MIB,
            "available_bytes": available_mb * _MIB,
        }

    def gpu_allocation_failed(self, requested: int) -> Fields:
        return {
            "kind": "tactic_skipped_memory",
            "variant": "allocation",
            "requested_bytes": requested,
        }

    def kernel_note(self, kernel: Token) -> Fields:
        return {"kind": "kernel_note", "tactic_name": intern(str(kernel))}

    def tactic_source_on(self, source: Token) -> Fields:
        return {"kind": "tactic_source", "sources": (str(source),), "enabled": True}

    def tactic_source_off(self, sources: Token) -> Fields:
        names = tuple(s.strip() for s in str(sources).split(",") if s.strip())
        return {"kind": "tactic_source", "sources": names, "enabled": False}

    def timing_cache_mode(self, mode: Token, _rest: Token) -> Fields:
        return {"kind": "timing_cache_mode", "mode": str(mode).lower()}

    def timing_cache_invalid(self) -> Fields:
        return {"kind": "timing_cache_warning", "reason": "invalid"}

    def timing_cache_unreadable(self, path: Token) -> Fields:
        return {"kind": "timing_cache_warning", "reason": "unreadable", "path": str(path)}

    def profile_start(self, profile: int, position: int, count: int) -> Fields:
        return {"kind": "profile_start", "profile": profile, "position": position, "count": count}

    def profile_start_legacy(self, profile: int, count: int) -> Fields:
        return {"kind": "profile_start", "profile": profile, "count": count}

    def host_io_reservation(self, size: int) -> Fields:
        return {"kind": "host_io_reservation", "bytes": size}

    def compiler_backend(self, phase: Token) -> Fields:
        return {"kind": "compiler_backend", "phase": str(phase)}

    def workspace_hint(self, _rest: Token | None = None) -> Fields:
        return {"kind": "workspace_hint"}


def _is_workspace_hint(text: str) -> bool:
    return text.startswith("Try decreasing the workspace size")


FAMILY = Family(
    name="autotune",
    transformer=AutotuneTransformer,
    rules=(
        Rule("tactic_line", prefix="Tactic: "),
        Rule("tactic_line", prefix="Tactic "),
        Rule("tactic_named", prefix="Tactic Name: "),
        Rule("fastest_tactic", prefix="Fastest Tactic: "),
        Rule("tactic_name_set", prefix="Set Tactic Name: "),
        Rule("tactic_name_set", contains=" Set Tactic Name: "),
        Rule("reformat_costs_header", prefix="=============== Computing reformatting costs"),
        Rule("layer_costs_header", prefix="=============== Computing costs for"),
        Rule("autotune_reformat", prefix="*************** Autotuning Reformat: "),
        Rule("autotune_combination", prefix="*************** Autotuning format combination: "),
        Rule("timing_runner", prefix="--------------- Timing Runner: "),
        Rule("legacy_timing_header", prefix="--------------- Timing "),
        Rule("runner_choice", prefix=">>>>>>>>>>>>>>> Chose Runner Type: "),
        Rule("legacy_runner_choice", prefix="--------------- Chose "),
        Rule("runner_profiled", contains=") profiling completed in "),
        Rule("runner_skipped", contains=" has no valid tactics for this config, skipping"),
        Rule("tactic_skipped_memory", prefix="Skipping tactic ", then="workspace_hint_line"),
        Rule("tactic_skipped_memory", prefix="UNSUPPORTED_STATESkipping tactic "),
        Rule("tactic_skipped_memory", prefix="UNSUPPORTED_STATE: Skipping tactic "),
        Rule("tactic_skipped_memory", prefix="Tactic Device request: "),
        Rule("tactic_skipped_memory", prefix="Requested amount of GPU memory ("),
        Rule("runner_skipped_for", prefix="Skipping "),
        Rule("tactic_gpu_error", prefix="GPU error during getBestTactic: "),
        Rule("tactics_done", prefix="Formats and tactics selection completed in "),
        Rule("kernel_note", prefix="Unrecognized MMA instruction source format or shape: "),
        Rule("tactic_source", prefix="Using ", contains=" as a tactic source"),
        Rule("tactic_source", prefix="Disabling unused tactic source: "),
        Rule("timing_cache_mode", prefix="Local timing cache in use."),
        Rule("timing_cache_mode", prefix="Global timing cache in use."),
        Rule("timing_cache_warning", prefix="Detected invalid timing cache"),
        Rule("timing_cache_warning", prefix="Could not read timing cache from: "),
        Rule("profile_start", prefix="Constructing optimization profile number "),
        Rule("host_io_reservation", prefix="Reserving memory for host IO tensors."),
        Rule("compiler_backend", prefix="Compiler backend is used during engine "),
        Rule("workspace_hint", prefix="Some tactics do not have sufficient workspace memory"),
    ),
    continuations=(
        Continuation("workspace_hint_line", bare=_is_workspace_hint, blank=False, max_lines=1),
    ),
)
