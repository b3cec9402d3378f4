"""The log parser: text lines in, typed events out, every line in exactly one event.

A reader package (the log side; the JSON side is :mod:`trtlog.exports`). In pipeline order:
:mod:`~trtlog.parser.source` decodes the input into lines, :mod:`~trtlog.parser.envelope`
peels the trtexec envelope off each, :mod:`~trtlog.parser.dispatch` (the keyword table of the
message families in :mod:`~trtlog.parser.families`, declared with
:mod:`~trtlog.parser.family`) picks a grammar start rule, :mod:`~trtlog.parser.compiled`
matches flat rules with regexes derived from the grammars and :mod:`~trtlog.parser.grammar`
runs Lark for the rest; :mod:`~trtlog.parser.stream` ties the steps together
(:class:`~trtlog.parser.stream.LogParser`). ``trtlog.parse`` (a function, in
:mod:`trtlog.buildlog.parsing`) collects the events into a ``Build``.
"""
