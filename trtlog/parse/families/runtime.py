"""Keyword rules and transformer of the runtime family (grammars/runtime.lark).

Execution context, bindings, performance summary, profile table, output dumps and
footer (formats.md §K.1, §K.4, §K.5, §L, §M, §N, §O).
"""

from __future__ import annotations

from lark import v_args

from trtlog.parse.family import BaseTransformer, Family

__all__ = ["FAMILY"]


@v_args(inline=True)
class RuntimeTransformer(BaseTransformer):
    """Builds runtime events."""


FAMILY = Family(name="runtime", transformer=RuntimeTransformer, rules=())
