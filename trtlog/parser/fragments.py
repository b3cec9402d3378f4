"""Fragments: what the envelope split needs beyond whole logs.

Sits next to ``envelope.py`` in the second step of the pipeline and is asked only for lines
that the trtexec and Python envelopes do not explain, so whole trtexec logs never reach it on
their hot path. It knows three things (docs/fragments-research.md §1):

* the prefixes that integrations put in front of TensorRT's messages (Torch-TensorRT C++ and
  Python, TRTorch, DeepStream and GStreamer, TensorRT-LLM's C++ logger, ONNX Runtime's
  TensorRT provider, Triton's tensorrt backend, TF-TRT, projects that wrap ``NVInfer: ``), with
  whether the message is TensorRT's own (``trt``);
* ``--dumpProfile`` rows and column headers pasted without the table's ``=== Profile`` header,
  recognised by their exact count of numbers with the layout's decimals, blank runs collapsed
  by a web page included;
* paste decorations in front of bare records (markdown quote marks).

Everything here is total: a line no pattern explains comes back as ``None``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NamedTuple

from trtlog.events.base import Envelope, Severity

__all__ = [
    "BARE_ERROR",
    "INTEGRATIONS",
    "IntegrationSplit",
    "profile_columns",
    "profile_json_record",
    "profile_row",
    "split_integration",
    "unquote",
]

_WORD: dict[str, Severity] = {
    "VERBOSE": "verbose",
    "DEBUG": "verbose",
    "TRACE": "verbose",
    "INFO": "info",
    "WARNING": "warning",
    "WARN": "warning",
    "ERROR": "error",
    "INTERNAL_ERROR": "fatal",
    "INTERNAL ERROR": "fatal",
    "FATAL": "fatal",
    "CRITICAL": "fatal",
    "V": "verbose",
    "I": "info",
    "W": "warning",
    "E": "error",
    "F": "fatal",
}


#: The envelopes of integrations: their own lines are no TensorRT lines (``trt`` says).
INTEGRATIONS = frozenset(
    {
        "torch_tensorrt_cpp",
        "trtllm_cpp",
        "onnxruntime",
        "triton",
        "tf_trt",
        "wrapped_nvinfer",
        "gstreamer",
        "deepstream_own",
    }
)


class IntegrationSplit(NamedTuple):
    """A line with an integration's envelope taken apart."""

    envelope: Envelope
    severity: Severity | None
    trt: bool
    message: str


