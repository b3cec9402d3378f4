"""Events of the header family: banners, options, device information and start-up lines.

The ``&&&&`` banner, pre-option notices, the ``=== ... Options ===`` blocks, the device
information block, the TensorRT version, plugin loading and other start-up notes (formats.md
§A, §B.1-B.6, §B.9). :mod:`trtlog.buildlog.header` gathers them into the build header.

Part of the data model (pydantic only). Values are parsed: versions are int tuples, dims are
int tuples (``-1`` for a dynamic dimension), option values stay as printed (they are labels of
many shapes; :class:`trtlog.buildlog.header.Options` interprets the common ones).
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict

from trtlog.events.base import EventBase

__all__ = [
    "DeviceError",
    "DeviceKv",
    "DeviceListHeader",
    "DeviceListItem",
    "DeviceNote",
    "DeviceSection",
    "FileLockTime",
    "HeaderEvent",
    "LibraryNote",
    "OptionIoFormat",
    "OptionKv",
    "OptionListItem",
    "OptionShape",
    "OptionsEnd",
    "OptionsSection",
    "PluginLoading",
    "PreOptionNotice",
    "ProfileSharingDeprecated",
    "RtxNote",
    "RunEnd",
    "RunStart",
    "Tf32Unsupported",
    "TrtPackageVersion",
    "TrtVersion",
    "TuningTask",
]

Dims = tuple[int, ...]


class RunStart(EventBase):
    """``&&&& RUNNING <test> [TensorRT v<code>] [b<n>] # <command line>`` (formats.md §A.1).

    Printed without envelope; it starts a run (a file can hold several, T20).

    Attributes:
        status: always ``running``.
        test: the test name, ``TensorRT.trtexec`` for trtexec.
        version_code: the banner's version code (``8412``, ``101601``), 8.0+; TensorRT-RTX's
            own (``[TensorRT-RTX v10400]``), with ``version`` then ``None``.
        version: the decoded TensorRT version (``(8, 4, 12)``), see
            :func:`trtlog.numbers.decode_version`.
        build_number: the ``[b<n>]`` build number (10.4+).
        command_line: the command line as printed (argv joined by blanks).
    """

    kind: Literal["run_start"] = "run_start"
    status: Literal["running"] = "running"
    test: str
    version_code: int | None = None
    version: tuple[int, ...] | None = None
    build_number: int | None = None
    command_line: str


class RunEnd(EventBase):
    """``&&&& PASSED|FAILED|WAIVED <test> ... # <command line>``: the footer (§A.1, §O).

    Attributes:
        status: ``passed``, ``failed`` or ``waived``.
        test: the test name.
        version_code: the banner's version code, 8.0+.
        version: the decoded version.
        build_number: the ``[b<n>]`` build number (10.4+).
        command_line: the command line, repeated verbatim from the start banner.
    """

    kind: Literal["run_end"] = "run_end"
    status: Literal["passed", "failed", "waived"]
    test: str
    version_code: int | None = None
    version: tuple[int, ...] | None = None
    build_number: int | None = None
    command_line: str


class TuningTask(EventBase):
    """``&&&& TASK_BEGIN|TASK_END|TASK_ABORT [iter=<i>] BuildRoute = '<route>'`` (11.x).

    Attributes:
        phase: ``begin``, ``end`` or ``abort``.
        iteration: the ``iter=`` number, if printed.
        route: the build route, if printed.
        detail: the text after the phase word, as printed.
    """

    kind: Literal["tuning_task"] = "tuning_task"
    phase: Literal["begin", "end", "abort"]
    iteration: int | None = None
    route: str | None = None
    detail: str = ""


class PreOptionNotice(EventBase):
    """A notice trtexec prints while it reads its command line (formats.md §A.2).

    Attributes:
        notice: what it is about: ``flag_deprecated``, ``flag_default`` (11.x: the flag's
            behaviour is the default now and the flag does nothing: ``--useCudaGraph``,
            ``--noDataTransfers``, ``--useSpinWait``, ``--separateProfileRun``),
            ``accuracy_nondeterministic`` (11.x: accuracy validation of an engine built from
            ``--onnx`` in the same run; builds are not deterministic), ``explicit_batch``,
            ``tf32_default``, ``shape_broadcast``, ``precision_constraints`` or
            ``unknown_option``.
        text: the message as printed.
        flag: the flag concerned (``--workspace``, ``--plugins``, the unknown option).
        replacement: the flag to use instead, for deprecated flags; for ``flag_default`` the
            flag that turns the old default back on (``--noCudaGraph``), if one is named.
        tensor: the tensor concerned, for ``shape_broadcast``.
        value: the value given to an unknown option.
    """

    kind: Literal["pre_option_notice"] = "pre_option_notice"
    notice: Literal[
        "flag_deprecated",
        "flag_default",
        "accuracy_nondeterministic",
        "explicit_batch",
        "tf32_default",
        "shape_broadcast",
        "precision_constraints",
        "unknown_option",
    ]
    text: str
    flag: str | None = None
    replacement: str | None = None
    tensor: str | None = None
    value: str | None = None


class OptionsSection(EventBase):
    """``=== <Model|Build|System|Inference|Reporting> Options ===`` (§A.3).

    Attributes:
        section: ``Model``, ``Build``, ``System``, ``Inference`` or ``Reporting``.
    """

    kind: Literal["options_section"] = "options_section"
    section: str


class OptionKv(EventBase):
    """``<label>: <value>`` inside an options block (§A.4).

    Attributes:
        key: the option label as printed (``Precision``, ``Memory Pools``, ``Input(s)s format``
            lines are :class:`OptionIoFormat` instead).
        value: the value as printed, ``""`` when empty; values can hold ``: `` and ``, ``.
    """

    kind: Literal["option_kv"] = "option_kv"
    key: str
    value: str


class ShapeOption(BaseModel):
    """One ``Input <phase> shape...`` option: the fields of :class:`OptionShape`.

    The build header keeps these (``Build.options.shapes``); the event carries the same
    fields, declared here once.

    Attributes:
        phase: ``build``, ``calibration`` or ``inference``.
        tensor: the input tensor, ``None`` for ``shapes: model``.
        profile: the optimization profile index (9.x+ build shapes), if printed.
        model: ``True`` for ``Input <phase> shapes: model`` (no explicit shapes).
        dims: the shape of a single-shape spec (inference shapes).
        min_dims: the minimum shape of a ``min+opt+max`` spec.
        opt_dims: the optimum shape of a ``min+opt+max`` spec.
        max_dims: the maximum shape of a ``min+opt+max`` spec.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    phase: Literal["build", "calibration", "inference"]
    tensor: str | None = None
    profile: int | None = None
    model: bool = False
    dims: Dims | None = None
    min_dims: Dims | None = None
    opt_dims: Dims | None = None
    max_dims: Dims | None = None

    @classmethod
    def of(cls, event: "ShapeOption") -> "ShapeOption":
        """The shape option an :class:`OptionShape` event carries.

        Example:
            >>> ev = OptionShape(span=(1, 1), phase="build", tensor="x", dims=(1, 3))
            >>> ShapeOption.of(ev)
            ShapeOption(phase='build', tensor='x', profile=None, model=False, dims=(1, 3), \
min_dims=None, opt_dims=None, max_dims=None)
        """
        return cls(**{name: getattr(event, name) for name in cls.model_fields})


