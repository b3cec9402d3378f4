"""Keyword rules and transformer of model parsing (grammars/onnx.lark).

Part of the parser: the dispatcher sends messages here by the rules below; the transformer
turns each parsed alternative into the fields of its event (trtlog.events.onnx). Model parsing
(formats.md §C): trtexec parse lines, ONNX parser messages, node errors and shape set-up.

Three multi-line constructs are continuations (formats.md T4): the model-info block (10 lines,
with or without envelopes), the parser's node error (enveloped lines with the node's protobuf
text on bare lines in between) and trtexec's plugin-library note.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from lark import Token, v_args

from trtlog._pydantic import assemble
from trtlog.events.onnx import OnnxTensor
from trtlog.parser.family import BaseTransformer, Continuation, Family, Fields, Rule

__all__ = ["FAMILY"]

_Source = tuple[str, int]
_Failure = dict[str, object]

# One item of a node's input/output list: "[name -> (1, 3)[FLOAT]]" (8.0-GA+), "[name -> (1, 3)]"
# (7.x), "[optional input, not set]". The grammar captures the whole list as one token; items
# are read left to right, a name ending at the first " -> (" that a shape and "]" follow.
_IO_ITEM = re.compile(
    r"\[(?:(?P<unset>optional input, not set)"
    r"|(?P<name>.*?) -> \((?P<dims>-?\d+(?:, -?\d+)*)?\)(?:\[(?P<dtype>[A-Za-z0-9_]+)\])?)\]"
    r"(?:, ?|$)",
    re.DOTALL,
)
# A top-level "key: value" line of the node's protobuf text.
_PROTO_FIELD = re.compile(r'(?P<key>name|op_type|input|output): "(?P<value>.*)"$')


def _tail(tok: Token | None) -> str:
    """A trailing name: the TAIL token without its leading blank (``""`` when absent)."""
    return "" if tok is None else str(tok)[1:]


def _label_value(tok: Token | None) -> str:
    """The value of a ``Label:   value`` line of the model-info block."""
    return "" if tok is None else str(tok).split(":", 1)[1].strip()


def _dims(text: str) -> tuple[int, ...]:
    """``(1, 3, 224, 224)`` → ``(1, 3, 224, 224)``; ``()`` → ``()``; ``_`` reads ``-1``."""
    inner = text.strip()[1:-1].strip().rstrip(",")
    if not inner:
        return ()
    return tuple(-1 if part.strip() == "_" else int(part) for part in inner.split(","))


def _io_tensors(text: str) -> tuple[OnnxTensor, ...]:
    """The items of a node's input or output list (never raises: odd text stays one name)."""
    text = text.strip().removesuffix(",").strip()
    out: list[OnnxTensor] = []
    pos = 0
    # assembled: the values are typed already (a node line is frequent in verbose logs; what
    # model_construct gives, every field set (a set of its own: model_copy updates it),
    # without its per-call work)
    match = _IO_ITEM.match
    while pos < len(text):
        m = match(text, pos)
        data: dict[str, Any]
        if m is None:
            data = {"name": text[pos:].strip(), "dims": None, "dtype": None}
            out.append(assemble(OnnxTensor, data, None))
            break
        unset, name, dims, dtype = m.groups()
        if unset is not None:
            data = {"name": None, "dims": None, "dtype": None}
        else:
            data = {
                "name": name,
                "dims": tuple(map(int, dims.split(", "))) if dims else (),
                "dtype": dtype,
            }
        out.append(assemble(OnnxTensor, data, None))
        pos = m.end()
    return tuple(out)


def _unescape(value: str) -> str:
    """A protobuf text-format string value without its C escapes (``\\"``, octal UTF-8 bytes)."""
    if "\\" not in value:
        return value
    try:
        raw = codecs.escape_decode(value.encode("utf-8"))[0]
    except ValueError:
        return value
    return raw.decode("utf-8", errors="replace")


