"""The fuzz harness: one input through every public entry point, checking trtlog's contract.

Shared by the property tests of ``tests/fuzz/`` and the long campaign ``bench/fuzz.py``. The
contract: the only exception an entry point may raise on any input is
:class:`~trtlog.errors.InputError`; a log parsed from a string gives its text back exactly
(``to_text()``), its event spans partition its lines, and a build survives its JSON round
trip. A function here returns normally when the contract holds and raises otherwise (an
``AssertionError`` or the escaped exception).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ParamSpec, TypeVar

import trtlog
from trtlog.buildlog import Build
from trtlog.errors import InputError

P = ParamSpec("P")
R = TypeVar("R")

__all__ = ["check_cli", "check_json", "check_log_bytes", "check_log_text", "check_views"]


def check_spans(build: Build) -> None:
    """The events' spans partition the build's lines, in order."""
    expected = 1
    for event in build.events:
        first, last = event.span
        assert first == expected, (event.kind, event.span, expected)
        assert last >= first, event.span
        expected = last + 1
    assert expected - 1 == build.line_count, (expected - 1, build.line_count)


def check_views(build: Build) -> None:
    """Every view of a build runs, and the build is equal to itself in every view."""
    from trtlog.frames import SCHEMAS
    from trtlog.summary import summarize

    for event in build.events:
        event.names()
        event.model_dump_json()
    dumped = build.model_dump_json()
    assert Build.model_validate_json(dumped) == build, "Build JSON round trip"
    for name in (
        "layer_counts_frame",
        "passes_frame",
        "fusions_frame",
        "removals_frame",
        "qdq_frame",
        "tactics_frame",
        "memory_frame",
    ):
        frame = getattr(build, name)()
        assert list(frame.columns) == list(SCHEMAS[name.removesuffix("_frame")]), name
    graph = build.merge_graph()
    for node in list(graph.nodes)[:5]:
        with contextlib.suppress(KeyError):
            trtlog.fate(build, node)
        with contextlib.suppress(KeyError):
            trtlog.members(build, node)
    engine = build.engine
    if engine is not None:
        check_engine(engine)
    summarize(build).to_text()
    trtlog.lint(build)
    try:
        comparison = trtlog.compare(build, build)
    except InputError:  # nothing to compare (no layers, no passes): documented
        return
    check_self_comparison(comparison)


def check_self_comparison(comparison: trtlog.Comparison) -> None:
    """A build (or engine) compared with itself: every layer matched, nothing changed."""
    markers = comparison.markers()
    assert markers["-"] == markers["+"] == markers["~"] == 0, markers
    assert not comparison.unmatched_a and not comparison.unmatched_b


def check_engine(engine: trtlog.Engine) -> None:
    """Every frame and fact of an engine."""
    engine.layers_frame()
    engine.tensors_frame()
    engine.profile_frame()
    engine.times_frame()
    engine.modules_frame()
    engine.module_tree()
    engine.groups()
    _ = engine.total_ms
    for layer in engine.layers[:50]:
        layer.parts.members()
        _ = (layer.origin, layer.myelin, layer.precision, layer.is_reformat)
    engine.model_dump_json()


def _quiet(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` with warnings ignored: warnings are data for the user, not failures."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args, **kwargs)

    return wrapper


@_quiet
def check_log_text(text: str, *, views: bool = True) -> Build | None:
    """``parse_text`` and ``iter_events`` of a string; the views when ``views``."""
    try:
        build = trtlog.parse_text(text)
    except InputError:
        build = None
    streamed: list[object] | None
    try:
        streamed = list(trtlog.iter_events(io.StringIO(text, newline="")))
    except InputError:
        streamed = None
    if build is None:
        return None
    assert build.to_text() == text, "to_text() differs from the input"
    check_spans(build)
    if streamed is not None:
        assert [e.span for e in streamed] == [e.span for e in build.events]  # type: ignore[attr-defined]
    if views:
        with contextlib.suppress(InputError):  # a view may refuse input too (documented)
            check_views(build)
    return build


@_quiet
def check_log_bytes(data: bytes, *, views: bool = True) -> Build | None:
    """``parse`` of a log's bytes (any encoding, compressed or not)."""
    try:
        build = trtlog.parse(data)
    except InputError:
        return None
    check_spans(build)
    if views:
        with contextlib.suppress(InputError):  # a view may refuse input too (documented)
            check_views(build)
    return build


