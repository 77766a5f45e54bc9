"""Streaming one prompt's methods from the model: a generating thread per method, token ids out.

The generating thread (on the app's compute thread where one serves, arena/model/compute.py) only
queues token ids; the consumer decodes them for display. Closing the event generator sets the
cancel event and waits for the thread, so the model's lock is released only after generation ended.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import torch
from transformers.generation.streamers import BaseStreamer

import decoders
from arena.model import compute
from arena.model.llm import LoadedModel
from arena.runs.requests import Cancelled

from .generate import plain_result, recorded_generate, result_of, warm_up
from .inputs import PromptIds, device_ids, ids_for, plan_for


class TokenQueue(BaseStreamer):
    """Hands new token ids to another thread; decoding happens there, not in the timed loop."""

    def __init__(self) -> None:
        self.q: queue.Queue = queue.Queue()
        self.prompt_seen = False

    def put(self, value: torch.Tensor) -> None:
        if not self.prompt_seen:  # generate first pushes the prompt
            self.prompt_seen = True
            return
        self.q.put(value.reshape(-1).tolist())

    def end(self) -> None:
        self.q.put(None)


def events(
    lm: LoadedModel,
    methods: list[str],
    settings: Mapping[str, Any],
    prompt_ids: PromptIds,
    seed: int | None,
    max_new_tokens: int,
    prompt: str,
    cancel: threading.Event,
    interval_s: float = 0.05,
    record: bool = False,
) -> Iterator[tuple]:
    """Run each method in a generating thread; yield ("start", method, i, n), ("tokens", method,
    [ids]) while it streams, ("tick",) while nothing arrives, ("done", method, result dict). The
    thread only queues token ids. Closing this generator sets `cancel` and waits for the thread."""
    try:
        for i, method in enumerate(methods, start=1):
            input_ids = device_ids(lm, ids_for(prompt_ids, method))
            yield ("start", method, i, len(methods))
            streamer = TokenQueue() if decoders.get(method).streams else None
            box: dict[str, Any] = {}
            finished = threading.Event()

            def work(input_ids: torch.Tensor = input_ids) -> None:
                # warm-up and plan here too: all model work on one thread (arena/model/compute.py)
                try:
                    warm_up(lm, method, input_ids, prompt)
                    box["plan"] = plan_for(lm, method, settings.get(method), input_ids.shape[1], max_new_tokens, prompt)
                    box["out"], box["record"] = recorded_generate(
                        lm, box["plan"], input_ids, seed, streamer, cancel, record
                    )
                except BaseException as exc:  # surfaced below
                    box["error"] = exc
                finally:
                    finished.set()
                    if streamer is not None:
                        streamer.q.put(None)

            join = compute.start(work, name=f"generate-{method}")
            ended = False  # the loop ran to the end (not closed early by the consumer)
            try:
                while not finished.is_set() or (streamer is not None and not streamer.q.empty()):
                    if streamer is None:
                        finished.wait(interval_s * 5)
                        if not finished.is_set():
                            yield ("tick",)
                        continue
                    try:
                        chunk = streamer.q.get(timeout=interval_s * 5)
                    except queue.Empty:
                        yield ("tick",)
                        continue
                    ids: list[int] = []
                    while chunk is not None:
                        ids.extend(chunk)
                        try:
                            chunk = streamer.q.get_nowait()
                        except queue.Empty:
                            break
                    if ids:
                        yield ("tokens", method, ids)
                    if chunk is None:
                        break
                ended = True
            finally:
                if not ended:
                    cancel.set()  # closed early: end generation at the next token
                join()
            if cancel.is_set() or isinstance(box.get("error"), Cancelled):
                return
            if "error" in box:
                raise box["error"]
            output, ttft, latency, mem = box["out"]
            result = result_of(lm, method, box["plan"], input_ids, output, ttft, latency, mem, seed, box["record"])
            yield ("done", method, plain_result(result))
    finally:
        cancel.set()  # nothing may go on generating once the consumer has gone
