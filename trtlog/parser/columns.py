"""A hot shape's fields as columns, from the group texts the scanner kept (issue 14).

Part of the parser, used by the event store (:mod:`trtlog.buildlog.store`) for ``columns`` and
the tactics frame. ``shape.make(*groups)`` gives one row's fields: it applies terminal
callbacks to some group texts and passes the results to the transformer method. Over a
column of rows the same work is done a column at a time:

* each argument of the method is computed for every row at once: a group's texts as they
  are, a terminal callback mapped over them (``parse_tactic`` over ``0x`` + 16 hex digits in
  one ``bytes.fromhex``, ``parse_num`` as ``float``), or its expression per row;
* the method is *probed* once per shape with stand-in arguments that refuse every operation
  (truth, comparison, arithmetic, attributes) except ``str()``: a field that comes back as one
  stand-in (or its ``str()`` for a group text) is that argument's column; a field that is a
  plain constant (``None``, a number, a text, not made from a stand-in) is that constant; any
  other field, or every field when the method touched a stand-in, is taken from the method
  called per row on the argument columns.

So a field is a column with no Python call per row when the method only places its
arguments (``"tactic": tactic``), and the per-row method otherwise. The probe cannot see a
reshaping its stand-in escapes (``str(x).removesuffix(" operation.")``): the planned columns
are checked against ``make`` on rows spread over them, and made per row when they differ
(:func:`_agrees`). Both give what ``make`` gives (``tests/buildlog/test_store.py`` compares them
over every fixture and corpus log).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any

from trtlog.numbers import parse_num, parse_tactic
from trtlog.parser.compiled import Shape

__all__ = ["column_plan", "convert_column", "shape_columns", "tactic_array"]


class _Touched(Exception):
    """The probed method did something with an argument besides placing it."""


def _refuse(*_args: Any, **_kwargs: Any) -> Any:
    raise _Touched


class _Probe:
    """A stand-in argument: ``str()`` gives its marker, every other operation refuses."""

    __slots__ = ("marker",)

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __str__(self) -> str:
        return self.marker

    def __getattr__(self, name: str) -> Any:
        raise _Touched


_REFUSED = (
    "__bool__ __len__ __iter__ __contains__ __getitem__ __eq__ __ne__ __lt__ __le__ __gt__ "
    "__ge__ __hash__ __int__ __float__ __index__ __add__ __radd__ __sub__ __rsub__ __mul__ "
    "__rmul__ __truediv__ __rtruediv__ __mod__ __rmod__ __neg__ __abs__ __format__ __repr__ "
    "__and__ __rand__ __or__ __ror__ __call__"
)
for _name in _REFUSED.split():
    setattr(_Probe, _name, _refuse)

_CONSTANT_TYPES = (type(None), bool, int, float, str)


def _constant(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_constant(v) for v in value)
    return type(value) in _CONSTANT_TYPES


#: a field's source: ("arg", k), ("const", value) or ("row",)
_Plan = dict[str, tuple[Any, ...]]


def _probe(shape: Shape, round_: int) -> tuple[dict[str, Any], list[Any]] | None:
    probes: list[Any] = []
    for k, arg in enumerate(shape.args):
        probes.append(None if arg[0] == "none" else _Probe(f" \x00{round_}:{k}Ab\x00 "))
    assert shape.method is not None
    try:
        fields = shape.method(*probes)
    except _Touched:
        return None
    except Exception:  # the method refused a stand-in in its own way: per row
        return None
    if not isinstance(fields, dict):
        return None
    return fields, probes


@lru_cache(maxsize=256)
def _plan(shape: Shape) -> _Plan | None:
    """Each field's source (see the module docstring), or ``None``: every field per row."""
    if shape.method is None:
        return None
    first, second = _probe(shape, 1), _probe(shape, 2)
    if first is None or second is None or first[0].keys() != second[0].keys():
        return None
    plan: _Plan = {}
    for name, value in first[0].items():
        other = second[0][name]
        plan[name] = ("row",)
        for k, (p, q) in enumerate(zip(first[1], second[1], strict=True)):
            if p is None:
                continue
            if value is p and other is q:
                plan[name] = ("arg", k)
                break
            if (
                shape.args[k][0] == "text"
                and type(value) is str
                and value == p.marker
                and other == q.marker
            ):
                plan[name] = ("arg", k)  # str() of a group's text is that text
                break
        else:
            if (
                _constant(value)
                and type(value) is type(other)
                and value == other
                and not any(isinstance(v, str) and "\x00" in v for v in _flat(value))
            ):
                plan[name] = ("const", value)
    return plan


def column_plan(shape: Shape) -> dict[str, tuple[Any, ...]] | None:
    """Each field's source for ``shape``: ``("arg", k)``, ``("const", value)`` or ``("row",)``.

    ``None`` when every field is made per row (the method touched an argument).
    """
    return _plan(shape)


def _flat(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [x for v in value for x in _flat(v)]
    return [value]


def tactic_array(texts: Sequence[str]) -> Any:
    """``parse_tactic`` of each text as an unsigned 64-bit array, or ``None``.

    In bulk when every text is ``0x`` and 16 hex digits (what 8.4+ print): the joined texts
    as rows of 18 bytes, whose last 16 columns go to one ``bytes.fromhex`` (no
    ``str.replace`` of every ``0x``: half the time). ``None`` for anything else (the caller
    maps ``parse_tactic``).
    """
    import numpy as np

    n = len(texts)
    joined = "".join(texts)
    if len(joined) != 18 * n:
        return None
    try:
        chars = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).reshape(n, 18)
    except UnicodeEncodeError:
        return None
    if not ((chars[:, 0] == ord("0")).all() and (chars[:, 1] == ord("x")).all()):
        return None
    try:
        raw = bytes.fromhex(chars[:, 2:].tobytes().decode("ascii"))
    except ValueError:
        return None
    if len(raw) != 8 * n:  # (fromhex skips whitespace)
        return None
    return np.frombuffer(raw, dtype=">u8").astype(np.uint64)


