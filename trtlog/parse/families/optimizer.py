"""Keyword rules and transformer of graph optimization and placement (grammars/optimizer.lark).

Part of the parser: the dispatcher sends messages here by the rules below; the transformer
turns each parsed alternative into the fields of its event (trtlog.events.optimizer).
"""

from __future__ import annotations

from typing import Any

from lark import Token, v_args

from trtlog.names import split_top
from trtlog.parse.family import BaseTransformer, Family, Fields, Rule

__all__ = ["FAMILY"]


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
        names = [n.strip() for n in split_top(str(rest or ""), ",")]
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

    def dla_offloaded(self, layer: Token) -> Fields:
        return {"kind": "dla_offloaded", "layer": str(layer)}

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


FAMILY = Family(
    name="optimizer",
    transformer=OptimizerTransformer,
    rules=(
        Rule("optimizer_start", prefix="Applying generic optimizations to the graph"),
        Rule("layer_count", prefix="Original: "),
        Rule("layer_count", prefix="After "),
        Rule("graph_build_done", prefix="Graph construction "),
        Rule("graph_opt_time", prefix="Graph optimization time: "),
        Rule("pass_run", prefix="Running: "),
        Rule("conv_scale_fusion", prefix="Fusing convolution weights from "),
        Rule("fusion_unnamed_pass", prefix="Fusing "),
        Rule("fusion", contains=": Fusing "),
        Rule("fusion_into", contains=": fusing "),
        Rule("layer_removed", prefix="Removing "),
        Rule("layer_swap", prefix="Swapping "),
        Rule("qdq_swap", prefix="Swap the layer type of "),
        Rule("layer_type_change", prefix="Convert layer type of "),
        Rule("eliminating", prefix="Eliminating "),
        Rule("qdq_phase", prefix="QDQ "),
        Rule("horizontal_merge", prefix="Merging layers: "),
        Rule("copy_generated", prefix="Generating copy for "),
        Rule("retarget", prefix="Retargeting "),
        Rule("optimizer_note", prefix="Applying ScaleNodes fusions."),
        Rule("optimizer_note", prefix="Trying to split Reshape and strided tensor"),
        Rule("optimizer_note", prefix="[GraphReduction] "),
        Rule("squeeze_push_down", prefix="-----------SqueezePushDown "),
        Rule("missing_scale", prefix="Missing scale and zero-point for tensor "),
        Rule("default_quantization", prefix="Setting a default quantization params because "),
        Rule("scale_override", prefix="User overriding scale with "),
        Rule("placement_header", prefix="---------- Layers Running on "),
        Rule("placement_list", prefix="--------------- Layers running on "),
        Rule("placement_dla", prefix="[DlaLayer] "),
        Rule("placement_gpu", prefix="[GpuLayer] "),
        Rule("dla_offload_summary", prefix="Number of DLA node candidates offloaded"),
        Rule("dla_offloaded", contains=" successfully offloaded to DLA."),
        Rule("dla_fallback", prefix="Default DLA is enabled but layer "),
        Rule("dla_fallback", prefix="Layer '", contains=": Unsupported on DLA."),
        Rule("dla_fallback", prefix="DLA only supports FP16 and Int8 precision type."),
        Rule("dla_fallback", prefix="DLA Layer "),
        Rule("dla_fallback", prefix="setDefaultDeviceType was called but no layer"),
        Rule("dla_fallback", contains=": DLA cores do not support "),
    ),
)
