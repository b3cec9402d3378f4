"""The build: one parsed log, and the facts computed once from its events.

A package by subject. :mod:`~trtlog.buildlog.model` holds :class:`Build` (text, events, header,
indexes) and :mod:`~trtlog.buildlog.parsing` makes one (:func:`parse`, :func:`parse_text`,
:func:`iter_events`). The facts every view shares are computed here once:
:mod:`~trtlog.buildlog.header` (runs, version, options, device), :mod:`~trtlog.buildlog.builds`
(the engine builds of each run), :mod:`~trtlog.buildlog.rounds` (which run and builder round a
line belongs to), :mod:`~trtlog.buildlog.passes` (which optimizer
pass was running, what a fusion and a removal are), :mod:`~trtlog.buildlog.performance` (the
measured performance of each run and its ``--dumpProfile`` table).
"""

from trtlog.buildlog.builds import EngineBuild
from trtlog.buildlog.model import Build, SourceMeta
from trtlog.buildlog.parsing import iter_events, parse, parse_text

__all__ = ["Build", "EngineBuild", "SourceMeta", "iter_events", "parse", "parse_text"]
