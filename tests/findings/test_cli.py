"""``trtlog lint``: formats, exit codes, rule selection, inputs; SARIF 2.1.0 structure."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.findings.inputs import (
    PATTERNS,
    PATTERNS_FAILED,
    PATTERNS_PROFILE,
    RESNET_DETAILED,
    TINY_FP16,
    TINY_FP16_PROFILE,
    TINY_INT8,
    TINY_INT8_PROFILE,
    lint,
)
from trtlog.cli import main
from trtlog.findings import RULES, Finding, to_sarif

jsonschema = pytest.importorskip("jsonschema")

# The parts of the SARIF 2.1.0 schema (OASIS, sarif-schema-2.1.0.json) that code-scanning
# tools rely on: required properties, enums and value ranges, written out here so the test
# runs offline.
_LOCATION = {
    "type": "object",
    "properties": {
        "physicalLocation": {
            "type": "object",
            "properties": {
                "artifactLocation": {
                    "type": "object",
                    "properties": {"uri": {"type": "string", "format": "uri-reference"}},
                    "required": ["uri"],
                },
                "region": {
                    "type": "object",
                    "properties": {"startLine": {"type": "integer", "minimum": 1}},
                    "required": ["startLine"],
                },
            },
            "required": ["artifactLocation"],
        },
        "logicalLocations": {
            "type": "array",
            "items": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    },
}
SARIF_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "informationUri": {"type": "string", "format": "uri"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": {
                                                    "type": "object",
                                                    "required": ["text"],
                                                },
                                                "fullDescription": {
                                                    "type": "object",
                                                    "required": ["text"],
                                                },
                                                "helpUri": {"type": "string", "format": "uri"},
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {
                                                        "level": {
                                                            "enum": [
                                                                "none",
                                                                "note",
                                                                "warning",
                                                                "error",
                                                            ]
                                                        }
                                                    },
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": -1},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {
                                    "type": "object",
                                    "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
                                },
                                "locations": {"type": "array", "items": _LOCATION},
                                "partialFingerprints": {
                                    "type": "object",
                                    "additionalProperties": {"type": "string"},
                                },
                            },
                        },
                    },
                    "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                },
            },
        },
    },
}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _validate(data: dict[str, Any]) -> None:
    checker = jsonschema.Draft202012Validator(
        SARIF_SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    checker.validate(data)


# -- formats -------------------------------------------------------------------------------------


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["lint", str(TINY_INT8), "--profile", str(TINY_INT8_PROFILE)], capsys)
    assert code == 0  # warnings only: below the default --fail-on error
    head = out.splitlines()
    assert head[0].split() == ["severity", "rule", "subject", "ms", "lines/layers"]
    assert head[2].split()[:3] == [
        "info",
        "qdq-unfused-quantizer",
        "/stem/conv/_input_quantizer/QuantizeLinear",
    ]
    assert "    117: [03/12/2024-10:20:02] [V] [TRT] Swap the layer type" in out
    assert out.rstrip().endswith("0 errors, 5 warnings, 2 infos")


def test_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["lint", str(TINY_INT8), "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert data["source"] == str(TINY_INT8)
    assert data["counts"] == {"error": 0, "warning": 5, "info": 2}
    assert [f["rule"] for f in data["findings"]] == [f.rule for f in lint(TINY_INT8)]
    assert data["findings"][1]["evidence"]["lines"] == [117, 131, 132]


def test_sarif_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["lint", str(PATTERNS_FAILED), "--format", "sarif"], capsys)
    assert code == 1
    data = json.loads(out)
    _validate(data)
    (run,) = data["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.info.id for r in RULES]
    results = run["results"]
    assert [r["ruleId"] for r in results] == [
        "build-failed",
        "qdq-missing-scale",
        "precision-fallback",
        "slow-build-no-timing-cache",
    ]
    failed = results[0]
    assert failed["level"] == "error"
    assert rules[failed["ruleIndex"]]["id"] == "build-failed"
    loc = failed["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == PATTERNS_FAILED.as_uri()
    assert loc["region"]["startLine"] == 56
    assert results[3]["level"] == "note"


def test_sarif_of_a_layer_json_points_at_layers(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(
        ["lint", str(PATTERNS), "--profile", str(PATTERNS_PROFILE), "--format", "sarif"], capsys
    )
    data = json.loads(out)
    _validate(data)
    result = data["runs"][0]["results"][0]
    (loc,) = result["locations"]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == PATTERNS.as_uri()
    assert loc["logicalLocations"][0]["name"] == "/stem/conv/_input_quantizer/QuantizeLinear"
    assert result["properties"]["layers"] == [0]
    assert result["properties"]["timeMs"] == pytest.approx(0.0068)


def test_sarif_uris_of_relative_paths(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Relative paths stay relative: code scanning resolves them against the checkout."""
    monkeypatch.chdir(ROOT)
    relative = PATTERNS_FAILED.relative_to(ROOT)
    _, out, _ = _run(["lint", str(relative), "--format", "sarif"], capsys)
    location = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == relative.as_posix()


