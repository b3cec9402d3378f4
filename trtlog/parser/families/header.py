"""Keyword rules and transformer of the header family (grammars/header.lark).

Part of the parser: the ``&&&&`` banner, pre-option notices, the options blocks, the device
information block, the TensorRT version, plugin loading and start-up library notes
(formats.md §A, §B.1-B.6, §B.9).

The options block is made of generic ``Key: value`` lines, so its rows only apply inside the
``options`` section: an enveloped ``=== ... Options ===`` header opens it (the ``--help`` text
prints the same headers without envelope and opens nothing, T19) and the empty ``[I]`` line
after the block closes it. The I/O format and shape lines have distinctive prefixes and are
also recognised outside the section (pastes that start inside the block, T8). The labels of
the device block are distinctive too, so its rows are global and it opens no section.
"""

from __future__ import annotations

import re

from lark import Token, v_args

from trtlog.numbers import decode_version
from trtlog.parser.family import BaseTransformer, Family, Fields, Rule

__all__ = ["FAMILY"]

_TASK_ITER = re.compile(r"\[iter=(\d+)\]")
_TASK_ROUTE = re.compile(r"BuildRoute = '(.*)'$", re.DOTALL)
_LEADING_NUMBER = re.compile(r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?: ([A-Za-z/%]+))?")


class _RtxCode(int):
    """The version code of a ``[TensorRT-RTX v<code>]`` tag: kept, but no TensorRT version."""


def _version_fields(code: int | None) -> dict[str, object]:
    if isinstance(code, _RtxCode):  # TensorRT-RTX's own version (buildlog.header reads it)
        return {"version_code": int(code), "version": None}
    return {"version_code": code, "version": decode_version(code) if code else None}


def _number(text: str) -> int | float | None:
    """The number a device value starts with; ``None`` past Python's 4,300-digit limit."""
    try:
        return float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:  # the value's text is kept whole in the event
        return None


