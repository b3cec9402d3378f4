"""Which files make one build: finding inputs, hashing them, and grouping them into builds.

First step of an ingest (pure Python; the log heads are read with :func:`trtlog.iter_events`).
A build is one trtexec log and the ``--exportLayerInfo``/``--exportProfile``/``--exportTimes``
JSON of the same engine. Files are grouped by the first rule that applies, and the rule is
recorded in the ``builds`` table's ``grouping`` column:

1. ``manifest``: a CSV the user passes (columns ``build`` and ``path``, optional ``role``,
   ``model`` and any label columns) says which files belong together.
2. ``command_line``: the log's ``&&&& RUNNING ... # trtexec ...`` line names the files it
   exported (``--exportLayerInfo=model.layers.json``); a JSON file of that name among the
   inputs (in the log's folder first) belongs to the log.
3. ``naming``: trtexec users' naming conventions, in one folder: ``model.log`` with
   ``model.layers.json``, ``model.profile.json``, ``model.times.json``; TREx's
   ``<engine>.build.log`` with ``<engine>.graph.json``, ``<engine>.profile.json``,
   ``<engine>.timing.json``; ``<stem>_build-*.log`` with ``<stem>_layers-*.json``. Only an
   unambiguous match groups: two build logs of one stem get none of its JSON files.
4. ``single``: anything else is a build of its own (a log alone, or a layer JSON alone).

A build's identity is the hash of its files' contents (with their roles): the same files give
the same ``source_id`` wherever they lie, which is what makes an ingest idempotent.
"""

from __future__ import annotations

import csv
import glob
import hashlib
import os
import re
import shlex
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from trtlog.errors import InputError

__all__ = [
    "BuildSpec",
    "InputFile",
    "Role",
    "discover",
    "file_digest",
    "group_files",
    "name_role",
    "partner_logs",
    "read_manifest",
]

#: What a file is to its build: a log, or one of trtexec's JSON exports (``json``: a JSON
#: file whose name does not say which; the worker finds out by reading it).
Role = Literal["log", "layers", "profile", "times", "json"]

#: The file names ``trtlog ingest DIR`` picks up inside a folder (any name given explicitly
#: is read whatever it is called).
INPUT_SUFFIXES = (".log", ".txt", ".out", ".json", ".trace")

_JSON_SUFFIXES = (".json", ".trace")
_COMPRESSED = (".gz",)

# the words of a file name that say what the file is (``x.layers.json``, ``x_profile.json``,
# TREx's ``x.graph.json``/``x.timing.json``, ``x.build.log``/``x.profile.log``)
_JSON_WORDS: dict[str, Role] = {
    "layers": "layers",
    "layer": "layers",
    "layerinfo": "layers",
    "graph": "layers",
    "profile": "profile",
    "times": "times",
    "timing": "times",
    "timings": "times",
}
# Torch-TensorRT's <name>_layer_information.json and <name>_engine_execution_profile.trace
_COMPOUND: tuple[tuple[str, Role], ...] = (
    ("_layer_information", "layers"),
    ("_engine_execution_profile", "profile"),
)
_BUILD_LOG_WORDS = frozenset({"build"})
_RUN_LOG_WORDS = frozenset({"run", "profile", "infer", "inference", "bench", "benchmark"})
_SEPARATORS = re.compile(r"[._-]")

# trtexec's export flags (always written --flag=<file>)
_EXPORT_FLAGS: dict[str, Role] = {
    "--exportLayerInfo": "layers",
    "--exportProfile": "profile",
    "--exportTimes": "times",
}
# events read from a log's head to find its command lines (a banner comes first)
_HEAD_EVENTS = 400


@dataclass(frozen=True, slots=True)
class InputFile:
    """One input file.

    Attributes:
        path: the absolute path.
        role: what it is to its build.
        size: its size in bytes.
        digest: the BLAKE2b-128 hash of its bytes (hex).
    """

    path: str
    role: Role
    size: int
    digest: str


