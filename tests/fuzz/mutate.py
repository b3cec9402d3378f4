"""Mutations of real log lines and JSON exports, for the fuzz tests and ``bench/fuzz.py``.

Each mutation is a pure function of a :class:`random.Random` and its input, so that a failing
case is reproduced from the seed alone. The kinds follow bit flips, truncation,
splicing two logs, duplicated and shuffled lines, inserted separators and invisible characters
(U+001E, U+001F, U+2028, NUL, lone surrogates, right-to-left marks), mixed line endings,
UTF-16 without a BOM, and digit runs (numbers past every limit).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

# Characters that have tripped line splitters, terminals and renderers.
ODD = (
    "\x1e",
    "\x1f",
    "\u2028",
    "\u2029",
    "\x00",
    "\ud800",
    "\udcff",
    "\u200f",
    "\u202e",
    "\x85",
    "\x0b",
    "\x0c",
    "\ufeff",
    "\x1b[31m",
    "\x1b]8;;x\x07",
    "$",
    "$x^2$",
    "\\",
    "\t",
    "\r",
)
TOKENS = (
    "PWN(",
    ")",
    " + ",
    "[",
    "]",
    "{ForeignNode[",
    "(Unnamed Layer* 5) [Shuffle]",
    ":",
    "0x",
    "-nan",
    "inf",
    "-inf",
    "1e400",
    "Tactic: ",
    "Half(786432,0xZZ,512,1)",
    "(1,3,224,224)",
    "18446744073709551616",
    "9" * 5000,
    "[I] [TRT] ",
    "[V] [TRT] ",
    "[W] [TRT] ",
    "[E] [TRT] ",
    " ms",
    " MiB",
    "->",
)


def seed_logs() -> list[str]:
    """The texts of the fixture logs (small, real or realistic)."""
    return [p.read_bytes().decode("utf-8", "replace") for p in sorted(FIXTURES.glob("logs/*.log"))]


def seed_lines() -> list[str]:
    """Every distinct line of the fixture logs and the per-family line fixtures."""
    lines: set[str] = set()
    for text in seed_logs():
        lines.update(text.splitlines())
    for path in sorted(FIXTURES.glob("lines/*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.lstrip().startswith(("{", "#")):
                lines.add(line)
    return sorted(lines)


def seed_json() -> list[bytes]:
    """The bytes of the small fixture exports."""
    return [
        p.read_bytes()
        for p in sorted(FIXTURES.glob("layer_info/*.json"))
        if p.stat().st_size < 40_000
    ]


def _insert(rng: random.Random, text: str, piece: str) -> str:
    i = rng.randint(0, len(text))
    return text[:i] + piece + text[i:]


def flip_chars(rng: random.Random, text: str) -> str:
    """Flip one to three bits of a few characters (kept inside the BMP)."""
    if not text:
        return text
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(chars))
        chars[i] = chr((ord(chars[i]) ^ (1 << rng.randrange(8))) % 0x10000)
    return "".join(chars)


def truncate(rng: random.Random, text: str) -> str:
    """Cut the text at a random point (mid-line, mid-name, mid-number)."""
    return text[: rng.randint(0, len(text))]


def insert_odd(rng: random.Random, text: str) -> str:
    """Insert separators, invisible and control characters."""
    for _ in range(rng.randint(1, 4)):
        text = _insert(rng, text, rng.choice(ODD))
    return text


def insert_token(rng: random.Random, text: str) -> str:
    """Insert grammar-relevant tokens (brackets, ``PWN(``, ``+``, huge numbers, nan)."""
    for _ in range(rng.randint(1, 4)):
        text = _insert(rng, text, rng.choice(TOKENS))
    return text


def replace_number(rng: random.Random, text: str) -> str:
    """Replace a digit run with a huge, garbled or non-finite number."""
    import re

    runs = [m.span() for m in re.finditer(r"\d+(?:\.\d+)?", text)]
    if not runs:
        return insert_token(rng, text)
    a, b = rng.choice(runs)
    new = rng.choice(
        ("9" * rng.choice((20, 310, 4400)), "0", "-1", "nan", "-nan", "inf", "1e999", "0xZZ", "")
    )
    return text[:a] + new + text[b:]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def shuffle_lines(rng: random.Random, text: str) -> str:
    """Shuffle a window of lines."""
    lines = _lines(text)
    if len(lines) < 2:
        return text
    a = rng.randrange(len(lines))
    b = min(len(lines), a + rng.randint(2, 20))
    window = lines[a:b]
    rng.shuffle(window)
    return "".join(lines[:a] + window + lines[b:])


def duplicate_lines(rng: random.Random, text: str) -> str:
    """Repeat a window of lines (a second run, a repeated section)."""
    lines = _lines(text)
    if not lines:
        return text
    a = rng.randrange(len(lines))
    b = min(len(lines), a + rng.randint(1, 20))
    return "".join(lines[:b] + lines[a:b] + lines[b:])


def drop_lines(rng: random.Random, text: str) -> str:
    """Delete a window of lines (a lost section header, a half block)."""
    lines = _lines(text)
    if not lines:
        return text
    a = rng.randrange(len(lines))
    b = min(len(lines), a + rng.randint(1, 10))
    return "".join(lines[:a] + lines[b:])


def mix_endings(rng: random.Random, text: str) -> str:
    """Rewrite line endings as a random mix of LF, CRLF and CR."""
    return "".join(
        line.rstrip("\r\n") + rng.choice(("\n", "\r\n", "\r"))
        for line in text.splitlines(keepends=True)
    )


def splice(rng: random.Random, text: str, other: str) -> str:
    """The head of one log and the tail of another."""
    a, b = _lines(text), _lines(other)
    return "".join(a[: rng.randint(0, len(a))] + b[rng.randint(0, len(b)) :])


MUTATIONS: tuple[Callable[[random.Random, str], str], ...] = (
    flip_chars,
    truncate,
    insert_odd,
    insert_token,
    replace_number,
    shuffle_lines,
    duplicate_lines,
    drop_lines,
    mix_endings,
)


def mutate_text(rng: random.Random, text: str, others: list[str], rounds: int = 3) -> str:
    """Apply one to ``rounds`` random mutations (splicing with one of ``others`` among them)."""
    for _ in range(rng.randint(1, rounds)):
        if others and rng.random() < 0.1:
            text = splice(rng, text, rng.choice(others))
        else:
            text = rng.choice(MUTATIONS)(rng, text)
    return text


def window(rng: random.Random, text: str, most: int = 60) -> str:
    """A random window of at most ``most`` lines of a log (small inputs run fast)."""
    lines = _lines(text)
    a = rng.randrange(max(1, len(lines)))
    return "".join(lines[a : a + rng.randint(1, most)])


def encode(rng: random.Random, text: str) -> bytes:
    """The text as bytes: UTF-8 (maybe with lone surrogates), UTF-16 without BOM, or Latin-1."""
    choice = rng.random()
    if choice < 0.1:
        return text.encode("utf-16-le", "surrogatepass")
    if choice < 0.15:
        return text.encode("latin-1", "replace")
    return text.encode("utf-8", "surrogatepass")


def _walk(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """Mutate one node of a JSON value."""
    if isinstance(value, dict) and value and depth < 8:
        key = rng.choice(list(value))
        out = dict(value)
        roll = rng.random()
        if roll < 0.15:
            del out[key]
        elif roll < 0.3:
            out[key] = _junk(rng)
        else:
            out[key] = _walk(rng, value[key], depth + 1)
        return out
    if isinstance(value, list) and value and depth < 8:
        out_list = list(value)
        i = rng.randrange(len(out_list))
        roll = rng.random()
        if roll < 0.1:
            del out_list[i]
        elif roll < 0.2:
            out_list.insert(i, out_list[i])
        elif roll < 0.3:
            out_list[i] = _junk(rng)
        else:
            out_list[i] = _walk(rng, out_list[i], depth + 1)
        return out_list
    if isinstance(value, str):
        return mutate_text(rng, value, [], rounds=2) if rng.random() < 0.7 else _junk(rng)
    return _junk(rng)


def _junk(rng: random.Random) -> Any:
    return rng.choice(
        (
            None,
            True,
            0,
            -1,
            2**64,
            1e308,
            float("nan"),
            "",
            "$x^2$",
            "a + b",
            [],
            {},
            ["a", "b"],
            {"Name": "x"},
            "Half(786432,0xZZ,512,1)",
            rng.randint(-(2**70), 2**70),
        )
    )


def mutate_json(rng: random.Random, raw: bytes) -> bytes:
    """A structural mutation of a JSON export (or a byte-level one, 1 in 4)."""
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if value is None or rng.random() < 0.25:
        text = raw.decode("utf-8", "surrogateescape")
        return mutate_text(rng, text, [], rounds=2).encode("utf-8", "surrogatepass")
    for _ in range(rng.randint(1, 4)):
        value = _walk(rng, value)
    text = json.dumps(value, allow_nan=True, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.2:
        text = text.replace("NaN", rng.choice(("nan", "-nan", "inf", "1e400")))
    return text.encode("utf-8", "surrogatepass")
