"""Keyword rules and transformer of graph optimization and placement (grammars/optimizer.lark).

Part of the parser: the dispatcher sends messages here by the rules below; the transformer
turns each parsed alternative into the fields of its event (trtlog.events.optimizer).
"""

from __future__ import annotations

from typing import Any

from lark import Token, v_args

from trtlog.names import split_top
from trtlog.parser.family import BaseTransformer, Continuation, Family, Fields, Rule

__all__ = ["FAMILY"]

_GRAPH_DUMP = "graph_dump"


@v_args(inline=True)
class OptimizerTransformer(BaseTransformer):
    """Builds optimizer and placement events."""

    def optimizer_start(self) -> Fields:
        return {"kind": "optimizer_start"}

    def layer_count_original(self, n: int) -> Fields:
        return {"kind": "layer_count", "stage": "Original", "layers": n}

    def layer_count(self, phase: Token, n: int) -> Fields:
        return {"kind": "layer_count", "stage": str(phase), "layers": n}

    def graph_build_done_both(self, seconds: float) -> Fields:
        return {"kind": "graph_build_done", "seconds": seconds, "includes_optimization": True}

    def graph_build_done(self, seconds: float) -> Fields:
        return {"kind": "graph_build_done", "seconds": seconds, "includes_optimization": False}

    def graph_opt_time(self, seconds: float) -> Fields:
        return {"kind": "graph_opt_time", "seconds": seconds}

    def pass_run(self, name: Token, layer: Token) -> Fields:
        return {"kind": "pass_run", "pass_name": str(name), "layer": str(layer)}

    def pass_run_unnamed(self, name: Token) -> Fields:
        return {"kind": "pass_run", "pass_name": str(name), "layer": None}

    def fusion(self, name: Token, first: Token, second: Token) -> Fields:
        return {
            "kind": "fusion",
            "pass_name": str(name),
            "first": str(first),
            "second": str(second),
        }

    def fusion_unnamed_pass(self, first: Token, second: Token) -> Fields:
        return {"kind": "fusion", "pass_name": None, "first": str(first), "second": str(second)}

    def conv_scale_fusion(self, conv: Token, scale: Token) -> Fields:
        return {"kind": "conv_scale_fusion", "conv": str(conv), "scale": str(scale)}

    def fusion_into_pair(self, name: Token, a: Token, b: Token, target: Token) -> Fields:
        return {
            "kind": "fusion_into",
            "pass_name": str(name),
            "sources": (str(a), str(b)),
            "target": str(target),
        }

    def fusion_into(self, name: Token, source: Token, target: Token) -> Fields:
        return {
            "kind": "fusion_into",
            "pass_name": str(name),
            "sources": (str(source),),
            "target": str(target),
        }

    def layer_removed(self, layer: Token) -> Fields:
        return {"kind": "layer_removed", "layer": str(layer)}

    def layer_swap(self, first: Token, second: Token) -> Fields:
        return {"kind": "layer_swap", "first": str(first), "second": str(second)}

    def qdq_swap(self, layer: Token, old: Token, new: Token) -> Fields:
        return {"kind": "qdq_swap", "layer": str(layer), "from_type": str(old), "to_type": str(new)}

    def layer_type_change(self, layer: Token, old: Token, new: Token) -> Fields:
        return {
            "kind": "layer_type_change",
            "layer": str(layer),
            "from_type": str(old),
            "to_type": str(new),
        }

    def slice_elimination(self, sl: Token, tensor: Token, old: Token, new: Token) -> Fields:
        return {
            "kind": "slice_elimination",
            "slice": str(sl),
            "tensor": str(tensor),
            "from_tensor": str(old),
            "to_tensor": str(new),
        }

    def concat_elimination(self, concat: Token) -> Fields:
        return {"kind": "concat_elimination", "concat": str(concat)}

    def qdq_dedup(self, layer: Token, qdq: Token, original: Token) -> Fields:
        return {
            "kind": "qdq_dedup",
            "layer": str(layer),
            "qdq": str(qdq),
            "duplicate_of": str(original),
        }

    def qdq_phase(self, phase: Token) -> Fields:
        return {"kind": "qdq_phase", "phase": str(phase)}

    def horizontal_merge(self, rest: Token) -> Fields:
        return {"kind": "horizontal_merge", "layers": tuple(split_top(str(rest), " || "))}

    def copy_generated(self, tensor: Token, target: Token, reason: Token) -> Fields:
        return {
            "kind": "copy_generated",
            "tensor": str(tensor),
            "target": str(target),
            "reason": str(reason),
        }

    def retarget(self, tensor: Token, target: Token) -> Fields:
        return {"kind": "retarget", "tensor": str(tensor), "target": str(target)}

    def copy_inserted(self, side: Token, layer: Token) -> Fields:
        return {"kind": "copy_inserted", "position": str(side), "layer": str(layer)}

    def input_replaced(self, index: int, layer: Token, tensor: Token, producer: Token) -> Fields:
        return {
            "kind": "input_replaced",
            "layer": str(layer),
            "index": index,
            "tensor": str(tensor),
            "producer": str(producer),
        }

    def input_broadcast(
        self, layer: Token, index: int, dims0: Token | None, dims1: Token | None
    ) -> Fields:
        return {
            "kind": "input_broadcast",
            "layer": str(layer),
            "input_index": index,
            "input0_dims": _ints(dims0),
            "input1_dims": _ints(dims1),
        }

    def dynamic_range_set(self, tensor: Token, low: float, high: float) -> Fields:
        return {"kind": "dynamic_range_set", "tensor": str(tensor), "low": low, "high": high}

    def quantization(
        self, scales: Token | None, zeros: Token | None
    ) -> tuple[tuple[float, ...], tuple[float, ...]]:
        return _numbers(str(scales or "")), _numbers(str(zeros or ""))

    def scale_source(
        self, tensor: Token, quant: tuple[tuple[float, ...], tuple[float, ...]]
    ) -> tuple[str, tuple[float, ...], tuple[float, ...]]:
        return str(tensor), quant[0], quant[1]

    def scale_assigned(
        self, tensor: Token, source: tuple[str, tuple[float, ...], tuple[float, ...]] | None
    ) -> Fields:
        fields: Fields = {"kind": "scale_assigned", "tensor": str(tensor)}
        if source is not None:
            fields["source"], fields["scales"], fields["zero_points"] = source
        return fields

    def scale_overridden(
        self,
        tensor: Token,
        quant: tuple[tuple[float, ...], tuple[float, ...]],
        source: tuple[str, tuple[float, ...], tuple[float, ...]] | None,
    ) -> Fields:
        fields: Fields = {
            "kind": "scale_overridden",
            "tensor": str(tensor),
            "scales": quant[0],
            "zero_points": quant[1],
        }
        if source is not None:
            fields["source"], fields["source_scales"], fields["source_zero_points"] = source
        return fields

    def builder_mode_configured(self, mode: Token, seconds: float) -> Fields:
        return {"kind": "builder_mode_configured", "mode": str(mode), "seconds": seconds}

    def unused_input(self, tensor: Token) -> Fields:
        return {"kind": "unused_input", "tensor": str(tensor), "kept": False}

    def unused_input_kept(self, tensor: Token) -> Fields:
        return {"kind": "unused_input", "tensor": str(tensor), "kept": True}

    def graph_dump_header(self, title: Token) -> Fields:
        return {"kind": "graph_dump_header", "title": str(title)}

    def graph_dump_layer(self, layer_type: Token, name: Token) -> Fields:
        return {"kind": "graph_dump_layer", "layer_type": str(layer_type), "layer": str(name)}

    def graph_dump_io(self, side: Token, index: int) -> Fields:
        return {"kind": "graph_dump_io", "side": str(side).lower(), "index": index}

    def graph_dump_dims(self, values: Token) -> Fields:
        return {"kind": "graph_dump_dims", "values": tuple(str(values).split("\t"))}

    def multi_stream_count(self, counted: Token, count: int) -> Fields:
        return {"kind": "multi_stream_count", "counted": _MS_COUNTED[str(counted)], "count": count}

    def multi_stream_done(self, seconds: float) -> Fields:
        return {"kind": "multi_stream_done", "seconds": seconds}

    def multi_stream_disabled(self, reason: Token) -> Fields:
        return {"kind": "multi_stream_disabled", "reason": str(reason)}

    def multi_stream_engine(self) -> Fields:
        return {"kind": "multi_stream_note", "text": "Running engine with multi stream info"}

    def multi_stream_main(self) -> Fields:
        return {
            "kind": "multi_stream_note",
            "text": "The main stream provided by execute/enqueue calls is the first worker stream",
        }

    def optimizer_note(self, text: Token) -> Fields:
        return {"kind": "optimizer_note", "text": str(text)}

    def squeeze_push_down(self, case: Token, chain: Token) -> Fields:
        return {
            "kind": "squeeze_push_down",
            "case": str(case),
            "layers": tuple(str(chain).split(" --> ")),
        }

    def missing_scale(self, tensor: Token) -> Fields:
        return {"kind": "missing_scale", "tensor": str(tensor)}

    def default_quantization(self, layer: Token | None) -> Fields:
        # The name is empty in 8.5 logs for some layers; the trailing blank is stripped.
        return {"kind": "default_quantization", "layer": str(layer or "")[1:]}

    def scale_override(self, scales: Token | None, zeros: Token | None) -> Fields:
        return {
            "kind": "scale_override",
            "scales": _numbers(str(scales or "")),
            "zero_points": _numbers(str(zeros or "")),
        }

    def placement_header(self, device: Token) -> Fields:
        return {"kind": "placement_header", "device": str(device)}

    def placement_list(self, device: Token, rest: Token | None) -> Fields:
        # the 7.1 list may come on the next line (joined with "\n" by the continuation)
        text = str(rest or "").replace("\n", ", ")
        names = [n.strip() for n in split_top(text, ",")]
        return {
            "kind": "placement_list",
            "device": str(device),
            "layers": tuple(n for n in names if n),
        }

    def placement_dla(self, layer: Token) -> Fields:
        return {"kind": "placement_dla", "layer": str(layer)}

    def placement_gpu(self, layer_type: Token, layer: Token) -> Fields:
        return {"kind": "placement_gpu", "layer": str(layer), "layer_type": str(layer_type)}

    def placement_gpu_untyped(self, layer: Token) -> Fields:
        return {"kind": "placement_gpu", "layer": str(layer), "layer_type": None}

    def dla_offload_summary(self, offloaded: int, candidates: int) -> Fields:
        return {"kind": "dla_offload_summary", "offloaded": offloaded, "candidates": candidates}

    def placement_none(self, device: Token) -> Fields:
        return {"kind": "placement_none", "device": str(device)}

    def dla_memory_header(self) -> Fields:
        return {"kind": "dla_memory_header"}

    def dla_memory_summary(self, sram: int, local: int, global_: int) -> Fields:
        return {
            "kind": "dla_memory_summary",
            "managed_sram_mib": sram,
            "local_dram_mib": local,
            "global_dram_mib": global_,
        }

    def dla_offloaded(self, layer: Token) -> Fields:
        return {"kind": "dla_offloaded", "layer": str(layer)}

    def dla_subgraph_limit(self, limit: int, layer: Token) -> Fields:
        return {"kind": "dla_subgraph_limit", "limit": limit, "layer": str(layer)}

    def dla_profile_fallback(self) -> Fields:
        return {"kind": "dla_profile_fallback"}

    def dla_fallback_default(self, layer: Token) -> Fields:
        return _fallback("not_supported", layer=str(layer))

    def dla_fallback_unsupported(self, layer: Token, layer_type: Token) -> Fields:
        return _fallback("unsupported_type", layer=str(layer), layer_type=str(layer_type))

    def dla_fallback_precision(self, layer: Token) -> Fields:
        return _fallback("precision", layer=str(layer))

    def dla_fallback_dynamic(self, layer: Token) -> Fields:
        return _fallback("dynamic_shape", layer=str(layer))

    def dla_fallback_none(self) -> Fields:
        return _fallback("no_dla_layer")

    def dla_fallback_op(self, layer: Token, what: Token) -> Fields:
        return _fallback(
            "operation", layer=str(layer), detail=str(what).removesuffix(" operation.")
        )