@v_args(inline=True)
class HeaderTransformer(BaseTransformer):
    """Builds header events."""

    # -- banner ---------------------------------------------------------------------------------

    def trt_tag(self, code: int) -> int:
        return code

    def rtx_tag(self, code: int) -> int:
        # a TensorRT-RTX version: not a TensorRT version (the test name says RTX)
        return _RtxCode(code)

    def build_tag(self, number: int) -> int:
        return number

    def run_start(
        self, test: Token, code: int | None, build: int | None, command: Token | None
    ) -> Fields:
        return {
            "kind": "run_start",
            "status": "running",
            "test": str(test),
            **_version_fields(code),
            "build_number": build,
            "command_line": str(command or "")[1:],
        }

    def run_end(
        self,
        status: Token,
        test: Token,
        code: int | None,
        build: int | None,
        command: Token | None,
    ) -> Fields:
        return {
            "kind": "run_end",
            "status": str(status).lower(),
            "test": str(test),
            **_version_fields(code),
            "build_number": build,
            "command_line": str(command or "")[1:],
        }

    def tuning_task(self, phase: Token, detail: Token | None) -> Fields:
        text = str(detail or "").strip()
        iteration = _TASK_ITER.search(text)
        route = _TASK_ROUTE.search(text)
        return {
            "kind": "tuning_task",
            "phase": str(phase).removeprefix("TASK_").lower(),
            "iteration": int(iteration.group(1)) if iteration else None,
            "route": route.group(1) if route else None,
            "detail": text,
        }

    # -- notices ----------------------------------------------------------------------------------

    def flag_deprecated_by(self, flag: Token, replacement: Token) -> Fields:
        text = f"{flag} flag has been deprecated by {replacement} flag."
        return _notice("flag_deprecated", text, flag=str(flag), replacement=str(replacement))

    def flag_deprecated_use(self, flag: Token, replacement: Token) -> Fields:
        text = f"{flag} flag has been deprecated, use {replacement} flag instead."
        return _notice("flag_deprecated", text, flag=str(flag), replacement=str(replacement))

    def flag_deprecated_noop(self, flag: Token) -> Fields:
        text = f"{flag} flag has been deprecated and has no effect!"
        return _notice("flag_deprecated", text, flag=str(flag))

    def flag_deprecated_bare(self, flag: Token) -> Fields:
        return _notice("flag_deprecated", f"{flag} flag has been deprecated", flag=str(flag))

    def flag_value_deprecated_by(self, flag: Token, replacement: Token) -> Fields:
        text = f"{flag} has been deprecated by {replacement}."
        return _notice("flag_deprecated", text, flag=str(flag), replacement=str(replacement))

    def flag_default_now(
        self,
        flag: Token,
        default: Token,
        override: Token | None,
        purpose: Token | None,
    ) -> Fields:
        # 11.x: the flag's behaviour is the default, the flag does nothing; "replacement" is
        # the flag that turns the old default back on (--noCudaGraph), if the message names one
        text = f"{flag} is deprecated. {default}"
        if override is not None:
            text += f" Use {override} to {purpose}"
        return _notice(
            "flag_default",
            text,
            flag=str(flag),
            replacement=None if override is None else str(override),
        )

    def explicit_batch_note(self, text: Token) -> Fields:
        return _notice("explicit_batch", str(text))

    def accuracy_onnx_note(self, text: Token) -> Fields:
        return _notice("accuracy_nondeterministic", str(text), flag="--onnx")

    def tf32_note(self, text: Token) -> Fields:
        return _notice("tf32_default", str(text), flag="--noTF32")

    def shape_broadcast(self, source: Token, target: Token, tensor: Token | None) -> Fields:
        name = str(tensor or "")[1:]
        text = f"{source} is being broadcasted to {target} for tensor {name}".rstrip()
        return _notice("shape_broadcast", text, flag=f"--{source}", tensor=name)

    def precision_constraints_note(self, text: Token) -> Fields:
        return _notice("precision_constraints", str(text), flag="--precisionConstraints")

    def unknown_option(self, option: Token, value: Token | None) -> Fields:
        arg = str(value or "")[1:]
        text = f"Unknown option: {option} {arg}".rstrip()
        return _notice("unknown_option", text, flag=str(option), value=arg or None)

    def unknown_option_empty(self) -> Fields:
        # trtexec reads a doubled blank in its command line as an option with an empty name
        return _notice("unknown_option", "Unknown option: ", flag="")

    # -- options ----------------------------------------------------------------------------------

    def options_section(self, word: Token) -> Fields:
        return {"kind": "options_section", "section": str(word)}

    def option_kv(self, key: Token, value: Token | None) -> Fields:
        text = str(value or "")
        # "Key: value" and, for "Dump refittable layers:Disabled", "Key:value" (7.2+)
        return {"kind": "option_kv", "key": str(key), "value": text.removeprefix(" ")}

    def option_list_arrow(self, tensor: Token, file: Token | None) -> Fields:
        return {"kind": "option_list_item", "tensor": str(tensor), "value": str(file or "")}

    def option_list_word(self, word: Token) -> Fields:
        return {"kind": "option_list_item", "tensor": None, "value": str(word).strip()}

    def debug_tensor_item(self, tensor: Token, file: Token | None) -> Fields:
        return {"kind": "option_list_item", "tensor": str(tensor), "value": str(file or "")}

    def option_io_format(self, direction: Token, label: Token, spec: Token) -> Fields:
        text = str(spec).strip()
        dtype, _, layouts = text.rpartition(":")
        return {
            "kind": "option_io_format",
            "label": f"{direction}{label}".removesuffix(": "),
            "direction": str(direction).lower(),
            "per_tensor": str(label) == "(s): ",
            "dtype": dtype or None,
            "layouts": tuple(p for p in layouts.split("+") if p),
            "text": text,
        }

    def shape_profile(self, index: int) -> int:
        return index

    def option_shape_model(self, phase: Token) -> Fields:
        return {"kind": "option_shape", "phase": str(phase), "model": True}

    def option_shape(
        self, phase: Token, profile: int | None, tensor: Token, dims: tuple[int, ...]
    ) -> Fields:
        return {
            "kind": "option_shape",
            "phase": str(phase),
            "tensor": str(tensor),
            "profile": profile,
            "dims": dims,
        }

    def option_shape_range(
        self,
        phase: Token,
        profile: int | None,
        tensor: Token,
        low: tuple[int, ...],
        opt: tuple[int, ...],
        high: tuple[int, ...],
    ) -> Fields:
        return {
            "kind": "option_shape",
            "phase": str(phase),
            "tensor": str(tensor),
            "profile": profile,
            "min_dims": low,
            "opt_dims": opt,
            "max_dims": high,
        }

    def options_end(self) -> Fields:
        return {"kind": "options_end"}

    # -- device -----------------------------------------------------------------------------------

    def device_section(self) -> Fields:
        return {"kind": "device_section"}

    def device_list_header(self) -> Fields:
        return {"kind": "device_list_header"}

    def device_list_item(self, index: int, name: Token, uuid: Token) -> Fields:
        return {"kind": "device_list_item", "index": index, "name": str(name), "uuid": str(uuid)}

    def device_kv(self, key: Token, value: Token | None) -> Fields:
        text = str(value or "").removeprefix(" ")
        m = _LEADING_NUMBER.match(text)
        return {
            "kind": "device_kv",
            "key": str(key),
            "value": text,
            "number": _number(m.group(1)) if m else None,
            "unit": m.group(2) if m else None,
        }

    def device_note(self, text: Token) -> Fields:
        return {"kind": "device_note", "text": str(text)}

    def device_error_none(self) -> Fields:
        return {"kind": "device_error", "reason": "no_device"}

    def device_error_id(self, device: int) -> Fields:
        return {"kind": "device_error", "reason": "no_device_id", "device_id": device}

    def device_error_cuda(self, detail: Token) -> Fields:
        return {"kind": "device_error", "reason": "cuda_failure", "detail": str(detail)}

    def trt_version(self, text: Token) -> Fields:
        value = str(text)
        if "." in value:
            version = tuple(int(p) for p in value.split("."))
        else:  # 8.0 prints the version code: "TensorRT version: 8001"
            version = decode_version(int(value))
        return {"kind": "trt_version", "version": version, "text": value}

    def trt_package_version(self, head: Token | None, text: Token) -> Fields:
        value = str(text)
        return {
            "kind": "trt_package_version",
            "version": tuple(int(p) for p in value.split(".")),
            "text": value,
            "logger": str(head) if head is not None else None,
        }

    # -- plugins and libraries ----------------------------------------------------------------

    def plugin_standard(self) -> Fields:
        return {"kind": "plugin_loading", "action": "standard"}

    def plugin_not_standard(self) -> Fields:
        return {"kind": "plugin_loading", "action": "not_standard"}

    def plugin_skip_standard(self) -> Fields:
        return {"kind": "plugin_loading", "action": "skip_standard"}

    def plugin_library(self, path: Token) -> Fields:
        return {"kind": "plugin_loading", "action": "library", "path": str(path)}

    def library_loading(self, lib: Token) -> Fields:
        return _library("library_loading", f"Trying to load shared library {lib}", name=str(lib))

    def library_loaded(self, lib: Token) -> Fields:
        return _library("library_loaded", f"Loaded shared library {lib}", name=str(lib))

    def lazy_loading_on(self) -> Fields:
        return _library("lazy_loading", "CUDA lazy loading is enabled.", enabled=True)

    def tf32_unsupported(self) -> Fields:
        return {"kind": "tf32_unsupported"}

    def profile_sharing_deprecated(self) -> Fields:
        return {"kind": "profile_sharing_deprecated"}

    def lazy_loading_off(self, text: Token) -> Fields:
        return _library("lazy_loading", str(text), enabled=False)

    def plugin_registered(self, creator: Token, version: Token) -> Fields:
        text = f"Registered plugin creator - {creator} version {version}"
        return _library("plugin_registered", text, name=str(creator), version=str(version))

    def plugin_already_registered(self, creator: Token, version: Token) -> Fields:
        text = f"Plugin creator already registered - {creator} version {version}"
        return _library("plugin_already_registered", text, name=str(creator), version=str(version))

    def file_lock(self, path: Token) -> Fields:
        return _library("file_lock", f"Trying to set exclusive file lock {path}", name=str(path))

    def file_locked(self, seconds: Token) -> Fields:
        return {"kind": "file_lock_time", "phase": "locked", "seconds": float(seconds)}

    def file_unlock(self, path: Token) -> Fields:
        text = f"Trying to remove exclusive file lock {path}"
        return _library("file_unlock", text, name=str(path))

    def file_unlocked(self, seconds: Token) -> Fields:
        return {"kind": "file_lock_time", "phase": "unlocked", "seconds": float(seconds)}

    def rtx_jit_strongly_typed(self) -> Fields:
        return {"kind": "rtx_note", "note": "jit_strongly_typed"}

    def rtx_convergence_mode(self) -> Fields:
        return {"kind": "rtx_note", "note": "convergence_mode"}

    def version_mismatch(
        self, linked: Token, linked_version: Token, _loaded: Token, loaded_version: Token
    ) -> Fields:
        text = (
            f"TensorRT was linked against {linked} {linked_version} "
            f"but loaded {_loaded} {loaded_version}"
        )
        return _library(
            "version_mismatch",
            text,
            name=str(linked),
            version=str(loaded_version),
            expected_version=str(linked_version),
        )


