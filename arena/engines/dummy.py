"""A fake engine for fast tests of everything around generation (lm-evaluation-harness's `DummyLM`).

`ARENA_ENGINE=dummy`, or `DummyEngine()` handed to a function that takes an engine. No model runs
and nothing waits: each method writes words drawn from a small vocabulary by a generator seeded
with (prompt, method, seed), so the same request gives the same text, tokens and figures every
time and two methods or seeds differ. Requests are validated as by the real engines (a bad field
is the same `UserError`), methods come in `run_order`, streaming methods arrive a word at a time
and whole-output ones (beam search) at once, a set `cancel` stops at the next word. Timing is made
up and says so in each result's settings: 10 ms to the first token, then 2 ms per token.
With a token delay (`ARENA_DUMMY_TOKEN_DELAY`, or `DummyEngine(token_delay_s)`) every word of every
method takes that long in real time, beam search's too, and the timing is that waiting, measured:
a run then holds the generation slot, streams, can be stopped and shows progress as a model's would,
without a model's CPU (the browser and live-app tests where the text is not the point).
A study's slots are generated one at a time, each with its own seed (no batches).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import decoders
from arena import settings
from arena.model.llm import LoadedModel
from arena.runs.requests import (
    Generated,
    MethodResult,
    RunRequest,
    SlotJob,
    SlotOutput,
    StreamEvent,
    output_fields,
    run_order,
    validate_request,
)
from common.messages import text

from .base import Engine, StopFn

WORDS = (
    "the a river light stone morning quiet city old new bright slow rain wind over under between "
    "carries holds finds leaves becomes remembers and but because while then often never always"
).split()
FIRST_TOKEN_MS = 10.0
PER_TOKEN_MS = 2.0


class DummyEngine(Engine):
    name = "dummy"
    in_process = True  # nothing leaves the process (and nothing runs in it either)

    def __init__(self, token_delay_s: float | None = None):
        self._token_delay_s = token_delay_s  # None: the app's setting, read at each run

    @property
    def token_delay_s(self) -> float:
        """Real seconds per fake token (0: none; nothing waits)."""
        if self._token_delay_s is None:
            return settings.current().dummy_token_delay_s
        return self._token_delay_s

    def describe(self, lm: LoadedModel, lang: str = "en") -> str:
        return text("engine_dummy", lang)

    def model_label(self, lm: LoadedModel) -> str:
        return "dummy engine (fake text)"

    def words(self, req: RunRequest, method: str, model: str = "") -> list[int]:
        """The fake token ids (indexes into WORDS) `method` writes for the request: the same every time
        (and, given the model's name, different per model: Compare's grid)."""
        key = f"{req.prompt}|{req.raw}|{method}|{req.seed}|{req.max_new_tokens}"
        rng = random.Random(f"{model}|{key}" if model else key)
        n = rng.randint(max(1, req.max_new_tokens // 2), req.max_new_tokens)
        return [rng.randrange(len(WORDS)) for _ in range(n)]

    def result(
        self, req: RunRequest, method: str, ids: list[int], waited_ms: tuple[float, float] | None = None
    ) -> MethodResult:
        """The method's result; `waited_ms` (to the first token, to the last) is the token delay's real
        time, reported as the timing in place of the made-up one."""
        n = len(ids)
        ttft, latency = waited_ms or (FIRST_TOKEN_MS, FIRST_TOKEN_MS + PER_TOKEN_MS * (n - 1))
        measured = (
            "the dummy engine's token delay (ARENA_DUMMY_TOKEN_DELAY), waited in real time; no model ran"
            if waited_ms
            else "not measured: the dummy engine makes its timing up"
        )
        method_settings: dict[str, Any] = {
            "method": method,
            **decoders.get(method).resolve(req.settings.get(method)),
            "max_new_tokens": req.max_new_tokens,
            "engine": {"name": self.name},
            "timing": {"measured": measured},
        }
        return MethodResult(
            method=method,
            text=" ".join(WORDS[i] for i in ids),
            new_tokens=n,
            ttft_ms=round(ttft, 3),
            latency_ms=round(latency, 3),
            tokens_per_s=round(n / (latency / 1000), 3),
            settings=method_settings,
            seed=req.seed,
            prompt_tokens=len(req.prompt.split()),
            finish_reason="length" if n == req.max_new_tokens else "eos",
            token_ids=list(ids),
        )

    def stream_methods(
        self,
        lm: LoadedModel,
        req: RunRequest,
        interval_s: float = 0.05,
        cancel: threading.Event | None = None,
        ticks: bool = False,
    ) -> Iterator[StreamEvent]:
        req = validate_request(req)
        self.refuse_record(req)
        order = run_order(list(req.methods))
        cancel = cancel if cancel is not None else threading.Event()
        try:
            for position, method in enumerate(order, start=1):
                if cancel.is_set():
                    return
                yield StreamEvent(method, "", None, position, len(order))
                ids = self.words(req, method, str(getattr(lm, "name", "")))
                streams, delay = decoders.get(method).streams, self.token_delay_s
                started, first = time.perf_counter(), 0.0
                for k in range(1, len(ids) + 1 if streams or delay else 1):
                    if delay and cancel.wait(delay):  # Stop ends the wait, as a model's next token
                        return
                    if cancel.is_set():
                        return
                    first = first or time.perf_counter()
                    if streams:
                        yield StreamEvent(method, " ".join(WORDS[i] for i in ids[:k]), None, position, len(order))
                waited = ((first - started) * 1000, (time.perf_counter() - started) * 1000) if delay else None
                result = self.result(req, method, ids, waited)
                yield StreamEvent(method, result.text, result, position, len(order))
        finally:
            cancel.set()

    def generate_slots(self, lm: LoadedModel, job: SlotJob, should_stop: StopFn | None = None) -> Iterator[Generated]:
        for slot in job.slots:
            if should_stop is not None and should_stop():
                return
            req = RunRequest(
                slot.prompt,
                [slot.method],
                {slot.method: dict(job.settings.get(slot.method, {}))},
                job.max_new_tokens,
                job.seed([slot]),
                slot.raw,
            )
            [result] = self.run_methods(lm, req)
            yield Generated(
                [SlotOutput(slot, output_fields(result))],
                text("engine_piece", item=slot.ordinal + 1, method=slot.method, sample=slot.sample + 1),
            )
