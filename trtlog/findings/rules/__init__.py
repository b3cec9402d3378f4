"""The lint rules, one module per topic; :data:`trtlog.findings.registry.RULES` lists them all.

:mod:`~trtlog.findings.rules.build_process` (the build itself: failures, starved tactics,
DLA fallback, timing cache, calibration), :mod:`~trtlog.findings.rules.qdq` (Q/DQ placement
and fusion), :mod:`~trtlog.findings.rules.precision`, :mod:`~trtlog.findings.rules.reformat`,
:mod:`~trtlog.findings.rules.myelin`. A new rule is a ``check_*`` function decorated with
:func:`trtlog.findings.base.rule` in the module of its topic, added to ``RULES`` and
described in ``docs/rules.md``.
"""
