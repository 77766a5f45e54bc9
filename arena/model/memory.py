"""Peak memory of one generation, reset and read outside the timed interval.

Two figures per run, both in MiB:

  * peak: the highest memory level during the run. CUDA: `torch.cuda.max_memory_allocated`
    after `reset_peak_memory_stats` (tensor memory held by PyTorch on that device). CPU (Linux):
    the process's peak resident set size: writing "5" to /proc/self/clear_refs resets the
    kernel's high-water mark (VmHWM) to the current RSS, and VmHWM in /proc/self/status then
    holds the peak since (kernel docs: Documentation/filesystems/proc.rst, "clear_refs").
    Model weights and everything else resident are included.
  * growth: that peak minus the level right before the run, i.e. the run's own extra memory
    (KV cache, beams, logits, buffers).

Nothing is sampled and nothing runs during the generation: a reset before the clock starts,
a read after it stops. Limits of the CPU figures: RSS is process-wide, so other threads working
meanwhile count too; and memory the C allocator kept from earlier runs is reused without growing
RSS, so on CPU the growth is a lower bound (often 0 for sampling methods once warmed up), while
the peak is robust. Where /proc is missing or read-only (macOS, some sandboxes, kernels before
4.0) and on other devices (MPS), both are None and the UI shows n/a.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass

import torch

from common.messages import english

# Module-level so tests can point them elsewhere.
CLEAR_REFS = "/proc/self/clear_refs"
STATUS = "/proc/self/status"

# After a reset VmHWM should equal VmRSS; more than this apart means the reset did not happen.
_RESET_SLACK_KB = 4096

PEAK_LABEL = "peak mem (MB)"
GROWTH_LABEL = "peak growth (MB)"
DESCRIPTION = english("memory_description")


# Resetting VmHWM also resets what getrusage reports as ru_maxrss, so the mark is saved before
# each reset and `process_peak_rss_mb` can still give the peak over the process's lifetime.
_lifetime_hwm_kb = 0

# The high-water marks are shared (per process on CPU, per device on CUDA). A reset by an
# overlapping measurement would lower the mark under an earlier one, so each reset bumps an
# epoch and a reading whose epoch moved on is reported as None rather than as a wrong number.
_epochs: dict[str, int] = {}
_epoch_lock = threading.Lock()


def _key(device: torch.device) -> str:
    return "cpu" if device.type == "cpu" else str(device)


def _status_kb() -> dict[str, int] | None:
    """VmRSS and VmHWM in kB from /proc/self/status, or None where unreadable."""
    try:
        with open(STATUS, encoding="ascii", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return None
    out: dict[str, int] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            try:
                out[name] = int(rest.split()[0])
            except (IndexError, ValueError):
                return None
    return out if len(out) == 2 else None


def _reset_cpu() -> float | None:
    global _lifetime_hwm_kb
    if not sys.platform.startswith("linux"):
        return None
    before = _status_kb()
    if before is not None:
        _lifetime_hwm_kb = max(_lifetime_hwm_kb, before["VmHWM"])
    try:
        # os.open without O_CREAT: where there is no such file, never create one.
        fd = os.open(CLEAR_REFS, os.O_WRONLY)
        try:
            os.write(fd, b"5")
        finally:
            os.close(fd)
    except OSError:  # missing, read-only /proc, or a kernel that refuses "5" (before 4.0)
        return None
    st = _status_kb()
    if st is None or st["VmHWM"] - st["VmRSS"] > _RESET_SLACK_KB:
        return None
    return st["VmRSS"] / 1024


def reset_peak(device: torch.device | str = "cpu") -> float | None:
    """Start a measurement: reset the high-water mark; returns the current level in MiB, or None
    where peak memory cannot be measured on this device or system."""
    device = torch.device(device)
    if device.type == "cuda":
        try:
            torch.cuda.reset_peak_memory_stats(device)
            return torch.cuda.memory_allocated(device) / 2**20
        except (AttributeError, RuntimeError):  # an emulated device (ZeroGPU's CPU emulation): n/a
            return None
    if device.type == "cpu":
        return _reset_cpu()
    return None


def peak_mb(device: torch.device | str = "cpu") -> float | None:
    """The highest level in MiB since the last `reset_peak` (CPU: peak RSS; CUDA: peak allocated)."""
    device = torch.device(device)
    if device.type == "cuda":
        try:
            return torch.cuda.max_memory_allocated(device) / 2**20
        except (AttributeError, RuntimeError):
            return None
    if device.type == "cpu" and sys.platform.startswith("linux"):
        st = _status_kb()
        return None if st is None else st["VmHWM"] / 1024
    return None


def process_peak_rss_mb() -> float | None:
    """Peak RSS of the whole process since it started, in MiB (what ru_maxrss gives without the
    resets done here), or None where unknown."""
    st = _status_kb() if sys.platform.startswith("linux") else None
    if st is not None:
        return max(_lifetime_hwm_kb, st["VmHWM"]) / 1024
    try:
        import resource  # late: Unix only
    except ImportError:  # Windows
        return None
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # ru_maxrss is in bytes on macOS, KiB on Linux and the BSDs.
    return kb / 2**20 if sys.platform == "darwin" else max(_lifetime_hwm_kb, kb) / 1024


@dataclass(frozen=True)
class MemoryReading:
    """One block's figures in MiB; None where not measurable."""

    peak_mb: float | None = None
    growth_mb: float | None = None


class PeakMemory:
    """Measure a block's peak memory: `start()` then `stop()`, or `with PeakMemory(dev) as pm:`
    and read `pm.reading` afterwards.

    Both calls belong outside any timed interval: a kernel write and a few reads of
    /proc/self/status on CPU, a counter reset and read on CUDA (synchronise first there, as the
    runner does)."""

    def __init__(self, device: torch.device | str = "cpu"):
        self.device = torch.device(device)
        self.baseline_mb: float | None = None
        self.reading = MemoryReading()
        self._epoch = 0

    def start(self) -> PeakMemory:
        self.reading = MemoryReading()
        key = _key(self.device)
        with _epoch_lock:  # the reset and its epoch together, so readers can tell who reset last
            _epochs[key] = self._epoch = _epochs.get(key, 0) + 1
            self.baseline_mb = reset_peak(self.device)
        return self

    def stop(self) -> MemoryReading:
        """The figures since `start()`; all None when not measurable, or when another measurement
        reset the same high-water mark meanwhile (the peak could then be too low)."""
        if self.baseline_mb is None:
            return self.reading
        with _epoch_lock:
            peak = peak_mb(self.device)
            overlapped = _epochs.get(_key(self.device)) != self._epoch
        if peak is not None and not overlapped:
            self.reading = MemoryReading(peak, max(0.0, peak - self.baseline_mb))
        return self.reading

    def __enter__(self) -> PeakMemory:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