class OptionShape(ShapeOption, EventBase):
    """``Input <phase> shape[s][ (profile <i>)]: <tensor>=<spec>`` or ``...shapes: model`` (§A.5).

    Attributes: those of :class:`ShapeOption`.
    """

    kind: Literal["option_shape"] = "option_shape"


class OptionIoFormat(EventBase):
    """An I/O format line of the Build options (§A.4 table).

    ``Inputs format: fp32:CHW`` (6.0-7.1), ``Input(s)s format: fp32:CHW`` (7.2+; the doubled
    ``s`` is real), ``Input(s)s format: CHW`` (11.x) and, with ``--inputIOFormats``, one
    ``Input(s): fp16:chw`` line per format.

    Attributes:
        label: the label as printed (``Input(s)s format``, ``Inputs format``, ``Input(s)``).
        direction: ``input`` or ``output``.
        per_tensor: ``True`` for the ``Input(s): <fmt>`` lines of ``--inputIOFormats``.
        dtype: the data type (``fp32``, ``fp16``, ``int8``...), if printed.
        layouts: the tensor formats joined by ``+`` (``("hwc4", "chw32")``).
        text: the format as printed.
    """

    kind: Literal["option_io_format"] = "option_io_format"
    label: str
    direction: Literal["input", "output"]
    per_tensor: bool
    dtype: str | None = None
    layouts: tuple[str, ...] = ()
    text: str


