"""Who may queue a generation run (Compare, the trace tab): the gate before Gradio's queue.

Generation runs one at a time (concurrency id `GENERATION`, so that timings are not shared), and a
run can take minutes. Rating handlers have concurrency groups of their own, so a rater's Start or
Submit never waits behind generation; what all events share is the size of Gradio's queue. This
gate keeps generation's share of it bounded, so that Compare requests cannot fill it:

* one run per browser tab (Gradio session), waiting or running;
* `ARENA_COMPARE_PER_ADDRESS` per client address (arena/access/clients.py);
* `ARENA_COMPARE_QUEUE` waiting in all.

It is a Gradio *validator*: it runs when the browser asks to join the queue, and a refused run never
enters it (HTTP 422, the message shown on the prompt box). The counts come from Gradio's own record
of pending events, so a run that was stopped or cancelled while waiting stops counting at once. A
run admitted but not registered there yet counts too (validators run side by side on worker
threads, so requests sent all at once are still counted one by one), until its event shows up or
its handler starts (`started`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from arena.access import clients
from arena.settings import current as current_settings

GENERATION = "generation"
RESERVE_S = 30.0  # an admitted run that never reached the queue (its request failed) stops counting


@dataclass
class _Admitted:
    """A run let through that may not be in Gradio's queue yet (or is done already)."""

    when: float
    session: str
    client: str
    request: Any  # the join request: the queue's event for this run holds the same object


_admitted: dict[int, _Admitted] = {}
_lock = threading.Lock()


def _queue_of(request: Any) -> Any:
    app = getattr(clients.http_request(request), "app", None)
    blocks = app.get_blocks() if app is not None and hasattr(app, "get_blocks") else None
    return getattr(blocks, "_queue", None)


def generation_events(queue: Any) -> list[Any]:
    """Gradio's pending generation events, waiting or running (an event is registered before it is
    queued and until it is done)."""
    if queue is None:
        return []
    found = []
    for event_id in [i for ids in list(queue.pending_event_ids_session.values()) for i in list(ids)]:
        event = queue.event_ids_to_events.get(event_id)
        if event is not None and event.concurrency_id == GENERATION:
            found.append(event)
    return found


def waiting_count(queue: Any) -> int:
    group = queue.event_queue_per_concurrency_id.get(GENERATION) if queue is not None else None
    return len(group.queue) if group is not None else 0


def refusal(request: Any) -> str | None:
    """Why this request may not queue a generation run now, or None (and it is counted from now on)."""
    session, client = clients.session_of(request), clients.client_of(request)
    queue = _queue_of(request)
    config = current_settings()
    now = time.monotonic()
    with _lock:
        events = generation_events(queue)
        registered = {id(e.request) for e in events}
        for key, run in list(_admitted.items()):
            if key in registered or now - run.when > RESERVE_S:
                del _admitted[key]  # counted by the queue now, or never got there
        runs = [(e.session_hash, clients.client_of(e.request)) for e in events]
        runs += [(a.session, a.client) for a in _admitted.values()]
        if session and any(s == session for s, _ in runs):
            return "this tab has a run waiting or running already: wait for it to finish, or press Stop"
        if sum(1 for _, c in runs if c == client) >= config.compare_per_address:
            return (
                f"{config.compare_per_address} runs from your address are waiting or running: "
                "wait for one to finish, then run again"
            )
        waiting = waiting_count(queue) + len(_admitted)
        if waiting >= config.compare_queue:
            return f"the model is busy: {waiting} runs are waiting. Try again in a few minutes"
        inner = clients.http_request(request)
        _admitted[id(inner)] = _Admitted(now, session, client, inner)
    return None


def started(request: Any) -> None:
    """A generation handler starts: its event is in Gradio's record now, which counts it until it ends."""
    with _lock:
        _admitted.pop(id(clients.http_request(request)), None)


def validator(n_inputs: int) -> Callable[..., list[dict[str, Any]]]:
    """A Gradio validator for an event with `n_inputs` inputs, the first of them the prompt box."""

    def admit(request: gr.Request, *values: Any) -> list[dict[str, Any]]:
        why = refusal(request)
        if why is None:
            return [gr.validate(True, "")] * n_inputs
        return [gr.validate(False, why)] + [gr.validate(True, "")] * (n_inputs - 1)

    return admit
