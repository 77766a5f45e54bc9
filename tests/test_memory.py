"""Peak memory per run (arena/model/memory.py): real figures on Linux CPU, None where /proc is unusable."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from arena.model import memory
from arena.model.memory import MemoryReading, PeakMemory, process_peak_rss_mb

ROOT = Path(__file__).resolve().parents[1]
linux_proc = pytest.mark.skipif(memory._reset_cpu() is None, reason="/proc/self/clear_refs not usable here")


def _in_fresh_process(body: str) -> dict:
    """Run `body` in a new interpreter and return the dict it prints as JSON.

    Growth is RSS above the level at the reset; in this process that depends on what the allocator
    kept from every earlier test (freed arenas are reused without growing RSS), so it is measured
    where no earlier test ran.
    """
    code = "import json, torch\nfrom arena.model.memory import PeakMemory\n" + textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@linux_proc
def test_allocation_between_reset_and_read_shows_as_growth():
    got = _in_fresh_process(
        """
        with PeakMemory("cpu") as pm:
            x = torch.ones(50 * 2**20)  # 50 Mi float32 = 200 MiB, touched (ones), not just reserved
            del x  # freed before the read: the high-water mark still holds it
        print(json.dumps({"growth": pm.reading.growth_mb, "peak": pm.reading.peak_mb, "base": pm.baseline_mb}))
        """
    )
    assert got["growth"] is not None and got["growth"] >= 190
    assert got["peak"] >= got["base"] + 190


@linux_proc
def test_no_allocation_gives_a_small_figure():
    got = _in_fresh_process(
        """
        x = torch.ones(2**20)
        with PeakMemory("cpu") as pm:
            float(x.sum())
        print(json.dumps({"growth": pm.reading.growth_mb, "peak": pm.reading.peak_mb}))
        """
    )
    assert got["growth"] is not None and 0 <= got["growth"] < 20
    assert got["peak"] > 0


@linux_proc
def test_lifetime_peak_survives_the_resets():
    x = torch.ones(40 * 2**20)  # 160 MiB
    del x
    before = process_peak_rss_mb()
    with PeakMemory("cpu"):
        pass
    assert process_peak_rss_mb() >= before


@pytest.mark.parametrize("broken", ["clear_refs", "status"])
def test_unusable_proc_gives_none(monkeypatch, tmp_path, broken):
    missing = str(tmp_path / "missing")
    monkeypatch.setattr(memory, "CLEAR_REFS" if broken == "clear_refs" else "STATUS", missing)
    with PeakMemory("cpu") as pm:
        torch.ones(1000)
    assert pm.reading == MemoryReading(None, None) and pm.stop().peak_mb is None


def test_read_only_clear_refs_gives_none(monkeypatch):
    real_open = os.open

    def refuse(path, *a, **k):
        if path == memory.CLEAR_REFS:
            raise PermissionError("read-only /proc")
        return real_open(path, *a, **k)

    monkeypatch.setattr(os, "open", refuse)
    assert PeakMemory("cpu").start().stop() == MemoryReading(None, None)


def test_not_linux_gives_none(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert PeakMemory("cpu").start().stop() == MemoryReading(None, None)
    assert memory.peak_mb("cpu") is None


def test_other_devices_are_not_measured():
    assert memory.reset_peak("meta") is None and memory.peak_mb("meta") is None


@linux_proc
def test_overlapping_measurement_is_not_trusted():
    first = PeakMemory("cpu").start()
    second = PeakMemory("cpu").start()  # resets the shared mark under `first`
    assert first.stop().peak_mb is None
    assert second.stop().peak_mb is not None


@linux_proc
def test_run_methods_fills_peak_memory_on_cpu(lm):
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods

    if lm.device.type != "cpu":
        pytest.skip("CPU path only")
    results = run_methods(lm, RunRequest("Tell me about the sea.", ["BS-4", "TS-Temp"], max_new_tokens=8, seed=0))
    for r in results:
        # The peak includes the weights (135M parameters in float32: > 500 MiB); the growth is >= 0.
        assert r.peak_mem_mb is not None and r.peak_mem_mb > 100, r
        assert r.peak_mem_growth_mb is not None and 0 <= r.peak_mem_growth_mb <= r.peak_mem_mb, r
        assert r.public()["peak_mem_mb"] == r.peak_mem_mb