@_quiet
def check_json(data: bytes) -> None:
    """Every JSON loader on the bytes, and the views of what loads."""
    for loader in (trtlog.load_engine, trtlog.load_profile, trtlog.load_times):
        try:
            value = loader(data)
        except InputError:
            continue
        value.model_dump_json()
        if isinstance(value, trtlog.Engine):
            with contextlib.suppress(InputError):
                check_engine(value)
            trtlog.lint(None, value)
            try:
                comparison = trtlog.compare(value, value)
            except InputError:
                continue
            check_self_comparison(comparison)
        elif isinstance(value, trtlog.Profile):
            _ = (value.total_ms, value.records, value.iterations, value.has_median)
        else:
            _ = value.records


@contextlib.contextmanager
def _files(data: bytes, suffix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="trtlog-fuzz-") as tmp:
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(data)
        yield path


# Commands run on a log (the output file, when one is written, goes to a temporary folder).
LOG_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("summary",),
    ("summary", "--format", "json"),
    ("events", "--format", "json"),
    ("events", "--format", "csv"),
    ("events",),
    ("layers",),
    ("explain",),
    ("lint",),
    ("lint", "--format", "sarif"),
    ("graph", "-o", "{tmp}/g.graphml"),
    ("graph", "-o", "{tmp}/g.dot"),
    ("diff", "{path}"),
    ("report", "-o", "{tmp}/r.html"),
)

# The warehouse commands, on a warehouse of the one input (the input is placed explicitly).
WAREHOUSE_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("ingest", "{path}", "--to", "{tmp}/wh", "--jobs", "1"),
    ("query", "{tmp}/wh", "SELECT count(*) AS n, max(line_count) FROM builds"),
    ("query", "{tmp}/wh", "SELECT name, type, time_ms FROM layers", "--format", "csv"),
    ("query", "{tmp}/wh", "SELECT * FROM errors", "--locked", "--format", "json"),
)

PLOT_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("plot", "layer-counts"),
    ("plot", "fusions"),
    ("plot", "tactics"),
    ("plot", "slowest-tactics"),
    ("plot", "memory"),
    ("plot", "time-by"),
)


@_quiet
def check_cli(
    data: bytes, *, suffix: str = ".log", plots: bool = False, warehouse: bool = False
) -> list[int]:
    """Every command through ``main(argv)`` on a file of these bytes; their exit codes.

    Exit codes must be 0, 1 or 2 (2 for input errors); any exception escaping ``main`` (the
    CLI turns InputError into exit 2) breaks the contract, and so does a temporary file left
    next to an output. ``warehouse``: also ingest the file and query the warehouse (needs
    the warehouse extra; skipped without it).
    """
    from trtlog.cli.main import main

    codes: list[int] = []
    with _files(data, suffix) as path:
        tmp = str(path.parent)
        commands = LOG_COMMANDS + (PLOT_COMMANDS if plots else ())
        if warehouse and _has_warehouse():
            commands += WAREHOUSE_COMMANDS
        for command in commands:
            argv = [part.format(tmp=tmp, path=path) for part in command]
            if "{path}" in command or command[0] == "query":
                pass  # (the input is in place)
            elif command[0] == "plot":
                argv += [str(path), "-o", os.path.join(tmp, "p.png")]
            elif command[0] == "layers" and suffix == ".json":
                argv += [str(path)]
            else:
                argv.insert(1, str(path))
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                try:
                    code = main(["-q", *argv])
                except SystemExit as exc:  # argparse: a usage error
                    code = int(exc.code or 0)
            assert code in (0, 1, 2), (argv, code)
            left = [p.name for p in path.parent.iterdir() if p.name.startswith(".trtlog-")]
            assert not left, (argv, left)
            codes.append(code)
    return codes


def _has_warehouse() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("duckdb", "pyarrow"))
