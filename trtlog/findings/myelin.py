"""Moved to :mod:`trtlog.findings.rules.myelin` in trtlog 0.2; this path is removed in 0.3."""

from trtlog._moved import moved_module

moved_module(__name__, "trtlog.findings.rules.myelin")
