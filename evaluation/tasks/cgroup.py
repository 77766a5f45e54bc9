"""One memory cgroup per sandbox run, where the host lets this process make one.

Per-process limits (`prlimit --as`) do not bound what a sandbox holds as a whole: sixteen processes
of 256 MiB each, or pages written to a tmpfs, which belong to no process. A memory cgroup counts
both (tmpfs pages are charged to the cgroup of whoever wrote them), so one limit there caps the
sandbox whole. Making one needs write access to the cgroup tree: root in most containers, a
delegated subtree under systemd. Where neither is there, `create` returns None and the sandbox runs
with its per-process limits alone; `state()` says which holds, in words.

Both cgroup versions: v1 (a `memory` hierarchy, `memory.limit_in_bytes`) and v2 (the unified tree,
`memory.max`, where the parent must have, or be able to enable, the memory controller for its children).
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "arena-sandbox-"


@dataclass(frozen=True)
class MemoryCgroup:
    """A cgroup made for one run. `procs` is the file a process writes its pid to, to join it."""

    path: Path
    version: int

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def oom_killed(self) -> bool:
        """Did the limit kill something in it?"""
        try:
            if self.version == 2:
                events = (self.path / "memory.events").read_text()
                return any(
                    line.split()[:1] == ["oom_kill"] and int(line.split()[1]) > 0 for line in events.splitlines()
                )
            return int((self.path / "memory.failcnt").read_text()) > 0
        except (OSError, ValueError, IndexError):
            return False

    def remove(self, wait_s: float = 2.0) -> None:
        """Remove it once its processes are gone (they were killed; the kernel may take a moment)."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left for the next run's sweep (`create` removes stale ones)
                time.sleep(0.05)


def _own_path(controller: str) -> str | None:
    """This process's cgroup path in the hierarchy of `controller` ("" for the v2 line)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and controller in parts[1].split(","):
            return parts[2]
        if len(parts) == 3 and controller == "" and parts[0] == "0" and parts[1] == "":
            return parts[2]
    return None


def _parent(version: int) -> Path | None:
    """Where this process may make a child cgroup, or None."""
    if version == 1:
        mount = ROOT / "memory"
        own = _own_path("memory")
        if not (mount / "memory.limit_in_bytes").exists() or own is None:
            return None
    else:
        mount = ROOT / "unified" if (ROOT / "unified" / "cgroup.controllers").exists() else ROOT
        own = _own_path("")
        if not (mount / "cgroup.controllers").exists() or own is None:
            return None
        if "memory" not in (mount / "cgroup.controllers").read_text().split():
            return None
    parent = mount / own.lstrip("/")
    return parent if parent.is_dir() else mount


def _sweep(parent: Path) -> None:
    """Remove what earlier runs left (a cgroup whose processes outlived `remove`'s wait)."""
    for child in parent.glob(PREFIX + "*"):
        try:
            child.rmdir()
        except OSError:
            pass


def _make(parent: Path, version: int, limit_bytes: int) -> MemoryCgroup | None:
    if version == 2:
        control = parent / "cgroup.subtree_control"
        try:
            if "memory" not in control.read_text().split():
                control.write_text("+memory")
        except OSError:
            return None  # the parent holds processes itself (v2 allows controllers only above leaves)
    _sweep(parent)
    path = parent / f"{PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        path.mkdir()
    except OSError:
        return None
    group = MemoryCgroup(path, version)
    limits = (
        [("memory.max", limit_bytes), ("memory.swap.max", 0)]
        if version == 2
        else [("memory.limit_in_bytes", limit_bytes), ("memory.memsw.limit_in_bytes", limit_bytes)]
    )
    try:
        for name, value in limits:
            if (path / name).exists():
                (path / name).write_text(str(value))
        if not (path / ("memory.max" if version == 2 else "memory.limit_in_bytes")).exists():
            raise OSError("no memory limit file")
    except OSError:
        group.remove(wait_s=0)
        return None
    return group


def create(limit_bytes: int) -> MemoryCgroup | None:
    """A fresh memory cgroup capped at `limit_bytes` (no swap beyond it), or None where none can be made."""
    for version in (2, 1):
        parent = _parent(version)
        if parent is not None:
            group = _make(parent, version, limit_bytes)
            if group is not None:
                return group
    return None


def state() -> str:
    """Whether a run's memory is capped as a whole here, in words (for docs, logs and the tests)."""
    group = create(64 * 2**20)
    if group is None:
        return "per process only: no memory cgroup can be made here (not root, or no delegated cgroup tree)"
    group.remove(wait_s=0)
    return f"as a whole: a memory cgroup v{group.version} per run under {group.path.parent}"
