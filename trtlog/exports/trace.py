"""Reading Torch-TensorRT's execution profile (a Chrome/Perfetto trace) as per-layer times.

Part of the exports package, next to :mod:`trtlog.exports.profile`. Torch-TensorRT's engine
profiler (``profile_format='perfetto'``, written next to ``<engine>_layer_information.json``
as ``<engine>_engine_execution_profile.trace``) records each layer's execution as a Chrome
trace event::

    {"name": "<layer>", "ph": "X", "ts": 298.496, "dur": 177.6, "tid": 1,
     "pid": "_run_on_acc_0_engine Engine Execution", "args": {}}

``ts`` and ``dur`` are microseconds (the Chrome trace format's unit; ``displayTimeUnit`` only
changes how a viewer shows them). :func:`trace_runs` turns the events into the records of an
``--exportProfile`` file, so a trace merges onto a layer JSON as a profile does:

* one :class:`~trtlog.engine.model.ProfileRun` per trace process (``pid``: one per engine of a
  compiled module), in the order the trace first names it;
* one record per layer name, in order of first execution: ``time_ms`` the sum of its
  durations, ``average_ms`` that sum over the times it ran, ``median_ms`` the median
  duration, ``percentage`` its share of the run's summed time;
* ``iterations``: how many times the layers ran, when every layer ran as often (a trace of
  one inference says 1); ``None`` when they differ.

Complete events (``"ph": "X"``) and begin/end pairs (``B``/``E`` on one ``pid``/``tid``) are
layer executions; metadata, instant and counter events carry no layer time and are skipped.
A trace with no execution at all is an
:class:`~trtlog.errors.InputError`.
"""

from __future__ import annotations

import statistics
from typing import Any

from trtlog.engine.model import ProfileRecord, ProfileRun, total_of
from trtlog.errors import InputError
from trtlog.exports.read import as_float

__all__ = ["trace_events", "trace_runs"]

_US_PER_MS = 1000.0


def trace_events(value: Any) -> list[Any] | None:
    """The event list of a Chrome trace (a bare array or ``{"traceEvents": [...]}``), if any.

    Example:
        >>> trace_events({"traceEvents": [{"ph": "X"}]}), trace_events({"Layers": []})
        ([{'ph': 'X'}], None)
    """
    if isinstance(value, dict):
        events = value.get("traceEvents")
        return events if isinstance(events, list) else None
    return value if isinstance(value, list) else None


def trace_runs(value: Any, name: str) -> tuple[ProfileRun, ...]:
    """The per-layer times of a Chrome/Perfetto trace, one :class:`ProfileRun` per process.

    Args:
        value: the trace's top-level JSON value.
        name: the file, for error messages.

    Raises:
        InputError: not a trace, an event without a name or a number where one is needed, or
            no layer execution at all.

    Example:
        >>> runs = trace_runs([
        ...     {"name": "conv", "ph": "X", "ts": 0, "dur": 250.0, "pid": "e", "tid": 1},
        ...     {"name": "relu", "ph": "X", "ts": 250, "dur": 50.0, "pid": "e", "tid": 1},
        ... ], "p.trace")
        >>> [(r.name, r.average_ms, r.percentage) for r in runs[0].records]
        [('conv', 0.25, 83.33333333333334), ('relu', 0.05, 16.666666666666668)]
        >>> runs[0].iterations
        1
    """
    events = trace_events(value)
    if events is None:
        raise InputError("this is not a Chrome/Perfetto trace (no event list)", source=name)
    # pid -> layer name -> durations (ms), both in order of first appearance
    per_process: dict[str, dict[str, list[float]]] = {}
    open_spans: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            raise InputError(f"trace event {i} is not an object", source=name)
        phase = event.get("ph")
        if phase not in ("X", "B", "E"):  # metadata, instants, counters: no layer time
            continue
        process, thread = str(event.get("pid", "")), str(event.get("tid", ""))
        try:
            if phase == "X":
                layer, ms = _layer_name(event), as_float(event["dur"]) / _US_PER_MS
            elif phase == "B":
                begun = (_layer_name(event), as_float(event["ts"]))
                open_spans.setdefault((process, thread), []).append(begun)
                continue
            else:
                stack = open_spans.get((process, thread))
                if not stack:
                    raise ValueError("an end event without its begin event")
                layer, start = stack.pop()
                ms = (as_float(event["ts"]) - start) / _US_PER_MS
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise InputError(
                f"trace event {i} ({str(event)[:80]}) lacks or garbles {exc}",
                source=name,
                hint="expected Chrome trace events: name, ph, ts, dur (microseconds), pid, tid",
            ) from None
        per_process.setdefault(process, {}).setdefault(layer, []).append(ms)
    if not per_process:
        raise InputError(
            "this Chrome/Perfetto trace holds no layer execution (no complete or begin/end event)",
            source=name,
            hint="pass the trace Torch-TensorRT's profiler wrote after the engine ran",
        )
    return tuple(_run(layers) for layers in per_process.values())


def _layer_name(event: dict[str, Any]) -> str:
    layer = event["name"]
    if not isinstance(layer, str):
        raise TypeError(f"a layer name must be text, not {layer!r}")
    return layer


def _run(layers: dict[str, list[float]]) -> ProfileRun:
    """One process's records (see the module docstring)."""
    totals = {layer: total_of(durations) for layer, durations in layers.items()}
    overall = total_of(totals.values())
    counts = {len(durations) for durations in layers.values()}
    records = tuple(
        ProfileRecord(
            name=layer,
            time_ms=totals[layer],
            average_ms=totals[layer] / len(durations),
            median_ms=statistics.median(durations),
            percentage=100.0 * totals[layer] / overall if overall else 0.0,
        )
        for layer, durations in layers.items()
    )
    return ProfileRun(iterations=counts.pop() if len(counts) == 1 else None, records=records)
