"""Finding inputs and grouping them into builds (manifest, command line, naming, single)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from trtlog.errors import InputError
from trtlog.warehouse.files import (
    discover,
    group_files,
    input_files,
    name_role,
    read_manifest,
)

LOG = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
PROFILE = FIXTURES / "layer_info" / "trt8.6.1_tinynet-fp16.profile.json"
LAYERS = FIXTURES / "layer_info" / "trt10.16-like_smallnet-fp16_layers-detailed.json"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("model.log", ("model", "log", None)),
        ("model.layers.json", ("model", "layers", None)),
        ("model.profile.json.gz", ("model", "profile", None)),
        ("model.times.json", ("model", "times", None)),
        # TREx's names: <engine>.build.log, .graph.json, .profile.json, .timing.json
        ("r18.onnx.engine.build.log", ("r18.onnx.engine", "log", "build")),
        ("r18.onnx.engine.profile.log", ("r18.onnx.engine", "log", "run")),
        ("r18.onnx.engine.graph.json", ("r18.onnx.engine", "layers", None)),
        ("r18.onnx.engine.timing.json", ("r18.onnx.engine", "times", None)),
        ("trt10.4_resnet18-fp16_layers-detailed.json", ("trt10.4_resnet18-fp16", "layers", None)),
        ("smallnet_layer_information.json", ("smallnet", "layers", None)),
        ("notes.json", ("notes", "json", None)),
        ("profile.json", ("profile", "json", None)),  # a role word alone names no stem
    ],
)
def test_name_role(name: str, expected: tuple[str, str, str | None]) -> None:
    assert name_role(name) == expected


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _groups(paths: list[Path], **kw: object) -> list[tuple[str, list[str]]]:
    specs = group_files(input_files([str(p) for p in paths]), **kw)  # type: ignore[arg-type]
    return sorted(
        (s.grouping, sorted(f"{os.path.basename(f.path)}:{f.role}" for f in s.files)) for s in specs
    )


def test_discover_folders_globs_and_patterns_matching_nothing(tmp_path: Path) -> None:
    a = _write(tmp_path / "ci" / "job1" / "a.log", "x")
    b = _write(tmp_path / "ci" / "job2" / "b.layers.json", "{}")
    _write(tmp_path / "ci" / "job2" / "readme.md", "not an input")
    _write(tmp_path / "ci" / ".hidden" / "c.log", "x")
    found, empty = discover([str(tmp_path / "ci")])
    assert found == [str(a), str(b)]
    found, empty = discover([str(tmp_path / "ci/**/*.json"), str(tmp_path / "none/*.log")])
    assert found == [str(b)] and empty == [str(tmp_path / "none/*.log")]
    found, _ = discover([str(tmp_path)], exclude=str(tmp_path / "ci" / "job2"))
    assert found == [str(a)]


def test_naming_groups_a_log_with_its_exports(tmp_path: Path) -> None:
    log = _write(tmp_path / "m.log", LOG.read_text())
    layers = _write(tmp_path / "m.layers.json", LAYERS.read_text())
    profile = _write(tmp_path / "m.profile.json", PROFILE.read_text())
    other = _write(tmp_path / "elsewhere" / "m.profile.json", "[]")  # another folder
    assert _groups([log, layers, profile, other]) == [
        ("naming", ["m.layers.json:layers", "m.log:log", "m.profile.json:profile"]),
        ("single", ["m.profile.json:profile"]),
    ]


def test_two_build_logs_of_one_stem_get_none_of_its_json(tmp_path: Path) -> None:
    a = _write(tmp_path / "m_build-verbose.log", LOG.read_text())
    b = _write(tmp_path / "m_build.log", LOG.read_text() + "\n")
    layers = _write(tmp_path / "m_layers-detailed.json", LAYERS.read_text())
    profile = _write(tmp_path / "m_profile.json", PROFILE.read_text())
    groups = _groups([a, b, layers, profile])
    assert ("naming", ["m_layers-detailed.json:layers", "m_profile.json:profile"]) in groups
    assert ("single", ["m_build-verbose.log:log"]) in groups
    assert ("single", ["m_build.log:log"]) in groups


def test_a_build_log_beside_run_logs_gets_the_json(tmp_path: Path) -> None:
    build = _write(tmp_path / "m.build.log", LOG.read_text())
    run = _write(tmp_path / "m.profile.log", LOG.read_text() + "\n")
    graph = _write(tmp_path / "m.graph.json", LAYERS.read_text())
    groups = _groups([build, run, graph])
    assert ("naming", ["m.build.log:log", "m.graph.json:layers"]) in groups


def test_the_command_line_names_the_exports(tmp_path: Path) -> None:
    text = LOG.read_text().replace(
        "# trtexec --onnx=tinynet.onnx",
        "# trtexec --exportProfile=/tmp/out/tiny-prof.json --onnx=tinynet.onnx",
        1,
    )
    assert "--exportProfile=/tmp/out/tiny-prof.json" in text
    log = _write(tmp_path / "logs" / "job7.txt", text)
    profile = _write(tmp_path / "exports" / "tiny-prof.json", PROFILE.read_text())
    assert _groups([log, profile]) == [("command_line", ["job7.txt:log", "tiny-prof.json:profile"])]
    # without reading the command lines the two are separate builds
    assert len(_groups([log, profile], read_command_lines=False)) == 2


def test_manifest_groups_names_models_and_labels(tmp_path: Path) -> None:
    log = _write(tmp_path / "x" / "build-17.txt", LOG.read_text())
    profile = _write(tmp_path / "y" / "p.json", PROFILE.read_text())
    manifest = _write(
        tmp_path / "builds.csv",
        "build,path,role,model,gpu\nn17,x/build-17.txt,log,tinynet,A10\nn17,y/p.json,profile,,\n",
    )
    rows = read_manifest(str(manifest))
    specs = group_files(input_files([str(log), str(profile)]), rows)
    assert len(specs) == 1
    spec = specs[0]
    assert spec.grouping == "manifest" and spec.model == "tinynet"
    assert spec.labels == (("gpu", "A10"),)
    assert [f.role for f in spec.files] == ["log", "profile"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("path,role\nx.log,log\n", "needs the columns build and path"),
        ("build,path,role\nb,a.log,weights\n", "unknown role 'weights'"),
        ("build,path\nb,missing.log\n", "no such file: missing.log"),
    ],
)
def test_bad_manifest(tmp_path: Path, text: str, message: str) -> None:
    _write(tmp_path / "a.log", "x")
    manifest = _write(tmp_path / "m.csv", text)
    with pytest.raises(InputError, match=message):
        read_manifest(str(manifest))


def test_identity_is_the_content_not_the_path(tmp_path: Path) -> None:
    a = _write(tmp_path / "a" / "m.log", LOG.read_text())
    b = _write(tmp_path / "b" / "copy-of-m.log", LOG.read_text())
    c = _write(tmp_path / "c" / "m.log", LOG.read_text() + "\n")
    one = group_files(input_files([str(a)]))[0].source_id
    assert group_files(input_files([str(b)]))[0].source_id == one
    assert group_files(input_files([str(c)]))[0].source_id != one
    # the same content twice in one ingest is one build
    assert len(group_files(input_files([str(a), str(b)]))) == 1
