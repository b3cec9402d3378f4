"""``findings_frame``: findings as a pandas DataFrame with a declared schema.

Part of the view package :mod:`trtlog.findings` (pandas, imported here only).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from trtlog.findings.models import Finding
from trtlog.frames.schema import SCHEMAS, frame_from_records

__all__ = ["findings_frame"]

SCHEMAS["findings"] = {
    "rule": "string",
    "severity": "string",
    "subject": "string",
    "message": "string",
    "why": "string",
    "mitigation": "string",
    "time_ms": "float64",
    "lines": "string",
    "layers": "string",
    "names": "string",
    "source": "string",
    "layer_source": "string",
}


def findings_frame(findings: Sequence[Finding]) -> pd.DataFrame:
    """One row per finding: rule, severity, subject, texts, time at stake and evidence.

    ``lines`` and ``layers`` are comma-separated numbers, ``names`` is `` | ``-separated.

    Example:
        >>> from trtlog.findings import Finding
        >>> f = Finding(rule="build-failed", severity="error", subject="build", message="m")
        >>> findings_frame([f])[["rule", "severity", "time_ms"]].to_dict("records")
        [{'rule': 'build-failed', 'severity': 'error', 'time_ms': nan}]
    """
    records = [
        {
            "rule": f.rule,
            "severity": f.severity,
            "subject": f.subject,
            "message": f.message,
            "why": f.why,
            "mitigation": f.mitigation,
            "time_ms": float("nan") if f.time_ms is None else f.time_ms,
            "lines": ",".join(str(n) for n in f.evidence.lines),
            "layers": ",".join(str(n) for n in f.evidence.layers),
            "names": " | ".join(f.evidence.names),
            "source": f.evidence.source,
            "layer_source": f.evidence.layer_source,
        }
        for f in findings
    ]
    return frame_from_records("findings", records)
