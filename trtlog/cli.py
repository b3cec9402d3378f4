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
import warnings
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


def _parse_log(path: str | bytes, name: str | None = None) -> Any:
    """Parse a log for the CLI (``-`` reads standard input), with progress on a terminal."""
    from trtlog.build import _build, _meta
    from trtlog.parse.source import iter_lines, open_lines, read_all

    opened = open_lines(path, name=name)
    text = read_all(opened)
    progress = _Progress(len(text), sys.stderr)
    try:
        return _build(
            text, _meta(opened.info), strict=False, lines=_counting(iter_lines(text), progress)
        )
    finally:
        progress.close()


# -- runs: one trtexec run of a file that holds several ---------------------------------------


def _add_run_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--run",
        type=int,
        metavar="N",
        dest="run_number",
        help="the trtexec run to use when the file holds several (1 = the first; default: "
        "the last, with a note on stderr)",
    )


def _select_run(build: Any, args: argparse.Namespace, *, quiet: bool = False) -> Any:
    """The build of the run ``--run N`` names (1-based), or of the last run, saying so.

    A file with several trtexec runs (sweeps, a build then an inference run, two models) is
    never mixed: every command works on one run. Without ``--run`` that is the last one, and
    a note on stderr says which and how to pick another.
    """
    runs = build.runs
    number: int | None = getattr(args, "run_number", None)
    if number is not None:
        if not 1 <= number <= max(len(runs), 1):
            raise _UsageError(
                f"--run {number}: the log has {len(runs)} trtexec run(s), numbered from 1"
            )
        return build.for_run(number - 1) if runs else build
    if len(runs) <= 1:
        return build
    last = runs[-1]
    if not quiet and not args.quiet:
        sys.stderr.write(
            f"trtlog: note: the log holds {len(runs)} trtexec runs; using run {len(runs)} "
            f"(lines {last.first_line}-{last.last_line}); --run N picks another\n"
        )
    return build.for_run(len(runs) - 1)


def _log_for(path: str, args: argparse.Namespace) -> Any:
    """Parse a log and keep the run the command works on (see :func:`_select_run`)."""
    return _select_run(_parse_log(path), args)


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
    _add_run_option(p)
    p.add_argument(
        "--passes",
        action="store_true",
        help="list every optimization pass (runs, fusions, removals, swaps, what it does)",
    )
    p.add_argument(
        "--times", metavar="JSON", help="an --exportTimes file of the run: adds its statistics"
    )


