"""One screen about a build: the data behind ``trtlog summary``.

A view package (pydantic; pandas only for the tactic figures). :func:`summarize`
(:mod:`~trtlog.summary.collect`) collects what a reader of a verbose log looks for first into
a typed :class:`Summary` (:mod:`~trtlog.summary.model`), which renders itself as text
(``Summary.to_text()``) or JSON.
"""

from trtlog.summary.collect import summarize
from trtlog.summary.model import (
    NO_PASS,
    AccuracyRow,
    PassRow,
    RoundSummary,
    RunRow,
    StageCount,
    Summary,
)

__all__ = [
    "NO_PASS",
    "AccuracyRow",
    "PassRow",
    "RoundSummary",
    "RunRow",
    "StageCount",
    "Summary",
    "summarize",
]
