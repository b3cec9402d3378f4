"""The build header: runs, TensorRT version, command line, options by block, device.

Part of the data model (pydantic only). Derived from header events (formats.md §A, §B) by
:func:`derive_header`; ``trtlog.parse`` stores the result in the ``Build`` so that it is
serialised with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Device",
    "Header",
    "Options",
    "Run",
    "decode_version",
    "derive_header",
]

Version = tuple[int, ...]


def decode_version(code: int) -> Version:
    """The TensorRT version of a banner code (formats.md §A.1).

    8.x/9.x use ``major*1000 + minor*100 + patch``; 10.x+ ``major*10000 + minor*100 + patch``.

    Example:
        >>> decode_version(8412), decode_version(101601), decode_version(8001)
        ((8, 4, 12), (10, 16, 1), (8, 0, 1))
    """
    if code >= 10000:
        return (code // 10000, code // 100 % 100, code % 100)
    return (code // 1000, code // 100 % 10, code % 100)


class Run(BaseModel):
    """One trtexec run inside the file (a file can hold several, formats.md T20).

    Attributes:
        index: 0-based position in the file.
        first_line: the run's first line (its ``&&&& RUNNING`` banner when it has one).
        last_line: the run's last line (the line before the next run starts, or the end).
        status: ``passed``/``failed``/``waived`` from the footer, ``None`` with no footer
            (crash, truncated paste).
        command_line: the command from the banner, if any.
        trt_version: the version the banner or ``TensorRT version:`` line gives, if any.
    """

    model_config = ConfigDict(frozen=True)

    index: int
    first_line: int
    last_line: int
    status: Literal["passed", "failed", "waived"] | None = None
    command_line: str | None = None
    trt_version: Version | None = None


class Options(BaseModel):
    """The ``=== ... Options ===`` blocks of the (first) run.

    Attributes:
        blocks: section name (``Model``, ``Build``, ``System``, ``Inference``, ``Reporting``)
            → option label → value as printed.
    """

    model_config = ConfigDict(frozen=True)

    blocks: dict[str, dict[str, str]] = Field(default_factory=dict)

    def get(self, key: str, section: str | None = None) -> str | None:
        """The value of an option label, looked up in ``section`` or in every block."""
        if section is not None:
            return self.blocks.get(section, {}).get(key)
        for block in self.blocks.values():
            if key in block:
                return block[key]
        return None

    @property
    def precision(self) -> str | None:
        """The ``Precision:`` option (``FP32+INT8``, ``FP32+FP16 (obey precision ...)``)."""
        return self.get("Precision", "Build") or self.get("Precision")

    @property
    def precisions(self) -> tuple[str, ...]:
        """The precisions enabled, from ``Precision:`` (``("FP32", "INT8")``)."""
        value = self.precision
        if not value:
            return ()
        head = value.split(" (", 1)[0]
        if head.strip() == "Strongly Typed":
            return ("STRONGLY_TYPED",)
        return tuple(p.strip() for p in head.split("+") if p.strip())

    @property
    def model(self) -> str | None:
        """The model path (``Model:``, or ``Prototxt:`` for Caffe)."""
        return self.get("Model", "Model") or self.get("Prototxt", "Model")


class Device(BaseModel):
    """The ``=== Device Information ===`` block.

    Attributes:
        name: ``Selected Device``.
        compute_capability: e.g. ``8.7``.
        sms: number of SMs.
        global_memory_mib: ``Device Global Memory`` in MiB.
        values: every label → value as printed.
    """

    model_config = ConfigDict(frozen=True)

    name: str | None = None
    compute_capability: str | None = None
    sms: int | None = None
    global_memory_mib: int | None = None
    values: dict[str, str] = Field(default_factory=dict)


class Header(BaseModel):
    """Everything :func:`derive_header` finds."""

    model_config = ConfigDict(frozen=True)

    runs: tuple[Run, ...] = ()
    trt_version: Version | None = None
    command_line: str | None = None
    options: Options = Field(default_factory=Options)
    device: Device | None = None


def _int_prefix(value: str) -> int | None:
    head = value.strip().split(" ", 1)[0]
    try:
        return int(head)
    except ValueError:
        return None


def derive_header(events: Iterable[Any], n_lines: int) -> Header:
    """Collect runs, version, command line, options and device from the events.

    Reads events of kind ``run_start``/``run_end`` (fields ``status``, ``command_line``,
    ``version_code``), ``trt_version`` (``version``), ``options_section`` (``section``),
    ``option_kv`` (``key``, ``value``) and ``device_kv`` (``key``, ``value``). Options and
    device come from the first run that prints them.
    """
    runs: list[dict[str, Any]] = []
    blocks: dict[str, dict[str, str]] = {}
    device: dict[str, str] = {}
    section: str | None = None
    options_done = False
    device_run: int | None = None
    for ev in events:
        kind = ev.kind
        if kind == "run_start":
            if runs:
                runs[-1]["last_line"] = ev.span[0] - 1
            if blocks:
                options_done = True
            runs.append(
                {
                    "index": len(runs),
                    "first_line": ev.span[0],
                    "last_line": n_lines,
                    "command_line": ev.command_line,
                    "trt_version": decode_version(ev.version_code) if ev.version_code else None,
                }
            )
        elif kind == "run_end":
            if not runs:
                runs.append({"index": 0, "first_line": 1, "last_line": n_lines})
            runs[-1]["status"] = ev.status
            if runs[-1].get("command_line") is None:
                runs[-1]["command_line"] = ev.command_line
        elif kind == "trt_version":
            if not runs:
                runs.append({"index": 0, "first_line": 1, "last_line": n_lines})
            if runs[-1].get("trt_version") is None:
                runs[-1]["trt_version"] = tuple(ev.version)
        elif kind == "options_section" and not options_done:
            section = ev.section
            blocks.setdefault(section, {})
        elif kind == "option_kv" and not options_done and section is not None:
            blocks[section].setdefault(ev.key, ev.value)
        elif kind == "device_kv":
            run_index = len(runs) - 1
            if device_run is None:
                device_run = run_index
            if device_run == run_index:
                device.setdefault(ev.key, ev.value)
    run_models = tuple(Run(**r) for r in runs)
    version = next((r.trt_version for r in run_models if r.trt_version), None)
    command = next((r.command_line for r in run_models if r.command_line), None)
    dev = None
    if device:
        dev = Device(
            name=device.get("Selected Device"),
            compute_capability=device.get("Compute Capability"),
            sms=_int_prefix(device.get("SMs", "")),
            global_memory_mib=_int_prefix(device.get("Device Global Memory", "")),
            values=device,
        )
    return Header(
        runs=run_models,
        trt_version=version,
        command_line=command,
        options=Options(blocks=blocks),
        device=dev,
    )
