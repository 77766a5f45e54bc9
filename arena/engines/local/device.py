"""What `generate` gets on the model's device, and how the clock waits for that device."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from common.errors import UserError

from ...settings import current as current_settings
from ...settings import env_of

COMPILE_ENV = env_of("compile")


def compile_enabled(value: str | None = None) -> bool:
    """`ARENA_COMPILE` (default off): 1/true/yes/on lets `generate` torch.compile the forward pass on CUDA."""
    raw = (current_settings().compile if value is None else value).strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    raise UserError(f"{COMPILE_ENV} must be 0 or 1 (or true/false, yes/no, on/off), not {raw!r}")


def device_generate_kwargs(device: torch.device) -> dict[str, Any]:
    """What `generate` gets on this device on top of a plan's settings (which win where both say).

    On CUDA a static KV cache: allocated once per call at its full length, so no decode step
    reallocates and grows the cache, and the step is a fixed-shape graph that can be compiled.
    transformers compiles the forward pass on its own whenever the cache is static on CUDA; a
    compile takes tens of seconds for each new shape, so it waits behind `ARENA_COMPILE` (default
    off, measured by benchmarks/gpu_check.sh). On CPU nothing changes: there is no compile, and the
    static cache spends its time on attention over the whole preallocated length."""
    if device.type != "cuda":
        return {}
    return {"cache_implementation": "static", "disable_compile": not compile_enabled()}


def synchronizer(device: torch.device) -> Callable[[], None]:
    """What to call before reading a clock: waits for queued CUDA work; nothing to wait for on a CPU."""
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: None
