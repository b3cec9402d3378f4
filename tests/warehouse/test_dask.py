"""The distributed path: a real LocalCluster of 2 worker processes on the loopback interface."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT
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


# The command's cluster binds no HTTP port (no dashboard); the filter stays for an older Dask
# that binds 8787 when another cluster on the machine holds it.
@pytest.mark.filterwarnings("ignore:Port 8787 is already in use")
def test_jobs_start_a_local_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--jobs 2`` reads the builds on a LocalCluster of 2 workers (the one parallel engine)."""
    _distributed()
    logs = [
        FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log",
        FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log",
    ]
    code = main(["ingest", *map(str, logs), "--to", str(tmp_path / "wh"), "--jobs", "2"])
    captured = capsys.readouterr()
    assert code == 0
    assert "2 new build(s)" in captured.out and "dask (2 workers)" in captured.out
    assert "INFO" not in captured.err  # the cluster's start and stop are not news


def test_workers_is_the_old_name_of_jobs(tmp_path: Path) -> None:
    from trtlog.cli.main import _parser

    args = _parser(["ingest"]).parse_args(["ingest", "x.log", "--to", "wh", "--workers", "3"])
    assert args.jobs == 3


def test_one_job_is_this_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
    assert main(["ingest", str(log), "--to", str(tmp_path / "wh"), "--jobs", "1"]) == 0
    assert "serial" in capsys.readouterr().out


_KILLED_INGEST = """
import sys
from trtlog.cli.main import main
sys.exit(main(["ingest", sys.argv[1], "--to", sys.argv[2], "--jobs", "2", "--stream-mb", "0.001"]))
"""


def test_nothing_survives_a_killed_ingest(tmp_path: Path) -> None:
    """``kill -9`` of an ingest on its LocalCluster leaves no process behind (no worker,
    spawn or forkserver process, no resource tracker), within a bounded wait."""
    _distributed()
    psutil = pytest.importorskip("psutil")
    from tests.warehouse.conftest import copy_fixtures

    inputs = copy_fixtures(tmp_path / "in")
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_INGEST, str(inputs), str(tmp_path / "wh")],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    parent = psutil.Process(proc.pid)
    children: list[Any] = []
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            children = parent.children(recursive=True)
            workers = [c for c in children if "spawn_main" in " ".join(_cmdline(c))]
            if len(workers) >= 2:
                break
            time.sleep(0.1)
        else:
            pytest.skip("the ingest ended before its two workers were seen")
        time.sleep(1.0)  # the workers busy with batches
        children = parent.children(recursive=True)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert len(children) >= 2
    _gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, [" ".join(_cmdline(p))[:120] for p in alive]


def _cmdline(process: Any) -> list[str]:
    try:
        return list(process.cmdline())
    except Exception:  # gone meanwhile
        return []
