"""Whether bf16 decodes faster than fp32 on this CPU: measured once per CPU model, then remembered.

`auto` dtype on a CPU used to time bf16 against fp32 at every start, and on a busy host the timing
was noise: the same AMD machine loaded bf16 or fp32 depending on the moment it started (issue 36).
The verdict is a property of the CPU model and PyTorch's kernels, not of the moment, so it is kept
in `bf16-verdicts.json` in the model cache, keyed by the CPU's model name and the torch version, and
measured again only on demand (`ARENA_DTYPE_REMEASURE=1`, `--remeasure-dtype`) or when torch changes.
A host too busy for a timing to mean anything (load over 1.5 per core) is not timed at all: it loads
fp32 until a quieter start, or an operator's re-measure, gives a verdict to keep.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

FILE = "bf16-verdicts.json"
# Load per core above which a timing is not trusted: on two cores at load 8, 12 timings of the same
# machine ran from 0.05x to 0.54x (issue 36's host, where a start's timing decided the dtype).
BUSY_LOAD_PER_CORE = 1.5


@dataclass(frozen=True)
class Verdict:
    """A measured bf16-over-fp32 speed ratio for one CPU model, and where it came from."""

    speedup: float
    measured_at: str
    cached: bool

    def line(self, bf16: bool) -> str:
        """For the model line: "bf16 1.80x fp32, measured 2026-12-04 (cached)"."""
        when = "cached, measured " if self.cached else "measured "
        return f"{'bf16' if bf16 else 'fp32'}: bf16 at {self.speedup:.2f}x fp32's speed ({when}{self.measured_at})"


def cpu_model(cpuinfo: str) -> str:
    """The CPU's model name from /proc/cpuinfo ("AMD EPYC 7B13"), or "unknown CPU"."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware", "cpu model") and value.strip():
            return " ".join(value.split())
    return "unknown CPU"


def key(cpuinfo: str, torch_version: str) -> str:
    return f"{cpu_model(cpuinfo)} · torch {torch_version}"


def host_busy() -> bool:
    """Whether the 1-minute load per core is too high for a timing worth keeping."""
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1) > BUSY_LOAD_PER_CORE
    except OSError:
        return False


def recall(folder: Path, cpu_key: str) -> Verdict | None:
    """The remembered verdict for `cpu_key`, or None (none yet, or an unreadable file)."""
    try:
        entry = json.loads((folder / FILE).read_text(encoding="utf-8"))[cpu_key]
        return Verdict(float(entry["speedup"]), str(entry["measured_at"]), cached=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remember(folder: Path, cpu_key: str, speedup: float) -> Verdict:
    """Keep `speedup` for `cpu_key` (atomically: a second process reads the old file or the new one)."""
    verdict = Verdict(speedup, time.strftime("%Y-%m-%d"), cached=False)
    path = folder / FILE
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        kept = kept if isinstance(kept, dict) else {}
    except (OSError, ValueError):
        kept = {}
    kept[cpu_key] = {"speedup": round(speedup, 3), "measured_at": verdict.measured_at}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, suffix=".tmp", encoding="utf-8") as fh:
            json.dump(kept, fh, indent=1, ensure_ascii=False)
        os.replace(fh.name, path)
    except OSError:
        pass  # a read-only cache: measured again next start, nothing worse
    return verdict
