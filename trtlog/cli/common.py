"""What the commands share: opening inputs, picking a run, tables and frames on stdout.

Part of the command-line package (argparse; nothing heavy at import). Every command opens its
inputs through :func:`open_file` (``trtlog.inputs.open_input`` with a progress display on a
terminal) and works on one trtexec run of a log (:func:`select_run`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from trtlog._display import clip, number, visible, write_csv
from trtlog.errors import TrtlogError

__all__ = [
    "LOGGING_OPTIONS",
    "Progress",
    "UsageError",
    "add_csv_option",
    "add_run_option",
    "add_run_options",
    "cell",
    "check_regex",
    "compare_sides",
    "engine_of_log",
    "export_of",
    "graph_of",
    "load_engine",
    "log_for",
    "logging_options",
    "open_file",
    "output_folder",
    "parse_log",
    "select_build",
    "select_run",
    "side",
    "table",
    "write_frame",
]


class UsageError(TrtlogError):
    """A command-line usage error (exit code 2)."""


class Progress:
    """A one-line progress display on stderr, only for a terminal and only after a second."""

    def __init__(self, stream: TextIO) -> None:
        self.total = 0
        self.stream = stream
        self.enabled = stream.isatty()
        self.start = time.monotonic()
        self.shown = False
        self.last = 0.0

    def update(self, done: int, total: int) -> None:
        """Show the share read so far (``done`` of ``total`` characters)."""
        if not self.enabled:
            return
        self.total = total
        now = time.monotonic()
        if now - self.start < 1.0 or now - self.last < 0.1:
            return
        self.last = now
        self.shown = True
        if self.total:
            pct = min(100.0, 100.0 * done / self.total)
            self.stream.write(f"\rtrtlog: reading {pct:5.1f}% ")
        else:
            self.stream.write(f"\rtrtlog: reading {done / 1e6:.1f} MB ")
        self.stream.flush()

    def close(self) -> None:
        """Clear the progress line, if one was shown."""
        if self.shown:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()


def open_file(path: str, **options: Any) -> Any:
    """Open a command's input (trtlog.inputs.open_input), with progress on a terminal."""
    from trtlog.inputs import open_input

    progress = Progress(sys.stderr)
    try:
        return open_input(path, progress=progress.update, **options)
    finally:
        progress.close()


def parse_log(path: str) -> Any:
    """Parse a log for the CLI (``-`` reads standard input), with progress on a terminal."""
    return open_file(path, want=("log",)).build


def add_run_option(p: argparse.ArgumentParser) -> None:
    """Add ``--run N`` and ``--build N`` (1-based) to a command that reads one log."""
    p.add_argument(
        "--run",
        type=int,
        metavar="N",
        dest="run_number",
        help="the trtexec run to use when the file holds several (1 = the first; default: "
        "the last, with a note on stderr)",
    )
    p.add_argument(
        "--build",
        type=int,
        metavar="N",
        dest="build_number",
        help="the engine build of that run to use when it holds several (a program calling "
        "build_serialized_network more than once; 1 = the first; default: the last)",
    )


def add_csv_option(p: argparse.ArgumentParser) -> None:
    """Add ``--csv-raw`` to a command with ``--format csv``."""
    p.add_argument(
        "--csv-raw",
        action="store_true",
        help="--format csv: write text cells exactly, without the quote that keeps a spreadsheet "
        "from running cells starting with = + - @ as formulas",
    )


def add_run_options(p: argparse.ArgumentParser) -> None:
    """Add ``--run-a N``, ``--run-b N``, ``--build-a N``, ``--build-b N`` (two builds read)."""
    for side in ("a", "b"):
        p.add_argument(
            f"--run-{side}",
            type=int,
            metavar="N",
            help=f"the trtexec run of {side.upper()} when its log holds several (1 = the first; "
            "default: the last)",
        )
        p.add_argument(
            f"--build-{side}",
            type=int,
            metavar="N",
            help=f"the engine build of {side.upper()}'s run when it holds several (1 = the "
            "first; default: the last)",
        )


