"""The build header: runs, TensorRT version, command line, options by block, device.

Part of the data model (pydantic only). Derived from header events (formats.md §A, §B) by
:func:`derive_header`; ``trtlog.parse`` stores the result in the ``Build`` so that it is
serialised with it.

A file can hold several trtexec runs (T20): ``&&&& RUNNING`` starts a run and the lines after
``&&&& PASSED`` (destructor messages) still belong to it. Options come from the first run that
prints them, the device from the first run that prints one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trtlog._pydantic import ExactJson
from trtlog.events import (
    DeviceKv,
    DeviceListItem,
    Event,
    LibraryNote,
    OptionIoFormat,
    OptionKv,
    OptionListItem,
    OptionsEnd,
    OptionShape,
    OptionsSection,
    RtxNote,
    RunEnd,
    RunStart,
    TrtPackageVersion,
    TrtVersion,
)
from trtlog.events.header import ShapeOption
from trtlog.numbers import decode_version

__all__ = [
    "AvailableDevice",
    "Device",
    "Header",
    "IoFormat",
    "Options",
    "Product",
    "Run",
    "ShapeOption",
    "VersionSource",
    "decode_version",
    "derive_header",
    "library_version",
]

Version = tuple[int, ...]
#: The product a log comes from: TensorRT, or TensorRT-RTX (its own version numbers).
Product = Literal["TensorRT", "TensorRT-RTX"]
#: Where a log's version was read (see :attr:`Run.version_source`).
VersionSource = Literal["banner", "version_line", "library", "python_package"]
Dims = tuple[int, ...]


class Run(BaseModel):
    """One trtexec run inside the file (a file can hold several, formats.md T20).

    Attributes:
        index: 0-based position in the file.
        first_line: the run's first line (its ``&&&& RUNNING`` banner when it has one).
        last_line: the run's last line (the line before the next run starts, or the end).
        status: ``passed``/``failed``/``waived`` from the footer, ``None`` with no footer
            (crash, truncated paste).
        command_line: the command from the banner, if any.
        trt_version: the version the banner or ``TensorRT version:`` line gives, else the one
            in the name of a TensorRT library the run loads (see :func:`library_version`).
        test: the banner's test name (``TensorRT.trtexec``), if any.
        build_number: the banner's ``[b<n>]`` build number (10.4+), if any.
        end_line: the line of the ``&&&& PASSED|FAILED|WAIVED`` footer, if any.
        rtx_version: TensorRT-RTX's own version, from the ``[TensorRT-RTX v10400]`` tag of a
            ``tensorrt_rtx`` banner (``(1, 4, 0)``); not a TensorRT version, so
            :attr:`trt_version` stays ``None`` for it.
        version_source: where :attr:`trt_version` (or :attr:`rtx_version`) comes from:
            ``banner`` (the ``&&&&`` banner or footer), ``version_line`` (``TensorRT version:
            ...``), ``library`` (the name of a TensorRT library loaded) or ``python_package``
            (a tool's ``Successfully imported the `tensorrt` python package with version
            ...``); ``None`` without.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    index: int
    first_line: int
    last_line: int
    status: Literal["passed", "failed", "waived"] | None = None
    command_line: str | None = None
    trt_version: Version | None = None
    test: str | None = None
    build_number: int | None = None
    end_line: int | None = None
    rtx_version: Version | None = None
    version_source: VersionSource | None = None


