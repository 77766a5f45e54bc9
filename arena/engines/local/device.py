"""What `generate` gets on the model's device, and how the clock waits for that device."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from common.errors import UserError

from ...settings import current as current_settings
from ...settings import env_of

COMPILE_ENV = env_of("compile")


def compile_mode(value: str | None = None) -> str:
    """`ARENA_COMPILE`: `auto` (default: compiled decode, warmed in the background, on a CUDA GPU that
    stays up; see compiled.py), `on` (1/true/yes/on: wherever the model is, a CPU included), `off`
    (0/false/no/off: eager decode everywhere)."""
    raw = (current_settings().compile if value is None else value).strip().lower()
    if raw in ("", "auto"):
        return "auto"
    if raw in ("0", "false", "no", "off"):
        return "off"
    if raw in ("1", "true", "yes", "on"):
        return "on"
    raise UserError(f"{COMPILE_ENV} must be auto, 1 or 0 (or true/false, yes/no, on/off), not {raw!r}")


def device_generate_kwargs(device: torch.device) -> dict[str, Any]:
    """What `generate` gets on this device on top of a plan's settings (which win where both say).

    On CUDA a static KV cache: allocated once per call at its full length, so no decode step
    reallocates and grows the cache, and the step is a fixed-shape graph that can be compiled.
    transformers would compile the forward pass on its own whenever the cache is static on CUDA, in
    the request (tens of seconds for each new shape), so that is always off here: compiled decode
    comes from the background warm-up instead (compiled.py, `compiled_kwargs`). On CPU nothing
    changes: the static cache would spend its time on attention over the whole preallocated length."""
    if device.type != "cuda":
        return {}
    return {"cache_implementation": "static", "disable_compile": True}


def synchronizer(device: torch.device) -> Callable[[], None]:
    """What to call before reading a clock: waits for queued CUDA work; nothing to wait for on a CPU."""
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: None