def _notice(notice: str, text: str, **fields: object) -> Fields:
    return {"kind": "pre_option_notice", "notice": notice, "text": text, **fields}


def _library(note: str, text: str, **fields: object) -> Fields:
    return {"kind": "library_note", "note": note, "text": text, **fields}


_OPTIONS = "options"
# Option labels (formats.md §A.4 and the corpus). Inside the options block they are tried before
# the keyword rows of every family, so that a label such as "Tactic sources:" never reaches a
# row meant for a library message ("Tactic ..."); labels not listed still reach the block's
# keyword-less row after the global rows.
_OPTION_LABELS = (
    # Model
    "Format",
    "Model",
    "Prototxt",
    "Uff Inputs Layout",
    "Input",
    "Output",
    # Build
    "Max batch",
    "Workspace",
    "Memory Pools",
    "minTiming",
    "avgTiming",
    "Precision",
    "LayerPrecisions",
    "Layer Device Types",
    "Decomposable Attentions",
    "Calibration",
    "Calibration Profile Index",
    "Refit",
    "Strip weights",
    "Weightless",
    "Version Compatible",
    "ONNX Native InstanceNorm",
    "ONNX Plugin InstanceNorm",
    "TensorRT runtime",
    "Lean DLL Path",
    "Tempfile Controls",
    "Exclude Lean Runtime",
    "Sparsity",
    "Safe mode",
    "Build DLA standalone loadable",
    "Allow GPU fallback for DLA",
    "DirectIO mode",
    "Restricted mode",
    "Build only",
    "Skip inference",
    "Save engine",
    "Load engine",
    "Builder Cache",
    "NVTX verbosity",
    "Profiling verbosity",
    "Tactic sources",
    "timingCacheMode",
    "timingCacheFile",
    "Enable Compilation Cache",
    "errorOnTimingCacheMiss",
    "Enable Monitor Memory",
    "CPU Only Mode",
    "Heuristic",
    "Preview Features",
    "MaxAuxStreams",
    "BuilderOptimizationLevel",
    "MaxTactics",
    "Weight Streaming",
    "Runtime Platform",
    "Debug Tensors",
    "Distributive Independence",
    "Mark Unfused Tensors As Debug Tensors",
    # System
    "Device",
    "DLACore",
    "Plugins",
    "Loaded static plugins",
    "setPluginsToSerialize",
    "dynamicPlugins",
    "ignoreParsedPluginLibs",
    # Inference
    "Batch",
    "Iterations",
    "Duration",
    "Sleep time",
    "Idle time",
    "Streams",
    "Inference Streams",
    "ExposeDMA",
    "Data transfers",
    "Spin-wait",
    "Multithreading",
    "CUDA Graph",
    "Separate profiling",
    "Time Deserialize",
    "Time Refit",
    "Persistent Cache Ratio",
    "Optimization Profile Index",
    "Weight Streaming Budget",
    "Inputs",
    "Dump All Debug Tensor in Formats",
    "Accuracy Algorithm",
    "Absolute Tolerance (atol)",
    "Relative Tolerance (rtol)",
    "Accuracy Threshold",
    "RefOutputs",
    # Reporting
    "Verbose",
    "Averages",
    "Percentile",
    "Percentiles",
    "Dump refittable layers",
    "Dump output",
    "Profile",
    "Export timing to JSON file",
    "Export output to JSON file",
    "Export profile to JSON file",
)
# Labels of the device block (formats.md §B.3).
_DEVICE_LABELS = (
    "Selected Device",
    "Selected Device ID",
    "Selected Device UUID",
    "Compute Capability",
    "SMs",
    "Device Global Memory",
    "Shared Memory per SM",
    "Memory Bus Width",
    "Compute Clock Rate",
    "Memory Clock Rate",
    "Application Compute Clock Rate",
    "Application Memory Clock Rate",
)
# option labels distinctive enough to be recognized outside the block (formats.md §A.7)
_BLOCK_LABELS = (
    "Max batch",
    "Workspace",
    "Memory Pools",
    "minTiming",
    "avgTiming",
    "Precision",
    "LayerPrecisions",
    "Layer Device Types",
    "Safe mode",
    "DirectIO mode",
    "Restricted mode",
    "Build only",
    "Skip inference",
    "Save engine",
    "Load engine",
    "Profiling verbosity",
    "Tactic sources",
    "timingCacheMode",
    "timingCacheFile",
    "Preview Features",
    "BuilderOptimizationLevel",
)

