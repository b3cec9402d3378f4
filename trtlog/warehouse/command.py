"""The warehouse commands of the ``trtlog`` tool: ``ingest``, ``query`` and ``trend``.

Top of the pipeline (rendering only). Each command has ``add_arguments(parser)`` and
``run(args) -> int``; exit codes as the other commands: 0 done, 1 some input files could
not be ingested (each is an ``errors`` row), 2 usage or input errors and bad queries (one
``trtlog: error: ...`` line). This module imports only the standard library at load time:
the warehouse and its packages (DuckDB, PyArrow, Dask) are imported when a command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

from trtlog._display import visible, write_csv
from trtlog._files import atomic_output

__all__ = [
    "add_ingest_arguments",
    "add_query_arguments",
    "add_trend_arguments",
    "run_ingest",
    "run_query",
    "run_trend",
]

_FORMATS = ("table", "csv", "json", "parquet")


def _fail(message: str) -> int:
    sys.stderr.write(f"trtlog: error: {visible(message)}\n")
    return 2


def _engine_errors() -> tuple[type[BaseException], ...]:
    """The error classes of DuckDB and PyArrow, of those this process has imported."""
    found: list[type[BaseException]] = []
    if "duckdb" in sys.modules:
        found.append(sys.modules["duckdb"].Error)
    if "pyarrow" in sys.modules:
        found.append(sys.modules["pyarrow"].ArrowException)
    return tuple(found)


def _guarded(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn the warehouse's usage errors, a missing extra and engine failures into exit 2.

    A DuckDB or PyArrow failure (a damaged file, an engine out of memory) is one line that
    names the warehouse, never a traceback.
    """

    def guarded(args: argparse.Namespace) -> int:
        from trtlog.errors import InputError, OutputError
        from trtlog.warehouse import MissingExtraError

        try:
            return run(args)
        except MissingExtraError as exc:
            return _fail(str(exc))
        except (InputError, OutputError) as exc:
            return _fail(exc.one_line())
        except Exception as exc:
            from trtlog.warehouse.store import WarehouseError

            if isinstance(exc, WarehouseError):
                return _fail(str(exc))
            if isinstance(exc, _engine_errors()):
                where = getattr(args, "warehouse", None) or getattr(args, "to", None) or ""
                text = _one_line(str(exc)) or type(exc).__name__
                if "launch worker thread" in text or "thread creation failed" in text:
                    text += (
                        " (hint: the limit of processes and threads is reached: raise "
                        "`ulimit -u` or the container's pids limit)"
                    )
                return _fail(f"{where}: {text}")
            raise

    guarded.__doc__ = run.__doc__
    guarded.__name__ = run.__name__
    return guarded


# -- ingest ---------------------------------------------------------------------------------


