"""The in-process engine: transformers on this machine, one method after another under the model's lock.

Methods run sequentially under `lm.lock`, never two on one device at once, through the GPU
functions of tasks.py (on ZeroGPU `spaces.GPU` tasks; elsewhere the app's compute thread).
Token ids come out of a task; decoding for display happens here. The lock is released only after
the generating thread ended.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from arena.model.llm import LoadedModel
from arena.model.zerogpu import on_zero_gpu, streaming_note
from arena.runs.requests import (
    Cancelled,
    Generated,
    MethodResult,
    RunRequest,
    SlotJob,
    StreamEvent,
    run_order,
    validate_request,
)
from arena.runs.whole_text import decode_whole
from common.errors import UserError
from common.messages import text

from ..base import Engine, StopFn, model_notes
from . import study
from .inputs import encode_ids, method_ids
from .tasks import gpu_run, gpu_stream, gpu_trace

TRACED = "Multi-Arm"  # the method whose loop keeps a trace


def task_cancel(cancel: threading.Event | None) -> threading.Event | None:
    """What a GPU task may receive of a cancel event: a threading.Event cannot be pickled into a
    ZeroGPU worker; there, closing the generator stops it."""
    return None if on_zero_gpu() else cancel


class LocalEngine(Engine):
    """transformers in this process (`ARENA_ENGINE=transformers`, the default)."""

    name = "transformers"
    in_process = True
    records = True

    def describe(self, lm: LoadedModel, lang: str = "en") -> str:
        reason = f" ({lm.dtype_reason})" if lm.dtype_reason else ""
        line = text("engine_model_line", lang, name=lm.name, device=lm.device.type, precision=lm.precision_line,
                    reason=reason, context=f"{lm.context_length:,}")  # fmt: skip
        lines = [line, *model_notes(lm, lang)]
        if lm.compiled is not None:  # "compiled", or "eager, compiling…" while the warm-up runs
            lines.append(f"decode: {lm.compiled.status}")
        note = streaming_note()
        return "  \n".join(lines + ([note] if note else []))

    def run_methods(
        self, lm: LoadedModel, req: RunRequest, cancel: threading.Event | None = None
    ) -> list[MethodResult]:
        """Every requested method on the same prompt, one after another (in the order given), in one task."""
        req = validate_request(req)
        prompt_ids = method_ids(lm, req)
        with lm.lock:
            if cancel is not None and cancel.is_set():
                raise Cancelled("stopped before it started")
            results = gpu_run(
                lm.key,
                list(req.methods),
                dict(req.settings),
                prompt_ids,
                req.seed,
                req.max_new_tokens,
                req.prompt,
                task_cancel(cancel),
                req.record,
            )
        return [MethodResult(**r) for r in results]

    def stream_methods(
        self,
        lm: LoadedModel,
        req: RunRequest,
        interval_s: float = 0.05,
        cancel: threading.Event | None = None,
        ticks: bool = False,
    ) -> Iterator[StreamEvent]:
        req = validate_request(req)
        prompt_ids = method_ids(lm, req)
        methods = run_order(list(req.methods))
        cancel = cancel if cancel is not None else threading.Event()
        with lm.lock:
            events = gpu_stream(
                lm.key,
                methods,
                dict(req.settings),
                prompt_ids,
                req.seed,
                req.max_new_tokens,
                req.prompt,
                task_cancel(cancel),
                req.record,
            )
            try:
                ids: list[int] = []
                position, method, text = 0, "", ""
                for event in events:
                    if cancel.is_set():
                        break
                    kind = event[0]
                    if kind == "start":
                        _, method, position, _total = event
                        ids, text = [], ""
                        yield StreamEvent(method, "", None, position, len(methods))
                    elif kind == "tokens":
                        ids.extend(event[2])
                        text = decode_whole(lm.tokenizer, ids)[0]
                        yield StreamEvent(event[1], text, None, position, len(methods))
                    elif kind == "tick":
                        if ticks and method:
                            yield StreamEvent(method, text, None, position, len(methods))
                    elif kind == "done":
                        result = MethodResult(**event[2])
                        yield StreamEvent(result.method, result.text, result, position, len(methods))
            finally:
                cancel.set()
                close = getattr(events, "close", None)
                if close is not None:
                    close()  # in-process: sets the event and joins the generating thread

    def generate_slots(self, lm: LoadedModel, job: SlotJob, should_stop: StopFn | None = None) -> Iterator[Generated]:
        return study.generate_slots(lm, job, self.run_methods, should_stop)

    def trace(self, lm: LoadedModel, req: RunRequest) -> dict[str, Any]:
        """One Multi-Arm run and the trace its loop kept, under the model's lock: {"result",
        "token_ids", "trace", "settings"} as plain data (tasks.gpu_trace). Multi-Arm drives the model
        step by step, so this is the in-process engine's alone."""
        req = validate_request(req)
        if req.methods != [TRACED]:
            raise UserError(f"the trace is {TRACED}'s; asked for {', '.join(req.methods)}")
        prompt_ids = encode_ids(lm, req)
        with lm.lock:
            return gpu_trace(lm.key, prompt_ids, req.settings.get(TRACED), req.seed, req.max_new_tokens, req.prompt)
