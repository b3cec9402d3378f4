"""One build's rows for every warehouse table: the per-build function of an ingest.

Runs on a worker (a Dask worker, or the ingesting process itself): it reads the files of one
:class:`~trtlog.warehouse.files.BuildSpec` with trtlog's public API (``parse``,
``load_engine``, ``load_profile``, ``load_times``, the frames, ``lint``, the merge graph's
fates, ``compare``) and yields ``(table, Arrow table)`` pieces
(:mod:`trtlog.warehouse.tables`). The serial and the distributed ingest run exactly this
function, so they give the same tables.

A log with several trtexec runs is one ``builds`` row per run (a view never mixes runs), and
a run with several engine builds (a program calling ``build_serialized_network`` more than
once) one row per build (:func:`log_scopes`).
The JSON files of the build belong to the run whose command line names them, else to the last
run; an ``--exportProfile``/``--exportTimes`` file that holds one array per run (a looped
script's output) is split over the runs when the counts agree.

A file trtlog cannot read (``InputError``, or an ``OSError`` reading it) becomes an
``errors`` row; the rest of the build is still ingested. Any other exception is a bug and
stops the ingest (STYLE.md §7).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from trtlog._version import __version__
from trtlog.buildlog.performance import split_runs
from trtlog.engine.from_log import PairedVersion, paired_version
from trtlog.errors import InputError
from trtlog.exports import load_engine, load_profile, load_times
from trtlog.inputs import InputKind, open_input
from trtlog.warehouse.files import BuildSpec, InputFile, Role
from trtlog.warehouse.schema import TABLES
from trtlog.warehouse.tables import (
    ABORT,
    Loaded,
    Piece,
    json_tables,
    now,
    rows_table,
    run_tables,
    target_run,
)

if TYPE_CHECKING:
    from trtlog.buildlog.model import Build
    from trtlog.engine.model import Profile, Times

__all__ = [
    "ABORT",
    "MERGE_PIECES",
    "Piece",
    "Scope",
    "error_row",
    "extract_build",
    "joined",
    "log_scopes",
    "scope_build",
]

#: Pieces of one table held before they are joined into one Arrow table. A log of thousands
#: of runs yields a piece of a few rows per run and table, and every Arrow table costs
#: kilobytes of its own (schema, one buffer per column) whatever its rows: a build's rows are
#: held until it is whole, so 73,000 runs of one file held as 700,000 small tables took
#: gigabytes that the same rows joined take megabytes of.
MERGE_PIECES = 256


def joined(pieces: Iterable[Piece], every: int = MERGE_PIECES) -> Iterator[Piece]:
    """``pieces`` with each table's pieces joined ``every`` at a time (rows in order).

    Example:
        >>> t = pa.table({"x": [1]})
        >>> [(name, rows.num_rows) for name, rows in joined([("a", t)] * 5, every=2)]
        [('a', 2), ('a', 2), ('a', 1)]
    """
    held: dict[str, list[pa.Table]] = {}
    for table, rows in pieces:
        mine = held.setdefault(table, [])
        mine.append(rows)
        if len(mine) >= every:
            yield table, _join(table, mine)
            mine.clear()
    for table, mine in held.items():
        if mine:
            yield table, _join(table, mine)


def _join(table: str, pieces: list[pa.Table]) -> pa.Table:
    if len(pieces) == 1:
        return pieces[0]
    schema = TABLES.get(table)
    if schema is not None:  # the writer casts to it anyway; pieces of one table then agree
        pieces = [p if p.schema == schema else p.cast(schema) for p in pieces]
    return pa.concat_tables(pieces).combine_chunks()


def error_row(spec: BuildSpec, file: InputFile, exc: BaseException) -> dict[str, Any]:
    """The ``errors`` row of a file that could not be read."""
    message = exc.one_line() if isinstance(exc, InputError) else str(exc)
    if isinstance(exc, OSError) and exc.filename is None:
        message = f"{file.path}: {message}"
    return {
        "build_id": spec.source_id,
        "source_id": spec.source_id,
        "path": file.path,
        "role": file.role,
        "paths": [f.path for f in spec.files],
        "error_type": type(exc).__name__,
        "message": message,
        "trtlog_version": __version__,
        "ingested_at": now(),
    }


def _load_json(file: InputFile, loaded: Loaded) -> None:
    """Read one JSON export into ``loaded`` (a file of unknown kind: each loader in turn)."""
    if file.role == "layers":
        loaded.engine = load_engine(file.path)
    elif file.role == "profile":
        loaded.profile = load_profile(file.path)
    elif file.role == "times":
        loaded.times = load_times(file.path)
    else:
        # the name does not say: the loaders refuse other kinds of export with an InputError
        # naming the loader that reads them
        first: InputError | None = None
        loaders: tuple[tuple[Role, Any], ...] = (
            ("layers", load_engine),
            ("profile", load_profile),
            ("times", load_times),
        )
        for role, loader in loaders:
            try:
                value: Any = loader(file.path)
            except InputError as exc:
                first = first or exc
                continue
            setattr(loaded, {"layers": "engine"}.get(role, role), value)
            loaded.paths[role] = file.path
            return
        assert first is not None
        raise first
    loaded.paths[file.role] = file.path


def extract_build(spec: BuildSpec, *, stream_bytes: float = math.inf) -> Iterator[Piece]:
    """Every table's rows for one build (see the module docstring).

    Args:
        spec: the build's files.
        stream_bytes: logs larger than this stream their events in batches (see
            :mod:`trtlog.warehouse.stream`) instead of being parsed whole.

    Yields:
        ``(table, rows)`` pieces; a table may come in several pieces.
    """
    started = time.perf_counter()
    errors: list[dict[str, Any]] = []
    loaded = Loaded()
    for file in spec.files:
        if file.role == "log":
            continue
        try:
            _load_json(file, loaded)
        except (InputError, OSError) as exc:
            errors.append(error_row(spec, file, exc))
    found = {path: role for role, path in loaded.paths.items()}
    if any(f.role == "json" and f.path in found for f in spec.files):  # now we know what it is
        files = tuple(replace(f, role=found.get(f.path, f.role)) for f in spec.files)
        spec = replace(spec, files=files)
    log = spec.log
    ingested = False
    if log is not None:
        if log.size > stream_bytes:
            from trtlog.warehouse.stream import extract_streamed

            try:
                yield from extract_streamed(spec, log, loaded, started)
                ingested = True
            except (InputError, OSError) as exc:
                yield ABORT, pa.table({})
                errors.append(error_row(spec, log, exc))
        else:
            t0 = time.perf_counter()
            try:
                # the one input decision: a log, or layer objects printed one by one
                opened = open_input(log.path, want=("log", "layers"))
            except (InputError, OSError) as exc:
                errors.append(error_row(spec, log, exc))
            else:
                if opened.build is None:  # read as the layers it holds (below)
                    loaded.engine = loaded.engine or opened.engine
                    loaded.paths.setdefault("layers", log.path)
                else:
                    parse_seconds = time.perf_counter() - t0
                    yield from joined(
                        _log_build(spec, opened.build, loaded, parse_seconds, started)
                    )
                    ingested = True
    if not ingested and (loaded.engine or loaded.profile or loaded.times):
        loaded.paired = _paired_version(spec, loaded, stream_bytes)
        yield from json_tables(spec, loaded, started, errors)
    if errors:
        yield "errors", rows_table("errors", errors)


_LOG_ONLY: tuple[InputKind, ...] = ("log",)


def _paired_version(spec: BuildSpec, loaded: Loaded, stream_bytes: float) -> PairedVersion | None:
    """The TensorRT version of a build of JSON files alone, from its partner logs.

    The partners (:attr:`BuildSpec.partners`, logs of the same folder and name stem) are
    parsed here, a log larger than ``stream_bytes`` in one streamed pass that keeps its
    header and layer events; one that cannot be read is left out (its own build reports it).
    """
    builds = []
    for path in spec.partners:
        try:
            size = os.path.getsize(path)
            if size > stream_bytes:
                from trtlog.warehouse.stream import version_build

                builds.append(version_build(path, size))
                continue
            opened = open_input(path, want=_LOG_ONLY)
        except (InputError, OSError):
            continue
        if opened.build is not None:
            builds.append(opened.build)
    return paired_version(loaded.engine, builds) if builds else None


# -- a build with a log ----------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """One ``builds`` row of a log: a run, or one engine build of a run that holds several.

    Attributes:
        build_id: ``source_id``, ``source_id:<run>`` (a log of several runs), with
            ``:b<build>`` after it for a run of several engine builds.
        run: the run's position (``None`` in a log without runs).
        build: the engine build's index in the file when its run holds several, else
            ``None`` (the row is the whole run).
        number: its position within its run (0 for a run of one build).
        builds: the engine builds of its run.
        first_line: its first line.
        last_line: its last line.
        target: whether the build's JSON files (layers, profile, times) belong to it: the
            last build of the run they name.
    """

    build_id: str
    run: int | None
    build: int | None
    number: int
    builds: int
    first_line: int
    last_line: int
    target: bool

    def exports(
        self, loaded: Loaded, profiles: list[Profile] | None, times: list[Times] | None
    ) -> tuple[Profile | None, Times | None]:
        """The profile and timing trace of this row.

        ``profiles`` and ``times``: the exports split per run (:func:`split_runs`), when they
        hold one array per run. The last engine build of a run gets its run's part of them;
        else the target row gets the whole exports, and any other row none.
        """
        i = self.run or 0
        last = self.number == self.builds - 1
        profile = profiles[i] if profiles and last else (loaded.profile if self.target else None)
        run_times = times[i] if times and last else (loaded.times if self.target else None)
        return profile, run_times


def log_scopes(build: Build, source_id: str, target: int) -> list[Scope]:
    """The ``builds`` rows of a log, in file order (one per run, or per engine build).

    ``target`` is the run the JSON files belong to (:func:`~trtlog.warehouse.tables.target_run`).
    The serial and the streamed extraction share this: the same ids and ranges.
    """
    n_runs = len(build.runs)
    out: list[Scope] = []
    for i in range(max(n_runs, 1)):
        run = build.runs[i] if n_runs else None
        base = source_id if n_runs <= 1 else f"{source_id}:{i}"
        builds = build.builds_of_run(run.index if run is not None else None)
        mine = i == target
        if len(builds) <= 1:
            first = 1 if run is None or i == 0 else run.first_line
            last = run.last_line if run is not None else build.line_count
            out.append(Scope(base, i if n_runs else None, None, 0, 1, first, last, mine))
            continue
        for b in builds:
            out.append(
                Scope(
                    f"{base}:b{b.number}",
                    i if n_runs else None,
                    b.index,
                    b.number,
                    len(builds),
                    b.first_line,
                    b.last_line,
                    mine and b.number == len(builds) - 1,
                )
            )
    return out


def scope_build(build: Build, scope: Scope) -> Build:
    """The view of a log one ``builds`` row describes."""
    if scope.build is not None:
        return build.for_build(scope.build)
    return build.for_run(scope.run) if scope.run is not None and len(build.runs) > 1 else build


def _log_build(
    spec: BuildSpec, build: Build, loaded: Loaded, parse_seconds: float, started: float
) -> Iterator[Piece]:
    from trtlog.summary import summarize  # not in trtlog.__all__ (see docs/warehouse.md)

    n_runs = len(build.runs)
    profiles = split_runs(loaded.profile, n_runs)
    times = split_runs(loaded.times, n_runs)
    for scope in log_scopes(build, spec.source_id, target_run(build, loaded.paths)):
        i = scope.run or 0
        profile, run_times = scope.exports(loaded, profiles, times)
        summary = summarize(
            build,
            i if n_runs > 1 else None,
            engine_build=scope.number if scope.build is not None else None,
            times=run_times,
            runs_table=False,  # each row has its own run's figures; no table of all runs
        )
        yield from run_tables(
            spec,
            scope.build_id,
            scope_build(build, scope),
            summary,
            loaded.engine if scope.target else None,
            profile,
            run_index=i if n_runs else None,
            n_runs=n_runs,
            parse_seconds=parse_seconds,
            started=started,
            engine_build=scope.number if scope.build is not None else None,
            engine_builds=scope.builds,
        )
        # done with this row: memory holds the views of one run at a time, not of every run
        build.forget_views(run=scope.run, build=scope.build)