def _node_proto(text: str) -> Fields:
    """``name``, ``op_type``, ``input`` and ``output`` of the node's protobuf text."""
    name: str | None = None
    op_type: str | None = None
    inputs: list[str] = []
    outputs: list[str] = []
    for line in text.split("\n"):
        m = _PROTO_FIELD.match(line.rstrip())
        if m is None:
            continue
        key, value = m.group("key"), _unescape(m.group("value"))
        if key == "input":
            inputs.append(value)
        elif key == "output":
            outputs.append(value)
        elif key == "name":
            name = value
        else:
            op_type = value
    return {
        "node_name": name,
        "node_op_type": op_type,
        "node_inputs": tuple(inputs),
        "node_outputs": tuple(outputs),
    }


def _kernel_params(first: tuple[int, ...], text: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """``(5, 5)`` and ``, strides: (1, 1), ..., numOutputs: 32`` as named values."""
    values: list[tuple[str, tuple[int, ...]]] = [("kernel", first)]
    rest = text
    while rest.startswith(", "):
        key, _, rest = rest[2:].partition(": ")
        if rest.startswith("("):
            close = rest.index(")") + 1
            values.append((key, _dims(rest[:close])))
            rest = rest[close:]
        else:
            number, comma, after = rest.partition(",")
            values.append((key, (int(number),)))
            rest = comma + after
    return tuple(values)


@v_args(inline=True)
class OnnxTransformer(BaseTransformer):
    """Builds onnx events."""

    @staticmethod
    def SRC(text: str) -> _Source:
        # "ModelImporter.cpp:103: " / "[TRT]ModelImporter.cpp:103: "
        path, _, line = text.removeprefix("[TRT]")[:-2].rpartition(":")
        return path, int(line)

    DIMSP = staticmethod(_dims)
    DIMSU = staticmethod(_dims)

    # -- trtexec start/end -----------------------------------------------------------------

    def parse_start(self) -> Fields:
        return {"kind": "parse_start"}

    def parse_end_legacy(self) -> Fields:
        return {"kind": "parse_end", "seconds": None}

    def parse_end(self, seconds: float) -> Fields:
        return {"kind": "parse_end", "seconds": seconds}

    # -- model info -------------------------------------------------------------------------

    def onnx_model_info(
        self,
        _rule: Token,
        filename: Token,
        ir_version: Token,
        opset: Token,
        producer: Token,
        producer_version: Token,
        domain: Token,
        model_version: Token,
        doc: Token,
        _closing: Token | None = None,
    ) -> Fields:
        return {
            "kind": "onnx_model_info",
            "input_filename": _label_value(filename),
            "ir_version": _label_value(ir_version),
            "opset": int(_label_value(opset)),
            "producer_name": _label_value(producer),
            "producer_version": _label_value(producer_version),
            "domain": _label_value(domain),
            "model_version": int(_label_value(model_version)),
            "doc_string": _label_value(doc),
        }

    # -- parser verbose lines -----------------------------------------------------------------

    def onnx_import_initializer(self, name: Token | None) -> Fields:
        return {"kind": "onnx_import_initializer", "name": _tail(name)}

    def onnx_parse_node(self, node: Token, op: Token) -> Fields:
        return {"kind": "onnx_parse_node", "node": str(node), "op": str(op)}

    def onnx_static_check(self, node: Token, op: Token) -> Fields:
        return {"kind": "onnx_static_check", "node": str(node), "op": str(op)}

    def onnx_search_input(self, tensor: Token | None) -> Fields:
        return {"kind": "onnx_search_input", "tensor": _tail(tensor)}

    def onnx_node_inputs(self, node: Token, op: Token, items: Token | None) -> Fields:
        return {
            "kind": "onnx_node_io",
            "node": str(node),
            "op": str(op),
            "direction": "inputs",
            "tensors": _io_tensors(_tail(items)),
        }

    def onnx_node_outputs(self, node: Token, op: Token, items: Token | None) -> Fields:
        return {
            "kind": "onnx_node_io",
            "node": str(node),
            "op": str(op),
            "direction": "outputs",
            "tensors": _io_tensors(_tail(items)),
        }

    def onnx_register_layer(self, layer: Token, node: Token | None) -> Fields:
        return {"kind": "onnx_register_layer", "layer": str(layer), "node": _tail(node)}

    def onnx_register_helper(self, layer: Token) -> Fields:
        return {"kind": "onnx_register_layer", "layer": str(layer), "node": None}

    def onnx_register_tensor(self, tensor: Token, onnx_tensor: Token | None) -> Fields:
        return {
            "kind": "onnx_register_tensor",
            "tensor": str(tensor),
            "onnx_tensor": _tail(onnx_tensor),
        }

    def onnx_register_constant(self, layer: Token, initializer: Token | None) -> Fields:
        return {
            "kind": "onnx_register_constant",
            "layer": str(layer),
            "initializer": _tail(initializer),
        }

    def onnx_add_input(self, tensor: Token, dtype: Token, dims: tuple[int, ...]) -> Fields:
        return {"kind": "onnx_add_input", "tensor": str(tensor), "dtype": str(dtype), "dims": dims}

    def onnx_mark_output(self, tensor: Token, output: Token | None) -> Fields:
        return {"kind": "onnx_mark_output", "tensor": str(tensor), "output": _tail(output)}

    def onnx_local_function(self, function: Token) -> Fields:
        return {"kind": "onnx_local_function", "function": str(function)}

    # -- importer notes ------------------------------------------------------------------------

    def detail_convolution_input_dims(self, dims: tuple[int, ...]) -> Fields:
        return _detail("convolution_input_dims", dims=dims)

    def detail_convolution_output_dims(self, dims: tuple[int, ...]) -> Fields:
        return _detail("convolution_output_dims", dims=dims)

    def detail_deconvolution_input_dims(self, dims: tuple[int, ...]) -> Fields:
        return _detail("deconvolution_input_dims", dims=dims)

    def detail_deconvolution_output_dims(self, dims: tuple[int, ...]) -> Fields:
        return _detail("deconvolution_output_dims", dims=dims)

    def detail_convolution_params(self, kernel: tuple[int, ...], params: Token) -> Fields:
        return _detail("convolution_params", values=_kernel_params(kernel, str(params)))

    def detail_reshape(
        self, dims: tuple[int, ...], squeeze: Token, to_dims: tuple[int, ...]
    ) -> Fields:
        return _detail("reshape", detail=str(squeeze), dims=dims, to_dims=to_dims)

    def detail_gemm(self, note: Token) -> Fields:
        return _detail("gemm", detail=str(note))

    def detail_matmul_ops(self, op_a: int, op_b: int) -> Fields:
        return _detail("matmul_ops", values=(("opA", (op_a,)), ("opB", (op_b,))))

    def detail_cast(self, dtype: Token) -> Fields:
        return _detail("cast", detail=str(dtype))

    def detail_gather_axis(self, axis: int) -> Fields:
        return _detail("gather_axis", values=(("axis", (axis,)),))

    def detail_kernel_weights_unset(self, index: int) -> Fields:
        return _detail("kernel_weights_unset", values=(("input", (index,)),))

    def detail_global_average_pool(self) -> Fields:
        return _detail("global_average_pool")

    def deconvolution_params(
        self, mode: Token, pre: tuple[int, ...], post: tuple[int, ...]
    ) -> tuple[str, tuple[tuple[str, tuple[int, ...]], ...]]:
        return str(mode), (("prepadding", pre), ("postpadding", post))

    def detail_deconvolution_params(
        self, params: tuple[str, tuple[tuple[str, tuple[int, ...]], ...]] | None
    ) -> Fields:
        if params is None:
            return _detail("deconvolution_params")
        return _detail("deconvolution_params", detail=params[0], values=params[1])

    # -- parser warnings ---------------------------------------------------------------------

    def onnx_int64_weights(self) -> Fields:
        return {"kind": "onnx_int64_weights"}

    def onnx_int32_clamped(self) -> Fields:
        return {"kind": "onnx_int32_clamped"}

    def onnx_numpy_type_kept(self, dtype: Token) -> Fields:
        return {"kind": "onnx_numpy_type_kept", "onnx_type": str(dtype)}

    def onnx_weights_transposed(self, weights: Token) -> Fields:
        return {"kind": "onnx_weights_transposed", "weights": str(weights)}

    def onnx_int64_binding(self, io: Token, tensor: Token) -> Fields:
        return {"kind": "onnx_int64_binding", "io": str(io), "tensor": str(tensor)}

    def onnx_opset_warning(self, opset: int) -> Fields:
        return {"kind": "onnx_opset_warning", "min_opset": opset}

    def plugin_no_importer(self, op: Token) -> Fields:
        return _plugin("no_importer", str(op))

    def plugin_searching(self, name: Token, version: Token, namespace: Token | None) -> Fields:
        return _plugin("searching", str(name)[:-1], str(version)[:-1], _tail(namespace))

    def plugin_created(self, name: Token | None) -> Fields:
        return _plugin("created", _tail(name))

    def plugin_not_found_attribute_namespace(
        self, name: Token, version: Token, namespace: Token | None
    ) -> Fields:
        return _plugin(
            "not_found_attribute_namespace", str(name)[:-1], str(version)[:-1], _tail(namespace)
        )

    def plugin_searching_domain_namespace(
        self, name: Token, version: Token, namespace: Token | None
    ) -> Fields:
        return _plugin(
            "searching_domain_namespace", str(name)[:-1], str(version)[:-1], _tail(namespace)
        )

    # -- node errors ---------------------------------------------------------------------------

    def node_output(self, output: Token | None) -> str:
        return "" if output is None else str(output)

    def node_op(self, op: Token, output: str | None) -> tuple[str, str | None]:
        return str(op), output

    def node_head(
        self, src: _Source | None, index: int, op: tuple[str, str | None] | None
    ) -> Fields:
        return {
            "source_file": src[0] if src else None,
            "source_line": src[1] if src else None,
            "node_index": index,
            "op": op[0] if op else None,
            "output": op[1] if op else None,
        }

    def node_dump(self, _src: _Source | None, text: Token, _end: _Source | None) -> str:
        # protobuf text has no blank lines: those in the dump are the parser's trailing line
        # break and a paste's (T5)
        lines = _strip_source(str(text)).split("\n")
        return "\n".join(line.rstrip() for line in lines if line.strip())

    def failure_code(self, code: int, description: Token) -> tuple[int, str]:
        return code, str(description).rstrip()

    def failure(
        self,
        src: _Source | None,
        file: Token,
        line: int,
        function: Token,
        code: tuple[int, str] | None,
    ) -> _Failure:
        return {
            "source": src,
            "error_file": str(file),
            "error_line": line,
            "function": str(function),
            "code": code[0] if code else None,
            "description": code[1] if code else None,
        }

    def node_failure(self, failure: _Failure) -> _Failure:
        return failure

    def onnx_node_error(self, head: Fields, dump: str | None, failure: _Failure | None) -> Fields:
        fields: Fields = {"kind": "onnx_node_error", **head, "node_text": dump}
        if dump is not None:
            fields.update(_node_proto(dump))
        if failure is not None:
            fields.update({k: v for k, v in failure.items() if k != "source"})
        return fields

    def onnx_error_without_node(self, failure: _Failure) -> Fields:
        src = failure["source"]
        fields: Fields = {k: v for k, v in failure.items() if k != "source"}
        fields["kind"] = "onnx_node_error"
        if isinstance(src, tuple):
            fields["source_file"], fields["source_line"] = src
        return fields

    # -- legacy parser, source prefix -------------------------------------------------------------

    def onnx_node_summary(self, output: Token, op: Token, dims: tuple[int, ...]) -> Fields:
        return {"kind": "onnx_node_summary", "output": str(output), "op": str(op), "dims": dims}

    def sourced(self, fields: Fields) -> Fields:
        return fields

    def onnx_sourced(self, src: _Source, fields: Fields) -> Fields:
        return {**fields, "source_file": src[0], "source_line": src[1]}

    # -- network set-up by trtexec -----------------------------------------------------------

    def profile_shape_set(
        self,
        tensor: Token,
        profile: int,
        min_dims: tuple[int, ...],
        opt_dims: tuple[int, ...],
        max_dims: tuple[int, ...],
    ) -> Fields:
        return {
            "kind": "profile_shape_set",
            "tensor": str(tensor),
            "profile": profile,
            "min_dims": min_dims,
            "opt_dims": opt_dims,
            "max_dims": max_dims,
            "shape_tensor": False,
        }

    def profile_shape_values(
        self,
        tensor: Token,
        profile: int,
        min_dims: tuple[int, ...],
        opt_dims: tuple[int, ...],
        max_dims: tuple[int, ...],
    ) -> Fields:
        fields = self.profile_shape_set(tensor, profile, min_dims, opt_dims, max_dims)
        fields["shape_tensor"] = True
        return fields

    def input_shape_set(self, tensor: Token, dims: tuple[int, ...]) -> Fields:
        return {"kind": "input_shape_set", "tensor": str(tensor), "dims": dims}

    def dynamic_shape_override(self, tensor: Token, dims: tuple[int, ...]) -> Fields:
        return {
            "kind": "dynamic_shape_override",
            "tensor": str(tensor),
            "dims": dims,
            "phase": "build",
        }

    def inference_shape_override(self, tensor: Token, dims: tuple[int, ...]) -> Fields:
        return {
            "kind": "dynamic_shape_override",
            "tensor": str(tensor),
            "dims": dims,
            "phase": "inference",
        }

    def skip_precision(self, layer: Token, reason: Token) -> Fields:
        return _skip("precision", layer=str(layer), reason=str(reason))

    def skip_output_types(self, layer: Token, reason: Token) -> Fields:
        return _skip("output_types", layer=str(layer), reason=str(reason))

    def skip_output_type(self, index: int, layer: Token, reason: Token) -> Fields:
        return _skip("output_type", layer=str(layer), output_index=index, reason=str(reason))

    def skip_precision_summary(self) -> Fields:
        return _skip("precision")

    def skip_output_types_summary(self) -> Fields:
        return _skip("output_types")

    def precision_set(self, layer: Token, what: Token, value: Token) -> Fields:
        setting = "precision" if "precision" in what else "device_type"
        return {
            "kind": "precision_set",
            "setting": setting,
            "layer": str(layer),
            "value": str(value),
            "output_index": None,
        }

    def output_type_set(self, index: int, layer: Token, value: Token) -> Fields:
        return {
            "kind": "precision_set",
            "setting": "output_type",
            "layer": str(layer),
            "value": str(value),
            "output_index": index,
        }

    def int8_hint(self) -> Fields:
        return {"kind": "int8_hint"}

    def plugin_libs_note(
        self,
        libs: Token | None,
        serialize: Token | None,
        _dynamic: Token | None,
        _ignore: Token | None,
    ) -> Fields:
        libraries = tuple(line.strip() for line in str(libs or "").split("\n") if line.strip())
        return {
            "kind": "plugin_libs_note",
            "libraries": libraries,
            "serialized": serialize is not None,
        }


def _detail(
    topic: str,
    *,
    detail: str | None = None,
    dims: tuple[int, ...] | None = None,
    to_dims: tuple[int, ...] | None = None,
    values: tuple[tuple[str, tuple[int, ...]], ...] = (),
) -> Fields:
    return {
        "kind": "onnx_importer_detail",
        "topic": topic,
        "detail": detail,
        "dims": dims,
        "to_dims": to_dims,
        "values": values,
    }


def _plugin(
    step: str, plugin: str, version: str | None = None, namespace: str | None = None
) -> Fields:
    return {
        "kind": "onnx_plugin_fallback",
        "step": step,
        "plugin": plugin,
        "plugin_version": version,
        "plugin_namespace": namespace,
    }


def _skip(
    setting: str,
    *,
    layer: str | None = None,
    output_index: int | None = None,
    reason: str | None = None,
) -> Fields:
    return {
        "kind": "precision_skip",
        "setting": setting,
        "layer": layer,
        "output_index": output_index,
        "reason": reason,
    }


# -- continuations ------------------------------------------------------------------------------

_MODEL_RULE = "-" * 64
_MODEL_LABELS = (
    "Input filename:",
    "ONNX IR version:",
    "Opset version:",
    "Producer name:",
    "Producer version:",
    "Domain:",
    "Model version:",
    "Doc string:",
)
# The parser's "<file>.cpp:<line>: " prefix, for the continuation tests below (the grammar's
# SRC terminal is what parses it).
_SOURCE_PREFIX = re.compile(r"(?:\[TRT\])?[A-Za-z_][\w.\-]*\.(?:cpp|hpp|cu|h|cc):\d+: ")
# A line of protobuf text: "input: \"x\"", "attribute {", "  i: 0", "}".
_PROTO_LINE = re.compile(r"\s*(?:[a-z_][a-z0-9_]*(?:: |\s*\{\s*$)|\}\s*$)")


def _is_model_info_line(text: str) -> bool:
    return text.startswith(_MODEL_LABELS) or text.rstrip() == _MODEL_RULE


def _strip_source(text: str) -> str:
    m = _SOURCE_PREFIX.match(text)
    return text[m.end() :] if m is not None else text


def _is_node_error_part(body: str) -> bool:
    return (
        body.startswith(("--- Begin node ---", "--- End node ---", "ERROR: "))
        or _PROTO_LINE.match(body) is not None
    )


def _is_node_error_enveloped(message: str) -> bool:
    return _is_node_error_part(_strip_source(message))


def _is_node_error_bare(text: str) -> bool:
    # the protobuf text, 7.x's cerr lines, the "[<code>] <description>" line and the error
    # recorder's "[file::function::line] Error Code ..." lines that a description may list
    return _is_node_error_part(text) or text.startswith("[")


def _is_deconvolution_line(text: str) -> bool:
    return text.startswith(("Padding mode: ", "Pre-padding: ", "Post-padding: "))


def _is_plugin_libs_line(message: str) -> bool:
    return message.startswith(
        (
            "    ",
            "These libraries will be added to --",
            "Use --ignoreParsedPluginLibs to disable this behavior.",
        )
    )


def _never(_text: str) -> bool:
    return False


# onnx-tensorrt source files whose "<file>:<line>: " prefix starts a parser message (7.0/7.1
# every message, 7.2+ warnings and errors). Prefix rows that end inside a word are tried after
# the first-word table, so they cost nothing on the common lines that have a row there; each
# holds the whole file name, so that no layer or tensor name ("onnx::Conv_12 ...") matches.
_SOURCE_FILES = (
    "ModelImporter.cpp:",
    "ImporterContext.hpp:",
    "ImporterContext.cpp:",
    "builtin_op_importers.cpp:",
    "onnx2trt_utils.cpp:",
    "onnxOpImporters.cpp:",
    "onnxOpCheckers.cpp:",
    "onnx_utils.hpp:",
    "importerUtils.cpp:",
    "weightUtils.cpp:",
    "ShapedWeights.cpp:",
    "ShapeTensor.cpp:",
    "OnnxAttrs.cpp:",
    "TensorOrWeights.hpp:",
    "trt_utils.hpp:",
    "[TRT]ModelImporter.cpp:",
)

FAMILY = Family(
    name="onnx",
    transformer=OnnxTransformer,
    rules=(
        Rule("parse_start", prefix="Start parsing network model"),
        Rule("parse_end", prefix="Finished parsing network model."),
        Rule("onnx_model_info", prefix=_MODEL_RULE, bare=True, then="onnx_model_info"),
        Rule("onnx_node_io", contains="] inputs:"),
        Rule("onnx_node_io", contains="] outputs:"),
        Rule("onnx_importer_detail", prefix="Kernel weights are not set yet."),
        Rule("onnx_importer_detail", prefix="GlobalAveragePool operators are implemented"),
        Rule(
            "onnx_importer_detail",
            prefix="Running deconvolution with:",
            then="deconvolution_params",
        ),
        Rule("onnx_int64_weights", prefix="Your ONNX model has been generated with INT64"),
        Rule("onnx_int32_clamped", prefix="One or more weights outside the range of INT32"),
        Rule("onnx_weights_transposed", prefix="Weights ", contains=" has been transposed with"),
        Rule("onnx_int64_binding", prefix="Make sure ", contains=" has Int64 binding."),
        Rule("onnx_opset_warning", prefix="TensorRT supports ONNX graphs generated with"),
        Rule("onnx_plugin_fallback", prefix="Searching for plugin"),
        Rule("onnx_plugin_fallback", prefix="Plugin not found with node attribute namespace:"),
        # node errors: the head line with the source prefix (8.x+), without (7.x cerr, bare),
        # and the error line alone (an error not tied to a node)
        Rule(
            "onnx_node_error",
            prefix="ModelImporter.cpp:",
            contains=": While parsing node number ",
            then="onnx_node_error",
        ),
        Rule(
            "onnx_node_error",
            prefix="While parsing node number ",
            bare=True,
            then="onnx_node_error",
        ),
        Rule(
            "onnx_node_error",
            prefix="ModelImporter.cpp:",
            contains=" In function ",
            then="onnx_node_error",
        ),
        Rule(
            "onnx_node_error",
            prefix="ERROR: ",
            contains=" In function ",
            bare=True,
            then="onnx_node_error",
        ),
        Rule("onnx_node_summary", contains=" -> ("),
        *(Rule("onnx_sourced", prefix=name) for name in _SOURCE_FILES),
        Rule("precision_skip", prefix="Skipped setting "),
        Rule("precision_set", prefix="Set output ", contains=" of layer "),
        Rule("int8_hint", prefix="FP32 and INT8 precisions have been specified"),
        Rule(
            "plugin_libs_note",
            prefix="The following plugin libraries were identified by the parser",
            then="plugin_libs_note",
        ),
    ),
    routed=(
        "onnx_numpy_type_kept",
        "parse_end",
        "onnx_import_initializer",
        "onnx_parse_node",
        "onnx_static_check",
        "onnx_search_input",
        "onnx_register_layer",
        "onnx_register_tensor",
        "onnx_register_constant",
        "onnx_add_input",
        "onnx_mark_output",
        "onnx_local_function",
        "onnx_importer_detail",
        "onnx_plugin_fallback",
        "profile_shape_set",
        "dynamic_shape_override",
        "precision_set",
    ),
    continuations=(
        Continuation(
            "onnx_model_info",
            bare=_is_model_info_line,
            enveloped=_is_model_info_line,
            max_lines=1_000,
        ),
        Continuation(
            "onnx_node_error",
            bare=_is_node_error_bare,
            enveloped=_is_node_error_enveloped,
            max_lines=100_000,
        ),
        Continuation(
            "deconvolution_params",
            bare=_is_deconvolution_line,
            enveloped=_is_deconvolution_line,
            max_lines=100,
        ),
        Continuation(
            "plugin_libs_note", bare=_never, enveloped=_is_plugin_libs_line, max_lines=10_000
        ),
    ),
)
