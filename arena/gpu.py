"""Hugging Face ZeroGPU support: where the `spaces` package runs on ZeroGPU hardware, the
timed generation runs inside `spaces.GPU`, so waiting for a GPU never counts as decoding time."""

from __future__ import annotations

import functools
import importlib.util
import os
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

GPU_DURATION_S = int(os.environ.get("ARENA_GPU_DURATION", "120"))


def on_zero_gpu() -> bool:
    return os.environ.get("SPACES_ZERO_GPU", "").lower() in {"1", "true"} and importlib.util.find_spec("spaces") is not None


def gpu_task(fn: F) -> F:
    """`spaces.GPU(fn)` on ZeroGPU, `fn` unchanged everywhere else."""
    if not on_zero_gpu():
        return fn
    import spaces

    return functools.wraps(fn)(spaces.GPU(duration=GPU_DURATION_S)(fn))


def streaming_supported() -> bool:
    # A ZeroGPU task runs in another process; token-by-token streaming from it is not wired up.
    return not on_zero_gpu()
