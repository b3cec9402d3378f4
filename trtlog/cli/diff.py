"""``trtlog diff``: compare two builds (part of the command-line package)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from trtlog._display import write_csv
from trtlog.cli.common import (
    UsageError,
    add_csv_option,
    add_run_options,
    cell,
    compare_sides,
    table,
)

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog diff``."""
    p.add_argument("a", help="build A (the reference): a trtexec log or a layer-info JSON")
    p.add_argument("b", help="build B: a trtexec log or a layer-info JSON")
    add_run_options(p)
    p.add_argument("--profile-a", help="an --exportProfile JSON for A (times per layer)")
    p.add_argument("--profile-b", help="an --exportProfile JSON for B")
    p.add_argument(
        "--format", choices=("text", "json", "csv"), default="text", help="output format"
    )
    add_csv_option(p)
    p.add_argument(
        "--view",
        choices=("steps", "onnx", "summary"),
        default="steps",
        help="steps: one row per aligned pair, then the summary (default); onnx: one row per "
        "ONNX node; summary: the summary only",
    )
    p.add_argument(
        "--only",
        choices=("all", "changed"),
        default="all",
        help="changed: leave out the rows that are the same on both sides",
    )
    p.add_argument("--width", type=int, help="line width of the text table (default: terminal)")
    p.add_argument("--column-size", type=int, help="width of each side's column in the table")
    p.add_argument("--no-summary", action="store_true", help="text: the table without summary")


def run(args: argparse.Namespace) -> int:
    """Compare two builds: layers aligned by name and structure, fusions, precisions, times.

    Two logs without layer dumps compare their run and build figures (throughput, latency,
    build time, engine size, memory); when the layers fail to align, only the totals by
    layer type and precision are shown in text (the rows stay in --format csv|json).
    """
    import shutil

    cmp = compare_sides(args)
    out = sys.stdout
    changed = args.only == "changed"
    migration = _migration(cmp)  # 10 → 11 (strongly typed): shown first
    if migration is not None and args.format == "text":
        out.write(migration.to_text() + "\n")
    if args.view == "summary":
        summary = cmp.summary()
        if args.format == "csv":
            raise UsageError("the summary has no CSV form; use --format text or json")
        if args.format == "json" and migration is not None:
            data = {
                "migration": migration.model_dump(mode="json"),
                **summary.model_dump(mode="json"),
            }
            out.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        elif args.format == "json":
            out.write(summary.model_dump_json(indent=1) + "\n")
        else:
            out.write(summary.to_text())
        return 0
    if args.format == "text" and args.view == "steps" and (not cmp.aligned or cmp.alignment_failed):
        # no rows worth a table: layers not aligned (the summary says what was compared)
        out.write(cmp.summary().to_text())
        return 0
    frame = cmp.onnx_frame() if args.view == "onnx" else cmp.frame()
    if changed:
        keep = frame["fusion"] != "same" if args.view == "onnx" else frame["marker"] != "="
        if args.view == "onnx":
            keep |= frame["precision_a"].fillna("") != frame["precision_b"].fillna("")
        frame = frame[keep]
    if args.format == "csv":
        write_csv(frame, out, raw=args.csv_raw)
        return 0
    if args.format == "json":
        if args.view == "steps" and not changed:
            text = cmp.to_json()
            if migration is not None:
                data = {"migration": migration.model_dump(mode="json"), **json.loads(text)}
                text = json.dumps(data, indent=1, ensure_ascii=False)
            out.write(text + "\n")
        else:
            out.write(frame.to_json(orient="records", indent=1, force_ascii=False) + "\n")
        return 0
    width = args.width
    if width is None and out.isatty():
        width = shutil.get_terminal_size().columns
    if args.view == "onnx":
        columns = ["node", "kind", "layer_a", "layer_b", "precision_a", "precision_b", "fusion"]
        cells = [[cell(v) for v in r] for r in frame[columns].itertuples(index=False, name=None)]
        table(cells, columns, out)
        return 0
    out.write(cmp.to_text(column_size=args.column_size, width=width, only_changed=changed))
    if not args.no_summary:
        out.write("\n" + cmp.summary().to_text())
    return 0


def _migration(cmp: Any) -> Any:
    """The 10 → 11 migration check when the two sides cross the strong-typing line."""
    from trtlog.diff import is_migration, migration_check

    return migration_check(cmp) if is_migration(cmp) else None
