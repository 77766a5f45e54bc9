"""Gradio's queue without polling an idle server a thousand times a second.

Gradio's queue loop looks for a new event every 1 ms while none is waiting, and for progress to send
every 10 ms: about 1,100 wake-ups of the server's event loop a second, measured at 7% of one core for
an app that serves nobody (a Space between two raters, each app a test suite keeps open). Here the
queue keeps Gradio's pace while a job runs and for a second after an event joined (a run's follow-up
events, a rater's next submit come then), and otherwise looks every 20 ms for events and every 50 ms
for progress: the first event after a quiet spell waits 10 ms more on average, and a running job's
progress reaches the page as often as before (a slower pace let the bar lag behind the job's text).

Example:
    >>> import gradio as gr
    >>> queue = quiet(gr.Blocks().queue()._queue)
    >>> queue.sleep_when_free, queue.progress_update_sleep_when_free
    (0.02, 0.05)
"""

from __future__ import annotations

import time
from typing import Any

from gradio.queueing import Queue

HOT_POLL_S = 0.001  # Gradio's own
IDLE_POLL_S = 0.02
HOT_FOR_S = 1.0
HOT_PROGRESS_S = 0.01  # Gradio's own
IDLE_PROGRESS_S = 0.05


class QuietQueue(Queue):
    """Gradio's `Queue`, at Gradio's pace only while a job runs or for `HOT_FOR_S` after an event joined."""

    last_join_s = float("-inf")

    def busy(self) -> bool:
        return any(job is not None for job in self.active_jobs) or time.monotonic() - self.last_join_s < HOT_FOR_S

    @property
    def sleep_when_free(self) -> float:
        return HOT_POLL_S if self.busy() else IDLE_POLL_S

    @sleep_when_free.setter
    def sleep_when_free(self, _value: float) -> None:
        pass  # Gradio's __init__ sets its constant; the property decides

    @property
    def progress_update_sleep_when_free(self) -> float:
        return HOT_PROGRESS_S if self.busy() else IDLE_PROGRESS_S

    @progress_update_sleep_when_free.setter
    def progress_update_sleep_when_free(self, _value: float) -> None:
        pass

    async def push(self, body: Any, request: Any, username: str | None) -> Any:
        self.last_join_s = time.monotonic()
        return await super().push(body, request, username)


def quiet(queue: Queue) -> Queue:
    """Make Gradio's queue (`demo._queue` after `demo.queue()`) a `QuietQueue`, in place."""
    queue.__class__ = QuietQueue
    return queue
