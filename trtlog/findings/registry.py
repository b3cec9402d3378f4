"""The rule registry and :func:`lint`, which runs it.

Part of the view package :mod:`trtlog.findings`. :data:`RULES` is the one tuple of every rule,
in report order; rule ids are stable public API. :func:`lint` resolves its inputs (a log, an
engine, profiles, a reference build) into a :class:`~trtlog.findings.context.LintContext`,
runs the selected rules and returns their findings in registry order.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence

from trtlog._pydantic import gc_paused
from trtlog.buildlog import Build
from trtlog.engine.model import Engine, Profile
from trtlog.findings.base import Check
from trtlog.findings.context import LintContext
from trtlog.findings.models import Finding, RuleInfo
from trtlog.findings.rules.autotuning import check_sparsity_not_chosen, check_tactics_fast_skipped
from trtlog.findings.rules.build_process import (
    check_build_failed,
    check_dla_fallback,
    check_int8_no_calibration,
    check_slow_build_no_timing_cache,
    check_tactic_memory_skip,
)
from trtlog.findings.rules.fusion import (
    check_activation_not_fused,
    check_layer_precision_overridden,
)
from trtlog.findings.rules.hardware import (
    check_channels_misaligned,
    check_fp32_on_tensor_core_gpu,
    check_quantization_unsupported_gpu,
)
from trtlog.findings.rules.messages import (
    check_benign_warning,
    check_engine_from_other_device,
    check_fp16_weights_converted,
    check_int8_disabled_by_integration,
    check_low_precision_unsupported_gpu,
)
from trtlog.findings.rules.myelin import check_attention_not_fused, check_myelin_subkernels
from trtlog.findings.rules.precision import check_precision_fallback, check_strongly_typed_fp32
from trtlog.findings.rules.qdq import (
    check_int8_slower_than_reference,
    check_qdq_blocked_fusion,
    check_qdq_int8_float_output,
    check_qdq_missing_scale,
    check_qdq_residual_unquantized,
    check_qdq_split_fusion,
    check_qdq_unfused_quantizer,
    check_reference_alignment_failed,
)
from trtlog.findings.rules.qdq_kernels import (
    check_qdq_gemm_float_kernel,
    check_qdq_myelin_split,
    check_qdq_weights_unquantized,
)
from trtlog.findings.rules.reformat import (
    check_reformat_dtype,
    check_reformat_io_boundary,
    check_reformat_layout,
)
from trtlog.findings.rules.shapes import check_dynamic_shape_pinned
from trtlog.inputs import engine_with_profile, open_input

__all__ = ["RULES", "lint", "rule_info", "select_rules"]

log = logging.getLogger(__name__)

#: Every rule, in report order (build failures first, then Q/DQ, precision, reformats...).
RULES: tuple[Check, ...] = (
    check_build_failed,
    check_quantization_unsupported_gpu,
    check_qdq_unfused_quantizer,
    check_qdq_int8_float_output,
    check_qdq_residual_unquantized,
    check_qdq_blocked_fusion,
    check_qdq_missing_scale,
    check_qdq_split_fusion,
    check_int8_slower_than_reference,
    check_reference_alignment_failed,
    check_int8_no_calibration,
    check_precision_fallback,
    check_strongly_typed_fp32,
    check_fp32_on_tensor_core_gpu,
    check_dynamic_shape_pinned,
    check_reformat_io_boundary,
    check_reformat_dtype,
    check_reformat_layout,
    check_myelin_subkernels,
    check_attention_not_fused,
    check_tactic_memory_skip,
    check_dla_fallback,
    check_slow_build_no_timing_cache,
    check_qdq_weights_unquantized,
    check_qdq_gemm_float_kernel,
    check_qdq_myelin_split,
    check_activation_not_fused,
    check_layer_precision_overridden,
    check_low_precision_unsupported_gpu,
    check_int8_disabled_by_integration,
    check_fp16_weights_converted,
    check_engine_from_other_device,
    check_channels_misaligned,
    check_sparsity_not_chosen,
    check_tactics_fast_skipped,
    check_benign_warning,
)

_BY_ID: dict[str, Check] = {r.info.id: r for r in RULES}


def rule_info(rule_id: str) -> RuleInfo:
    """The description of a rule.

    Raises:
        KeyError: no rule has this id.

    Example:
        >>> rule_info("build-failed").severity
        'error'
    """
    return _BY_ID[rule_id].info


def select_rules(
    rules: Iterable[str] | None = None, exclude: Iterable[str] | None = None
) -> list[Check]:
    """The registry's rules restricted to ``rules`` (all when ``None``) minus ``exclude``.

    Raises:
        ValueError: an id that no rule has (the message lists the known ids).

    Example:
        >>> [r.info.id for r in select_rules(["qdq-missing-scale", "build-failed"])]
        ['build-failed', 'qdq-missing-scale']
    """
    wanted = set(rules) if rules is not None else set(_BY_ID)
    dropped = set(exclude or ())
    unknown = sorted((wanted | dropped) - set(_BY_ID))
    if unknown:
        raise ValueError(
            f"unknown rule id{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}; "
            f"known: {', '.join(_BY_ID)}"
        )
    return [r for r in RULES if r.info.id in wanted and r.info.id not in dropped]


def _resolve(
    value: Build | Engine | str | os.PathLike[str] | None,
) -> tuple[Build | None, Engine | None]:
    """A build and/or engine from a Build, an Engine or a path (see :func:`open_input`)."""
    if value is None:
        return None, None
    if not isinstance(value, Build | Engine | str | os.PathLike):
        raise TypeError(
            "trtlog.lint takes a Build, an Engine or a path (a trtexec log or a layer-info "
            f"JSON), not {type(value).__name__}"
        )
    opened = open_input(value, want=("log", "layers"))
    return opened.build, opened.engine


def lint(
    build: Build | Engine | str | os.PathLike[str] | None,
    engine: Engine | str | os.PathLike[str] | None = None,
    reference: Build | Engine | str | os.PathLike[str] | None = None,
    *,
    profile: Profile | str | os.PathLike[str] | None = None,
    reference_profile: Profile | str | os.PathLike[str] | None = None,
    rules: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
) -> list[Finding]:
    """Run the findings rules over a build and return what they found.

    Args:
        build: the parsed log (a :class:`~trtlog.buildlog.Build`), or a path to a log; an
            :class:`~trtlog.engine.Engine` or a layer JSON path lints the engine alone.
        engine: the engine's layers (an Engine or an ``--exportLayerInfo`` path); default:
            the log's own layer dump.
        reference: a reference build of the same model (usually FP16): a Build, an Engine, a
            log or a layer JSON. Enables ``qdq-split-fusion`` and ``int8-slower-than-reference``.
        profile: an ``--exportProfile`` file (or :class:`~trtlog.engine.Profile`) for the
            engine; default: the log's ``--dumpProfile`` table, when it has one.
        reference_profile: the same for the reference.
        rules: run only these rule ids.
        exclude: skip these rule ids.

    Returns:
        The findings, in registry order (see :data:`RULES`).

    Raises:
        ValueError: an unknown rule id, or neither a log nor an engine.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text("[W] [TRT] Missing scale and zero-point for tensor x, expect fall "
        ...                "back to non-int8 implementation for any layer consuming or producing "
        ...                "given tensor\\n")
        >>> [f.rule for f in lint(b)]
        ['qdq-missing-scale']
    """
    checks = select_rules(rules, exclude)
    the_build, own_engine = _resolve(build)
    if engine is not None:
        own_engine = engine if isinstance(engine, Engine) else _resolve(engine)[1]
    if own_engine is None and the_build is not None:
        own_engine = the_build.engine
    if the_build is None and own_engine is None:
        raise ValueError("lint needs a log or an engine")
    own_engine = engine_with_profile(own_engine, the_build, profile)
    ref_build, ref_engine = _resolve(reference)
    if ref_engine is None and ref_build is not None:
        ref_engine = ref_build.engine
    ref_engine = engine_with_profile(ref_engine, ref_build, reference_profile)
    if reference is not None and (ref_engine is None or own_engine is None):
        log.warning("the reference cannot be compared: a side has no engine layers")
    ctx = LintContext(the_build, own_engine, ref_build, ref_engine)
    findings: list[Finding] = []
    # the rules' indexes and findings are many young objects: the collector would rescan the
    # whole heap (a 50 MB log's events, a 20,000-layer engine) while they are made
    with gc_paused():
        for check in checks:
            info = check.info
            if info.qdq and not ctx.has_qdq:
                continue  # no Q/DQ rule runs on a build without Q/DQ nodes
            if "reference" in info.needs and ctx.reference_engine is None:
                continue
            findings.extend(check(ctx))
    return findings