def test_sarif_of_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "[W] [TRT] Missing scale and zero-point for tensor t, expect fall back to non-int8 "
        "implementation for any layer consuming or producing given tensor\n"
    )
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    assert main(["lint", "-", "--format", "sarif", "--fail-on", "never"]) == 0
    data = json.loads(out.getvalue())
    _validate(data)
    uri = data["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": "stdin"}


def test_sarif_result_without_evidence_points_at_the_file() -> None:
    bare = Finding(rule="build-failed", severity="error", subject="build", message="failed")
    data = to_sarif([bare], artifact="logs/build 1.log")
    _validate(data)
    (location,) = data["runs"][0]["results"][0]["locations"]
    assert location == {"physicalLocation": {"artifactLocation": {"uri": "logs/build%201.log"}}}
    assert to_sarif([bare])["runs"][0]["results"][0]["locations"] == []


def test_sarif_without_findings_is_valid() -> None:
    data = to_sarif([])
    _validate(data)
    assert data["runs"][0]["results"] == []


# -- exit codes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fail_on", "code"), [("info", 1), ("warning", 1), ("error", 0), ("never", 0)]
)
def test_fail_on_warnings(fail_on: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["lint", str(TINY_INT8), "--fail-on", fail_on], capsys)[0] == code


@pytest.mark.parametrize(("fail_on", "code"), [("info", 1), ("warning", 0), ("error", 0)])
def test_fail_on_a_clean_build(fail_on: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    """The FP16 tinynet: two binding reformats, info without layer times."""
    assert _run(["lint", str(TINY_FP16), "--fail-on", fail_on], capsys)[0] == code


def test_layer_times_raise_a_costly_reformat(capsys: pytest.CaptureFixture[str]) -> None:
    """With the profile, the input reformat takes 4.2% of the time: a warning."""
    argv = ["lint", str(TINY_FP16), "--profile", str(TINY_FP16_PROFILE), "--fail-on", "warning"]
    assert _run(argv, capsys)[0] == 1


def test_a_failed_build_fails_ci(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["lint", str(PATTERNS_FAILED)], capsys)[0] == 1


def test_no_findings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["lint", str(TINY_FP16), "--rules", "build-failed"], capsys)
    assert (code, out) == (0, "no findings\n")


# -- rule selection and inputs ---------------------------------------------------------------


def test_rules_and_exclude(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(
        [
            "lint",
            str(TINY_INT8),
            "--format",
            "json",
            "--rules",
            "qdq-unfused-quantizer, reformat-io-boundary",
            "--exclude",
            "reformat-io-boundary",
        ],
        capsys,
    )
    assert {f["rule"] for f in json.loads(out)["findings"]} == {"qdq-unfused-quantizer"}


def test_unknown_rule_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["lint", str(TINY_INT8), "--rules", "qdq-fusion-missing"], capsys)
    assert code == 2 and out == ""
    assert "unknown rule id: qdq-fusion-missing" in err
    assert "Traceback" not in err


def test_list_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["lint", "--list-rules"], capsys)
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[2:]] == [r.info.id for r in RULES]


def test_missing_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["lint"], capsys)
    assert code == 2 and "lint needs a LOG" in err


