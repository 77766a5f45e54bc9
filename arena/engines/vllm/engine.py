"""The vLLM engine: outputs from a vLLM server (`ARENA_ENGINE=vllm`, `ARENA_VLLM_URL`).

Compare and the CLI run the chosen methods one after another on the server, so their timings
don't share it with each other (they may share it with other clients); a study sends all of its
missing outputs at once and lets the server batch them (slots.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from arena.model.llm import LoadedModel, refuse_variant
from arena.runs.requests import Generated, MethodResult, RunRequest, SlotJob, StreamEvent, run_order, validate_request
from arena.runs.whole_text import decode_whole
from common.messages import text

from ..base import Engine, StopFn
from . import slots
from .client import EngineRequest, VllmClient


class VllmEngine(Engine):
    """A vLLM server as the app's engine. Thread-safe; one instance per URL."""

    name = "vllm"
    in_process = False

    def __init__(self, url: str, timeout_s: float | None = None):
        self.client = VllmClient(url, timeout_s)  # the server's API: info, prepare, execute

    def describe(self, lm: LoadedModel, lang: str = "en") -> str:
        return text("engine_vllm_line", lang, label=self.client.label())

    def model_label(self, lm: LoadedModel) -> str:
        return self.client.label()

    def check(
        self,
        lm: LoadedModel,
        methods: Sequence[str],
        settings: Mapping[str, Any] | None = None,
        max_new_tokens: int = 16,
    ) -> None:
        refuse_variant(lm.variant, self.name)
        ids = [int(lm.tokenizer.eos_token_id or 0)]
        for m in methods:
            self.client.prepare(lm, m, (settings or {}).get(m), ids, max_new_tokens, 0)

    def stream_methods(
        self,
        lm: LoadedModel,
        req: RunRequest,
        interval_s: float = 0.05,
        cancel: threading.Event | None = None,
        ticks: bool = False,
    ) -> Iterator[StreamEvent]:
        """Partial texts while each method generates on the server (beam search arrives whole).
        Setting `cancel` (or closing this generator) closes the stream; the server then aborts."""
        refuse_variant(lm.variant, self.name)
        req = validate_request(req)
        self.refuse_record(req)
        order = run_order(list(req.methods))
        method_ids = {m: self.client.encode(lm, req, m) for m in order}  # each with its instruction, if any
        prepared = [
            self.client.prepare(lm, m, req.settings.get(m), method_ids[m], req.max_new_tokens, req.seed, req.prompt)
            for m in order
        ]  # every refusal before the first request
        cancel = cancel if cancel is not None else threading.Event()
        total = len(prepared)
        try:
            for position, er in enumerate(prepared, start=1):
                if cancel.is_set():
                    return
                box: dict[str, Any] = {}
                latest: list[list[int]] = []
                done = threading.Event()

                def work(er: EngineRequest = er) -> None:
                    try:
                        box["result"] = self.client.execute(
                            lm, er, method_ids[er.method], req.seed, on_tokens=latest.append, cancel=cancel
                        )
                    except BaseException as exc:  # surfaced below
                        box["error"] = exc
                    finally:
                        done.set()

                worker = threading.Thread(target=work, daemon=True)
                worker.start()
                yield StreamEvent(er.method, "", None, position, total)
                shown, text, last = 0, "", time.monotonic()
                while not done.wait(interval_s):
                    if latest and len(latest[-1]) != shown:
                        ids = latest[-1]
                        shown = len(ids)
                        text = decode_whole(lm.tokenizer, ids)[0]
                        last = time.monotonic()
                        yield StreamEvent(er.method, text, None, position, total)
                    elif ticks and time.monotonic() - last >= 0.25:
                        last = time.monotonic()
                        yield StreamEvent(er.method, text, None, position, total)
                worker.join()
                if "error" in box:
                    raise box["error"]
                if cancel.is_set():
                    return
                result: MethodResult = box["result"]
                yield StreamEvent(er.method, result.text, result, position, total)
        finally:
            cancel.set()

    def generate_slots(self, lm: LoadedModel, job: SlotJob, should_stop: StopFn | None = None) -> Iterator[Generated]:
        refuse_variant(lm.variant, self.name)
        return slots.generate_slots(self.client, lm, job, should_stop)
