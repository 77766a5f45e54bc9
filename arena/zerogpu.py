"""Hugging Face ZeroGPU support, and what the app tells people about its hardware and storage.

On ZeroGPU (`SPACES_ZERO_GPU` set and the `spaces` package installed) the model's device exists only
inside a `spaces.GPU` task, which runs in a forked worker process. Everything that crosses into a
task is pickled, so the GPU functions of this app (`arena.runner.gpu_run`, `gpu_stream`,
`gpu_trace`, `evaluation.perplexity.gpu_scores`) are defined at import time and take plain data:
a model key (a string, see `arena.llm.model_key`), method names, settings dicts, token ids as
lists, a seed, max_new_tokens. They return lists, dicts and numbers, never a tensor. Inside a task
they look the model up, build the plan, warm up untimed on the GPU, then time.

Everywhere else the same functions run in-process, on the app's compute thread (arena/compute.py).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import torch

from . import compute
from .settings import current as current_settings

F = TypeVar("F", bound=Callable)
log = logging.getLogger(__name__)

# Seconds per generated token and per method on a ZeroGPU slice, generously (HF `generate` at batch
# 1 is bound by Python overhead, ~20-40 ms per token for a small model); beam search counts x2.
GPU_SECONDS_PER_TOKEN = 0.05
GPU_SECONDS_PER_METHOD = 4.0  # warm-up (first call in a fresh worker) and set-up
GPU_SECONDS_BASE = 5.0

STORAGE_BANNER = (
    "⚠️ Ratings are stored on this Space's disk and are lost when it restarts; set DATABASE_URL "
    "(a Space secret, e.g. a PostgreSQL URL) to keep them."
)
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
    thread (arena/compute.py; where none serves, where it is called). Works for plain and generator
    functions (`spaces` streams a generator's values out of its worker). `duration` may be a callable
    taking the function's own arguments."""

    def wrap(f: F) -> F:
        if not on_zero_gpu():
            if inspect.isgeneratorfunction(f):
                return f  # its generating worker goes to the compute thread (arena.runner._events)

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


def streaming_supported() -> bool:
    """Token streaming works everywhere: on ZeroGPU through a generator GPU function."""
    return True


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


# -- hardware and storage banners --------------------------------------------------------------------


def gpu_hardware_present() -> bool:
    """Whether this machine has an NVIDIA GPU (whether or not PyTorch can use it)."""
    if on_zero_gpu():
        return True
    visible = current_settings().nvidia_visible_devices.strip().lower()
    if visible and visible not in {"void", "none"}:
        return True
    gpus = Path("/proc/driver/nvidia/gpus")
    try:
        return gpus.is_dir() and any(gpus.iterdir())
    except OSError:
        return False


def hardware_banner(device: Any = None) -> str:
    """A warning line when a GPU is there but the model runs on the CPU (no silent CPU fallback), else
    "". `device` is the model's device (default: the loaded default model's)."""
    if device is None:
        from .llm import loaded_default  # late: llm imports this module

        lm = loaded_default()
        device = lm.device if lm is not None else None
    dev_type = getattr(device, "type", str(device or ""))
    if dev_type == "cpu" and gpu_hardware_present():
        return (
            "⚠️ This machine has a GPU but the model runs on the **CPU**: PyTorch cannot use CUDA here "
            "(a CPU-only torch build, or a CUDA build newer than the driver). Timings are CPU timings. "
            'See the README, "Install on GPU".'
        )
    return ""


def warn_cpu_fallback(device: Any) -> None:
    banner = hardware_banner(device)
    if banner:
        log.warning("GPU hardware found but the model runs on the CPU: torch %s cannot use CUDA", _torch_build())


def _torch_build() -> str:
    try:
        return f"{torch.__version__} (CUDA {torch.version.cuda or 'none'})"
    except Exception:  # pragma: no cover
        return "unknown"


def storage_banner() -> str:
    """On a Hugging Face Space (SPACE_ID set) without DATABASE_URL: the warning that ratings live on
    the Space's own disk and are lost on restart. Else ""."""
    setting = current_settings()
    if setting.space_id and not setting.database_url.strip():
        return STORAGE_BANNER
    return ""