class IoFormat(BaseModel):
    """One I/O format line of the Build options (``Input(s)s format: fp32:CHW``).

    Attributes:
        direction: ``input`` or ``output``.
        per_tensor: ``True`` for the ``--inputIOFormats`` lines (``Input(s): fp16:chw``).
        dtype: the data type (``fp32``), if printed.
        layouts: the tensor formats (``("CHW",)``).
        text: the format as printed.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    direction: Literal["input", "output"]
    per_tensor: bool = False
    dtype: str | None = None
    layouts: tuple[str, ...] = ()
    text: str


class Options(BaseModel):
    """The ``=== ... Options ===`` blocks of the (first) run.

    Attributes:
        blocks: section name (``Model``, ``Build``, ``System``, ``Inference``, ``Reporting``)
            → option label → value as printed (I/O formats under their label too).
        io_formats: the I/O format lines, parsed.
        shapes: the ``Input <phase> shape`` lines, parsed.
        lists: list options (``Inputs``, ``Debug Tensor Save Destinations``, ...) → their
            items as printed (``tensor<-file``, ``tensor: file`` or a word).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    blocks: dict[str, dict[str, str]] = Field(default_factory=dict)
    io_formats: tuple[IoFormat, ...] = ()
    shapes: tuple[ShapeOption, ...] = ()
    lists: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    def get(self, key: str, section: str | None = None) -> str | None:
        """The value of an option label, looked up in ``section`` or in every block.

        Example:
            >>> Options(blocks={"Build": {"Precision": "FP32+INT8"}}).get("Precision")
            'FP32+INT8'
        """
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
        """The precisions enabled, from ``Precision:`` (``("FP32", "INT8")``).

        Example:
            >>> options = Options(blocks={"Build": {"Precision": "FP32+FP16 (obey precision ...)"}})
            >>> options.precisions
            ('FP32', 'FP16')
        """
        value = self.precision
        if not value:
            return ()
        head = value.split(" (", 1)[0]
        if head.strip() == "Strongly Typed":
            return ("STRONGLY_TYPED",)
        return tuple(p.strip() for p in head.split("+") if p.strip())

    @property
    def precision_constraints(self) -> Literal["obey", "prefer"] | None:
        """``obey``/``prefer`` when ``Precision:`` ends with ``(... precision constraints)``.

        Example:
            >>> Options(blocks={"Build": {"Precision": "FP32 (obey precision constraints)"}}
            ...         ).precision_constraints
            'obey'
        """
        value = self.precision or ""
        if "(obey precision constraints)" in value:
            return "obey"
        if "(prefer precision constraints)" in value:
            return "prefer"
        return None

    @property
    def strongly_typed(self) -> bool:
        """Whether the network was built strongly typed (``Precision: Strongly Typed``)."""
        return self.precisions == ("STRONGLY_TYPED",)

    @property
    def model(self) -> str | None:
        """The model path (``Model:``, or ``Prototxt:`` for Caffe)."""
        return self.get("Model", "Model") or self.get("Prototxt", "Model")

    @property
    def loaded_engine(self) -> str | None:
        """The engine file of ``--loadEngine`` (``Load engine:``), if any."""
        return self.get("Load engine", "Build") or None

    @property
    def saved_engine(self) -> str | None:
        """The engine file of ``--saveEngine`` (``Save engine:``), if any."""
        return self.get("Save engine", "Build") or None


class AvailableDevice(BaseModel):
    """One ``  Device <i>: "<name>" UUID: <uuid>`` line (9.x+).

    Attributes:
        index: the CUDA device index.
        name: the GPU name.
        uuid: the UUID as printed.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    index: int
    name: str
    uuid: str


class Device(ExactJson):
    """The ``=== Device Information ===`` block.

    Attributes:
        name: ``Selected Device``.
        compute_capability: e.g. ``8.7``.
        sms: number of SMs.
        global_memory_mib: ``Device Global Memory`` in MiB.
        device_id: ``Selected Device ID`` (9.x+).
        uuid: ``Selected Device UUID`` (9.x+).
        shared_memory_per_sm_kib: ``Shared Memory per SM`` in KiB.
        memory_bus_width_bits: ``Memory Bus Width`` in bits.
        ecc: whether ECC is enabled (from ``Memory Bus Width``).
        compute_clock_ghz: ``Compute Clock Rate`` (7.2-8.5) or ``Application Compute Clock
            Rate`` (8.6+), in GHz.
        memory_clock_ghz: ``Memory Clock Rate`` or ``Application Memory Clock Rate``, in GHz.
        available: the ``Available Devices:`` list (9.x+).
        values: every label → value as printed.
    """

    model_config = ConfigDict(frozen=True, defer_build=True, ser_json_inf_nan="constants")

    name: str | None = None
    compute_capability: str | None = None
    sms: int | None = None
    global_memory_mib: int | None = None
    device_id: int | None = None
    uuid: str | None = None
    shared_memory_per_sm_kib: int | None = None
    memory_bus_width_bits: int | None = None
    ecc: bool | None = None
    compute_clock_ghz: float | None = None
    memory_clock_ghz: float | None = None
    available: tuple[AvailableDevice, ...] = ()
    values: dict[str, str] = Field(default_factory=dict)


class Header(BaseModel):
    """Everything :func:`derive_header` finds.

    ``product`` is ``TensorRT-RTX`` when a run's banner names it or the log holds a builder
    note only TensorRT-RTX prints (:class:`~trtlog.events.RtxNote`), else ``TensorRT``;
    ``version_source`` says where ``trt_version`` (or ``rtx_version``) was read.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    runs: tuple[Run, ...] = ()
    trt_version: Version | None = None
    rtx_version: Version | None = None
    product: Product = "TensorRT"
    version_source: VersionSource | None = None
    command_line: str | None = None
    options: Options = Field(default_factory=Options)
    device: Device | None = None

    def build_fields(self) -> dict[str, Any]:
        """The fields a :class:`~trtlog.buildlog.Build` takes from its header, by name.

        Every maker of a ``Build`` from events (the parse, the warehouse's streamed logs)
        passes these, so a new header field reaches them all.
        """
        return {
            "runs": self.runs,
            "trt_version": self.trt_version,
            "rtx_version": self.rtx_version,
            "product": self.product,
            "version_source": self.version_source,
            "command_line": self.command_line,
            "options": self.options,
            "device": self.device,
        }