# "Debug Tensor Save Destinations:" is followed by "<tensor>: <file>" lines, which look like
# options: they get a section of their own, left at the next option label or header.
_DEBUG_TENSORS = "debug_tensors"

FAMILY = Family(
    name="header",
    transformer=HeaderTransformer,
    rules=(
        Rule("banner", prefix="&&&& ", bare=True, leaves=True),
        Rule("flag_notice", prefix="--", contains=" flag has been deprecated"),
        Rule("flag_notice", prefix="--", contains=" is deprecated. "),
        Rule("flag_notice", prefix="--", contains=" has been deprecated by --"),
        Rule("pre_option_notice", prefix="Explicit batch dim is automatically enabled"),
        Rule("pre_option_notice", prefix="TF32 is enabled by default."),
        Rule("pre_option_notice", prefix="Accuracy validation (--loadRefOutputs/--refPair) "),
        Rule("pre_option_notice", prefix="optShapes is being broadcasted to "),
        Rule("pre_option_notice", prefix="minShapes is being broadcasted to "),
        Rule("pre_option_notice", prefix="maxShapes is being broadcasted to "),
        Rule("pre_option_notice", prefix="When --precisionConstraints flag is set to "),
        # the options block
        Rule("options_section", prefix="=== Model Options ===", enters=_OPTIONS),
        Rule("options_section", prefix="=== Build Options ===", enters=_OPTIONS),
        Rule("options_section", prefix="=== System Options ===", enters=_OPTIONS),
        Rule("options_section", prefix="=== Inference Options ===", enters=_OPTIONS),
        Rule("options_section", prefix="=== Reporting Options ===", enters=_OPTIONS),
        Rule("options_section", prefix="=== ", contains=" Options ===", enters=_OPTIONS),
        Rule("option_io_format", prefix="Input(s)s format: "),
        Rule("option_io_format", prefix="Output(s)s format: "),
        Rule("option_io_format", prefix="Inputs format: "),
        Rule("option_io_format", prefix="Outputs format: "),
        Rule("option_io_format", prefix="Input(s): "),
        Rule("option_io_format", prefix="Output(s): "),
        Rule("option_shape", prefix="Input build shape"),
        Rule("option_shape", prefix="Input calibration shape"),
        Rule("option_shape", prefix="Input inference shape"),
        Rule(
            "option_line",
            prefix="Debug Tensor Save Destinations:",
            section=_OPTIONS,
            enters=_DEBUG_TENSORS,
        ),
        *(Rule("option_line", prefix=f"{label}:", section=_OPTIONS) for label in _OPTION_LABELS),
        # a paste that starts inside the options block (its "=== ... Options ===" line cut
        # off) still shows these labels, which no other message uses: they open the block
        *(Rule("option_line", prefix=f"{label}:", enters=_OPTIONS) for label in _BLOCK_LABELS),
        Rule("option_line", section=_OPTIONS),
        Rule("options_end", section=_OPTIONS, empty=True, leaves=True),
        Rule(
            "option_line",
            prefix="Dump All Debug Tensor in Formats:",
            section=_DEBUG_TENSORS,
            enters=_OPTIONS,
        ),
        Rule("debug_tensor_item", section=_DEBUG_TENSORS),
        Rule("options_end", section=_DEBUG_TENSORS, empty=True, leaves=True),
        # the device block: its labels are distinctive, so they are global rows (no section to
        # leave when a paste lacks the closing empty line)
        # the device header also closes an options block that lacked its blank line (T8)
        Rule("device_section", prefix="=== Device Information ===", leaves=True),
        *(Rule("device_kv", prefix=f"{label}: ") for label in _DEVICE_LABELS),
        Rule("device_note", prefix="Note: The application clock rates"),
        Rule("device_error", prefix="Cannot find any available devices"),
        # plugins and libraries
        Rule("plugin_loading", prefix="Not loading standard plugins"),
        Rule("plugin_loading", prefix="Skipping standard plugin loading"),
        Rule("library_note", prefix="CUDA lazy loading is "),
        Rule(
            "trt_package_version",
            contains="Successfully imported the `tensorrt` python package with version ",
            bare=True,
        ),
    ),
    routed=(
        "pre_option_notice",
        "device_list_header",
        "device_list_item",
        "device_error",
        "trt_version",
        "plugin_loading",
        "library_note",
        "builder_flag_note",
        "rtx_note",
    ),
)
