"""Advice that fits the TensorRT version of the input: the flags and APIs a fix may name.

Part of the view package :mod:`trtlog.findings`. trtexec's flags changed between versions:
``--workspace=<MiB>`` (5.x to 8.3; deprecated from 8.4) became ``--memPoolSize=workspace:<MiB>``
(8.4+), ``--profilingVerbosity`` exists from 8.2 (``detailed``; 8.2 and 8.3 also spell it
``verbose``), and a TensorRT 11 build is strongly typed: ``--fp16``, ``--int8`` and ``--best``
are gone, the model's own types (an FP16 export, Q/DQ nodes) set the precision. Every fix that
names one of these flags asks here; when the version is unknown, the advice says for which
versions each spelling is meant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trtlog.findings.context import LintContext

__all__ = ["detailed_flag", "detailed_flag_for", "fp16_flag", "version_of", "workspace_flag"]

Version = tuple[int, ...]


def version_of(ctx: LintContext) -> Version | None:
    """The TensorRT version of the lint's log (``None`` when it does not say)."""
    build = ctx.build
    return build.trt_version if build is not None and build.trt_version else None


def workspace_flag(ctx: LintContext, mib: str = "<MiB>") -> str:
    """The trtexec flag that raises the workspace limit, for the input's version.

    Example:
        >>> class _C:  # a context without a log
        ...     build = None
        ...     def option(self, key): return None
        >>> workspace_flag(_C(), "1024")
        '--memPoolSize=workspace:1024 (TensorRT 8.4+; --workspace=1024 before 8.4)'
    """
    version = version_of(ctx)
    old_options = ctx.option("Workspace") is not None and ctx.option("Memory Pools") is None
    if (version is not None and version < (8, 4)) or (version is None and old_options):
        return f"--workspace={mib}"
    if version is None:
        return f"--memPoolSize=workspace:{mib} (TensorRT 8.4+; --workspace={mib} before 8.4)"
    return f"--memPoolSize=workspace:{mib}"


def detailed_flag(ctx: LintContext) -> str:
    """How to get a build's layer details, or what the version cannot do.

    Example:
        >>> class _C:
        ...     build = None
        >>> detailed_flag(_C())
        '--profilingVerbosity=detailed (TensorRT 8.2+)'
    """
    return detailed_flag_for(version_of(ctx))


def detailed_flag_for(version: Version | None) -> str:
    """:func:`detailed_flag` for a version (``None``: unknown).

    Example:
        >>> detailed_flag_for((5, 1))
        '--profilingVerbosity=detailed on TensorRT 8.2+ (this version has no such flag)'
        >>> detailed_flag_for((10, 4))
        '--profilingVerbosity=detailed'
    """
    if version is None:
        return "--profilingVerbosity=detailed (TensorRT 8.2+)"
    if version < (8, 2):
        return "--profilingVerbosity=detailed on TensorRT 8.2+ (this version has no such flag)"
    return "--profilingVerbosity=detailed"


def fp16_flag(ctx: LintContext) -> str:
    """How to let layers run in FP16: ``--fp16``, or an FP16 model for strongly typed builds.

    Example:
        >>> class _C:
        ...     build = None
        ...     strongly_typed = False
        >>> fp16_flag(_C()).split(" (")[0]
        '--fp16'
    """
    version = version_of(ctx)
    if ctx.strongly_typed or (version is not None and version >= (11,)):
        return (
            "an FP16 export of the model (or Q/DQ nodes): a strongly typed build takes the "
            "model's own types and has no --fp16"
        )
    if version is None:
        return (
            "--fp16 (TensorRT 10 and older; TensorRT 11 builds strongly typed: export the model "
            "in FP16)"
        )
    return "--fp16"
