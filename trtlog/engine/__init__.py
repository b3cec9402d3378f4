"""The engine: its model and what is computed from it once.

A package by subject. :mod:`~trtlog.engine.model` holds the models of a built engine and of
trtexec's JSON exports (:class:`Engine`, :class:`EngineLayer`, :class:`Profile`,
:class:`Times`...); :mod:`~trtlog.engine.profile` merges a profile's times onto the layers,
:mod:`~trtlog.engine.myelin` groups Myelin kernels under their region,
:mod:`~trtlog.engine.modules` rolls layers up the ONNX module tree and
:mod:`~trtlog.engine.from_log` makes an engine of a log's layer dumps. The JSON loaders are in
:mod:`trtlog.exports`, the engine's frames in :mod:`trtlog.frames`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type checkers; at run time __getattr__ imports them on first use
    from trtlog.engine.model import (
        MYELIN_LAYER_TYPES,
        NAMES_ONLY_NOTE,
        Engine,
        EngineLayer,
        IoProfile,
        IoTensor,
        LayerPrecision,
        LayerTime,
        Profile,
        ProfileRecord,
        ProfileRun,
        Times,
        TimingRecord,
        TimingRun,
        compute_precision,
        strongly_typed,
    )
    from trtlog.engine.modules import (
        LayerModules,
        ModuleNode,
        layer_modules,
        module_tree,
        name_index,
        served_layer,
    )
    from trtlog.engine.myelin import MyelinGroup, myelin_groups
    from trtlog.engine.profile import merge_profile

#: Every public name → the module it is imported from on first use (so that reading a layer
#: JSON does not make the models of the module tree and the Myelin groups).
_API: dict[str, str] = {
    **dict.fromkeys(
        (
            "MYELIN_LAYER_TYPES",
            "NAMES_ONLY_NOTE",
            "Engine",
            "EngineLayer",
            "IoProfile",
            "IoTensor",
            "LayerPrecision",
            "LayerTime",
            "Profile",
            "ProfileRecord",
            "ProfileRun",
            "Times",
            "TimingRecord",
            "TimingRun",
            "compute_precision",
            "strongly_typed",
        ),
        "trtlog.engine.model",
    ),
    **dict.fromkeys(
        (
            "LayerModules",
            "ModuleNode",
            "layer_modules",
            "module_tree",
            "name_index",
            "served_layer",
        ),
        "trtlog.engine.modules",
    ),
    **dict.fromkeys(("MyelinGroup", "myelin_groups"), "trtlog.engine.myelin"),
    "merge_profile": "trtlog.engine.profile",
}


def __getattr__(name: str) -> object:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'trtlog.engine' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


__all__ = [
    "MYELIN_LAYER_TYPES",
    "NAMES_ONLY_NOTE",
    "Engine",
    "EngineLayer",
    "IoProfile",
    "IoTensor",
    "LayerModules",
    "LayerPrecision",
    "LayerTime",
    "ModuleNode",
    "MyelinGroup",
    "Profile",
    "ProfileRecord",
    "ProfileRun",
    "Times",
    "TimingRecord",
    "TimingRun",
    "compute_precision",
    "layer_modules",
    "merge_profile",
    "module_tree",
    "myelin_groups",
    "name_index",
    "served_layer",
    "strongly_typed",
]
