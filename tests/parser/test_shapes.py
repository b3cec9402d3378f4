"""Which lines are rows (``trtlog.parser.shapes``): envelopes, long numbers, the same events.

The line parser makes a tactic past 64 bits ``unrecognized`` (its value does not convert);
such a line is no row either.
"""

from __future__ import annotations

from typing import TypeGuard

import pytest

import trtlog
from tests.buildlog.test_store import lazy_and_eager
from trtlog.buildlog.store import EventStore
from trtlog.parser.scanner import HotRows

_V = "[01/10/2024-21:52:52] [V] [TRT] "


def _rows(rows: object) -> TypeGuard[HotRows]:
    """Whether a part of the store holds an alternative's rows (not the repeats)."""
    return isinstance(rows, HotRows)


def _lazy_and_eager(text: str) -> tuple[EventStore, list[object], list[object]]:
    lazy, eager = lazy_and_eager(text)
    store = lazy.__dict__.get("_store")
    assert isinstance(store, EventStore), "the build did not come from the scanner"
    return store, list(lazy.events), list(eager.events)


def test_a_tactic_past_64_bits_is_left_to_the_line_parser() -> None:
    """A tactic past 64 bits is no row; long numbers that fit and long names are."""
    tactic = _V + "Tactic: 0x{:016x} Time: 0.5\n"
    lines = [tactic.format(i) for i in range(40)]
    lines[10] = _V + "Tactic: 0x1000000000000003e8 Time: 0.5\n"  # 18 hex digits: unrecognized
    lines[11] = _V + "Tactic: 4549827808004681195 Time: 0.5\n"  # 8.2's decimal ids: 19 digits
    lines[12] = _V + "Tactic: 1 Time: 0.12345678901234567890\n"  # a long fraction
    lines[13] = _V + "Tactic: 0x00000000000000000001 Time: 0.5\n"  # 20 hex digits, small value
    for i in range(30, 36):
        lines[i] = _V + f"Tactic Name: k0123456789abcdef01{i} Tactic: 0x{i} Time: 0.5\n"
    text = "".join(lines)
    store, lazy, eager = _lazy_and_eager(text)
    assert lazy == eager
    kinds = [e.kind for e in lazy[10:14]]  # type: ignore[attr-defined]
    assert kinds == ["unrecognized"] + ["tactic_timing"] * 3
    assert lazy[11].tactic == 4549827808004681195  # type: ignore[attr-defined]
    assert lazy[30].tactic_name == "k0123456789abcdef0130"  # type: ignore[attr-defined]
    rows = {h.shape.literal: list(h.lines) for h in (x.rows for x in store._hot) if _rows(h)}
    # line 12 a row; lines 11, 13 and 14 read by the line parser (line numbers count from 1)
    assert 12 in rows["Tactic: "] and not {11, 13, 14} & set(rows["Tactic: "])
    assert len(rows["Tactic: "]) == 40 - 6 - 3
    assert rows["Tactic Name: "] == list(range(31, 37))


@pytest.mark.parametrize(
    "envelope",
    [
        "[01/10/2024-21:52:52] [V] [TRT] ",  # trtexec
        "[01/10/2024-21:52:52] [V] ",
        "[07/07/2026-06:12:03] [TRT] [V] ",  # the Python logger
        "[V] [TRT] ",  # no timestamp
        "[V] ",
        "[01/02/2018-12:00:00] [01/02/2018-12:00:00] [V] [TRT] ",  # stacked timestamps
    ],
)
def test_every_envelope_the_rows_read_gives_the_line_parsers_events(envelope: str) -> None:
    text = "".join(
        envelope + line + "\n"
        for line in (
            "Tactic: 0x0000000000000001 Time: 0.5",
            "Running: ConvReluFusion on conv",
            "ConvReluFusion: Fusing conv with relu",
            "Removing relu",
        )
        * 3
    )
    store, lazy, eager = _lazy_and_eager(text)
    assert lazy == eager
    assert sum(len(h.rows.lines) for h in store._hot) == 12  # every line a row
    assert list(trtlog.iter_events(text.splitlines(keepends=True))) == eager


