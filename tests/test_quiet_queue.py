"""An app that serves nobody leaves the CPU alone (ui/quiet_queue.py): Gradio's queue polled for new
events every 1 ms, 7% of a core per idle app here, for a Space between raters and for every app a test
run keeps open. The queue polls fast only for a second after an event joined."""

from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures import ThreadPoolExecutor

import gradio as gr
import pytest

from tests.support.live_app import DUMMY_FAST, shared_app
from ui import quiet_queue


def join(queue) -> bool:
    """`queue.push` on an event loop of its own thread (a browser test's loop may run in this one)."""
    body = gr.data_classes.PredictBodyInternal(data=[], fn_index=None)
    with ThreadPoolExecutor(1) as pool:
        ok, _, _ = pool.submit(asyncio.run, queue.push(body, None, None)).result()
    return ok


def test_the_queue_keeps_gradios_pace_only_while_a_job_runs_or_just_after_a_join(monkeypatch):
    queue = quiet_queue.quiet(gr.Blocks().queue()._queue)
    queue.active_jobs = [None, None]
    idle = (quiet_queue.IDLE_POLL_S, quiet_queue.IDLE_PROGRESS_S)
    hot = (quiet_queue.HOT_POLL_S, quiet_queue.HOT_PROGRESS_S)
    assert (queue.sleep_when_free, queue.progress_update_sleep_when_free) == idle
    assert not join(queue)  # any join, even one Gradio refuses, is a sign that more may follow
    assert (queue.sleep_when_free, queue.progress_update_sleep_when_free) == hot
    later = time.monotonic() + quiet_queue.HOT_FOR_S + 0.1
    monkeypatch.setattr(quiet_queue.time, "monotonic", lambda: later)
    assert (queue.sleep_when_free, queue.progress_update_sleep_when_free) == idle
    queue.active_jobs = [None, ["a running event"]]  # a long run: its progress as often as Gradio sends it
    assert (queue.sleep_when_free, queue.progress_update_sleep_when_free) == hot


def cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")
def test_an_idle_app_uses_under_3_percent_of_a_core(tmp_path_factory):
    app = shared_app(tmp_path_factory.getbasetemp(), DUMMY_FAST)
    hz = os.sysconf("SC_CLK_TCK")
    # the quietest of three 2-second windows: what another test left running settles in one of them
    shares = []
    for _ in range(3):
        before = cpu_ticks(app.proc.pid)
        time.sleep(2.0)
        shares.append((cpu_ticks(app.proc.pid) - before) / hz / 2.0)
    assert min(shares) < 0.03, shares  # Gradio's own 1 ms poll: 0.07