def _int_prefix(value: str | None) -> int | None:
    head = (value or "").strip().split(" ", 1)[0]
    try:
        return int(head)
    except ValueError:
        return None


def _float_prefix(value: str | None) -> float | None:
    head = (value or "").strip().split(" ", 1)[0]
    try:
        return float(head)
    except ValueError:
        return None


def _device(values: dict[str, str], available: list[AvailableDevice]) -> Device:
    bus = values.get("Memory Bus Width", "")
    ecc = True if "ECC enabled" in bus else False if "ECC disabled" in bus else None
    compute = values.get("Application Compute Clock Rate") or values.get("Compute Clock Rate")
    memory = values.get("Application Memory Clock Rate") or values.get("Memory Clock Rate")
    return Device(
        name=values.get("Selected Device"),
        compute_capability=values.get("Compute Capability"),
        sms=_int_prefix(values.get("SMs")),
        global_memory_mib=_int_prefix(values.get("Device Global Memory")),
        device_id=_int_prefix(values.get("Selected Device ID")),
        uuid=values.get("Selected Device UUID"),
        shared_memory_per_sm_kib=_int_prefix(values.get("Shared Memory per SM")),
        memory_bus_width_bits=_int_prefix(bus),
        ecc=ecc,
        compute_clock_ghz=_float_prefix(compute),
        memory_clock_ghz=_float_prefix(memory),
        available=tuple(available),
        values=values,
    )


