"""Keyword rules and transformer of errors and generic build warnings (grammars/errors.lark).

Part of the parser: the dispatcher sends messages here by the rules below; the transformer
turns each parsed alternative into the fields of its event (trtlog.events.errors). formats.md
§R (error recorder, library errors, internal errors, trtexec's own errors) and §D.17.

Error texts are C++ exception or assertion messages; those that continue on bare lines (an
assertion's ``<file>:<line>`` and ``Aborting...``, formats.md T4) are one event. Python
tracebacks and ``terminate called after throwing ...`` have no envelope and stay
``unrecognized``.
"""

from __future__ import annotations

import re

from lark import Token, v_args

from trtlog.parser.family import BaseTransformer, Continuation, Family, Fields, Rule

__all__ = ["FAMILY"]

#: trtexec's own [E] lines (the APP_MESSAGE terminal) and their tags.
_APP_ERRORS = {
    "Engine set up failed": "engine_setup",
    "Inference set up failed": "inference_setup",
    "Error occurred during inference": "inference",
    "Failed to parse onnx file": "onnx_parse",
    "Parsing model failed": "model_parse",
    "Failed to create engine from model or file.": "engine_create",
    "Building engine failed": "engine_build",
    "Engine could not be created from network": "engine_build",
    "Network creation failed": "network_create",
    "Builder creation failed": "builder_create",
    "Config creation failed": "config_create",
    "Network And Config setup failed": "config_setup",
    "Engine deserialization failed": "engine_deserialize",
    "Reading engine file failed.": "engine_read",
    "Engine refit failed.": "refit",
    "Failed to create a refitter.": "refitter_create",
    "Required optimization profile is invalid": "profile_invalid",
    "Static model does not take explicit shapes since the shape of inference tensors will be "
    "determined by the model itself": "static_shapes",
    "Consistency validation is not successful.": "consistency",
}


def _located(location: str, line: str) -> Fields:
    """``file::function`` and a line number (the function may hold ``::`` itself)."""
    file, _, function = location.partition("::")
    return {"source_file": file, "function": function or None, "source_line": int(line)}


def _closed(message: str) -> str:
    """The text inside ``(...)``: the message without its closing parenthesis."""
    message = message.rstrip()
    return message[:-1] if message.endswith(")") else message


def _library(fields: Fields, text: str) -> Fields:
    fields["text"] = text
    return fields