def convert_column(conv: Callable[[str], Any], texts: list[Any], *, arrays: bool = False) -> Any:
    """``conv`` of every text (a terminal callback over a group's column), in bulk.

    ``parse_num`` as ``float`` (a float64 array when ``arrays``), ``parse_tactic`` of 8.4+
    ids in one ``bytes.fromhex`` (:func:`tactic_array`: an unsigned 64-bit array when
    ``arrays``); a text ``conv`` refuses raises its ``ValueError``.

    Example:
        >>> from trtlog.numbers import parse_tactic
        >>> convert_column(parse_tactic, ["0x00000000000003ea", "0x0000000000000001"])
        [1002, 1]
    """
    if conv is parse_num:  # parse_num is float()
        if arrays:
            import numpy as np

            return np.fromiter(map(float, texts), dtype=np.float64, count=len(texts))
        return list(map(float, texts))
    if conv is parse_tactic and texts:
        array = tactic_array(texts)
        if array is not None:
            return array if arrays else array.tolist()
    return list(map(conv, texts))


def shape_columns(
    shape: Shape,
    groups: list[list[Any]],
    n: int,
    names: Sequence[str],
    defaults: dict[str, Any],
    *,
    arrays: bool = False,
    converted: dict[int, Any] | None = None,
) -> dict[str, Any]:
    """The fields ``names`` of ``n`` rows of ``shape`` as columns (what ``make`` gives).

    Args:
        shape: the hot shape.
        groups: per group ``shape.make`` takes, its text in every row.
        n: the number of rows.
        names: the fields wanted.
        defaults: each field's value when ``make`` leaves it out (the class defaults).
        arrays: a tactic id column may be an unsigned 64-bit numpy array and a number
            column a float64 array (else lists).
        converted: arguments of the method already computed for these rows, by index in
            ``shape.args`` (a column as :func:`convert_column` gives it with ``arrays``).
    """
    plan = _plan(shape)
    if plan is not None:
        out = _planned(shape, plan, groups, n, names, defaults, arrays, converted or {})
        if _agrees(shape, groups, n, names, defaults, out):
            return out
    # every field per row
    made = list(map(shape.make, *groups)) if groups else [shape.make() for _ in range(n)]
    return {name: _pick(made, name, defaults) for name in names}


#: Rows of a column checked against ``make`` (spread over the rows).
_CHECKED_ROWS = 64


def _agrees(
    shape: Shape,
    groups: list[list[Any]],
    n: int,
    names: Sequence[str],
    defaults: dict[str, Any],
    out: dict[str, Any],
) -> bool:
    """Whether the planned columns are what ``make`` gives, on rows spread over them.

    The probe's stand-in text survives a reshaping that does not apply to it: the DLA
    fallback's ``str(what).removesuffix(" operation.")``, reformat_layer_added's layer cut
    at its `` (tensor`` tail. Such a field looks placed as it is, and the rows show it is
    not; then every field is made per row.
    """
    step = max(1, n // _CHECKED_ROWS)
    for i in range(0, n, step):
        made = shape.make(*(g[i] for g in groups))
        for name in names:
            want = made[name] if name in made else defaults[name]
            got = out[name][i]
            if not (want is got or want == got or (want != want and got != got)):
                return False
    return True


def _planned(
    shape: Shape,
    plan: _Plan,
    groups: list[list[Any]],
    n: int,
    names: Sequence[str],
    defaults: dict[str, Any],
    arrays: bool,
    converted: dict[int, Any],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cache: dict[int, Any] = {}

    def arg(k: int) -> Any:
        if k not in cache:
            spec = shape.args[k]
            if k in converted:  # (a copy: the caller may change its columns)
                known = converted[k]
                if hasattr(known, "tolist"):
                    cache[k] = known.copy() if arrays else known.tolist()
                else:
                    cache[k] = list(known)
            elif spec[0] == "none":
                cache[k] = [None] * n
            elif spec[0] == "text":
                cache[k] = groups[spec[1]]
            elif spec[0] == "conv":
                cache[k] = convert_column(spec[1], groups[spec[2]], arrays=arrays)
            else:
                fn = spec[1]
                cache[k] = list(map(fn, *groups)) if groups else [fn() for _ in range(n)]
        return cache[k]

    rows: list[dict[str, Any]] | None = None
    for name in names:
        source = plan.get(name)
        if source is None:
            out[name] = [defaults[name]] * n
        elif source[0] == "arg":
            out[name] = arg(source[1])
        elif source[0] == "const":
            out[name] = [source[1]] * n
        else:
            if rows is None:
                assert shape.method is not None
                columns = [arg(k) for k in range(len(shape.args))]
                columns = [c.tolist() if hasattr(c, "tolist") else c for c in columns]
                method = shape.method
                rows = list(map(method, *columns)) if columns else [method() for _ in range(n)]
            out[name] = _pick(rows, name, defaults)
    return out


def _pick(rows: list[dict[str, Any]], name: str, defaults: dict[str, Any]) -> list[Any]:
    try:
        return list(map(itemgetter(name), rows))
    except KeyError:  # a row without the field: its default
        default = defaults[name]
        return [r.get(name, default) for r in rows]
