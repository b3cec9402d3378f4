"""``trtlog summary``: one screen about a build (part of the command-line package)."""

from __future__ import annotations

import argparse
import sys

from trtlog.cli.common import (
    UsageError,
    add_run_option,
    parse_log,
)

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog summary``."""
    p.add_argument("log", help="a trtexec log (.gz is fine; - reads standard input)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    add_run_option(p)
    p.add_argument(
        "--passes",
        action="store_true",
        help="list every optimization pass (runs, fusions, removals, swaps, what it does)",
    )
    p.add_argument(
        "--times", metavar="JSON", help="an --exportTimes file of the run: adds its statistics"
    )


def run(args: argparse.Namespace) -> int:
    """One screen about a build: what was built, how, and what happened.

    A file with several trtexec runs gets a table of every run, then the details of the last
    one (--run N for another); a run with several engine builds (a program calling
    build_serialized_network more than once) a table of its builds, then the details of the
    last (--build N for another). With --times, an --exportTimes file that holds one array
    per run pairs its array with the run shown.
    """
    from trtlog.summary import summarize

    build = parse_log(args.log)
    runs = len(build.runs)
    number = args.run_number
    if number is not None and not 1 <= number <= max(runs, 1):
        raise UsageError(f"--run {number}: the log has {runs} trtexec run(s), numbered from 1")
    times = None
    if args.times:
        from trtlog.exports.times import load_times

        times = load_times(args.times)
    builds = build.builds_of_run(
        None if not build.runs else build.runs[-1 if number is None else number - 1].index
    )
    which = args.build_number
    if which is not None and not 1 <= which <= max(len(builds), 1):
        raise UsageError(
            f"--build {which}: the run has {max(len(builds), 1)} engine build(s), numbered from 1"
        )
    summary = summarize(
        build,
        None if number is None else number - 1,
        engine_build=None if which is None else which - 1,
        times=times,
    )
    if args.format == "json":
        sys.stdout.write(summary.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(summary.to_text(passes=args.passes))
    return 0