@v_args(inline=True)
class ErrorsTransformer(BaseTransformer):
    """Builds error and warning events."""

    # -- library error text -----------------------------------------------------------------

    def error_bracket(
        self, location: Token, line: Token, code: Token, category: Token, message: Token
    ) -> Fields:
        text = f"[{location}::{line}] Error Code {code}: {category} ({message}"
        fields: Fields = {
            "form": "bracket",
            "error_code": int(code),
            "category": str(category),
            "message": _closed(str(message)),
            **_located(str(location), str(line)),
        }
        return _library(fields, text)

    def error_api(self, call: Token, code: Token, category: Token, message: Token) -> Fields:
        text = f"{call}: Error Code {code}: {category} ({message}"
        fields: Fields = {
            "form": "api",
            "error_code": int(code),
            "category": str(category),
            "message": _closed(str(message)),
            "source_file": None,
            "function": str(call),
            "source_line": None,
        }
        return _library(fields, text)

    def error_legacy(
        self,
        file: Token,
        line: Token,
        category: Token,
        function: Token,
        code: Token,
        message: Token,
    ) -> Fields:
        text = f"{file} ({line}) - {category} Error in {function}: {code} ({message}"
        fields: Fields = {
            "form": "legacy",
            "error_code": int(code),
            "category": str(category),
            "message": _closed(str(message)),
            "source_file": str(file),
            "function": str(function),
            "source_line": int(line),
        }
        return _library(fields, text)

    def error_parameter_check(self, location: Token, line: Token, condition: Token) -> Fields:
        text = f"Parameter check failed at: {location}::{line}, condition: {condition}"
        fields: Fields = {
            "form": "parameter_check",
            "error_code": None,
            "category": None,
            "message": str(condition).rstrip(),
            **_located(str(location), str(line)),
        }
        return _library(fields, text)

    # -- trt_error ------------------------------------------------------------------------------

    def trt_error(self, library: Fields) -> Fields:
        fields = {k: v for k, v in library.items() if k != "text"}
        return {"kind": "trt_error", **fields, "logger_code": None, "state": None}

    def trt_error_coded(self, prefix: Token, library: Fields) -> Fields:
        fields = self.trt_error(library)
        fields["logger_code"] = int(str(prefix)[:-2])
        return fields

    def trt_error_coded_text(self, prefix: Token, text: Token) -> Fields:
        return {
            "kind": "trt_error",
            "form": "text",
            "message": str(text).rstrip(),
            "logger_code": int(str(prefix)[:-2]),
        }

    def trt_error_state(self, text: Token) -> Fields:
        return {
            "kind": "trt_error",
            "form": "text",
            "message": str(text).rstrip(),
            "state": "UNSUPPORTED_STATE",
        }

    # -- error_recorded ----------------------------------------------------------------------

    def error_recorded_library(self, code: int, library: Fields) -> Fields:
        fields = {k: v for k, v in library.items() if k != "text"}
        return {
            "kind": "error_recorded",
            "code": code,
            "description": str(library["text"]).rstrip(),
            **fields,
        }

    def error_recorded(self, code: int, text: Token) -> Fields:
        description = str(text).rstrip()
        return {
            "kind": "error_recorded",
            "code": code,
            "description": description,
            "form": "text",
            "message": description,
        }

    # -- internal_error -----------------------------------------------------------------------

    def internal_assertion(
        self, condition: Token, location: Token | None, aborting: Token | None
    ) -> Fields:
        return _internal("assertion", condition, location, aborting)

    def internal_validation(
        self, condition: Token, location: Token | None, aborting: Token | None
    ) -> Fields:
        return _internal("validation", condition, location, aborting)

    def internal_c_assertion(
        self, _program: Token, file: Token, line: Token, _function: Token, condition: Token
    ) -> Fields:
        return {
            "kind": "internal_error",
            "what": "assertion",
            "message": str(condition),
            "source_file": str(file),
            "source_line": int(line),
            "aborting": True,  # a failed assert() always aborts the process
        }

    def internal_error(self, text: Token) -> Fields:
        return {"kind": "internal_error", "what": "internal", "message": str(text).rstrip()}

    # -- app_error -------------------------------------------------------------------------------

    def app_error(self, message: Token) -> Fields:
        text = str(message)
        return {"kind": "app_error", "error": _APP_ERRORS[text], "message": text, "detail": None}

    def app_error_library(self, library: Token, what: Token) -> Fields:
        return _app(
            "load_library", f"Could not load library {library}: {what}", f"{library}: {what}"
        )

    def app_error_dla(self, core: Token) -> Fields:
        return _app("dla_unavailable", f"Cannot create DLA engine, {core} not available", core)

    def app_error_safe_runtime(self, what: Token) -> Fields:
        return _app("safe_runtime", f"Safe runtime does not support {what}", what)

    def app_error_exception(self, what: Token) -> Fields:
        return _app("uncaught_exception", f"Uncaught exception detected: {what}", what)

    def app_error_engine_file(self, head: Token, path: Token) -> Fields:
        error = "engine_open" if str(head).startswith("Error opening") else "engine_load"
        return _app(error, f"{head}{path}", path)

    # -- generic warnings (§D.17) ------------------------------------------------------------

    def calibrator_explicit_precision(self) -> Fields:
        return {"kind": "calibrator_explicit_precision"}

    def tensor_type_build_time(self) -> Fields:
        return {"kind": "tensor_type_build_time"}

    def shape_layer_int32(self) -> Fields:
        return {"kind": "shape_layer_int32"}

    def fp16_no_native_support(self) -> Fields:
        return {"kind": "fp16_no_native_support"}

    def set_type_non_io(self, data_type: Token, tensor: Token) -> Fields:
        return {"kind": "set_type_non_io", "data_type": str(data_type), "tensor": str(tensor)}

    def calibrator_not_used(self, exempt: Token) -> Fields:
        return {"kind": "calibrator_not_used", "exempt": str(exempt)}

    def weakly_typed_deprecated(self, url: Token) -> Fields:
        return {"kind": "weakly_typed_deprecated", "url": str(url)}


