"""``trtlog lint``: the findings of a build (part of the command-line package)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from trtlog._display import clip
from trtlog._display import number as short_number
from trtlog.cli.common import (
    UsageError,
    add_run_option,
    open_file,
    select_run,
    table,
)

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``trtlog lint``."""
    p.add_argument(
        "file",
        metavar="LOG",
        nargs="?",
        help="a trtexec log (- reads standard input), or a layer-info JSON to lint alone",
    )
    p.add_argument("--layers", metavar="JSON", help="the --exportLayerInfo of the same build")
    p.add_argument("--profile", metavar="JSON", help="the --exportProfile of the same build")
    p.add_argument(
        "--reference",
        metavar="REF",
        help="a reference build of the same model (an FP16 log or layer JSON): adds "
        "qdq-split-fusion and int8-slower-than-reference (when the layers of the two builds "
        "do not align, reference-alignment-failed instead)",
    )
    p.add_argument("--reference-profile", metavar="JSON", help="the reference's --exportProfile")
    p.add_argument(
        "--format", choices=("table", "json", "sarif"), default="table", help="output format"
    )
    p.add_argument(
        "--fail-on",
        choices=("info", "warning", "error", "never"),
        default="error",
        help="exit with status 1 when a finding reaches this severity (default: error)",
    )
    p.add_argument("--rules", metavar="IDS", help="comma-separated rule ids to run (default all)")
    p.add_argument("--exclude", metavar="IDS", help="comma-separated rule ids to skip")
    p.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    add_run_option(p)


def run(args: argparse.Namespace) -> int:
    """Findings: missing fusions after Q/DQ insertion and other build problems (for CI too)."""
    from trtlog.exports.layers import load_engine
    from trtlog.findings import RULES, lint, severity_rank, to_sarif

    out = sys.stdout
    if args.list_rules:
        # the severity a rule's findings get: its default, and when it is raised or lowered
        rows = [
            [
                r.info.id,
                " / ".join(r.info.severities),
                r.info.title,
                "; ".join(f"{sev} {when}" for sev, when in r.info.other_severities),
            ]
            for r in RULES
        ]
        table(rows, ["rule", "severity", "title", "other severity"], out)
        return 0
    if args.file is None:
        raise UsageError("lint needs a LOG (or a layer-info JSON); --list-rules lists the rules")
    engine: Any = None
    # (label or None, build, engine, profile): a log with several runs (or a run with
    # several engine builds) and no --run/--build is linted build by build (CI must see a
    # failure in any of them); --layers and --profile belong to the last build then
    targets: list[tuple[str | None, Any, Any, Any]]
    opened = open_file(args.file, want=("log", "layers"))
    if opened.build is None:
        if args.layers:
            raise UsageError("--layers is for a log; the file given is already a layer JSON")
        if args.run_number is not None or args.build_number is not None:
            raise UsageError("--run/--build pick a run of a log; the file given is a layer JSON")
        targets = [(None, None, opened.engine, args.profile)]
    else:
        whole = opened.build
        engine = load_engine(args.layers) if args.layers else None
        scopes = _scopes(whole, args)
        if len(scopes) > 1:
            targets = [(label, scope, None, None) for label, scope in scopes]
            label, scope = scopes[-1]
            targets[-1] = (label, scope, engine, args.profile)
        else:
            targets = [(None, select_run(whole, args), engine, args.profile)]
    reference: Any = None
    if args.reference:
        found = open_file(args.reference, want=("log", "layers"))
        reference = (
            found.engine
            if found.build is None
            else select_run(found.build, argparse.Namespace(run_number=None, quiet=args.quiet))
        )
    elif args.reference_profile:
        raise UsageError("--reference-profile needs --reference")
    findings: list[Any] = []
    runs_of: list[str | None] = []
    for k, (number, build, engine, profile) in enumerate(targets):
        try:
            found = lint(
                build if build is not None else engine,
                engine if build is not None else None,
                reference,
                profile=profile,
                reference_profile=args.reference_profile,
                rules=_ids(args.rules),
                exclude=_ids(args.exclude),
            )
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        findings += found
        runs_of += [number] * len(found)
        if number is not None and k < len(targets) - 1 and opened.build is not None:
            # a log of many runs: each run's views, with all lint computed on them, go once
            # its findings are out (the last stays: the table reads its lines)
            targets[k] = (number, None, engine, profile)
            _forget(opened.build, number)
    if args.format == "json":
        dumps = [f.model_dump(mode="json") for f in findings]
        if len(targets) > 1:
            dumps = [{**d, **_where(label)} for d, label in zip(dumps, runs_of, strict=True)]
        data = {
            "source": opened.source,  # (the name trtlog gives the input: <stdin> for -)
            "findings": dumps,
            "counts": {
                s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")
            },
        }
        out.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    elif args.format == "sarif":
        sarif = to_sarif(findings, artifact=opened.source)
        out.write(json.dumps(sarif, indent=1, ensure_ascii=False) + "\n")
    else:
        if len(targets) > 1:
            labels = [t[0] or "" for t in targets]
            what, how = (
                ("engine builds", "--build N")
                if all(x.startswith("b") for x in labels)
                else ("trtexec runs", "--run N")
                if not any("." in x for x in labels)
                else ("builds of trtexec runs", "--run N --build N")
            )
            out.write(f"{len(targets)} {what}, each linted on its own ({how} for one)\n\n")
        runs = runs_of if len(targets) > 1 else None
        _lint_table(findings, targets[-1][1], out, runs)  # the runs share the file's lines
    if args.fail_on == "never":
        return 0
    limit = severity_rank(args.fail_on)
    return 1 if any(severity_rank(f.severity) >= limit for f in findings) else 0


