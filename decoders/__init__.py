"""Decoding methods as specs that drive transformers' `generate`.

Importing this package registers every module in `decoders/methods/`.
"""

import importlib
import pkgutil

from . import methods as _methods
from .base import DecodeContext, Decoder, GenerationPlan, InvalidSettings, Param
from .registry import DEFAULT_METHODS, all_decoders, get, names, parse_methods, register

for _info in sorted(pkgutil.iter_modules(_methods.__path__), key=lambda m: m.name):
    importlib.import_module(f"{_methods.__name__}.{_info.name}")

__all__ = [
    "DEFAULT_METHODS",
    "DecodeContext",
    "Decoder",
    "GenerationPlan",
    "InvalidSettings",
    "Param",
    "all_decoders",
    "get",
    "names",
    "parse_methods",
    "register",
]
