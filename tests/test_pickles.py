"""Builds and engines pickled by an earlier trtlog still load (``fixtures/pickles/``).

The pickles were written by trtlog 0.1.0 before the package restructure of issue 13: they
name the classes by their old module paths (``trtlog.layers.Engine``, ``trtlog.header.Run``,
``trtlog.rounds.Round``...). Those paths stay importable for one release and say where the
classes moved (a ``DeprecationWarning``); the loaded objects equal freshly read ones.
"""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import trtlog
from tests.conftest import FIXTURES

PICKLES = FIXTURES / "pickles"
LOG = FIXTURES / "logs" / "trt8.6.1_tinynet-qdq-int8_build-verbose-dumpLayerInfo.log"
LAYERS = FIXTURES / "layer_info" / "trt8.6-like_patternnet-qdq_layers-detailed.json"
PROFILE = FIXTURES / "layer_info" / "trt8.6-like_patternnet-qdq.profile.json"


def _load(name: str) -> object:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = pickle.loads((PICKLES / name).read_bytes())  # our own fixture
    for warning in caught:  # only the moved-module notices of the old paths
        assert issubclass(warning.category, DeprecationWarning), warning
        assert "moved" in str(warning.message), warning
    return found


def test_an_old_build_pickle_loads() -> None:
    old = _load("build-0.1.0.pickle")
    assert isinstance(old, trtlog.Build)
    new = trtlog.parse(LOG, name=LOG.name)
    assert old.model_dump(mode="json") == new.model_dump(mode="json")
    assert old.events == new.events
    # its views work: indexes are rebuilt, cached ones come back as they were
    assert old.counts() == new.counts()
    assert [r.model_dump() for r in old.rounds] == [r.model_dump() for r in new.rounds]
    assert old.engine is not None and new.engine is not None
    assert old.engine.model_dump(mode="json") == new.engine.model_dump(mode="json")
    assert old.fusions_frame().equals(new.fusions_frame())


def test_an_old_engine_pickle_loads() -> None:
    old = _load("engine-0.1.0.pickle")
    assert isinstance(old, trtlog.Engine)
    new = trtlog.load_engine(LAYERS, profile=PROFILE)
    sources: dict[str, Any] = {"source": True, "profile": {"source"}}  # a relative path
    assert old.model_dump(mode="json", exclude=sources) == new.model_dump(
        mode="json", exclude=sources
    )
    assert old.layers_frame().equals(new.layers_frame())
