"""SARIF 2.1.0 output: findings for code-scanning dashboards.

Part of the view package :mod:`trtlog.findings` (standard library only). One ``run`` whose
``tool.driver.rules`` describe every rule of the registry; each finding is a ``result`` with
its ``ruleId``, ``ruleIndex``, ``level`` (``note``/``warning``/``error``), ``message`` and
``locations``: the log file and line of each evidence line (the first few), or the layer JSON
with the layer as a logical location.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from trtlog._version import __version__
from trtlog.findings.models import Finding
from trtlog.findings.registry import RULES

__all__ = ["SARIF_SCHEMA", "to_sarif"]

#: The schema URI a SARIF 2.1.0 log names.
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"info": "note", "warning": "warning", "error": "error"}
_MAX_LOCATIONS = 5


def _uri(path: str) -> str:
    """A URI reference for a file name.

    Relative paths stay relative (code-scanning tools resolve them against the checkout),
    absolute ones become ``file://`` URIs, and a name that is no path (``<stdin>``) becomes
    ``stdin``.

    Example:
        >>> _uri("logs/build 1.log"), _uri("/tmp/b.log"), _uri("<stdin>")
        ('logs/build%201.log', 'file:///tmp/b.log', 'stdin')
    """
    if path.startswith("<") and path.endswith(">"):
        return path[1:-1] or "stdin"
    pure = PurePath(path)
    if pure.is_absolute():
        posix = pure.as_posix()
        return "file://" + ("" if posix.startswith("/") else "/") + quote(posix, safe="/:")
    return quote(pure.as_posix(), safe="/")


def _locations(f: Finding) -> list[dict[str, Any]]:
    ev = f.evidence
    out: list[dict[str, Any]] = []
    if ev.source and ev.lines:
        for line in ev.lines[:_MAX_LOCATIONS]:
            out.append(
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(ev.source)},
                        "region": {"startLine": line},
                    }
                }
            )
    elif ev.layer_source:
        loc: dict[str, Any] = {
            "physicalLocation": {"artifactLocation": {"uri": _uri(ev.layer_source)}}
        }
        if ev.names:
            loc["logicalLocations"] = [
                {"name": ev.names[0], "kind": "object", "fullyQualifiedName": ev.names[0]}
            ]
        out.append(loc)
    return out


def _fallback(artifact: str | None) -> list[dict[str, Any]]:
    if artifact is None:
        return []
    return [{"physicalLocation": {"artifactLocation": {"uri": _uri(artifact)}}}]


def to_sarif(
    findings: Sequence[Finding], *, version: str | None = None, artifact: str | None = None
) -> dict[str, Any]:
    """The findings as a SARIF 2.1.0 log (a JSON-ready dict).

    Args:
        findings: what :func:`~trtlog.findings.lint` returned.
        version: the tool version to report (default: trtlog's).
        artifact: the file that was linted; a finding without log lines or layers points at
            it, so that every result has a location (code-scanning services require one).

    Example:
        >>> from trtlog.findings import Evidence, Finding
        >>> f = Finding(rule="build-failed", severity="error", subject="b", message="m",
        ...             evidence=Evidence(source="build.log", lines=(12,)))
        >>> run = to_sarif([f])["runs"][0]
        >>> run["results"][0]["level"], run["results"][0]["locations"][0]["physicalLocation"]
        ('error', {'artifactLocation': {'uri': 'build.log'}, 'region': {'startLine': 12}})
    """
    index = {r.info.id: i for i, r in enumerate(RULES)}
    rules = [
        {
            "id": r.info.id,
            "name": "".join(w.capitalize() for w in r.info.id.split("-")),
            "shortDescription": {"text": r.info.title},
            "fullDescription": {"text": r.info.explanation},
            "help": {"text": r.info.explanation},
            "helpUri": f"https://github.com/trtlog/trtlog/blob/main/docs/rules.md#{r.info.id}",
            "defaultConfiguration": {"level": _LEVEL[r.info.severity]},
            "properties": {"tags": ["tensorrt", *(["quantization"] if r.info.qdq else [])]},
        }
        for r in RULES
    ]
    results = []
    for f in findings:
        text = f.message
        if f.why:
            text += f". Why: {f.why}"
        if f.mitigation:
            text += f". Fix: {f.mitigation}"
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "level": _LEVEL[f.severity],
            "message": {"text": text},
            "locations": _locations(f) or _fallback(artifact),
            "partialFingerprints": {
                "trtlogSubject/v1": hashlib.sha256(f"{f.rule}\0{f.subject}".encode()).hexdigest()[
                    :32
                ]
            },
            "properties": {"subject": f.subject},
        }
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.time_ms is not None and f.time_ms == f.time_ms:
            result["properties"]["timeMs"] = f.time_ms
        if f.evidence.layers:
            result["properties"]["layers"] = list(f.evidence.layers)
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "trtlog",
                        "version": version or __version__,
                        "informationUri": "https://github.com/trtlog/trtlog",
                        "rules": rules,
                    }
                },
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