def _fallback(reason: str, **fields: Any) -> Fields:
    return {"kind": "dla_fallback", "reason": reason, **fields}


def _numbers(text: str) -> tuple[float, ...]:
    return tuple(float(p) for p in text.split(",") if p.strip())


def _ints(text: Token | None) -> tuple[int, ...]:
    return tuple(int(p) for p in str(text).split(",")) if text else ()


_MS_COUNTED = {
    "streams used": "streams",
    "events used": "events",
    "aux streams": "aux_streams",
    "total worker streams": "worker_streams",
}


def _is_scale_source(message: str) -> bool:
    return message.startswith("using ")


def _is_placement_names(message: str) -> bool:
    # The line after a 7.1 "Layers running on <device>: " header: a comma-joined list of
    # names, empty when no layer runs there. Headers and sentences are not lists.
    return not message.startswith("-") and not message.endswith(".")


FAMILY = Family(
    name="optimizer",
    transformer=OptimizerTransformer,
    rules=(
        Rule("optimizer_start", prefix="Applying generic optimizations to the graph"),
        Rule("graph_build_done", prefix="Graph construction "),
        Rule("graph_dump_header", prefix="SYMBOLIC CHECKS", enters=_GRAPH_DUMP),
        Rule("graph_dump_header", prefix="GRAPH NODES", enters=_GRAPH_DUMP),
        Rule("graph_dump_io", prefix="    Input ", section=_GRAPH_DUMP),
        Rule("graph_dump_io", prefix="    Output ", section=_GRAPH_DUMP),
        Rule("graph_dump_dims", prefix="        ", section=_GRAPH_DUMP),
        Rule("graph_dump_layer", section=_GRAPH_DUMP),
        Rule("graph_build_done", prefix="Graph construction ", section=_GRAPH_DUMP, leaves=True),
        Rule("fusion", contains=": Fusing "),
        Rule("fusion_into", contains=": fusing "),
        Rule("eliminating", prefix="Eliminating "),
        Rule("qdq_phase", prefix="QDQ "),
        Rule("copy_inserted", prefix="Generating copy after "),
        Rule("copy_inserted", prefix="Generating copy before "),
        Rule("input_broadcast", contains=": broadcasting input"),
        Rule("scale_assigned", prefix="Assigning ", then="scale_source"),
        Rule("scale_overridden", prefix="Overriding ", then="scale_source"),
        Rule("multi_stream", prefix="[MS] "),
        Rule("optimizer_note", prefix="Applying ScaleNodes fusions."),
        Rule("optimizer_note", prefix="Trying to split Reshape and strided tensor"),
        Rule("optimizer_note", prefix="[GraphReduction] "),
        Rule("default_quantization", prefix="Setting a default quantization params because "),
        Rule("scale_override", prefix="User overriding scale with "),
        Rule("placement_list", prefix="--------------- Layers running on ", then="placement_names"),
        Rule("dla_offload_summary", prefix="Number of DLA node candidates offloaded"),
        Rule("dla_offload_summary", prefix="\tNumber of DLA node candidates offloaded"),
        Rule("dla_memory_summary", prefix="\tTotal memory required by accepted candidates"),
        Rule("dla_offloaded", contains=" successfully offloaded to DLA."),
        Rule("dla_fallback", prefix="Layer '", contains=": Unsupported on DLA."),
        Rule("dla_fallback", prefix="DLA only supports FP16 and Int8 precision type."),
        Rule("dla_fallback", prefix="setDefaultDeviceType was called but no layer"),
        Rule("dla_subgraph_limit", prefix="DLA supports only "),
        Rule("dla_profile_fallback", prefix="DLA requests all profiles have same min, max"),
        Rule("dla_fallback", contains=": DLA cores do not support "),
    ),
    routed=(
        "layer_count",
        "graph_opt_time",
        "pass_run",
        "conv_scale_fusion",
        "fusion_unnamed_pass",
        "layer_removed",
        "layer_swap",
        "qdq_swap",
        "layer_type_change",
        "horizontal_merge",
        "copy_generated",
        "retarget",
        "input_replaced",
        "dynamic_range_set",
        "builder_mode_configured",
        "unused_input",
        "unused_input_kept",
        "squeeze_push_down",
        "missing_scale",
        "placement_header",
        "placement_none",
        "placement_dla",
        "placement_gpu",
        "dla_memory_header",
        "dla_fallback",
    ),
    continuations=(
        # "using <tensor> scale and zero-point Quantization(...)" completes the line before it
        Continuation(
            "scale_source",
            bare=lambda _text: False,
            enveloped=_is_scale_source,
            blank=False,
            max_lines=2,
        ),
        # 7.1: the names of "--------------- Layers running on GPU: " come on the next line
        Continuation(
            "placement_names",
            bare=lambda _text: False,
            enveloped=_is_placement_names,
            blank=False,
            max_lines=2,
        ),
    ),
)
