"""Events of the errors family: errors and the generic warnings of the build (formats.md §R).

trtexec's error recorder (``Error[<n>]: ...``), the library's error text in its version shapes,
internal errors (``[F]``), trtexec's own ``[E]`` lines, and the precision/calibration warnings
of formats.md §D.17 that the optimizer family does not cover. Bodies are matched regardless of
severity (formats.md T13): a kind says what the message is, ``severity`` how it was logged.

Part of the data model (pydantic only). Each class's ``kind`` is the event name of formats.md
(or, for the §D.17 warnings, a name chosen here and documented in docs/events-errors.md).
"""

from typing import Literal

from trtlog.events.base import EventBase

__all__ = [
    "AppError",
    "CalibratorExplicitPrecision",
    "CalibratorNotUsed",
    "ErrorRecorded",
    "ErrorsEvent",
    "Fp16NoNativeSupport",
    "InternalError",
    "SetTypeNonIo",
    "ShapeLayerInt32",
    "TensorTypeBuildTime",
    "TrtError",
    "WeaklyTypedDeprecated",
]

#: How a library error was printed: ``bracket`` (``[file::function::line] Error Code <n>:
#: <Category> (<message>)``, 8.x+), ``api`` (``IBuilder::buildSerializedNetwork: Error Code <n>:
#: <Category> (<message>)``, 10.x), ``legacy`` (``<file> (<line>) - Cudnn Error in <function>:
#: <n> (<STATUS>)``, 7.x/8.0), ``parameter_check`` (``Parameter check failed at: <file>::
#: <function>::<line>, condition: <cond>``, 7.x), ``text`` (anything else).
ErrorForm = Literal["bracket", "api", "legacy", "parameter_check", "text"]


class _LibraryError(EventBase):
    """The parts of a library error text (formats.md §R.2).

    Attributes:
        form: how the error was printed (see ``ErrorForm``).
        error_code: the number after ``Error Code`` (the ``ErrorCode`` enum: 1 unspecified,
            2 internal, 3 invalid argument, 4 invalid config, 5 failed allocation, 6 failed
            initialization, 7 failed execution, 8 failed computation, 9 invalid state, 10
            unsupported state); for ``legacy`` the status number of the failed call.
        category: ``Cuda Runtime``, ``OutOfMemory``, ``API Usage Error``, ``Internal Error``,
            ``Myelin``... (``Cudnn``, ``Cuda``, ``Cask``... for ``legacy``).
        message: the text in the parentheses (the condition for ``parameter_check``, the whole
            text for ``text``).
        source_file: the source file, when printed.
        function: the function (may contain ``::``), or the API call of the ``api`` form.
        source_line: the source line, when printed.
    """

    form: ErrorForm = "text"
    error_code: int | None = None
    category: str | None = None
    message: str
    source_file: str | None = None
    function: str | None = None
    source_line: int | None = None


class ErrorRecorded(_LibraryError):
    """``Error[<code>]: <description>``: trtexec's error recorder (8.0+, ``[E]``, no ``[TRT]``).

    The description usually has the library format of ``trt_error``, whose parts are then
    filled in (``form`` ``text`` otherwise).

    Attributes:
        code: the recorder's error code (same enum as ``error_code``).
        description: the description as printed (lines joined by ``\\n``).
    """

    kind: Literal["error_recorded"] = "error_recorded"
    code: int
    description: str


class TrtError(_LibraryError):
    """A library error text (formats.md §R.2), in any of its shapes.

    8.x logs often put the error code first (``4: [network.cpp::validate::2789] Error Code 4:
    Internal Error (...)``, ``10: Could not find any implementation for node ...``); 9.x/10.x
    warnings may carry an error-code name (``UNSUPPORTED_STATE``, glued to the text in 9.x,
    ``UNSUPPORTED_STATE: `` in 10.x).

    Attributes:
        logger_code: the leading ``<n>: `` code, when printed.
        state: the error-code name prefix (``UNSUPPORTED_STATE``), when printed.
    """

    kind: Literal["trt_error"] = "trt_error"
    logger_code: int | None = None
    state: str | None = None