@command("summary")
def run_summary(args: argparse.Namespace) -> int:
    """One screen about a build: what was built, how, and what happened.

    A file with several trtexec runs gets a table of every run, then the details of the last
    one (--run N for another).
    """
    from trtlog.summary import summarize

    build = _parse_log(args.log)
    runs = len(build.runs)
    number = args.run_number
    if number is not None and not 1 <= number <= max(runs, 1):
        raise _UsageError(f"--run {number}: the log has {runs} trtexec run(s), numbered from 1")
    times = None
    if args.times:
        from trtlog.parse.layer_info import load_times

        times = load_times(args.times)
    summary = summarize(build, None if number is None else number - 1, times=times)
    if args.format == "json":
        sys.stdout.write(summary.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(summary.to_text(passes=args.passes))
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
    p.add_argument(
        "--run",
        type=int,
        metavar="N",
        dest="run_number",
        help="only the events of this trtexec run (1 = the first; default: every line)",
    )


@command("events")
def run_events(args: argparse.Namespace) -> int:
    """The typed events of a log, one per line (filter with --kind)."""
    from trtlog.events import check_kinds

    try:
        check_kinds(args.kind)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    build = _parse_log(args.log)
    if args.run_number is not None:  # the events of every line unless a run is asked for
        build = _select_run(build, args)
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


# -- layers --------------------------------------------------------------------------------


def _setup_layers(p: argparse.ArgumentParser) -> None:
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
    _add_run_option(p)


def _export_for_cli(path: str) -> Any:
    """What a file holds: a layer JSON (an Engine), a profile, a timing trace, or a log.

    JSON is recognised whatever trtexec or a shell made of it: ``.gz``, a UTF-8 BOM, UTF-16
    (PowerShell), and on standard input (``-``) too.
    """
    from trtlog.parse.layer_info import (
        _wrong_kind,
        detect_kind,
        engine_from_json,
        profile_from_json,
        read_json_bytes,
        read_json_file,
        times_from_json,
    )
    from trtlog.parse.source import json_head, looks_like_json

    if path == "-":
        data = sys.stdin.buffer.read()
        if not looks_like_json(json_head(data[:1024])):
            return _parse_log(data, name="<stdin>")
        name, values = read_json_bytes(data, "<stdin>")
    elif _looks_json_path(path):
        name, values = read_json_file(path)
    else:
        return _parse_log(path)
    kind = detect_kind(values[0])
    if kind == "layers":
        return engine_from_json(values[0], name)
    if kind == "profile":
        return profile_from_json(values, name)
    if kind == "times":
        return times_from_json(values, name)
    raise _wrong_kind(name, kind, "layers")


def _engine_of_log(build: Any, path: str) -> Any:
    """A log's engine: its layer dump, else the layers its placement lines list."""
    from trtlog.parse.layer_info import engine_from_placement

    engine = build.engine or engine_from_placement(build.events, build.source.name)
    if engine is None:
        raise _UsageError(
            f"{path}: the log has no layer dump and no layer placement lines (build with "
            "--profilingVerbosity=detailed and --dumpLayerInfo, or pass the --exportLayerInfo "
            "JSON)"
        )
    return engine


def _load_engine_for_cli(args: argparse.Namespace, found: Any = None) -> Any:
    from trtlog.layers import Engine, Profile, Times
    from trtlog.parse.layer_info import load_profile, load_times

    path = args.file
    found = _export_for_cli(path) if found is None else found
    if isinstance(found, Profile | Times):
        what = "a per-layer profile" if isinstance(found, Profile) else "a timing trace"
        raise _UsageError(
            f"{path} is {what}, not layers: `trtlog layers {path}` shows it; pass it with "
            "--profile/--times next to the layer JSON or log"
        )
    if isinstance(found, Engine):
        if getattr(args, "run_number", None) is not None:
            raise _UsageError("--run picks a run of a log; the file given is a layer JSON")
        engine = found
    else:
        build = _select_run(found, args)
        if build.engine is None and len(found.runs) > 1:
            others = [i + 1 for i in range(len(found.runs)) if found.for_run(i).engine is not None]
            if others:
                raise _UsageError(
                    f"{path}: the log has no layer dump in that run (run(s) "
                    f"{', '.join(map(str, others))} have one: --run N)"
                )
        engine = _engine_of_log(build, path)
    if args.profile:
        engine = engine.with_profile(load_profile(args.profile))
    if args.times:
        engine = engine.model_copy(update={"times": load_times(args.times)})
    return engine


@command("layers")
def run_layers(args: argparse.Namespace) -> int:
    """The engine's layers (from a layer JSON or a log's layer dump), optionally grouped.

    A profile (--exportProfile) or a timing trace (--exportTimes) given alone is shown too:
    its records with their times, or the trace's statistics.
    """
    import pandas as pd

    from trtlog.layers import Profile, Times

    found = _export_for_cli(args.file)
    if isinstance(found, Profile | Times):
        if args.group_by or args.profile or args.times:
            raise _UsageError(
                f"{args.file} is {'a profile' if isinstance(found, Profile) else 'a timing trace'}"
                " alone: --group-by, --profile and --times need the layers (a layer JSON or a "
                "log with a layer dump)"
            )
        return (
            _show_profile(found, args.format)
            if isinstance(found, Profile)
            else (_show_times(found, args.format))
        )
    engine = _load_engine_for_cli(args, found)
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
        grouped = frame.groupby(frame[key].fillna("?"), dropna=False)
        out = grouped.agg(layers=("index", "size")).reset_index()
        out["time_ms"] = grouped["time_ms"].sum(min_count=1).to_numpy()
        total = out["time_ms"].sum(min_count=1)
        out["percentage"] = 100 * out["time_ms"] / total
        out = out.sort_values(["time_ms", "layers"], ascending=False, na_position="last")
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
        out.to_csv(stdout, index=False)
    else:
        cells = [[_cell(v) for v in record] for record in out.itertuples(index=False, name=None)]
        _table(cells, list(out.columns), stdout)
        for note in engine.notes:
            stdout.write(f"\nnote: {note}\n")
        if engine.profile is not None:
            stdout.write(
                f"\n{len(engine.layers)} layers, {engine.total_ms:.4g} ms per inference "
                f"(profile: {engine.profile.total_ms:.4g} ms over {len(engine.profile.records)} "
                "records)\n"
            )
        if engine.times is not None and engine.times.records:
            compute = [r.compute_ms for r in engine.times.records if r.compute_ms is not None]
            if compute:
                mean = sum(compute) / len(compute)
                stdout.write(
                    f"timing trace: {len(compute)} inferences, mean compute {mean:.4g} ms\n"
                )
    return 0


def _write_frame(frame: Any, fmt: str) -> None:
    out = sys.stdout
    if fmt == "json":
        out.write(frame.to_json(orient="records", indent=1, force_ascii=False) + "\n")
    elif fmt == "csv":
        frame.to_csv(out, index=False)
    else:
        cells = [[_cell(v) for v in record] for record in frame.itertuples(index=False, name=None)]
        _table(cells, list(frame.columns), out)


def _show_profile(profile: Any, fmt: str) -> int:
    """A profile without its layers: one row per record, as the file has them."""
    from trtlog.frames import profile_frame

    frame = profile_frame(profile)
    _write_frame(frame, fmt)
    if fmt == "table":
        runs = f" ({len(profile.runs)} runs; the first shown)" if len(profile.runs) > 1 else ""
        iterations = f" over {profile.iterations} iterations" if profile.iterations else ""
        sys.stdout.write(
            f"\nper-layer profile (--exportProfile): {len(profile.records)} records, "
            f"{profile.total_ms:.4g} ms per inference{iterations}{runs}\n"
            "note: a profile alone has layer names and times; pass it with --profile next to "
            "the layer JSON or log for types, precisions and modules\n"
        )
    return 0


def _show_times(times: Any, fmt: str) -> int:
    """A timing trace alone: statistics per run and measure (trtexec's percentiles)."""
    from trtlog.frames import times_stats_frame

    frame = times_stats_frame(times)
    _write_frame(frame, fmt)
    if fmt == "table":
        sys.stdout.write(
            f"\ntiming trace (--exportTimes): {len(times.records)} inferences in the first "
            f"of {len(times.runs)} run(s); percentiles as trtexec computes them\n"
        )
    return 0


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if value != value else f"{value:.4g}"
    text = str(value)
    return "" if text in ("<NA>", "nan") else _short(text, 70)


# -- diff: comparing two builds -----------------------------------------------------------


def _setup_diff(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", help="build A (the reference): a trtexec log or a layer-info JSON")
    p.add_argument("b", help="build B: a trtexec log or a layer-info JSON")
    _add_run_options(p)
    p.add_argument("--profile-a", help="an --exportProfile JSON for A (times per layer)")
    p.add_argument("--profile-b", help="an --exportProfile JSON for B")
    p.add_argument(
        "--format", choices=("text", "json", "csv"), default="text", help="output format"
    )
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


def _compare_for_cli(args: argparse.Namespace) -> Any:
    from trtlog.diff import compare

    a = _side(args.a, args.run_a, args)
    b = _side(args.b, args.run_b, args)
    return compare(a, b, profile_a=args.profile_a, profile_b=args.profile_b)


def _side(path: str, run: int | None, args: argparse.Namespace) -> Any:
    """One side of a comparison: a layer JSON path as is, a log's run as a build."""
    if _looks_json_path(path):
        if run is not None:
            raise _UsageError(f"--run-a/--run-b pick a run of a log; {path} is a layer JSON")
        return path
    return _select_run(_parse_log(path), argparse.Namespace(run_number=run, quiet=args.quiet))


def _add_run_options(p: argparse.ArgumentParser) -> None:
    for side in ("a", "b"):
        p.add_argument(
            f"--run-{side}",
            type=int,
            metavar="N",
            help=f"the trtexec run of {side.upper()} when its log holds several (1 = the first; "
            "default: the last)",
        )


def _migration(cmp: Any) -> Any:
    """The 10 → 11 migration check when the two sides cross the strong-typing line."""
    from trtlog.diff import is_migration, migration_check

    return migration_check(cmp) if is_migration(cmp) else None


def _looks_json_path(path: str) -> bool:
    from trtlog.diff.load import looks_like_json_file

    return looks_like_json_file(path)


@command("diff")
def run_diff(args: argparse.Namespace) -> int:
    """Compare two builds: layers aligned by ONNX node, fusions, precisions, passes, times."""
    import shutil

    cmp = _compare_for_cli(args)
    out = sys.stdout
    changed = args.only == "changed"
    migration = _migration(cmp)  # 10 → 11 (strongly typed): shown first
    if migration is not None and args.format == "text":
        out.write(migration.to_text() + "\n")
    if args.view == "summary":
        summary = cmp.summary()
        if args.format == "csv":
            raise _UsageError("the summary has no CSV form; use --format text or json")
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
    frame = cmp.onnx_frame() if args.view == "onnx" else cmp.frame()
    if changed:
        keep = frame["fusion"] != "same" if args.view == "onnx" else frame["marker"] != "="
        if args.view == "onnx":
            keep |= frame["precision_a"].fillna("") != frame["precision_b"].fillna("")
        frame = frame[keep]
    if args.format == "csv":
        frame.to_csv(out, index=False)
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
        cells = [[_cell(v) for v in r] for r in frame[columns].itertuples(index=False, name=None)]
        _table(cells, columns, out)
        return 0
    out.write(cmp.to_text(column_size=args.column_size, width=width, only_changed=changed))
    if not args.no_summary:
        out.write("\n" + cmp.summary().to_text())
    return 0


# -- explain and graph: the merge graph -----------------------------------------------------


def _setup_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="LOG", help="a trtexec --verbose log, or - for stdin")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--node", help="what became of this ONNX node (or original layer)")
    what.add_argument("--layer", help="what is inside this engine layer, and how it got there")
    p.add_argument("--layers", metavar="JSON", help="the --exportLayerInfo of the same build")
    p.add_argument("--format", choices=("text", "json"), default="text")
    _add_run_option(p)


def _graph_for_cli(args: argparse.Namespace) -> Any:
    build = _log_for(args.file, args)
    engine = None
    if args.layers:
        from trtlog.parse.layer_info import load_engine

        engine = load_engine(args.layers)
    return build.merge_graph(engine)


@command("explain")
def run_explain(args: argparse.Namespace) -> int:
    """Which ONNX nodes went into which engine layers, by which passes (the merge graph)."""
    graph = _graph_for_cli(args)
    out = sys.stdout
    try:
        if args.node:
            found: Any = graph.fate(args.node)
        elif args.layer:
            found = graph.provenance(args.layer)
        else:
            found = None
    except KeyError as exc:
        raise _UsageError(str(exc.args[0])) from None
    if found is not None:
        if args.format == "json":
            data = found.model_dump(mode="json")
            data["pass_descriptions"] = _pass_descriptions(found.passes)
            out.write(json.dumps(data, indent=1) + "\n")
        else:
            out.write(found.describe() + "\n")
            _write_pass_legend(found.passes, out)
        return 0
    fates = graph.fates()
    counts: dict[str, int] = {}
    for fate in fates:
        counts[fate.kind] = counts.get(fate.kind, 0) + 1
    finals = graph.final_layers()
    provenances = [graph.provenance(x) for x in finals]
    used = [p for found in provenances for p in found.passes]
    if args.format == "json":
        data = {
            "final_layers_from": graph.graph.get("final_layers_from"),
            "fates": counts,
            "layers": [found.model_dump(mode="json") for found in provenances],
            "unexplained": [f.model_dump(mode="json") for f in fates if f.kind == "unexplained"],
            "pass_descriptions": _pass_descriptions(used),
        }
        out.write(json.dumps(data, indent=1) + "\n")
        return 0
    source = graph.graph.get("final_layers_from")
    out.write(f"{len(finals)} final layers (from the {source}); {len(fates)} ONNX nodes: ")
    out.write(", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1])))
    out.write("\n\n")
    rows = []
    for name, found in zip(finals, provenances, strict=True):
        passes = ", ".join(found.passes) or "-"
        rows.append(
            [
                _short(name, 70),
                len(found.onnx_nodes),
                len(found.original_layers),
                passes,
            ]
        )
    _table(rows, ["engine layer", "ONNX nodes", "original layers", "passes"], out)
    unexplained = [f for f in fates if f.kind == "unexplained"]
    if unexplained:
        out.write(f"\nunexplained ({len(unexplained)}):\n")
        for fate in unexplained:
            out.write(f"  {fate.node}: {fate.reason}\n")
    _write_pass_legend(used, out)
    return 0


def _pass_descriptions(names: Iterable[str]) -> dict[str, str]:
    """Each pass named (once, in order) with what it does (trtlog.passes.describe_pass)."""
    from trtlog.passes import describe_pass

    return {name: describe_pass(name) for name in dict.fromkeys(names)}


def _write_pass_legend(names: Iterable[str], out: TextIO) -> None:
    """The passes named above, one line each on what they do."""
    described = _pass_descriptions(names)
    if not described:
        return
    out.write("\npasses:\n")
    width = max(len(name) for name in described)
    for name, text in described.items():
        out.write(f"  {name:<{width}}  {text}\n")


def _setup_graph(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="LOG", help="a trtexec --verbose log, or - for stdin")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        help="the file to write: .graphml, .json (node-link) or .dot",
    )
    p.add_argument("--layers", metavar="JSON", help="the --exportLayerInfo of the same build")
    p.add_argument(
        "--match", metavar="REGEX", help="only nodes whose name matches, with their chains"
    )
    _add_run_option(p)


def _output_folder(path: str) -> None:
    """Refuse an output path whose folder does not exist, before any work is done."""
    from pathlib import Path

    folder = Path(path).expanduser().parent
    if not folder.is_dir():
        raise _UsageError(
            f"cannot write {path}: the folder {folder} does not exist (create it first)"
        )


def _regex(pattern: str, option: str) -> None:
    import re

    try:
        re.compile(pattern)
    except re.error as exc:
        raise _UsageError(
            f"{option} {pattern!r} is not a valid regular expression ({exc})"
        ) from None


@command("graph")
def run_graph(args: argparse.Namespace) -> int:
    """Write the merge graph as GraphML, node-link JSON or Graphviz DOT text."""
    from trtlog.graph import write_graph

    _output_folder(args.output)
    if args.match:
        _regex(args.match, "--match")
    graph = _graph_for_cli(args)
    if args.match:
        graph = graph.subgraph_matching(args.match)
    try:
        path = write_graph(graph, args.output)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    sys.stdout.write(
        f"wrote {path} ({graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges)\n"
    )
    return 0


# -- plot: figures from logs and comparisons (one KIND per figure) -------------------------

PlotRunner = Callable[[argparse.Namespace], Any]  # returns the Axes to save
_PLOTS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], PlotRunner]] = {}