# Torch-TensorRT C++ (TorchTRTLogger.cpp): "<LEVEL>: [Torch-TensorRT ...] - <msg>", the older
# TRTorch "[TRTorch Conversion Context] - "; the conversion context carries TensorRT's messages.
_TORCH_CPP = re.compile(
    r"(DEBUG|INFO|WARNING|ERROR|INTERNAL_ERROR|INTERNAL ERROR): "
    r"\[((?:Torch-TensorRT|TRTorch)[^\]]*)\] - "
)
# Torch-TensorRT Python through a logging format "<ts> - <logger name> - <LEVEL> - <msg>"
_TORCH_PY_FORMAT = re.compile(
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ - (torch_tensorrt[^-]*?) - "
    r"(DEBUG|INFO|WARNING|ERROR|CRITICAL) - "
)
# Torch-TensorRT Python's own loggers: "DEBUG:torch_tensorrt.dynamo...:<msg>"
_TORCH_PY_OWN = re.compile(r"(DEBUG|INFO|WARNING|ERROR|CRITICAL):(torch_tensorrt[\w.]*):")
# TensorRT-LLM C++ logger: "[TensorRT-LLM][WARNING] <msg>" (level optional)
_TRTLLM_CPP = re.compile(r"\[TensorRT-LLM\](?:\[(TRACE|DEBUG|INFO|WARNING|ERROR|FATAL)\])? ?")
# ONNX Runtime: "<date> <time> [W:onnxruntime:<logid>, <file>:<line> <func>] <msg>"; the
# TensorRT logger's messages carry TensorRT's own "[<date> <time> <SEVERITY>] ".
_ORT = re.compile(
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \[([VIWEF]):onnxruntime:[^,\]]*, "
    r"(\S+):\d+ (\w+)\] "
)
# ONNX Runtime's custom sinks (Android-style): "E onnxruntime: [<ts> <SEVERITY>] <msg> [<where>]"
_ORT_SINK = re.compile(r"([VIWEF]) onnxruntime: ")
_ORT_INNER = re.compile(
    r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +(VERBOSE|INFO|WARNING|ERROR|INTERNAL_ERROR)\] "
)
_ORT_WHERE = re.compile(r" \[tensorrt_execution_provider\.h:\d+ [\w:]+\]$")
# glog (Triton, TF-TRT): "<S><MMDD> <time> <pid> <file>:<line>] " / "<date> <time>: <S> <file>..."
_GLOG = re.compile(
    r"(?:([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ |"
    r"(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: )?([IWEF]) )"
    r"([\w./-]+\.cc):\d+\] "
)
_TF_TRT_MESSAGE = re.compile(r"(?:TF-TRT Warning: )?DefaultLogger ")
# "[2023-09-21 04:18:00][warn][trt_builder.cpp:33]:NVInfer: <msg>" (tensorRT_Pro and others)
_WRAPPED = re.compile(
    r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]\[(verbose|debug|info|warn|warning|error|fatal)\]"
    r"\[[\w.]+:\d+\]:"
)
_NVINFER = "NVInfer: "
# GStreamer debug lines (DeepStream): "0:00:00.209260524   226      0x1a87b20 INFO  nvinfer ..."
_GSTREAMER = re.compile(
    r"(?<!\d)\d++:\d\d:\d\d\.\d++ ++\d++ ++0x[0-9a-f]++ ++"
    r"(ERROR|WARN|FIXME|INFO|DEBUG|LOG|TRACE) ++\S++ "
)
# DeepStream's own messages: "WARNING: ../nvdsinfer/nvdsinfer_model_builder.cpp:1487 <msg>",
# "ERROR: Failed to enqueue trt inference batch"
_DEEPSTREAM_OWN = re.compile(
    r"(INFO|WARNING|ERROR): "
    r"(?=(?:\.\./)?nvdsinfer\w*/|[A-Z].*(?:\btrt\b|TensorRT|INT8|FP16|engine))"
)
# jetson-inference "[TRT]" after a web page collapsed its four blanks to one
_JETSON_ONE = re.compile(r"\[TRT\] (?=[^\[ ])")
# an application's own logger: "[<date> ]<time><TAB or blanks><LEVEL><TAB or blanks>TRT: <msg>"
# (the time of day, a level word, TensorRT's message after "TRT: " or "[TRT] ")
_APP_LOGGER = re.compile(
    r"(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[ \t]*\t[ \t]*| +)"
    r"(VERBOSE|DEBUG|TRACE|INFO|WARNING|WARN|ERROR|FATAL|CRITICAL)(?:[ \t]*\t[ \t]*| +)"
    r"(TRT: |\[TRT\] )?"
)
# TensorRT's logger as DeepStream and the 8.0 samples name it: "nvinfer: <msg>"
_NVINFER_LOWER = "nvinfer: "
# Polygraphy's own fatal error: "[!] Could not parse ONNX correctly"
_POLYGRAPHY = "[!] "
# TensorRT error text pasted without any envelope (the envelope is cut off, or the text is the
# second line of a multi-line error): only texts that name TensorRT's own error machinery
BARE_ERROR = re.compile(
    r"Error Code \d+: |MyelinCheckException|tensor volume exceeds \(2\^31\)-1|"
    r"Could not find any implementation for node |no tactics to implement operation"
)

