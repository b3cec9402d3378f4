"""The event classes: names, the tagged union, and a light import."""

from __future__ import annotations

import subprocess
import sys

from trtlog.events import EVENT_CLASSES, EVENTS_ADAPTER, Unrecognized


def test_event_class_names_are_pascal_case_of_their_kind() -> None:
    for kind, cls in EVENT_CLASSES.items():
        pascal = "".join(part.capitalize() for part in kind.split("_"))
        assert cls.__name__ == pascal, f"{kind} -> {cls.__name__}"


def test_unknown_kinds_read_as_unrecognized() -> None:
    events = EVENTS_ADAPTER.validate_json('[{"kind": "from_2030", "span": [1, 1], "x": 5}]')
    assert isinstance(events[0], Unrecognized)
    assert "from_2030" in events[0].message


def test_importing_events_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, trtlog, trtlog.events\n"
        "heavy = {'pandas', 'networkx', 'matplotlib', 'tensorrt'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
