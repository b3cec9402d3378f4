"""Grammar-compiled matchers: a start rule's flat alternatives as Python regexes.

Part of the parser (between dispatch and Lark). A Lark LALR parse of one short message costs
far more than one regex match, most of it in the contextual lexer's per-token machinery, and
a verbose log has hundreds of thousands of messages. Most message rules are *flat*: a sequence of
literals and terminals with optional parts (which Lark itself expands into separate
alternatives). For those, this module derives from the *built* Lark grammar, when the
grammar tables are made (``grammar.py``), plain data (:data:`Alternative`):

* one regular expression per alternative: each terminal's own pattern in an atomic group (a
  lexer commits to a token the way an atomic group commits to its first match), literals
  escaped, flat sub-rules inlined as their own alternations;
* for each alternative, the argument layout Lark's own child filter produces (which tokens are
  dropped, where ``[x]`` placeholders go), recorded once by running Lark's tree-building
  callbacks on marker objects;
* which transformer method Lark would call, with which arguments.

At run time the transformer method and the terminal callbacks Lark would apply are bound
into one small function per alternative, generated in memory from that data (the way
``dataclasses`` generates ``__init__``), so that a match costs one regex call and one Python
call.

A matching message is thus turned into exactly the fields the LALR parser would build. The
alternative that matched last is tried first. Start rules that are not flat (recursive lists)
are not compiled, and a message that matches no alternative goes to Lark, which remains the
judge. Nothing here is grammar text: everything is derived from ``grammars/*.lark``, and the
test suite parses the whole corpus both ways and requires identical events.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from lark import Lark, Transformer

from trtlog.parser._lark import (
    NonTerminal,
    Rule,
    Terminal,
    Tree,
    literals,
    rule_name,
    rules_by_origin,
    terminal_patterns,
    tree_callbacks,
    unwrap,
)

__all__ = [
    "Alternative",
    "CompiledStart",
    "CompiledStarts",
    "Shape",
    "alternatives",
    "compile_start",
]

_MAX_DEPTH = 4


Build = Callable[[re.Match[str]], Any]

#: A value a transformer method receives, as an alternative's plain data describes it:
#: ``None`` (a ``[x]`` placeholder), ``("token", TERMINAL, group)`` (the text of a capture
#: group, through the transformer's callback of that terminal if it has one), a
#: :data:`Call` (a sub-rule's method) or ``("pick", ((marker, Call), ...))`` (an inlined
#: sub-rule: the call of the alternative whose marker group took part in the match).
Value = Any

#: ``("call", method, values)``: the transformer method of a rule (its alias, else its name)
#: called with the :data:`Value` s of its arguments.
Call = tuple[str, str, tuple[Value, ...]]

#: One alternative of a start rule, as far as it needs the built grammar: its leading
#: literal, its message regex (named groups ``g1``, ``g2``...) and the :data:`Call` that builds
#: its value. Plain strings and tuples (lists, read from JSON), independent of the
#: transformer: they are part of the grammar tables built with the package
#: (``trtlog.parser.grammar``), so that a process whose messages every compiled matcher
#: takes loads no Lark parser at all. :func:`compile_start` generates the matcher's
#: functions from them, in memory.
Alternative = tuple[str | None, str, Call]


class Shape(NamedTuple):
    """One alternative of a start rule, as the scanner (``scanner.py``) uses it.

    Attributes:
        literal: the literal text every message of the alternative starts with, if any.
        regex: the message regex (pattern text, named groups ``g1``, ``g2``...).
        groups: the names of the groups ``make`` takes, in order.
        make: the transformed fields from those groups' texts (what ``build(m)`` gives).
        method: the transformer method ``make`` calls last (its result is ``make``'s).
        args: the arguments ``make`` passes to ``method``, each a function of the group
            texts (``args_of``), in :mod:`trtlog.parser.columns`'s terms: ``("none",)``,
            ``("text", i)`` (the text of group ``groups[i]``), ``("conv", f, i)`` (``f`` of
            that text) or ``("expr", f)`` (``f`` of every group's text).
        one_kind: whether every message the alternative takes gives one event kind. Not so
            for an alternative that picks among sub-rules of several kinds (``onnx_sourced``:
            a parser source prefix, then any of a dozen parser messages): rows of one kind
            cannot hold its lines, so the scanner leaves them to the line parser.
    """

    literal: str | None
    regex: str
    groups: tuple[str, ...]
    make: Callable[..., Any]
    method: Callable[..., Any] | None = None
    args: tuple[tuple[Any, ...], ...] = ()
    one_kind: bool = True


def _kinds_picked(value: Value) -> set[str]:
    """The event kinds among the sub-rules a :data:`Value` may pick (aliases are kinds)."""
    from trtlog.events import EVENT_CLASSES

    found: set[str] = set()
    if isinstance(value, list | tuple) and value:
        if value[0] == "pick":
            for _marker, call in value[1]:
                if call[1] in EVENT_CLASSES:
                    found.add(call[1])
                found |= _kinds_picked(call)
        elif value[0] == "call":
            for arg in value[2]:
                found |= _kinds_picked(arg)
    return found


class _NotFlat(Exception):
    """The rule cannot be compiled (recursive, inlined, or without a transformer method)."""


class _Marker:
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _Spec(NamedTuple):
    """What one alternative's functions are made from, when the alternative is first tried."""

    literal: str | None
    regex: str
    used: tuple[str, ...]
    source: str  # build(m) and direct(message)
    late_source: str  # make(*groups)
    env: dict[str, Any]
    method: Callable[..., Any]  # the top rule's transformer method
    args: tuple[tuple[Value, str], ...]  # its arguments: each one's value and expression


_Made = tuple[re.Pattern[str], Build, Callable[[str], Any]]

# an alternative whose regex Python rejects: it never matches here, so Lark parses its messages
_NEVER = re.compile(r"(?!)")


def _nothing(message: str) -> None:
    return None


def _never_built(m: re.Match[str]) -> Any:
    raise AssertionError("the pattern that never matches matched")


class CompiledStart:
    """A matcher for one start rule: ``match(message)`` gives the fields or ``None``.

    Each alternative's regex and functions are compiled when the alternative is first tried
    (a short log tries a few of a family's hundreds); its ``make`` when first asked for.

    Attributes:
        start: the start rule.
    """

    __slots__ = ("_made", "_shapes", "_specs", "first", "start")

    def __init__(self, start: str, specs: list[_Spec]) -> None:
        self.start = start
        self._specs = specs
        self._made: list[_Made | None] = [None] * len(specs)
        #: The alternative that matched last, as one function message → fields or None.
        self.first: Callable[[str], Any] = _nothing
        # per alternative: its Shape
        self._shapes: list[Shape | None] = [None] * len(specs)

    @property
    def alternatives(self) -> list[_Made]:
        """``(regex, build, direct)`` per alternative, in the grammar's order (all compiled)."""
        return [self._made[i] or self._compile(i) for i in range(len(self._specs))]

    def _compile(self, i: int) -> _Made:
        spec = self._specs[i]
        try:
            compiled = re.compile(spec.regex)
        except re.error:
            made: _Made = (_NEVER, _never_built, _nothing)
        else:
            env = spec.env
            env["_fullmatch"] = compiled.fullmatch
            namespace: dict[str, Any] = {}
            exec(compile(spec.source, f"<compiled {self.start}>", "exec"), env, namespace)
            made = (compiled, namespace["build"], namespace["direct"])
        self._made[i] = made
        return made

    def _make(self, i: int) -> None:
        spec = self._specs[i]
        env = spec.env
        namespace: dict[str, Any] = {}
        exec(compile(spec.late_source, f"<compiled {self.start}>", "exec"), env, namespace)
        self._shapes[i] = Shape(
            spec.literal,
            spec.regex,
            spec.used,
            namespace["make"],
            spec.method,
            tuple(_arg(value, expr, spec.used, env) for value, expr in spec.args),
            len(set().union(*(_kinds_picked(value) for value, _expr in spec.args))) <= 1,
        )

    def _matching(self, message: str) -> int | None:
        """The index of the (first) alternative that matches ``message``."""
        made = self._made
        for i in range(len(made)):
            regex = (made[i] or self._compile(i))[0]
            if regex.fullmatch(message):
                if self._shapes[i] is None:
                    self._make(i)
                return i
        return None

    def shapes(self) -> list[tuple[re.Pattern[str], Shape]]:
        """Every alternative's message regex and :class:`Shape`, in the grammar's order."""
        out = []
        for i, (regex, _build, _direct) in enumerate(self.alternatives):
            if self._shapes[i] is None:
                self._make(i)
            shape = self._shapes[i]
            assert shape is not None
            out.append((regex, shape))
        return out

    def shape_of(self, message: str) -> Shape | None:
        """The shape of the (first) alternative that matches ``message``."""
        i = self._matching(message)
        return None if i is None else self._shapes[i]

    def match(self, message: str) -> Any:
        """The start rule's transformed result for ``message``, or ``None`` if it does not match."""
        found = self.first(message)
        if found is not None:
            return found
        made = self._made
        for i in range(len(made)):
            regex, build, direct = made[i] or self._compile(i)
            m = regex.fullmatch(message)
            if m is not None:
                # Try the alternative that matched last first: a log repeats one shape.
                self.first = direct
                return build(m)
        return None

    def matches(self, message: str) -> int:
        """How many alternatives match ``message`` (the tests require at most one)."""
        return sum(1 for regex, _b, _d in self.alternatives if regex.fullmatch(message))


class _Compiler:
    def __init__(self, lark: Lark) -> None:
        self.rules_by_origin = rules_by_origin(lark)
        self.patterns = terminal_patterns(lark)
        self.literals = literals(lark)
        # Tree-building callbacks with the same child filters as the real ones.
        self.tree_callbacks = tree_callbacks(lark)
        self.counter = 0

    def group(self) -> str:
        self.counter += 1
        return f"g{self.counter}"

    def layout(self, rule: Rule) -> list[Any]:
        """The arguments the rule's transformer method receives, as markers and ``None``."""
        markers = [_Marker(i) for i in range(len(rule.expansion))]
        try:
            tree = self.tree_callbacks[rule](markers)
        except (AttributeError, TypeError):  # the filter wanted to inline a sub-tree
            raise _NotFlat(rule.origin.name) from None
        if not isinstance(tree, Tree):
            raise _NotFlat(rule.origin.name)
        for child in tree.children:
            if child is not None and not isinstance(child, _Marker):
                raise _NotFlat(rule.origin.name)
        return list(tree.children)

    def alternative(self, rule: Rule, stack: tuple[str, ...]) -> tuple[str, Call]:
        """The rule's regex and the :data:`Call` that builds its value from a match."""
        layout = self.layout(rule)
        used = {child.index for child in layout if child is not None}
        pieces: list[str] = []
        values: list[Value] = []
        for i, sym in enumerate(rule.expansion):
            if isinstance(sym, Terminal):
                pattern = self.patterns[sym.name]
                if i not in used:
                    # A token the child filter drops (an anonymous literal): match it
                    # without a capture group.
                    pieces.append(f"(?>{pattern})" if sym.name not in self.literals else pattern)
                    values.append(None)
                    continue
                group = self.group()
                pieces.append(f"(?P<{group}>(?>{pattern}))")
                values.append(("token", sym.name, group))
            else:
                assert isinstance(sym, NonTerminal)
                regex, value = self.nonterminal(sym.name, (*stack, rule.origin.name))
                pieces.append(regex)
                values.append(value)
        args = tuple(None if child is None else values[child.index] for child in layout)
        return "".join(pieces), ("call", rule_name(rule), args)

    def nonterminal(self, origin: str, stack: tuple[str, ...]) -> tuple[str, Value]:
        """A sub-rule inlined: an alternation whose marker groups pick the value."""
        if origin in stack or len(stack) > _MAX_DEPTH:
            raise _NotFlat(origin)
        parts: list[str] = []
        picks: list[tuple[str, Call]] = []
        for rule in reversed(self.rules_by_origin[origin]):  # groups numbered from the last
            marker = self.group()
            regex, call = self.alternative(rule, stack)
            parts.insert(0, f"(?P<{marker}>{regex})")
            picks.insert(0, (marker, call))
        return "(?:" + "|".join(parts) + ")", ("pick", tuple(picks))

    def alternatives(self, origin: str) -> list[Alternative]:
        """What each alternative of the start rule ``origin`` is made of.

        Raises:
            _NotFlat: the rule cannot be compiled.
        """
        out: list[Alternative] = []
        for rule in self.rules_by_origin[origin]:
            regex, call = self.alternative(rule, ())
            out.append((self.leading_literal(rule), regex, call))
        return out

    def leading_literal(self, rule: Rule) -> str | None:
        """The literal text every message of this alternative starts with, if any."""
        first = rule.expansion[0] if rule.expansion else None
        if isinstance(first, Terminal):
            pattern = self.literals.get(first.name)
            if pattern is not None:
                return pattern
        return None


_GROUP_CALL = re.compile(r"g\('(\w+)'\)")
_NAME = re.compile(r"[A-Za-z_]\w*")
_GROUP = re.compile(r"g\d+")


def _name(text: str, pattern: re.Pattern[str] = _NAME) -> str:
    """``text``, checked to be a name (it becomes part of generated code)."""
    if not isinstance(text, str) or pattern.fullmatch(text) is None:
        raise ValueError(f"not a name in a grammar table: {text!r}")
    return text


def _source(value: Value, env: dict[str, Any], transformer: Transformer[Any, Any]) -> str:
    """The Python expression of ``value``, reading group ``g1`` as ``g('g1')``.

    The transformer's methods and terminal callbacks it calls are put in ``env``.

    Raises:
        _NotFlat: the transformer has no method of that name.
    """
    if value is None:
        return "None"
    kind = value[0]
    if kind == "token":
        terminal, group = _name(value[1]), _name(value[2], _GROUP)
        callback = getattr(transformer, terminal, None)
        if callable(callback):
            env[f"t_{terminal}"] = unwrap(callback)
            return f"t_{terminal}(g('{group}'))"
        return f"g('{group}')"
    if kind == "call":
        name = _name(value[1])
        method = getattr(transformer, name, None)
        if method is None:
            raise _NotFlat(name)
        env[f"r_{name}"] = unwrap(method)
        return f"r_{name}({', '.join(_source(arg, env, transformer) for arg in value[2])})"
    if kind == "pick":
        expr = "_unreachable()"
        for marker, call in reversed(value[1]):
            sub = _source(call, env, transformer)
            expr = f"({sub} if g('{_name(marker, _GROUP)}') is not None else {expr})"
        return expr
    raise ValueError(f"not a value in a grammar table: {kind!r}")


def _arg(value: Value, expr: str, used: tuple[str, ...], env: dict[str, Any]) -> tuple[Any, ...]:
    """One argument of a top-level method call, as :class:`Shape` describes it.

    Of its ``value`` and its expression ``expr``, as :func:`_source` made it.
    """
    if value is None:
        return ("none",)
    if value[0] == "token":
        key = f"t_{value[1]}"
        index = used.index(value[2])
        return ("conv", env[key], index) if key in env else ("text", index)
    params = ", ".join(f"v_{n}" for n in used)
    namespace: dict[str, Any] = {}
    body = _GROUP_CALL.sub(r"v_\1", expr)
    exec(
        compile(f"def arg({params}):\n    return {body}\n", "<compiled arg>", "exec"),
        env,
        namespace,
    )
    return ("expr", namespace["arg"])


def _groups(regex: str) -> dict[str, int]:
    r"""The index of each named group of ``regex``, as ``re.compile(regex).groupindex`` has it.

    Read from the text without compiling it (compiling waits until the alternative is first
    tried): every ``(`` that is not escaped, not in a character class and not followed by
    ``?`` opens a group, and so does ``(?P<name>``.

    Example:
        >>> _groups(r"(?P<g1>a(b)[(]\((?:c))(?P<g2>d)")
        {'g1': 1, 'g2': 3}
    """
    found: dict[str, int] = {}
    count = 0
    i, n = 0, len(regex)
    in_class = False
    while i < n:
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            # a "]" right after "[" or "[^" is a member, not the end
            if regex.startswith("]", i + 1):
                i += 1
            elif regex.startswith("^]", i + 1):
                i += 2
        elif c == "(":
            if regex.startswith("?P<", i + 1):
                count += 1
                end = regex.index(">", i + 4)
                found[regex[i + 4 : end]] = count
            elif not regex.startswith("?", i + 1):
                count += 1
        i += 1
    return found


def _fetch(groupindex: Mapping[str, int], names: list[str]) -> str:
    """A statement binding ``v_<name>`` to each named group of a match ``m``.

    ``m.group(i)`` returns the string, ``m.group(i, j)`` a tuple: one statement fits both.
    """
    if not names:
        return ""
    targets = ", ".join(f"v_{n}" for n in names)
    indices = ", ".join(str(groupindex[n]) for n in names)
    return f"    {targets} = m.group({indices})\n"


def _unreachable() -> Any:
    raise AssertionError("one alternative of a matched sub-rule must have matched")


def compile_start(
    origin: str, alternatives: list[Alternative], transformer: Transformer[Any, Any]
) -> CompiledStart:
    """The matcher of the start rule ``origin`` from its :data:`Alternative` s.

    Each alternative's functions are generated here and compiled when it is first tried.

    Raises:
        _NotFlat: a method the alternatives call is not an attribute of ``transformer``.
        ValueError: the alternatives are not what :func:`alternatives` makes.
    """
    specs: list[_Spec] = []
    for literal, regex, call in alternatives:
        env: dict[str, Any] = {"_unreachable": _unreachable}
        expr = _source(call, env, transformer)
        groups = _groups(regex)
        # The groups the expression reads are fetched with one m.group(i, j, ...) call
        # into local variables (a third of the cost of one m.group call per group).
        used = tuple(dict.fromkeys(_GROUP_CALL.findall(expr)))
        body = _GROUP_CALL.sub(r"v_\1", expr)
        fetch = _fetch(groups, list(used))
        # Three entry points: build(m) for a match found elsewhere, direct(message) that
        # matches and builds in one call, and make(groups) for the lines LineShapes takes,
        # compiled when first asked for (CompiledStart._make).
        source = (
            f"def build(m):\n{fetch}    return {body}\n"
            f"def direct(message):\n    m = _fullmatch(message)\n"
            f"    if m is None:\n        return None\n{fetch}    return {body}\n"
        )
        late_source = f"def make({', '.join(f'v_{n}' for n in used)}):\n    return {body}\n"
        method = env[f"r_{call[1]}"]
        args = tuple((value, _source(value, env, transformer)) for value in call[2])
        specs.append(_Spec(literal, regex, used, source, late_source, env, method, args))
    return CompiledStart(origin, specs)


class CompiledStarts:
    """The matchers of a grammar's flat start rules, each compiled when first asked for.

    A start rule's regexes are big and slow to compile; a family has dozens of rules and a
    short log uses a handful, so a process reading one small log compiles only what it
    meets. A rule that is not flat has no matcher (``None``).

    Args:
        transformer: the family's transformer (its methods and terminal callbacks).
        starts: the start rules.
        alternatives: what each start rule's alternatives are made of (:func:`alternatives`),
            ``None`` for a rule that is not flat.
    """

    def __init__(
        self,
        transformer: Transformer[Any, Any],
        starts: tuple[str, ...],
        alternatives: Mapping[str, list[Alternative] | None],
    ) -> None:
        self._transformer = transformer
        self._alternatives = alternatives
        self.starts = starts
        self._done: dict[str, CompiledStart | None] = {}

    def get(self, start: str) -> CompiledStart | None:
        """The matcher of ``start``, or ``None`` if it is not a flat start rule."""
        if start in self._done:
            return self._done[start]
        found = None
        alts = self._alternatives.get(start) if start in self.starts else None
        if alts is not None:
            # a rule whose method the transformer lacks keeps None: Lark parses it
            with contextlib.suppress(_NotFlat):
                found = compile_start(start, alts, self._transformer)
        self._done[start] = found
        return found

    def compiled(self) -> dict[str, CompiledStart]:
        """Every start rule that compiles, compiled now (for tests and inspection)."""
        found = {start: self.get(start) for start in self.starts}
        return {start: m for start, m in found.items() if m is not None}


def alternatives(lark: Lark, starts: tuple[str, ...]) -> dict[str, list[Alternative] | None]:
    """Every start rule's :data:`Alternative` s (``None``: not flat), read from ``lark``."""
    compiler = _Compiler(lark)
    out: dict[str, list[Alternative] | None] = {}
    for start in starts:
        try:
            out[start] = compiler.alternatives(start)
        except _NotFlat:
            out[start] = None
    return out
