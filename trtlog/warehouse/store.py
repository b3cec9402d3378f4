"""The warehouse on disk: Parquet parts, committed by an atomic rename, read by DuckDB.

Layout of a warehouse folder::

    trtlog-warehouse.json        what the folder is (format version)
    parts/<part>/<table>/*.parquet   committed rows; a part holds a batch of whole builds
    parts/<part>/sources.json     the files of its builds (what ``ingest --repair`` re-reads)
    .staging/<part>/...           parts being written (never read by a query)
    .lock                         taken while a part is committed
    .repair/<part>/               a broken part set aside while ``ingest --repair`` rebuilds it

An ingest writes each batch of builds into ``.staging/<part>/`` (each file written, flushed
and synced before the next step) and commits it with one ``rename`` of the folder into
``parts/``: a query sees all of a batch or none of it, and a killed ingest (even ``kill -9``)
leaves only a staging folder, which queries never read and the next ingest removes. Commits
take an exclusive lock on ``.lock`` and first drop the builds another ingest committed in the
meantime, so two ingests into one warehouse never store a build twice.

A Parquet file damaged after its commit (a disk fault, a copy cut short) is *broken*: a query
that does not read its table runs as if it were not there, with a warning naming it; a query
that reads its table fails with one line naming it; ``trtlog ingest --repair`` rebuilds its
part from the part's source files (:func:`broken_parts`, :func:`trtlog.warehouse.driver.repair`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from trtlog.errors import TrtlogError
from trtlog.warehouse.schema import TABLES

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "Committed",
    "PartWriter",
    "WarehouseError",
    "broken_parts",
    "commit_part",
    "create",
    "file_damage",
    "new_part",
    "open_warehouse",
    "require",
    "table_files",
]

MARKER = "trtlog-warehouse.json"
PARTS = "parts"
STAGING = ".staging"
LOCK = ".lock"
REPAIR = ".repair"
FORMAT = 1
_OWNER = "owner.json"
#: The files of a part's builds (source id, paths, roles, digests, grouping), for a repair.
SOURCES = "sources.json"

# rows a table's buffer holds before they go to its Parquet file; a build's pending rows
# beyond this go to a file of their own (a log streamed in batches)
FLUSH_ROWS = 250_000


class WarehouseError(TrtlogError, ValueError):
    """A folder that is not a warehouse, a bad build id, or another warehouse usage error."""


def create(root: str | os.PathLike[str]) -> Path:
    """Make ``root`` a warehouse (nothing happens to an existing one).

    Raises:
        WarehouseError: ``root`` is a file, or a non-empty folder that is not a warehouse.
    """
    path = Path(root)
    if path.exists() and not path.is_dir():
        raise WarehouseError(f"{root} is a file, not a warehouse folder")
    if path.is_dir() and not (path / MARKER).exists():
        visible = [p for p in path.iterdir() if not p.name.startswith(".")]
        if visible and {p.name for p in visible} != {PARTS}:
            raise WarehouseError(
                f"{root} is a folder with other files in it: give a new or empty folder "
                "for the warehouse"
            )
    (path / PARTS).mkdir(parents=True, exist_ok=True)
    (path / STAGING).mkdir(exist_ok=True)
    marker = path / MARKER
    if not marker.exists():
        tmp = path / f".{MARKER}.{uuid.uuid4().hex}"
        tmp.write_text(json.dumps({"format": FORMAT, "tables": list(TABLES)}, indent=1) + "\n")
        os.replace(tmp, marker)  # two ingests creating it at once write the same content
    return path


def require(root: str | os.PathLike[str]) -> Path:
    """``root`` as a warehouse path.

    Raises:
        WarehouseError: it is not a warehouse (no ``trtlog-warehouse.json``), or was written by
            a newer trtlog.
    """
    path = Path(root)
    marker = path / MARKER
    if not marker.is_file():
        what = "does not exist" if not path.exists() else "is not a trtlog warehouse"
        raise WarehouseError(
            f"{root} {what} (no {MARKER}): create one with `trtlog ingest FILES --to {root}`"
        )
    info = json.loads(marker.read_text())
    if int(info.get("format", 0)) > FORMAT:
        raise WarehouseError(f"{root} was written by a newer trtlog (format {info['format']})")
    return path


# -- writing a part ------------------------------------------------------------------------------


def _sync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _TableFile:
    """One Parquet file being written (flushed and synced on close)."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.file = open(path, "wb")  # noqa: SIM115  (closed by close())
        self.writer = pq.ParquetWriter(self.file, schema, compression="zstd")

    def write(self, table: pa.Table) -> None:
        self.writer.write_table(table)

    def close(self) -> None:
        self.writer.close()
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()