_LOWER: dict[str, Severity] = {
    "verbose": "verbose",
    "debug": "verbose",
    "info": "info",
    "warn": "warning",
    "warning": "warning",
    "error": "error",
    "fatal": "fatal",
}
_FIRST = frozenset("0123456789DIWEFC[Tn")


def split_integration(text: str) -> IntegrationSplit | None:
    """The integration envelope of ``text`` (no trtexec or Python envelope), or ``None``.

    Example:
        >>> split_integration("[TensorRT-LLM][INFO] Loaded engine size: 3404 MiB")
        IntegrationSplit(envelope='trtllm_cpp', severity='info', trt=False, \
message='Loaded engine size: 3404 MiB')
        >>> split_integration("W0421 02:31:38.252159 89829 logging.cc:46] Using an engine")
        IntegrationSplit(envelope='triton', severity='warning', trt=True, \
message='Using an engine')
        >>> split_integration("plain text") is None
        True
    """
    if not text or text[0] not in _FIRST:
        return None
    if text[0].isdigit() and text[4:5] != "-" and ":" not in text[1:4]:
        return None  # no date, no GStreamer clock: "0x40dd5800[enqueue]" and the like
    m = _APP_LOGGER.match(text) if text[2:3] == ":" or text[4:5] == "-" else None
    # blank-separated columns are an application's logger only with TensorRT's tag
    if m is not None and ("\t" in text[: m.end()] or m.group(2) is not None):
        level, tag = m.groups()
        return IntegrationSplit("app_logger", _WORD[level], tag is not None, text[m.end() :])
    if text.startswith(_NVINFER_LOWER):
        return IntegrationSplit("nvinfer", None, True, text[len(_NVINFER_LOWER) :])
    if text.startswith(_POLYGRAPHY):
        return IntegrationSplit("polygraphy", "error", False, text[len(_POLYGRAPHY) :])
    head = text[:64]
    m = _TORCH_CPP.match(text) if ": [" in head else None
    if m is not None:
        level, name = m.groups()
        return IntegrationSplit(
            "torch_tensorrt_cpp", _WORD[level], "Conversion Context" in name, text[m.end() :]
        )
    dated = text[4:5] == "-" and text[:4].isdigit()
    m = _TORCH_PY_FORMAT.match(text) if dated and " - torch_tensorrt" in text else None
    if m is not None:
        name, level = m.groups()
        trt = "Conversion Context" in name
        return IntegrationSplit("torch_tensorrt", _WORD[level], trt, text[m.end() :])
    m = _TORCH_PY_OWN.match(text) if ":torch_tensorrt" in head else None
    if m is not None:
        return IntegrationSplit("torch_tensorrt", _WORD[m.group(1)], False, text[m.end() :])
    if text.startswith("[TensorRT-LLM]"):
        m = _TRTLLM_CPP.match(text)
        assert m is not None
        level = m.group(1)
        # the runtime's logger carries TensorRT's messages and its own: the grammar decides
        return IntegrationSplit(
            "trtllm_cpp", _WORD[level] if level else None, False, text[m.end() :]
        )
    m = _ORT.match(text) if dated and ":onnxruntime:" in head else None
    if m is not None:
        letter, file, func = m.groups()
        rest = text[m.end() :]
        inner = _ORT_INNER.match(rest)
        if inner is not None and file.startswith("tensorrt_execution_provider") and func == "log":
            return IntegrationSplit("onnxruntime", _WORD[inner.group(1)], True, rest[inner.end() :])
        return IntegrationSplit("onnxruntime", _WORD[letter], False, rest)
    m = _ORT_SINK.match(text) if text[1:14] == " onnxruntime:" else None
    if m is not None:
        rest = text[m.end() :]
        inner = _ORT_INNER.match(rest)
        if inner is not None:
            message = _ORT_WHERE.sub("", rest[inner.end() :])
            return IntegrationSplit("onnxruntime", _WORD[inner.group(1)], True, message)
        return IntegrationSplit("onnxruntime", _WORD[m.group(1)], False, rest)
    m = _GLOG.match(text) if ".cc:" in text[:160] else None
    if m is not None:
        letter = m.group(1) or m.group(2)
        file = m.group(3)
        rest = text[m.end() :]
        if file.endswith("trt_logger.cc"):
            tf = _TF_TRT_MESSAGE.match(rest)
            return IntegrationSplit(
                "tf_trt", _WORD[letter], True, rest[tf.end() :] if tf is not None else rest
            )
        if "tensorflow/" in file:
            return IntegrationSplit("tf_trt", _WORD[letter], False, rest)
        if file == "logging.cc":
            if len(rest) > 1 and rest[0] == '"' and rest.endswith('"'):
                rest = rest[1:-1]  # Triton 24.x quotes the message
            return IntegrationSplit("triton", _WORD[letter], True, rest)
        return IntegrationSplit("triton", _WORD[letter], False, rest)
    m = _WRAPPED.match(text) if dated is False and text[:1] == "[" and "][" in head else None
    if m is not None:
        rest = text[m.end() :]
        severity = _LOWER[m.group(1)]
        if rest.startswith(_NVINFER):
            return IntegrationSplit("wrapped_nvinfer", severity, True, rest[len(_NVINFER) :])
        return IntegrationSplit("wrapped_nvinfer", severity, False, rest)
    m = _GSTREAMER.match(text) if text[:1].isdigit() and " 0x" in head else None
    if m is not None:
        return IntegrationSplit("gstreamer", _WORD[m.group(1)], False, text[m.end() :])
    m = _DEEPSTREAM_OWN.match(text) if text.startswith(("INFO: ", "WARNING: ", "ERROR: ")) else None
    if m is not None:
        return IntegrationSplit("deepstream_own", _WORD[m.group(1)], False, text[m.end() :])
    m = _JETSON_ONE.match(text) if text.startswith("[TRT] ") else None
    if m is not None:
        return IntegrationSplit("jetson", None, True, text[m.end() :])
    return None


