"""Hostile lines and names, by length: what a pattern's repetitions and lookaheads scan.

Each was once slow or fatal on a first probe (a header key scanned for its ``:`` from every
split point took 57 s on one line; ``PWN(`` 500 deep raised RecursionError). The tests parse
them at 100,000 characters (tests/fuzz/test_hostile_lines.py); ``bench/linear_time.py``
measures that their cost grows linearly.
"""

from __future__ import annotations

from collections.abc import Callable

#: Log lines of about n characters.
HOSTILE_LINES: dict[str, Callable[[int], str]] = {
    "header key": lambda n: "[I] Input calibration shapes: model" + "x" * n,
    "device key": lambda n: "[I] " + "x" * n,
    "options block (": lambda n: "[I] === Build Options ===\n[I] " + "(" * n,
    "options block key": lambda n: "[I] === Build Options ===\n[I] " + "a " * (n // 2),
    "unterminated OSC": lambda n: "[I] [TRT] " + "\x1b]" * (n // 2),
    "fusion of + ": lambda n: "[V] [TRT] ConvReluFusion: Fusing " + "a + " * (n // 4) + " with b",
    "foreign node": lambda n: "[V] [TRT] Fusing {ForeignNode[" + "a + " * (n // 4) + "]} with b",
    "nested PWN(": lambda n: "[V] [TRT] Fusing " + "PWN(" * (n // 5) + "a" + ")" * (n // 5),
    "unbalanced [": lambda n: "[V] [TRT] Tactic: 0x1 Time: " + "[" * n,
    "digits": lambda n: "[V] [TRT] Original: " + "9" * n + " layers",
    "timing runner": lambda n: "[V] [TRT] --------------- Timing Runner: " + "a (" * (n // 3),
    "layer dump": lambda n: "[V] [TRT] Layer(" + "x" * n + "): a, Tactic: 0x1, b -> c",
}

#: Layer and kernel names of about n characters.
NAMES: dict[str, Callable[[int], str]] = {
    "nested PWN(": lambda n: "PWN(" * (n // 5) + "a" + ")" * (n // 5),
    "fusion + ": lambda n: "a + " * (n // 4) + "b",
    "foreign members": lambda n: "{ForeignNode[" + "a + " * (n // 4) + "b]}",
    "merge ||": lambda n: "a || " * (n // 5) + "b",
    "profile suffixes": lambda n: (
        "Reformatting CopyNode for Input Tensor 0 to a" + " [profile 1]" * (n // 12)
    ),
    "brackets": lambda n: "{" * n,
    "clone digits": lambda n: "a_clone_" + "1" * n,
    "myelin kernel": lambda n: "a_myl" * (n // 5) + "0_1",
}
