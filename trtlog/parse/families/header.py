"""Keyword rules and transformer of the header family (grammars/header.lark).

The `&&&&` banner, pre-option notices, options blocks, device information, TensorRT
version, plugin loading and start-up memory lines (formats.md §A, §B).
"""

from __future__ import annotations

from lark import v_args

from trtlog.parse.family import BaseTransformer, Family

__all__ = ["FAMILY"]


@v_args(inline=True)
class HeaderTransformer(BaseTransformer):
    """Builds header events."""


FAMILY = Family(name="header", transformer=HeaderTransformer, rules=())
