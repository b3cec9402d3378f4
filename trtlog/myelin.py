"""Moved in trtlog 0.2 (this path is removed in 0.3).

Myelin kernel names are read by :mod:`trtlog.names`; the layer types of Myelin kernels
(``MYELIN_LAYER_TYPES``) belong to the engine model.
"""

from trtlog._moved import moved_names

__getattr__ = moved_names(
    __name__,
    {
        "MYELIN_LAYER_TYPES": "trtlog.engine.model",
        "MyelinKernel": "trtlog.names",
        "decode_ops": "trtlog.names",
        "parse_kernel_name": "trtlog.names",
    },
)
