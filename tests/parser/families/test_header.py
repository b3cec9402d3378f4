"""The header family in context: sections, run banners, the help text of T19."""

from __future__ import annotations

from collections import Counter

import trtlog
from tests.conftest import FIXTURES
from trtlog.events import (
    OptionKv,
    OptionListItem,
    OptionsSection,
    PreOptionNotice,
    RunEnd,
    RunStart,
    Unrecognized,
)

LOGS = FIXTURES / "logs"


def _kinds(text: str) -> list[str]:
    return [e.kind for e in trtlog.parse_text(text).events]


def test_help_text_opens_no_section() -> None:
    # T19: on a bad flag trtexec prints its usage, whose "=== ... Options ===" headers have no
    # envelope; only enveloped headers open the options section.
    build = trtlog.parse(LOGS / "trtexec-like_help-text-T19.log")
    kinds = Counter(e.kind for e in build.events)
    assert kinds["options_section"] == 0
    assert kinds["option_kv"] == 0
    assert kinds["run_start"] == 1 and kinds["run_end"] == 1
    assert build.runs[0].status == "failed"
    notice = build.events[1]
    assert isinstance(notice, PreOptionNotice) and notice.flag == "--fp17"


def test_options_block_ends_at_its_blank_line() -> None:
    text = (
        "[01/10/2024-21:52:50] [I] === Build Options ===\n"
        "[01/10/2024-21:52:50] [I] Precision: FP32+INT8\n"
        "[01/10/2024-21:52:50] [I] \n"
        # after the block a "Key: value" message is no option any more
        "[01/10/2024-21:52:50] [I] Foo: bar\n"
    )
    assert _kinds(text) == ["options_section", "option_kv", "options_end", "unrecognized"]


def test_a_paste_cut_inside_the_options_block_still_reads_its_options() -> None:
    # the seed excerpt starts at "Max batch:", its "=== Build Options ===" line cut off
    text = (
        "[01/10/2024-21:52:50] [I] Max batch: explicit batch\n"
        "[01/10/2024-21:52:50] [I] Calibration: Dynamic\n"  # generic: known inside the block
        "[01/10/2024-21:52:50] [I] Precision: FP32+INT8\n"
        "[01/10/2024-21:52:50] [I] \n"
        "[01/10/2024-21:52:50] [I] Calibration: Dynamic\n"  # after the block: not an option
    )
    build = trtlog.parse_text(text)
    assert [e.kind for e in build.events] == [
        "option_kv",
        "option_kv",
        "option_kv",
        "options_end",
        "unrecognized",
    ]
    assert build.options.precision == "FP32+INT8"
    assert build.options.get("Calibration") == "Dynamic"


def test_the_seed_excerpt_has_no_unrecognized_trt_line() -> None:
    build = trtlog.parse(FIXTURES / "logs" / "trt8.4.12_yolov8-qdq-orin_build-verbose-excerpt.log")
    assert [e.span for e in build.of(Unrecognized) if e.envelope is not None] == []
    assert build.options.get("Max batch") == "explicit batch"


def test_option_labels_win_over_other_families_inside_the_block() -> None:
    # "Tactic sources:" starts like the autotune family's "Tactic ..." lines
    text = (
        "[01/10/2024-21:52:50] [I] === Build Options ===\n"
        "[01/10/2024-21:52:50] [I] Tactic sources: Using default tactic sources\n"
    )
    events = trtlog.parse_text(text).events
    assert isinstance(events[1], OptionKv)
    assert events[1].key == "Tactic sources"


def test_list_options_and_debug_tensor_destinations() -> None:
    build = trtlog.parse(LOGS / "trt10.16-like_run_summary-profile.log")
    items = [e for e in build.events if isinstance(e, OptionListItem)]
    assert [(e.tensor, e.value) for e in items] == [
        ("x", "x.bin"),
        ("conv1_out", "conv1.npy"),
        (None, "summary"),
    ]
    # the block goes on after the list items
    sections = [e.section for e in build.events if isinstance(e, OptionsSection)]
    assert sections == ["Model", "Build", "Inference", "Reporting"]
    assert build.options.lists == {
        "Inputs": ("x: x.bin",),
        "Debug Tensor Save Destinations": ("conv1_out: conv1.npy",),
        "Dump All Debug Tensor in Formats": ("summary",),
    }


def test_banners_delimit_runs_and_leave_sections() -> None:
    build = trtlog.parse(LOGS / "trt7.1-like_two-runs_perf-block.log")
    starts = [e for e in build.events if isinstance(e, RunStart)]
    ends = [e for e in build.events if isinstance(e, RunEnd)]
    assert [e.command_line.split()[-3] for e in starts] == ["--batch=1", "--batch=4"]
    assert [e.status for e in ends] == ["passed", "passed"]
    assert [(r.first_line, r.last_line, r.status) for r in build.runs] == [
        (1, 49, "passed"),
        (50, 74, "passed"),
    ]
    assert not build.unrecognized


def test_post_footer_lines_belong_to_the_run() -> None:
    # §O: destructors log after "&&&& PASSED"; the line still belongs to the run
    build = trtlog.parse(LOGS / "trt10.16-like_run_summary-profile.log")
    last = build.events[-1]
    assert build.run_of(last) == build.runs[0]
    assert build.runs[0].end_line == len(build.lines) - 1


def test_device_header_closes_an_unfinished_options_block() -> None:
    # T8: a paste without the blank line that closes the options block
    text = (
        "[01/10/2024-21:52:50] [I] === Inference Options ===\n"
        "[01/10/2024-21:52:50] [I] Batch: Explicit\n"
        "[01/10/2024-21:52:50] [I] === Device Information ===\n"
        "[01/10/2024-21:52:50] [I] Selected Device: Orin\n"
        "[01/10/2024-21:52:50] [I] Foo: bar\n"
    )
    assert _kinds(text) == [
        "options_section",
        "option_kv",
        "device_section",
        "device_kv",
        "unrecognized",
    ]


def test_labels_that_open_the_block_are_option_labels() -> None:
    from trtlog.parser.families.header import _BLOCK_LABELS, _OPTION_LABELS

    assert set(_BLOCK_LABELS) <= set(_OPTION_LABELS)