def test_layers_and_profile_for_a_log(capsys: pytest.CaptureFixture[str]) -> None:
    """A log without a layer dump, with the --exportLayerInfo and --exportProfile of its build."""
    _, out, _ = _run(
        [
            "lint",
            str(PATTERNS_FAILED),
            "--layers",
            str(PATTERNS),
            "--profile",
            str(PATTERNS_PROFILE),
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
        capsys,
    )
    findings = json.loads(out)["findings"]
    blocked = [f for f in findings if f["rule"] == "qdq-blocked-fusion"]
    assert len(blocked) == 3
    assert blocked[0]["evidence"]["layer_source"] == str(PATTERNS)
    assert blocked[0]["time_ms"] == pytest.approx(0.0117)


def test_layers_with_a_json_input_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["lint", str(PATTERNS), "--layers", str(PATTERNS)], capsys)
    assert code == 2 and "--layers is for a log" in err


def test_reference(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(
        [
            "lint",
            str(TINY_INT8),
            "--profile",
            str(TINY_INT8_PROFILE),
            "--reference",
            str(TINY_FP16),
            "--reference-profile",
            str(TINY_FP16_PROFILE),
            "--rules",
            "qdq-split-fusion,int8-slower-than-reference",
            "--format",
            "json",
        ],
        capsys,
    )
    findings = json.loads(out)["findings"]
    assert [f["rule"] for f in findings] == ["qdq-split-fusion"]
    assert findings[0]["evidence"]["reference_layers"] == [3]


def test_slower_reference_from_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = json.loads(TINY_INT8_PROFILE.read_text())
    for r in records[1:]:
        r["averageMs"] *= 1.4
        r["timeMs"] *= 1.4
    slow = tmp_path / "int8-slow.profile.json"
    slow.write_text(json.dumps(records))
    code, out, _ = _run(
        [
            "lint",
            str(TINY_INT8),
            "--profile",
            str(slow),
            "--reference",
            str(TINY_FP16),
            "--reference-profile",
            str(TINY_FP16_PROFILE),
            "--rules",
            "int8-slower-than-reference",
            "--fail-on",
            "warning",
        ],
        capsys,
    )
    assert code == 1
    assert "warning int8-slower-than-reference: engine time" in out


def test_reference_profile_needs_a_reference(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(
        ["lint", str(TINY_INT8), "--reference-profile", str(TINY_FP16_PROFILE)], capsys
    )
    assert code == 2 and "--reference-profile needs --reference" in err


def test_a_layer_json_as_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        ["lint", str(TINY_INT8), "--reference", str(RESNET_DETAILED), "--format", "json"], capsys
    )
    assert code == 0  # another model: nothing aligns, nothing to report about splits
    assert "qdq-split-fusion" not in {f["rule"] for f in json.loads(out)["findings"]}


def test_missing_file_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["lint", str(tmp_path / "nope.log")], capsys)
    assert code == 2 and "Traceback" not in err


def test_lint_reads_a_pasted_fragment_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pbpaste | trtlog lint -``: a warning without its envelope is a log."""
    paste = (
        ROOT / "fixtures" / "fragments" / "qdq-missing-scale__fire__no-envelope.txt"
    ).read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(paste)))
    assert main(["lint", "-", "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["rule"], f["subject"], f["evidence"]["lines"]) for f in found] == [
        ("qdq-missing-scale", "input_ids", [1])
    ]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"hello world\n")))
    assert main(["lint", "-"]) == 2
    assert "none of the 1 lines is a TensorRT or trtexec message" in capsys.readouterr().err


def test_lint_of_a_log_of_several_runs_lets_each_run_s_views_go(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log of thousands of runs is linted run by run: each run's views (with what lint
    computed on them) go once its findings are out, all but the last's (its lines are read
    for the table); the output is the one of a lint that keeps them."""
    from trtlog.buildlog.model import Build

    path = ROOT / "fixtures" / "logs" / "trt10.16-like_batch-sweep_two-runs.log"
    assert main(["lint", str(path), "--fail-on", "never"]) == 0
    kept = capsys.readouterr().out
    forgotten: list[tuple[int | None, int | None]] = []
    forget = Build.forget_views

    def recorded(self: Build, *, run: int | None = None, build: int | None = None) -> None:
        forgotten.append((run, build))
        forget(self, run=run, build=build)

    monkeypatch.setattr(Build, "forget_views", recorded)
    assert main(["lint", str(path), "--fail-on", "never"]) == 0
    assert capsys.readouterr().out == kept
    assert "2 trtexec runs" in kept
    assert forgotten == [(0, None)]
