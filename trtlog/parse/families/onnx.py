"""Keyword rules and transformer of the onnx family (grammars/onnx.lark).

Model parsing: trtexec parse lines, ONNX parser messages, node errors and shape set-up
(formats.md §C).
"""

from __future__ import annotations

from lark import v_args

from trtlog.parse.family import BaseTransformer, Family

__all__ = ["FAMILY"]


@v_args(inline=True)
class OnnxTransformer(BaseTransformer):
    """Builds onnx events."""


FAMILY = Family(name="onnx", transformer=OnnxTransformer, rules=())