def select_run(
    build: Any, args: argparse.Namespace, *, quiet: bool = False, builds: bool = True
) -> Any:
    """The build of the run ``--run N`` names (1-based), or of the last run, saying so.

    A file with several trtexec runs (sweeps, a build then an inference run, two models) is
    never mixed: every command works on one run. Without ``--run`` that is the last one, and
    a note on stderr says which and how to pick another. Then one engine build of that run
    (:func:`select_build`), unless ``builds`` is false (the whole run).
    """
    if not builds:
        args = argparse.Namespace(**{**vars(args), "build_number": None})
        pick = _whole_run
    else:
        pick = select_build
    runs = build.runs
    number: int | None = getattr(args, "run_number", None)
    quiet = quiet or bool(getattr(args, "quiet", False))
    if number is not None:
        if not 1 <= number <= max(len(runs), 1):
            raise UsageError(
                f"--run {number}: the log has {len(runs)} trtexec run(s), numbered from 1"
            )
        return pick(build.for_run(number - 1) if runs else build, args, quiet=quiet)
    if len(runs) <= 1:
        return pick(build, args, quiet=quiet)
    last = runs[-1]
    if not quiet:
        sys.stderr.write(
            f"trtlog: note: the log holds {len(runs)} trtexec runs; using run {len(runs)} "
            f"(lines {last.first_line}-{last.last_line}); --run N picks another\n"
        )
    return pick(build.for_run(len(runs) - 1), args, quiet=quiet)


def _whole_run(run: Any, args: argparse.Namespace, *, quiet: bool = False) -> Any:
    """The run itself, every engine build of it (``select_run(..., builds=False)``)."""
    return run


def select_build(run: Any, args: argparse.Namespace, *, quiet: bool = False) -> Any:
    """The engine build ``--build N`` names (1-based) of one run, or its last, saying so.

    ``run`` is a log of one run (:func:`select_run` picks it). A run that built several
    engines (a program calling ``build_serialized_network`` more than once) is never mixed:
    the command works on one build, the last unless ``--build N`` names another.
    """
    builds = run.builds
    number: int | None = getattr(args, "build_number", None)
    if number is not None:
        if not 1 <= number <= max(len(builds), 1):
            raise UsageError(
                f"--build {number}: the run has {max(len(builds), 1)} engine build(s), "
                "numbered from 1"
            )
        return run.for_build(number - 1) if builds else run
    if len(builds) <= 1:
        return run
    last = builds[-1]
    if not quiet:
        sys.stderr.write(
            f"trtlog: note: the run holds {len(builds)} engine builds; using build "
            f"{len(builds)} (lines {last.first_line}-{last.last_line}); --build N picks "
            "another\n"
        )
    return run.for_build(len(builds) - 1)