@dataclass
class PartWriter:
    """Writes the tables of a batch of builds into a staging folder.

    A build's rows are held until :meth:`end_build`, so that a build that fails halfway
    leaves nothing (:meth:`abort_build`); a build whose rows outgrow memory (a streamed log)
    writes them to files of its own, which an abort deletes.
    """

    folder: Path
    buffers: dict[str, list[pa.Table]] = field(default_factory=dict)
    buffered: dict[str, int] = field(default_factory=dict)
    files: dict[str, _TableFile] = field(default_factory=dict)
    pending: dict[str, list[pa.Table]] = field(default_factory=dict)
    pending_rows: dict[str, int] = field(default_factory=dict)
    spills: dict[str, _TableFile] = field(default_factory=dict)
    build_key: str = ""
    rows: dict[str, int] = field(default_factory=dict)

    def begin_build(self, key: str) -> None:
        """Start a build (``key`` names its own files, if it needs any)."""
        self.pending, self.spills, self.build_key = {}, {}, key
        self.pending_rows = {}

    def add(self, table: str, rows: pa.Table) -> None:
        """Add rows of ``table`` to the current build."""
        if rows.num_rows == 0:
            return
        rows = rows.cast(TABLES[table]) if rows.schema != TABLES[table] else rows
        pending = self.pending.setdefault(table, [])
        pending.append(rows)
        # a running count: a log of thousands of runs adds thousands of pieces to one build
        held = self.pending_rows[table] = self.pending_rows.get(table, 0) + rows.num_rows
        if held >= FLUSH_ROWS:
            spill = self.spills.get(table)
            if spill is None:
                name = f"{self.build_key.replace(':', '-')}.parquet"
                spill = self.spills[table] = _TableFile(self.folder / table / name, TABLES[table])
            for piece in pending:
                spill.write(piece)
            pending.clear()
            self.pending_rows[table] = 0

    def end_build(self) -> None:
        """The current build is whole: its rows join the batch."""
        for spill in self.spills.values():
            spill.close()
        for table, pieces in self.pending.items():
            for piece in pieces:
                self.buffers.setdefault(table, []).append(piece)
                self.buffered[table] = self.buffered.get(table, 0) + piece.num_rows
                self.rows[table] = self.rows.get(table, 0) + piece.num_rows
            if self.buffered.get(table, 0) >= FLUSH_ROWS:
                self._flush(table)
        for table, spill in self.spills.items():
            self.rows[table] = (
                self.rows.get(table, 0) + pq.ParquetFile(spill.path).metadata.num_rows
            )
        self.pending, self.spills, self.pending_rows = {}, {}, {}

    def abort_build(self) -> None:
        """Forget the current build's rows (and delete its own files)."""
        for spill in self.spills.values():
            spill.close()
            spill.path.unlink()
        self.pending, self.spills, self.pending_rows = {}, {}, {}

    def _flush(self, table: str) -> None:
        pieces = self.buffers.pop(table, [])
        self.buffered[table] = 0
        if not pieces:
            return
        out = self.files.get(table)
        if out is None:
            out = self.files[table] = _TableFile(
                self.folder / table / "part.parquet", TABLES[table]
            )
        out.write(pa.concat_tables(pieces))

    def close(self) -> None:
        """Write what is buffered and close every file (synced to disk)."""
        for table in list(self.buffers):
            self._flush(table)
        for out in self.files.values():
            out.close()
        for path in {*self.folder.glob("*/"), self.folder}:
            if path.is_dir():
                _sync_dir(path)


