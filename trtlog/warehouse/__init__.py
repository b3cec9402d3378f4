"""Every build of a fleet in one warehouse: Parquet tables, queried with DuckDB.

A view over many builds, above the single-build API (it uses only trtlog's public functions
on each build). ``ingest`` reads logs and JSON exports (serially, in local processes, or on
a Dask cluster) into Parquet tables; ``open`` gives a DuckDB connection with one view per
table; ``compare`` lines up N builds of a model by ONNX node or module; ``trend`` shows how a
model's builds moved. The tables and their columns are in docs/warehouse.md.

Needs the ``warehouse`` extra (DuckDB, PyArrow, Dask): ``pip install 'trtlog[warehouse]'``.
Nothing here is imported by ``import trtlog``.

Example::

    import trtlog.warehouse
    trtlog.warehouse.ingest(["ci-artifacts/"], to="warehouse/")
    wh = trtlog.warehouse.open("warehouse/")
    wh.sql("SELECT trt_version, avg(fusions) FROM builds GROUP BY ALL").df()
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from trtlog.errors import TrtlogError

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ imports them on first use
    from trtlog.warehouse.driver import IngestReport, Progress, ingest, repair
    from trtlog.warehouse.lineup import compare
    from trtlog.warehouse.schema import TABLES
    from trtlog.warehouse.store import WarehouseError
    from trtlog.warehouse.store import open_warehouse as open
    from trtlog.warehouse.trends import Jump, Trend, plot_trend, trend

__all__ = [
    "TABLES",
    "IngestReport",
    "Jump",
    "MissingExtraError",
    "Progress",
    "Trend",
    "WarehouseError",
    "compare",
    "ingest",
    "open",
    "plot_trend",
    "repair",
    "require_extra",
    "trend",
]

#: The packages of the ``warehouse`` extra, by import name.
EXTRA = ("duckdb", "pyarrow")
DASK = ("dask", "distributed")


class MissingExtraError(TrtlogError, ImportError):
    """A package of the ``warehouse`` extra is not installed."""


def require_extra(*, dask: bool = False) -> None:
    """Check that the ``warehouse`` extra is installed.

    Raises:
        MissingExtraError: naming the missing packages and the extra to install.
    """
    wanted = EXTRA + (DASK if dask else ())
    missing = [name for name in wanted if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtraError(
            f"the warehouse needs {', '.join(missing)}: pip install 'trtlog[warehouse]'"
        )


_WHERE = {
    "compare": "trtlog.warehouse.lineup",
    "ingest": "trtlog.warehouse.driver",
    "repair": "trtlog.warehouse.driver",
    "IngestReport": "trtlog.warehouse.driver",
    "Progress": "trtlog.warehouse.driver",
    "TABLES": "trtlog.warehouse.schema",
    "WarehouseError": "trtlog.warehouse.store",
    "open": "trtlog.warehouse.store",
    "trend": "trtlog.warehouse.trends",
    "Trend": "trtlog.warehouse.trends",
    "Jump": "trtlog.warehouse.trends",
    "plot_trend": "trtlog.warehouse.trends",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'trtlog.warehouse' has no attribute {name!r}")
    require_extra()
    imported = importlib.import_module(module)
    return getattr(imported, "open_warehouse" if name == "open" else name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