@dataclass(frozen=True, slots=True)
class BuildSpec:
    """The files of one build and how they were grouped (what a worker is given).

    Attributes:
        source_id: the hash of the files' roles and contents: the build's identity.
        files: the log first (if any), then the JSON files.
        grouping: ``manifest``, ``command_line``, ``naming`` or ``single``.
        model: the model name a manifest gives, if any.
        labels: the manifest's other columns, as ``(name, value)`` pairs.
        partners: for a build without a log, the input logs of the same folder whose name
            shares its stem (:func:`partner_logs`): the worker reads the TensorRT version
            there (:func:`trtlog.engine.from_log.paired_version`). Not part of the identity.
    """

    source_id: str
    files: tuple[InputFile, ...]
    grouping: str
    model: str | None = None
    labels: tuple[tuple[str, str], ...] = ()
    partners: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """The bytes of all its files."""
        return sum(f.size for f in self.files)

    @property
    def log(self) -> InputFile | None:
        """Its log, if it has one."""
        return next((f for f in self.files if f.role == "log"), None)


def file_digest(path: str) -> str:
    """The BLAKE2b-128 hash of a file's bytes, in hex (read in 1 MiB pieces).

    Example:
        >>> import tempfile, os
        >>> with tempfile.NamedTemporaryFile(delete=False) as f:
        ...     _ = f.write(b"abc")
        >>> file_digest(f.name)
        'cf4ab791c62b8d2b2109c90275287816'
        >>> os.unlink(f.name)
    """
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _plain_name(name: str) -> tuple[str, bool]:
    """A file name without ``.gz`` and its extension, and whether it is a JSON file."""
    lower = name.lower()
    for suffix in _COMPRESSED:
        if lower.endswith(suffix):
            name, lower = name[: -len(suffix)], lower[: -len(suffix)]
    is_json = lower.endswith(_JSON_SUFFIXES)
    stem, dot, ext = name.rpartition(".")
    if dot and ext and not ext.isdigit() and len(ext) <= 5:
        name = stem
    return name, is_json


def name_role(name: str) -> tuple[str, Role, str | None]:
    """What a file name says: its stem, its role and, for a log, ``build`` or ``run``.

    The stem is the name up to the last word that names a role (``layers``, ``profile``,
    ``times``, TREx's ``graph`` and ``timing`` for JSON; ``build``, ``run``, ``profile`` for
    logs), so that ``m.layers.json``, ``m.profile.json`` and ``m.build.log`` share ``m``.

    Example:
        >>> name_role("yolov8s.onnx.engine.graph.json")
        ('yolov8s.onnx.engine', 'layers', None)
        >>> name_role("trt10.4_resnet18-fp16_layers-detailed.json")
        ('trt10.4_resnet18-fp16', 'layers', None)
        >>> name_role("resnet18_build-verbose.log.gz")
        ('resnet18', 'log', 'build')
        >>> name_role("model.log")
        ('model', 'log', None)
        >>> name_role("smallnet_engine_execution_profile.trace")
        ('smallnet', 'profile', None)
    """
    plain, is_json = _plain_name(name)
    for suffix, role in _COMPOUND:
        if is_json and plain.lower().endswith(suffix) and len(plain) > len(suffix):
            return plain[: -len(suffix)], role, None
    seps = [m.start() for m in _SEPARATORS.finditer(plain)]  # word i + 1 follows seps[i]
    for i in range(len(seps), 0, -1):  # the last word naming a role (never the first word)
        end = seps[i] if i < len(seps) else len(plain)
        word = plain[seps[i - 1] + 1 : end].lower()
        stem = plain[: seps[i - 1]]
        if is_json and word in _JSON_WORDS:
            return stem, _JSON_WORDS[word], None
        if not is_json and (word in _BUILD_LOG_WORDS or word in _RUN_LOG_WORDS):
            return stem, "log", "build" if word in _BUILD_LOG_WORDS else "run"
    return plain, ("json" if is_json else "log"), None


