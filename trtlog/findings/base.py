"""The rule decorator and the helpers every rule module uses to make findings.

Part of the view package :mod:`trtlog.findings`. A rule is a function ``check_*(ctx)`` that
yields :class:`~trtlog.findings.models.Finding` objects; :func:`rule` attaches its
:class:`~trtlog.findings.models.RuleInfo` (id, default severity, title, explanation), which
the registry, the SARIF output and ``docs/rules.md`` share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from trtlog._pydantic import assemble
from trtlog.engine.model import EngineLayer
from trtlog.findings.context import LintContext
from trtlog.findings.models import Evidence, Finding, RuleInfo, Severity

__all__ = ["Check", "Rule", "make", "rule"]

_MAX_NAMES = 20  # layer names copied into the evidence (the indices list them all)

# every field is given, as by a validating constructor called with all of them; the sets are
# shared (frozen models never change them)
_EVIDENCE_SET = set(Evidence.model_fields)
_FINDING_SET = set(Finding.model_fields)


class Check(Protocol):
    """A rule function: findings from a lint context (``info`` is set by :func:`rule`)."""

    info: RuleInfo

    def __call__(self, ctx: LintContext) -> Iterable[Finding]:
        """The findings of the rule."""
        ...


Rule = Check


def rule(
    id: str,
    severity: Severity,
    title: str,
    explanation: str,
    needs: tuple[str, ...] = (),
    qdq: bool = False,
    other_severities: tuple[tuple[Severity, str], ...] = (),
) -> Callable[[Callable[[LintContext], Iterator[Finding]]], Check]:
    """Declare a rule: the decorated ``check_*`` function gets its :class:`RuleInfo`.

    Example:
        >>> @rule("demo-rule", "info", "A demo.", "Explains nothing.")
        ... def check_demo(ctx):
        ...     yield from ()
        >>> check_demo.info.id
        'demo-rule'
    """
    info = RuleInfo(
        id=id,
        severity=severity,
        title=title,
        explanation=explanation,
        needs=needs,
        qdq=qdq,
        other_severities=other_severities,
    )

    def wrap(fn: Callable[[LintContext], Iterator[Finding]]) -> Check:
        fn.info = info  # type: ignore[attr-defined]
        return fn  # type: ignore[return-value]

    return wrap


def make(
    ctx: LintContext,
    check: Check,
    subject: str,
    message: str,
    why: str = "",
    mitigation: str = "",
    *,
    severity: Severity | None = None,
    lines: Iterable[int] = (),
    layers: Iterable[EngineLayer] | Iterable[int] = (),
    names: Iterable[str] = (),
    reference_layers: Iterable[int] = (),
    time_ms: float | None = None,
    line_count: int | None = None,
) -> Finding:
    """A finding of ``check`` with its evidence (layers also add the log lines that show them).

    ``line_count`` is how many log lines matched when ``lines`` keeps only the first of them
    (the evidence's ``(+N)`` then counts every match, not the lines kept).

    ``layers`` are layer objects, or positions in ``ctx.layers`` (a rule that read a layer's
    values from the columns names it without building its object).

    Assembled without validation (a 20,000-layer engine yields thousands of findings): every
    value is typed here, and the tests re-validate the findings of every fixture.
    """
    layer_list = layers if type(layers) is list else list(layers)
    if layer_list and type(layer_list[0]) is int:  # positions in ctx.layers (all of them)
        positions: list[int] = layer_list  # type: ignore[assignment]
        columns = ctx.columns
        layer_names = [columns.names[i] for i in positions]
        layers_of = ctx.layers
        indices = positions if columns.positional else [layers_of[i].index for i in positions]
    else:
        objects: list[EngineLayer] = layer_list  # type: ignore[assignment]
        layer_names = [x.name for x in objects]
        indices = [x.index for x in objects]
    if len(indices) > 1:
        indices = sorted(set(indices))
    all_lines = list(lines)
    if layer_names and ctx.build is not None:
        index = ctx.layer_lines  # ctx.lines_of, inline: thousands of findings
        for name in layer_names:
            found = index.get(name)
            if found:
                all_lines += found
    if len(all_lines) > 1:
        all_lines = sorted(set(all_lines))
    if len(layer_names) > _MAX_NAMES:
        layer_names = layer_names[:_MAX_NAMES]
    if names:
        layer_names = [*layer_names, *names]
    if len(layer_names) > 1:
        layer_names = list(dict.fromkeys(layer_names))
    evidence = _evidence(
        ctx.log_source if all_lines else None,
        all_lines,
        ctx.layer_source if layer_list else None,
        indices,
        layer_names,
        tuple(reference_layers),
        line_count if line_count is not None and line_count > len(all_lines) else None,
    )
    return _finding(
        check.info.id,
        severity or check.info.severity,
        subject,
        message,
        why,
        mitigation,
        evidence,
        time_ms,
    )


def _evidence(
    source: str | None,
    lines: list[int],
    layer_source: str | None,
    layers: list[int],
    names: list[str],
    reference_layers: tuple[int, ...],
    line_count: int | None = None,
) -> Evidence:
    """The evidence of a finding, assembled (its fields are already what validation makes)."""
    return assemble(
        Evidence,
        {
            "source": source,
            "lines": tuple(lines),
            "layer_source": layer_source,
            "layers": tuple(layers),
            "names": tuple(names),
            "reference_layers": reference_layers,
            "line_count": line_count,
        },
        None,
        _EVIDENCE_SET,
    )


def _finding(
    rule_id: str,
    severity: Severity,
    subject: str,
    message: str,
    why: str,
    mitigation: str,
    evidence: Evidence,
    time_ms: float | None,
) -> Finding:
    """A finding, assembled (``time_ms`` as a float, what validation would make of an int)."""
    return assemble(
        Finding,
        {
            "rule": rule_id,
            "severity": severity,
            "subject": subject,
            "message": message,
            "why": why,
            "mitigation": mitigation,
            "evidence": evidence,
            "time_ms": time_ms if time_ms is None or type(time_ms) is float else float(time_ms),
        },
        None,
        _FINDING_SET,
    )
