"""The build: one parsed log, and the facts computed once from its events.

A package by subject. :mod:`~trtlog.build.model` holds :class:`Build` (text, events, header,
indexes) and :mod:`~trtlog.build.parsing` makes one (:func:`parse`, :func:`parse_text`,
:func:`iter_events`). The facts every view shares are computed here once:
:mod:`~trtlog.build.header` (runs, version, options, device), :mod:`~trtlog.build.rounds`
(which run and builder round a line belongs to), :mod:`~trtlog.build.passes` (which optimizer
pass was running, what a fusion and a removal are), :mod:`~trtlog.build.performance` (the
measured performance of each run and its ``--dumpProfile`` table).
"""

from trtlog.build.model import Build, SourceMeta
from trtlog.build.parsing import iter_events, parse, parse_text

__all__ = ["Build", "SourceMeta", "iter_events", "parse", "parse_text"]
