"""Line envelopes: split a log line into wrapper, timestamp, severity, ``[TRT]`` tag and message.

Second step of the pipeline (formats.md §1, traps T3, T6, T10, T12). The function is total: it
never raises, and a line without any envelope comes back with ``envelope=None`` and the whole
text as its message. The envelope regexes are the only regexes that look at a line before the
keyword table does; everything inside the message is the grammars' job.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from trtlog.events.base import Envelope, Severity
from trtlog.parser.fragments import split_integration

__all__ = [
    "ANSI",
    "FAST_ENVELOPE",
    "LETTER_SEVERITY",
    "LINE_ENVELOPE",
    "Split",
    "split_envelope",
    "strip_ansi",
]

#: ANSI terminal control sequences (colours, cursor moves), removed before parsing (T10).
# An OSC sequence ends at BEL or at ST (ESC \\); its body holds no ESC, which keeps the scan
# linear on unterminated ones (each try stops at the next ESC).
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")

LETTER_SEVERITY: dict[str, Severity] = {
    "V": "verbose",
    "I": "info",
    "W": "warning",
    "E": "error",
    "F": "fatal",
}
_WORD_SEVERITY: dict[str, Severity] = {
    "VERBOSE": "verbose",
    "DEBUG": "verbose",
    "INFO": "info",
    "WARNING": "warning",
    "WARN": "warning",
    "ERROR": "error",
    "INTERNAL ERROR": "fatal",
    "FATAL": "fatal",
    "CRITICAL": "fatal",
}

# The trtexec envelope, written once: ``[01/10/2024-21:52:52] [V] [TRT] `` (the tag optional).
_STAMP = r"\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d"
_LETTERS = "VIWEF"
#: The common trtexec envelope ``[ts] [S] `` with an optional ``[TRT] ``: tried first because
#: nearly every line of a trtexec log has it.
#: Groups: timestamp, severity letter, ``[TRT]`` tag (or None), message.
FAST_ENVELOPE = re.compile(
    rf"\[({_STAMP})\] \[([{_LETTERS}])\](?: (\[TRT\](?: |$))?|$)(.*)",
    re.DOTALL,
)

#: The same envelope in front of a non-empty message, as a pattern text that the
#: grammar-compiled matchers put before a message regex to match whole lines; the severity
#: letter is the group ``env_severity``.
LINE_ENVELOPE = rf"\[{_STAMP}\] \[(?P<env_severity>[{_LETTERS}])\] (?:\[TRT\] )?"

_TS = rf"\[{_STAMP}\]"
_GENERAL = re.compile(
    # outer wrappers: ROS 2 launch "[node-1] ", docker compose "svc_1  | "
    r"(?P<wrap>\[[\w.@/:-]+-\d+\] |[\w.-]+ +\| )?"
    # paste decorations: indentation, quote marks, comment markers, a stray "[" (T6)
    r"(?P<deco>[ \t]*(?:>+ ?|//+ ?|#+ )?[ \t]*(?:\[(?=\[\d\d/))?)"
    # one or more timestamps (stacked timestamps, T3)
    rf"(?P<ts>(?:{_TS} ?)+)?"
    r"(?:"
    r"\[(?P<s1>[VIWEF])\](?: (?P<t1>\[TRT\])(?: |$)| |$)"
    r"|\[TRT\] \[(?P<s2>[VIWEF])\](?: |$)"
    r"|\[TRT-LLM\] \[(?P<s3>[VIWEF])\](?: |$)"
    r"|\[TensorRT\] (?P<w1>VERBOSE|INFO|WARNING|ERROR|INTERNAL ERROR):(?: |$)"
    r"|(?P<w2>VERBOSE|INFO|WARNING|ERROR): \[TRT\]:(?: |$)"
    r"|(?P<jet>\[TRT\](?: {2,}|$))"
    r"|(?P<w3>INFO|WARNING|ERROR|DEBUG|CRITICAL):torch_tensorrt[^:\[]*(?:\[[^\]]*\])?:"
    r"|\[(?P<w4>VERBOSE|INFO|WARNING|WARN|ERROR|DEBUG|FATAL)\](?: |$)"
    r")?"
)


class Split(NamedTuple):
    """A line taken apart (see :func:`split_envelope`).

    Attributes:
        envelope: the envelope shape, or ``None`` for a line without one.
        severity: the severity the envelope states, if any.
        trt: whether the envelope carried ``[TRT]``.
        prefix: the outer wrapper or paste decoration peeled off, if any.
        timestamp: the (last) timestamp, ``MM/DD/YYYY-HH:MM:SS``, if any.
        message: the text after the envelope.
    """

    envelope: Envelope | None
    severity: Severity | None
    trt: bool
    prefix: str | None
    timestamp: str | None
    message: str


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (formats.md T10).

    Example:
        >>> strip_ansi("\\x1b[33m[W] careful\\x1b[0m")
        '[W] careful'
    """
    return ANSI.sub("", text) if "\x1b" in text else text


def split_envelope(text: str) -> Split:
    """Split a line (without its line ending) into its envelope and message.

    Example:
        >>> split_envelope("[01/10/2024-21:52:52] [V] [TRT] Original: 755 layers")
        Split(envelope='trtexec', severity='verbose', trt=True, prefix=None, \
timestamp='01/10/2024-21:52:52', message='Original: 755 layers')
        >>> split_envelope("Segmentation fault (core dumped)").envelope is None
        True
    """
    m = FAST_ENVELOPE.match(text)
    if m is not None:
        stamp, letter, tag, message = m.groups()
        return Split("trtexec", LETTER_SEVERITY[letter], tag is not None, None, stamp, message)
    g = _GENERAL.match(text)
    if g is None or g.lastgroup in (None, "wrap", "deco"):
        # at most a wrapper or indentation, no timestamp and no envelope: an integration's
        # prefix (Torch-TensorRT, ONNX Runtime, Triton...) or a foreign line
        at = g.end() if g is not None else 0
        found = split_integration(text[at:])
        if found is not None:
            return Split(
                found.envelope, found.severity, found.trt, text[:at] or None, None, found.message
            )
        return Split(None, None, False, None, None, text)
    ts_group = g.group("ts")
    timestamp = ts_group.strip().split("] ")[-1].strip("[]") if ts_group else None
    prefix = (g.group("wrap") or "") + (g.group("deco") or "")
    envelope: Envelope | None = None
    severity: Severity | None = None
    trt = False
    if g.group("s1"):
        envelope = "trtexec" if ts_group else "severity"
        severity = LETTER_SEVERITY[g.group("s1")]
        trt = g.group("t1") is not None
    elif g.group("s2"):
        envelope, severity, trt = "python", LETTER_SEVERITY[g.group("s2")], True
    elif g.group("s3"):
        envelope, severity = "trtllm", LETTER_SEVERITY[g.group("s3")]
    elif g.group("w1"):
        envelope, severity, trt = "python_legacy", _WORD_SEVERITY[g.group("w1")], True
    elif g.group("w2"):
        envelope, severity, trt = "deepstream", _WORD_SEVERITY[g.group("w2")], True
    elif g.group("jet"):
        envelope, trt = "jetson", True
    elif g.group("w3"):
        envelope, severity, trt = "torch_tensorrt", _WORD_SEVERITY[g.group("w3")], True
    elif g.group("w4"):
        envelope, severity = "bracket_word", _WORD_SEVERITY[g.group("w4")]
    elif ts_group:
        envelope = "timestamp"
    if envelope is None:
        return Split(None, None, False, None, None, text)
    return Split(envelope, severity, trt, prefix or None, timestamp, text[g.end() :])