def _write_json(path: Path, value: Any) -> None:
    """``value`` as JSON in ``path``, written whole (temporary file, sync, rename)."""
    from trtlog._files import atomic_output

    with atomic_output(path) as out:
        out.write(json.dumps(value, indent=1) + "\n")


def write_sources(folder: Path, specs: Any) -> None:
    """Record the files of a part's builds (``specs``: its ``BuildSpec``s) in the part."""
    _write_json(
        folder / SOURCES,
        [
            {
                "source_id": s.source_id,
                "files": [[f.path, f.role, f.size, f.digest] for f in s.files],
                "grouping": s.grouping,
                "model": s.model,
                "labels": [list(label) for label in s.labels],
                "partners": list(s.partners),
            }
            for s in specs
        ],
    )


def part_sources(folder: Path) -> list[dict[str, Any]]:
    """The builds a part holds and their files (its ``sources.json``; ``[]`` if none)."""
    try:
        value = json.loads((folder / SOURCES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return value if isinstance(value, list) else []


def file_damage(path: str | os.PathLike[str], *, full: bool = False) -> str | None:
    """What is wrong with a committed Parquet file, or ``None`` when it looks whole.

    The quick check (for every query) reads its last 8 bytes: the footer's length and the
    ``PAR1`` mark a cut file lacks; ``full`` also reads its footer (what ``--repair`` does).
    """
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            if size < 12:
                return f"{size} bytes: too short for a Parquet file"
            f.seek(size - 8)
            tail = f.read(8)
            f.seek(0)
            head = f.read(4)
    except OSError as exc:
        return exc.strerror or str(exc)
    footer = int.from_bytes(tail[:4], "little")
    if head != b"PAR1" or tail[4:] != b"PAR1" or footer > size - 12:
        return "not a whole Parquet file (cut short or overwritten)"
    if full:
        try:
            pq.read_metadata(os.fspath(path))
        except (OSError, pa.ArrowException) as exc:
            return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


def broken_parts(root: str | os.PathLike[str], *, full: bool = True) -> dict[str, dict[str, str]]:
    """The committed parts with a broken file: part id -> {file path: what is wrong}."""
    out: dict[str, dict[str, str]] = {}
    for files in table_files(root).values():
        for file in files:
            damage = file_damage(file, full=full)
            if damage is not None:
                part = Path(file).parent.parent.name
                out.setdefault(part, {})[file] = damage
    return out


def new_part(root: Path) -> tuple[str, Path]:
    """A new part id and its staging folder (owned by this process, for stale-part cleanup).

    Part ids sort in the order they were made (a time prefix), so ``parts/`` lists commits
    roughly in time order.
    """
    part = f"{time.time_ns():x}-{uuid.uuid4().hex[:12]}"
    folder = root / STAGING / part
    folder.mkdir(parents=True)
    owner = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time()}
    try:
        (folder / _OWNER).write_text(json.dumps(owner))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return part, folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(root: Path) -> list[str]:
    """Remove the staging folders of ingests that died on this host (``kill -9``, a crash).

    Folders of live ingests, and of ingests on other hosts, are left alone.

    Returns:
        The part ids removed.
    """
    removed = []
    host = socket.gethostname()
    for folder in sorted((root / STAGING).glob("*")):
        try:
            owner = json.loads((folder / _OWNER).read_text())
        except (OSError, ValueError):
            owner = {"host": host, "pid": -1, "started": 0}  # half-made by a killed ingest
            if time.time() - folder.stat().st_mtime < 60:
                continue  # may be a live ingest that has not written it yet
        if owner.get("host") == host and not _alive(int(owner.get("pid", -1))):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder.name)
    return removed