def _scopes(whole: Any, args: argparse.Namespace) -> list[tuple[str, Any]]:
    """(label, build) of every build to lint when neither --run nor --build narrows it.

    The label is the run number (``3``), the build number (``b2``) or both (``3.2``),
    1-based, as ``--run``/``--build`` take them. One scope when the log holds one build.
    """
    if args.run_number is not None or args.build_number is not None:
        return []
    several_runs = len(whole.runs) > 1
    out: list[tuple[str, Any]] = []
    for i in range(max(len(whole.runs), 1)):
        run = whole.for_run(i) if several_runs else whole
        builds = run.builds
        if len(builds) <= 1:
            out.append((str(i + 1), run))
            continue
        for k in range(len(builds)):
            label = f"{i + 1}.{k + 1}" if several_runs else f"b{k + 1}"
            out.append((label, run.for_build(k)))
    return out


def _forget(whole: Any, label: str) -> None:
    """Let the log's view of the scope ``label`` (see :func:`_scopes`) go."""
    where = _where(label)
    run, build = where.get("run"), where.get("build")
    if run is not None and len(whole.runs) > 1:
        if build is None or build == len(whole.for_run(run - 1).builds):
            whole.forget_views(run=run - 1)  # (with the views of its builds)
    elif build is not None:
        whole.forget_views(build=build - 1)


def _where(label: str | None) -> dict[str, int | None]:
    """The ``run`` and ``build`` keys (1-based) of a finding's JSON from its scope label."""
    if label is None:
        return {"run": None}
    if label.startswith("b"):
        return {"run": None, "build": int(label[1:])}
    run, _, build = label.partition(".")
    return {"run": int(run), **({"build": int(build)} if build else {})}


def _ids(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _lint_table(
    findings: Sequence[Any], build: Any, out: TextIO, runs: Sequence[str | None] | None = None
) -> None:
    if not findings:
        out.write("no findings\n")
        return
    rows = [
        [
            *([] if runs is None else [runs[i]]),
            f.severity,
            f.rule,
            clip(f.subject, 60),
            "" if f.time_ms is None or f.time_ms != f.time_ms else short_number(f.time_ms),
            ",".join(str(n) for n in (f.evidence.lines or f.evidence.layers)[:4]),
        ]
        for i, f in enumerate(findings)
    ]
    headers = ["severity", "rule", "subject", "ms", "lines/layers"]
    if runs is not None:
        where = "build" if all((r or "").startswith("b") for r in runs) else "run"
        headers = [where, *headers]
    table(rows, headers, out)
    out.write("\n")
    for f in findings:
        out.write(f.to_text(build, max_lines=2) + "\n\n")
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
    out.write(", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items()) + "\n")
