"""``trtlog.html``: :func:`trtlog.report`, one self-contained HTML page that shows a build.

A view at the top of the pipeline, next to the CLI: it reads builds, engines, comparisons and
findings through trtlog's public API and writes one HTML file that works offline (its
script, style, data, figures and the whole log inline; no network). Sections: overview,
findings, optimizer passes, merge explorer, engine layers, module tree, tactics, memory,
comparison (with a reference) and the raw log. Nothing in trtlog imports this package except
the CLI and the lazy top-level export ``trtlog.report`` (this package is not named
``report``, so that ``trtlog.report`` is only the function, as ``trtlog.parse`` is).

Example:
    >>> import trtlog
    >>> page = trtlog.report(trtlog.parse_text("[I] [TRT] Original: 5 layers\\n"))
    >>> page.startswith("<!DOCTYPE html>"), "Content-Security-Policy" in page
    (True, True)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trtlog.html.inputs import BuildInput, EngineInput, ProfileInput

__all__ = ["Report", "report"]


class Report(str):
    """The page as a string, with :meth:`write` to save it.

    Attributes:
        sections: the sections the page shows data in (the others say what input fills them).
    """

    sections: tuple[str, ...] = ()

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8, whole or not at all) and return the path.

        Raises:
            OutputError: it cannot be written (nothing is left under ``path``).
        """
        from trtlog._files import atomic_output

        target = Path(path)
        with atomic_output(target, newline="") as out:
            out.write(self)
        return target


def report(
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
    path: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
    reading: Callable[[int, int], None] | None = None,
) -> Report:
    """One HTML page that shows a build (and how it differs from a reference build).

    Args:
        build: the build: a parsed log (:class:`~trtlog.Build`), an
            :class:`~trtlog.Engine`, or a path to a trtexec log or a layer-info JSON.
        engine: the engine's layers when apart from the log (``--exportLayerInfo`` JSON or
            an Engine); default: the log's own layer dump.
        reference: a reference build of the same model (usually FP16), as ``build``.
        profile: the engine's ``--exportProfile`` (path or :class:`~trtlog.Profile`).
        reference_engine: the reference's layer JSON, when apart from its log.
        reference_profile: the reference's ``--exportProfile``.
        run: the trtexec run to show (0-based) when the log holds several; default the last.
        engine_build: the engine build of that run to show (0-based) when it holds several
            (a program calling ``build_serialized_network`` more than once); default the last.
        title: the page title; default the model or file name.
        path: also write the page there.
        progress: called with the name of each step as it starts (for a progress display).
        reading: called while a log given as a path is parsed, with the characters parsed
            so far and the log's total (the progress within the first step, which takes
            most of the time a page of a big log takes).

    Returns:
        The page (a ``str`` with :meth:`Report.write`).

    Raises:
        InputError: a file that cannot be read as a log, layer JSON or profile.
        TypeError: an argument of the wrong type.
        ValueError: neither a log nor an engine, or a run that does not exist.
    """
    from trtlog.html.make import make

    page = make(
        build,
        engine,
        reference,
        profile=profile,
        reference_engine=reference_engine,
        reference_profile=reference_profile,
        run=run,
        engine_build=engine_build,
        title=title,
        progress=progress,
        reading=reading,
    )
    if path is not None:
        page.write(path)
    return page
