"""Finding, building and caching the Lark grammars, and the one typed entry point into Lark.

Grammar text lives only in ``grammars/*.lark`` (STYLE.md §6). In a source checkout or an
editable install they are read from the top-level ``grammars/`` folder; in an installed wheel
the build maps that folder to ``trtlog/grammars``, found through :mod:`importlib.resources`.
Each grammar is built once per process (LALR, contextual lexer, its transformer embedded) and
only when a message first needs it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, cast

from lark import Lark
from lark.exceptions import LarkError

from trtlog.parser import _lark
from trtlog.parser.compiled import Alternative, CompiledStarts, alternatives
from trtlog.parser.family import Family, Rule

__all__ = [
    "build_parser",
    "cached_parser",
    "grammar_dir",
    "grammar_path",
    "matchers",
    "parse_message",
    "routed_rules",
    "with_routes",
]

log = logging.getLogger(__name__)


@cache
def grammar_dir() -> Path:
    """The folder that holds the ``.lark`` files.

    Raises:
        FileNotFoundError: neither the installed copy nor the checkout's folder exists.
    """
    packaged = resources.files("trtlog").joinpath("grammars")
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[2] / "grammars"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        "trtlog cannot find its grammar files (trtlog/grammars in a wheel, grammars/ in a "
        "checkout); reinstall trtlog"
    )


def grammar_path(name: str) -> Path:
    """The path of ``grammars/<name>.lark``."""
    return grammar_dir() / f"{name}.lark"


def cache_folder() -> str | None:
    """The folder for analysed grammars, or ``None`` (no caching; see :func:`cache_path`).

    ``$TRTLOG_GRAMMAR_CACHE`` (``0`` turns caching off), else ``$XDG_CACHE_HOME/trtlog`` or
    ``~/.cache/trtlog``, created private (mode 0700). A folder that is not yours, or that
    others may write to, is not used (with a warning): a file planted there would be read by
    your next ``trtlog``.
    """
    setting = os.environ.get("TRTLOG_GRAMMAR_CACHE", "")
    if setting == "0":
        return None
    if setting:
        folder = setting
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "trtlog")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        problem = _unsafe(os.stat(folder), folder=True)
    except OSError:
        return None
    if problem is not None:
        if folder not in _WARNED:
            _WARNED.add(folder)
            log.warning(
                "not using the grammar cache folder %s: %s (trtlog builds its grammars on every "
                "run until it is fixed: chmod go-w / chown the folder, or set "
                "TRTLOG_GRAMMAR_CACHE to another folder, or to 0)",
                folder,
                problem,
            )
        return None
    return folder


_WARNED: set[str] = set()


def cache_path(family: Family) -> str | None:
    """Where the analysed grammar of ``family`` is cached, or ``None`` (no caching).

    Building the LALR tables of every family costs seconds (more when ``interegular`` is
    installed: Lark then checks every pair of terminals), so the analysed grammar is saved
    once per grammar version into :func:`cache_folder`, one file per family and grammar
    folder. The file is a pickle, so trtlog loads only what it wrote itself: each file is
    signed (HMAC-SHA256) with a random key kept in the folder (mode 0600), over the grammar
    files, the build options and the Lark, Python and trtlog versions, and the signature is
    checked before anything is unpickled. Files and the key are opened without following
    symbolic links and must be regular files of yours that others cannot write; they are
    written to a temporary file and renamed into place, so a reader never sees half a file
    and a planted link is replaced, not followed. A stale, foreign or broken file is rebuilt;
    a folder that cannot be written just leaves the grammars uncached.
    """
    folder = cache_folder()
    if folder is None:
        return None
    # one file per grammar folder: an installed wheel and a checkout sharing one cache folder
    # would otherwise rebuild and overwrite each other's file
    where = hashlib.sha1(str(grammar_dir()).encode(), usedforsecurity=False).hexdigest()[:10]
    return os.path.join(folder, f"{family.name}-{where}.lark-cache")


def build_parser(family: Family, *, strict: bool = False, cache: str | None = None) -> Lark:
    """Build the LALR parser of a family with its transformer embedded.

    Args:
        family: the family whose grammar file and start rules to use.
        strict: build with Lark's ``strict`` mode (no shift/reduce or regex collisions), as
            the test suite does for every grammar.
        cache: a file to load the analysed grammar from, or to save it to (see
            :func:`cache_path`); ``None`` builds from scratch.
    """
    stamp = _stamp(family, strict)
    if cache is not None:
        loaded = _load_cached(cache, stamp, family)
        if loaded is not None:
            return loaded
    path = grammar_path(family.name)
    lark = _lark.build(path, family.starts, family.transformer(), strict=strict)
    if cache is not None:
        _save_cached(cache, stamp, lark)
    return lark


# -- the cache files ---------------------------------------------------------------------

_MAGIC = b"trtlog grammar cache 1\n"
_DIGEST = 64  # hex characters of an HMAC-SHA256
_KEY_FILE = "key"
_KEY_BYTES = 32
_MAX_BYTES = 64 << 20  # a cache file is some hundred KB: anything past this is not ours
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted under the name never blocks


@cache
def _grammars_digest() -> str:
    """A digest of every grammar file (a family's grammar imports ``common.lark``)."""
    digest = hashlib.sha256()
    for path in sorted(grammar_dir().glob("*.lark")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _stamp(family: Family, strict: bool) -> bytes:
    """What a cache file must have been built from: grammars, options and versions."""
    import sys

    import lark

    from trtlog._version import __version__

    return "|".join(
        (
            family.name,
            ",".join(family.starts),
            f"strict={strict}",
            _grammars_digest(),
            f"lark {lark.__version__}",
            f"python {sys.version_info[0]}.{sys.version_info[1]}",
            f"trtlog {__version__}",
        )
    ).encode()


def _unsafe(st: os.stat_result, *, folder: bool = False, private: bool = False) -> str | None:
    """Why a file (or folder) must not be trusted, or ``None``."""
    import stat

    if folder and not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    if not folder and not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    uid = getattr(os, "geteuid", lambda: None)()
    if uid is not None and st.st_uid != uid:
        return f"it belongs to user id {st.st_uid}, not to you ({uid})"
    if st.st_mode & (0o077 if private else 0o022):
        return f"others may {'read or ' if private else ''}write it (mode {st.st_mode & 0o777:o})"
    return None


def _read_own(path: str, *, private: bool = False) -> bytes | None:
    """The bytes of a regular file of the user's that others cannot write, else ``None``.

    Never follows a symbolic link and never blocks (a FIFO under the name is refused).
    """
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if _unsafe(st, private=private) is not None or st.st_size > _MAX_BYTES:
            log.debug("ignoring %s: %s", path, _unsafe(st, private=private) or "too large")
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _write_atomic(folder: str, name: str, data: bytes) -> str:
    """Write ``data`` to a new private temporary file in ``folder``; return its path."""
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def _key(folder: str, *, create: bool) -> bytes | None:
    """The folder's signing key, made (once, atomically) when ``create`` and none is valid."""
    path = os.path.join(folder, _KEY_FILE)
    key = _read_own(path, private=True)
    if (key is not None and len(key) == _KEY_BYTES) or not create:
        return key if key is not None and len(key) == _KEY_BYTES else None
    import secrets

    try:
        tmp = _write_atomic(folder, _KEY_FILE, secrets.token_bytes(_KEY_BYTES))
    except OSError:
        return None  # a read-only folder: nothing is cached
    try:
        try:
            os.link(tmp, path)  # fails if another process made the key first: use theirs
        except FileExistsError:
            key = _read_own(path, private=True)
            if key is None or len(key) != _KEY_BYTES:  # not a key of ours: replace it
                os.replace(tmp, path)
        except OSError:  # no hard links on this file system
            os.replace(tmp, path)
    except OSError:
        return None
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
    key = _read_own(path, private=True)
    return key if key is not None and len(key) == _KEY_BYTES else None


def _signature(key: bytes, stamp: bytes, payload: bytes) -> bytes:
    import hmac

    mac = hmac.new(key, stamp + b"\0", hashlib.sha256)
    mac.update(payload)
    return mac.hexdigest().encode()


def _read_signed(path: str, stamp: bytes) -> bytes | None:
    """The payload of the cache file at ``path`` if trtlog signed it for ``stamp``, else ``None``.

    The signature is checked before anything of the payload is used.
    """
    import hmac

    key = _key(os.path.dirname(path) or ".", create=False)
    if key is None:
        return None
    data = _read_own(path)
    if data is None or not data.startswith(_MAGIC):
        return None
    start = len(_MAGIC) + _DIGEST + 1
    signature, payload = data[len(_MAGIC) : start - 1], data[start:]
    if not hmac.compare_digest(signature, _signature(key, stamp, payload)):
        log.debug("grammar cache %s is stale or not trtlog's: rebuilding it", path)
        return None
    return payload


def _write_signed(path: str, stamp: bytes, payload: bytes) -> None:
    """Save ``payload`` at ``path``, signed; a folder that cannot be written is left alone."""
    folder = os.path.dirname(path) or "."
    key = _key(folder, create=True)
    if key is None:
        return
    data = _MAGIC + _signature(key, stamp, payload) + b"\n" + payload
    try:
        tmp = _write_atomic(folder, os.path.basename(path), data)
    except OSError as exc:
        log.debug("cannot write the grammar cache %s: %s", path, exc)
        return
    try:
        os.replace(tmp, path)  # atomic; replaces a link planted at ``path``, never follows it
    except OSError as exc:
        log.debug("cannot write the grammar cache %s: %s", path, exc)
        os.unlink(tmp)


def _load_cached(path: str, stamp: bytes, family: Family) -> Lark | None:
    """The parser cached at ``path`` if trtlog wrote it for ``stamp``, else ``None``."""
    payload = _read_signed(path, stamp)
    if payload is None:
        return None
    log.debug("loading grammar %s from %s", family.name, path)
    return _lark.load(payload, family.transformer())


def _save_cached(path: str, stamp: bytes, lark: Lark) -> None:
    """Save ``lark`` at ``path``, signed; a folder that cannot be written is left alone."""
    _write_signed(path, stamp, _lark.dump(lark))


# -- what the keyword table and the compiled matchers read from a grammar -----------------


class _Derived:
    """What the keyword table and the compiled matchers need of a family's built grammar.

    The leading literals of its routed start rules (:func:`routed_rules`) and the
    :data:`~trtlog.parser.compiled.Alternative` s of its flat start rules. Both are plain
    text, cached next to the grammar (``<family>-<folder>.derived-cache``, signed like it:
    its ``regex`` and code become Python code), so that a process whose messages every
    compiled matcher takes loads no Lark grammar (issue 18: start-up: loading the eight
    grammars cost about a third of ``trtlog summary``'s parse of a short log).
    """

    __slots__ = ("alternatives", "routes")

    def __init__(
        self,
        routes: dict[str, tuple[str | None, ...]],
        alternatives: dict[str, list[Alternative] | None],
    ) -> None:
        self.routes = routes
        self.alternatives = alternatives

    def dump(self) -> bytes:
        return json.dumps(
            {"routes": self.routes, "alternatives": self.alternatives}, separators=(",", ":")
        ).encode()

    @classmethod
    def load(cls, payload: bytes) -> _Derived | None:
        try:
            data = json.loads(payload)
            routes = {k: tuple(v) for k, v in data["routes"].items()}
            alts: dict[str, list[Alternative] | None] = {
                start: None
                if found is None
                else [
                    (lit, regex, expr, method, tuple(args), tuple(names))
                    for lit, regex, expr, method, args, names in found
                ]
                for start, found in data["alternatives"].items()
            }
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return cls(routes, alts)


_DERIVED: dict[str, _Derived | None] = {}


def derived_path(family: Family) -> str | None:
    """Where the keyword rows and matcher sources of ``family`` are cached (or ``None``)."""
    path = cache_path(family)
    return None if path is None else path.removesuffix(".lark-cache") + ".derived-cache"


@cache
def _sources_digest() -> str:
    """A digest of the parser's modules (the matchers' code is generated by them).

    Of each file's name, size and modification time, as Python checks its own ``.pyc``
    files against their sources: reading and hashing the sources would cost more than the
    rest of loading the cache.
    """
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted([*here.glob("*.py"), *here.glob("families/*.py")]):
        st = path.stat()
        digest.update(f"{path.name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def _derived_stamp(family: Family) -> bytes:
    return _stamp(family, False) + f"|derived 1|{_sources_digest()}".encode()


def _derived(family: Family) -> _Derived | None:
    """The family's :class:`_Derived`, from the cache, else from its grammar (and cached).

    ``None`` without a cache folder: the caller then reads the grammar itself, for only what
    it needs.
    """
    if family.name in _DERIVED:
        return _DERIVED[family.name]
    found: _Derived | None = None
    path = derived_path(family)
    if path is not None:
        try:
            stamp = _derived_stamp(family)
        except OSError:  # a module without its source file: nothing to check the cache with
            path = None
    if path is not None:
        payload = _read_signed(path, stamp)
        if payload is not None:
            found = _Derived.load(payload)
            if found is not None:
                log.debug("loading the keyword rows and matchers of %s from %s", family.name, path)
        if found is None:
            found = _derive(family, cached_parser(family))
            _write_signed(path, stamp, found.dump())
    _DERIVED[family.name] = found
    return found


def _derive(family: Family, lark: Lark) -> _Derived:
    """The family's :class:`_Derived`, read from its built grammar ``lark``."""
    transformer = lark.options.transformer
    assert transformer is not None, "grammars are built with their transformer embedded"
    return _Derived(
        _lark.leading_literals(lark, family.routed),
        alternatives(lark, transformer, family.starts),
    )


_PARSERS: dict[str, Lark] = {}
_MATCHERS: dict[str, CompiledStarts] = {}


def cached_parser(family: Family) -> Lark:
    """The Lark parser of a grammar family, built (or read from its cache file) once."""
    parser = _PARSERS.get(family.name)
    if parser is None:
        parser = _PARSERS[family.name] = _new_parser(family)
    return parser


def _new_parser(family: Family) -> Lark:
    log.debug("building grammar %s", family.name)
    try:
        return build_parser(family, cache=cache_path(family))
    except LarkError as exc:
        # A grammar that does not build is a bug in trtlog, not bad input: never let it
        # pass for a message that failed to parse.
        raise RuntimeError(f"grammar {family.name}.lark does not build: {exc}") from exc


def matchers(family: Family) -> CompiledStarts:
    """The grammar-compiled matchers of a family's flat start rules (see ``compiled.py``).

    Each rule's matcher is compiled the first time a message asks for it.
    """
    found = _MATCHERS.get(family.name)
    if found is None:
        derived = _derived(family)
        if derived is not None and family.name not in _PARSERS:
            # the grammar is loaded only if a message needs Lark (the transformer holds no
            # state: the parser's own instance, when loaded, behaves the same)
            found = CompiledStarts(None, family.transformer(), family.starts, derived.alternatives)
        else:
            lark = cached_parser(family)
            transformer = lark.options.transformer  # Lark's options: what build() passed
            assert transformer is not None, "grammars are built with their transformer embedded"
            found = CompiledStarts(
                lark,
                transformer,
                family.starts,
                None if derived is None else derived.alternatives,
            )
        _MATCHERS[family.name] = found
    return found


def parse_message(
    family: Family, start: str, text: str, *, compiled: bool = True
) -> dict[str, Any]:
    """Parse one message with a family's grammar from ``start``; return the event fields.

    Args:
        family: the family whose grammar to use.
        start: the start rule.
        text: the message (lines joined by ``\\n`` for a multi-line message).
        compiled: try the grammar-compiled matcher first (``False`` forces the LALR parser,
            which the consistency tests compare against).

    Raises:
        lark.exceptions.LarkError: the message does not match the grammar.
    """
    if compiled:
        table = _MATCHERS.get(family.name)
        if table is None:
            table = matchers(family)
        matcher = table.get(start)
        if matcher is not None:
            found = matcher.match(text)
            if found is not None:
                return cast(dict[str, Any], found)
    parser = _PARSERS.get(family.name) or cached_parser(family)
    result = parser.parse(text, start=start)
    # Released lark types parse() as returning a Tree; with the transformer embedded it
    # returns what the start rule's transformer method returned: the event fields.
    return cast(dict[str, Any], result)


def routed_rules(family: Family) -> tuple[Rule, ...]:
    """The keyword rows of a family's routed start rules (:attr:`Family.routed`).

    One prefix row per literal an alternative starts with, unless a hand-written row of the
    same start rule covers it (its prefix is the literal's beginning, or the literal the
    prefix's).

    Raises:
        ValueError: a routed start rule that no row would reach (no alternative starts with a
            literal): it needs a hand-written row.
    """
    if not family.routed:
        return ()
    derived = _derived(family)
    found = (
        _lark.leading_literals(cached_parser(family), family.routed)
        if derived is None
        else derived.routes
    )
    rows: list[Rule] = []
    for start in family.routed:
        own = [r.prefix for r in family.rules if r.start == start and r.prefix is not None]
        made = [
            Rule(start, prefix=literal)
            for literal in dict.fromkeys(text for text in found[start] if text)
            if not any(literal.startswith(p) or p.startswith(literal) for p in own)
        ]
        if not made and not own:
            raise ValueError(
                f"{family.name}: routed start rule {start!r} starts with no literal; give it a "
                "keyword row in the family's rules"
            )
        rows += made
    return tuple(rows)


def with_routes(family: Family) -> Family:
    """``family`` with the rows of its routed start rules after its own (the keyword table's)."""
    if not family.routed:
        return family
    return replace(family, rules=family.rules + routed_rules(family))
