"""Moved to :mod:`trtlog.findings.rules.build_process` in trtlog 0.2 (removed in 0.3)."""

from trtlog._moved import moved_module

moved_module(__name__, "trtlog.findings.rules.build_process")