def test_lines_read_by_the_patterns_give_the_line_parsers_events(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The learned alternatives' patterns (made after a few rows here) read the same events:
    trailing blanks, names before a ``contains`` keyword, numbers past 64 bits, ANSI escapes,
    unrecognized and repeated lines among them."""
    from trtlog.parser import scanner

    monkeypatch.setattr(scanner, "_TEACH", 3)
    body = [
        "Tactic: 0x{i:016x} Time: 0.{i}",
        "Tactic: -{i}9123372036854775 Time: 0.5",
        "Tactic: 0x1{i:016x} Time: 0.5",  # past 64 bits
        "Removing layer{i}  ",
        "Setting a default quantization params because quantization data is missing for ",
        "conv{i} + relu{i} Set Tactic Name: sm80_xmma_k{i} Tactic: 0x{i:016x}",
        "Running: Fusion{i} on conv{i}",
        "Fusion{i}: Fusing conv{i} with relu{i}",
        "no rule reads this {i}",
        "no rule reads this",
    ]
    lines = []
    for i in range(60):
        for b, template in enumerate(body):
            envelope = ("[01/10/2024-21:52:52] [V] [TRT] ", "[07/07/2026-06:12:03] [TRT] [W] ")[
                (i + b) % 2
            ]
            lines.append(envelope + template.format(i=i))
        lines.append("    0x40dd5800[enqueue]")
        if i % 7 == 0:
            lines.append("\x1b[33m[01/10/2024-21:52:52] [W] [TRT] Removing layer\x1b[0m")
    text = "\n".join(lines) + "\n"
    store, lazy, eager = _lazy_and_eager(text)
    assert lazy == eager
    assert list(trtlog.iter_events(text.splitlines(keepends=True))) == eager
    kinds = [e.kind for e in eager]  # type: ignore[attr-defined]
    assert kinds.count("unrecognized") == 60 * 3 + 60  # past 64 bits, no rule, foreign
    assert sum(len(h.rows.lines) for h in store._hot) == len(lines) - len(store._cold)


def _python_path_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A pattern made after three Python-path rows, and a count of the lines that path reads
    (``LineShapes.match_after``), in a one-item list the test reads at its end."""
    from trtlog.parser import scanner, shapes

    monkeypatch.setattr(scanner, "_TEACH", 3)
    slow = [0]
    match_after = shapes.LineShapes.match_after

    def counted(self: shapes.LineShapes, line: str, m: object) -> object:
        slow[0] += 1
        return match_after(self, line, m)  # type: ignore[arg-type]

    monkeypatch.setattr(shapes.LineShapes, "match_after", counted)
    return slow


def test_a_line_with_trailing_blanks_is_read_by_the_learned_pattern(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tactic line with trailing blanks, whose last group (the time) is atomic: the learned
    pattern reads it stripped, as the line parser does, instead of leaving every such line to
    the slower Python path."""
    slow = _python_path_rows(monkeypatch)
    line = _V + "Tactic: 0x{i:016x} Time: 0.{i}  "
    text = "".join(line.format(i=i + 1) + "\n" for i in range(400))
    store, lazy, eager = _lazy_and_eager(text)
    assert lazy == eager
    assert {e.kind for e in eager} == {"tactic_timing"}  # type: ignore[attr-defined]
    assert eager[7].time_ms == pytest.approx(0.8)  # type: ignore[attr-defined]
    assert sum(len(h.rows.lines) for h in store._hot) == 400  # every line a row
    # the first lines teach the pattern; it reads the rest
    assert 0 < slow[0] < 50


def test_a_message_that_starts_with_a_name_is_a_row_through_its_keyword_row() -> None:
    """An ONNX node's inputs line starts with the node's name (a ``contains`` row routes it)
    and ends in ``", "`` (a real line of the resnet18 QAT log): a row, read stripped, the
    same event as the line parser's."""
    line = _V + "DequantizeLinear_{i} [DequantizeLinear] inputs: [5{i} -> (1, 512)[FLOAT]], "
    text = "".join(line.format(i=i) + "\n" for i in range(400))
    store, lazy, eager = _lazy_and_eager(text)
    assert lazy == eager
    assert {e.kind for e in eager} == {"onnx_node_io"}  # type: ignore[attr-defined]
    assert eager[7].tensors[0].name == "57"  # type: ignore[attr-defined]
    assert sum(len(h.rows.lines) for h in store._hot) == 400  # every line a row


def test_a_prefix_row_a_longer_prefix_row_shares_is_read_by_the_pattern_where_it_routes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Autotuning format combination: `` shares its prefix with the symbolic combinations'
    longer rows (``...: Float((``): its lines are rows of the learned pattern once the
    keyword table confirms the row, and a symbolic line among them keeps its own kind."""
    slow = _python_path_rows(monkeypatch)
    stars = "*" * 15
    plain = _V + stars + " Autotuning format combination: Float({i},1) -> Half({i},1) " + stars
    symbolic = (
        _V + "*************** Autotuning format combination: Float((# 2 (SHAPE x)),1) -> "
        "Float((# 2 (SHAPE x)),1) ***************"
    )
    lines = [plain.format(i=i + 1) for i in range(400)]
    lines[200:200] = [symbolic] * 5
    store, lazy, eager = _lazy_and_eager("".join(line + "\n" for line in lines))
    assert lazy == eager
    kinds = [e.kind for e in eager]  # type: ignore[attr-defined]
    assert kinds.count("autotune_combination") == 400
    assert kinds[200:205] == ["autotune_combination_symbolic"] * 5
    assert sum(len(h.rows.lines) for h in store._hot) == 405  # every line a row
    assert slow[0] < 50  # the pattern reads the plain lines
