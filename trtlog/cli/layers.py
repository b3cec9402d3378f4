"""``trtlog layers``: the engine's layers, optionally grouped (part of the command-line package)."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from trtlog._display import number, write_csv
from trtlog.cli.common import (
    UsageError,
    add_csv_option,
    add_run_option,
    cell,
    export_of,
    load_engine,
    table,
    write_frame,
)

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog layers``."""
    p.add_argument("file", help="a layer-info JSON (--exportLayerInfo) or a log with a layer dump")
    p.add_argument("--profile", help="an --exportProfile JSON to merge (times per layer)")
    p.add_argument("--times", help="an --exportTimes JSON (summarised under the table)")
    p.add_argument(
        "--group-by",
        choices=("type", "precision", "module", "myelin"),
        help="aggregate layers (count, time, share) instead of listing them",
    )
    p.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format"
    )
    add_csv_option(p)
    add_run_option(p)


def run(args: argparse.Namespace) -> int:
    """The engine's layers (from a layer JSON or a log's layer dump), optionally grouped.

    A profile (--exportProfile) or a timing trace (--exportTimes) given alone is shown too:
    its records with their times, or the trace's statistics.
    """
    import pandas as pd

    from trtlog.engine.model import Profile, Times, time_by_key, total_of

    found = export_of(args.file)
    if isinstance(found, Profile | Times):
        if args.group_by or args.profile or args.times:
            raise UsageError(
                f"{args.file} is {'a profile' if isinstance(found, Profile) else 'a timing trace'}"
                " alone: --group-by, --profile and --times need the layers (a layer JSON or a "
                "log with a layer dump)"
            )
        return (
            _show_profile(found, args.format, args.csv_raw)
            if isinstance(found, Profile)
            else (_show_times(found, args.format, args.csv_raw))
        )
    engine = load_engine(args, found)
    frame = engine.layers_frame()
    if args.group_by == "myelin":
        groups = engine.groups("myelin")
        rows = [
            {
                "group": g.region or f"Myelin graph {g.graph}",
                "kernels": len(g.kernels),
                "kernel_types": ", ".join(f"{t}:{n}" for t, n in g.kernel_types.items()),
                "time_ms": g.time_ms,
                "summary": g.summary,
            }
            for g in groups
        ]
        out = pd.DataFrame(rows, columns=["group", "kernels", "kernel_types", "time_ms", "summary"])
    elif args.group_by:
        key = {"type": "type", "precision": "precision", "module": "module"}[args.group_by]
        times = frame["time_ms"].astype(float).tolist()
        keys = frame[key].astype(object).where(frame[key].notna(), None).tolist()
        totals = time_by_key(keys, times)
        out = pd.DataFrame(
            {
                key: pd.Series([r[0] for r in totals], dtype="string"),
                "layers": pd.Series([r[1] for r in totals], dtype="int64"),
                "time_ms": pd.Series([r[2] for r in totals], dtype=float),
            }
        )
        known = [ms for ms in times if ms == ms]
        out["percentage"] = 100 * out["time_ms"] / (total_of(known) if known else math.nan)
    else:
        columns = [
            "index",
            "name",
            "type",
            "precision",
            "output_dims",
            "tactic_hex",
            "time_ms",
            "percentage",
        ]
        out = frame[columns]
    stdout = sys.stdout
    if args.format == "json":
        stdout.write(out.to_json(orient="records", indent=1, force_ascii=False) + "\n")
    elif args.format == "csv":
        write_csv(out, stdout, raw=args.csv_raw)
    else:
        cells = [[cell(v) for v in record] for record in out.itertuples(index=False, name=None)]
        table(cells, list(out.columns), stdout)
        for note in engine.notes:
            stdout.write(f"\nnote: {note}\n")
        if engine.profile is not None:
            stdout.write(
                f"\n{len(engine.layers)} layers, {number(engine.total_ms)} ms per inference "
                f"(profile: {number(engine.profile.total_ms)} ms over "
                f"{len(engine.profile.records)} "
                "records)\n"
            )
        if engine.times is not None and engine.times.records:
            compute = [r.compute_ms for r in engine.times.records if r.compute_ms is not None]
            if compute:
                mean = sum(compute) / len(compute)
                stdout.write(
                    f"timing trace: {len(compute)} inferences, mean compute {number(mean)} ms\n"
                )
    return 0


def _show_profile(profile: Any, fmt: str, csv_raw: bool) -> int:
    """A profile without its layers: one row per record, as the file has them."""
    from trtlog.frames import profile_frame

    frame = profile_frame(profile)
    write_frame(frame, fmt, csv_raw=csv_raw)
    if fmt == "table":
        runs = f" ({len(profile.runs)} runs; the first shown)" if len(profile.runs) > 1 else ""
        iterations = f" over {profile.iterations} iterations" if profile.iterations else ""
        sys.stdout.write(
            f"\nper-layer profile (--exportProfile): {len(profile.records)} records, "
            f"{number(profile.total_ms)} ms per inference{iterations}{runs}\n"
            "note: a profile alone has layer names and times; pass it with --profile next to "
            "the layer JSON or log for types, precisions and modules\n"
        )
    return 0


def _show_times(times: Any, fmt: str, csv_raw: bool) -> int:
    """A timing trace alone: statistics per run and measure (trtexec's percentiles)."""
    from trtlog.frames import times_stats_frame

    frame = times_stats_frame(times)
    write_frame(frame, fmt, csv_raw=csv_raw)
    if fmt == "table":
        sys.stdout.write(
            f"\ntiming trace (--exportTimes): {len(times.records)} inferences in the first "
            f"of {len(times.runs)} run(s); percentiles as trtexec computes them\n"
        )
    return 0
