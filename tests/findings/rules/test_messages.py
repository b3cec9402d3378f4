"""The message rules on single lines: what fires, and the guards that keep it silent.

The fragment set (``tests/findings/test_fragments.py``) holds one fire and one clean fragment
per rule; these are the guards that need two lines side by side.
"""

from __future__ import annotations

import trtlog

_INT64 = (
    "[W] [TRT] onnx2trt_utils.cpp:374: Your ONNX model has been generated with INT64 weights, "
    "while TensorRT does not natively support INT64. Attempting to cast down to INT32.\n"
)


def _rules(text: str) -> list[str]:
    return [f.rule for f in trtlog.lint(trtlog.parse_text(text))]


def test_int64_cast_is_benign_unless_values_were_clamped() -> None:
    (f,) = trtlog.lint(trtlog.parse_text(_INT64))
    assert (f.rule, f.severity, f.evidence.lines) == ("benign-warning", "info", (1,))
    assert f.message.startswith("INT64 weights cast to INT32 (1 times)")
    clamped = _INT64 + (
        "[W] [TRT] onnx2trt_utils.cpp:400: One or more weights outside the range of INT32 "
        "was clamped\n"
    )
    assert _rules(clamped) == []


def test_dla_note_is_benign_only_without_dla() -> None:
    note = (
        "[W] [TRT] DLA requests all profiles have same min, max, and opt value. All dla layers "
        "are falling back to GPU\n"
    )
    assert _rules(note) == ["benign-warning"]
    with_dla = "[I] === Build Options ===\n[I] DLACore: 0\n[I] \n" + note
    assert "benign-warning" not in _rules(with_dla)


def test_low_precision_needs_a_device_line() -> None:
    fp8 = "[I] Precision: FP32+FP16+FP8\n"
    assert _rules(fp8) == []  # the GPU is not known: nothing to say
    assert _rules(fp8 + "[I] Compute Capability: 8.6\n") == ["low-precision-unsupported-gpu"]
    assert _rules(fp8 + "[I] Compute Capability: 8.9\n") == []


def test_engine_from_other_device_is_not_the_hard_error() -> None:
    soft = (
        "[W] [TRT] Using an engine plan file across different models of devices is not "
        "recommended and is likely to affect performance or even cause errors.\n"
    )
    assert _rules(soft) == ["engine-from-other-device"]
    hard = (
        "[E] [TRT] INVALID_CONFIG: The engine plan file is generated on an incompatible "
        "device, expecting compute 6.1 got compute 7.5, please rebuild.\n"
    )
    assert "engine-from-other-device" not in _rules(hard)
