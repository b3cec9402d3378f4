"""The ``PROFILED_LAYER`` terminal (autotune.lark) matches what its first form matched.

It was ``/.+(?= \\(<runner>\\) profiling completed in )/s``: a greedy run to the line's end,
then one step back per character with the lookahead tried at each. It now runs possessively
from blank to blank (the lookahead starts with a blank, so no other place can end the layer)
and steps back a blank at a time: the same longest layer, found in fewer steps. Checked
against the first form on every corpus line of that kind, on generated texts, and through
the compiled matcher of the rule.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import trtlog
from tests.conftest import FIXTURES, ROOT, corpus_logs

LOOKAHEAD = r"(?= \([A-Za-z0-9_]+(\[0x[0-9a-fA-F]+\])?\) profiling completed in )"
#: the terminal before the change (the reference)
FIRST = r".+" + LOOKAHEAD
#: what the rule matches after the terminal (``runner_profiled`` with its runner id optional)
REST = (
    r" \((?P<runner>[A-Za-z_][A-Za-z0-9_]*)(?:\[(?P<rid>0x[0-9a-fA-F]+)\])?\)"
    r" profiling completed in (?P<secs>[-+0-9.eE]+|inf|nan) seconds\. Fastest Tactic:"
    r" (?P<tactic>0x[0-9a-fA-F]+|-?\d+) Time: (?P<time>[-+0-9.eE]+|inf|nan)"
)


def _terminal() -> str:
    text = (ROOT / "grammars" / "autotune.lark").read_text(encoding="utf-8")
    found = re.search(r"^PROFILED_LAYER: /(.*)/s$", text, re.MULTILINE)
    assert found is not None
    return found.group(1)


NOW = _terminal()
PAIRS = [
    (re.compile(FIRST, re.S), re.compile(NOW, re.S)),  # the terminal alone (Lark's lexer)
    # as the compiled matcher uses it: atomic, then the rest of the rule, the whole message
    (re.compile(f"(?>(?s:{FIRST})){REST}"), re.compile(f"(?>(?s:{NOW})){REST}")),
]


def _same(text: str) -> None:
    for first, now in PAIRS[:1]:
        a, b = first.match(text), now.match(text)
        assert (a and a.span()) == (b and b.span()), text
    first, now = PAIRS[1]
    a, b = first.fullmatch(text), now.fullmatch(text)
    assert (a and a.groupdict()) == (b and b.groupdict()), text
    assert (a and a.span()) == (b and b.span()), text


def test_the_terminal_changed() -> None:
    # (else this file tests nothing: the grammar keeps the first form)
    assert NOW != FIRST
    assert NOW.endswith(LOOKAHEAD)


SAMPLES = [
    "/f/Conv + /f/Relu (CaskConvolution[0x80000009]) profiling completed in 0.0813502 seconds."
    " Fastest Tactic: 0xd828f024626fa982 Time: 0.0513463",
    "a (X) profiling completed in 1 seconds. Fastest Tactic: 0x1 Time: 2",
    # the phrase inside the layer name: the last one ends the layer, as before
    "n (A) profiling completed in x (B[0x1]) profiling completed in 1 seconds. Fastest Tactic:"
    " 5 Time: 1",
    " (X) profiling completed in 1 seconds. Fastest Tactic: 0x1 Time: 2",  # no layer
    "  (X) profiling completed in 1 seconds. Fastest Tactic: 0x1 Time: 2",  # a blank layer
    "a\n(X) (Y) profiling completed in 1 seconds. Fastest Tactic: 0x1 Time: 2",
    "ab (X) profiling completed in ",
    "no phrase at all",
    "",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_samples(text: str) -> None:
    _same(text)


def test_every_corpus_line_of_the_kind() -> None:
    seen = 0
    fixtures = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".log", ".txt"))
    for path in [*corpus_logs(), *fixtures]:
        text = Path(path).read_text(encoding="utf-8", errors="surrogateescape")
        for line in text.splitlines():
            if "profiling completed in" not in line:
                continue
            seen += 1
            # the message after each "] " (the envelope's end) and the whole line
            starts = [0] + [m.end() for m in re.finditer(r"\] ", line)]
            for at in starts:
                _same(line[at:])
    assert seen  # (fixtures/lines/autotune.txt holds some)


PIECES = st.sampled_from(
    [" ", "a", "_", "(", ")", "[", "]", "0x1f", "X", "\n", " + ", "(Cask[0x8])",
     " (R) profiling completed in ", " (R[0xA]) profiling completed in ", "1.5",
     " seconds. Fastest Tactic: ", "0x1f", " Time: ", "2e-05"]
)  # fmt: skip


@given(st.lists(PIECES, max_size=14))
def test_generated_texts(pieces: list[str]) -> None:
    _same("".join(pieces))


@given(st.lists(PIECES, max_size=8), st.sampled_from(["", "[0x8000]"]))
def test_generated_messages(pieces: list[str], rid: str) -> None:
    text = "".join(pieces) + f" (Run{rid}) profiling completed in 0.5 seconds."
    _same(text + " Fastest Tactic: 0x12 Time: 0.25")


def test_parsed_through_the_rule() -> None:
    # the parser's compiled matcher takes the new terminal: the layer is the longest one
    name = "n (A) profiling completed in x + /y/Conv"
    line = (
        f"[01/01/2024-00:00:00] [V] [TRT] {name} (CaskConvolution[0x80000009]) profiling "
        "completed in 0.0527958 seconds. Fastest Tactic: 0x8133287637ebdcd9 Time: 0.00335499\n"
    )
    events = [e for e in trtlog.parse_text(line).events if e.kind == "runner_profiled"]
    assert [e.layer for e in events] == [name]