class InternalError(EventBase):
    """An internal error (formats.md §R.3), usually ``[F]`` / ``INTERNAL ERROR:``.

    ``Assertion failed: <condition>`` (with ``<file>:<line>`` and ``Aborting...`` on bare
    lines after it, 7.x and plugins), ``Validation failed: <condition>``, trtexec's
    ``Internal Error: <what>`` when the error recorder itself fails, and a library's C
    ``assert()`` on stderr, without envelope (``<program>: <file>:<line>: <function>:
    Assertion `<condition>' failed.``, the last line of the 8.4.10 Myelin crash).

    Attributes:
        what: ``assertion``, ``validation`` or ``internal``.
        message: the condition or text.
        source_file: the source file of the failed check, when printed.
        source_line: its line, when printed.
        aborting: whether the process aborts: ``Aborting...`` follows, or a C ``assert()``
            failed (it always aborts).
    """

    kind: Literal["internal_error"] = "internal_error"
    what: Literal["assertion", "validation", "internal"]
    message: str
    source_file: str | None = None
    source_line: int | None = None
    aborting: bool = False


class AppError(EventBase):
    """One of trtexec's own ``[E]`` lines (formats.md §R.4, §C.4 follow-ups).

    Attributes:
        error: a stable tag of the message: ``engine_setup`` (``Engine set up failed``),
            ``inference_setup``, ``inference``, ``onnx_parse`` (``Failed to parse onnx
            file``), ``model_parse`` (``Parsing model failed``), ``engine_create`` (``Failed to
            create engine from model or file.``), ``engine_build`` (``Building engine failed``,
            ``Engine could not be created from network``), ``network_create``,
            ``builder_create``, ``config_create``, ``config_setup``, ``engine_deserialize``,
            ``engine_read``, ``engine_open``, ``engine_load``, ``refit``, ``refitter_create``,
            ``profile_invalid``, ``static_shapes``, ``consistency``, ``load_library``,
            ``dla_unavailable``, ``safe_runtime``, ``uncaught_exception``.
        message: the message as printed (lines joined by ``\\n``).
        detail: the variable part (library, DLA core, file, exception text), if any.
    """

    kind: Literal["app_error"] = "app_error"
    error: str
    message: str
    detail: str | None = None


class CalibratorExplicitPrecision(EventBase):
    """``Calibrator won't be used in explicit precision mode. Use quantization aware ...``.

    8.4 ([W]): an INT8 build of an explicitly quantized (Q/DQ) network ignores the calibrator.
    """

    kind: Literal["calibrator_explicit_precision"] = "calibrator_explicit_precision"


class ShapeLayerInt32(EventBase):
    """``A shape layer can only run in INT32 precision``.

    9.x-10.x ([W]; TensorRT-LLM builds print it thousands of times).
    """

    kind: Literal["shape_layer_int32"] = "shape_layer_int32"


class TensorTypeBuildTime(EventBase):
    """``Tensor DataType is determined at build time for tensors not marked as input or output.``.

    6.x-8.x ([W]).
    """

    kind: Literal["tensor_type_build_time"] = "tensor_type_build_time"


class Fp16NoNativeSupport(EventBase):
    """``FP16 support requested on hardware without native FP16 support, ...`` (8.x, [W])."""

    kind: Literal["fp16_no_native_support"] = "fp16_no_native_support"


class SetTypeNonIo(EventBase):
    """``ITensor::setType(<type>) was called on non I/O tensor: <name>. This will have no ...``.

    9.x ([W]).

    Attributes:
        data_type: the type passed to ``setType`` (``Half``).
        tensor: the tensor.
    """

    kind: Literal["set_type_non_io"] = "set_type_non_io"
    data_type: str
    tensor: str


class CalibratorNotUsed(EventBase):
    """``Calibrator is not being used. Users must provide dynamic range for all tensors ...``.

    ``... that are not Int32 or Bool.`` ([W], 8.x-10.x); 7.x ends the sentence at ``not Int32.``.

    Attributes:
        exempt: the types that need no dynamic range, as printed (``Int32 or Bool``).
    """

    kind: Literal["calibrator_not_used"] = "calibrator_not_used"
    exempt: str


class WeaklyTypedDeprecated(EventBase):
    """``Weakly-typed networks have been deprecated in TensorRT. You can use the AutoCast ...``.

    10.16 ([W]): ``... tool (<url>) to convert the network to be strongly typed.``

    Attributes:
        url: the AutoCast documentation link, as printed.
    """

    kind: Literal["weakly_typed_deprecated"] = "weakly_typed_deprecated"
    url: str | None = None


ErrorsEvent = (
    ErrorRecorded
    | TrtError
    | InternalError
    | AppError
    | CalibratorExplicitPrecision
    | TensorTypeBuildTime
    | ShapeLayerInt32
    | Fp16NoNativeSupport
    | SetTypeNonIo
    | CalibratorNotUsed
    | WeaklyTypedDeprecated
)
