"""Keyword rules and transformer of the errors family (grammars/errors.lark).

Errors, warnings and library error text (formats.md §R).
"""

from __future__ import annotations

from lark import v_args

from trtlog.parse.family import BaseTransformer, Family

__all__ = ["FAMILY"]


@v_args(inline=True)
class ErrorsTransformer(BaseTransformer):
    """Builds errors events."""


FAMILY = Family(name="errors", transformer=ErrorsTransformer, rules=())
