"""Reading the two sides of a comparison and :func:`compare`.

Part of the view package :mod:`trtlog.diff`. A side is a :class:`~trtlog.buildlog.Build`, an
:class:`~trtlog.engine.Engine` or a path (a layer JSON when the file looks like JSON, else a
log); layers are aligned when both sides have an engine, passes compared when both are
verbose logs.
"""

from __future__ import annotations

import os
from typing import Literal

from trtlog._display import visible
from trtlog.buildlog import Build
from trtlog.diff.align import compare_engines, side_of_engine
from trtlog.diff.models import Comparison, PassComparison, SideInfo
from trtlog.diff.passes import compare_passes
from trtlog.diff.totals import run_totals
from trtlog.engine.model import Engine, Profile, strongly_typed
from trtlog.errors import InputError
from trtlog.inputs import Opened, engine_with_profile, open_input

__all__ = ["compare"]

# the one "log or JSON export?" test is trtlog.inputs.is_json_export

# -- inputs --------------------------------------------------------------------------------


def _load(
    label: Literal["A", "B"],
    value: Build | Engine | str | os.PathLike[str] | Opened,
    profile: Profile | str | os.PathLike[str] | None,
) -> tuple[Engine | None, Build | None, SideInfo]:
    if not isinstance(value, Build | Engine | str | os.PathLike | Opened):
        raise TypeError(
            "trtlog.compare takes a Build, an Engine or a path (a trtexec log or a layer-info "
            f"JSON) for each side; {label} is {type(value).__name__}"
        )
    # (an input the CLI opened already: a pipe can be read once)
    opened = value if isinstance(value, Opened) else open_input(value, want=("log", "layers"))
    build = opened.build
    engine = build.engine if build is not None else opened.engine
    kind: Literal["log", "layer_json", "engine"] = (
        "log" if build is not None else "engine" if isinstance(value, Engine) else "layer_json"
    )
    engine = engine_with_profile(engine, build, profile)
    source = build.source.name if build is not None else None
    side = side_of_engine(label, engine, kind, build, source)
    if strongly_typed(build, engine):
        side = side.model_copy(update={"strongly_typed": True})
    return engine, build, side


def compare(
    a: Build | Engine | str | os.PathLike[str] | Opened,
    b: Build | Engine | str | os.PathLike[str] | Opened,
    *,
    profile_a: Profile | str | os.PathLike[str] | None = None,
    profile_b: Profile | str | os.PathLike[str] | None = None,
) -> Comparison:
    """Compare two builds of a model: layers, fusions, precisions, tactics, passes and times.

    Each side is a :class:`~trtlog.buildlog.Build` (its layer dump and optimizer lines), an
    :class:`~trtlog.engine.Engine`, or a path: a layer-info JSON (read when the file looks
    like JSON) or a trtexec log. Layers are aligned when both sides have an engine; the
    optimizer's fusions are compared pass by pass when both sides are verbose logs.

    Args:
        a: the first build (``A``, the reference); also an input opened already by
            :func:`trtlog.inputs.open_input` (the CLI's, which reads a pipe once).
        b: the second build (``B``).
        profile_a: an ``--exportProfile`` file (or :class:`~trtlog.engine.Profile`) for A;
            without it, a log's ``--dumpProfile`` table gives the layer times.
        profile_b: the same for B.

    Two logs without layer dumps still compare their run and build figures (throughput,
    latency, build time, engine size, memory: :attr:`Comparison.totals`).

    Raises:
        InputError: nothing comparable: a layer JSON against a log without a layer dump
            that is not a verbose log (or a file that cannot be read).

    Example:
        >>> from trtlog.engine import Engine, EngineLayer
        >>> def engine(*names):
        ...     layers = [EngineLayer(index=i, name=n) for i, n in enumerate(names)]
        ...     return Engine(source="x", origin="layer_json", detailed=False, layers=layers)
        >>> cmp = compare(engine("conv1 + relu1", "conv2"), engine("conv1 + relu1", "conv2"))
        >>> cmp.markers()
        {'=': 2, '~': 0, '-': 0, '+': 0}
    """
    engine_a, build_a, side_a = _load("A", a, profile_a)
    engine_b, build_b, side_b = _load("B", b, profile_b)
    passes = side_a.passes and side_b.passes
    totals = run_totals(build_a, build_b)
    if engine_a is None or engine_b is None:
        missing = side_a if engine_a is None else side_b
        both_logs = build_a is not None and build_b is not None
        if not passes and not (both_logs and totals):
            raise InputError(
                f"{missing.label} has no layers to compare (the log has no layer dump)"
                + ("" if side_a.passes or side_b.passes else " and no optimizer passes")
                + ("" if both_logs else ", and a layer JSON holds nothing else to compare"),
                source=missing.source,
                hint="build with --dumpLayerInfo --profilingVerbosity=detailed (and --verbose "
                "for the passes), or pass the --exportLayerInfo JSON",
            )
        compared = "the optimizer passes" if passes else "the run and build figures"
        if passes and totals:
            compared = "the run and build figures and the optimizer passes"
        cmp = Comparison(
            a=side_a,
            b=side_b,
            notes=(
                f"layers not aligned: {missing.label} ({visible(missing.source)}) has no layer "
                "dump (build with --dumpLayerInfo --profilingVerbosity=detailed, or pass the "
                f"--exportLayerInfo JSON); only {compared} are compared",
            ),
        )
    else:
        cmp = compare_engines(engine_a, engine_b, side_a, side_b)
    notes = list(cmp.notes)
    if passes and build_a is not None and build_b is not None:
        pass_cmp: PassComparison | None = compare_passes(build_a, build_b)
    else:
        pass_cmp = None
        which = [s.label for s in (side_a, side_b) if not s.passes]
        notes.append(
            f"no per-pass differences: {' and '.join(which)} "
            f"{'is not a verbose log' if len(which) == 1 else 'are not verbose logs'}"
        )
    for side, profile, engine in ((side_a, profile_a, engine_a), (side_b, profile_b, engine_b)):
        if profile is not None and engine is None:
            notes.append(f"the profile of {side.label} is not used: {side.label} has no layers")
        if engine is not None:
            notes.extend(f"{side.label}: {n}" for n in engine.notes if "names-only" not in n)
    return cmp.model_copy(update={"passes": pass_cmp, "totals": totals, "notes": tuple(notes)})
