"""Keyword rules and transformer of the memory family (grammars/memory.lark).

Memory planning, engine generation, engine save/load (formats.md §H).
"""

from __future__ import annotations

from lark import v_args

from trtlog.parse.family import BaseTransformer, Family

__all__ = ["FAMILY"]


@v_args(inline=True)
class MemoryTransformer(BaseTransformer):
    """Builds memory events."""


FAMILY = Family(name="memory", transformer=MemoryTransformer, rules=())
