"""Keyword rules and transformer of builder set-up and autotuning (grammars/autotune.lark).

Part of the parser. Tactic lines dominate verbose logs, so these rules are the hot path: they
are exclusive prefix rules and flat (grammar-compiled). Kernel, layer and runner names are
interned: the same few hundred strings repeat over hundreds of thousands of events.
"""

from __future__ import annotations

from functools import lru_cache
from sys import intern

from lark import Token, v_args

from trtlog.names import parse_metadata
from trtlog.parser.family import BaseTransformer, Continuation, Family, Fields, Rule
from trtlog.tensors import CompactFormat, parse_compact_format

__all__ = ["FAMILY"]

_MIB = 1024 * 1024
_LONG_STRIDED = " long-strided"

#: A side of a format list: the formats, and the positions of those marked ``long-strided``.
FormatList = tuple[tuple[CompactFormat, ...], tuple[int, ...]]
_NO_FORMATS: FormatList = ((), ())


@lru_cache(maxsize=4096)
def _format_list(text: str) -> FormatList:
    """``Float(1,2), Half(3,4) long-strided`` → the formats and the long-strided positions.

    Formats are separated by ``", "``; the numbers inside one format by ``","`` alone.
    """
    formats: list[CompactFormat] = []
    marked: list[int] = []
    for i, item in enumerate(text.split(", ")):
        if item.endswith(_LONG_STRIDED):
            item = item[: -len(_LONG_STRIDED)]
            marked.append(i)
        formats.append(parse_compact_format(item))
    return tuple(formats), tuple(marked)


def _split_tensor(head: str) -> tuple[str, str | None]:
    """``<layer> (<tensor>`` → layer and tensor, split at the last top-level `` (``.

    The tensor may hold balanced parentheses itself (``(Unnamed Layer* 3) [Shuffle]_output``).
    """
    depth = 0
    for i in range(len(head) - 1, 0, -1):
        char = head[i]
        if char == ")":
            depth += 1
        elif char == "(":
            if depth:
                depth -= 1
            elif head[i - 1] == " ":
                return head[: i - 1], head[i + 1 :]
    return head, None


