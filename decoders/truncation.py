"""Truncation samplers with a choice of order: the temperature before the cut or after it.

"first" is `generate`'s own order (transformers applies the temperature before every cut); "last" is
llama.cpp's default `--samplers` order (the cut sees the raw logits, then T reshapes what is left). The
plan reports the order that ran (`decoders.order`), the store keeps it with every output, and the token
view shows its stages in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from transformers import LogitsProcessor, TemperatureLogitsWarper

from .base import Param

FIRST, LAST = "first", "last"


def temperature_param(default: str = FIRST) -> Param:
    """The order choice: the temperature before the cut (transformers) or after it (llama.cpp)."""
    return Param(
        "temperature_position",
        default,
        kind="choice",
        choices=(FIRST, LAST),
        label="temperature",
        help="first: the cut sees logits/T (transformers' order); last: the cut sees the raw logits and T "
        "reshapes what is left (llama.cpp's default --samplers order)",
    )


CutFactory = Callable[[], LogitsProcessor]


def sampling_plan_parts(
    s: Mapping[str, Any], cut: CutFactory, cut_kwargs: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], list[LogitsProcessor]]:
    """(generate keywords, plan processors) for "T, then the cut" or "the cut, then T", with generate's
    own top-k and top-p off. Where transformers has the cut as a `generate` keyword (`cut_kwargs`) and T
    comes first, the plan is that keyword, so the reference is `generate` itself; otherwise the plan
    passes the cut (`cut()`) and a `TemperatureLogitsWarper` in the chosen order, with
    `generate(temperature=1.0)`."""
    base = {"do_sample": True, "top_k": 0, "top_p": 1.0}
    temperature = float(s["temperature"])
    scale = [TemperatureLogitsWarper(temperature)] if temperature != 1.0 else []
    if s.get("temperature_position", FIRST) == LAST:
        return {**base, "temperature": 1.0}, [cut(), *scale]
    if cut_kwargs is not None:
        return {**base, "temperature": temperature, **cut_kwargs}, []
    return {**base, "temperature": 1.0}, [*scale, cut()]
