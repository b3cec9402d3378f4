"""Findings: rules that flag missing fusions after Q/DQ insertion and other build problems.

A view package (pydantic; pandas only in :func:`findings_frame`). Each rule is a function
``check_*`` that yields :class:`Finding` objects (rule id, severity, subject, what was found,
why it matters, the mitigation, and the evidence: log lines, layer indices, names, the time
at stake); :data:`RULES` is the registry; :func:`lint` runs it over a build, its engine and
profile, and optionally a reference build; :func:`to_sarif` writes SARIF 2.1.0 for
code-scanning dashboards. ``docs/rules.md`` explains every rule.

Example:
    >>> import trtlog
    >>> b = trtlog.parse_text("[W] [TRT] Missing scale and zero-point for tensor t1, expect "
    ...     "fall back to non-int8 implementation for any layer consuming or producing given "
    ...     "tensor\\n")
    >>> print(trtlog.lint(b)[0].to_text())  # doctest: +ELLIPSIS
    warning qdq-missing-scale: t1
      TensorRT has no scale and zero-point for 1 tensor (t1) and runs the layers ...
    ...
"""

from typing import TYPE_CHECKING

from trtlog.findings.base import Check, make, rule
from trtlog.findings.context import LintContext
from trtlog.findings.models import SEVERITIES, Evidence, Finding, RuleInfo, Severity, severity_rank
from trtlog.findings.registry import RULES, lint, rule_info, select_rules
from trtlog.findings.sarif import to_sarif

if TYPE_CHECKING:
    from trtlog.findings.frame import findings_frame

__all__ = [
    "RULES",
    "SEVERITIES",
    "Check",
    "Evidence",
    "Finding",
    "LintContext",
    "RuleInfo",
    "Severity",
    "findings_frame",
    "lint",
    "make",
    "rule",
    "rule_info",
    "select_rules",
    "severity_rank",
    "to_sarif",
]


def __getattr__(name: str) -> object:
    if name == "findings_frame":
        from trtlog.findings.frame import findings_frame

        return findings_frame
    raise AttributeError(f"module 'trtlog.findings' has no attribute {name!r}")
