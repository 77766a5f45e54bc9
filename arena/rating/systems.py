"""A study's systems: what raters compare. A system is a method (one-model studies, as before) or a
(model, method) pair named "MODEL · METHOD" (a study over several models, issue 25).

Everything keyed by method in a study (the blind mapping, balance, statistics, blinding index,
exports, Results) keys on the system name unchanged; what needs the decoder (its settings, whether
it samples, its instruction) or the model that generates it asks this module.
"""

from __future__ import annotations

from collections.abc import Sequence

import decoders
from common.errors import UserError

SEP = " · "
MAX_SYSTEM_CHARS = 100  # the outputs table's method column


def system_name(model: str, method: str) -> str:
    return f"{model}{SEP}{method}"


def split_system(system: str) -> tuple[str, str]:
    """(model, method); the model is "" for a plain method (the study's one model)."""
    model, sep, method = system.rpartition(SEP)
    return (model, method) if sep else ("", system)


def method_of(system: str) -> str:
    return split_system(system)[1]


def model_of(system: str) -> str:
    return split_system(system)[0]


def decoder(system: str) -> decoders.Decoder:
    return decoders.get(method_of(system))


def cross(models: Sequence[str], methods: Sequence[str]) -> list[str]:
    """Every method on each model, model by model: the systems of a study over several models."""
    names = [m.strip() for m in models]
    if any(not m for m in names):
        raise UserError("a model name is empty")
    if len(set(names)) != len(names):
        raise UserError(f"a model is named twice: {', '.join(names)}")
    out = [system_name(model, method) for model in names for method in methods]
    long = [s for s in out if len(s) > MAX_SYSTEM_CHARS]
    if long:
        raise UserError(
            f"system name too long (over {MAX_SYSTEM_CHARS} characters): {long[0]!r}; use a shorter model name"
        )
    return out


def models_in(systems: Sequence[str]) -> list[str]:
    """The models a study's systems name, in order ([] for a one-model study)."""
    return list(dict.fromkeys(model_of(s) for s in systems if model_of(s)))
