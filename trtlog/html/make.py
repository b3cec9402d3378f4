"""Making a report: inputs resolved, data collected, log packed, page rendered.

Called by :func:`trtlog.report`; see :mod:`trtlog.html.inputs`, :mod:`trtlog.html.data`
and :mod:`trtlog.html.page` for the three steps.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from trtlog._pydantic import gc_paused
from trtlog._version import __version__
from trtlog.html import Report, child
from trtlog.html.data import EXPLORER_EMPTY, collect, graph_filled, graph_section, page_scope
from trtlog.html.dropper import Dropper
from trtlog.html.inputs import BuildInput, EngineInput, Inputs, ProfileInput, resolve
from trtlog.html.page import LogPack, data_payload, render

if TYPE_CHECKING:
    from trtlog.buildlog.model import Build

__all__ = ["FORK_EVENTS", "FORK_LAYERS", "SECTIONS", "make"]

#: A log of at least this many events (each a line or more), or an engine of at least this
#: many layers, has its merge graph computed in a child process (:mod:`trtlog.html.child`):
#: below, the graph takes a few hundredths of a second and the fork and the result's
#: transfer would cost as much. Events, not lines: a parsed build knows how many it has,
#: while its line count costs a pass over the text (50 ms on a 50 MB log, before the fork:
#: on both processes' way; the log pack finds the line starts after it, from the bytes it
#: compresses).
FORK_EVENTS = 100_000
FORK_LAYERS = 2_000

#: The page's sections: id, title, what each answers (the navigation bar and the README).
SECTIONS: tuple[tuple[str, str], ...] = (
    ("overview", "Overview"),
    ("findings", "Findings"),
    ("passes", "Passes"),
    ("explorer", "Merge explorer"),
    ("layers", "Layers"),
    ("modules", "Modules"),
    ("tactics", "Tactics"),
    ("memory", "Memory"),
    ("compare", "Comparison"),
    ("log", "Raw log"),
)


def make(
    build: BuildInput | None,
    engine: EngineInput | None = None,
    reference: BuildInput | None = None,
    *,
    profile: ProfileInput | None = None,
    reference_engine: EngineInput | None = None,
    reference_profile: ProfileInput | None = None,
    run: int | None = None,
    title: str | None = None,
    progress: Callable[[str], None] | None = None,
    reading: Callable[[int, int], None] | None = None,
) -> Report:
    """The report page (see :func:`trtlog.report`)."""
    step = progress or (lambda _stage: None)
    step("reading inputs")
    inputs = resolve(
        build,
        engine,
        reference,
        profile=profile,
        reference_engine=reference_engine,
        reference_profile=reference_profile,
        run=run,
        reading=reading,
    )
    # the page is built from many small objects next to a build of millions: a collection
    # walking that build over and over would cost more than the page (trtlog's engine
    # loader pauses the collector likewise); what the report leaves (the build's and the
    # engine's caches) then moves to the oldest generation, or the first allocation after
    # the pause would walk all of it (a quarter of the page's writing on the benchmark)
    # what the page was made from is freed by a thread once _make has let go of it (a big
    # page's makings take tens of milliseconds to free: see trtlog.html.dropper)
    dropper = Dropper()
    with gc_paused():
        page = _make(inputs, title, step, dropper)
    dropper.release()
    return page


def _big(inputs: Inputs) -> bool:
    """Whether the page's merge graph is worth a child process (see :data:`FORK_EVENTS`)."""
    main = inputs.main
    if main.build is not None and main.build.event_count >= FORK_EVENTS:
        return True
    return main.engine_given and main.engine is not None and len(main.engine.layers) >= FORK_LAYERS


#: The merge graph's block: its :func:`~trtlog.html.page.data_payload` (text, encoding) and
#: whether it holds an ONNX node or an engine layer.
GraphBlock = tuple[str, str, bool]


def _graph_block(inputs: Inputs, scope: Build | None) -> GraphBlock | None:
    """The merge graph section, written for its own block of the page (``None``: no build)."""
    section = graph_section(inputs, scope)
    if section is None:
        return None
    text, encoding = data_payload(section)
    child.keep(section)  # (a forked child does not free it: see child.keep)
    return text, encoding, graph_filled(section)


#: The merge graph's block as :func:`~trtlog.html.page.render` writes it empty (user text
#: cannot write ``<script``: the templates escape it, the data blocks hold no ``<``).
_EMPTY_GRAPH = '<script type="application/json" id="trtlog-graph" data-encoding="json"></script>'
#: The log's block as :func:`~trtlog.html.page.render` writes it without the log's text.
_EMPTY_LOG = (
    '<script type="application/octet-stream" id="trtlog-log" data-encoding="gzip+base64"></script>'
)


