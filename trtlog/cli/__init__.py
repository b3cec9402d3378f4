"""The ``trtlog`` command-line tool: one module per command, rendering only.

Top of the pipeline. :func:`main` (:mod:`~trtlog.cli.main`) parses the arguments and runs a
command; :mod:`~trtlog.cli.registry` lists the commands; :mod:`~trtlog.cli.common` holds what
they share. ``python -m trtlog`` and the ``trtlog`` script call :func:`main`.
"""

from trtlog.cli.main import main

__all__ = ["main"]
