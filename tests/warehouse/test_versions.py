"""Every build of the warehouse gets the version its inputs print, and says where from.

A layer JSON prints no TensorRT version: it takes the one of a log of the same engine in its
folder (``paired_log``: the log lists the same layers; ``paired_log_name``: no log lists
layers, all print one version). A log's version comes from its banner, ``TensorRT version:``,
a library's file name or a tool's package check; a TensorRT-RTX log is named so.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS, FIXTURES, needs_corpus
from trtlog.numbers import decode_version
from trtlog.warehouse import open as open_warehouse
from trtlog.warehouse.driver import ingest
from trtlog.warehouse.files import input_files, partner_logs

_LOG = FIXTURES / "logs" / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log"
_JSON = FIXTURES / "layer_info" / "trt10.16-like_smallnet-fp16_layers-detailed.json"
_OTHER = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
_BANNER = re.compile(r"\[TensorRT v(\d+)\]")
# a run that loads the engine and prints no layers (our own text)
_RUN_LOG = (
    "&&&& RUNNING TensorRT.trtexec [TensorRT v101601] # trtexec --loadEngine=smallnet.engine\n"
    "[12/07/2026-08:00:00] [I] Engine loaded in 0.01 sec.\n"
    "&&&& PASSED TensorRT.trtexec [TensorRT v101601] # trtexec --loadEngine=smallnet.engine\n"
)


def _banner_version(path: Path) -> str:
    found = _BANNER.search(path.read_text(encoding="utf-8"))
    assert found is not None
    return ".".join(map(str, decode_version(int(found[1]))))


def _json_row(folder: Path, tmp_path: Path) -> dict[str, Any]:
    root = tmp_path / "wh"
    ingest([folder], to=root, jobs=1)
    wh = open_warehouse(root)
    rows = wh.sql(
        "SELECT trt_version, version_source, product, notes FROM builds "
        "WHERE list_contains(roles, 'layers') AND NOT list_contains(roles, 'log')"
    ).fetchall()
    assert len(rows) == 1, rows
    trt, source, product, notes = rows[0]
    return {"trt_version": trt, "version_source": source, "product": product, "notes": notes}


def test_a_layer_json_takes_the_version_of_a_log_listing_its_layers(tmp_path: Path) -> None:
    folder = tmp_path / "ci"
    folder.mkdir()
    # two build logs of one stem: the JSON is grouped with neither, so it is a build alone
    shutil.copy(_LOG, folder / "smallnet_build-verbose.log")
    shutil.copy(_OTHER, folder / "smallnet_build-other.log")
    shutil.copy(_JSON, folder / "smallnet_layers-detailed.json")
    row = _json_row(folder, tmp_path)
    # the 8.6.1 log lists other layers (another engine): the 10.16 one decides
    assert row["trt_version"] == _banner_version(_LOG) == "10.16.1"
    assert row["version_source"] == "paired_log"
    assert any("smallnet_build-verbose.log" in n and "its layers" in n for n in row["notes"])


def test_a_log_of_other_layers_gives_no_version(tmp_path: Path) -> None:
    folder = tmp_path / "ci"
    folder.mkdir()
    shutil.copy(_OTHER, folder / "smallnet_build-verbose.log")
    shutil.copy(_OTHER, folder / "smallnet_build-copy.log")
    shutil.copy(_JSON, folder / "smallnet_layers-detailed.json")
    row = _json_row(folder, tmp_path)
    assert row["trt_version"] is None and row["version_source"] is None


def test_a_log_without_layers_pairs_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "ci"
    folder.mkdir()
    # their stems extend the JSON's (smallnet-a, smallnet-b): partners, not its group
    (folder / "smallnet-a_run.log").write_text(_RUN_LOG, encoding="utf-8")
    (folder / "smallnet-b_run.log").write_text(_RUN_LOG.replace("0.01", "0.02"), "utf-8")
    shutil.copy(_JSON, folder / "smallnet_layers-detailed.json")
    row = _json_row(folder, tmp_path)
    assert row["trt_version"] == "10.16.1"
    assert row["version_source"] == "paired_log_name"


def test_partner_logs_share_the_folder_and_the_stem(tmp_path: Path) -> None:
    names = ["m_layers.json", "m_build.log", "m_run-verbose-profile.log", "mx_build.log"]
    for name in names:
        (tmp_path / name).write_text("x", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.log").write_text("x", encoding="utf-8")
    files = input_files([str(tmp_path / n) for n in [*names, "sub/m.log"]])
    from trtlog.warehouse.files import BuildSpec

    spec = BuildSpec("id", (files[0],), "single")
    found = partner_logs(spec, [f for f in files if f.role == "log"])
    assert sorted(Path(p).name for p in found) == ["m_build.log", "m_run-verbose-profile.log"]


@needs_corpus
def test_corpus_versions_before_and_after(tmp_path: Path) -> None:
    """Every corpus file in one warehouse: each version equals what its inputs print."""
    root = tmp_path / "wh"
    ingest([CORPUS], to=root, jobs=1)
    wh = open_warehouse(root)
    rows = wh.sql(
        "SELECT paths, roles, trt_version, version_source, product, rtx_version FROM builds"
    ).fetchall()
    by_source: dict[str | None, int] = {}
    for paths, roles, version, source, product, _rtx in rows:
        by_source[source] = by_source.get(source, 0) + 1
        if source in ("banner", "library", "python_package", "version_line"):
            raw = Path(paths[0]).read_text(encoding="utf-8", errors="replace")
            assert version is not None and version.replace(".", "") in re.sub(r"\D", "", raw)
        if source in ("paired_log", "paired_log_name"):
            assert "log" not in roles and version is not None
        if product == "TensorRT-RTX":
            raw = Path(paths[0]).read_text(encoding="utf-8")
            assert "In JIT build, strongly typed is enabled by default." in raw
            assert version is None  # TensorRT-RTX prints no TensorRT version
    # the layer JSON of the 10.16.1 fp32 build pairs with its --dumpLayerInfo log by layers
    (paired,) = [r for r in rows if r[3] == "paired_log"]
    assert Path(paired[0][0]).name == "trt10.16.1_cookbook-mnist-cnn-fp32_layers-detailed.json"
    dump = CORPUS / "trt10.16.1_cookbook-mnist-cnn-fp32_build-dumpLayerInfo.log"
    assert paired[2] == _banner_version(dump)
    assert by_source.get("python_package") == 1  # ModelOpt's check of the tensorrt package
    assert sum(1 for r in rows if r[4] == "TensorRT-RTX") == 1


@pytest.mark.parametrize("stem", ["m", "m.onnx.engine"])
def test_partner_logs_need_a_separator_after_the_stem(tmp_path: Path, stem: str) -> None:
    layers = tmp_path / f"{stem}_layers.json"
    near = tmp_path / f"{stem}-fp16_build.log"
    far = tmp_path / f"{stem}fp16_build.log"
    for p in (layers, near, far):
        p.write_text("x", encoding="utf-8")
    files = input_files([str(layers), str(near), str(far)])
    from trtlog.warehouse.files import BuildSpec

    spec = BuildSpec("id", (files[0],), "single")
    assert partner_logs(spec, files[1:]) == (str(near),)
