"""The distributed path: a real LocalCluster of 2 worker processes on the loopback interface."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.warehouse.test_stream import assert_same_tables
from trtlog.cli import main
from trtlog.warehouse.driver import ingest

pytestmark = pytest.mark.slow


def _distributed() -> Any:
    """``distributed``, imported by the tests that run (not by every xdist worker's
    collection: 0.4 s of CPU in each), or the test skips."""
    return pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    import logging

    distributed = _distributed()
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",  # None still binds 8787, and warns (an error here) when taken
        silence_logs=logging.ERROR,
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_serial_and_distributed_give_identical_tables(
    client: Any, inputs: Path, warehouse: Path, tmp_path: Path
) -> None:
    root = tmp_path / "wh"
    report = ingest([inputs], to=root, client=client, batch_bytes=50_000)
    assert report.executor == "dask (2 workers)"
    assert report.workers == 2  # both workers read builds
    assert report.failures == []
    assert_same_tables(warehouse, root)
    again = ingest([inputs], to=root, client=client)
    assert again.ingested == 0 and again.present == report.ingested


def test_cli_joins_a_scheduler(
    client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    address = client.scheduler.address
    assert address.startswith("tcp://127.0.0.1:")
    log = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
    code = main(["ingest", str(log), "--to", str(tmp_path / "wh"), "--scheduler", address])
    assert code == 0
    assert "1 new build(s)" in capsys.readouterr().out


# The command's cluster binds its scheduler's HTTP port 8787 when free, else another one with
# a warning: another cluster on the machine (a benchmark script run by the test suite in
# another worker) must not fail this test.
@pytest.mark.filterwarnings("ignore:Port 8787 is already in use")
def test_cli_starts_a_local_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _distributed()
    log = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
    code = main(["ingest", str(log), "--to", str(tmp_path / "wh"), "--workers", "1"])
    assert code == 0
    assert "dask (1 workers)" in capsys.readouterr().out
