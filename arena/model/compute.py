"""One thread does the model's work in the app.

PyTorch's CPU kernels run in parallel through OpenMP, and libgomp keeps a team of worker threads for
every thread that has run parallel work. Once a process has more of those threads than cores (a
second team on a 2-core machine), libgomp stops spinning between parallel regions, and decoding,
made of thousands of small matrix products a second, waits for sleeping workers each time. On this
project's 2-core machine a batch-1 matrix-vector product took 197 µs on the thread that had loaded
the model and 467 µs on any other thread; Gradio runs handlers on its worker threads, so Compare
decoded TS-Temp at 11 tokens/s where a script on the main thread got 20.

So `app.py` serves model work from its main thread (`serve_forever`, after loading the model there),
and every model call (`arena.model.zerogpu.gpu_task`, the streaming worker of arena/engines/local/stream.py)
is handed to it. Where nothing serves (tests, CLIs, benchmarks) work runs where it is called, as before; on the
compute thread itself it runs inline, so a task may call another.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_jobs: queue.SimpleQueue[tuple[Future, Callable[..., Any], tuple, dict]] = queue.SimpleQueue()
_server: threading.Thread | None = None
_lock = threading.Lock()  # a job is queued only while a server is there to take it


def serving() -> bool:
    """Whether a compute thread takes work now."""
    return _server is not None


def on_compute_thread() -> bool:
    return threading.current_thread() is _server


def _run_into(future: Future, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(fn(*args, **kwargs))
    except BaseException as exc:  # the caller re-raises it from .result()
        future.set_exception(exc)
        if not isinstance(exc, Exception):
            raise  # Ctrl-C or exit while a job ran stops the server too


def submit(fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
    """`fn(*args, **kwargs)` on the compute thread; inline where none serves or on that thread."""
    future: Future[T] = Future()
    with _lock:
        queued = _server is not None and not on_compute_thread()
        if queued:
            _jobs.put((future, fn, args, kwargs))
    if not queued:
        _run_into(future, fn, args, kwargs)
    return future


def run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on the compute thread, waiting for its result (or its exception)."""
    return submit(fn, *args, **kwargs).result()


def start(fn: Callable[[], None], name: str) -> Callable[[], None]:
    """Run `fn` alongside the caller, who waits for it with the returned `join`: on the compute thread
    where one serves (and it is not the caller), else on a new daemon thread called `name`."""
    if _server is not None and not on_compute_thread():
        future = submit(fn)

        def join() -> None:
            future.exception()  # waits; `fn` reports its own errors to its caller

        return join
    thread = threading.Thread(target=fn, daemon=True, name=name)
    thread.start()
    return thread.join


def serve_forever(stop: threading.Event | None = None, poll_s: float = 0.2) -> None:
    """Take model work on this thread until `stop` is set (or KeyboardInterrupt); what is still
    queued then fails with a RuntimeError rather than waiting forever."""
    global _server
    with _lock:
        if _server is not None:
            raise RuntimeError("a compute thread is serving already")
        _server = threading.current_thread()
    try:
        while stop is None or not stop.is_set():
            try:
                job = _jobs.get(timeout=poll_s)
            except queue.Empty:
                continue
            _run_into(*job)
    finally:
        with _lock:
            _server = None
        while True:
            try:
                future, *_ = _jobs.get_nowait()
            except queue.Empty:
                break
            if future.set_running_or_notify_cancel():
                future.set_exception(RuntimeError("the app is stopping; model work was not run"))
