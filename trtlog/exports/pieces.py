"""Layer-info and profile JSON printed piece by piece (docs/fragments-research.md §2).

A pre-pass in front of the JSON export loaders: scripts print ``IEngineInspector``'s
``get_layer_information(i, JSON)`` one object per layer, with their own header and separator
lines between the objects (``Layer information:``, ``----``, ``Layer 3:``), and pastes cut an
``--exportProfile`` file to a few ``, { "name" : ... }`` records without the enclosing array.
:func:`split_pieces` finds the balanced top-level ``{...}`` objects of such a text (brace
matching that respects strings) and returns them as the document a loader reads: a layer-info
document ``{"Layers": [...]}`` or a profile record list. Lines outside the objects are
decoration. A text that holds no such object gives ``None``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

__all__ = ["Pieces", "split_pieces"]


class Pieces:
    """Objects found in a text: a layer document or profile records, with their first lines.

    Attributes:
        kind: ``layers`` or ``profile``.
        document: ``{"Layers": [...]}`` for layers, the record list for a profile.
        lines: the 1-based line of each object, in order.
    """

    __slots__ = ("document", "kind", "lines")

    def __init__(self, kind: Literal["layers", "profile"], document: Any, lines: list[int]) -> None:
        self.kind = kind
        self.document = document
        self.lines = lines


def _objects(text: str) -> list[tuple[int, str]]:
    """The balanced top-level ``{...}`` chunks of ``text`` with their offsets."""
    out: list[tuple[int, str]] = []
    depth = 0
    start = -1
    in_string = False
    escape = False
    for i, c in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif c == "\\":
                escape = True
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            if depth:
                in_string = True
        elif c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                out.append((start, text[start : i + 1]))
    return out


def split_pieces(text: str) -> Pieces | None:
    """The layer objects or profile records printed one by one in ``text``, or ``None``.

    Example:
        >>> p = split_pieces('Layer 0:\\n{"Name": "a", "LayerType": "Reformat"}\\n---\\n'
        ...                  '{"Name": "b", "LayerType": "CaskPooling"}\\n')
        >>> p.kind, [layer["Name"] for layer in p.document["Layers"]], p.lines
        ('layers', ['a', 'b'], [2, 4])
        >>> split_pieces(", { \\"name\\" : \\"c\\", \\"averageMs\\" : 0.5 }\\n").kind
        'profile'
    """
    if "{" not in text:
        return None
    layers: list[Any] = []
    records: list[Any] = []
    lines: list[int] = []
    for offset, chunk in _objects(text):
        try:
            value = json.loads(chunk)
        except (ValueError, RecursionError):  # not JSON, or nested past the decoder's depth
            continue
        if not isinstance(value, dict):
            continue
        if "Name" in value and "LayerType" in value:
            layers.append(value)
        elif "name" in value and "averageMs" in value:
            records.append(value)
        else:
            continue
        lines.append(text.count("\n", 0, offset) + 1)
    if layers and not records:
        return Pieces("layers", {"Layers": layers}, lines)
    if records and not layers:
        return Pieces("profile", records, lines)
    return None