@v_args(inline=True)
class AutotuneTransformer(BaseTransformer):
    """Builds autotuning events."""

    def FORMAT(self, tok: Token) -> CompactFormat:
        return parse_compact_format(str(tok))

    def FORMAT_LIST(self, tok: Token) -> FormatList:
        return _format_list(str(tok))

    MYELIN_ID = staticmethod(int)  # "   0": int() ignores the padding

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

    def tactic_name_only(self, kernel: Token) -> Fields:
        return {"kind": "tactic_name_set", "tactic_name": intern(str(kernel))}

    def tactic_skipped(self, tactic: int, requested: int, available: int) -> Fields:
        return {
            "kind": "tactic_skipped",
            "tactic": tactic,
            "requested_bytes": requested,
            "available_bytes": available,
        }

    def strict_type_violation(self, layer: Token, _rest: Token | None) -> Fields:
        return {"kind": "strict_type_violation", "layer": str(layer)}

    def tactic_fast_skipped(self, tactic: int) -> Fields:
        return {"kind": "tactic_fast_skipped", "tactic": tactic}

    @staticmethod
    def _sparsity(kind: str, count: int, names: Token | None, myelin: bool) -> Fields:
        # ", " separates the layers; a fused layer's own " + " stays inside its name
        layers = tuple(str(names)[1:].split(", ")) if names is not None else ()
        return {"kind": kind, "count": count, "layers": layers, "myelin": myelin}

    def sparsity_eligible(self, count: int, names: Token | None) -> Fields:
        return self._sparsity("sparsity_eligible", count, names, False)

    def sparsity_eligible_myelin(self, count: int, names: Token | None) -> Fields:
        return self._sparsity("sparsity_eligible", count, names, True)

    def sparsity_chosen(self, count: int, names: Token | None) -> Fields:
        return self._sparsity("sparsity_chosen", count, names, False)

    def sparsity_chosen_myelin(self, count: int, names: Token | None) -> Fields:
        return self._sparsity("sparsity_chosen", count, names, True)

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

    def autotune_reformat(
        self,
        source: CompactFormat,
        source_long: Token | None,
        target: CompactFormat,
        target_long: Token | None,
    ) -> Fields:
        return {
            "kind": "autotune_reformat",
            "from_format": source,
            "to_format": target,
            "from_long_strided": source_long is not None,
            "to_long_strided": target_long is not None,
        }

    def autotune_combination(self, inputs: FormatList | None, outputs: FormatList | None) -> Fields:
        ins = inputs or _NO_FORMATS
        outs = outputs or _NO_FORMATS
        return {
            "kind": "autotune_combination",
            "inputs": ins[0],
            "outputs": outs[0],
            "long_strided_inputs": ins[1],
            "long_strided_outputs": outs[1],
        }

    def autotune_combination_symbolic(self, text: Token) -> Fields:
        # formats hold no " -> " and no " where ": the first splits the sides, the second
        # starts the definitions of the repeated expressions
        sides, _, symbols = str(text).partition(" where ")
        inputs, _, outputs = sides.partition(" -> ")
        return {
            "kind": "autotune_combination_symbolic",
            "inputs": inputs,
            "outputs": outputs,
            "symbols": symbols or None,
        }

    def cached_tactic(
        self,
        layer: Token,
        inputs: FormatList | None,
        outputs: FormatList | None,
        runner: Token,
        tactic: int,
        time: float,
    ) -> Fields:
        return {
            "kind": "cached_tactic",
            "layer": intern(str(layer)),
            "inputs": (inputs or _NO_FORMATS)[0],
            "outputs": (outputs or _NO_FORMATS)[0],
            "runner": intern(str(runner)),
            "tactic": tactic,
            "time_ms": time,
        }

    def tactic_pruning(
        self, layer: Token, available: int, unparsable: int, pruned: int, remaining: int
    ) -> Fields:
        return {
            "kind": "tactic_pruning",
            "layer": str(layer),
            "available": available,
            "unparsable": unparsable,
            "pruned": pruned,
            "remaining": remaining,
        }

    def reformat_layer_added(
        self, head: Token, source: CompactFormat, target: CompactFormat
    ) -> Fields:
        layer, tensor = _split_tensor(str(head))
        return {
            "kind": "reformat_layer_added",
            "layer": layer,
            "tensor": tensor,
            "from_format": source,
            "to_format": target,
        }

    def nonconforming_implementation(self, layer: Token, advice: Token) -> Fields:
        return {"kind": "nonconforming_implementation", "layer": str(layer), "advice": str(advice)}

    def timing_runner(self, layer: Token | None, runner: Token, runner_id: int | None) -> Fields:
        return {
            "kind": "timing_runner",
            "layer": "" if layer is None else intern(str(layer)),
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
            "layer": "" if layer is None else intern(str(layer)),
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

    def tactic_skipped_exception(self, tactic: int, cause: Token, what: Token | None) -> Fields:
        return {
            "kind": "tactic_skipped_exception",
            "tactic": tactic,
            "cause": "exception" if str(cause) == "exception" else "myelin_error",
            "exception": str(what).removeprefix(":").strip() if what is not None else "",
        }

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

    def tactic_source_role(self, source: Token, role: Token) -> Fields:
        return {
            "kind": "tactic_source",
            "sources": (str(source),),
            "enabled": True,
            "role": str(role),
        }

    def tactic_source_off(self, sources: Token) -> Fields:
        names = tuple(s.strip() for s in str(sources).split(",") if s.strip())
        return {"kind": "tactic_source", "sources": names, "enabled": False}

    def timing_cache_mode(self, mode: Token, _rest: Token) -> Fields:
        return {"kind": "timing_cache_mode", "mode": str(mode).lower()}

    def timing_cache_invalid(self) -> Fields:
        return {"kind": "timing_cache_warning", "reason": "invalid"}

    def timing_cache_unreadable(self, path: Token) -> Fields:
        return {"kind": "timing_cache_warning", "reason": "unreadable", "path": str(path)}

    def timing_cache_deleted(self, entries: int, hits: int) -> Fields:
        return {"kind": "timing_cache_deleted", "entries": entries, "hits": hits}

    def timing_cache_serialized(self, uuid: Token, commit: Token) -> Fields:
        return {"kind": "timing_cache_serialized", "uuid": str(uuid), "commit_id": str(commit)}

    def timing_cache_saved(self, size: int, path: Token) -> Fields:
        return {"kind": "timing_cache_saved", "bytes": size, "path": str(path)}

    def timing_cache_loaded(self, size: int, path: Token) -> Fields:
        return {"kind": "timing_cache_loaded", "bytes": size, "path": str(path)}

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

    # -- Myelin ----------------------------------------------------------------------------

    def myelin_tactic(
        self,
        tactic_id: int,
        time: float,
        relative: float,
        correlation: float,
        kernel: Token,
        tactic_hash: int,
        tail: Token | None,
    ) -> Fields:
        # Hot: hundreds of rows per Myelin region; every field spelled out (no merge).
        tunable: str | None = None
        extra: tuple[str, ...] = ()
        if tail is not None:
            # " <tunable>[, <extra column>...]" after the hash's comma
            first, *rest = str(tail)[1:].split(", ")
            tunable = first or None
            extra = tuple(rest)
        return {
            "kind": "myelin_tactic",
            "tactic_id": tactic_id,
            "time_ms": time,
            "relative": relative,
            "correlation": correlation,
            "kernel": intern(str(kernel)),
            "tactic_hash": tactic_hash,
            "tunable": tunable,
            "extra_columns": extra,
        }

    def myelin_table_columns(self, rest: Token) -> Fields:
        columns = ("tactic_id", *(c.strip() for c in str(rest).split(",")))
        return {"kind": "myelin_table_columns", "columns": columns}

    def myelin_note_sorted_table(self) -> Fields:
        return {"kind": "myelin_note", "text": "Sorted table of all evaluated tactics:"}

    def myelin_note_kernel_library(self) -> Fields:
        return {"kind": "myelin_note", "text": "Set user's cuda kernel library"}

    def mlir_codegen(self, file: Token, function: Token, text: Token) -> Fields:
        message = str(text)
        blob = message.removeprefix("blob.name_: ") if message.startswith("blob.name_: ") else None
        return {
            "kind": "mlir_codegen",
            "file": str(file),
            "function": str(function),
            "message": message,
            "kernel": blob,
        }

    def myelin_autotune_op(self, op: Token, metadata: Token) -> Fields:
        return {
            "kind": "myelin_autotune_op",
            "op": str(op),
            "onnx_layers": parse_metadata(str(metadata))[0],
        }

    def myelin_scales_to_fp32(self, role: Token) -> Fields:
        return {"kind": "myelin_scales_to_fp32", "scales": str(role)}

    def myelin_pass_skipped(self, name: Token, reason: Token) -> Fields:
        return {"kind": "myelin_pass_skipped", "pass_name": str(name), "reason": str(reason)}

    def myelin_mem_budget(self, source: Token, function: Token, budget: int, need: int) -> Fields:
        return {
            "kind": "myelin_mem_budget",
            "source": str(source),
            "function": str(function),
            "budget_bytes": budget,
            "needed_bytes": need,
        }

    def workspace_advice_api(self, call: Token) -> Fields:
        return {"kind": "workspace_advice", "api": str(call)}

    def workspace_advice_option(self, pool: Token, size: int) -> Fields:
        return {"kind": "workspace_advice", "pool": str(pool), "size_mib": size}

    def foreign_node_metadata(self, layer: Token, metadata: Token | None) -> Fields:
        text = str(metadata or "")[1:]
        return {
            "kind": "foreign_node_metadata",
            "layer": str(layer),
            "onnx_layers": parse_metadata(text)[0],
        }

    def subgraph_compiled(self, seconds: float) -> Fields:
        return {"kind": "subgraph_compiled", "seconds": seconds}

    def fusions_enabled(self, precision: Token, level: int) -> Fields:
        return {"kind": "fusions_enabled", "precision": str(precision), "level": level}

    def tactic_count_set(self, count: int, level: int) -> Fields:
        return {"kind": "tactic_count_set", "count": count, "level": level}

    def profiling_workspace(self, size: int) -> Fields:
        return {"kind": "profiling_workspace", "bytes": size}

    def backend_strategy_build(self, strategy: int) -> Fields:
        return {"kind": "backend_strategy", "action": "build", "strategy": strategy}

    def backend_strategy_initial(self, strategy: int, time: float) -> Fields:
        return {
            "kind": "backend_strategy",
            "action": "initial",
            "strategy": strategy,
            "estimated_time": time,
        }

    def backend_strategy_chosen(self, strategy: int, time: float, previous: float) -> Fields:
        return {
            "kind": "backend_strategy",
            "action": "chosen",
            "strategy": strategy,
            "estimated_time": time,
            "previous_time": previous,
        }

    def backend_strategy_skipped(self, strategy: int, time: float, previous: float) -> Fields:
        return {
            "kind": "backend_strategy",
            "action": "skipped",
            "strategy": strategy,
            "estimated_time": time,
            "previous_time": previous,
        }

    def builder_note(self, text: Token) -> Fields:
        return {"kind": "builder_note", "text": str(text)}


_COMBINATION = "*************** Autotuning format combination: "
# the type words of the autotuner's formats (``Float(...)``, ``Half(...)``...)
_SYMBOLIC_TYPE_WORDS = (
    "Float",
    "Half",
    "BFloat16",
    "Int8",
    "Int32",
    "Int64",
    "UInt8",
    "Bool",
    "FP8",
    "FP4",
    "Int4",
)


def _is_workspace_hint(text: str) -> bool:
    return text.startswith("Try decreasing the workspace size")


FAMILY = Family(
    name="autotune",
    transformer=AutotuneTransformer,
    rules=(
        # TensorRT-LLM: the code generator's bare lines (no envelope)
        Rule("mlir_codegen", prefix="[mlir_fusion_codegen.cpp::", bare=True, enveloped=False),
        Rule("tactic_name_set", contains=" Set Tactic Name: "),
        Rule("autotune_reformat", prefix="*************** Autotuning Reformat:"),
        # a format combination with symbolic strides (dynamic shapes, 10.16 and TensorRT-RTX):
        # its own start rule, one row per type word the autotuner prints
        *(
            Rule("autotune_combination_symbolic", prefix=f"{_COMBINATION}{word}((")
            for word in _SYMBOLIC_TYPE_WORDS
        ),
        Rule("runner_profiled", contains=") profiling completed in "),
        Rule("runner_skipped", contains=" has no valid tactics for this config, skipping"),
        Rule("tactic_skipped_memory", prefix="Skipping tactic ", then="workspace_hint_line"),
        Rule("tactic_skipped_exception", prefix="Skipping tactic 0x"),
        Rule("tactic_skipped_memory", prefix="UNSUPPORTED_STATESkipping tactic "),
        Rule("tactic_skipped_memory", prefix="UNSUPPORTED_STATE: Skipping tactic "),
        Rule("tactic_source", prefix="Using ", contains=" tactic source"),
        Rule("timing_cache_mode", prefix="Local timing cache in use."),
        Rule("timing_cache_mode", prefix="Global timing cache in use."),
        Rule("timing_cache_warning", prefix="Detected invalid timing cache"),
        Rule("host_io_reservation", prefix="Reserving memory for host IO tensors."),
        Rule("workspace_hint", prefix="Some tactics do not have sufficient workspace memory"),
        Rule("timing_cache_serialized", prefix="Serializing timing cache. "),
        Rule("timing_cache_saved", prefix="Saved ", contains=" bytes of timing cache to "),
        Rule("timing_cache_loaded", prefix="Loaded ", contains=" bytes of timing cache from "),
        Rule("cached_tactic", contains=" got cached result: "),
        Rule("tactic_pruning", contains=" available tactics, "),
        # Myelin: one exclusive prefix for all its " (foreignNode) " lines (hot path)
        Rule("workspace_advice", prefix=" Example of equivalent trtexec option: "),
        Rule("fusions_enabled", prefix="Enabling ", contains=" fusions at optimization level "),
        Rule("builder_note", prefix="InternalBuildFlags::"),
    ),
    routed=(
        "tactic_line",
        "tactic_fast_skip",
        "strict_type_violation",
        "sparsity_layers",
        "tactic_named",
        "fastest_tactic",
        "tactic_name_set",
        "reformat_costs_header",
        "layer_costs_header",
        "autotune_combination",
        "timing_runner",
        "legacy_timing_header",
        "runner_choice",
        "legacy_runner_choice",
        "tactic_skipped_memory",
        "runner_skipped_for",
        "tactic_gpu_error",
        "tactics_done",
        "kernel_note",
        "tactic_source",
        "timing_cache_warning",
        "profile_start",
        "compiler_backend",
        "timing_cache_deleted",
        "reformat_layer_added",
        "nonconforming_implementation",
        "foreign_node_line",
        "workspace_advice",
        "foreign_node_metadata",
        "subgraph_compiled",
        "tactic_count_set",
        "profiling_workspace",
        "backend_strategy",
    ),
    continuations=(
        Continuation("workspace_hint_line", bare=_is_workspace_hint, blank=False, max_lines=1),
    ),
)
