"""Making a report: inputs resolved, sections collected, log packed, page rendered once.

Called by :func:`trtlog.report`; see :mod:`trtlog.html.inputs`, :mod:`trtlog.html.data`
and :mod:`trtlog.html.page` for the steps. All of it runs in the caller's thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from trtlog._pydantic import gc_paused
from trtlog._version import __version__
from trtlog.html import Report
from trtlog.html.data import EXPLORER_EMPTY, collect, graph_filled, graph_section, page_scope
from trtlog.html.inputs import BuildInput, EngineInput, Inputs, ProfileInput, resolve
from trtlog.html.page import LogPack, render

__all__ = ["SECTIONS", "make"]

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
    engine_build: int | None = None,
    title: str | None = None,
    progress: Callable[[str], None] | None = None,
    reading: Callable[[int, int], None] | None = None,
) -> Report:
    """The report page (see :func:`trtlog.report`)."""
    step = progress or (lambda _stage: None)
    # the page is built from many small objects next to a build of millions: a collection
    # walking that build over and over would cost more than the page (trtlog's engine
    # loader pauses the collector likewise). The inputs too: the log's engine, its events
    # and the page's rows are kept until the page is written, and a collection after each
    # of them (two on a real 2 MB log, 8 ms) walked the young ones again
    with gc_paused():
        step("reading inputs")
        inputs = resolve(
            build,
            engine,
            reference,
            profile=profile,
            reference_engine=reference_engine,
            reference_profile=reference_profile,
            run=run,
            engine_build=engine_build,
            reading=reading,
        )
        return _make(inputs, title, step)


def _make(inputs: Inputs, title: str | None, step: Callable[[str], None]) -> Report:
    main = inputs.main
    log = None
    if main.file_build is not None:
        # (each line's kind comes from the event store's kind rows: no event is built)
        step("packing the log")
        log = LogPack(main.file_build)
    # the build or round the page shows, taken once for every section (a round of several
    # reads all of its run's events)
    scoped = page_scope(main.build) if main.build is not None else None
    collected = collect(inputs, step, scoped)
    if log is not None:
        log.cite(collected["lines"])
    data = collected["data"]
    available = data["available"]
    graph = None
    if scoped is not None:
        step("merge graph")
        graph = graph_section(inputs, scoped[0])
        assert graph is not None
        if not graph_filled(graph):
            # a graph without an ONNX node or an engine layer (a log without parser lines
            # and layers): the explorer says what input would fill it
            available["explorer"] = EXPLORER_EMPTY
    step("writing the page")
    overview = collected["overview"]
    summary = overview["summary"]
    name = (
        title
        or (summary.model if summary is not None and summary.model else None)
        or os.path.basename(main.name)
    )
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
    data["meta"] = {"title": name, "version": __version__, "runNote": main.run_note}
    page = Report(render(context, data, log, graph))
    page.sections = tuple(key for key, _ in SECTIONS if key not in available)
    return page
