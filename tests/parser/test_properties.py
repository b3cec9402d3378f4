"""Hypothesis properties of the parser (STYLE.md §11): any text parses, spans partition."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trtlog.events import EVENT_CLASSES
from trtlog.parser.source import split_lines
from trtlog.parser.stream import LogParser

# Pieces real logs are made of, so that generated text reaches the grammars, not only the
# unrecognized path.
PIECES = st.sampled_from(
    [
        "[01/10/2024-21:52:52] [V] [TRT] ",
        "[I] ",
        "[TensorRT] VERBOSE: ",
        "Tactic: ",
        "0x00000000000003e8",
        " Time: ",
        "0.5",
        "Fusing ",
        " with ",
        "Running: ",
        "Pass on ",
        "Layer(",
        "): ",
        "{ForeignNode[",
        "...",
        "]}",
        " + ",
        " || ",
        "Original: ",
        " layers",
        "\n",
        "\r\n",
        "\r",
        "\x1b[33m",
        "\x1e",
        " ",
        "=== Build Options ===",
        "Merging layers: ",
        "--------------- Timing Runner: ",
        " (CaskConvolution[0x80000009])",
    ]
)
TEXT = st.one_of(
    st.text(max_size=400),
    st.lists(st.one_of(PIECES, st.text(max_size=12)), max_size=60).map("".join),
)


def _events(text: str, *, compiled: bool = True) -> list[object]:
    parser = LogParser(compiled=compiled)
    out: list[object] = []
    for n, line in enumerate(split_lines(text), 1):
        found = parser.feed(n, line)
        if found is not None:
            out.extend(found if isinstance(found, list) else [found])
    out.extend(parser.close())
    return out


@given(TEXT)
def test_any_text_parses_and_spans_partition(text: str) -> None:
    lines = list(split_lines(text))
    assert "".join(lines) == text
    events = _events(text)
    expected = 1
    for event in events:
        first, last = event.span  # type: ignore[attr-defined]
        assert first == expected
        expected = last + 1
    assert expected == len(lines) + 1


@given(TEXT)
def test_events_revalidate_and_both_paths_agree(text: str) -> None:
    fast = _events(text)
    assert fast == _events(text, compiled=False)
    for event in fast:
        cls = EVENT_CLASSES[event.kind]  # type: ignore[attr-defined]
        assert cls.model_validate(event.model_dump()) == event  # type: ignore[attr-defined]