_QUOTE = re.compile(r"[ \t]*>+[ \t]?")


def unquote(text: str) -> str | None:
    """``text`` without markdown quote marks in front (``> Name: ...``), or ``None``.

    Example:
        >>> unquote("> Name: conv, LayerType: CaskConvolution")
        'Name: conv, LayerType: CaskConvolution'
    """
    if text.lstrip(" \t")[:1] != ">":
        return None
    m = _QUOTE.match(text)
    return text[m.end() :] if m is not None else None


# --dumpProfile rows (formats.md M.2), recognised without their header by their numbers:
# 8.6+ "total avg median percent name", 8.4/8.5 "name total avg median percent",
# 7.x-8.2 "name total avg percent"; totals fixed2, times fixed4, percent fixed1.
_N2 = r"\d+\.\d\d"
_N4 = r"\d+\.\d{4}"
_N1 = r"\d+\.\d"
# greedy names that end in a non-blank: a lazy name tried every blank run again (quadratic)
_ROW_86 = re.compile(rf"\s*+({_N2})\s++({_N4})\s++({_N4})\s++({_N1})\s++(\S(?:.*\S)?)\s*+")
_ROW_84 = re.compile(rf"\s*+(\S(?:.*\S)?)\s++({_N2})\s++({_N4})\s++({_N4})\s++({_N1})\s*+")
_ROW_7X = re.compile(rf"\s*+(\S(?:.*\S)?)\s++({_N2})\s++({_N4})\s++({_N1})\s*+")
_COLUMNS = (
    (re.compile(r"\s*Time\(ms\)\s+Avg\.\(ms\)\s+Median\(ms\)\s+Time\(%\)\s+Layer\s*"), "86"),
    (
        re.compile(r"\s*Layer\s+Time \(ms\)\s+Avg\. Time \(ms\)\s+Median Time \(ms\)\s+Time %\s*"),
        "84",
    ),
    (re.compile(r"\s*Layer\s+Time \(ms\)\s+Avg\. Time \(ms\)\s+Time %\s*"), "7x"),
)