def log_for(path: str, args: argparse.Namespace) -> Any:
    """Parse a log and keep the run the command works on (see :func:`select_run`)."""
    return select_run(parse_log(path), args)


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str], out: TextIO) -> None:
    """Write ``rows`` under ``headers`` as a plain text table, columns padded.

    Cells are shown on one line with terminal controls as escapes (``trtlog._display.visible``):
    a newline in a name cannot make a row of its own.
    """
    cells = [[visible(str(h)) for h in headers]]
    cells += [["" if v is None else visible(str(v)) for v in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for j, row in enumerate(cells):
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
        if j == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")


def cell(value: Any) -> str:
    """A value as a table cell: numbers to 4 significant digits, NaN and None empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if value != value else number(value)
    text = str(value)
    return "" if text in ("<NA>", "nan") else clip(text, 70)


def write_frame(frame: Any, fmt: str, *, csv_raw: bool = False) -> None:
    """Write a frame to stdout as JSON records, CSV (guarded unless ``csv_raw``) or a table."""
    out = sys.stdout
    if fmt == "json":
        out.write(frame.to_json(orient="records", indent=1, force_ascii=False) + "\n")
    elif fmt == "csv":
        write_csv(frame, out, raw=csv_raw)
    else:
        cells = [[cell(v) for v in record] for record in frame.itertuples(index=False, name=None)]
        table(cells, list(frame.columns), out)


def output_folder(path: str) -> None:
    """Refuse an output path whose folder does not exist, before any work is done."""
    from pathlib import Path

    folder = Path(path).expanduser().parent
    if not folder.is_dir():
        raise UsageError(
            f"cannot write {path}: the folder {folder} does not exist (create it first)"
        )


def check_regex(pattern: str, option: str) -> None:
    """Refuse an invalid regular expression before any work is done."""
    import re

    try:
        re.compile(pattern)
    except re.error as exc:
        raise UsageError(
            f"{option} {pattern!r} is not a valid regular expression ({exc})"
        ) from None


def logging_options() -> argparse.ArgumentParser:
    """-v/-q and --version again for every subcommand (``trtlog layers x.json -q``).

    main() adds the -v/-q of both places up. ``--version`` prints the version and exits 0
    wherever it stands (``trtlog summary --version``), as git, pip and ruff do: a user who
    types it after the command wants the version, not a usage error.
    """
    from trtlog._version import __version__

    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("--version", action="version", version=f"trtlog {__version__}")
    options.add_argument(
        "-v",
        "--verbose",
        dest="sub_verbose",
        action="count",
        default=argparse.SUPPRESS,
        help="more logging (-vv: debug)",
    )
    options.add_argument(
        "-q",
        "--quiet",
        dest="sub_quiet",
        action="store_true",
        default=argparse.SUPPRESS,
        help="only errors (hides warnings)",
    )
    return options


def export_of(path: str) -> Any:
    """What a file holds: a layer JSON (an Engine), a profile, a timing trace, or a log.

    JSON is recognised whatever trtexec or a shell made of it: ``.gz``, a UTF-8 BOM, UTF-16
    (PowerShell), and on standard input (``-``) too.
    """
    opened = open_file(path)
    return opened.build or opened.engine or opened.profile or opened.times


def engine_of_log(build: Any, path: str) -> Any:
    """A log's engine: its layer dump, else its placement lines, else its autotuned layers."""
    from trtlog.engine.from_log import final_layers

    engine = final_layers(build)
    if engine is None:
        from trtlog.findings.advice import detailed_flag_for

        version = build.trt_version or None
        # the flags of the log's version (5.x-8.1 trtexec has no --profilingVerbosity)
        raise UsageError(
            f"{path}: the log has no layer dump, no layer placement lines and no autotuned "
            f"layers (build with {detailed_flag_for(version)} and --dumpLayerInfo, or pass the "
            "--exportLayerInfo "
            "JSON)"
        )
    return engine


def load_engine(args: argparse.Namespace, found: Any = None) -> Any:
    """The engine of ``args.file`` (a layer JSON or a log's run), with its profile."""
    from trtlog.engine.model import Engine, Profile, Times
    from trtlog.exports.profile import load_profile
    from trtlog.exports.times import load_times

    path = args.file
    found = export_of(path) if found is None else found
    if isinstance(found, Profile | Times):
        what = "a per-layer profile" if isinstance(found, Profile) else "a timing trace"
        raise UsageError(
            f"{path} is {what}, not layers: `trtlog layers {path}` shows it; pass it with "
            "--profile/--times next to the layer JSON or log"
        )
    if isinstance(found, Engine):
        if getattr(args, "run_number", None) is not None:
            raise UsageError("--run picks a run of a log; the file given is a layer JSON")
        engine = found
    else:
        build = select_run(found, args)
        if build.engine is None and len(found.runs) > 1:
            others = [i + 1 for i in range(len(found.runs)) if found.for_run(i).engine is not None]
            if others:
                raise UsageError(
                    f"{path}: the log has no layer dump in that run (run(s) "
                    f"{', '.join(map(str, others))} have one: --run N)"
                )
        engine = engine_of_log(build, path)
    if args.profile:
        engine = engine.with_profile(load_profile(args.profile))
    if args.times:
        engine = engine.model_copy(update={"times": load_times(args.times)})
    return engine


def compare_sides(args: argparse.Namespace) -> Any:
    """``trtlog.compare`` of the two sides of ``diff`` (and ``plot diff``)."""
    from trtlog.diff import compare

    a = side(args.a, args.run_a, args, getattr(args, "build_a", None))
    b = side(args.b, args.run_b, args, getattr(args, "build_b", None))
    return compare(a, b, profile_a=args.profile_a, profile_b=args.profile_b)


def side(path: str, run: int | None, args: argparse.Namespace, build: int | None = None) -> Any:
    """One side of a comparison: a log's run as a build, a layer JSON as the input opened.

    Opened once (standard input, ``-``, and a named pipe, ``<(zcat a.layers.json.gz)``, can
    be read only once), and told apart by its first bytes (:func:`open_file`).
    """
    opened = open_file(path, want=("log", "layers"))
    if opened.build is None:
        if run is not None or build is not None:
            what = "standard input is JSON" if path == "-" else f"{path} is a layer JSON"
            raise UsageError(f"--run-a/--run-b/--build-a/--build-b pick a run of a log; {what}")
        return opened
    return select_run(
        opened.build, argparse.Namespace(run_number=run, build_number=build, quiet=args.quiet)
    )


def graph_of(args: argparse.Namespace) -> Any:
    """The merge graph of ``args.file`` (one run), with the ``--layers`` JSON if given."""
    build = log_for(args.file, args)
    engine = None
    if args.layers:
        from trtlog.exports.layers import load_engine

        engine = load_engine(args.layers)
    return build.merge_graph(engine)


LOGGING_OPTIONS = logging_options()
