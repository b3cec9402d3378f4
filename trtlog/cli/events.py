"""``trtlog events``: the typed events of a log, one per line (part of the command-line package)."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from trtlog._display import clip, csv_cell
from trtlog.cli.common import (
    UsageError,
    add_csv_option,
    parse_log,
    select_run,
    table,
)

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog events``."""
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
    add_csv_option(p)
    p.add_argument(
        "--run",
        type=int,
        metavar="N",
        dest="run_number",
        help="only the events of this trtexec run (1 = the first; default: every line)",
    )
    p.add_argument(
        "--build",
        type=int,
        metavar="N",
        dest="build_number",
        help="only the events of this engine build of the run (1 = the first; default: the "
        "whole run)",
    )


def run(args: argparse.Namespace) -> int:
    """The typed events of a log, one per line (filter with --kind)."""
    from trtlog.events import check_kinds

    try:
        check_kinds(args.kind)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    build = parse_log(args.log)
    # the events of every line unless a run (or an engine build of one) is asked for
    if args.run_number is not None or args.build_number is not None:
        build = select_run(build, args, builds=args.build_number is not None)
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
            row = [first, last, kind, sev or "", json.dumps(d)]
            writer.writerow(row if args.csv_raw else [csv_cell(v) for v in row])
        return 0
    table_rows = [
        (first, kind, sev or "", clip(json.dumps(d, ensure_ascii=False), 110))
        for first, _last, kind, sev, d in rows
    ]
    table(table_rows, ["line", "kind", "severity", "fields"], out)
    return 0
