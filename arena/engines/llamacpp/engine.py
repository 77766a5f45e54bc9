"""The llama.cpp engine (`ARENA_ENGINE=llamacpp`): the model's GGUF file run by llama.cpp in this process.

The app still loads the model with transformers, for its tokenizer (prompts are encoded exactly as
for the other engines) and for the Results tab's perplexity; the outputs come from llama.cpp,
from the GGUF's own quantised weights. Methods run one after another on the app's compute thread
(arena/model/compute.py), each warmed up once and timed there; a method that cannot run exactly is
refused before anything runs (translate.py). A study's outputs are generated one at a time, each
with its own seed, and timed.
"""

from __future__ import annotations

import queue
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import torch

from arena.model import compute
from arena.model.llm import LoadedModel
from arena.runs.requests import (
    Cancelled,
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
from arena.runs.whole_text import decode_whole
from common.errors import UserError
from common.messages import text

from ...settings import current as current_settings
from ..base import Engine, StopFn, model_notes
from ..local.inputs import encode_ids
from .run import method_plan, run_method
from .runtime import VERSION, Runtime, library
from .weights import info, model_gguf

CHECK_PROMPT = "Hello"  # what a method is planned with when only its settings are checked (Routed classifies it)


def refuse_variant(lm: LoadedModel) -> None:
    if lm.variant:
        raise UserError(
            f"@{lm.variant} sets the transformers engine's precision; the llama.cpp engine runs the GGUF file's own "
            "weights: drop the @variant, or use ARENA_ENGINE=transformers"
        )


class LlamaCppEngine(Engine):
    """llama.cpp in this process, on the model's GGUF file. Thread-safe; one instance serves every model."""

    name = "llamacpp"
    in_process = True
    records = True

    def __init__(self) -> None:
        self._runtimes: OrderedDict[tuple[str, int], Runtime] = OrderedDict()
        self._lock = threading.Lock()

    # ---- the model -----------------------------------------------------------------------------

    def runtime(self, lm: LoadedModel) -> Runtime:
        """`lm`'s GGUF in llama.cpp, loaded on first use on the compute thread; at most
        ARENA_MODELS_IN_MEMORY stay loaded (the least recently used leaves)."""
        refuse_variant(lm)
        path = model_gguf(lm)
        key = (str(path), torch.get_num_threads())  # as many threads as torch uses on this machine
        with self._lock:
            if key in self._runtimes:
                self._runtimes.move_to_end(key)
                return self._runtimes[key]
        rt = compute.run(Runtime, path, key[1])
        if rt.n_vocab != lm.logits_size:
            raise UserError(
                f"{path.name} has {rt.n_vocab:,} tokens in llama.cpp and {lm.logits_size:,} logits in transformers: "
                "the engines would not share token ids"
            )
        with self._lock:
            rt = self._runtimes.setdefault(key, rt)
            while len(self._runtimes) > current_settings().models_in_memory:
                self._runtimes.popitem(last=False)
        return rt

    def prepare(self, lm: LoadedModel) -> None:
        """Before the app serves: the library, the GGUF and the model in llama.cpp (one `UserError` line if not)."""
        library()
        self.runtime(lm)

    def describe(self, lm: LoadedModel, lang: str = "en") -> str:
        gguf = info(model_gguf(lm))
        line = text("engine_llamacpp_line", lang, name=self.model_label(lm), version=VERSION,
                    threads=torch.get_num_threads(), context=f"{lm.context_length:,}",
                    mb=f"{gguf.tensor_bytes / 1e6:.0f}")  # fmt: skip
        return "  \n".join([line, *model_notes(lm, lang)])

    def model_label(self, lm: LoadedModel) -> str:
        return f"{lm.name.split(' (')[0]} (llama.cpp, GGUF {info(model_gguf(lm)).quant} weights)"

    def check(
        self,
        lm: LoadedModel,
        methods: Sequence[str],
        settings: Mapping[str, Any] | None = None,
        max_new_tokens: int = 16,
    ) -> None:
        refuse_variant(lm)
        model_gguf(lm)
        library()
        for m in methods:
            method_plan(lm, m, (settings or {}).get(m), 1, max_new_tokens, CHECK_PROMPT)

    # ---- running methods -------------------------------------------------------------------------

    def prepared(self, lm: LoadedModel, req: RunRequest, methods: list[str]) -> tuple[Runtime, dict[str, list[int]]]:
        """The runtime and each method's prompt ids; every refusal before anything runs."""
        ids = {m: encode_ids(lm, req, m) for m in methods}  # each with its instruction, if any
        for m in methods:
            method_plan(lm, m, req.settings.get(m), len(ids[m]), req.max_new_tokens, req.prompt)
        return self.runtime(lm), ids

    def run_locked(self, rt: Runtime, lm: LoadedModel, req: RunRequest, method: str, ids: list[int], **kw: Any):
        with rt.lock:
            result = run_method(
                rt, lm, method, ids, req.settings.get(method), req.max_new_tokens, req.seed, req.prompt, **kw
            )
        cancel = kw.get("cancel")
        if cancel is not None and cancel.is_set():
            raise Cancelled(f"{method} was stopped")
        return result

    def run_methods(
        self, lm: LoadedModel, req: RunRequest, cancel: threading.Event | None = None
    ) -> list[MethodResult]:
        """Every method on the same prompt, one after another, on the compute thread (inline where none serves)."""
        req = validate_request(req)
        rt, ids = self.prepared(lm, req, list(req.methods))
        results = []
        for m in req.methods:
            if cancel is not None and cancel.is_set():
                raise Cancelled("stopped before it started")
            results.append(compute.run(self.run_locked, rt, lm, req, m, ids[m], cancel=cancel, record=req.record))
        return results

    def stream_methods(
        self,
        lm: LoadedModel,
        req: RunRequest,
        interval_s: float = 0.05,
        cancel: threading.Event | None = None,
        ticks: bool = False,
    ) -> Iterator[StreamEvent]:
        req = validate_request(req)
        order = run_order(list(req.methods))
        rt, ids = self.prepared(lm, req, order)
        cancel = cancel if cancel is not None else threading.Event()
        try:
            for position, method in enumerate(order, start=1):
                if cancel.is_set():
                    return
                yield StreamEvent(method, "", None, position, len(order))
                box: dict[str, Any] = {}
                tokens: queue.SimpleQueue[int | None] = queue.SimpleQueue()

                def work(method: str = method) -> None:
                    try:
                        box["result"] = self.run_locked(
                            rt, lm, req, method, ids[method], on_token=tokens.put, cancel=cancel, record=req.record
                        )
                    except BaseException as exc:  # surfaced below
                        box["error"] = exc
                    finally:
                        tokens.put(None)

                join = compute.start(work, name=f"llamacpp-{method}")
                ended = False
                try:
                    for text in relay(lm, tokens, interval_s, ticks):
                        yield StreamEvent(method, text, None, position, len(order))
                    ended = True
                finally:
                    if not ended:
                        cancel.set()  # closed early: end generation at the next token
                    join()
                if cancel.is_set() or isinstance(box.get("error"), Cancelled):
                    return
                if "error" in box:
                    raise box["error"]
                result: MethodResult = box["result"]
                yield StreamEvent(method, result.text, result, position, len(order))
        finally:
            cancel.set()

    def generate_slots(self, lm: LoadedModel, job: SlotJob, should_stop: StopFn | None = None) -> Iterator[Generated]:
        """Each output alone, timed, with its own seed (llama.cpp decodes one sequence fast enough
        that a study does not need batches here)."""
        self.check(lm, sorted({s.method for s in job.slots}), job.settings, job.max_new_tokens)
        for slot in job.slots:
            if should_stop is not None and should_stop():
                return
            settings = {slot.method: dict(job.settings.get(slot.method, {}))}
            req = RunRequest(slot.prompt, [slot.method], settings, job.max_new_tokens, job.seed([slot]), slot.raw)
            [result] = self.run_methods(lm, req)
            yield Generated(
                [SlotOutput(slot, output_fields(result))],
                text("engine_piece", item=slot.ordinal + 1, method=slot.method, sample=slot.sample + 1),
            )


def relay(lm: LoadedModel, tokens: queue.SimpleQueue, interval_s: float, ticks: bool) -> Iterator[str]:
    """The text so far each time new tokens arrive (decoded here, not on the generating thread),
    and every ~0.25 s while none do if `ticks`; ends at the None the worker puts last."""
    ids: list[int] = []
    text = ""
    while True:
        try:
            item = tokens.get(timeout=0.25 if ticks else interval_s * 5)
        except queue.Empty:
            if ticks:
                yield text
            continue
        batch = [item]
        while item is not None:
            try:
                item = tokens.get_nowait()
            except queue.Empty:
                break
            batch.append(item)
        new = [t for t in batch if t is not None]
        if new:
            ids.extend(new)
            text = decode_whole(lm.tokenizer, ids)[0]
            yield text
        if batch[-1] is None:
            return
