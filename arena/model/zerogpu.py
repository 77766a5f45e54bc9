"""Hugging Face ZeroGPU support: the `spaces.GPU` wrapper, task durations, quota messages.

On ZeroGPU (`SPACES_ZERO_GPU` set and the `spaces` package installed) the model's device exists only
inside a `spaces.GPU` task, which runs in a forked worker process. Everything that crosses into a
task is pickled, so the GPU functions of this app (`gpu_run`, `gpu_stream` and `gpu_trace` in
arena/engines/local/tasks.py, `gpu_batch` in arena/engines/local/batching.py,
`evaluation.perplexity.gpu_scores`) are defined at import time and take plain data: a model key
(a string, see `arena.model.llm.LoadedModel.key`), method names, settings dicts, token ids as lists, a
seed, max_new_tokens. They return lists, dicts and numbers, never a tensor. Inside a task
they look the model up, build the plan, warm up untimed on the GPU, then time.

Everywhere else the same functions run in-process, on the app's compute thread (arena/model/compute.py).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

from arena.model import compute
from arena.settings import current as current_settings

F = TypeVar("F", bound=Callable)

# Seconds per generated token and per method on a ZeroGPU slice, generously (HF `generate` at batch
# 1 is bound by Python overhead, ~20-40 ms per token for a small model); beam search counts x2.
GPU_SECONDS_PER_TOKEN = 0.05
GPU_SECONDS_PER_METHOD = 4.0  # warm-up (first call in a fresh worker) and set-up
GPU_SECONDS_BASE = 5.0

QUOTA_MESSAGE = (
    "The free GPU time for visitors who are not signed in is used up (ZeroGPU quota). "
    "Sign in to Hugging Face (huggingface.co/login) and reload this page to get your own quota, "
    "or try again later."
)


def on_zero_gpu() -> bool:
    return (
        current_settings().spaces_zero_gpu.lower() in {"1", "t", "true"}
        and importlib.util.find_spec("spaces") is not None
    )


def gpu_task(fn: F | None = None, *, duration: int | Callable[..., int] | None = None) -> Any:
    """`spaces.GPU(fn, duration=...)` on ZeroGPU; everywhere else `fn` running on the app's compute
    thread (arena/model/compute.py; where none serves, where it is called). Works for plain and generator
    functions (`spaces` streams a generator's values out of its worker). `duration` may be a callable
    taking the function's own arguments."""

    def wrap(f: F) -> F:
        if not on_zero_gpu():
            if inspect.isgeneratorfunction(f):
                return f  # its generating worker goes to the compute thread (arena/engines/local/stream.py)

            @functools.wraps(f)
            def on_compute_thread(*args: Any, **kwargs: Any) -> Any:
                return compute.run(f, *args, **kwargs)

            return cast(F, on_compute_thread)
        import spaces  # late: installed and importable only on ZeroGPU hardware

        wrapped = spaces.GPU(duration=duration if duration is not None else duration_cap_s())(f)
        return cast(F, functools.wraps(f)(wrapped))

    return wrap(fn) if fn is not None else wrap


def duration_cap_s() -> int:
    """The most seconds one task may ask for, ARENA_GPU_DURATION (ZeroGPU may scale a request by its
    duration factor, 1.5 on some hardware, and refuses a visitor whose quota is smaller)."""
    return current_settings().gpu_duration_s


def duration_s(max_new_tokens: int, n_methods: int = 1, beams: int = 0) -> int:
    """Seconds to ask ZeroGPU for: from max_new_tokens and the number of methods (beam-search methods
    counted twice), capped at ARENA_GPU_DURATION. Asking for little keeps visitors within quota."""
    units = max(1, int(n_methods)) + max(0, int(beams))
    seconds = GPU_SECONDS_BASE + units * (GPU_SECONDS_PER_METHOD + GPU_SECONDS_PER_TOKEN * max(1, int(max_new_tokens)))
    return int(min(duration_cap_s(), max(10, round(seconds))))


_PLAIN = (type(None), bool, int, float, str)


def find_unplain(value: Any, where: str = "value") -> str | None:
    """None if `value` is plain data (None, bool, int, float, str, and lists/tuples/dicts of them),
    else where the first other thing is: what may cross into or out of a ZeroGPU task."""
    if isinstance(value, _PLAIN):
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            bad = find_unplain(v, f"{where}[{i}]")
            if bad:
                return bad
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            bad = find_unplain(k, f"{where} key") or find_unplain(v, f"{where}[{k!r}]")
            if bad:
                return bad
        return None
    return f"{where} is a {type(value).__module__}.{type(value).__qualname__}"


def streaming_note() -> str:
    if on_zero_gpu():
        return (
            "ZeroGPU: each run is one GPU task; sampled methods stream their tokens out of it, beam search "
            "arrives whole. Waiting for a GPU is not counted as decoding time."
        )
    return ""


def quota_refusal(exc: BaseException) -> bool:
    """Whether an error is ZeroGPU refusing a task for quota (or a too long request for this visitor)."""
    title = str(getattr(exc, "title", "") or "")
    text = f"{title} {exc}".lower()
    return "zerogpu" in text and (
        "quota" in text or "gpu limit" in text or "larger than the maximum" in text or "runs limit" in text
    )


def friendly_error(exc: BaseException) -> str | None:
    """The message to show for a ZeroGPU refusal (tells the visitor to sign in), else None."""
    if quota_refusal(exc):
        return f"{QUOTA_MESSAGE} (ZeroGPU said: {exc})"
    return None