def _setup_plot_diff(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", help="build A: a trtexec log or a layer-info JSON")
    p.add_argument("b", help="build B: a trtexec log or a layer-info JSON")
    _add_run_options(p)
    p.add_argument("--profile-a", help="an --exportProfile JSON for A")
    p.add_argument("--profile-b", help="an --exportProfile JSON for B")
    p.add_argument("--by", choices=("module", "type"), default="module", help="group layers by")
    p.add_argument("--depth", type=int, help="module depth (default: the first that splits)")
    p.add_argument("--top", type=int, default=20, help="show at most this many groups")


def _plot_diff(args: argparse.Namespace) -> Any:
    """Time (or layers) of A vs B per module or layer type, as paired bars."""
    from trtlog.plots import plot_diff

    cmp = _compare_for_cli(args)
    return plot_diff(cmp.frame(), by=args.by, depth=args.depth, top=args.top)


_PLOTS["diff"] = (_setup_plot_diff, _plot_diff)


def _setup_plot_log(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="LOG", help="a trtexec --verbose log, or - for stdin")
    _add_run_option(p)


def _setup_plot_engine(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a layer-info JSON, or a log with a layer dump")
    p.add_argument("--profile", help="an --exportProfile JSON to merge")
    p.add_argument("--times", help=argparse.SUPPRESS)
    _add_run_option(p)


def _log_plot(frame: str, plot: str, **options: Any) -> PlotRunner:
    def run(args: argparse.Namespace) -> Any:
        from trtlog import plots

        build = _log_for(args.file, args)
        return getattr(plots, plot)(getattr(build, frame)(), **options)

    return run


def _plot_time_by(args: argparse.Namespace) -> Any:
    """Engine time (or layers, without a profile) by layer type, precision or module."""
    from trtlog.plots import plot_time_by

    engine = _load_engine_for_cli(args)
    return plot_time_by(engine.layers_frame(), by=args.by, top=args.top)


def _setup_plot_time_by(p: argparse.ArgumentParser) -> None:
    _setup_plot_engine(p)
    p.add_argument("--by", choices=("type", "precision", "module"), default="type")
    p.add_argument("--top", type=int, default=15, help="show at most this many groups")


def _plot_modules(args: argparse.Namespace) -> Any:
    """Time (or layers) per ONNX module, at one depth of the module tree."""
    from trtlog.plots import plot_module_time

    engine = _load_engine_for_cli(args)
    return plot_module_time(engine.modules_frame(), depth=args.depth, top=args.top)


def _setup_plot_modules(p: argparse.ArgumentParser) -> None:
    _setup_plot_engine(p)
    p.add_argument("--depth", type=int, help="module depth (default: the first that splits)")
    p.add_argument("--top", type=int, default=20, help="show at most this many modules")


for _name, _frame, _plot, _doc in (
    ("layer-counts", "layer_counts_frame", "plot_layer_counts", "Layer count across stages."),
    ("fusions", "passes_frame", "plot_fusions_by_pass", "Fusions and removals by pass."),
    ("tactics", "tactics_frame", "plot_tactic_timing", "Every timed tactic per layer."),
    ("slowest-tactics", "tactics_frame", "plot_slowest_tactics", "The slowest chosen tactics."),
    ("memory", "memory_frame", "plot_memory_by_stage", "CPU and GPU memory by stage."),
):
    _runner = _log_plot(_frame, _plot)
    _runner.__doc__ = _doc
    _PLOTS[_name] = (_setup_plot_log, _runner)
_PLOTS["time-by"] = (_setup_plot_time_by, _plot_time_by)
_PLOTS["modules"] = (_setup_plot_modules, _plot_modules)


def _setup_plot(p: argparse.ArgumentParser) -> None:
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    for name, (setup, run) in _PLOTS.items():
        doc = (run.__doc__ or "").strip()
        k = kinds.add_parser(
            name, help=doc.split("\n")[0], description=doc, parents=[_LOGGING_OPTIONS]
        )
        k.add_argument("-o", "--output", required=True, help="the image to write (.png, .svg...)")
        setup(k)
        k.set_defaults(plot=run)


def _image_path(path: str) -> None:
    """Refuse an image name matplotlib cannot write, or a missing folder, before the work."""
    from pathlib import Path

    from matplotlib.backend_bases import FigureCanvasBase

    known = sorted(FigureCanvasBase.get_supported_filetypes())
    suffix = Path(path).suffix.lower()
    listed = ", ".join("." + k for k in known)
    if not suffix:
        raise _UsageError(f"{path} has no extension: name the image file {listed}")
    if suffix[1:] not in known:
        raise _UsageError(f"cannot draw a {suffix!r} image ({path}): use {listed}")
    _output_folder(path)


@command("plot")
def run_plot(args: argparse.Namespace) -> int:
    """Draw a figure into a file (trtlog plot KIND ... -o out.png)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no window
    _image_path(args.output)
    ax = args.plot(args)
    figure = ax.get_figure()
    figure.savefig(args.output, dpi=120)
    sys.stdout.write(f"wrote {args.output}\n")
    return 0


# -- lint: findings (issue 6) --------------------------------------------------------------


def _setup_lint(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        metavar="LOG",
        nargs="?",
        help="a trtexec log (- reads standard input), or a layer-info JSON to lint alone",
    )
    p.add_argument("--layers", metavar="JSON", help="the --exportLayerInfo of the same build")
    p.add_argument("--profile", metavar="JSON", help="the --exportProfile of the same build")
    p.add_argument(
        "--reference",
        metavar="REF",
        help="a reference build of the same model (an FP16 log or layer JSON): adds "
        "qdq-split-fusion and int8-slower-than-reference",
    )
    p.add_argument("--reference-profile", metavar="JSON", help="the reference's --exportProfile")
    p.add_argument(
        "--format", choices=("table", "json", "sarif"), default="table", help="output format"
    )
    p.add_argument(
        "--fail-on",
        choices=("info", "warning", "error", "never"),
        default="error",
        help="exit with status 1 when a finding reaches this severity (default: error)",
    )
    p.add_argument("--rules", metavar="IDS", help="comma-separated rule ids to run (default all)")
    p.add_argument("--exclude", metavar="IDS", help="comma-separated rule ids to skip")
    p.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    _add_run_option(p)


def _ids(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


@command("lint")
def run_lint(args: argparse.Namespace) -> int:
    """Findings: missing fusions after Q/DQ insertion and other build problems (for CI too)."""
    from trtlog.findings import RULES, lint, severity_rank, to_sarif
    from trtlog.parse.layer_info import load_engine

    out = sys.stdout
    if args.list_rules:
        rows = [[r.info.id, r.info.severity, r.info.title] for r in RULES]
        _table(rows, ["rule", "severity", "title"], out)
        return 0
    if args.file is None:
        raise _UsageError("lint needs a LOG (or a layer-info JSON); --list-rules lists the rules")
    engine: Any = None
    # (run number or None, build, engine, profile): a log with several runs and no --run is
    # linted run by run (CI must see a failure in any of them); --layers and --profile
    # belong to the last run then
    targets: list[tuple[int | None, Any, Any, Any]]
    if args.file != "-" and _looks_json_path(args.file):
        if args.layers:
            raise _UsageError("--layers is for a log; the file given is already a layer JSON")
        if args.run_number is not None:
            raise _UsageError("--run picks a run of a log; the file given is a layer JSON")
        targets = [(None, None, load_engine(args.file), args.profile)]
    else:
        whole = _parse_log(args.file)
        engine = load_engine(args.layers) if args.layers else None
        if args.run_number is None and len(whole.runs) > 1:
            last = len(whole.runs) - 1
            targets = [
                (i + 1, whole.for_run(i), *((engine, args.profile) if i == last else (None, None)))
                for i in range(len(whole.runs))
            ]
        else:
            targets = [(args.run_number, _select_run(whole, args), engine, args.profile)]
    reference: Any = None
    if args.reference:
        reference = (
            args.reference
            if _looks_json_path(args.reference)
            else _select_run(
                _parse_log(args.reference), argparse.Namespace(run_number=None, quiet=args.quiet)
            )
        )
    elif args.reference_profile:
        raise _UsageError("--reference-profile needs --reference")
    findings: list[Any] = []
    runs_of: list[int | None] = []
    for number, build, engine, profile in targets:
        try:
            found = lint(
                build if build is not None else engine,
                engine if build is not None else None,
                reference,
                profile=profile,
                reference_profile=args.reference_profile,
                rules=_ids(args.rules),
                exclude=_ids(args.exclude),
            )
        except ValueError as exc:
            raise _UsageError(str(exc)) from None
        findings += found
        runs_of += [number] * len(found)
    if args.format == "json":
        dumps = [f.model_dump(mode="json") for f in findings]
        if len(targets) > 1:
            dumps = [{**d, "run": run} for d, run in zip(dumps, runs_of, strict=True)]
        data = {
            "source": args.file,
            "findings": dumps,
            "counts": {
                s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")
            },
        }
        out.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    elif args.format == "sarif":
        artifact = "<stdin>" if args.file == "-" else args.file
        sarif = to_sarif(findings, artifact=artifact)
        out.write(json.dumps(sarif, indent=1, ensure_ascii=False) + "\n")
    else:
        if len(targets) > 1:
            out.write(f"{len(targets)} trtexec runs, each linted on its own (--run N for one)\n\n")
        runs = runs_of if len(targets) > 1 else None
        _lint_table(findings, targets[-1][1], out, runs)  # the runs share the file's lines
    if args.fail_on == "never":
        return 0
    limit = severity_rank(args.fail_on)
    return 1 if any(severity_rank(f.severity) >= limit for f in findings) else 0


def _lint_table(
    findings: Sequence[Any], build: Any, out: TextIO, runs: Sequence[int | None] | None = None
) -> None:
    if not findings:
        out.write("no findings\n")
        return
    rows = [
        [
            *([] if runs is None else [runs[i]]),
            f.severity,
            f.rule,
            _short(f.subject, 60),
            "" if f.time_ms is None or f.time_ms != f.time_ms else f"{f.time_ms:.4g}",
            ",".join(str(n) for n in (f.evidence.lines or f.evidence.layers)[:4]),
        ]
        for i, f in enumerate(findings)
    ]
    headers = ["severity", "rule", "subject", "ms", "lines/layers"]
    _table(rows, headers if runs is None else ["run", *headers], out)
    out.write("\n")
    for f in findings:
        out.write(f.to_text(build, max_lines=2) + "\n\n")
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
    out.write(", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items()) + "\n")


# -- report (issue 15): the command lives in its package ------------------------------------

from trtlog.report import command as _report  # noqa: E402 (argparse only: --help stays light)

_COMMANDS["report"] = (_report.add_arguments, _report.run)


# -- main ----------------------------------------------------------------------------------


class _UsageError(TrtlogError):
    """A command-line usage error (exit code 2)."""


def _logging_options() -> argparse.ArgumentParser:
    """-v/-q again for every subcommand (``trtlog layers x.json -q``); main() adds them up."""
    options = argparse.ArgumentParser(add_help=False)
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


_LOGGING_OPTIONS = _logging_options()


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
        p = sub.add_parser(
            name, help=doc.split("\n")[0], description=doc, parents=[_LOGGING_OPTIONS]
        )
        setup(p)
        p.set_defaults(run=run)
    return parser


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """A library warning as one ``trtlog: warning:`` line (not Python's file:line display)."""
    sys.stderr.write(f"trtlog: warning: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    args.verbose += getattr(args, "sub_verbose", 0)
    args.quiet = args.quiet or getattr(args, "sub_quiet", False)
    level = logging.ERROR if args.quiet else logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="trtlog: %(levelname)s: %(message)s", stream=sys.stderr)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        with warnings.catch_warnings():  # restores Python's own display on return
            warnings.showwarning = _show_warning
            if not sys.warnoptions:  # -W options given to Python win
                warnings.simplefilter("ignore" if args.quiet else "default")
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