def discover(patterns: Iterable[str], *, exclude: str | None = None) -> tuple[list[str], list[str]]:
    """The files that paths, folders and glob patterns name, sorted, without duplicates.

    A folder is searched recursively for the files of :data:`INPUT_SUFFIXES` (also ``.gz``),
    hidden files and folders aside; a pattern (``ci/**/*.log``, quoted so that the shell
    leaves it alone) is expanded with ``**`` matching any depth.

    Args:
        patterns: paths, folders or glob patterns.
        exclude: a folder to leave out (the warehouse itself, when it lies among the inputs).

    Returns:
        The absolute paths found, and the patterns that matched nothing.
    """
    found: dict[str, None] = {}
    empty: list[str] = []
    skip = os.path.abspath(exclude) if exclude else None

    def keep(path: str) -> None:
        full = os.path.abspath(path)
        if skip is None or not (full == skip or full.startswith(skip + os.sep)):
            found[full] = None

    for pattern in patterns:
        before = len(found)
        if os.path.isdir(pattern):
            for root, dirs, files in os.walk(pattern):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith(".") and _wanted(name):
                        keep(os.path.join(root, name))
        elif os.path.isfile(pattern):
            keep(pattern)
        elif glob.has_magic(pattern):
            for path in sorted(glob.glob(pattern, recursive=True)):
                if os.path.isfile(path):
                    keep(path)
        if len(found) == before:
            empty.append(pattern)
    return sorted(found), empty


def _wanted(name: str) -> bool:
    lower = name.lower()
    if lower.endswith(_COMPRESSED):
        lower = lower[: lower.rfind(".")]
    return lower.endswith(INPUT_SUFFIXES)


# -- the manifest --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ManifestRow:
    """One row of a manifest CSV."""

    build: str
    path: str
    role: Role | None
    model: str | None
    labels: tuple[tuple[str, str], ...]


_ROLES: tuple[Role, ...] = ("log", "layers", "profile", "times", "json")


def read_manifest(path: str) -> list[ManifestRow]:
    """Read a manifest CSV: which files form one build.

    Columns: ``build`` (any key; the rows of one key are one build), ``path`` (relative to
    the manifest's folder, or absolute), optional ``role`` (``log``, ``layers``, ``profile``,
    ``times``; by default from the file name), optional ``model``; every other column is a
    label kept in ``builds.labels`` (``gpu``, ``nightly``, ``commit``...).

    Raises:
        InputError: the file is missing, has no ``build``/``path`` columns, or a row names
            an unknown role or a file that does not exist.
    """
    base = os.path.dirname(os.path.abspath(path))
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
            columns = [c.strip() for c in (rows[0].keys() if rows else [])]
    except OSError as exc:
        raise InputError(f"cannot read the manifest: {exc.strerror}", source=path) from None
    if not rows or not {"build", "path"} <= set(columns):
        raise InputError(
            "a manifest needs the columns build and path (and optionally role, model, labels)",
            source=path,
            line=1,
            hint="write a CSV header line: build,path,role,model",
        )
    out = []
    for number, row in enumerate(rows, start=2):
        clean = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
        given = clean.get("role") or None
        role: Role | None = next((r for r in _ROLES if r == given), None)
        if given is not None and role is None:
            raise InputError(
                f"unknown role {given!r}",
                source=path,
                line=number,
                hint="use log, layers, profile or times",
            )
        file = os.path.join(base, clean["path"])
        if not os.path.isfile(file):
            raise InputError(f"no such file: {clean['path']}", source=path, line=number)
        labels = tuple(
            (k, v) for k, v in clean.items() if k not in ("build", "path", "role", "model") and v
        )
        out.append(
            ManifestRow(
                build=clean["build"],
                path=os.path.abspath(file),
                role=role,
                model=clean.get("model") or None,
                labels=labels,
            )
        )
    return out


# -- grouping ------------------------------------------------------------------------------


