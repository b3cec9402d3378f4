"""``ingest``: put builds into a warehouse, serially or on a Dask cluster.

The driver (this module) finds the input files, hashes them, groups them into builds
(:mod:`~trtlog.warehouse.files`), leaves out the builds the warehouse already holds (same
content, same ``source_id``), cuts the rest into batches and hands each batch to
:func:`process_batch`, the one function that every executor runs: in this process
(``jobs=1``) or on Dask workers: a ``LocalCluster`` this module starts (``jobs=N``, and by
default above 32 MB of new input) or the cluster of a ``client``. Dask is the one parallel
engine: its worker processes end with the process that started them (a worker exits when
its nanny's pipe closes, even after a ``kill -9``). A worker reads
one build at a time and writes the batch's tables into a staging folder of the warehouse;
the driver commits each finished batch (:func:`~trtlog.warehouse.store.commit_part`).
So an ingest can be stopped at any point and run again: the committed batches stay, the rest
is done again (resumable), and nothing is stored twice (idempotent).
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trtlog._files import output_error
from trtlog.errors import OutputError
from trtlog.warehouse import store
from trtlog.warehouse.files import (
    BuildSpec,
    discover,
    group_files,
    input_files,
    read_manifest,
)

__all__ = [
    "BatchJob",
    "BatchResult",
    "IngestReport",
    "Progress",
    "ingest",
    "local_client",
    "process_batch",
    "repair",
]

#: Logs larger than this are streamed in batches of events instead of parsed whole (a whole
#: parse holds about five times the file in memory).
STREAM_BYTES = 256 * 10**6

_MIN_BATCH = 4 * 10**6
_MAX_BATCH = 64 * 10**6
_MAX_BATCH_BUILDS = 256
# below this much new input, jobs=None ingests in this process (no pool to start)
_SERIAL_BELOW = 32 * 10**6


@dataclass(frozen=True)
class BatchJob:
    """A batch of builds for one worker.

    Attributes:
        root: the warehouse folder (a path the worker can reach: shared storage on a cluster).
        part: the staging part to write.
        specs: the builds.
        stream_bytes: logs above this size are streamed.
    """

    root: str
    part: str
    specs: tuple[BuildSpec, ...]
    stream_bytes: float = STREAM_BYTES


@dataclass(frozen=True)
class BatchResult:
    """What a worker reports about a batch.

    Attributes:
        part: the staging part written.
        sources: the source ids of its builds (failed ones included: their ``errors`` rows).
        builds: ``builds`` rows written.
        rows: rows written per table.
        failures: ``(path, message)`` of every file that could not be read.
        input_bytes: the bytes of its files.
        seconds: the worker's time on it.
        cpu_seconds: the worker process's CPU time on it (less than ``seconds`` when the
            machine is shared).
        worker: the worker's process id.
        peak_rss_bytes: the worker process's peak resident memory so far.
    """

    part: str
    sources: tuple[str, ...]
    builds: int
    rows: dict[str, int]
    failures: tuple[tuple[str, str], ...]
    input_bytes: int
    seconds: float
    cpu_seconds: float
    worker: int
    peak_rss_bytes: int


def _peak_rss() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # KiB on Linux


def process_batch(job: BatchJob) -> BatchResult:
    """Read every build of a batch and write its tables into the part's staging folder.

    The per-build work is :func:`trtlog.warehouse.extract.extract_build`; this function is
    the same whichever executor runs it. Warnings trtlog emits while reading (a JSON file
    repaired, unknown keys) are kept in the build's ``notes``, not printed.
    """
    import pyarrow as pa

    from trtlog.warehouse.extract import ABORT, extract_build

    start, cpu = time.perf_counter(), time.process_time()
    writer = store.PartWriter(Path(job.root) / store.STAGING / job.part)
    store.write_sources(writer.folder, job.specs)
    failures: list[tuple[str, str]] = []
    for spec in job.specs:
        writer.begin_build(spec.source_id)
        notes: list[str] = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pieces = list(_pieces(extract_build(spec, stream_bytes=job.stream_bytes), writer))
        notes = list(dict.fromkeys(str(w.message) for w in caught))
        for table, rows in pieces:
            if table == ABORT:
                continue
            if table == "builds" and notes:
                merged = [list(n or []) + notes for n in rows.column("notes").to_pylist()]
                index = rows.schema.get_field_index("notes")
                rows = rows.set_column(
                    index, "notes", pa.array(merged, rows.schema.field(index).type)
                )
            if table == "errors":
                failures += zip(
                    rows.column("path").to_pylist(), rows.column("message").to_pylist(), strict=True
                )
            writer.add(table, rows)
        writer.end_build()
    writer.close()
    return BatchResult(
        part=job.part,
        sources=tuple(s.source_id for s in job.specs),
        builds=writer.rows.get("builds", 0),
        rows=dict(writer.rows),
        failures=tuple(failures),
        input_bytes=sum(s.size for s in job.specs),
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu,
        worker=os.getpid(),
        peak_rss_bytes=_peak_rss(),
    )


def _pieces(pieces: Iterator[Any], writer: store.PartWriter) -> Iterator[Any]:
    """The builds and errors pieces are held back; big tables go straight to the writer.

    A streamed log yields its tactics in many pieces; holding them all would defeat the
    streaming, so they are added as they come (the writer spills them to the build's own file).
    """
    from trtlog.warehouse.extract import ABORT

    held: list[Any] = []
    for table, rows in pieces:
        if table == ABORT:
            writer.abort_build()
            writer.begin_build(writer.build_key)
            held = [h for h in held if h[0] == "errors"]
        elif table in ("builds", "errors"):
            held.append((table, rows))
        else:
            writer.add(table, rows)
    yield from held


# -- the driver ---------------------------------------------------------------------------------


@dataclass
class Progress:
    """How far an ingest is (passed to the ``progress`` callback after each batch).

    Attributes:
        files_done: input files read so far (in this ingest).
        files_total: input files to read in this ingest (already-present ones aside).
        bytes_done: their bytes.
        bytes_total: the bytes to read.
        failures: files that could not be read so far.
        seconds: time since the ingest started.
    """

    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    failures: int
    seconds: float

    @property
    def mb_per_s(self) -> float:
        """Input megabytes (10^6 bytes) read per second."""
        return self.bytes_done / 1e6 / self.seconds if self.seconds > 0 else 0.0


@dataclass
class IngestReport:
    """What an ingest did.

    Attributes:
        warehouse: the warehouse folder.
        files: input files found.
        builds: builds these files form.
        present: builds the warehouse already held (skipped: same content).
        ingested: builds written by this ingest (``builds`` rows may be more: one per run).
        builds_rows: ``builds`` rows written.
        rows: rows written per table.
        failures: ``(path, message)`` of each file that could not be read.
        present_failures: builds skipped because an earlier ingest recorded them in ``errors``.
        input_bytes: the bytes read by this ingest.
        seconds: wall time.
        executor: ``serial`` or ``dask (N workers)``.
        workers: the worker processes that did the work.
        peak_rss_bytes: the highest peak resident memory of a worker process.
        unmatched: input patterns that matched no file.
        cleaned: staging folders of dead ingests removed.
        worker_seconds: the time each worker spent on its batches.
        worker_cpu_seconds: the CPU time each worker process spent on them.
        raced: builds this ingest read that another ingest into the same warehouse committed
            first (kept once: theirs).
        repaired: parts ``repair`` rebuilt (their old ids).
    """

    warehouse: str
    files: int = 0
    builds: int = 0
    present: int = 0
    ingested: int = 0
    builds_rows: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    failures: list[tuple[str, str]] = field(default_factory=list)
    present_failures: int = 0
    input_bytes: int = 0
    seconds: float = 0.0
    executor: str = "serial"
    workers: int = 1
    peak_rss_bytes: int = 0
    unmatched: list[str] = field(default_factory=list)
    cleaned: list[str] = field(default_factory=list)
    worker_seconds: dict[int, float] = field(default_factory=dict)
    worker_cpu_seconds: dict[int, float] = field(default_factory=dict)
    raced: int = 0
    repaired: list[str] = field(default_factory=list)

    @property
    def mb_per_s(self) -> float:
        """Input megabytes read per second of wall time."""
        return self.input_bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0

    def describe(self) -> str:
        """One paragraph for people (what ``trtlog ingest`` prints)."""
        failed = len(self.failures)
        text = (
            f"{self.warehouse}: {self.ingested} new build(s) ({self.builds_rows} builds row(s)) "
            f"from {self.files} file(s); {self.present} already present"
        )
        if self.present_failures:
            text += f" ({self.present_failures} of them recorded in errors before)"
        if self.raced:
            text += (
                f"; {self.raced} build(s) read but committed first by another ingest into "
                "this warehouse (stored once, by that ingest)"
            )
        if self.repaired:
            text += f"; {len(self.repaired)} broken part(s) rebuilt"
        text += f"; {failed} file(s) failed"
        if self.input_bytes:
            text += (
                f"\nread {self.input_bytes / 1e6:.1f} MB in {self.seconds:.1f} s "
                f"({self.mb_per_s:.1f} MB/s, {self.executor})"
            )
        return text


def _batches(
    specs: Sequence[BuildSpec], workers: int, stream_bytes: float, batch_bytes: float | None = None
) -> list[list[BuildSpec]]:
    """Batches of builds, biggest first, sized so that every worker gets several.

    A streamed log is a batch alone. Biggest first keeps the last batches small, so the
    workers finish together.
    """
    total = sum(s.size for s in specs)
    target = batch_bytes or min(max(total / (workers * 4), _MIN_BATCH), _MAX_BATCH)
    out: list[list[BuildSpec]] = []
    current: list[BuildSpec] = []
    size = 0
    for spec in sorted(specs, key=lambda s: (-s.size, s.files[0].path)):
        if spec.size > stream_bytes:
            out.append([spec])
            continue
        current.append(spec)
        size += spec.size
        if size >= target or len(current) >= _MAX_BATCH_BUILDS:
            out.append(current)
            current, size = [], 0
    if current:
        out.append(current)
    return out


def ingest(
    paths: Iterable[str | os.PathLike[str]],
    to: str | os.PathLike[str],
    client: Any = None,
    *,
    jobs: int | None = None,
    manifest: str | os.PathLike[str] | None = None,
    stream_bytes: float = STREAM_BYTES,
    batch_bytes: float | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> IngestReport:
    """Ingest logs and JSON exports into the warehouse ``to`` (created if needed).

    Args:
        paths: files, folders (searched recursively) and glob patterns (``ci/**/*.log``).
        to: the warehouse folder.
        client: a ``dask.distributed.Client``: the batches run on its workers, which must
            reach the warehouse folder and the input files under the same paths.
        jobs: without a client, how many Dask worker processes read builds on a
            ``LocalCluster`` started for this ingest (``1``: this process alone, no Dask);
            by default one per CPU when the new input passes 32 MB and holds two builds or
            more, else this process.
        manifest: a CSV saying which files form one build (see
            :func:`trtlog.warehouse.files.read_manifest`); its files are ingested too.
        stream_bytes: logs larger than this are streamed in batches of events.
        batch_bytes: the input bytes of a batch (a commit); by default a quarter of each
            worker's share, between 4 and 64 MB. Smaller batches lose less to an interrupt.
        progress: called after each batch with the :class:`Progress` so far.

    Returns:
        What was done; ``report.failures`` lists the files that could not be read (each also
        an ``errors`` row).

    Raises:
        WarehouseError: ``to`` cannot be a warehouse.
        InputError: the manifest cannot be read.
        MissingExtraError: ``jobs`` above 1 without Dask installed.

    Example:
        >>> import tempfile
        >>> wh = tempfile.mkdtemp()
        >>> log = tempfile.NamedTemporaryFile("w", suffix=".log", delete=False)
        >>> _ = log.write("[I] [TRT] Original: 5 layers\\n")
        >>> log.close()
        >>> ingest([log.name], to=wh).ingested, ingest([log.name], to=wh).present
        (1, 1)
        >>> import os, shutil; os.unlink(log.name); shutil.rmtree(wh)
    """
    started = time.perf_counter()
    root = store.create(to)
    report = IngestReport(warehouse=str(to))
    report.cleaned = store.clean_stale(root)
    broken = store.broken_parts(root, full=False)
    if broken:
        files = ", ".join(f for damaged in broken.values() for f in damaged)
        warnings.warn(
            f"{to}: broken Parquet file(s): {files}; their builds count as present: "
            f"`trtlog ingest --repair --to {to}` rebuilds them",
            stacklevel=2,
        )
    rows = read_manifest(os.fspath(manifest)) if manifest is not None else []
    found, report.unmatched = discover([os.fspath(p) for p in paths], exclude=str(root))
    found = sorted({*found, *(r.path for r in rows)})
    report.files = len(found)
    specs = group_files(input_files(found), rows)
    report.builds = len(specs)
    committed = store.Committed(root)
    present = committed.refresh()
    todo = [s for s in specs if s.source_id not in present]
    report.present = len(specs) - len(todo)
    report.present_failures = sum(
        1 for s in specs if s.source_id in committed.error_ids and s.source_id in present
    )
    _ingest_specs(
        root, todo, committed, report, client, jobs, stream_bytes, batch_bytes, progress, started
    )
    return report


def repair(
    to: str | os.PathLike[str],
    client: Any = None,
    *,
    jobs: int | None = None,
    stream_bytes: float = STREAM_BYTES,
    progress: Callable[[Progress], None] | None = None,
) -> IngestReport:
    """Rebuild every part of the warehouse ``to`` that holds a broken Parquet file.

    A part's builds are read again from the files its ``sources.json`` names (for a part
    made before trtlog wrote one, the files its ``builds`` rows record: see
    :mod:`trtlog.warehouse.repair`), each checked against the digest it had; the old part is
    set aside while they are, and removed once the new one is committed (restored if the
    rebuild fails). ``report.repaired`` lists the parts rebuilt.

    Raises:
        WarehouseError: ``to`` is not a warehouse, a broken part has no list of its sources
            (made before trtlog kept one) and its ``builds`` rows, which name them too, are
            unreadable, or a source file is gone or changed: the message names the part and
            the file, and nothing is changed.
    """
    from trtlog.warehouse.files import BuildSpec, InputFile, file_digest
    from trtlog.warehouse.repair import recorded_sources

    started = time.perf_counter()
    root = store.require(to)
    report = IngestReport(warehouse=str(to))
    report.cleaned = store.clean_stale(root)
    store.restore_all(root)  # parts a killed repair had set aside: checked again below
    broken = store.broken_parts(root, full=True)
    plans: dict[str, list[BuildSpec]] = {}
    for part, files in sorted(broken.items()):
        folder = root / store.PARTS / part
        what = "; ".join(f"{f} ({why})" for f, why in files.items())
        # a part made before parts kept sources.json: its builds rows name the same files
        sources = store.part_sources(folder) or recorded_sources(folder, files)
        specs = []
        for s in sources:
            inputs = tuple(InputFile(str(a), b, int(c), str(d)) for a, b, c, d in s["files"])
            for f in inputs:
                if not os.path.isfile(f.path) or file_digest(f.path) != f.digest:
                    gone = "is gone" if not os.path.isfile(f.path) else "has changed since"
                    raise store.WarehouseError(
                        f"{what}: cannot rebuild part {part}: its source file {f.path} {gone} "
                        f"(remove {root / store.PARTS / part} and ingest the files again)"
                    )
            labels = tuple((str(k), str(v)) for k, v in s.get("labels") or [])
            partners = tuple(str(p) for p in s.get("partners") or ())
            specs.append(
                BuildSpec(s["source_id"], inputs, s["grouping"], s.get("model"), labels, partners)
            )
        plans[part] = specs
    for part, specs in plans.items():
        aside = store.set_aside(root, part)
        committed = store.Committed(root)
        committed.refresh()
        try:
            _ingest_specs(
                root, specs, committed, report, client, jobs, stream_bytes, None, progress, started
            )
        except BaseException:
            store.restore(root, part, aside)
            raise
        store.drop_aside(aside)
        report.repaired.append(part)
    report.files = sum(len(s.files) for specs in plans.values() for s in specs)
    report.builds = sum(len(specs) for specs in plans.values())
    return report


def _ingest_specs(
    root: Path,
    todo: Sequence[BuildSpec],
    committed: store.Committed,
    report: IngestReport,
    client: Any,
    jobs: int | None,
    stream_bytes: float,
    batch_bytes: float | None,
    progress: Callable[[Progress], None] | None,
    started: float,
) -> None:
    """Read the builds ``todo`` on the executor and commit them, batch by batch."""
    with contextlib.ExitStack() as stack:
        workers = _workers(client, jobs, todo)
        if client is None and workers > 1:
            client = stack.enter_context(local_client(workers))
        if client is not None:
            workers = len(client.scheduler_info().get("workers", {})) or 1
            report.executor = f"dask ({workers} workers)"
        _commit_batches(
            root, todo, committed, report, client, workers, stream_bytes, batch_bytes,
            progress, started,
        )  # fmt: skip
    report.seconds = time.perf_counter() - started


def _commit_batches(
    root: Path,
    todo: Sequence[BuildSpec],
    committed: store.Committed,
    report: IngestReport,
    client: Any,
    workers: int,
    stream_bytes: float,
    batch_bytes: float | None,
    progress: Callable[[Progress], None] | None,
    started: float,
) -> None:
    batches = _batches(todo, workers, stream_bytes, batch_bytes)
    totals = Progress(0, sum(len(s.files) for s in todo), 0, sum(s.size for s in todo), 0, 0.0)
    jobs_: list[BatchJob] = []
    seen_workers: set[int] = set()
    try:
        for batch in batches:
            jobs_.append(BatchJob(str(root), store.new_part(root)[0], tuple(batch), stream_bytes))
        files_of = {job.part: sum(len(s.files) for s in job.specs) for job in jobs_}
        for result in _run(jobs_, client):
            added = store.commit_part(root, result.part, set(result.sources), committed)
            report.raced += len(set(result.sources) - added)
            if added:
                report.ingested += len(added)
                report.builds_rows += result.builds
                for table, n in result.rows.items():
                    report.rows[table] = report.rows.get(table, 0) + n
                report.failures += list(result.failures)
            report.input_bytes += result.input_bytes
            report.peak_rss_bytes = max(report.peak_rss_bytes, result.peak_rss_bytes)
            report.worker_seconds[result.worker] = (
                report.worker_seconds.get(result.worker, 0.0) + result.seconds
            )
            report.worker_cpu_seconds[result.worker] = (
                report.worker_cpu_seconds.get(result.worker, 0.0) + result.cpu_seconds
            )
            seen_workers.add(result.worker)
            totals.files_done += files_of[result.part]
            totals.bytes_done += result.input_bytes
            totals.failures = len(report.failures)
            totals.seconds = time.perf_counter() - started
            if progress is not None:
                progress(totals)
    except OSError as exc:
        # the warehouse could not be written (a worker's failure to read an input is an
        # errors row, never an exception): one error naming the place, no traceback
        if isinstance(exc, OutputError):
            raise
        raise output_error(exc, exc.filename or root) from exc
    finally:
        for job in jobs_:  # this ingest's uncommitted parts (an error or an interrupt)
            folder = root / store.STAGING / job.part
            if folder.exists():
                import shutil

                shutil.rmtree(folder, ignore_errors=True)
    report.workers = max(report.workers, len(seen_workers), 1)


def _workers(client: Any, jobs: int | None, todo: Sequence[BuildSpec]) -> int:
    """How many worker processes to start (1: this process, no Dask)."""
    if client is not None:
        return 0
    if jobs is None:
        small = sum(s.size for s in todo) < _SERIAL_BELOW or len(todo) < 2
        if small or not _has_dask():
            return 1
        jobs = os.cpu_count() or 1
    return max(1, min(jobs, len(todo)))


def _has_dask() -> bool:
    import importlib.util

    return importlib.util.find_spec("distributed") is not None


@contextlib.contextmanager
def local_client(workers: int) -> Iterator[Any]:
    """A Dask client of a ``LocalCluster`` of ``workers`` processes (one thread each).

    The cluster listens on 127.0.0.1 only, has no dashboard, and is closed when the block
    ends. Its worker processes end with this process even when it is killed (``kill -9``):
    each worker exits when the pipe to its nanny in this process closes.

    Raises:
        MissingExtraError: Dask (``distributed``) is not installed.
    """
    from trtlog.warehouse import require_extra

    require_extra(dask=True)
    import logging

    from distributed import Client, LocalCluster

    # Dask's configuration sets its loggers to INFO when it is imported: the start and stop
    # of a cluster this ingest owns are no news to its caller, and its failures reach the
    # caller as exceptions (a failed start below, a failed batch from its future)
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] == "distributed"]
    chatty = [logging.getLogger(name) for name in ("distributed", *names)]
    levels = [logger.level for logger in chatty]
    # (a caller that logs at DEBUG, as ``trtlog -vv`` does, hears Dask's own account)
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        for logger in chatty:
            logger.setLevel(logging.CRITICAL)
    try:
        try:
            cluster = LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=workers,
                threads_per_worker=1,  # one build at a time per worker: bounded memory
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        except Exception as exc:  # a process or thread limit, no loopback, no memory
            raise store.WarehouseError(
                f"cannot start a local Dask cluster of {workers} worker(s): {_root_cause(exc)} "
                "(hint: --jobs 1 reads the builds in this process)"
            ) from exc
        try:
            client = Client(cluster)  # type: ignore[no-untyped-call]
            try:
                yield client
            finally:
                client.close()  # type: ignore[no-untyped-call]
        finally:
            cluster.close()
    finally:
        for logger, level in zip(chatty, levels, strict=True):
            logger.setLevel(level)


def _root_cause(exc: BaseException) -> str:
    """The message of the first error in ``exc``'s chain of causes."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _run(jobs: Sequence[BatchJob], client: Any) -> Iterator[BatchResult]:
    """Run the batches (on the client's workers, or here); yield each result as it finishes."""
    if not jobs:
        return
    if client is None:
        for job in jobs:
            yield process_batch(job)
        return
    from distributed import as_completed as dask_completed

    futures = [client.submit(process_batch, job, pure=False) for job in jobs]
    try:
        for future in dask_completed(futures):  # type: ignore[no-untyped-call]
            yield future.result()
    finally:
        client.cancel([f for f in futures if not f.done()])
