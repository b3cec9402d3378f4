"""The commands of ``trtlog``, in the order ``trtlog --help`` lists them.

Part of the command-line package. A command is a module with two functions:

* ``add_arguments(parser: argparse.ArgumentParser) -> None`` adds its arguments;
* ``run(args: argparse.Namespace) -> int`` does the work and returns the exit code; its
  docstring is the command's help (first line) and description.

To add a command, write such a module (in this package, or in the package of the view it
renders) and add one line to :data:`COMMANDS`. Modules are imported when the parser is made,
so keep their top-level imports light (argparse, ``trtlog.cli.common``): import pandas,
matplotlib, the parser or a view inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Iterator
from typing import Protocol, cast

__all__ = ["COMMANDS", "Command", "commands"]

#: ``(name, module)`` of every command, in help order.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("summary", "trtlog.cli.summary"),
    ("events", "trtlog.cli.events"),
    ("layers", "trtlog.cli.layers"),
    ("diff", "trtlog.cli.diff"),
    ("explain", "trtlog.cli.explain"),
    ("graph", "trtlog.cli.graph"),
    ("bisect", "trtlog.cli.bisect"),
    ("plot", "trtlog.cli.plot"),
    ("lint", "trtlog.cli.lint"),
    ("report", "trtlog.html.command"),
    ("ingest", "trtlog.cli.ingest"),
    ("query", "trtlog.cli.query"),
    ("trend", "trtlog.cli.trend"),
)


class Command(Protocol):
    """What a command module provides."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the command's arguments to its subparser."""

    def run(self, args: argparse.Namespace) -> int:
        """Run the command; the docstring of a module's ``run`` is the command's help."""


def commands() -> Iterator[tuple[str, Command]]:
    """``(name, module)`` of every command of :data:`COMMANDS`, imported."""
    for name, module in COMMANDS:
        yield name, cast(Command, importlib.import_module(module))
