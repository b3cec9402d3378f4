"""The event base class, the catch-all events and the fast constructor the parser uses.

Bottom of the data model (pydantic only): every event kind derives from :class:`EventBase`,
carries its ``kind`` tag, its ``span`` of 1-based input lines and the ``severity`` of its
envelope. Line text is not stored in events; it lives once in ``Build.text`` (``Build.lines``).

The parser builds events with :func:`make_event`, which assembles an instance without running
validation: the values come from the grammar and its transformers already typed, and building
hundreds of thousands of events through validation would cost more than parsing them. The test
suite re-validates every event the corpus produces (``type(e).model_validate(e.model_dump())``),
so a transformer that produced a wrong type would fail there.
"""

from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, model_validator

from trtlog._pydantic import ExactJson, assemble
from trtlog.events.fields import LAYER_NAME
from trtlog.names import ComposedName, split_name

__all__ = [
    "ENVELOPES",
    "SEVERITIES",
    "Envelope",
    "EventBase",
    "LogLine",
    "Severity",
    "Span",
    "Unrecognized",
    "make_event",
]

#: Severity of the line envelope, from the letter (``V I W E F``) or word it carries.
Severity = Literal["verbose", "info", "warning", "error", "fatal"]
SEVERITIES: tuple[Severity, ...] = ("verbose", "info", "warning", "error", "fatal")

#: The envelope shapes of formats.md §1 (``None`` when the line has none).
Envelope = Literal[
    "trtexec",  # [ts] [S] body  /  [ts] [S] [TRT] body
    "python",  # [ts] [TRT] [S] body (Python trt.Logger, 8.2+)
    "python_legacy",  # [TensorRT] VERBOSE: body (Python trt.Logger, <= 8.0)
    "severity",  # [S] body / [S] [TRT] body, no timestamp (custom loggers, pastes)
    "jetson",  # [TRT]    body (jetson-inference)
    "deepstream",  # WARNING: [TRT]: body
    "bracket_word",  # [INFO] body (wrappers such as turret)
    "trtllm",  # [ts] [TRT-LLM] [S] body
    "torch_tensorrt",  # INFO:torch_tensorrt [TensorRT Conversion Context]:body
    "timestamp",  # a timestamp and nothing else (orphan timestamps, formats.md T3)
    # integrations (docs/fragments-research.md §1.4)
    "torch_tensorrt_cpp",  # WARNING: [Torch-TensorRT TorchScript Conversion Context] - body
    "trtllm_cpp",  # [TensorRT-LLM][WARNING] body
    "onnxruntime",  # <ts> [W:onnxruntime:..., tensorrt_execution_provider.h:83 log] [<ts> S] body
    "triton",  # W0421 02:31:38.252159 89829 logging.cc:46] body
    "tf_trt",  # <ts>: W tensorflow/compiler/tf2tensorrt/utils/trt_logger.cc:83] body
    "wrapped_nvinfer",  # [<ts>][warn][trt_builder.cpp:33]:NVInfer: body
    "gstreamer",  # 0:00:00.209260524   226  0x1a87b20 INFO  nvinfer gstnvinfer.cpp:...
    "deepstream_own",  # WARNING: ../nvdsinfer/nvdsinfer_model_builder.cpp:1487 body
    # pastes (docs/rules.md, "What trtlog reads")
    "app_logger",  # 19:54:12.555<TAB>ERROR<TAB>TRT: body (an application's own logger)
    "nvinfer",  # nvinfer: body (TensorRT's messages as DeepStream and 8.0 samples print them)
    "polygraphy",  # [!] body (Polygraphy's own fatal error)
]
ENVELOPES: tuple[str, ...] = Envelope.__args__  # type: ignore[attr-defined]

#: First and last line of an event, 1-based and inclusive.
Span = tuple[int, int]


class EventBase(ExactJson):
    """Common fields of every event.

    Attributes:
        kind: the event's tag (snake_case, from formats.md).
        span: first and last input line of the event, 1-based, inclusive.
        severity: severity of the envelope of the event's first line, if it has one.
    """

    # inf/nan occur in real logs ("Time: inf"); keep them through JSON as Infinity/NaN.
    model_config = ConfigDict(
        frozen=True, extra="forbid", ser_json_inf_nan="constants", defer_build=True
    )

    kind: str
    span: Span
    severity: Severity | None = None

    _defaults: ClassVar[dict[str, Any]]
    _fields_set: ClassVar[frozenset[str]]
    _n_fields: ClassVar[int]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        defaults: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            if field.default_factory is not None:
                defaults[name] = _FACTORY
            elif field.is_required():
                defaults[name] = _REQUIRED
            else:
                defaults[name] = field.default
        cls._defaults = defaults
        cls._fields_set = frozenset(defaults)
        cls._n_fields = len(defaults)

    def names(self) -> dict[str, ComposedName | tuple[ComposedName, ...]]:
        """Every layer-name field of the event split into its composed parts.

        Example:
            >>> from trtlog.events.optimizer import Fusion
            >>> ev = Fusion(span=(1, 1), pass_name="P", first="a + b", second="c")
            >>> ev.names()["first"].members()
            ['a', 'b']
        """
        out: dict[str, ComposedName | tuple[ComposedName, ...]] = {}
        for key in _name_fields(type(self)):
            value = getattr(self, key)
            if value is None:
                continue
            if isinstance(value, tuple):
                out[key] = tuple(split_name(v) for v in value)
            else:
                out[key] = split_name(value)
        return out

    @property
    def line(self) -> int:
        """The first line of the event (1-based)."""
        return self.span[0]

    @property
    def end_line(self) -> int:
        """The last line of the event (1-based, inclusive)."""
        return self.span[1]