def _source_id(files: Sequence[InputFile]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for role, digest in sorted((f.role, f.digest) for f in files):
        h.update(f"{role}:{digest}\n".encode())
    return h.hexdigest()


def _spec(
    files: Sequence[InputFile],
    grouping: str,
    model: str | None = None,
    labels: tuple[tuple[str, str], ...] = (),
) -> BuildSpec:
    ordered = sorted(files, key=lambda f: (f.role != "log", f.role, f.path))
    return BuildSpec(_source_id(ordered), tuple(ordered), grouping, model, labels)


def _exports(log: str) -> list[tuple[Role, str]]:
    """The files a log's command lines say trtexec exported: ``(role, path)``.

    Only the log's head is read (its first banner, and those of short runs after it).
    """
    from trtlog.buildlog.parsing import iter_events

    named: list[tuple[Role, str]] = []
    try:
        for n, event in enumerate(iter_events(log)):
            if event.kind == "run_start":
                named += _exports_of(str(getattr(event, "command_line", "")))
            if n >= _HEAD_EVENTS:
                break
    except (InputError, OSError):
        return []  # the worker reports the file; grouping just gets no help from it
    return named


def _exports_of(command: str) -> list[tuple[Role, str]]:
    """The ``--exportLayerInfo=...`` (and profile, times) paths of one command line.

    Example:
        >>> _exports_of("trtexec --onnx=m.onnx --exportProfile=out/m.profile.json --fp16")
        [('profile', 'out/m.profile.json')]
    """
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    out: list[tuple[Role, str]] = []
    for word in words:
        flag, eq, value = word.partition("=")
        if eq and flag in _EXPORT_FLAGS and value:
            out.append((_EXPORT_FLAGS[flag], value))
    return out


@dataclass
class _Group:
    log: InputFile | None
    parts: dict[Role, InputFile] = field(default_factory=dict)
    rule: str = "single"


def group_files(
    files: Sequence[InputFile],
    manifest: Sequence[ManifestRow] = (),
    *,
    read_command_lines: bool = True,
) -> list[BuildSpec]:
    """Group input files into builds (see the module docstring for the rules).

    Args:
        files: every input file, with the role its name gives.
        manifest: rows of a manifest CSV; their files are grouped by it and by nothing else.
        read_command_lines: read each log's head for the files its command line exports.

    Returns:
        One spec per build, in the order of their first file's path; files of the same
        content (the same build copied twice) give one build.
    """
    by_path = {f.path: f for f in files}
    specs: list[BuildSpec] = []
    taken: set[str] = set()
    # 1. the manifest
    rows_of: dict[str, list[ManifestRow]] = defaultdict(list)
    for row in manifest:
        rows_of[row.build].append(row)
    for rows in rows_of.values():
        members = []
        for row in rows:
            f = by_path[row.path]
            if row.role is not None:
                f = InputFile(f.path, row.role, f.size, f.digest)
            members.append(f)
            taken.add(f.path)
        model = next((r.model for r in rows if r.model), None)
        labels = tuple(dict(pair for r in rows for pair in r.labels).items())
        specs.append(_spec(members, "manifest", model, labels))
    rest = [f for f in files if f.path not in taken]
    logs = [f for f in rest if f.role == "log"]
    jsons = [f for f in rest if f.role != "log"]
    groups = {f.path: _Group(log=f) for f in logs}
    claimed: dict[str, list[tuple[str, Role]]] = defaultdict(list)
    # 2. the command lines
    if read_command_lines and jsons:
        by_name: dict[str, list[InputFile]] = defaultdict(list)
        for f in jsons:
            by_name[os.path.basename(f.path)].append(f)
        for log in logs:
            for role, named in _exports(log.path):
                candidates = by_name.get(os.path.basename(named), [])
                folder = os.path.dirname(log.path)
                near = [c for c in candidates if os.path.dirname(c.path) == folder]
                pick = near if near else candidates
                if len(pick) == 1:
                    claimed[pick[0].path].append((log.path, role))
        for path, claims in claimed.items():
            if len({c[0] for c in claims}) == 1:  # named by one log only
                log_path, role = claims[0]
                group = groups[log_path]
                if role not in group.parts:
                    f = next(j for j in jsons if j.path == path)
                    group.parts[role] = InputFile(f.path, role, f.size, f.digest)
                    group.rule = "command_line"
    used = {f.path for g in groups.values() for f in g.parts.values()}
    # 3. the naming conventions, in each folder
    stems: dict[tuple[str, str], list[tuple[InputFile, str | None]]] = defaultdict(list)
    for file in rest:
        if file.path in used:
            continue
        stem, _, kind = name_role(os.path.basename(file.path))
        stems[os.path.dirname(file.path), stem].append((file, kind))
    loose: list[InputFile] = []
    for in_stem in stems.values():
        here_logs = [m for m, _ in in_stem if m.role == "log"]
        here_json = [m for m, _ in in_stem if m.role not in ("log", "json")]
        loose += [m for m, _ in in_stem if m.role == "json"]
        by_role: dict[Role, list[InputFile]] = defaultdict(list)
        for f in here_json:
            by_role[f.role].append(f)
        builders = [m for m, kind in in_stem if m.role == "log" and kind == "build"]
        target: InputFile | None = None
        if len(here_logs) == 1:
            target = here_logs[0]
        elif len(builders) == 1:
            target = builders[0]
        unique = {role: fs[0] for role, fs in by_role.items() if len(fs) == 1}
        leftovers = [f for role, fs in by_role.items() if len(fs) > 1 for f in fs]
        if target is not None:
            group = groups[target.path]
            for role, f in unique.items():
                if role not in group.parts:
                    group.parts[role] = f
                    if group.rule == "single":
                        group.rule = "naming"
                else:
                    leftovers.append(f)
        elif "layers" not in unique:
            leftovers += list(unique.values())  # no layer JSON to build around: each alone
        else:
            specs.append(_spec(list(unique.values()), "naming" if len(unique) > 1 else "single"))
        loose += leftovers
    for group in groups.values():
        assert group.log is not None
        specs.append(_spec([group.log, *group.parts.values()], group.rule))
    # 4. everything else alone
    specs += [_spec([f], "single") for f in loose]
    unique_specs: dict[str, BuildSpec] = {}
    every_log = [f for f in files if f.role == "log"]
    for spec in sorted(specs, key=lambda s: s.files[0].path):
        if spec.log is None:
            partners = partner_logs(spec, every_log)
            if partners:
                spec = replace(spec, partners=partners)
        unique_specs.setdefault(spec.source_id, spec)
    return list(unique_specs.values())


_STEM_JOINS = ("_", "-", ".")


def partner_logs(spec: BuildSpec, logs: Sequence[InputFile]) -> tuple[str, ...]:
    """The logs a build of JSON files alone may take its TensorRT version from.

    Logs in the folder of the build's first JSON file whose name's stem (:func:`name_role`)
    is the JSON's stem, or starts with it and a ``_``, ``-`` or ``.`` (``m_layers.json``
    with ``m_build.log`` and ``m_run-verbose-profile.log``), or the reverse. Whether a
    partner's version is taken is the worker's decision, from what the log holds
    (:func:`trtlog.engine.from_log.paired_version`).

    Example:
        >>> layers = InputFile("/ci/m_layers.json", "layers", 1, "x")
        >>> spec = BuildSpec("id", (layers,), "single")
        >>> logs = [InputFile(p, "log", 1, "y") for p in
        ...         ("/ci/m_build.log", "/ci/m2_build.log", "/other/m.log", "/ci/m_run-x.log")]
        >>> partner_logs(spec, logs)
        ('/ci/m_build.log', '/ci/m_run-x.log')
    """
    first = spec.files[0].path
    folder = os.path.dirname(first)
    stem = name_role(os.path.basename(first))[0]
    found = []
    for log in logs:
        if os.path.dirname(log.path) != folder:
            continue
        other = name_role(os.path.basename(log.path))[0]
        if other == stem or any(
            other.startswith(stem + j) or stem.startswith(other + j) for j in _STEM_JOINS
        ):
            found.append(log.path)
    return tuple(found)


def input_files(paths: Sequence[str]) -> list[InputFile]:
    """Hash every file and give it the role its name says."""
    out = []
    for path in paths:
        _, role, _ = name_role(os.path.basename(path))
        out.append(InputFile(path, role, os.path.getsize(path), file_digest(path)))
    return out


def relative(path: str) -> str:
    """A path relative to the working folder when it lies below it (for messages)."""
    try:
        rel = Path(path).relative_to(Path.cwd())
    except ValueError:
        return path
    return str(rel)
