"""The fragment set (``fixtures/fragments/``): read each fragment, check its golden.

One function per expectation kind of ``fixtures/fragments/README.md``; :func:`check` returns
the problems of one fragment as text (empty when it meets its golden) with the counts the
hit-rate report adds up. Used by ``tests/findings/test_fragments.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trtlog
from tests.conftest import FIXTURES
from trtlog import Build, Engine, Finding
from trtlog.errors import InputError

FRAGMENTS = FIXTURES / "fragments"


def goldens() -> list[Path]:
    """Every ``*.expected.json`` of the fragment set, sorted."""
    return sorted(FRAGMENTS.glob("*.expected.json"))


@dataclass
class Result:
    """What one fragment gave: problems, and the counts of the hit-rate report."""

    name: str
    problems: list[str] = field(default_factory=list)
    expected: int = 0  # must-fire findings expected
    hits: int = 0  # of them found
    false: int = 0  # findings that must not fire and did
    findings: list[str] = field(default_factory=list)


def _open(path: Path) -> tuple[Build | None, Engine | None]:
    opened = trtlog.inputs.open_input(path, want=("log", "layers"))
    return opened.build, opened.engine


def _covering(build: Build, line: int) -> Any:
    for event in build.events:
        if event.span[0] <= line <= event.span[1]:
            return event
    return None


def _check_lines(build: Build | None, golden: dict[str, Any], out: Result) -> None:
    for entry in golden.get("lines", []):
        n = entry["line"]
        if build is None:
            if entry.get("recognized"):
                out.problems.append(f"line {n}: no log events (the input was read as JSON)")
            continue
        event = _covering(build, n)
        if event is None:
            out.problems.append(f"line {n}: no event covers it")
            continue
        if entry.get("recognized") and event.kind == "unrecognized":
            out.problems.append(f"line {n}: unrecognized: {build.lines[n - 1]!r}"[:200])
        kind = entry.get("kind")
        if kind and entry.get("recognized") and event.kind != kind:
            out.problems.append(f"line {n}: kind {event.kind}, expected {kind}")
        envelope = entry.get("envelope")
        if envelope and event.kind == "unrecognized" and event.envelope != envelope:
            out.problems.append(f"line {n}: envelope {event.envelope}, expected {envelope}")
        severity = entry.get("severity")
        if severity and entry.get("recognized") and event.severity != severity:
            out.problems.append(f"line {n}: severity {event.severity}, expected {severity}")


def _check_engine(engine: Engine | None, golden: dict[str, Any], out: Result) -> None:
    want = golden.get("engine")
    if not want:
        return
    if engine is None:
        out.problems.append("no engine")
        return
    names = [layer.name for layer in engine.layers]
    if "layers" in want and len(names) != want["layers"]:
        out.problems.append(f"engine has {len(names)} layers, expected {want['layers']}")
    if "names" in want and names[: len(want["names"])] != want["names"]:
        out.problems.append(f"engine names {names[:5]}, expected {want['names'][:5]}")
    times = want.get("times_ms") or {}
    if times:
        by_name = {layer.name: layer for layer in engine.layers}
        for name, ms in times.items():
            layer = by_name.get(name)
            got = None if layer is None or layer.time is None else layer.time.average_ms
            if got is None or abs(got - ms) > 1e-6:
                out.problems.append(f"time of {name}: {got}, expected {ms}")


def _check_fates(build: Build | None, golden: dict[str, Any], out: Result) -> None:
    fates = golden.get("fates") or []
    limit = golden.get("max_unexplained")
    if not fates and limit is None:
        return
    if build is None:
        out.problems.append("no build for the merge graph")
        return
    graph = build.merge_graph()
    for want in fates:
        fate = graph.fate(want["node"])
        if fate.kind != want["kind"]:
            out.problems.append(f"fate of {want['node']}: {fate.kind}, expected {want['kind']}")
            continue
        text = want.get("reason_contains")
        if text and text not in (fate.reason or ""):
            out.problems.append(f"reason of {want['node']}: {fate.reason!r} lacks {text!r}")
        final = want.get("final_layer")
        if final and final not in fate.final_layers:
            out.problems.append(f"{want['node']} ends in {fate.final_layers}, not {final!r}")
    if limit is not None:
        unexplained = [f.node for f in graph.fates() if f.kind == "unexplained"]
        if len(unexplained) > limit:
            out.problems.append(f"unexplained: {unexplained} (at most {limit})")


def _matches(finding: Finding, want: dict[str, Any]) -> bool:
    if finding.rule != want["rule"] or finding.severity != want.get("severity", finding.severity):
        return False
    lines = set(finding.evidence.lines)
    if not set(want.get("evidence_lines") or ()) <= lines:
        return False
    layers = set(finding.evidence.layers)
    if not set(want.get("evidence_layers") or ()) <= layers:
        return False
    text = want.get("subject_contains")
    return not text or text in finding.subject


def _check_rules(findings: list[Finding], golden: dict[str, Any], out: Result) -> None:
    rules = golden.get("rules")
    if not rules:
        return
    must = rules.get("must_fire") or []
    for want in must:
        out.expected += 1
        if any(_matches(f, want) for f in findings):
            out.hits += 1
        else:
            got = [(f.rule, f.severity, f.evidence.lines, f.subject) for f in findings]
            out.problems.append(f"must fire {want}; got {got}"[:400])
    banned = set(rules.get("must_not_fire") or ())
    fired = {want["rule"] for want in must}
    for f in findings:
        if f.rule in banned or (rules.get("no_other_findings") and f.rule not in fired):
            out.false += 1
            out.problems.append(f"must not fire: {f.rule} ({f.subject})")


def check(golden_path: Path) -> Result:
    """Read one fragment and compare it with its golden."""
    golden = json.loads(golden_path.read_text())
    out = Result(golden["fragment"])
    path = FRAGMENTS / golden["fragment"]
    try:
        build, engine = _open(path)
    except InputError as exc:
        if not golden.get("input_error"):
            out.problems.append(f"InputError: {exc}"[:300])
            out.expected += len((golden.get("rules") or {}).get("must_fire") or [])
        return out
    if golden.get("input_error"):
        out.problems.append("expected an InputError")
    _check_lines(build, golden, out)
    if engine is None and build is not None:
        engine = build.engine
    _check_engine(engine, golden, out)
    _check_fates(build, golden, out)
    if golden.get("rules"):
        reference = (golden.get("companions") or {}).get("reference")
        findings = trtlog.lint(
            build if build is not None else engine,
            engine=engine if build is not None else None,
            reference=FRAGMENTS / reference if reference else None,
        )
        out.findings = [f.rule for f in findings]
        _check_rules(findings, golden, out)
    return out
