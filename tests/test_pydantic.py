"""The fast model assembly helpers: the paused collector and what it leaves behind."""

from __future__ import annotations

import gc

import pytest

from trtlog._pydantic import gc_paused


@pytest.fixture
def collector_on() -> object:
    was = gc.isenabled()
    gc.enable()
    gc.collect()
    yield None
    if not was:
        gc.disable()


def _build_many() -> list[dict[str, list[int]]]:
    return [{"x": [i]} for i in range(60_000)]  # 120,000 tracked containers


def test_pause_hands_what_it_built_to_the_old_generation(collector_on: object) -> None:
    with gc_paused():
        assert not gc.isenabled()
        kept = _build_many()
        assert gc.get_count()[0] >= 100_000
    assert gc.isenabled()
    # in the oldest generation (a collection would have left them in the middle one), so
    # no young objects are left for the first collection to walk; nothing left frozen
    old = {id(o) for o in gc.get_objects(generation=2)}
    assert id(kept) in old and id(kept[0]) in old and id(kept[-1]["x"]) in old
    assert gc.get_freeze_count() == 0


def test_a_few_objects_built_in_a_pause_are_handed_on_too(collector_on: object) -> None:
    # a small log's report builds some tens of thousands: the first collection after the
    # pause would walk them all (a tenth of a 1 MB log's report)
    with gc_paused():
        kept = [{"x": [i]} for i in range(2_000)]
    old = {id(o) for o in gc.get_objects(generation=2)}
    assert id(kept) in old and id(kept[0]) in old and id(kept[-1]["x"]) in old
    assert gc.get_freeze_count() == 0


def test_pause_leaves_a_programs_own_freeze_alone(collector_on: object) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        with gc_paused():
            kept = _build_many()
        assert gc.get_freeze_count() == frozen  # not unfrozen, not grown
        assert len(kept) == 60_000
    finally:
        gc.unfreeze()


def test_pause_keeps_a_disabled_collector_disabled() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()
