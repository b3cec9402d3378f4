"""Numbers as TensorRT prints and computes them: floats, tactic ids, dims, versions, percentiles.

Shared by the log grammars' transformers and the JSON loaders (formats.md §0.3, traps T2, T26).
Pure functions, no dependencies.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

__all__ = [
    "U64",
    "decode_version",
    "format_tactic",
    "parse_dims_x",
    "parse_hex",
    "parse_int",
    "parse_num",
    "parse_tactic",
    "signed_tactic",
    "trtexec_percentile",
]

U64 = 1 << 64


def parse_num(text: str) -> float:
    """A C++ default-formatted number: ``100``, ``0.5``, ``8.9389e-05``, ``inf``, ``-nan``.

    Example:
        >>> parse_num("8.9389e-05"), parse_num("100"), parse_num("-inf")
        (8.9389e-05, 100.0, -inf)
    """
    # float() already reads every spelling C++ prints: "inf", "-inf", "nan", "-nan", "1e+06".
    return float(text)


I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def parse_int(text: str) -> int:
    """A decimal integer as TensorRT prints one: a signed 64-bit value.

    Raises:
        ValueError: not an integer, or past 64 bits (no count, size or dimension is; and
            Python refuses to convert more than 4,300 digits at all). A line holding one
            does not parse.

    Example:
        >>> parse_int("-1"), parse_int("+2648")
        (-1, 2648)
        >>> parse_int("9" * 30)
        Traceback (most recent call last):
        ...
        ValueError: 999999999999999999999999999999 is past a signed 64-bit integer
    """
    if len(text) > 24:  # before int(): its cost grows with the digits, past 4,300 it refuses
        raise ValueError(f"{text[:40]} is past a signed 64-bit integer")
    value = int(text)
    if not I64_MIN <= value <= I64_MAX:
        raise ValueError(f"{text} is past a signed 64-bit integer")
    return value


def parse_tactic(text: str) -> int:
    """A tactic id as an unsigned 64-bit integer, whatever the version printed (T26).

    TensorRT 7.x-8.2 print signed decimals (often negative), 8.4+ print ``0x`` + 16 hex digits
    of the same 64-bit value; both map to the same number here.

    Example:
        >>> parse_tactic("0xfffffffffffffffd") == parse_tactic("-3")
        True
        >>> parse_tactic("1002"), parse_tactic("0123")
        (1002, 123)
    """
    if len(text) > 24:
        raise ValueError(f"{text[:40]} is past a 64-bit tactic id")
    try:
        value = int(text, 0)
    except ValueError:
        # int(text, 0) refuses a decimal with a leading zero ("0123"); base 10 reads it
        value = int(text, 10)
    if not I64_MIN <= value < U64:  # 7.x-8.2 print signed, 8.4+ unsigned 64-bit values
        raise ValueError(f"{text} is past a 64-bit tactic id")
    return value % U64


def parse_hex(text: str) -> int:
    """A ``0x``-prefixed hexadecimal number.

    Example:
        >>> parse_hex("0x80000009")
        2147483657

    Raises:
        ValueError: not hexadecimal, or past 64 bits.
    """
    value = int(text, 16)
    if value >= U64:
        raise ValueError(f"{text[:40]} is past 64 bits")
    return value


def signed_tactic(value: int) -> int:
    """The signed 64-bit reading of an unsigned tactic id (what TensorRT 7.x-8.2 print).

    Example:
        >>> signed_tactic(parse_tactic("0xfffffffffffffffd"))
        -3
    """
    return value - U64 if value >= 1 << 63 else value


def format_tactic(value: int) -> str:
    """The 8.4+ spelling of a tactic id: ``0x`` and 16 hex digits.

    Example:
        >>> format_tactic(1002)
        '0x00000000000003ea'
    """
    return f"0x{value % U64:016x}"


def parse_dims_x(text: str) -> tuple[int, ...]:
    """Trtexec dims ``1x3x224x224`` (``scalar`` → ``()``; ``-1`` for dynamic stays ``-1``).

    Example:
        >>> parse_dims_x("1x3x224x224"), parse_dims_x("scalar")
        ((1, 3, 224, 224), ())
    """
    text = text.strip()
    if text in ("", "scalar"):
        return ()
    return tuple(parse_int(part) for part in text.split("x"))


def decode_version(code: int) -> tuple[int, ...]:
    """The TensorRT version of a banner code (formats.md §A.1).

    8.x/9.x use ``major*1000 + minor*100 + patch``; 10.x+ ``major*10000 + minor*100 + patch``.

    Example:
        >>> decode_version(8412), decode_version(101601), decode_version(8001)
        ((8, 4, 12), (10, 16, 1), (8, 0, 1))
    """
    if code >= 10000:
        return (code // 10000, code // 100 % 100, code % 100)
    return (code // 1000, code // 100 % 10, code % 100)


def _f32(value: float) -> float:
    """``value`` rounded to single precision, as a C++ ``float`` holds it."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def trtexec_percentile(ordered: Sequence[float], percent: float) -> float:
    """The ``percent`` percentile of ascending values, as trtexec computes it.

    trtexec (``sampleReporting.cpp``) leaves out the ``int((1 - p/100) * n)`` largest values,
    computed in single precision, and takes the largest of the rest; with 100 values its
    ``percentile(99%)`` is the maximum.

    Example:
        >>> trtexec_percentile([float(i) for i in range(1, 101)], 99)
        100.0
        >>> trtexec_percentile([1.0, 2.0, 3.0, 4.0], 90)
        4.0
    """
    n = len(ordered)
    if not n:
        return math.nan
    exclude = int(_f32(_f32(1.0 - _f32(_f32(percent) / 100.0)) * _f32(n)))
    return ordered[max(n - 1 - exclude, 0)]
