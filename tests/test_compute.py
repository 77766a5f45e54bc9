"""One thread does the model's work (arena/model/compute.py): handed over from other threads while it
serves, inline where nothing serves, errors back to the caller, nothing left waiting at shutdown.
The speed this buys is measured by benchmarks/bench_threads.py, not here."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future

import pytest

from arena.engines.local import stream
from arena.model import compute
from arena.model.zerogpu import gpu_task
from arena.runs import runner
from arena.runs.requests import RunRequest
from arena.runs.runner import stream_methods


@pytest.fixture
def server() -> Iterator[threading.Thread]:
    """A compute thread serving, as app.py's main thread does."""
    stop = threading.Event()
    thread = threading.Thread(target=compute.serve_forever, args=(stop,), name="compute", daemon=True)
    thread.start()
    for _ in range(200):
        if compute.serving():
            break
        threading.Event().wait(0.01)
    yield thread
    stop.set()
    thread.join(5)
    assert not compute.serving()


def in_other_thread(fn):
    """fn() on a fresh thread (a Gradio handler's), its result or exception brought back."""
    box: Future = Future()

    def work():
        try:
            box.set_result(fn())
        except BaseException as exc:
            box.set_exception(exc)

    threading.Thread(target=work, name="handler").start()
    return box.result(timeout=120)


def test_without_a_server_work_runs_where_it_is_called():
    assert not compute.serving()
    assert compute.run(threading.current_thread) is threading.current_thread()
    names: list[str] = []
    compute.start(lambda: names.append(threading.current_thread().name), name="generate-x")()
    assert names == ["generate-x"]  # a thread of its own, as before


def test_while_serving_work_from_any_thread_runs_on_the_compute_thread(server):
    assert in_other_thread(lambda: compute.run(threading.current_thread)) is server
    names: list[str] = []
    in_other_thread(lambda: compute.start(lambda: names.append(threading.current_thread().name), name="x")())
    assert names == ["compute"]
    # on the compute thread itself work runs inline (a task calling a task cannot wait on itself)
    assert in_other_thread(lambda: compute.run(lambda: compute.run(threading.current_thread))) is server


def test_an_error_reaches_the_caller_and_the_server_goes_on(server):
    def fail():
        raise ValueError("bad settings")

    with pytest.raises(ValueError, match="bad settings"):
        in_other_thread(lambda: compute.run(fail))
    assert in_other_thread(lambda: compute.run(lambda: 41 + 1)) == 42


def test_ctrl_c_during_a_job_stops_the_server_and_fails_what_waits():
    def interrupted():
        raise KeyboardInterrupt

    stop = threading.Event()

    def serve():
        with pytest.raises(KeyboardInterrupt):
            compute.serve_forever(stop)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    while not compute.serving():
        threading.Event().wait(0.01)
    job = compute.submit(interrupted)
    thread.join(5)
    assert not thread.is_alive() and not compute.serving()
    with pytest.raises(KeyboardInterrupt):
        job.result(timeout=1)


def test_a_second_server_is_refused(server):
    with pytest.raises(RuntimeError, match="serving already"):
        compute.serve_forever(threading.Event())


def test_work_still_queued_at_shutdown_fails_instead_of_waiting_forever():
    stop, release = threading.Event(), threading.Event()
    thread = threading.Thread(target=compute.serve_forever, args=(stop,), daemon=True)
    thread.start()
    while not compute.serving():
        threading.Event().wait(0.01)
    first = compute.submit(release.wait)  # keeps the server busy
    queued = compute.submit(lambda: "never")
    stop.set()
    release.set()
    thread.join(5)
    assert first.result(timeout=5) is True
    with pytest.raises(RuntimeError, match="stopping"):
        queued.result(timeout=5)


def test_gpu_tasks_run_on_the_compute_thread(server):
    @gpu_task
    def where() -> str:
        return threading.current_thread().name

    assert where() == "compute" and in_other_thread(where) == "compute"


def test_compare_streams_while_the_compute_thread_generates(lm, server, monkeypatch):
    """The streaming worker, its warm-up and its plan run on the compute thread; tokens still stream
    to the handler's thread, and the result is the one run_methods gives for the same seed."""
    seen: list[str] = []
    timed = stream.recorded_generate

    def recording(*args, **kwargs):
        seen.append(threading.current_thread().name)
        return timed(*args, **kwargs)

    monkeypatch.setattr(stream, "recorded_generate", recording)
    req = RunRequest("Name a colour.", ["TS-Temp"], max_new_tokens=6, seed=5)
    events = in_other_thread(lambda: list(stream_methods(lm, req)))
    assert seen == ["compute"]
    assert any(e.result is None and e.text for e in events)  # partial text came before the result
    (done,) = [e.result for e in events if e.result is not None]
    (alone,) = runner.run_methods(lm, req)
    assert done.token_ids == alone.token_ids
