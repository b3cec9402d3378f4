"""``trtlog report``: the command that writes a report page (see :func:`trtlog.report`).

The CLI's part of the report package: arguments, the output path, a progress bar on stderr
(a terminal only, after a second), exit codes as every command (0 done, 2 bad input or usage
with one ``trtlog: error: ...`` line). Registered by the CLI with :func:`add_arguments` and
:func:`run`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TextIO

__all__ = ["STEPS", "Progress", "add_arguments", "default_output", "run"]

#: The steps :func:`trtlog.report` announces, in order (the progress bar counts them).
STEPS = (
    "reading inputs",
    "packing the log",
    "findings",
    "overview",
    "passes",
    "tactics",
    "memory",
    "layers",
    "modules",
    "comparison",
    "merge graph",
    "writing the page",
)


class Progress:
    """A one-line progress bar on stderr: the step, how many are done, the time so far.

    Shown only on a terminal and only once the work has taken a second; redrawn when a step
    starts and while a log is parsed (the first step, most of the time of a big log), when
    :meth:`reading` gives the share parsed, which the bar and the text show.

    Example:
        >>> import io
        >>> p = Progress(io.StringIO())
        >>> p("findings"); p.close()
        >>> p.enabled
        False
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.start = time.monotonic()
        self.step = ""
        self.done = 0
        self.share: float | None = None  # of the log parsed, while one is
        self.shown = False

    def __call__(self, step: str) -> None:
        """Show that ``step`` has started."""
        self.step = step
        self.share = None
        if step in STEPS:
            self.done = max(self.done, STEPS.index(step))
        self._draw()

    def reading(self, done: int, total: int) -> None:
        """Show that ``done`` of the ``total`` characters of a log are parsed."""
        self.share = min(1.0, done / total) if total > 0 else None
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        if elapsed < 1.0:
            return
        width = 20
        share = self.share or 0.0
        filled = int(width * (self.done + share) / len(STEPS))
        bar = "#" * filled + "-" * (width - filled)
        step = self.step if self.share is None else f"{self.step} {self.share:4.0%}"
        self.stream.write(f"\rtrtlog: report [{bar}] {step:<21} {elapsed:5.1f} s ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Clear the line, if one was drawn."""
        if self.shown:
            self.stream.write("\r" + " " * 69 + "\r")
            self.stream.flush()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog report``."""
    parser.add_argument(
        "file",
        metavar="INPUT",
        help="a trtexec log (.gz is fine; - reads standard input) or a layer-info JSON",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the page to write (default: next to the input, <name>.report.html)",
    )
    parser.add_argument("--layers", metavar="JSON", help="the --exportLayerInfo of the build")
    parser.add_argument("--profile", metavar="JSON", help="the --exportProfile of the build")
    parser.add_argument(
        "--reference",
        metavar="REF",
        help="a reference build of the same model (an FP16 log or layer JSON): adds the "
        "comparison section",
    )
    parser.add_argument(
        "--reference-layers", metavar="JSON", help="the reference's --exportLayerInfo"
    )
    parser.add_argument(
        "--reference-profile", metavar="JSON", help="the reference's --exportProfile"
    )
    parser.add_argument(
        "--run",
        type=int,
        metavar="N",
        dest="run_number",
        help="the trtexec run to show when the log holds several (1 = the first; default: "
        "the last, with a note)",
    )
    parser.add_argument(
        "--build",
        type=int,
        metavar="N",
        dest="build_number",
        help="the engine build of that run to show when it holds several (a program calling "
        "build_serialized_network more than once; 1 = the first; default: the last, with a "
        "note)",
    )
    parser.add_argument("--title", help="the page title (default: the model or file name)")


class UsageError(Exception):
    """A command-line usage error (exit code 2)."""


def default_output(path: str) -> Path:
    """``<name>.report.html`` next to the input.

    Example:
        >>> default_output("runs/build.log.gz").as_posix()
        'runs/build.report.html'
        >>> default_output("model.layers.json").as_posix()
        'model.layers.report.html'
    """
    p = Path(path)
    name = p.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    stem = Path(name).stem if Path(name).suffix else name
    return p.with_name(stem + ".report.html")


def _check_output(path: Path) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"-o {path}: the folder {folder} does not exist")
    if path.is_dir():
        raise UsageError(f"-o {path}: that is a folder; give a file name (report.html)")


def _check_inputs(args: argparse.Namespace) -> None:
    for option in ("layers", "profile", "reference", "reference_layers", "reference_profile"):
        value = getattr(args, option)
        if value is not None and value != "-" and not Path(value).exists():
            flag = "--" + option.replace("_", "-")
            raise UsageError(f"{flag} {value}: no such file")
    if args.reference_profile and not (args.reference or args.reference_layers):
        raise UsageError("--reference-profile needs --reference (or --reference-layers)")
    if args.run_number is not None and args.run_number < 1:
        raise UsageError(f"--run {args.run_number}: runs are numbered from 1")
    if args.build_number is not None and args.build_number < 1:
        raise UsageError(f"--build {args.build_number}: builds are numbered from 1")


def run(args: argparse.Namespace) -> int:
    """Write one self-contained HTML page that shows a build (or two), to open or attach.

    The page works offline: overview, findings with links to their log lines, optimizer
    passes, a merge explorer (what became of each ONNX node), the engine's layers, the module
    tree, tactics, memory, the comparison with --reference, and the raw log.
    """
    from trtlog._display import visible
    from trtlog.errors import InputError

    try:
        return _run(args)
    except InputError as exc:
        sys.stderr.write(f"trtlog: error: {visible(exc.one_line())}\n")
    except UsageError as exc:
        sys.stderr.write(f"trtlog: error: {visible(str(exc))}\n")
    return 2


def _run(args: argparse.Namespace) -> int:
    from trtlog.errors import InputError
    from trtlog.html import report

    if args.output:
        output = Path(args.output)
    elif args.file == "-":
        raise UsageError("reading standard input: give the page's name with -o FILE")
    else:
        output = default_output(args.file)
    _check_output(output)
    _check_inputs(args)
    progress = Progress(sys.stderr)
    try:
        page = report(
            args.file,
            args.layers,
            args.reference,
            profile=args.profile,
            reference_engine=args.reference_layers,
            reference_profile=args.reference_profile,
            run=None if args.run_number is None else args.run_number - 1,
            engine_build=None if args.build_number is None else args.build_number - 1,
            title=args.title,
            progress=progress,
            reading=progress.reading,
        )
        progress("writing the page")
        page.write(output)
    except InputError:
        raise
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    finally:
        progress.close()
    quiet = getattr(args, "quiet", False)
    if not quiet:
        from trtlog._display import visible

        size = os.path.getsize(output)
        sys.stderr.write(f"trtlog: wrote {visible(str(output))} ({size / 1e6:.1f} MB)\n")
    return 0
