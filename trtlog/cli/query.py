"""``trtlog query``: SQL over a warehouse, run by DuckDB (part of the command-line package).

The command itself lives with the warehouse (``trtlog.warehouse.command``), which imports
only the standard library at load time; DuckDB, PyArrow and Dask load when the command runs.
"""

from __future__ import annotations

from trtlog.warehouse.command import add_query_arguments as add_arguments
from trtlog.warehouse.command import run_query as run

__all__ = ["add_arguments", "run"]
