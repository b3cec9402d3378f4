"""The keyword table: which grammar start rule, if any, sees a message.

Third step of the pipeline (STYLE.md §2, §13). The rows come from the families
(``trtlog/parser/families/*.py``). A message is looked up by its first word in a dict of prefix
rows (longest prefix first), then against prefixes that end inside a word, then against
``contains`` rows; rows restricted to the current *section* (options block, performance
summary, profile table...) are tried before the global ones, and section rows without any
keyword last; an empty message in a section goes to the section's ``empty`` row if it has one
and is a plain ``log_line`` otherwise (never a keyword-less row).
A message that matches no row becomes ``unrecognized`` without a Lark call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from trtlog.parser.family import Continuation, Family, Rule

__all__ = ["Dispatcher", "Route"]


@dataclass(frozen=True, slots=True)
class Route:
    """A matched row: the rule and the family whose grammar parses the message."""

    rule: Rule
    family: Family


# A row as stored for lookup: (prefix, contains, route); plain tuples keep the loop cheap.
_Row = tuple[str, str | None, Route]


@dataclass
class _Table:
    words: dict[str, list[_Row]] = field(default_factory=dict)
    raw: list[_Row] = field(default_factory=list)
    contains: list[tuple[str, Route]] = field(default_factory=list)
    rest: list[Route] = field(default_factory=list)
    # every raw prefix, for one C-level startswith before the loop over the raw rows
    raw_prefixes: tuple[str, ...] = ()
    empty: Route | None = None

    def add(self, route: Route) -> None:
        rule = route.rule
        if rule.empty:
            self.empty = route
        elif rule.prefix is not None:
            row = (rule.prefix, rule.contains, route)
            if " " in rule.prefix:
                self.words.setdefault(rule.prefix[: rule.prefix.index(" ")], []).append(row)
            else:
                self.raw.append(row)
        elif rule.contains is not None:
            self.contains.append((rule.contains, route))
        else:
            self.rest.append(route)

    def finish(self) -> None:
        for rows in self.words.values():
            rows.sort(key=lambda r: -len(r[0]))
        self.raw.sort(key=lambda r: -len(r[0]))
        self.raw_prefixes = tuple(r[0] for r in self.raw)

    def find(self, message: str, first_word: str) -> Route | None:
        rows = self.words.get(first_word)
        if rows is not None:
            for prefix, contains, route in rows:
                if message.startswith(prefix) and (contains is None or contains in message):
                    return route
        if message.startswith(self.raw_prefixes):
            for prefix, contains, route in self.raw:
                if message.startswith(prefix) and (contains is None or contains in message):
                    return route
        for contains_text, route in self.contains:
            if contains_text in message:
                return route
        return None


class Dispatcher:
    """The keyword table of a set of families.

    Raises:
        ValueError: two families use the same start rule name, a row is duplicated, or a rule
            names a continuation that does not exist.
    """

    def __init__(self, families: Iterable[Family]) -> None:
        self.families = tuple(families)
        self.continuations: dict[str, Continuation] = {}
        self.family_of_start: dict[str, Family] = {}
        self._enveloped: dict[str | None, _Table] = {}
        self._bare: dict[str | None, _Table] = {}
        seen: set[tuple[object, ...]] = set()
        for family in self.families:
            for cont in family.continuations:
                if cont.name in self.continuations:
                    raise ValueError(f"continuation {cont.name!r} is defined twice")
                self.continuations[cont.name] = cont
            for start in family.starts:
                owner = self.family_of_start.setdefault(start, family)
                if owner is not family:
                    raise ValueError(
                        f"start rule {start!r} is used by families {owner.name!r} and "
                        f"{family.name!r}; start rules must be unique"
                    )
            for rule in family.rules:
                if rule.empty and (rule.section is None or rule.prefix or rule.contains):
                    raise ValueError(
                        f"rule {rule.start!r}: a row for the empty message needs a section "
                        "and no prefix or contains"
                    )
                key = (
                    rule.section,
                    rule.prefix,
                    rule.contains,
                    rule.enveloped,
                    rule.bare,
                    rule.empty,
                )
                if key in seen:
                    raise ValueError(f"duplicate keyword row {key!r} (family {family.name})")
                seen.add(key)
                route = Route(rule, family)
                if rule.enveloped:
                    self._enveloped.setdefault(rule.section, _Table()).add(route)
                if rule.bare:
                    self._bare.setdefault(rule.section, _Table()).add(route)
        for family in self.families:
            for rule in family.rules:
                if rule.then is not None and rule.then not in self.continuations:
                    raise ValueError(
                        f"rule {rule.start!r} names unknown continuation {rule.then!r}"
                    )
        for tables in (self._enveloped, self._bare):
            for section, table in tables.items():
                if len(table.rest) > 1 or (section is None and table.rest):
                    raise ValueError(
                        f"section {section!r} has {len(table.rest)} rows without a keyword; "
                        "a section may have one, the global table none"
                    )
                table.finish()
        self._global_enveloped = self._enveloped.get(None, _Table())
        self._global_bare = self._bare.get(None, _Table())
        # Prefix rows that can be tried before the table: no other row extends their prefix
        # and they need no "contains" check, so a message starting with one can only go there.
        self._safe: set[int] = set()
        for rows in self._global_enveloped.words.values():
            for prefix, contains, route in rows:
                extended = any(
                    other != prefix and other.startswith(prefix) for other, _c, _r in rows
                )
                if contains is None and not extended:
                    self._safe.add(id(route))
        self._hot: tuple[str, Route] | None = None

    def is_exclusive(self, route: Route) -> bool:
        """Whether a message starting with the route's prefix can only go to this route.

        True for a maximal prefix row without a ``contains`` check, outside any section.
        """
        return id(route) in self._safe

    def lookup(self, message: str, section: str | None, *, bare: bool = False) -> Route | None:
        """The row for ``message`` in ``section`` (``None`` when no row matches)."""
        if section is None and not bare:
            hot = self._hot
            if hot is not None and message.startswith(hot[0]):
                return hot[1]
            space = message.find(" ")
            route = self._global_enveloped.find(message, message if space < 0 else message[:space])
            if route is not None and id(route) in self._safe:
                self._hot = (route.rule.prefix, route)  # type: ignore[assignment]
            return route
        space = message.find(" ")
        first_word = message if space < 0 else message[:space]
        tables = self._bare if bare else self._enveloped
        glob = self._global_bare if bare else self._global_enveloped
        if section is not None:
            local = tables.get(section)
            if local is not None:
                if not message:
                    # a blank line is a separator (T5): never a section's keyword-less row
                    return local.empty
                route = local.find(message, first_word)
                if route is not None:
                    return route
                found = glob.find(message, first_word)
                if found is not None:
                    return found
                return local.rest[0] if local.rest else None
        return glob.find(message, first_word)