# -- committed ids --------------------------------------------------------------------------------


@dataclass
class Committed:
    """The ``source_id`` of every build a warehouse holds (in ``builds`` or ``errors``)."""

    root: Path
    ids: set[str] = field(default_factory=set)
    error_ids: set[str] = field(default_factory=set)
    parts: set[str] = field(default_factory=set)

    def refresh(self) -> set[str]:
        """Read the parts committed since the last call; return every id."""
        for folder in sorted((self.root / PARTS).glob("*")):
            if folder.name in self.parts:
                continue
            try:
                self.ids.update(_ids(folder / "builds"))
                errors = _ids(folder / "errors")
            except (OSError, pa.ArrowException):
                # a broken file: the part's sources say which builds it holds (they stay
                # "present" until ``--repair`` rebuilds the part, so none is stored twice)
                self.ids.update(s["source_id"] for s in part_sources(folder))
                errors = set()
            self.error_ids.update(errors)
            self.ids.update(errors)
            self.parts.add(folder.name)
        return self.ids


def _ids(folder: Path) -> set[str]:
    out: set[str] = set()
    for file in sorted(folder.glob("*.parquet")):
        out.update(str(x) for x in pq.read_table(file, columns=["source_id"]).column(0).to_pylist())
    return out


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    with open(root / LOCK, "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _drop(folder: Path, gone: set[str]) -> None:
    """Rewrite a staged part without the builds of ``gone`` (source ids)."""
    for file in sorted(folder.glob("*/*.parquet")):
        table = pq.read_table(file)
        ids = table.column("build_id").to_pylist()
        keep = pa.array([str(i).split(":", 1)[0] not in gone for i in ids], pa.bool_())
        kept = table.filter(keep)
        if kept.num_rows == table.num_rows:
            continue
        file.unlink()
        if kept.num_rows:
            out = _TableFile(file, table.schema)
            out.write(kept)
            out.close()


def commit_part(root: Path, part: str, sources: set[str], committed: Committed) -> set[str]:
    """Commit a staged part: drop builds committed meanwhile, then rename it into ``parts/``.

    Args:
        root: the warehouse.
        part: the staged part id.
        sources: the source ids the part holds.
        committed: what this ingest knows is committed (refreshed under the lock).

    Returns:
        The source ids this commit added.
    """
    folder = root / STAGING / part
    with _locked(root):
        already = committed.refresh() & sources
        if already:
            _drop(folder, already)
        added = sources - already
        if not added:
            shutil.rmtree(folder)
            return set()
        (folder / _OWNER).unlink()
        if already and (folder / SOURCES).exists():
            kept = [s for s in part_sources(folder) if s["source_id"] in added]
            _write_json(folder / SOURCES, kept)
        os.rename(folder, root / PARTS / part)
        _sync_dir(root / PARTS)
        committed.ids.update(added)
        committed.parts.add(part)
    return added


def set_aside(root: Path, part: str) -> Path:
    """Move a committed part out of ``parts/`` (queries stop seeing it) for a repair."""
    aside = root / REPAIR / part
    aside.parent.mkdir(exist_ok=True)
    with _locked(root):
        os.rename(root / PARTS / part, aside)
        _sync_dir(root / PARTS)
    return aside


def restore(root: Path, part: str, aside: Path) -> None:
    """Put a part :func:`set_aside` back (its rebuild failed)."""
    with _locked(root):
        os.rename(aside, root / PARTS / part)
        _sync_dir(root / PARTS)


def restore_all(root: Path) -> list[str]:
    """Put back every part a repair set aside and did not finish with (it was killed)."""
    done = []
    asides = sorted((root / REPAIR).glob("*"))
    present = Committed(root).refresh() if asides else set()
    for aside in asides:
        ids = {s["source_id"] for s in part_sources(aside)}
        if ids and ids <= present:
            shutil.rmtree(aside, ignore_errors=True)  # its rebuild was committed
        else:
            restore(root, aside.name, aside)
            done.append(aside.name)
    return done


def drop_aside(aside: Path) -> None:
    """Remove a part set aside, once its builds are committed again."""
    shutil.rmtree(aside, ignore_errors=True)


# -- reading ----------------------------------------------------------------------------------


def table_files(root: str | os.PathLike[str]) -> dict[str, list[str]]:
    """The committed Parquet files of every table."""
    path = Path(root)
    return {
        table: sorted(str(p) for p in path.glob(f"{PARTS}/*/{table}/*.parquet")) for table in TABLES
    }


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


#: What a broken table's view says when a query reads it (``{table}``, ``{files}``, ``{root}``).
BROKEN_TABLE = (
    "the warehouse table {table} has a broken Parquet file: {files}; `trtlog ingest --repair "
    "--to {root}` rebuilds its part from the source files"
)


def open_warehouse(
    root: str | os.PathLike[str], *, threads: int | None = None, locked: bool = False
) -> Any:
    """A DuckDB connection (in memory) with one view per warehouse table.

    The views read the committed Parquet files directly; a view lists the files that exist
    when it is queried, so builds committed by an ingest running meanwhile appear at their
    commit, whole. A table no build has rows for yet is an empty view with its columns. A
    table with a broken file (:func:`file_damage`) is a view that fails, naming the file,
    when a query reads it; the others work, and a warning names the file.

    Args:
        root: the warehouse folder.
        threads: DuckDB's threads (default: its own choice).
        locked: for SQL from someone you do not trust (docs/security.md): the views read the
            warehouse's Parquet files through pyarrow, and DuckDB may open no file at all
            (``enable_external_access = false``: no ``read_csv``, ``COPY ... TO``, ``ATTACH``,
            ``INSTALL``/``LOAD``), read no Python variable as a table, and change no setting
            (``lock_configuration``) so the query cannot undo it.

    Raises:
        WarehouseError: ``root`` is not a warehouse.
    """
    import warnings

    import duckdb

    path = require(root).resolve()
    con: duckdb.DuckDBPyConnection = duckdb.connect(":memory:")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    files = table_files(path)
    plain = not any(c in str(path) for c in "*?[{")
    for table, schema in TABLES.items():
        broken = {f: why for f in files[table] if (why := file_damage(f)) is not None}
        good = [f for f in files[table] if f not in broken]
        if broken:
            warnings.warn(
                BROKEN_TABLE.format(
                    table=table,
                    files=", ".join(f"{f} ({why})" for f, why in broken.items()),
                    root=root,
                )
                + " (queries that do not read it are answered)",
                stacklevel=2,
            )
        if good and locked:
            # DuckDB may not open files itself: pyarrow reads them (an Arrow dataset, with
            # its columns and filters pushed down), so no path is left that SQL could use
            import pyarrow.dataset as ds

            con.register(f"_files_{table}", ds.dataset(good, format="parquet", schema=schema))
            select = f"SELECT * FROM _files_{table}"
        elif good:
            source = (
                _sql_text(f"{path}/{PARTS}/*/{table}/*.parquet")
                if plain and not broken
                else "[" + ", ".join(_sql_text(f) for f in good) + "]"
            )
            select = f"SELECT * FROM read_parquet({source}, union_by_name = true)"
        else:
            con.register(f"_empty_{table}", schema.empty_table())
            select = f"SELECT * FROM _empty_{table}"
        if broken:
            # the guard is a constant subquery: evaluated once, when a query reads the table
            message = BROKEN_TABLE.format(table=table, files=", ".join(broken), root=root)
            select += f" WHERE (SELECT error({_sql_text(message)})) IS NULL"
        con.execute(f"CREATE VIEW {table} AS {select}")
    if locked:
        con.execute("SET enable_external_access = false")
        # no Python variable of the caller's frames may be read as a table by its name
        con.execute("SET python_enable_replacements = false")
        con.execute("SET lock_configuration = true")
    return con
