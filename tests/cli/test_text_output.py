"""The text outputs: numbers in full, one stage name per count, rule severities, ``-q``.

Figures are read back from the raw text of the fixture with a regex, not hard-coded.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import trtlog
from tests.conftest import CORPUS, FIXTURES, ROOT, needs_corpus
from trtlog._display import number
from trtlog.cli import main
from trtlog.findings import RULES

BIG = FIXTURES / "logs" / "trt10.16-like_slow-build_big-times.log"
# (a second build: one build is read in this process, without Dask)
TWO = FIXTURES / "logs" / "trt8.6.1_tinynet-fp16_build-verbose-dumpLayerInfo.log"
YOLO = FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log"
TINY_PROFILE = FIXTURES / "layer_info" / "trt8.6.1_tinynet-qdq-int8.profile.json"
TINY = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"

_STAGE = re.compile(r"\] (?:After )?([^:\]]+): (\d+) layers$")


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (1048.27, 3, "1048.27"),
        (1139.85, 3, "1139.85"),
        (1234567.0, 6, "1234567"),
        (12.5061, 3, "12.5"),
        (0.0390625, 3, "0.0391"),
        (2.5e-05, 4, "2.5e-05"),
        (-12345.678, 4, "-12345.68"),
    ],
)
def test_number_never_writes_an_exponent_above_one(value: float, digits: int, text: str) -> None:
    assert number(value, digits) == text


def test_summary_times_print_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    raw = BIG.read_text(encoding="utf-8")
    assert main(["summary", str(BIG)]) == 0
    out = capsys.readouterr().out
    assert "e+" not in out
    # every time of the log, as the log prints it (3 significant digits are all digits here)
    for label, pattern in [
        ("tactic selection", r"selection completed in ([\d.]+) seconds"),
        ("engine generation", r"Engine generation completed in ([\d.]+) seconds"),
        ("engine build", r"Engine built in ([\d.]+) sec"),
    ]:
        match = re.search(pattern, raw)
        assert match is not None
        assert re.search(rf"^{label}\s+{re.escape(match.group(1))} s$", out, re.M), label
    qps = re.search(r"Throughput: (\d+) qps", raw)
    assert qps is not None and f"throughput            {qps.group(1)} qps" in out
    mean = re.search(r"Latency: .*mean = ([\d.]+) ms", raw)
    assert mean is not None and f"mean {mean.group(1)}," in out
    walltime = re.search(r"Total Host Walltime: ([\d.]+) s", raw)
    assert walltime is not None and f"of {walltime.group(1)} s host walltime" in out


def _stages(lines: list[str]) -> list[tuple[str, int]]:
    found = []
    for line in lines:
        m = _STAGE.search(line.rstrip())
        if m:
            found.append((m.group(1), int(m.group(2))))
    return found


def _check_stage_names(path: Path, out: str) -> None:
    stages = _stages(path.read_text(encoding="utf-8", errors="replace").splitlines())
    final = stages[-1][1]
    reached = next(name for name, n in stages if n == final)  # the stage that reached it
    header = re.search(r"^layers\s+(\d+) \((.+?)\) -> (\d+) \((.+?)\)$", out, re.M)
    assert header is not None
    assert (int(header.group(1)), header.group(2)) == (stages[0][1], stages[0][0])
    assert (int(header.group(3)), header.group(4)) == (final, reached)
    # the stage list names the same stage for the final count
    assert re.search(rf"^\s+{final}  {re.escape(reached)}$", out, re.M)
    if stages[-1][0] != reached:
        assert f"the count holds through {stages[-1][0]}" in out


@pytest.mark.parametrize("path", [BIG, YOLO], ids=["big", "yolov8"])
def test_summary_header_and_stage_list_name_one_stage(
    capsys: pytest.CaptureFixture[str], path: Path
) -> None:
    assert main(["summary", str(path)]) == 0
    _check_stage_names(path, capsys.readouterr().out)


@needs_corpus
def test_summary_stage_names_on_a_real_log(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "trt8.5.10_mnist-best_build-verbose.log"
    assert main(["summary", str(path)]) == 0
    _check_stage_names(path, capsys.readouterr().out)


def test_list_rules_shows_every_severity_a_rule_gives(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--list-rules"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    for check in RULES:
        info = check.info
        row = rows[info.id]
        assert " / ".join(info.severities) in row
        for severity, when in info.other_severities:
            assert f"{severity} {when}"[:60] in row


_LINTED: list[tuple[Path, Path | None]] = [
    (TINY, TINY_PROFILE),
    (FIXTURES / "logs" / "trt8.6-like_patternnet-qdq_build-FAILED.log", None),
    (FIXTURES / "logs" / "trt8.6-like_orin-dla-fallback_build-verbose.log", None),
    (YOLO, None),
    (FIXTURES / "logs" / "trt10.16-like_smallnet-fp16_build-verbose-dumpLayerInfo.log", None),
]


@pytest.mark.parametrize(("path", "profile"), _LINTED, ids=[p.name[:24] for p, _ in _LINTED])
def test_findings_get_only_the_severities_their_rule_lists(
    path: Path, profile: Path | None
) -> None:
    infos = {check.info.id: check.info for check in RULES}
    findings = trtlog.lint(path, profile=profile)
    assert findings
    for f in findings:
        assert f.severity in infos[f.rule].severities, (f.rule, f.severity)


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_silences_wrote_on_either_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    image = tmp_path / "types.png"
    graph = tmp_path / "g.graphml"
    commands = [
        ["plot", "layer-counts", str(TINY), "-o", str(image)],
        ["graph", str(TINY), "-o", str(graph)],
    ]
    for command in commands:
        assert main(command) == 0
        said = capsys.readouterr()
        assert "wrote" in said.out + said.err
        argv = ["-q", *command] if where == "before" else [*command[:1], "-q", *command[1:]]
        assert main(argv) == 0
        said = capsys.readouterr()
        assert (said.out, said.err) == ("", ""), argv


@pytest.mark.slow
def test_dask_says_nothing_by_default(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    base = [sys.executable, "-m", "trtlog", "ingest", "--jobs", "2", str(BIG), str(TWO)]
    quiet = subprocess.run(
        [*base, "--to", str(tmp_path / "a")], capture_output=True, text=True, env=env, check=False
    )
    assert quiet.returncode == 0, quiet.stderr
    # (a WARNING of Dask's may remain: on a loaded machine a worker can be slow to stop)
    assert "INFO" not in quiet.stderr, quiet.stderr
    # -vv (after the command) shows what Dask tells
    loud = subprocess.run(
        [*base, "--to", str(tmp_path / "b"), "-vv"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert loud.returncode == 0, loud.stderr
    assert "trtlog: INFO: " in loud.stderr


def test_rules_page_and_registry_agree_on_severities() -> None:
    # docs/rules.md says in words when a rule's findings get another severity; the registry
    # declares the same (lint --list-rules shows it)
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for check in RULES:
        info = check.info
        section = text.split(f"## `{info.id}`", 1)[1].split("\n## ", 1)[0]
        line = section.split("**Severity:**", 1)[1].split("\n- **", 1)[0]
        said = {s for s in ("info", "warning", "error") if re.search(rf"\b{s}\b", line)}
        assert said == set(info.severities), (info.id, line)
