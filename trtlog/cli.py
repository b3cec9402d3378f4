"""The ``trtlog`` command-line tool: one subcommand per task, rendering only.

Top of the pipeline (STYLE.md §9). Each subcommand has a setup function (its arguments) and a
run function (returns the exit code). Exit codes: 0 success, 1 findings at or above
``--fail-on``, 2 usage errors and input that cannot be read (one line on stderr, no
traceback). Heavy modules (pandas, matplotlib) are imported inside the subcommands that use
them, so ``trtlog --help`` stays fast.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TextIO

from trtlog import __version__
from trtlog.errors import InputError, TrtlogError

__all__ = ["main"]

log = logging.getLogger("trtlog")

Runner = Callable[[argparse.Namespace], int]
_COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Runner]] = {}


def command(name: str) -> Callable[[Runner], Runner]:
    """Register a subcommand: the run function's docstring is its help."""

    def register(run: Runner) -> Runner:
        setup = globals()[f"_setup_{name}"]
        _COMMANDS[name] = (setup, run)
        return run

    return register


# -- progress ------------------------------------------------------------------------------


class _Progress:
    """A one-line progress display on stderr, only for a terminal and only after a second."""

    def __init__(self, total: int | None, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.enabled = stream.isatty()
        self.start = time.monotonic()
        self.shown = False
        self.last = 0.0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
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
        if self.shown:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()


def _counting(lines: Iterable[str], progress: _Progress) -> Iterator[str]:
    done = 0
    for i, line in enumerate(lines):
        done += len(line)
        if i % 4096 == 0:
            progress.update(done)
        yield line


def _parse_log(path: str) -> Any:
    """Parse a log for the CLI (``-`` reads standard input), with progress on a terminal."""
    from trtlog.build import _build, _meta
    from trtlog.parse.source import iter_lines, open_lines, read_all

    opened = open_lines(path)
    text = read_all(opened)
    progress = _Progress(len(text), sys.stderr)
    try:
        return _build(
            text, _meta(opened.info), strict=False, lines=_counting(iter_lines(text), progress)
        )
    finally:
        progress.close()


# -- output helpers ------------------------------------------------------------------------


def _table(rows: Sequence[Sequence[Any]], headers: Sequence[str], out: TextIO) -> None:
    cells = [[str(h) for h in headers]] + [["" if v is None else str(v) for v in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for j, row in enumerate(cells):
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
        if j == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")


def _fmt_seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g} s"


def _fmt_bytes(value: float | None) -> str:
    if value is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"  # pragma: no cover


# -- summary -------------------------------------------------------------------------------


def _setup_summary(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", help="a trtexec log (.gz is fine; - reads standard input)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")


@command("summary")
def run_summary(args: argparse.Namespace) -> int:
    """One screen about a build: what was built, how, and what happened."""
    from trtlog.summary import summarize

    build = _parse_log(args.log)
    summary = summarize(build)
    if args.format == "json":
        sys.stdout.write(summary.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(summary.to_text())
    return 0


# -- events --------------------------------------------------------------------------------


def _setup_events(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", help="a trtexec log (.gz is fine; - reads standard input)")
    p.add_argument(
        "--kind", action="append", default=[], help="only events of this kind (repeatable)"
    )
    p.add_argument(
        "--format",
        choices=("table", "json", "jsonl", "csv"),
        default="table",
        help="output format (default: table)",
    )


@command("events")
def run_events(args: argparse.Namespace) -> int:
    """The typed events of a log, one per line (filter with --kind)."""
    from trtlog.events import EVENT_CLASSES

    unknown = [k for k in args.kind if k not in EVENT_CLASSES]
    if unknown:
        raise _UsageError(
            f"unknown event kind {unknown[0]!r}; known kinds: {', '.join(sorted(EVENT_CLASSES))}"
        )
    build = _parse_log(args.log)
    events = build.events_of(*args.kind) if args.kind else build.events
    out = sys.stdout
    if args.format in ("json", "jsonl"):
        dumps = [e.model_dump(mode="json") for e in events]
        if args.format == "json":
            json.dump(dumps, out, indent=1)
            out.write("\n")
        else:
            for d in dumps:
                out.write(json.dumps(d) + "\n")
        return 0
    rows = []
    for e in events:
        d = e.model_dump(mode="json", exclude={"kind", "span", "severity"})
        rows.append((e.span[0], e.span[1], e.kind, e.severity, d))
    if args.format == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["first_line", "last_line", "kind", "severity", "fields"])
        for first, last, kind, sev, d in rows:
            writer.writerow([first, last, kind, sev or "", json.dumps(d)])
        return 0
    table_rows = [
        (first, kind, sev or "", _short(json.dumps(d, ensure_ascii=False), 110))
        for first, _last, kind, sev, d in rows
    ]
    _table(table_rows, ["line", "kind", "severity", "fields"], out)
    return 0


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# -- main ----------------------------------------------------------------------------------


class _UsageError(TrtlogError):
    """A command-line usage error (exit code 2)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trtlog",
        description="Explanations of TensorRT build output (trtexec logs, layer and profile JSON).",
    )
    parser.add_argument("--version", action="version", version=f"trtlog {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    parser.add_argument("-q", "--quiet", action="store_true", help="only errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (setup, run) in _COMMANDS.items():
        doc = (run.__doc__ or "").strip()
        p = sub.add_parser(name, help=doc.split("\n")[0], description=doc)
        setup(p)
        p.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    level = logging.ERROR if args.quiet else logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="trtlog: %(levelname)s: %(message)s", stream=sys.stderr)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        code: int = args.run(args)
        return code
    except InputError as exc:
        sys.stderr.write(f"trtlog: error: {exc.one_line()}\n")
        return 2
    except _UsageError as exc:
        sys.stderr.write(f"trtlog: error: {exc}\n")
        return 2
    except BrokenPipeError:  # `trtlog events big.log | head`
        sys.stderr.close()
        return 0