def add_ingest_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog ingest``."""
    p.add_argument(
        "inputs",
        nargs="*",
        metavar="PATH",
        help="logs and JSON exports: files, folders (searched recursively) or quoted glob "
        "patterns ('ci/**/*.log')",
    )
    p.add_argument("--to", required=True, metavar="WAREHOUSE", help="the warehouse folder")
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        "--workers",
        dest="jobs",
        type=int,
        metavar="N",
        help="read builds in a local Dask cluster of N worker processes (1: this process "
        "alone; default: one worker per CPU above 32 MB of new input, else this process)",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="run on an existing Dask cluster (tcp://host:8786); its workers must reach the "
        "inputs and the warehouse under the same paths",
    )
    p.add_argument(
        "--repair",
        action="store_true",
        help="rebuild the parts of the warehouse that hold a broken Parquet file, from their "
        "source files (no PATH needed)",
    )
    p.add_argument(
        "--manifest",
        metavar="CSV",
        help="which files form one build: columns build,path[,role,model,labels...]",
    )
    p.add_argument(
        "--stream-mb",
        type=float,
        default=256.0,
        metavar="MB",
        help="stream logs larger than this in batches of events (default 256)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="the report's format")


class _Bar:
    """``files done, MB/s, failures`` on one line of a terminal's stderr; nothing otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.shown = False

    def __call__(self, p: Any) -> None:
        if not self.enabled:
            return
        self.shown = True
        width = 24
        done = int(width * p.bytes_done / p.bytes_total) if p.bytes_total else width
        bar = "#" * done + "." * (width - done)
        self.stream.write(
            f"\rtrtlog: [{bar}] {p.files_done}/{p.files_total} files, "
            f"{p.bytes_done / 1e6:.1f} MB, {p.mb_per_s:.1f} MB/s, {p.failures} failed "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


def _is_pipe(path: str) -> bool:
    """Whether ``path`` is standard input (``-``) or names a pipe (``<(...)`` too)."""
    import stat

    try:
        return path == "-" or stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _client(args: argparse.Namespace) -> Any:
    """The Dask client of ``--scheduler`` (``None`` without it: the driver starts its own)."""
    if args.scheduler is None:
        return None
    from trtlog.warehouse import require_extra

    require_extra(dask=True)
    from distributed import Client

    return Client(args.scheduler)  # type: ignore[no-untyped-call]


def _usage(message: str) -> Exception:
    from trtlog.warehouse.store import WarehouseError

    return WarehouseError(message)


@_guarded
def run_ingest(args: argparse.Namespace) -> int:
    """Put builds (logs with their layer, profile and timing JSON) into a warehouse.

    A log and the JSON exports of the same build are grouped into one build (by a
    --manifest, the paths the log's command line names, or trtexec naming conventions).
    Ingesting the same files again adds nothing; a file that cannot be read becomes a row of
    the errors table, and the exit status is 1.
    """
    from trtlog.warehouse import require_extra

    require_extra()
    from trtlog.warehouse.driver import ingest as run_ingest
    from trtlog.warehouse.driver import repair

    if args.repair and (args.inputs or args.manifest):
        return _fail(
            "--repair rebuilds the broken parts of --to from their own source files: "
            "give no PATH or --manifest with it"
        )
    if not args.inputs and not args.manifest and not args.repair:
        return _fail("ingest needs files, folders or patterns (or --manifest, or --repair)")
    for path in args.inputs:
        if _is_pipe(path):
            # a build's files are found, grouped and re-read by their paths, and kept by their
            # digests: a pipe has no path to keep and can be read only once
            return _fail(
                f"{path}: ingest reads files (the warehouse keeps each one's path and "
                "digest), not standard input or a pipe: save it to a file first"
            )
    if args.jobs is not None and args.jobs < 1:
        return _fail("--jobs needs at least 1")
    client = _client(args)
    bar = _Bar(sys.stderr)
    try:
        if args.repair:
            report = repair(
                args.to,
                client=client,
                jobs=args.jobs,
                stream_bytes=args.stream_mb * 1e6,
                progress=bar,
            )
        else:
            report = run_ingest(
                args.inputs,
                to=args.to,
                client=client,
                jobs=args.jobs,
                manifest=args.manifest,
                stream_bytes=args.stream_mb * 1e6,
                progress=bar,
            )
    finally:
        bar.close()
        if client is not None:
            client.close()
    for pattern in report.unmatched:
        sys.stderr.write(f"trtlog: warning: {visible(pattern)} matches no file\n")
    if args.repair and not report.repaired:
        sys.stdout.write(f"{visible(report.warehouse)}: no broken part to repair\n")
        return 0
    if report.files == 0:
        return _fail("no input file found: " + ", ".join(args.inputs))
    out = sys.stdout
    if args.format == "json":
        data = {
            "warehouse": report.warehouse,
            "files": report.files,
            "builds": report.builds,
            "ingested": report.ingested,
            "builds_rows": report.builds_rows,
            "present": report.present,
            "present_failures": report.present_failures,
            "failed_files": len(report.failures),
            "failures": [{"path": p, "message": m} for p, m in report.failures],
            "rows": report.rows,
            "input_bytes": report.input_bytes,
            "seconds": report.seconds,
            "mb_per_s": report.mb_per_s,
            "executor": report.executor,
            "raced": report.raced,
            "repaired": report.repaired,
        }
        out.write(json.dumps(data, indent=1) + "\n")
    else:
        out.write(report.describe() + "\n")
    if report.failures:
        for path, message in report.failures[:5]:
            line = message if path in message else path + ": " + message
            sys.stderr.write(f"trtlog: failed: {visible(line)}\n")
        more = len(report.failures) - 5
        if more > 0:
            sys.stderr.write(f"trtlog: ... and {more} more (SELECT * FROM errors)\n")
        sys.stderr.write(
            f"trtlog: {len(report.failures)} file(s) failed to ingest (rows of the errors table)\n"
        )
        return 1
    return 0


# -- query ----------------------------------------------------------------------------------


def add_query_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog query``."""
    p.add_argument("warehouse", help="the warehouse folder")
    p.add_argument("sql", help="a DuckDB query over the tables (builds, layers, tactics, ...)")
    p.add_argument("--format", choices=_FORMATS, default="table", help="output format")
    p.add_argument(
        "--csv-raw",
        action="store_true",
        help="--format csv: write text cells exactly, without the quote that keeps a spreadsheet "
        "from running cells starting with = + - @ as formulas",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the result here (parquet: needed on a terminal)",
    )
    p.add_argument(
        "--locked",
        action="store_true",
        help="for SQL you did not write: the query may read the warehouse's tables only (no "
        "other file, no COPY TO, ATTACH, INSTALL or LOAD, no setting changed; "
        "docs/security.md)",
    )
    p.add_argument(
        "--max-rows",
        type=int,
        default=200,
        metavar="N",
        help="table format: show at most N rows, and say how many more (default 200)",
    )


def _one_line(message: str) -> str:
    """DuckDB's message on one line (its caret excerpt folded in)."""
    from trtlog.warehouse.store import BROKEN_TABLE

    broken = BROKEN_TABLE.split("{", 1)[0]
    if broken in message:  # the warehouse's own message: without DuckDB's prefix
        message = message[message.index(broken) :]
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    head = [line for line in lines if not line.startswith(("LINE ", "^"))]
    where = next((line for line in lines if line.startswith("LINE ")), None)
    text = " ".join(head)
    return f"{text} ({where})" if where else text


@_guarded
def run_query(args: argparse.Namespace) -> int:
    """Run SQL over a warehouse with DuckDB (tables: builds, layers, tactics, passes, ...).

    The tables are views over the warehouse's Parquet files (see docs/warehouse.md). A query
    DuckDB refuses exits with status 2 and DuckDB's message.
    """
    from trtlog.warehouse import require_extra

    require_extra()
    import duckdb

    from trtlog.warehouse.store import open_warehouse

    con = open_warehouse(args.warehouse, locked=args.locked)
    try:
        relation = con.sql(args.sql)
        if relation is None:
            return 0  # a statement without result (SET, CREATE VIEW ...)
        table = relation.arrow()
    except duckdb.Error as exc:
        return _fail(f"query failed: {_one_line(str(exc))}")
    if hasattr(table, "read_all"):  # DuckDB may hand a record batch reader
        table = table.read_all()
    return _write(table, args)


def _write(table: Any, args: argparse.Namespace) -> int:
    fmt = args.format
    if fmt == "parquet":
        import pyarrow.parquet as pq

        if args.output is None and sys.stdout.isatty():
            return _fail("--format parquet writes binary: give -o FILE (or redirect stdout)")
        if not args.output:
            pq.write_table(table, sys.stdout.buffer, compression="zstd")
            return 0
        with atomic_output(args.output, binary=True) as sink:  # whole or not at all
            pq.write_table(table, sink, compression="zstd")
        if not getattr(args, "quiet", False):
            sys.stderr.write(f"trtlog: wrote {table.num_rows} rows to {visible(args.output)}\n")
        return 0
    with contextlib.ExitStack() as stack:
        out: Any = (
            stack.enter_context(atomic_output(args.output, newline=""))
            if args.output
            else sys.stdout
        )
        _write_text(table, out, args)
    return 0


def _write_text(table: Any, out: TextIO, args: argparse.Namespace) -> None:
    frame = table.to_pandas(types_mapper=_types_mapper())
    if args.format == "csv":
        write_csv(frame, out, raw=getattr(args, "csv_raw", False))
    elif args.format == "json":
        out.write(
            frame.to_json(orient="records", indent=1, force_ascii=False, date_format="iso") + "\n"
        )
    else:
        _table(frame, out, getattr(args, "max_rows", None))


def _types_mapper() -> Any:
    import pandas as pd
    import pyarrow as pa

    mapping = {
        pa.int64(): pd.Int64Dtype(),
        pa.int32(): pd.Int64Dtype(),
        pa.uint64(): pd.UInt64Dtype(),
    }
    return mapping.get


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if value != value else f"{value:.6g}"
    if hasattr(value, "tolist"):
        value = value.tolist()
    text = visible(str(value))  # one line, terminal controls as escapes
    if text in ("<NA>", "nan", "NaT", "None"):
        return ""
    return text if len(text) <= 60 else text[:59] + "…"


def _table(frame: Any, out: TextIO, max_rows: int | None) -> None:
    shown = frame if max_rows is None or len(frame) <= max_rows else frame.head(max_rows)
    headers = [str(c) for c in frame.columns]
    cells = [[_cell(v) for v in row] for row in shown.itertuples(index=False, name=None)]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    out.write("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in cells:
        out.write("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n")
    if len(shown) < len(frame):
        sys.stderr.write(
            f"trtlog: note: {len(frame) - len(shown)} more row(s) not shown (--max-rows, "
            "--format csv, or LIMIT)\n"
        )


# -- trend ----------------------------------------------------------------------------------


def add_trend_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog trend``."""
    p.add_argument("warehouse", help="the warehouse folder")
    p.add_argument("--model", required=True, help="the model (builds.model, e.g. yolov8s)")
    p.add_argument(
        "--by",
        default="trt_version",
        metavar="COLUMN",
        help="order builds by this builds column (default trt_version, as version numbers)",
    )
    p.add_argument("--where", metavar="SQL", help="an extra condition on builds")
    p.add_argument(
        "--group-by",
        default="shape,precision",
        metavar="WHAT",
        help="compare builds only within groups of one shape (shapes or batch), one precision "
        "(the Precision: option, else the engine's layer precisions), both (the default: "
        "shape,precision) or neither (none)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=10.0,
        metavar="PCT",
        help="the least change, in percent, that counts as a jump (default 10)",
    )
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument(
        "--csv-raw",
        action="store_true",
        help="--format csv: write text cells exactly, without the quote that keeps a spreadsheet "
        "from running cells starting with = + - @ as formulas",
    )
    p.add_argument(
        "--plot", metavar="IMAGE", help="also draw the figures into this image (.png, .svg)"
    )


@_guarded
def run_trend(args: argparse.Namespace) -> int:
    """How the builds of one model moved (layers, fusions, Q/DQ, precisions, times, size).

    One row per build, ordered by --by, and for each figure the build where it jumped.
    """
    from trtlog.warehouse import require_extra

    require_extra()
    import duckdb

    from trtlog.warehouse.store import open_warehouse
    from trtlog.warehouse.trends import trend as make_trend

    if args.plot:
        _check_image(args.plot)
    con = open_warehouse(args.warehouse)
    try:
        groups = [g.strip() for g in args.group_by.split(",") if g.strip() not in ("", "none")]
        result = make_trend(
            con,
            args.model,
            by=args.by,
            where=args.where,
            threshold=args.threshold / 100,
            group_by=groups,
        )
    except duckdb.Error as exc:
        return _fail(f"query failed: {_one_line(str(exc))}")
    out = sys.stdout
    if args.format == "csv":
        write_csv(result.frame, out, raw=args.csv_raw)
    elif args.format == "json":
        data = {
            "model": result.model,
            "by": result.by,
            "builds": json.loads(result.frame.to_json(orient="records")),
            "jumps": [j.__dict__ for j in result.jumps],
        }
        out.write(json.dumps(data, indent=1, default=str) + "\n")
    else:
        out.write(result.to_text())
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        from trtlog.warehouse.trends import plot_trend

        axes = plot_trend(result.frame)
        if axes:
            from trtlog._files import atomic_output

            suffix = os.path.splitext(args.plot)[1].lower().lstrip(".")
            with atomic_output(args.plot, binary=True) as image:  # whole or not at all
                axes[0].get_figure().savefig(  # type: ignore[union-attr]
                    image, dpi=110, format="jpeg" if suffix == "jpg" else suffix
                )
            if not getattr(args, "quiet", False):
                sys.stderr.write(f"trtlog: wrote {visible(args.plot)}\n")
    return 0


def _check_image(path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _usage(f"{path}: the folder {folder} does not exist")
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".png", ".svg", ".pdf", ".jpg", ".jpeg"):
        raise _usage(f"{path}: name the image .png, .svg, .pdf or .jpg")
