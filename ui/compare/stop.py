"""Compare's Stop: one cancel event per browser session's running run (a threading.Event cannot live
in gr.State)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import gradio as gr

from arena.model.zerogpu import friendly_error

# Stop: one cancel event per browser session's running Compare (a threading.Event cannot live in gr.State).
_cancels: dict[str, threading.Event] = {}
_cancels_lock = threading.Lock()
# Stop pressed while a run still waited for its turn: that run ends as soon as it starts. Stop never
# uses Gradio's job cancel: cancelling a running job raced with the job's last message, and a busy
# browser then showed "Error" over the status, every box, the table and the chart (seen in CI).
_stop_asked: set[str] = set()


def session_of(request: Any) -> str:
    return getattr(request, "session_hash", None) or "anonymous"


def ask_stop(request: Any, waiting: bool) -> threading.Event | None:
    """Stop for this browser session: the running run's cancel event, set (generation ends at the next
    token), or None when none is generating; a run still `waiting` for its turn then ends when it starts."""
    session = session_of(request)
    with _cancels_lock:
        cancel = _cancels.get(session)
        if cancel is None and waiting:
            _stop_asked.add(session)
    if cancel is not None:
        cancel.set()
    return cancel


def forget_stop(request: Any) -> None:
    """A new Run: a Stop pressed before it (for a run that had ended meanwhile) does not stop it."""
    with _cancels_lock:
        _stop_asked.discard(session_of(request))


@contextmanager
def stoppable(request: Any) -> Iterator[threading.Event]:
    """A Compare run's cancel event, registered for this browser session (Stop sets it, as does the
    run's end or a client that left: generation ends at the next token); a ZeroGPU error in words."""
    session = session_of(request)
    cancel = threading.Event()
    with _cancels_lock:
        _cancels[session] = cancel
        if session in _stop_asked:  # Stop came while this run waited for its turn
            _stop_asked.discard(session)
            cancel.set()
    try:
        yield cancel
    except gr.Error as exc:
        message = friendly_error(exc)
        if message:
            raise gr.Error(message, print_exception=False) from None
        raise
    finally:
        cancel.set()
        with _cancels_lock:
            if _cancels.get(session) is cancel:
                del _cancels[session]
