"""Peak memory per run (arena/memory.py): real figures on Linux CPU, None where /proc is unusable."""

import os
import sys

import pytest
import torch

from arena import memory
from arena.memory import MemoryReading, PeakMemory, process_peak_rss_mb

linux_proc = pytest.mark.skipif(memory._reset_cpu() is None, reason="/proc/self/clear_refs not usable here")


@linux_proc
def test_allocation_between_reset_and_read_shows_as_growth():
    with PeakMemory("cpu") as pm:
        x = torch.ones(50 * 2**20)  # 50 Mi float32 = 200 MiB, touched (ones), not just reserved
        del x  # freed before the read: the high-water mark still holds it
    assert pm.reading.growth_mb is not None and pm.reading.growth_mb >= 190
    assert pm.reading.peak_mb >= pm.baseline_mb + 190


@linux_proc
def test_no_allocation_gives_a_small_figure():
    x = torch.ones(2**20)
    with PeakMemory("cpu") as pm:
        float(x.sum())
    assert pm.reading.growth_mb is not None and 0 <= pm.reading.growth_mb < 20
    assert pm.reading.peak_mb > 0


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
    from arena.runner import RunRequest, run_methods

    if lm.device.type != "cpu":
        pytest.skip("CPU path only")
    results = run_methods(lm, RunRequest("Tell me about the sea.", ["BS-4", "TS-Temp"], max_new_tokens=8, seed=0))
    for r in results:
        # The peak includes the weights (135M parameters in float32: > 500 MiB); the growth is >= 0.
        assert r.peak_mem_mb is not None and r.peak_mem_mb > 100, r
        assert r.peak_mem_growth_mb is not None and 0 <= r.peak_mem_growth_mb <= r.peak_mem_mb, r
        assert r.public()["peak_mem_mb"] == r.peak_mem_mb