def _with_blocks(page: str, block: GraphBlock, log_text: str | None) -> str:
    """``page`` (rendered without the merge graph) with the graph's block filled.

    And the log's block with ``log_text``, when given (rendered without it: see
    :func:`_made`); one copy of the page for both.
    """
    at = page.index(_EMPTY_GRAPH)
    text, encoding, _ = block
    head = _EMPTY_GRAPH[: _EMPTY_GRAPH.rindex('json"')]  # up to the encoding's value
    pieces = [page[:at], head, encoding, '">', text, "</script>"]
    rest = at + len(_EMPTY_GRAPH)
    if log_text is not None:
        log_at = page.index(_EMPTY_LOG, rest)
        end = len(_EMPTY_LOG) - len("</script>")
        pieces += [page[rest : log_at + end], log_text]
        rest = log_at + end
    pieces.append(page[rest:])
    return "".join(pieces)


def _make(
    inputs: Inputs, title: str | None, step: Callable[[str], None], dropper: Dropper
) -> Report:
    # the merge graph, the biggest step, in a child process while the other sections are
    # made (forked first: before this process starts the log's compression thread); the
    # child writes the section's block whole (its own string table, its JSON, compressed),
    # so that the parent only reads bytes
    # the build or round the page shows, taken once for every section (a round of several
    # reads all of its run's events: before the fork, the child shares them)
    build = inputs.main.build
    scoped = page_scope(build) if build is not None else None
    fork = build is not None and child.wanted(_big(inputs))
    graph = child.start(lambda: _graph_block(inputs, scoped[0] if scoped else None), fork)
    try:
        return _made(inputs, title, step, graph, scoped, dropper)
    finally:
        graph.close()


def _made(
    inputs: Inputs,
    title: str | None,
    step: Callable[[str], None],
    graph: child.Pending[GraphBlock | None],
    scoped: tuple[Build, dict[str, Any] | None] | None,
    dropper: Dropper,
) -> Report:
    main = inputs.main
    # with a child at work, the log compresses on the core it leaves (the three would share
    # two cores, and the child or this process is the page's last): from the step where
    # the child has sent its result, or when this process waits for it; the page is then
    # written without the log's text, put in with the graph's block
    forked = graph.pid is not None
    with ThreadPoolExecutor(max_workers=1) as pool:
        # the log compresses in a thread while the views are computed
        log = (
            LogPack(main.file_build, pool, start=not forked)
            if main.file_build is not None
            else None
        )
        steps = step
        if forked and log is not None:
            pack = log

            def steps(stage: str) -> None:
                if not pack.started and graph.done():
                    pack.start()
                step(stage)

        collected = collect(inputs, steps, scoped)
        available = collected["data"]["available"]
        if log is not None:
            step("packing the log")
            log.finish(collected["lines"])
        step("writing the page")
        overview = collected["overview"]
        summary = overview["summary"]
        name = (
            title
            or (summary.model if summary is not None and summary.model else None)
            or os.path.basename(main.name)
        )
        data = collected["data"]
        context: dict[str, Any] = {
            "title": name,
            "version": __version__,
            "inputs": inputs.names,
            "sections": SECTIONS,
            "available": available,
            "overview": overview,
            "run_note": main.run_note,
            "rounds": data["rounds"],
            "reference": inputs.reference is not None,
        }
        data["meta"] = {
            "title": name,
            "version": __version__,
            "runNote": main.run_note,
        }
        # the page written while the merge graph may still be in the making, its block
        # empty; then the block put in (a graph without an ONNX node or an engine layer,
        # which a log without parser lines and layers gives, makes the page again: the
        # explorer then says what input would fill it)
        deferred = forked and log is not None  # (the log's text put in with the graph's)
        text = render(context, data, log, log_text=not deferred)
        if main.build is not None:
            step("merge graph")
            if log is not None:
                log.start()  # (at the latest now: this process waits for the child)
            block = graph.result()
            assert block is not None
            if not block[2]:
                available["explorer"] = EXPLORER_EMPTY
                text = render(context, data, log, log_text=not deferred)
            text = _with_blocks(text, block, log.text.result() if deferred and log else None)
        page = Report(text)
    page.sections = tuple(key for key, _ in SECTIONS if key not in available)
    dropper.hold(collected, text)
    return page