def profile_columns(message: str) -> str | None:
    """The layout (``86``, ``84``, ``7x``) of a profile column header, blanks collapsed too.

    Example:
        >>> profile_columns("Time(ms) Avg.(ms) Median(ms) Time(%) Layer")
        '86'
    """
    if "Time" not in message:
        return None
    for pattern, layout in _COLUMNS:
        if pattern.fullmatch(message):
            return layout
    return None


def profile_row(message: str, layout: str | None = None) -> tuple[str, str] | None:
    """A header-less profile row as ``(layout, message in the layout's own spacing)``.

    The message is rewritten with the blanks the grammar expects (three before an 8.6+ name),
    so that collapsed rows parse like printed ones; ``None`` when the numbers do not have
    the exact count and decimals of one layout. ``layout`` restricts the layouts tried.

    Example:
        >>> profile_row("1667.74 5.7508 5.7308 97.7 {ForeignNode[a...b]}")
        ('86', '1667.74 5.7508 5.7308 97.7   {ForeignNode[a...b]}')
        >>> profile_row("QuantizeLinear_151_quantize_scale_node    10.06    0.0329    0.4")
        ('7x', 'QuantizeLinear_151_quantize_scale_node   10.06   0.0329   0.4')
        >>> profile_row("Conv_0 1 2 3") is None
        True
    """
    # the numbers sit at one end: a digit first (8.6+) or last (older layouts)
    stripped = message.strip()
    if "." not in stripped or not (stripped[:1].isdigit() or stripped[-1:].isdigit()):
        return None
    if layout in (None, "86") and stripped[:1].isdigit():
        m = _ROW_86.fullmatch(message)
        if m is not None:
            total, avg, median, percent, name = m.groups()
            return "86", f"{total} {avg} {median} {percent}   {name}"
    if not stripped[-1:].isdigit():
        return None
    if layout in (None, "84"):
        m = _ROW_84.fullmatch(message)
        if m is not None:
            name, total, avg, median, percent = m.groups()
            return "84", f"{name}   {total}   {avg}   {median}   {percent}"
    if layout in (None, "7x"):
        m = _ROW_7X.fullmatch(message)
        if m is not None:
            name, total, avg, percent = m.groups()
            return "7x", f"{name}   {total}   {avg}   {percent}"
    return None


# one record of an --exportProfile JSON, cut from its array: ', { "name" : ..., "averageMs" : ... }'
# possessive blanks: "\s*,?\s*" split a run of blanks every possible way (quadratic)
_JSON_RECORD = re.compile(r"\s*+(?:,\s*+)?(\{.*\})\s*+(?:,\s*+)?")


def profile_json_record(message: str) -> dict[str, Any] | None:
    """The profile-row fields of one ``--exportProfile`` record pasted as a line, or ``None``.

    Example:
        >>> profile_json_record(', { "name" : "Conv_1", "timeMs" : 1.5, "averageMs" : 0.015, '
        ...                     '"medianMs" : 0.0149, "percentage" : 2.5 }')["avg_ms"]
        0.015
    """
    if '"averageMs"' not in message:
        return None
    m = _JSON_RECORD.fullmatch(message)
    if m is None:
        return None
    try:
        value = json.loads(m.group(1))
        name = str(value["name"])
        total = float(value.get("timeMs", math.nan))
        avg = float(value["averageMs"])
        median = float(value["medianMs"]) if "medianMs" in value else None
        percent = float(value.get("percentage", math.nan))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return {
        "kind": "profile_row",
        "layer": name,
        "total_ms": total,
        "avg_ms": avg,
        "median_ms": median,
        "percent": percent,
        "is_total": False,
    }
