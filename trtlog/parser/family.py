"""What a message family declares: its keyword rules, continuations and transformer.

A *family* is one grammar file in ``grammars/`` plus one module in ``trtlog/parser/families/``
(its keyword rules and its Lark transformer) plus one module in ``trtlog/events/`` (its event
classes). The dispatcher (``dispatch.py``) gathers the rules of all families into the keyword
table that decides which grammar start rule, if any, sees a message.

Conventions (STYLE.md §4, §6): each event-producing grammar alternative has an alias equal to
its event kind, the transformer method of that alias returns a ``dict`` of the event's fields
with ``"kind"`` set, and values are already typed (``int``, ``float``, tuples, models).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lark import Token, Transformer
from lark.exceptions import LarkError

from trtlog.numbers import parse_dims_x, parse_hex, parse_int, parse_num, parse_tactic

__all__ = [
    "BaseTransformer",
    "Continuation",
    "Family",
    "Fields",
    "Reject",
    "Rule",
]

#: What a transformer returns for one message: the event's fields, ``kind`` included.
Fields = dict[str, Any]


class Reject(LarkError):
    """Raised by a transformer when a message matched the grammar but its values do not hold.

    The line then becomes ``unrecognized`` (or an ``InputError`` under ``strict=True``).
    """


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the keyword table.

    Attributes:
        start: the grammar start rule that parses the message.
        prefix: the message starts with this text.
        contains: the message contains this text (tried after every prefix rule).
        section: the rule applies only inside this section (see ``enters``).
        enveloped: the rule applies to lines with a TensorRT envelope.
        bare: the rule also applies to lines without an envelope (``&&&&`` banners, layer
            records printed as continuation lines, 7.x ``cout`` output).
        enters: the section that starts after a line matched this rule.
        leaves: the current section ends after a line matched this rule.
        then: the continuation (by name, see :class:`Continuation`) opened by this line.
        empty: the rule matches only the empty message (a blank ``[I]`` line) inside its
            ``section``; with ``leaves=True`` it closes a block that ends with a blank line
            (the options block, formats.md §A.7).
    """

    start: str
    prefix: str | None = None
    contains: str | None = None
    section: str | None = None
    enveloped: bool = True
    bare: bool = False
    enters: str | None = None
    leaves: bool = False
    then: str | None = None
    empty: bool = False


@dataclass(frozen=True, slots=True)
class Continuation:
    """Lines that belong to the message opened before them (formats.md T4).

    Two modes:

    * ``records`` set: every accepted line is parsed on its own with that start rule and
      becomes its own event (the ``Engine Layer Information:`` listing, inspector dumps).
      Enveloped lines in between are parsed as usual; they end the continuation when
      ``enveloped`` is set and rejects them (a one-message listing is over at the next
      enveloped line), else they do not.
    * ``records`` unset (*append*): the accepted lines are appended to the opening message and
      the whole multi-line message is parsed once, with the opening rule's start rule, as one
      event spanning all its lines (ONNX node errors, 4-line warnings, perf warnings).

    Attributes:
        name: how rules refer to it (``Rule.then``).
        records: the start rule for each line in *records* mode.
        bare: which bare lines continue (``None``: every bare line).
        enveloped: which enveloped messages continue (``None``: none do in append mode; in
            records mode ``None`` lets every enveloped message pass without ending it).
        blank: whether a blank line may sit inside the construct (T5: blank lines never end
            a block by themselves; they are kept when a continuing line follows).
        max_lines: a safety bound on the lines of one construct.
        kind_of: in records mode, the shape of an accepted bare line; the first record fixes
            it and a line of another shape ends the records (a dump is all records or all
            names: prose pasted after a dump of records is not a layer).
    """

    name: str
    records: str | None = None
    bare: Callable[[str], bool] | None = None
    enveloped: Callable[[str], bool] | None = None
    blank: bool = True
    max_lines: int = 200_000
    kind_of: Callable[[str], str] | None = None


@dataclass(frozen=True)
class Family:
    """A grammar file, its keyword rules, continuations and transformer.

    Attributes:
        name: the grammar file stem in ``grammars/`` (``optimizer`` → ``optimizer.lark``).
        transformer: the transformer class; instantiated once per grammar.
        rules: the keyword rows written by hand: rows inside sections, for bare lines, that open
            continuations or sections, ``contains`` rows, and prefixes that are not the literal
            an alternative starts with.
        continuations: the continuation modes its rules open.
        routed: start rules routed by their grammar alone: each literal an alternative starts
            with (``"Running: " IDENT ...``) is a keyword row (see
            :func:`trtlog.parser.grammar.with_routes`), unless a row of ``rules`` for the same
            start rule covers it. The literal is written once, in the grammar.
    """

    name: str
    transformer: type[Transformer[Token, Any]]
    rules: tuple[Rule, ...]
    continuations: tuple[Continuation, ...] = ()
    routed: tuple[str, ...] = ()

    @property
    def starts(self) -> tuple[str, ...]:
        """The grammar start rules its keyword rows, routed rules and continuations use."""
        names = [r.start for r in self.rules] + list(self.routed)
        names += [c.records for c in self.continuations if c.records]
        return tuple(dict.fromkeys(names))


class BaseTransformer(Transformer[Token, Any]):
    """Terminal conversions shared by every family (terminals from ``common.lark``).

    Subclasses decorate themselves with ``@v_args(inline=True)`` and add one method per alias.
    """

    # Terminal callbacks are plain functions of the token text (a Token is a str), so that
    # the grammar-compiled matchers (compiled.py) can call them on match groups directly.
    NUM = staticmethod(parse_num)
    INT = staticmethod(parse_int)  # past 64 bits: ValueError, the line does not parse
    SINT = staticmethod(parse_int)
    TACTIC = staticmethod(parse_tactic)
    HEX = staticmethod(parse_hex)
    DIMSX = staticmethod(parse_dims_x)

    @staticmethod
    def text(tok: Token | str | None) -> str:
        """The token's text with surrounding blanks removed (``""`` for ``None``)."""
        return "" if tok is None else str(tok).strip()
