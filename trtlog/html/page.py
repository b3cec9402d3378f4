"""The report page: the Jinja2 templates filled, the data and the log packed in, one file.

The last step of :func:`trtlog.report`. Everything the page needs is inline: its stylesheet
and script (``assets/``), the vendored graph layout library (``vendor/``), the data of every
section as JSON, and the whole log gzip-compressed (the page unfolds it on demand with the
browser's own ``DecompressionStream``). A Content-Security-Policy allows only these inline
scripts (by hash) and no network at all.

Hostile text stays data: templates autoescape, the JSON escapes ``<``, ``>`` and ``&`` (so
``</script>`` and ``<!--`` cannot appear inside a script block) and every non-ASCII
character (U+2028/U+2029 included), and the page's script writes names with ``textContent``
only. Data of :data:`FAST_ABOVE` bytes or more is embedded gzip-compressed and
base64-encoded as plain UTF-8 JSON: base64 holds no character that could end its block.
"""

from __future__ import annotations

import base64
import codecs
import gzip
import hashlib
import json
import os
import re
import zlib
from collections.abc import Collection, Iterable, Iterator
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from trtlog._display import number

if TYPE_CHECKING:
    from jinja2 import Environment

    from trtlog.buildlog.model import Build

__all__ = ["COMPRESS_ABOVE", "FAST_ABOVE", "LogPack", "data_payload", "embed_json", "render"]

#: Data bigger than this (bytes of JSON) is embedded gzip-compressed and base64-encoded.
COMPRESS_ABOVE = 1 << 20

#: Logs of at most this many lines are unfolded as soon as the page is open.
UNFOLD_LINES = 50_000
#: The most characters of a log's text a page holds (whole lines from the first): a longer
#: log's page holds its first lines up to this size, plus every line the page points at, and
#: says what is left out (the log itself has it all: ``trtlog events LOG`` lists every line).
#: About 4 MB of page for a verbose log (it compresses about 8x); the rest of the page is
#: bounded by its sections' own limits (tactic rows, for one).
LOG_PAGE_CHARS = 32 << 20
#: The most characters of cited lines (the excerpt shown before the log unfolds) a page holds.
EXCERPT_CHARS = 8 << 20

#: Characters the JSON keeps out of a ``<script>`` block (json.dumps escapes the rest).
_UNSAFE = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))


def embed_json(value: Any) -> str:
    """JSON that is safe inside a ``<script type="application/json">`` block.

    Non-ASCII characters become ``\\uXXXX`` escapes (U+2028 and U+2029 too), and so do
    ``<``, ``>`` and ``&``: no ``</script>``, ``<!--`` or ``]]>`` can end or change the block.
    The text is that of ``json.dumps`` (compact, ``ensure_ascii``), byte for byte, with or
    without orjson (:func:`_orjson_text`).

    Example:
        >>> embed_json({"name": "</script><b>\\u2028"})
        '{"name":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u2028"}'
    """
    return _embedded(value).decode("ascii")


def _embedded(value: Any, utf8: bytes | None = None) -> bytes:
    """:func:`embed_json`'s text as ASCII bytes (what the page compresses when it is big).

    ``utf8``: the value's :func:`_utf8_json` when already made (escaped here).
    """
    if utf8 is not None:
        data = _ascii_json(utf8)
    else:
        found = _orjson_bytes(value)
        if found is None:
            text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
            found = text.encode("ascii")
        data = found
    for char, escape in _UNSAFE:  # bytes.replace: a tenth of translate's time on MBs
        if char in data:
            data = data.replace(char, escape)
    return data