_NAME_FIELDS: dict[type[EventBase], tuple[str, ...]] = {}


def _name_fields(cls: type[EventBase]) -> tuple[str, ...]:
    cached = _NAME_FIELDS.get(cls)
    if cached is None:
        cached = tuple(
            name for name, field in cls.model_fields.items() if LAYER_NAME in field.metadata
        )
        _NAME_FIELDS[cls] = cached
    return cached


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_REQUIRED = _Marker("<required>")
_FACTORY = _Marker("<factory>")


def make_event(cls: type[EventBase], values: dict[str, Any]) -> Any:
    """Build an instance of ``cls`` from ``values`` without validation (see module docstring).

    ``values`` must hold every required field; omitted fields take their defaults.

    Example:
        >>> ev = make_event(Unrecognized, {"kind": "unrecognized", "span": (3, 3),
        ...                                "message": "hello"})
        >>> ev.span, ev.envelope
        ((3, 3), None)
    """
    data = cls._defaults.copy()
    data.update(values)
    for key, value in data.items():
        if value is _REQUIRED or value is _FACTORY:
            if value is _FACTORY:
                factory = cls.model_fields[key].default_factory
                data[key] = factory()  # type: ignore[call-arg,misc]
                continue
            raise TypeError(f"{cls.__name__}: missing required field {key!r}")
    return assemble(cls, data, None, cls._fields_set)


def make_event_unchecked(cls: type[EventBase], data: dict[str, Any]) -> Any:
    """Like :func:`make_event` for a ``data`` dict that already holds every field, in order.

    The hot path of the parser: templates of repeated line shapes produce complete dicts.
    ``data`` is taken over, not copied.
    """
    return assemble(cls, data, None, cls._fields_set)


class Unrecognized(EventBase):
    """A line no rule explains (formats.md §R.9). Never an error: unknown text is data.

    ``sub_case`` tells the two descriptions of formats.md apart: ``unknown_line`` (a TensorRT
    envelope with a body no rule knows) and ``foreign_line`` (no envelope: shell prompts,
    Python output, plugin ``printf``\\ s).

    Attributes:
        envelope: the envelope shape found on the line, if any.
        trt: whether the envelope carried the ``[TRT]`` tag.
        prefix: an outer wrapper peeled off before the envelope (ROS ``[node-1] ``, docker
            ``svc_1  | ``, markdown quote marks), if any.
        message: the line's text after the envelope (ANSI colour codes removed).
        sub_case: ``unknown_line`` or ``foreign_line``.
    """

    kind: Literal["unrecognized"] = "unrecognized"
    envelope: Envelope | None = None
    trt: bool = False
    prefix: str | None = None
    message: str = ""
    sub_case: Literal["unknown_line", "foreign_line"] = "foreign_line"

    @model_validator(mode="before")
    @classmethod
    def _absorb_unknown_kind(cls, data: Any) -> Any:
        """Serialised events of a kind this version does not know become ``unrecognized``."""
        if isinstance(data, dict) and data.get("kind", "unrecognized") != "unrecognized":
            known = {"span", "severity", "envelope", "trt", "prefix"}
            rest = {k: v for k, v in data.items() if k not in known and k != "kind"}
            out = {k: v for k, v in data.items() if k in known}
            out["kind"] = "unrecognized"
            out["message"] = f"event of unknown kind {data['kind']!r}: {rest!r}"
            out["sub_case"] = "unknown_line"
            return out
        return data


class LogLine(EventBase):
    """An enveloped line with an empty message, or a timestamp with nothing after it.

    trtexec prints empty ``[I]`` lines as section separators (formats.md T5) and 6.0-8.0 left
    orphan timestamps when stdout and stderr were captured separately (T3).

    Attributes:
        envelope: the envelope shape (``timestamp`` for an orphan timestamp).
        trt: whether the envelope carried ``[TRT]``.
        prefix: an outer wrapper peeled off before the envelope, if any.
    """

    kind: Literal["log_line"] = "log_line"
    envelope: Envelope | None = None
    trt: bool = False
    prefix: str | None = None
