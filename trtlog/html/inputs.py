"""What a report is made of: the build, its engine, the reference, and where each came from.

The first step of :func:`trtlog.report`: paths become a :class:`~trtlog.Build` (a trtexec
log) or an :class:`~trtlog.Engine` (a layer-info JSON), as every command opens its inputs
(:func:`trtlog.inputs.open_input`), profiles are merged into engines, and
a log with several trtexec runs is narrowed to one (the last, as every command does). Only
trtlog's public API is used.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from trtlog.buildlog.model import Build
from trtlog.engine.from_log import final_layers, with_log_version
from trtlog.engine.model import Engine, Profile
from trtlog.exports import load_engine, load_profile
from trtlog.inputs import open_input

__all__ = ["BuildInput", "EngineInput", "Inputs", "resolve"]

#: A build side as callers give it: a parsed log, an engine, or a path to either.
BuildInput = Build | Engine | str | os.PathLike[str]
#: An engine as callers give it: an engine or a layer-info JSON path.
EngineInput = Engine | str | os.PathLike[str]
#: A profile as callers give it.
ProfileInput = Profile | str | os.PathLike[str]


@dataclass(frozen=True)
class Side:
    """One build as the report shows it.

    Attributes:
        build: the log of the build (one trtexec run of it), ``None`` for a JSON-only side.
        engine: the engine's layers with their times, ``None`` without a layer dump or JSON.
        file_build: the whole parsed file (several runs), ``None`` without a log.
        run_note: when the file holds several runs, which one is shown.
        engine_given: whether the engine came from a separate layer JSON (not the log).
        profile_given: whether a profile was given apart from the log.
        profile: that profile, when given.
    """

    build: Build | None
    engine: Engine | None
    file_build: Build | None = None
    run_note: str | None = None
    engine_given: bool = False
    profile_given: bool = False
    profile: Profile | None = None

    @property
    def name(self) -> str:
        """The file the side was read from."""
        if self.build is not None:
            return self.build.source.name
        return self.engine.source if self.engine is not None else "?"


@dataclass(frozen=True)
class Inputs:
    """The two sides of a report (the reference is optional).

    Attributes:
        main: the build the page is about.
        reference: the reference build (``--reference``), if any.
        names: ``(role, file)`` pairs for the page's header.
    """

    main: Side
    reference: Side | None = None
    names: list[tuple[str, str]] = field(default_factory=list)


def _engine(value: EngineInput, profile: Profile | None = None) -> Engine:
    """The engine (or the layer JSON ``--layers`` names) with ``profile`` merged."""
    if isinstance(value, Engine):
        return value if profile is None else value.with_profile(profile)
    if isinstance(value, str | os.PathLike):
        return load_engine(value, profile=profile)
    raise TypeError(f"an engine is an Engine or a layer-info JSON path, not {type(value).__name__}")


def _profile(value: ProfileInput) -> Profile:
    if isinstance(value, Profile):
        return value
    if isinstance(value, str | os.PathLike):
        return load_profile(value)
    raise TypeError(
        f"a profile is a Profile or an --exportProfile path, not {type(value).__name__}"
    )


def _one_run(build: Build) -> tuple[Build, str | None]:
    """The build of the last trtexec run when the file holds several, and a note saying so."""
    if len(build.runs) <= 1:
        return build, None
    last = build.runs[-1]
    note = (
        f"the log holds {len(build.runs)} trtexec runs; this page shows run {len(build.runs)} "
        f"(lines {last.first_line}-{last.last_line}); trtlog report --run N (or "
        "build.for_run(i)) shows another"
    )
    return build.for_run(len(build.runs) - 1), note


def _one_build(build: Build, number: int | None) -> tuple[Build, str | None]:
    """The engine build ``number`` (0-based; default the last) of a run of several, and a note.

    A run of one build is the run itself (no note).
    """
    builds = build.builds
    if len(builds) <= 1:
        if number is not None and number not in (0, -1):
            raise ValueError(f"build {number + 1}: the run has 1 engine build")
        return build, None
    if number is None:
        number = len(builds) - 1
    if not -len(builds) <= number < len(builds):
        raise ValueError(
            f"build {number + 1}: the run has {len(builds)} engine builds, numbered from 1"
        )
    chosen = builds[number]
    note = (
        f"the run holds {len(builds)} engine builds; this page shows build {chosen.number + 1} "
        f"(lines {chosen.first_line}-{chosen.last_line}); trtlog report --build N (or "
        "build.for_build(i)) shows another"
    )
    return build.for_build(chosen.index), note


def side(
    value: BuildInput | None,
    engine: EngineInput | None = None,
    profile: ProfileInput | None = None,
    *,
    run: int | None = None,
    engine_build: int | None = None,
    reading: Callable[[int, int], None] | None = None,
) -> Side:
    """One side of a report from what the caller gave.

    Args:
        value: a parsed log, an engine, or a path to a log or a layer-info JSON.
        engine: the engine's layer JSON, when apart from the log.
        profile: an ``--exportProfile`` of the engine.
        run: the trtexec run to show (0-based); default the last.
        engine_build: the engine build of that run to show (0-based); default the last.
        reading: called while a log path is parsed (characters parsed, total).

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: no build and no engine, or ``run`` out of range.
    """
    build: Build | None = None
    own: Engine | None = None
    the_profile = _profile(profile) if profile is not None else None
    if value is not None:
        # a log or a layer JSON: the one answer to "what is this input?" (a pipe read once)
        opened = open_input(value, want=("log", "layers"), progress=reading, call="trtlog.report")
        build = opened.build
        if opened.engine is not None:
            own = _engine(opened.engine, the_profile)
    if build is None and engine is not None:
        raise ValueError(
            "the layers are given twice: the input is already a layer JSON (the engine is for "
            "a log without a layer dump)"
        )
    if build is None and run is not None:
        raise ValueError("--run picks a trtexec run of a log; the input is a layer JSON")
    file_build = build
    note = None
    if build is not None:
        if run is not None:
            if not -len(build.runs) <= run < max(len(build.runs), 1):
                raise ValueError(
                    f"run {run + 1}: the log has {len(build.runs)} trtexec run(s), numbered from 1"
                )
            if build.runs:
                build = build.for_run(run)
            if len(file_build.runs) > 1:  # type: ignore[union-attr]
                note = f"this page shows run {run + 1} of the {len(file_build.runs)} in the log"  # type: ignore[union-attr]
        else:
            build, note = _one_run(build)
        build, build_note = _one_build(build, engine_build)
        note = "; ".join(n for n in (note, build_note) if n) or None
    engine_given = engine is not None
    if engine is not None:
        own = _engine(engine, the_profile)
        if build is not None:  # a layer JSON prints no version: the log's, if it is the same
            own = with_log_version(own, build)
    elif own is None and build is not None and (found := final_layers(build)) is not None:
        own = _engine(found, the_profile)  # its layer dump, else its placement lines...
    if build is None and own is None:
        raise ValueError("a report needs a log or an engine (a layer-info JSON)")
    return Side(
        build=build,
        engine=own,
        file_build=file_build,
        run_note=note,
        engine_given=engine_given or (build is None),
        profile_given=the_profile is not None,
        profile=the_profile,
    )


def resolve(
    build: BuildInput | None,
    engine: EngineInput | None = None,
    reference: BuildInput | None = None,
    *,
    profile: ProfileInput | None = None,
    reference_engine: EngineInput | None = None,
    reference_profile: ProfileInput | None = None,
    run: int | None = None,
    engine_build: int | None = None,
    reading: Callable[[int, int], None] | None = None,
) -> Inputs:
    """Both sides of a report (see :func:`trtlog.report` for the arguments)."""
    main = side(build, engine, profile, run=run, engine_build=engine_build, reading=reading)
    ref = None
    if reference is not None or reference_engine is not None:
        ref = side(reference, reference_engine, reference_profile, reading=reading)
    elif reference_profile is not None:
        raise ValueError("reference_profile needs a reference")
    names: list[tuple[str, str]] = []
    for role, s in (("build", main), ("reference", ref)):
        if s is None:
            continue
        if s.build is not None:
            names.append((f"{role} log", s.build.source.name))
        if s.engine is not None and s.engine_given:
            names.append((f"{role} layers", s.engine.source))
        if s.profile is not None:
            names.append((f"{role} profile", s.profile.source))
    return Inputs(main=main, reference=ref, names=names)
