"""``LintContext.engine_layer_lines`` (the findings' log lines of engine layers) is ``layer_lines``.

The shortcut skips parsing a log's layer-dump records for their names when pieces of the engine's
layer names are absent from the records' text (issue 15: a report of a layer JSON next to a log
whose dumps name other layers). It rests on a record's layer name being a piece of its own text,
checked here on every fixture and corpus log, and its answer must be ``layer_lines``'s for every
engine layer name: checked for every log with its own engine and with every layer JSON.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import trtlog
from tests.conftest import FIXTURES, corpus_logs, layer_json_files
from trtlog import Build, Engine
from trtlog.findings.context import _DUMP_RECORDS, _PLACEMENTS, LintContext, _pieces

LOGS = sorted((FIXTURES / "logs").glob("*.log")) + corpus_logs()


def _lazy(path: Path) -> Build:
    """A fresh lazy parse with its line offsets known (as a report's build has them)."""
    b = trtlog.parse(path)
    assert b.line_count > 0
    return b


@functools.cache
def _layer_engines() -> list[Engine]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [trtlog.load_engine(p) for p in layer_json_files()]


def test_a_records_name_is_a_piece_of_its_text() -> None:
    seen = 0
    for path in LOGS:
        b = trtlog.parse(path)
        for cls in (*_DUMP_RECORDS, *_PLACEMENTS):
            for e in b.of(cls):
                text = b.lines_text(*e.span)
                if "\\" in text:
                    continue  # (the shortcut gives up on such text)
                assert getattr(e, "layer") in text, (path.name, e.span)  # noqa: B009
                seen += 1
    assert seen > 500


def _check(b: Build, engine: Engine) -> bool:
    """engine_layer_lines equals layer_lines on every engine name; whether it skipped."""
    fast = LintContext(b, engine)
    found = fast.engine_layer_lines
    plain = LintContext(b, engine).layer_lines
    for name in fast.columns.names:
        assert sorted(found.get(name, [])) == sorted(plain.get(name, [])), name
    return not found and bool(plain)


def test_engine_layer_lines_are_layer_lines() -> None:
    skipped = kept = 0
    for path in LOGS:
        b = _lazy(path)
        own = trtlog.parse(path).engine
        engines = [own] if own is not None else []
        for engine in [*engines, *_layer_engines()]:
            if _check(_lazy(path) if engine is own else b, engine):
                skipped += 1
            elif engine is own and LintContext(b, engine).layer_lines:
                kept += 1
    assert skipped >= 20  # the shortcut ran, on logs with records
    assert kept >= 5  # and logs whose own engine names its records kept the index


def test_the_shortcut_gives_up_without_line_offsets_or_with_events_built() -> None:
    path = LOGS[0]
    engine = _layer_engines()[0]
    b = trtlog.parse(path)
    assert not LintContext(b, engine)._names_unshown()  # no line offsets yet
    b.line_count  # noqa: B018
    b.events  # noqa: B018
    assert not LintContext(b, engine)._names_unshown()  # events built


def test_pieces() -> None:
    assert _pieces("/a/b/Conv") == ["/a/", "/a/b/Conv"]
    assert _pieces("conv1") == ["conv1"]
    assert _pieces("{ForeignNode[/x/MatMul.../y]}") == ["/x/", "{ForeignNode[/x/MatMul.../y]}"]