class OptionListItem(EventBase):
    """A line of a list option (§A.6).

    ``<tensor><-<file>`` after ``Inputs:`` (and 11.x ``RefOutputs:``), ``<tensor>: <file>``
    after ``Debug Tensor Save Destinations:`` (10.x) and one format word per line after
    ``Dump All Debug Tensor in Formats:`` (10.x).

    Attributes:
        tensor: the tensor, for ``<-`` and ``: `` items.
        value: the file (or the format word).
    """

    kind: Literal["option_list_item"] = "option_list_item"
    tensor: str | None = None
    value: str


class OptionsEnd(EventBase):
    """The empty ``[I]`` line that closes the options block (§A.7)."""

    kind: Literal["options_end"] = "options_end"


class DeviceSection(EventBase):
    """``=== Device Information ===`` (§B.1, 7.2+)."""

    kind: Literal["device_section"] = "device_section"


class DeviceListHeader(EventBase):
    """``Available Devices:`` (§B.2, 9.x+)."""

    kind: Literal["device_list_header"] = "device_list_header"


class DeviceListItem(EventBase):
    """``  Device <i>: "<name>" UUID: GPU-<uuid>`` (§B.2, 9.x+).

    Attributes:
        index: the CUDA device index.
        name: the GPU name (without the quotes).
        uuid: the UUID as printed (``GPU-84a8068b-...``).
    """

    kind: Literal["device_list_item"] = "device_list_item"
    index: int
    name: str
    uuid: str


class DeviceKv(EventBase):
    """``<label>: <value>`` inside the device block (§B.3).

    Attributes:
        key: the label (``Selected Device``, ``Compute Capability``, ``SMs``...).
        value: the value as printed.
        number: the leading number of the value (``8.6``, ``81081``, ``1.755``), if any.
        unit: the word after that number (``MiB``, ``KiB``, ``bits``, ``GHz``), if any.
    """

    kind: Literal["device_kv"] = "device_kv"
    key: str
    value: str
    number: int | float | None = None
    unit: str | None = None


class DeviceNote(EventBase):
    """``Note: The application clock rates do not reflect ...`` (§B.4, 8.6+).

    Attributes:
        text: the note as printed.
    """

    kind: Literal["device_note"] = "device_note"
    text: str


class DeviceError(EventBase):
    """A device set-up failure (§B.4): no GPU, a wrong device id, a CUDA failure.

    Attributes:
        reason: ``no_device`` (``Cannot find any available devices (GPUs)!``),
            ``no_device_id`` (``Cannot find device ID <n>!``) or ``cuda_failure``
            (``Cuda failure: <msg>``).
        device_id: the device id, for ``no_device_id``.
        detail: the CUDA message, for ``cuda_failure``.
    """

    kind: Literal["device_error"] = "device_error"
    reason: Literal["no_device", "no_device_id", "cuda_failure"]
    device_id: int | None = None
    detail: str | None = None


class TrtVersion(EventBase):
    """``TensorRT version: <v>`` (§B.5; 8.0 prints the integer ``8001``, 8.2+ ``8.2.1``).

    Attributes:
        version: the version as an int tuple (``(8, 0, 1)``).
        text: the version as printed.
    """

    kind: Literal["trt_version"] = "trt_version"
    version: tuple[int, ...]
    text: str


class TrtPackageVersion(EventBase):
    """``Successfully imported the `tensorrt` python package with version <v>`` (ModelOpt).

    A Python tool's check of the installed ``tensorrt`` package (ModelOpt 10.16.x prints it
    through the Python logger's default format, which the event keeps in ``logger``).

    Attributes:
        version: the version as an int tuple, every printed part (``(10, 16, 2, 5)``).
        text: the version as printed.
        logger: the Python logger's head (``<time> - [modelopt][onnx] - INFO - ``), if any.
    """

    kind: Literal["trt_package_version"] = "trt_package_version"
    version: tuple[int, ...]
    text: str
    logger: str | None = None