class _Collector:
    """The state of one pass over the events (see :func:`derive_header`)."""

    def __init__(self, n_lines: int) -> None:
        self.n_lines = n_lines
        self.runs: list[dict[str, Any]] = []
        self.blocks: dict[str, dict[str, str]] = {}
        self.io_formats: list[IoFormat] = []
        self.shapes: list[ShapeOption] = []
        self.lists: dict[str, list[str]] = {}
        self.section: str | None = None
        self.list_key: str | None = None
        self.options_run: int | None = None
        self.device: dict[str, str] = {}
        self.available: list[AvailableDevice] = []
        self.device_run: int | None = None
        # versions read from loaded libraries' names: per run, and before any run exists
        self.library_versions: dict[int, Version] = {}
        self.loose_version: Version | None = None
        self.rtx_note = False
        # the tensorrt Python package's version a tool prints (per run, and before any run)
        self.package_versions: dict[int, Version] = {}
        self.loose_package: Version | None = None

    def run(self) -> dict[str, Any]:
        """The current run (an implicit run 0 when the log has no banner before)."""
        if not self.runs:
            self.runs.append({"index": 0, "first_line": 1, "last_line": self.n_lines})
        return self.runs[-1]

    def options_open(self) -> bool:
        """Whether option events belong to the options kept (those of the first run)."""
        index = len(self.runs) - 1
        if self.options_run is None:
            self.options_run = index
        return self.options_run == index

    def device_open(self) -> bool:
        index = len(self.runs) - 1
        if self.device_run is None:
            self.device_run = index
        return self.device_run == index

    def feed(self, ev: Event) -> None:
        if isinstance(ev, RunStart):
            if self.runs:
                self.runs[-1]["last_line"] = ev.span[0] - 1
            self.runs.append(
                {
                    "index": len(self.runs),
                    "first_line": ev.span[0],
                    "last_line": self.n_lines,
                    "command_line": ev.command_line,
                    "trt_version": tuple(ev.version) if ev.version else None,
                    "rtx_version": _rtx_version(ev),
                    "version_source": "banner" if ev.version or _rtx_version(ev) else None,
                    "test": ev.test,
                    "build_number": ev.build_number,
                }
            )
            self.section = self.list_key = None
        elif isinstance(ev, RunEnd):
            run = self.run()
            run["status"] = ev.status
            run["end_line"] = ev.span[0]
            for key in ("command_line", "test", "build_number"):
                if run.get(key) is None:
                    run[key] = getattr(ev, key)
            if run.get("trt_version") is None and ev.version:
                run["trt_version"] = tuple(ev.version)
                run["version_source"] = "banner"
            if run.get("rtx_version") is None:
                run["rtx_version"] = _rtx_version(ev)
                if run["rtx_version"] is not None:
                    run.setdefault("version_source", "banner")
        elif isinstance(ev, TrtVersion):
            run = self.run()
            if run.get("trt_version") is None:
                run["trt_version"] = tuple(ev.version)
                run["version_source"] = "version_line"
        elif isinstance(ev, RtxNote):
            self.rtx_note = True
        elif isinstance(ev, TrtPackageVersion):
            if self.runs:
                self.package_versions.setdefault(len(self.runs) - 1, tuple(ev.version))
            elif self.loose_package is None:
                self.loose_package = tuple(ev.version)
        elif isinstance(ev, LibraryNote):
            version = library_version(ev.name) if ev.note in _LOADS else None
            if version is None:
                pass
            elif self.runs:  # (no implicit run for it: a library line alone starts none)
                self.library_versions.setdefault(len(self.runs) - 1, version)
            elif self.loose_version is None:
                self.loose_version = version
        elif isinstance(ev, _OPTION_CLASSES):
            self.run()
            if self.options_open():
                self.option(ev)
        elif isinstance(ev, DeviceKv | DeviceListItem):
            self.run()
            if self.device_open():
                if isinstance(ev, DeviceKv):
                    self.device.setdefault(ev.key, ev.value)
                else:
                    self.available.append(
                        AvailableDevice(index=ev.index, name=ev.name, uuid=ev.uuid)
                    )

    def option(self, ev: OptionEvent) -> None:
        if isinstance(ev, OptionsSection):
            self.section = ev.section
            self.blocks.setdefault(ev.section, {})
            self.list_key = None
        elif isinstance(ev, OptionKv):
            self.blocks.setdefault(self.section or "", {}).setdefault(ev.key, ev.value)
            self.list_key = ev.key if not ev.value else None
        elif isinstance(ev, OptionListItem):
            item = ev.value if ev.tensor is None else f"{ev.tensor}: {ev.value}"
            if self.list_key is not None:
                self.lists.setdefault(self.list_key, []).append(item)
        elif isinstance(ev, OptionIoFormat):
            self.io_formats.append(
                IoFormat(
                    direction=ev.direction,
                    per_tensor=ev.per_tensor,
                    dtype=ev.dtype,
                    layouts=tuple(ev.layouts),
                    text=ev.text,
                )
            )
            # I/O formats are Build options; a paste may show them without the block header (T8)
            self.blocks.setdefault(self.section or "Build", {}).setdefault(ev.label, ev.text)
            self.list_key = None
        elif isinstance(ev, OptionShape):
            self.shapes.append(ShapeOption.of(ev))
            self.list_key = None
        else:  # OptionsEnd
            self.section = self.list_key = None

    def header(self) -> Header:
        for i, run in enumerate(self.runs):  # the banner and ``TensorRT version:`` come first
            if run.get("trt_version") is None and run.get("rtx_version") is None:
                library = self.library_versions.get(i) or (self.loose_version if i == 0 else None)
                package = self.package_versions.get(i) or (self.loose_package if i == 0 else None)
                run["trt_version"] = library or package
                run["version_source"] = (
                    "library" if library else "python_package" if package else None
                )
        run_models = tuple(Run(**r) for r in self.runs)
        trt_run = next((r for r in run_models if r.trt_version), None)
        rtx_run = next((r for r in run_models if r.rtx_version), None)
        version = trt_run.trt_version if trt_run else self.loose_version or self.loose_package
        rtx = rtx_run.rtx_version if rtx_run else None
        source: VersionSource | None = None
        if trt_run:
            source = trt_run.version_source
        elif self.loose_version or self.loose_package:
            source = "library" if self.loose_version else "python_package"
        elif rtx_run:
            source = rtx_run.version_source
        command = next((r.command_line for r in run_models if r.command_line), None)
        dev = _device(self.device, self.available) if self.device or self.available else None
        options = Options(
            blocks=self.blocks,
            io_formats=tuple(self.io_formats),
            shapes=tuple(self.shapes),
            lists={k: tuple(v) for k, v in self.lists.items()},
        )
        return Header(
            runs=run_models,
            trt_version=version,
            rtx_version=rtx,
            product="TensorRT-RTX" if rtx is not None or self.rtx_note else "TensorRT",
            version_source=source,
            command_line=command,
            options=options,
            device=dev,
        )


