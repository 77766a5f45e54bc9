"""What the machine gives the app, and the warnings about it: a GPU or not, a lasting disk or not.

No silent CPU fallback: when a machine has a GPU but the model runs on the CPU, the pages say so
and the log says why. On a Hugging Face Space without DATABASE_URL the ratings live on the Space's
own disk, which a restart wipes; the pages say that too.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import torch

from arena.model.zerogpu import on_zero_gpu
from arena.settings import current as current_settings

log = logging.getLogger(__name__)

STORAGE_BANNER = (
    "⚠️ Ratings are stored on this Space's disk and are lost when it restarts; set DATABASE_URL "
    "(a Space secret, e.g. a PostgreSQL URL) to keep them."
)


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


def hardware_banner(device: Any) -> str:
    """A warning line when a GPU is there but the model runs on the CPU, else "". `device` is the
    model's device (None: no model loaded, nothing to say)."""
    dev_type = getattr(device, "type", str(device or ""))
    if dev_type == "cpu" and gpu_hardware_present():
        return (
            "⚠️ This machine has a GPU but the model runs on the **CPU**: PyTorch cannot use CUDA here "
            "(a CPU-only torch build, or a CUDA build newer than the driver). Timings are CPU timings. "
            'See docs/deploying.md, "Install on GPU".'
        )
    return ""


def warn_cpu_fallback(device: Any) -> None:
    """The log line for `hardware_banner`'s case, with the torch build that could not use CUDA."""
    if hardware_banner(device):
        log.warning("GPU hardware found but the model runs on the CPU: torch %s cannot use CUDA", torch_build())


def torch_build() -> str:
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