#: What orjson writes unlike ``json.dumps``: a float under 1e-4 (``0.00001`` and ``2.5e-7``
#: for ``1e-05`` and ``2.5e-07``); searched in the whole text, strings too (a false alarm
#: only costs the standard encoder's time).
_SMALL_FIXED = b"0.0000"
_SHORT_EXPONENT = re.compile(rb"e-[0-9](?![0-9])")
#: The decoding error handler that writes the UTF-8 text ASCII cannot hold as ``json.dumps``
#: does: one pass over orjson's bytes, which are mostly ASCII.
_ESCAPE_HANDLER = "trtlog-json-escape"
_NON_ASCII_RUN = re.compile(rb"[\x80-\xff]+")
#: The UTF-8 lead bytes of the characters the codec's ``backslashreplace`` writes unlike
#: ``json.dumps``: U+0080..U+00FF (``\xe9``, not ``\u00e9``) and those beyond U+FFFF
#: (``\U0001f600``, not a surrogate pair); a lead byte is never a continuation byte.
_LEADS_OUTSIDE_BMP_ESCAPES = (b"\xc2", b"\xc3", b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")


def _escape_unicode(error: UnicodeError) -> tuple[str, int]:
    """``\\uXXXX`` escapes for a run of UTF-8 characters (surrogate pairs above U+FFFF)."""
    assert isinstance(error, UnicodeDecodeError)
    run = _NON_ASCII_RUN.match(error.object, error.start)
    assert run is not None
    out = []
    for char in run.group().decode("utf-8"):
        code = ord(char)
        if code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:  # a surrogate pair, as json.dumps writes it
            code -= 0x10000
            out.append(f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}")
    return "".join(out), run.end()


codecs.register_error(_ESCAPE_HANDLER, _escape_unicode)


def _orjson_text(value: Any) -> str | None:
    """``json.dumps(value, ensure_ascii=True, separators=(",", ":"))`` made by orjson.

    See :func:`_orjson_bytes`.
    """
    data = _orjson_bytes(value)
    return None if data is None else data.decode("ascii")


def _orjson_bytes(value: Any) -> bytes | None:
    """``json.dumps(value, ensure_ascii=True, separators=(",", ":"))`` made by orjson, encoded.

    ``None`` when orjson does not write it (see :func:`_orjson_raw`).
    """
    raw = _orjson_raw(value)
    return None if raw is None else _ascii_json(raw)


def _orjson_raw(value: Any, exact: bool = True) -> bytes | None:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` made by orjson (UTF-8).

    About six times faster on the data of a big page. ``None`` without orjson (or with
    ``TRTLOG_JSON=json``), for a value orjson rejects (a lone surrogate, an integer beyond
    64 bits, a key that is not a string). When ``exact``, the values where a float would be
    written differently (the same number: ``1e-05`` is ``0.00001`` to orjson) are written by
    the standard encoder (:func:`_exact_parts`). orjson writes NaN as ``null`` where
    ``json.dumps`` (``allow_nan=False``) raises; the page's data holds none
    (:func:`trtlog.html.data.num`).
    """
    from trtlog.exports import jsonio

    if not jsonio.USE_ORJSON:
        return None
    try:
        import orjson
    except ImportError:
        return None
    try:
        raw: bytes = orjson.dumps(value)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return None
    if exact and _inexact(raw):
        return _exact_parts(value, orjson.dumps)
    return raw


def _inexact(raw: bytes) -> bool:
    """Whether orjson's text may write a float otherwise than ``json.dumps`` (a search)."""
    return _SMALL_FIXED in raw or _SHORT_EXPONENT.search(raw) is not None


def _exact_parts(value: Any, dumps: Any, depth: int = 0) -> bytes | None:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` in UTF-8, in parts.

    A dict's text is its keys' and values' joined: each value whose orjson text (``dumps``)
    has no float written otherwise is that text, the others are written the same way a level
    down (a dict) or by ``json.dumps``. The floats that orjson writes otherwise sit in a few
    small values of a page's data (its memory figures): the standard encoder then writes
    those, not the whole data. ``None`` when UTF-8 cannot hold the text (a lone surrogate).
    """
    if isinstance(value, dict) and depth < 4 and all(type(k) is str for k in value):
        parts = []
        for key, item in value.items():
            text = dumps(item)
            if _inexact(text):
                found = _exact_parts(item, dumps, depth + 1)
                if found is None:
                    return None
                text = found
            parts.append(dumps(key) + b":" + text)
        return b"{" + b",".join(parts) + b"}"
    written = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return written.encode("utf-8")
    except UnicodeEncodeError:
        return None


def _utf8_json(value: Any, exact: bool = True) -> bytes | None:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` in UTF-8.

    By orjson when it can (:func:`_orjson_raw`; with ``exact`` false, a float under 1e-4
    may be written as orjson writes it), else by the standard encoder. ``None`` for text
    UTF-8 cannot hold (a lone surrogate).
    """
    raw = _orjson_raw(value, exact)
    if raw is not None:
        return raw
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


def _ascii_json(utf8: bytes) -> bytes:
    """``json.dumps(ensure_ascii=False)``'s UTF-8 text as ``ensure_ascii=True`` writes it.

    The two differ only in the characters from DEL (U+007F) on, which ``ensure_ascii``
    writes as ``\\uXXXX`` escapes (a surrogate pair above U+FFFF).
    """
    if utf8.isascii():
        data = utf8
    elif not any(lead in utf8 for lead in _LEADS_OUTSIDE_BMP_ESCAPES):
        # every character is ASCII or U+0100..U+FFFF: the codec's own backslash escapes are
        # json.dumps's (\uXXXX, lowercase hex), a tenth of the handler's time
        data = utf8.decode("utf-8").encode("ascii", "backslashreplace")
    else:
        # valid UTF-8: the handler escapes each run of non-ASCII characters
        data = utf8.decode("ascii", _ESCAPE_HANDLER).encode("ascii")
    # DEL is ASCII, and json.dumps escapes it too
    return data.replace(b"\x7f", b"\\u007f") if b"\x7f" in data else data


#: Payloads from this many bytes on (a big log's text, a big page's data) are compressed by
#: ISA-L (isal) when it is installed (``pip install trtlog[fast]``): several times faster than
#: zlib's level 1 on a big log, and fewer bytes than its level 3. Smaller payloads, and all
#: of them without isal (or with ``TRTLOG_GZIP=zlib``), take the standard library's zlib.
FAST_ABOVE = 8 << 20

#: Whether big payloads may use isal (see :data:`FAST_ABOVE`); tests switch it off.
USE_ISAL = os.environ.get("TRTLOG_GZIP", "").strip().lower() != "zlib"


def _b64_gzip(parts: Iterable[bytes], level: int, big: bool) -> str:
    """``parts`` joined, gzip-compressed and base64-encoded.

    ``level`` is zlib's; ``big``: whether the payload belongs to a big page, which isal
    compresses when installed (see :data:`FAST_ABOVE`). A gzip member (not raw zlib: the
    browser's ``DecompressionStream("gzip")`` reads it) with mtime 0, so that the page is
    reproducible (with the same compressor).
    """
    module: Any = zlib
    if big and USE_ISAL:
        found = _isal_zlib()
        if found is not None:
            # level 1 of isal's 0-3: its level 2 and 3 take as long or longer for about the
            # same bytes on logs
            module, level = found, 1
    compressor = module.compressobj(level, module.DEFLATED, 31)  # (31: a gzip container)
    packed = [compressor.compress(part) for part in parts]
    packed.append(compressor.flush())
    return base64.b64encode(b"".join(packed)).decode("ascii")


#: A log's text is encoded and compressed this many characters at a time (see
#: :func:`_utf8_chunks`).
_CHUNK = 1 << 20


def _utf8_chunks(text: str) -> Iterator[bytes]:
    """``text`` in UTF-8 (lone surrogates kept: ``surrogatepass``), a chunk at a time.

    The compressor reads the chunks as they are made: a big log's bytes are never held
    whole next to its text. The chunks are cut between characters, so that no character's
    bytes span two of them.
    """
    for at in range(0, len(text), _CHUNK):
        yield text[at : at + _CHUNK].encode("utf-8", "surrogatepass")


@cache
def _isal_zlib() -> Any:
    """The zlib module of isal (ISA-L), or ``None`` when it is not installed."""
    try:
        from isal import isal_zlib
    except ImportError:
        return None
    return isal_zlib


class LogPack:
    """The whole log for the page: its text compressed, each line's event kind, an excerpt.

    Attributes:
        name: the log's file name.
        lines: how many lines it has.
        big: whether the text has :data:`FAST_ABOVE` characters or more (see
            :func:`_b64_gzip`).
        text: the text, gzip-compressed (zlib's level 3; a big log at isal's level 1 when
            isal is installed) and base64-encoded.
        codes: each line's kind code (one byte, two when there are more than 255 kinds),
            gzip-compressed and base64-encoded.
        wide: whether the codes take two bytes (little-endian).
        kinds: ``[kind, severity]`` of each code.
        excerpt: ``[[line numbers], [texts]]`` of the lines the page points at (set by
            :meth:`cite`).
        unfold: whether the page unfolds the whole log at once (small logs).
        cut: for a log longer than :data:`LOG_PAGE_CHARS`, what the page leaves out
            (``lines`` and ``chars`` kept, of ``allLines`` and ``allChars``, and a ``note``
            for the reader); ``None`` when the page holds the whole log.
    """

    def __init__(self, build: Build, limit: int | None = None) -> None:
        self.build = build
        text = build.text
        limit = LOG_PAGE_CHARS if limit is None else limit
        self.name = build.source.name
        self.lines = build.line_count
        self.cut: dict[str, Any] | None = None
        if len(text) > limit:
            text = self._cut(text, limit)
        self.big = len(text) >= FAST_ABOVE
        self.unfold = self.lines <= UNFOLD_LINES
        # level 3: under half of level 6's time for a fifth more bytes (on real verbose logs
        # of 1 to 3 MB, level 6 took a tenth of the whole report); a big log takes isal's
        # level 1 when it is installed (see FAST_ABOVE)
        self.text = _b64_gzip(_utf8_chunks(text), 3, self.big)
        self.wide, self.codes, self.kinds = self._codes(build)
        self.excerpt: list[list[Any]] = [[], []]

    def _cut(self, text: str, limit: int) -> str:  # (called with a text over the limit)
        """The first whole lines of ``text`` within ``limit`` characters (see :attr:`cut`)."""
        end = text.rfind("\n", 0, limit) + 1  # (0: a first line longer than the limit)
        kept = text.count("\n", 0, end)
        self.cut = {
            "lines": kept,
            "chars": end,
            "allLines": self.lines,
            "allChars": len(text),
            "note": (
                f"This page holds the first {kept:,} of the log's {self.lines:,} lines "
                f"({end / 1e6:,.1f} of {len(text) / 1e6:,.1f} MB; a page holds at most "
                f"{limit / 2**20:,.4g} MiB of log) and every line it points at. The whole "
                f"log is {self.name}: `trtlog events` lists every line."
            ),
        }
        return text[:end]

    def cite(self, wanted: Collection[int]) -> None:
        """Keep the text of the lines in ``wanted`` (the excerpt shown before the log unfolds).

        At most :data:`EXCERPT_CHARS` characters of them, the first lines first.
        """
        shown = sorted(n for n in wanted if 1 <= n <= self.lines)
        line_text = self.build.lines_text
        texts: list[str] = []
        size = 0
        for n in shown:
            line = line_text(n).rstrip("\r\n")
            size += len(line)
            if size > EXCERPT_CHARS:
                break
            texts.append(line)
        self.excerpt = [shown[: len(texts)], texts]

    def _codes(self, build: Build) -> tuple[bool, str, list[list[str | None]]]:
        """Whether the codes are wide, each line's code packed, and each code's kind."""
        import numpy as np

        # the kind and severity of every event without building them (Build.kind_rows); a
        # code per (kind, severity), numbered in the order of their first line
        parts = build.kind_rows()
        # each part's severities, in the order first met (most parts have one: counted in
        # one C loop over the shared string, without hashing every entry)
        distinct = [
            list(dict.fromkeys(sev)) if not sev or sev.count(sev[0]) != len(sev) else [sev[0]]
            for _kind, _firsts, _lasts, sev in parts
        ]
        first: dict[tuple[str, str | None], int] = {}
        for (kind, firsts, _lasts, severities), found in zip(parts, distinct, strict=True):
            for severity in found:
                key = (kind, severity)
                n = firsts[severities.index(severity)]  # each part is in file order
                if key not in first or n < first[key]:
                    first[key] = n
        table = {key: i for i, key in enumerate(sorted(first, key=first.__getitem__))}
        wide = len(table) > 255
        codes = np.zeros(self.lines, dtype="<u2" if wide else "u1")
        for (kind, firsts, lasts, severities), found in zip(parts, distinct, strict=True):
            if not firsts:
                continue
            if len(found) == 1:
                value: Any = table[kind, found[0]]
            else:
                value = np.array([table[kind, s] for s in severities], dtype=codes.dtype)
            at = np.array(firsts, dtype=np.int64) - 1
            codes[at] = value
            # events of several lines (their spans partition the lines); a list of one-line
            # events' last lines equals the first lines (compared in C)
            if lasts is not firsts and lasts != firsts:
                for i, (a, b) in enumerate(zip(firsts, lasts, strict=True)):
                    if b > a:
                        codes[a:b] = value if len(found) == 1 else value[i]
        # (one byte a line: a big log's codes take isal as its text does)
        packed = _b64_gzip([codes.tobytes()], 6, self.big)
        return wide, packed, [[k, s] for k, s in table]

    def meta(self) -> dict[str, Any]:
        """What the page's script needs to know about the log (the data, not the packs)."""
        return {
            "name": self.name,
            "lines": self.lines,
            "kinds": self.kinds,
            "wide": self.wide,
            "excerpt": self.excerpt,
            "unfold": self.unfold,
            "cut": self.cut,
        }


@cache
def _environment() -> Environment:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=PackageLoader("trtlog.html", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["ms"] = _fmt_ms
    env.filters["seconds"] = _fmt_seconds
    env.filters["mib"] = _fmt_mib
    return env


def _fmt_ms(value: float | None) -> str:
    return "\u2013" if value is None or value != value else f"{number(value)} ms"


def _fmt_seconds(value: float | None) -> str:
    return "\u2013" if value is None else f"{number(value, 6)} s"


def _fmt_mib(value: float | None) -> str:
    if value is None:
        return "\u2013"
    return f"{value / (1 << 20):.1f} MiB"


@cache
def asset(name: str) -> str:
    """The text of a file in the report package (``assets/report.js``, ``vendor/...``)."""
    return resources.files("trtlog.html").joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def render(
    context: dict[str, Any],
    data: dict[str, Any],
    log: LogPack | None,
    graph: dict[str, Any] | None,
) -> str:
    """The page: the template filled with ``context``, and ``data``, ``graph`` and ``log``.

    Args:
        context: the template's variables (title, inputs, overview, sections).
        data: the JSON data of the page's script.
        log: the packed log, or ``None`` for a report made from JSON only.
        graph: the merge graph section (its own block, with its own string table), or
            ``None`` without a log.
    """
    # the engine graph's data goes in its own block, read by its own script
    engine_graph, bisection = data.get("engineGraph"), data.get("bisection")
    data = {k: v for k, v in data.items() if k not in ("engineGraph", "bisection")}
    data = {**data, "log": log.meta() if log is not None else None}
    payload, encoding = data_payload(data)
    graph_payload, graph_encoding = data_payload(graph) if graph is not None else ("", "json")
    egraph_payload, egraph_encoding = (
        data_payload(engine_graph) if engine_graph is not None else ("", "json")
    )
    scripts = [
        asset("vendor/dagre.min.js"),
        asset("assets/report.js"),
        asset("assets/engine_graph.js"),
    ]
    style = asset("assets/report.css") + asset("assets/engine_graph.css")
    for code in scripts:
        if "</script" in code.lower():  # a script block would end early
            raise ValueError("an inline script holds '</script'")
    csp = "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(_sha256(c) for c in scripts),
            "style-src " + _sha256(style),
            "img-src data: blob:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            **context,
            csp=csp,
            style=style,
            scripts=scripts,
            data=payload,
            data_encoding=encoding,
            graph=graph_payload,
            graph_encoding=graph_encoding,
            engine_graph=egraph_payload,
            engine_graph_encoding=egraph_encoding,
            bisection=bisection,
            log_text=log.text if log is not None else "",
            log_codes=log.codes if log is not None else "",
        )
    )