#: The option events (of the run whose options are kept).
OptionEvent = OptionsSection | OptionKv | OptionListItem | OptionIoFormat | OptionShape | OptionsEnd
_OPTION_CLASSES = (
    OptionsSection,
    OptionKv,
    OptionListItem,
    OptionIoFormat,
    OptionShape,
    OptionsEnd,
)


def derive_header(events: Iterable[Event], n_lines: int) -> Header:
    """Collect runs, version, command line, options and device from the events.

    Reads the header family's events (``run_start``/``run_end``, ``trt_version``, the option
    events and the device events); every other event is skipped. Options and device come from
    the first run that prints them; a run ends where the next ``&&&& RUNNING`` starts.

    Example:
        >>> from trtlog import parse_text
        >>> b = parse_text(
        ...     "&&&& RUNNING TensorRT.trtexec [TensorRT v8412] # trtexec --int8\\n"
        ...     "[01/10/2024-21:52:50] [I] === Build Options ===\\n"
        ...     "[01/10/2024-21:52:50] [I] Precision: FP32+INT8\\n"
        ...     "&&&& PASSED TensorRT.trtexec [TensorRT v8412] # trtexec --int8\\n"
        ... )
        >>> b.runs[0].status, b.trt_version, b.options.precisions
        ('passed', (8, 4, 12), ('FP32', 'INT8'))
    """
    collector = _Collector(n_lines)
    feed = collector.feed
    wanted = _HEADER_CLASSES
    for ev in events:
        if type(ev) in wanted:  # a set lookup instead of a call for the other events
            feed(ev)
    return collector.header()


_LOADS = ("library_loading", "library_loaded")
# TensorRT's own libraries carry the full version in their file name (``.so.10.16.0``, 8.6+
# for the builder resource); a bare ``.so.10`` names the major version only and is not kept
_TRT_LIBRARY = re.compile(
    r"(?:^|[/\\])(?:lib)?nvinfer(?:_builder_resource(?:_sm\d+)?|_plugin|_lean|_dispatch)?"
    r"\.so\.(\d+\.\d+(?:\.\d+){0,2})$"
)


def _rtx_version(ev: RunStart | RunEnd) -> Version | None:
    """TensorRT-RTX's version of a ``tensorrt_rtx`` banner (its code, no TensorRT version)."""
    if ev.version is None and ev.version_code and ev.test.startswith("TensorRT-RTX"):
        return decode_version(ev.version_code)
    return None


def library_version(name: str | None) -> Version | None:
    """The TensorRT version in the file name of one of its libraries, if it holds one.

    10.x prints no ``TensorRT version:`` line in a Python program's log, but its builder loads
    ``libnvinfer_builder_resource_sm89.so.10.16.0`` (formats.md §B.9); trtexec logs print
    the same line. At least major and minor must be in the name.

    Example:
        >>> library_version("libnvinfer_builder_resource_sm89.so.10.16.0")
        (10, 16, 0)
        >>> library_version("libnvinfer.so.10"), library_version("libcublas.so.11.4.2")
        (None, None)
    """
    m = _TRT_LIBRARY.search(name or "")
    return tuple(int(p) for p in m[1].split(".")) if m else None


_HEADER_TYPES = (
    RunStart,
    RunEnd,
    TrtVersion,
    TrtPackageVersion,
    LibraryNote,
    RtxNote,
    DeviceKv,
    DeviceListItem,
)
# the events derive_header reads (a set lookup by class skips the others)
_HEADER_CLASSES: frozenset[type] = frozenset({*_OPTION_CLASSES, *_HEADER_TYPES})
#: The kinds of the events :func:`derive_header` reads.
HEADER_KINDS: frozenset[str] = frozenset(
    c.model_fields["kind"].default for c in (*_OPTION_CLASSES, *_HEADER_TYPES)
)
