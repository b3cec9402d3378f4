"""Typed findings: what a rule found, why it matters, what to do, and the evidence.

Part of the view package :mod:`trtlog.findings` (pydantic only). A :class:`Finding` is what a
``check_*`` rule yields; a :class:`RuleInfo` is the registry's description of a rule (its id,
default severity, title and one-paragraph explanation), which the SARIF output and the
documentation use.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from trtlog._display import number

if TYPE_CHECKING:
    from trtlog.buildlog import Build

__all__ = ["SEVERITIES", "Evidence", "Finding", "RuleInfo", "Severity", "severity_rank"]

Severity = Literal["info", "warning", "error"]

#: Severities from the least to the most serious.
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "error")

_FROZEN = ConfigDict(frozen=True, ser_json_inf_nan="constants")


def severity_rank(severity: str) -> int:
    """The position of a severity in :data:`SEVERITIES` (``info`` 0 ... ``error`` 2).

    Raises:
        ValueError: an unknown severity.

    Example:
        >>> severity_rank("warning") > severity_rank("info")
        True
    """
    try:
        return SEVERITIES.index(severity)  # type: ignore[arg-type,unused-ignore]
    except ValueError:
        raise ValueError(f"unknown severity {severity!r}; known: {', '.join(SEVERITIES)}") from None


class Evidence(BaseModel):
    """Where a finding comes from.

    Attributes:
        source: the file the line numbers refer to (the log), if any.
        lines: 1-based log line numbers, in order (``build.lines[n - 1]`` is the text).
        layer_source: the file the layer indices refer to (a layer JSON or the log).
        layers: engine layer indices (positions in the layer JSON or the log's layer dump).
        names: the layer, node or tensor names involved.
        reference_layers: layer indices in the reference build (rules comparing two builds).
        line_count: how many log lines matched, when a rule keeps only the first of them in
            ``lines`` (``None``: ``lines`` holds every line that matched).
    """

    model_config = _FROZEN

    source: str | None = None
    lines: tuple[int, ...] = ()
    layer_source: str | None = None
    layers: tuple[int, ...] = ()
    names: tuple[str, ...] = ()
    reference_layers: tuple[int, ...] = ()
    line_count: int | None = None

    @property
    def matched(self) -> int:
        """How many log lines matched (``line_count``, else the number of ``lines``).

        Example:
            >>> Evidence(lines=(3, 9), line_count=586).matched
            586
        """
        return self.line_count if self.line_count is not None else len(self.lines)


class Finding(BaseModel):
    """One problem (or one explanation) a rule found in a build.

    Attributes:
        rule: the rule id (stable kebab-case, e.g. ``qdq-unfused-quantizer``).
        severity: ``info``, ``warning`` or ``error``.
        subject: what the finding is about: a layer or node name, or a count (``12 tensors``).
        message: what was found.
        why: why it matters, with the time at stake when layer times are known.
        mitigation: what to do about it.
        evidence: log lines, layer indices and names.
        time_ms: the time per inference at stake (ms), when a profile gives layer times.

    Example:
        >>> f = Finding(rule="x", severity="info", subject="conv1", message="found",
        ...             why="it matters", mitigation="fix it")
        >>> print(f.to_text())
        info x: conv1
          found
          why: it matters
          fix: fix it
    """

    model_config = _FROZEN

    rule: str
    severity: Severity
    subject: str
    message: str
    why: str = ""
    mitigation: str = ""
    evidence: Evidence = Evidence()
    time_ms: float | None = None

    def to_text(self, build: Build | None = None, max_lines: int = 3) -> str:
        """The finding as a few indented lines; with ``build``, the text of evidence lines.

        Args:
            build: the log the line numbers refer to; its lines are quoted (at most
                ``max_lines`` of them).
            max_lines: how many evidence lines to quote.
        """
        head = f"{self.severity} {self.rule}: {self.subject}"
        if self.time_ms is not None and not math.isnan(self.time_ms):
            head += f" ({number(self.time_ms)} ms)"
        out = [head, f"  {self.message}"]
        if self.why:
            out.append(f"  why: {self.why}")
        if self.mitigation:
            out.append(f"  fix: {self.mitigation}")
        ev = self.evidence
        refs = []
        if ev.lines:
            # the count is of the lines that matched, not of those the evidence kept
            shown = ", ".join(str(n) for n in ev.lines[:8])
            matched = max(ev.matched, len(ev.lines))
            more = f" (+{matched - min(len(ev.lines), 8)})" if matched > 8 else ""
            refs.append(f"line {shown}{more}" if matched == 1 else f"lines {shown}{more}")
        if ev.layers:
            shown = ", ".join(str(n) for n in ev.layers[:8])
            more = f" (+{len(ev.layers) - 8})" if len(ev.layers) > 8 else ""
            refs.append(f"layer {shown}{more}" if len(ev.layers) == 1 else f"layers {shown}{more}")
        if ev.reference_layers:
            refs.append("reference layers " + ", ".join(str(n) for n in ev.reference_layers[:8]))
        if refs:
            out.append("  evidence: " + "; ".join(refs))
        if build is not None and ev.lines and (ev.source is None or ev.source == build.source.name):
            lines = build.lines
            for n in ev.lines[:max_lines]:
                if 0 < n <= len(lines):
                    out.append(f"    {n}: {lines[n - 1].rstrip()[:200]}")
        return "\n".join(out)


class RuleInfo(BaseModel):
    """A rule of the registry, as documentation and SARIF describe it.

    Attributes:
        id: the stable kebab-case id.
        severity: the default severity (a finding may be raised or lowered from it).
        title: one line.
        explanation: one paragraph: what the rule detects and why it matters.
        needs: what the rule reads: ``log``, ``engine``, ``profile``, ``reference``.
        qdq: whether the rule is a Q/DQ rule (it never runs on a build without Q/DQ nodes).
        other_severities: every other severity its findings may get, with when
            (``(("warning", "when it takes 2% or more of the layer time"),)``).
    """

    model_config = _FROZEN

    id: str
    severity: Severity
    title: str
    explanation: str
    needs: tuple[str, ...] = ()
    qdq: bool = False
    other_severities: tuple[tuple[Severity, str], ...] = ()

    @property
    def severities(self) -> tuple[Severity, ...]:
        """The default severity, then every other one a finding of the rule may get."""
        return (self.severity, *(s for s, _ in self.other_severities))
