"""Keyword rules and transformer of the layers family (grammars/layers.lark).

Engine layer dumps: `Engine Layer Information:`, the 10.x `Layers:` dump,
`--dumpLayerInfo` inspector records (formats.md §I, §K.2, §K.3).
"""

from __future__ import annotations

from lark import v_args

from trtlog.parse.family import BaseTransformer, Family

__all__ = ["FAMILY"]


@v_args(inline=True)
class LayersTransformer(BaseTransformer):
    """Builds layers events."""


FAMILY = Family(name="layers", transformer=LayersTransformer, rules=())
