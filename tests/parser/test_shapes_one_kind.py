"""An alternative that picks among sub-rules of several kinds is never kept as rows.

``onnx_sourced`` (a parser source prefix, then any parser message) gives a different kind per
message; the scanner keeps rows per alternative and kind, so such lines go to the line
parser. Before, the second message of another kind behind the same prefix became an event
of the first one's class (``OnnxParseNode`` with the kind ``onnx_search_input``).
"""

from __future__ import annotations

import trtlog

LINES = (
    "[V] [TRT] ModelImporter.cpp:103: Parsing node: conv1 [Conv]\n"
    "[V] [TRT] ModelImporter.cpp:119: Searching for input: data\n"
    "[V] [TRT] ModelImporter.cpp:103: Parsing node: conv2 [Conv]\n"
    "[W] [TRT] onnx2trt_utils.cpp:374: Your ONNX model has been generated with INT64 weights, "
    "while TensorRT does not natively support INT64. Attempting to cast down to INT32.\n"
    "[W] [TRT] onnx2trt_utils.cpp:400: One or more weights outside the range of INT32 was "
    "clamped\n"
)


def test_each_sourced_message_gets_the_class_of_its_kind() -> None:
    lazy = trtlog.parse_text(LINES)
    fed = list(trtlog.iter_events(LINES.splitlines(keepends=True)))
    assert (
        [type(e).__name__ for e in lazy.events]
        == [type(e).__name__ for e in fed]
        == [
            "OnnxParseNode",
            "OnnxSearchInput",
            "OnnxParseNode",
            "OnnxInt64Weights",
            "OnnxInt32Clamped",
        ]
    )
    assert lazy.counts() == {
        "onnx_parse_node": 2,
        "onnx_search_input": 1,
        "onnx_int64_weights": 1,
        "onnx_int32_clamped": 1,
    }
