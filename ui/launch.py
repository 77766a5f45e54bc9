"""Starting the server on a busy host: patient start-up checks in place of Gradio's hasty ones.

Gradio's `launch` gives uvicorn 5 s to report itself started and then sends one `HEAD /` with a
3 s timeout; on a host at load 30-40 either can run out although the server is fine, and launch
then dies with "Cannot find empty port" or "When localhost is not accessible, a shareable link
must be created" (issue 36: 6 of 6 starts). Here both wait on the server's own state instead, for
up to `START_TIMEOUT_S`, and the reasons a start truly fails are named in one line.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import threading
import time
from collections.abc import Iterator

import httpx
from gradio import http_server, networking

# How long a start may take on a starved host before it is called failed. Generous on purpose: a
# slow start costs a wait, a start refused by a hasty check costs a restart (and another wait).
START_TIMEOUT_S = 300.0
_OK = {200, 401, 301, 302, 303, 307, 308}  # the answers Gradio's own probe accepts


class StartError(Exception):
    """The server cannot start; the message is the one line an operator reads."""


def port_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on now (in use, no permission, no such address), or None."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # As uvicorn binds: a port left in TIME_WAIT by the previous run is free, one in use is not.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} on {host} is already in use (another app still running?); pick another with --port"
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def patient_url_ok(url: str, timeout_s: float | None = None) -> bool:
    """Whether `url` answers, asking until it does or `timeout_s` passes (a slow answer is waited for).

    Stands in for `gradio.networking.url_ok`, which gives up after one 3 s timeout."""
    deadline = time.monotonic() + (START_TIMEOUT_S if timeout_s is None else timeout_s)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            # trust_env=False: a proxy setting must not stand between the app and its own loopback port.
            r = httpx.head(url, timeout=max(left, 0.1), verify=False, trust_env=False)
            if r.status_code in _OK:
                return True
        except httpx.TimeoutException:
            return False  # it had the whole remaining time
        except httpx.TransportError:
            pass  # not listening yet, or a connection dropped under load: ask again
        time.sleep(min(0.5, max(deadline - time.monotonic(), 0)))


def _run_in_thread_patiently(self: http_server.Server) -> None:
    """`Server.run_in_thread` that waits while uvicorn's thread is alive, not a fixed 5 s."""
    self.thread = threading.Thread(target=self.run, daemon=True)
    self.thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not self.started:
        # uvicorn's thread ends (SystemExit) when it cannot bind: then the port is the problem.
        if not self.thread.is_alive() or time.monotonic() > deadline:
            raise http_server.ServerFailedToStartError("the server did not start")
        time.sleep(0.01)


@contextlib.contextmanager
def patient_checks() -> Iterator[None]:
    """Within: Gradio's launch waits on the server's state instead of its 5 s and 3 s limits.

    Servers with a file-watching reloader (GRADIO_WATCH_DIRS, Spaces' dev mode) keep Gradio's own
    start, which also starts the watcher."""
    original_probe = networking.url_ok
    original_run = http_server.Server.run_in_thread

    def run(self: http_server.Server) -> None:
        if self.reloader:
            original_run(self)
        else:
            _run_in_thread_patiently(self)

    networking.url_ok = patient_url_ok
    http_server.Server.run_in_thread = run  # type: ignore[method-assign]
    try:
        yield
    finally:
        networking.url_ok = original_probe
        http_server.Server.run_in_thread = original_run  # type: ignore[method-assign]


def start_failure(exc: BaseException, host: str, port: int) -> str:
    """The one line for a launch that raised `exc`: the port's problem if it has one, else the cause."""
    if isinstance(exc, ValueError) and "localhost is not accessible" in str(exc):
        return f"the server started but http://{host}:{port}/ did not answer within {START_TIMEOUT_S:.0f} s"
    problem = port_problem(host, port)
    if problem:
        return problem
    return f"the server could not start on {host}:{port}: {exc}"