def _internal(
    what: str, condition: Token, location: Token | None, aborting: Token | None
) -> Fields:
    file: str | None = None
    line: int | None = None
    if location is not None:
        path, _, number = str(location).strip().rpartition(":")
        file, line = path, int(number)
    return {
        "kind": "internal_error",
        "what": what,
        "message": str(condition).rstrip(),
        "source_file": file,
        "source_line": line,
        "aborting": aborting is not None,
    }


def _app(error: str, message: str, detail: Token | str) -> Fields:
    return {
        "kind": "app_error",
        "error": error,
        "message": message.rstrip(),
        "detail": str(detail).rstrip(),
    }


# Bare lines that continue an error text (formats.md T4): the "<file>:<line>" of a failed
# assertion and the "Aborting..." after it. Anything else (a Python traceback, "terminate
# called after throwing ...", a plugin's printf) ends the error.
_ERROR_TAIL = re.compile(r"(?:\S+\.(?:cpp|cu|cuh|cc|c|h|hpp):\d+|Aborting\.\.\.)\s*")


def _is_error_tail(text: str) -> bool:
    return _ERROR_TAIL.fullmatch(text) is not None


_TEXT = "error_text"

FAMILY = Family(
    name="errors",
    transformer=ErrorsTransformer,
    rules=(
        Rule("error_recorded", prefix="Error[", then=_TEXT),
        Rule("trt_error", prefix="[", contains="] Error Code ", then=_TEXT),
        Rule("trt_error", prefix="Parameter check failed at: ", then=_TEXT),
        *(Rule("trt_error", prefix=f"{code}: ", then=_TEXT) for code in range(1, 11)),
        Rule("trt_error", contains=": Error Code ", then=_TEXT),
        Rule("trt_error", contains=" Error in ", then=_TEXT),
        Rule("unsupported_state", prefix="UNSUPPORTED_STATE", then=_TEXT),
        Rule("internal_error", prefix="Assertion failed: ", then=_TEXT),
        Rule("internal_error", prefix="Validation failed: ", then=_TEXT),
        Rule("internal_error", prefix="Internal Error: ", then=_TEXT),
        # a library's assert() on stderr: "<program>: <file>:<line>: <function>: Assertion ..."
        Rule("c_assertion", contains=": Assertion `", bare=True, enveloped=False),
        *(Rule("app_error", prefix=message) for message in _APP_ERRORS),
        Rule("app_error", prefix="Uncaught exception detected: ", then=_TEXT),
        Rule("app_error", prefix="Error opening engine file: "),
        Rule("app_error", prefix="Error loading engine file: "),
        Rule(
            "calibrator_explicit_precision",
            prefix="Calibrator won't be used in explicit precision mode.",
        ),
        Rule("tensor_type_build_time", prefix="Tensor DataType is determined at build time"),
        Rule("shape_layer_int32", prefix="A shape layer can only run in INT32 precision"),
        Rule("fp16_no_native_support", prefix="FP16 support requested on hardware without"),
        Rule("calibrator_not_used", prefix="Calibrator is not being used."),
        Rule("weakly_typed_deprecated", prefix="Weakly-typed networks have been deprecated"),
    ),
    routed=(
        "app_error",
        "set_type_non_io",
    ),
    continuations=(Continuation(_TEXT, bare=_is_error_tail, max_lines=1_000),),
)
