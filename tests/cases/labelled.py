"""The labelled set (``tests/cases/*.toml``): real inputs with the verdicts an expert reached.

Each ``[[case]]`` table of a topic file names an input and what trtlog must make of it:

- ``name``: unique over all files;
- ``input``: ``corpus:<path under ../shared/corpus>`` (referenced, never copied) or
  ``fixtures/<path>`` (a fixture written from a public thread in our own words);
- ``profile`` (optional): an ``--exportProfile`` of the same engine, same notation;
- ``outcome`` (optional): the build's outcome (``built``, ``failed``, ``killed``,
  ``incomplete``, ``no-build``: :mod:`trtlog.summary.outcome`; the last build of the log);
- ``must_fire`` / ``must_not_fire``: rule ids;
- ``contains`` / ``lacks`` (optional): texts that some finding must hold / no finding may hold
  (in its message, why or fix), e.g. a fix's flag for the input's TensorRT version;
- ``trt`` (optional): the TensorRT version of the input, as far as it is known;
- ``source``: the corpus MANIFEST row (the file name) or the public issue thread the fixture
  paraphrases.

:func:`evaluate` runs one case; ``tests/cases/test_cases.py`` fails on any false finding or lost
hit, ``bench/diagnosis.py`` prints the per-rule table.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trtlog
from tests.conftest import CORPUS
from trtlog.inputs import open_input
from trtlog.summary.outcome import OUTCOMES, outcome_of

__all__ = ["CASES", "Case", "Result", "evaluate", "load_cases"]

CASES = Path(__file__).resolve().parent
ROOT = CASES.parents[1]
_KEYS = frozenset(
    {
        "name",
        "input",
        "profile",
        "outcome",
        "must_fire",
        "must_not_fire",
        "contains",
        "lacks",
        "trt",
        "source",
        "note",
    }
)


@dataclass(frozen=True)
class Case:
    """One labelled input (see the module docstring for the fields)."""

    name: str
    input: str
    topic: str
    source: str
    outcome: str | None = None
    profile: str | None = None
    must_fire: tuple[str, ...] = ()
    must_not_fire: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()
    trt: str | None = None

    @property
    def needs_corpus(self) -> bool:
        """Whether an input of the case lives in ``../shared/corpus``."""
        return any((v or "").startswith("corpus:") for v in (self.input, self.profile))

    @property
    def failed(self) -> bool:
        """Whether the case is a failed (or killed) build."""
        return self.outcome in ("failed", "killed")

    @property
    def modern(self) -> bool:
        """Whether the input is TensorRT 10 or 11 output."""
        return (self.trt or "").split(".")[0] in ("10", "11")


@dataclass
class Result:
    """What one case gave: its problems and the rules that fired."""

    case: Case
    fired: set[str] = field(default_factory=set)
    outcome: str | None = None
    problems: list[str] = field(default_factory=list)
    skipped: str | None = None

    @property
    def hits(self) -> set[str]:
        """The must-fire rules that fired."""
        return set(self.case.must_fire) & self.fired

    @property
    def false(self) -> set[str]:
        """The must-not-fire rules that fired."""
        return set(self.case.must_not_fire) & self.fired


def _path(value: str) -> Path:
    if value.startswith("corpus:"):
        return CORPUS / value.removeprefix("corpus:")
    return ROOT / value


def load_cases() -> list[Case]:
    """Every case of every topic file, in file order.

    Raises:
        ValueError: a case with an unknown key or outcome, a repeated name, a missing source.
    """
    out: list[Case] = []
    seen: set[str] = set()
    for path in sorted(CASES.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for raw in data.get("case", []):
            where = f"{path.name}: {raw.get('name', '?')}"
            unknown = set(raw) - _KEYS
            if unknown:
                raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
            if raw["name"] in seen:
                raise ValueError(f"{where}: the name is used twice")
            seen.add(raw["name"])
            if raw.get("outcome") is not None and raw["outcome"] not in OUTCOMES:
                raise ValueError(f"{where}: unknown outcome {raw['outcome']!r}")
            if not raw.get("source"):
                raise ValueError(f"{where}: no source")
            out.append(
                Case(
                    name=raw["name"],
                    input=raw["input"],
                    topic=path.stem,
                    source=raw["source"],
                    outcome=raw.get("outcome"),
                    profile=raw.get("profile"),
                    must_fire=tuple(raw.get("must_fire", ())),
                    must_not_fire=tuple(raw.get("must_not_fire", ())),
                    contains=tuple(raw.get("contains", ())),
                    lacks=tuple(raw.get("lacks", ())),
                    trt=raw.get("trt"),
                )
            )
    return out


def evaluate(case: Case) -> Result:
    """Read the case's input as the CLI does, lint it, and compare with the labels."""
    result = Result(case)
    if case.needs_corpus and not CORPUS.is_dir():
        result.skipped = "the corpus (../shared/corpus) is absent"
        return result
    opened = open_input(_path(case.input), want=("log", "layers"))
    profile = _path(case.profile) if case.profile else None
    findings = trtlog.lint(opened.build or opened.engine, profile=profile)
    result.fired = {f.rule for f in findings}
    if opened.build is not None:
        result.outcome = outcome_of(opened.build).value
    if case.outcome is not None and result.outcome != case.outcome:
        result.problems.append(f"outcome {result.outcome!r}, expected {case.outcome!r}")
    for rule in sorted(set(case.must_fire) - result.fired):
        result.problems.append(f"lost hit: {rule} did not fire")
    for rule in sorted(result.false):
        result.problems.append(f"false finding: {rule} fired")
    texts = [" ".join((f.message, f.why, f.mitigation)) for f in findings]
    for text in case.contains:
        if not any(text in t for t in texts):
            result.problems.append(f"no finding says {text!r}")
    for text in case.lacks:
        if any(text in t for t in texts):
            result.problems.append(f"a finding says {text!r}")
    return result


def summary_counts(cases: list[Case]) -> dict[str, Any]:
    """How many cases, failed builds and TensorRT 10/11 inputs the set holds."""
    return {
        "cases": len(cases),
        "failed builds": sum(c.failed for c in cases),
        "TensorRT 10/11": sum(c.modern for c in cases),
        "corpus inputs": sum(c.needs_corpus for c in cases),
    }
