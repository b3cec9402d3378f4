"""The source files of a part made before parts kept a ``sources.json``: read from its rows.

Part of ``trtlog ingest --repair`` (:func:`trtlog.warehouse.driver.repair`). A part committed
by an older trtlog has no ``sources.json``, but every ``builds`` row records its build's files
already: ``source_id``, ``paths``, ``roles``, ``file_hashes`` (the BLAKE2b digests a repair
checks each file against), ``grouping``, ``model`` and ``labels``. When the part's ``builds``
file is whole, those rows give the same list ``sources.json`` would (one entry per source id:
the runs and engine builds of one log are rows of one source); when it is the broken file, or
the part has none, the part cannot be rebuilt and the error says what to do instead.

A source all of whose files failed to read has no ``builds`` row (only ``errors`` rows, which
record no digest): it is not rebuilt, and a warning names it; ingesting its files again
records it as before.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from trtlog.warehouse import store

__all__ = ["recorded_sources"]

_log = logging.getLogger(__name__)

_COLUMNS = ["source_id", "paths", "roles", "file_hashes", "grouping", "model", "labels"]


def recorded_sources(folder: Path, damage: dict[str, str]) -> list[dict[str, Any]]:
    """The ``sources.json`` entries of a part without one, from its ``builds`` rows.

    Args:
        folder: the committed part's folder.
        damage: its broken files (path -> what is wrong), for the message.

    Raises:
        WarehouseError: the part's ``builds`` rows cannot be read (the broken file is one of
            them, or the part has none): the part and what to do instead, on one line.
    """
    files = sorted((folder / "builds").glob("*.parquet"))
    broken = [f for f in files if str(f) in damage or store.file_damage(f, full=True)]
    what = "; ".join(f"{f} ({why})" for f, why in damage.items())
    if not files or broken:
        why = "its builds file is broken too" if broken else "it holds no builds rows"
        raise store.WarehouseError(
            f"{what}: cannot rebuild part {folder.name}: it has no {store.SOURCES} (made by an "
            f"older trtlog) and {why}, which would name its source files: remove {folder} "
            "and ingest its files again"
        )
    entries: dict[str, dict[str, Any]] = {}
    for file in files:
        for row in pq.read_table(file, columns=_COLUMNS).to_pylist():
            if row["source_id"] in entries:  # another run or engine build of the same files
                continue
            paths, roles, digests = row["paths"] or [], row["roles"] or [], row["file_hashes"]
            entries[row["source_id"]] = {
                "source_id": row["source_id"],
                "files": [
                    # the size is not recorded per file; the digest check decides anyway
                    [path, role, _size(path), digest]
                    for path, role, digest in zip(paths, roles, digests or [], strict=True)
                ],
                "grouping": row["grouping"],
                "model": row["model"],
                "labels": [list(pair) for pair in row["labels"] or []],
            }
    _warn_error_only(folder, entries)
    return list(entries.values())


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _warn_error_only(folder: Path, entries: dict[str, dict[str, Any]]) -> None:
    """Warn about sources the part knows only from ``errors`` rows (not rebuilt)."""
    missing: set[str] = set()
    for file in sorted((folder / "errors").glob("*.parquet")):
        if store.file_damage(file, full=True):
            continue
        for row in pq.read_table(file, columns=["source_id", "path"]).to_pylist():
            if row["source_id"] not in entries:
                missing.add(row["path"])
    if missing:
        _log.warning(
            "part %s: %d file(s) that failed to read when it was ingested are not rebuilt "
            "(its rows record no digest): ingest them again to record them: %s",
            folder.name,
            len(missing),
            ", ".join(sorted(missing)),
        )