def data_payload(data: Any) -> tuple[str, str]:
    """The page's data as the text of its script block, and its ``data-encoding``.

    Data of at most :data:`COMPRESS_ABOVE` bytes is :func:`embed_json`'s text; bigger data is
    gzip-compressed and base64-encoded. Below :data:`FAST_ABOVE` bytes the compressed text is
    :func:`embed_json`'s too; from there on it is ``json.dumps(ensure_ascii=False)``'s in
    UTF-8 (what the page's ``TextDecoder`` reads), or orjson's, whose floats under 1e-4 may
    be written otherwise (``0.00001``) but read the same: inside base64 no character needs
    an escape, and escaping every ``<``, ``>``, ``&`` and non-ASCII character of 25 MB of
    JSON took as long as writing it.
    """
    # not exact: the two searches for the floats orjson writes unlike json.dumps (the same
    # numbers to the page's JSON.parse) took a quarter of orjson's time on 25 MB of data
    utf8 = _utf8_json(data, exact=False)
    if utf8 is not None and len(utf8) >= FAST_ABOVE and len(utf8) > COMPRESS_ABOVE:
        return _b64_gzip([utf8], 1, True), "gzip+base64"
    if utf8 is not None and (_SMALL_FIXED in utf8 or _SHORT_EXPONENT.search(utf8) is not None):
        utf8 = _utf8_json(data)  # the small page's text is json.dumps's, byte for byte
    embedded = _embedded(data, utf8)
    if len(embedded) > COMPRESS_ABOVE:
        # level 1: a quarter of level 6's time for 15% more bytes (a 20,000-layer engine's
        # graph section is 4 MB of JSON)
        return _b64_gzip([embedded], 1, len(embedded) >= FAST_ABOVE), "gzip+base64"
    return embedded.decode("ascii"), "json"


def decode_embedded(page: str, element: str = "trtlog-data") -> Any:
    """The JSON data (or the log text) a page holds, decoded as the page's script does.

    For tests and tools: ``element`` is ``trtlog-data`` (the data, as a value),
    ``trtlog-graph`` (the merge graph section, with its own string table; ``None`` in a page
    without a build) or ``trtlog-log`` (the log, as text).
    """
    start = page.index(f'id="{element}"')
    open_end = page.index(">", start) + 1
    body = page[open_end : page.index("</script>", open_end)]
    tag = page[page.rindex("<script", 0, start) : open_end]
    if element == "trtlog-log":
        return gzip.decompress(base64.b64decode(body)).decode("utf-8") if body else ""
    if not body:
        return None
    if 'data-encoding="gzip+base64"' in tag:
        body = zlib.decompress(base64.b64decode(body), 31).decode("utf-8")
    return json.loads(body)