class PluginLoading(EventBase):
    """Plugin libraries trtexec loads at start-up (§B.6).

    Attributes:
        action: ``standard`` (``Loading standard plugins``), ``not_standard`` (``Not loading
            standard plugins since --versionCompatible is specified.``), ``skip_standard``
            (``Skipping standard plugin loading due to --safe flag``) or ``library``
            (``Loading supplied plugin library: <path>``).
        path: the library path, for ``library``.
    """

    kind: Literal["plugin_loading"] = "plugin_loading"
    action: Literal["standard", "not_standard", "skip_standard", "library"]
    path: str | None = None


class Tf32Unsupported(EventBase):
    """``BuilderFlag::kTF32 is set but hardware does not support TF32. Disabling TF32.``.

    The GPU predates Ampere (compute capability below 8.0): FP32 runs without TF32. [I] or [W],
    8.x-10.x.
    """

    kind: Literal["tf32_unsupported"] = "tf32_unsupported"


class ProfileSharingDeprecated(EventBase):
    """``profileSharing0806 is on by default in TensorRT 10.0. This flag is deprecated ...``.

    A builder flag that has no effect since 10.0 (TensorRT-LLM still sets it). [W], 10.x.
    """

    kind: Literal["profile_sharing_deprecated"] = "profile_sharing_deprecated"


class LibraryNote(EventBase):
    """Other start-up lines of the library (§B.9 and the corpus).

    Attributes:
        note: ``library_loading`` (``Trying to load shared library <lib>``),
            ``library_loaded`` (``Loaded shared library <lib>``), ``lazy_loading``
            (``CUDA lazy loading is enabled.`` / ``... is not enabled. ...``),
            ``plugin_registered`` (``Registered plugin creator - ::<name> version <v>``),
            ``plugin_already_registered`` (``Plugin creator already registered - ...``),
            ``file_lock`` (``Trying to set exclusive file lock <file>``), ``file_unlock``
            (``Trying to remove exclusive file lock <file>``) or ``version_mismatch``
            (``TensorRT was linked against <lib> <v> but loaded <lib> <v>``).
        name: the library, plugin creator (with its namespace, ``::GridAnchor_TRT``) or file.
        version: the plugin creator version, or the library version loaded.
        expected_version: the version TensorRT was linked against, for ``version_mismatch``.
        enabled: for ``lazy_loading``, whether lazy loading is on.
        text: the message as printed.
    """

    kind: Literal["library_note"] = "library_note"
    note: Literal[
        "library_loading",
        "library_loaded",
        "lazy_loading",
        "plugin_registered",
        "plugin_already_registered",
        "file_lock",
        "file_unlock",
        "version_mismatch",
    ]
    name: str | None = None
    version: str | None = None
    expected_version: str | None = None
    enabled: bool | None = None
    text: str


class FileLockTime(EventBase):
    """``File locked in <s> seconds.`` / ``File unlocked in <s> seconds.`` ([V], 8.6).

    How long taking or releasing the timing cache's file lock took (between ``Trying to set
    exclusive file lock`` and ``Trying to remove exclusive file lock``, library notes).

    Attributes:
        phase: ``locked`` or ``unlocked``.
        seconds: the time printed.
    """

    kind: Literal["file_lock_time"] = "file_lock_time"
    phase: Literal["locked", "unlocked"]
    seconds: float


class RtxNote(EventBase):
    """A builder note only TensorRT-RTX prints: it names the product of a log without banner.

    TensorRT prints neither line (the cookbook's TensorRT 10.16 log of the same program), so
    the header takes a log that holds one for a TensorRT-RTX log
    (:attr:`trtlog.buildlog.header.Header.product`).

    Attributes:
        note: ``jit_strongly_typed`` (``In JIT build, strongly typed is enabled by
            default.``, [W]) or ``convergence_mode`` (``Compiler backend convergence mode
            enabled``, [V]).
    """

    kind: Literal["rtx_note"] = "rtx_note"
    note: Literal["jit_strongly_typed", "convergence_mode"]


HeaderEvent = (
    RtxNote
    | FileLockTime
    | TrtPackageVersion
    | Tf32Unsupported
    | ProfileSharingDeprecated
    | RunStart
    | RunEnd
    | TuningTask
    | PreOptionNotice
    | OptionsSection
    | OptionKv
    | OptionShape
    | OptionIoFormat
    | OptionListItem
    | OptionsEnd
    | DeviceSection
    | DeviceListHeader
    | DeviceListItem
    | DeviceKv
    | DeviceNote
    | DeviceError
    | TrtVersion
    | PluginLoading
    | LibraryNote
)
