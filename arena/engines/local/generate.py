"""One in-process generation of one method: warmed up, timed, cancellable.

Rules that make the numbers comparable:
  * every method is warmed up once per loaded model before its first timed run;
  * `torch.inference_mode`, and CUDA is synchronised before each clock read;
  * seed S means `torch.manual_seed(S)` immediately before that method's `generate`.

Time to first token is the moment the first step's logits reach the processors, i.e. prefill
plus one forward pass, read by a pass-through processor. For beam search this is when the first
step's candidates exist (beam search commits to its text only at the end).

Cancelling: a `threading.Event` checked by a stopping criterion ends generation at the next token.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any

import torch
from transformers import LogitsProcessor, LogitsProcessorList, StoppingCriteria, StoppingCriteriaList

from arena.model.llm import LoadedModel, end_ids
from arena.model.memory import MemoryReading, PeakMemory
from arena.runs.requests import Cancelled, MethodResult
from arena.runs.whole_text import decode_whole, with_trim
from decoders import GenerationPlan
from decoders.recording import TOP_K, recording

from .compiled import compiled_kwargs
from .device import device_generate_kwargs, synchronizer
from .inputs import plan_for

WARMUP_TOKENS = 4


class FirstStepClock(LogitsProcessor):
    """Pass-through processor that notes when the first step's logits exist."""

    passthrough = True  # not a stage of the token view (decoders/recording.py)

    def __init__(self, sync: Callable[[], None]):
        self.sync = sync
        self.first: float | None = None

    def __call__(self, input_ids, scores):
        if self.first is None:
            self.sync()
            self.first = time.perf_counter()
        return scores


class CancelCriteria(StoppingCriteria):
    """Ends `generate` at the next token once the event is set (every row done)."""

    def __init__(self, event: threading.Event):
        self.event = event

    def __call__(self, input_ids, scores, **kwargs):
        return torch.full((input_ids.shape[0],), self.event.is_set(), dtype=torch.bool, device=input_ids.device)


class CancelCheck(LogitsProcessor):
    """The same for decoders with their own step loop (custom_generate): raises at the next step."""

    passthrough = True

    def __init__(self, event: threading.Event):
        self.event = event

    def __call__(self, input_ids, scores):
        if self.event.is_set():
            raise Cancelled("stopped")
        return scores


def generate_once(
    lm: LoadedModel,
    plan: GenerationPlan,
    input_ids: torch.Tensor,
    processors: list,
    streamer=None,
    cancel: threading.Event | None = None,
) -> torch.Tensor:
    """The plan's `generate` (or its own loop) on one prompt, with the device's settings under the plan's."""
    kwargs = dict(plan.generate_kwargs)
    kwargs.setdefault("pad_token_id", lm.tokenizer.pad_token_id)
    if plan.custom_generate is None:  # a custom loop (Multi-arm) manages its own cache
        length = int(input_ids.shape[1]) + int(kwargs.get("max_new_tokens") or 0)
        kwargs = {**device_generate_kwargs(lm.device), **compiled_kwargs(lm, length), **kwargs}
    generate = plan.custom_generate or lm.model.generate
    if cancel is not None:
        if plan.custom_generate is None:
            kwargs["stopping_criteria"] = StoppingCriteriaList([CancelCriteria(cancel)])
        else:
            processors = list(processors) + [CancelCheck(cancel)]
    return generate(
        input_ids=input_ids,
        attention_mask=torch.ones_like(input_ids),
        logits_processor=LogitsProcessorList(processors),
        streamer=streamer,
        **kwargs,
    )


def timed_generate(
    lm: LoadedModel,
    plan: GenerationPlan,
    input_ids: torch.Tensor,
    seed: int | None,
    streamer=None,
    cancel: threading.Event | None = None,
) -> tuple[torch.Tensor, float, float, MemoryReading]:
    """Generate once and time it: (output, TTFT ms, latency ms, memory). Runs inside the GPU task (on
    ZeroGPU a `spaces.GPU` worker), so queueing for the GPU happens before the clock starts."""
    sync = synchronizer(lm.device)
    clock = FirstStepClock(sync)
    processors = list(plan.logits_processors) + [clock]
    # Memory is reset and read outside the clock: a kernel counter on CPU, allocator stats on CUDA.
    memory = PeakMemory(lm.device).start()
    with torch.inference_mode():
        if seed is not None:
            torch.manual_seed(seed)
        sync()
        start = time.perf_counter()
        output = generate_once(lm, plan, input_ids, processors, streamer, cancel)
        sync()
        end = time.perf_counter()
    mem = memory.stop()
    first = clock.first if clock.first is not None else end
    return output, (first - start) * 1000, (end - start) * 1000, mem


UNRECORDED = "{method} drives the model with its own loop, which the token view cannot watch; see its own tab"


def recorded_generate(
    lm: LoadedModel,
    plan: GenerationPlan,
    input_ids: torch.Tensor,
    seed: int | None,
    streamer=None,
    cancel: threading.Event | None = None,
    record: bool = False,
) -> tuple[tuple[torch.Tensor, float, float, MemoryReading], dict[str, Any] | None]:
    """`timed_generate`, and with `record` what each processor did at every step of that same run
    (decoders/recording.py; its cost is inside the timing, which the token view says)."""
    if not record:
        return timed_generate(lm, plan, input_ids, seed, streamer, cancel), None
    if plan.custom_generate is not None:
        loop: Any = plan.custom_generate
        if getattr(loop, "can_record", False):  # a loop that records itself (decoders/step_loop.py)
            loop.record_k = TOP_K
            out = timed_generate(lm, plan, input_ids, seed, streamer, cancel)
            return out, loop.last_record
        method = plan.effective.get("method", "this method")
        return timed_generate(lm, plan, input_ids, seed, streamer, cancel), {
            "kind": "none",
            "why": UNRECORDED.format(method=method),
        }
    with recording(lm.model) as rec:
        out = timed_generate(lm, plan, input_ids, seed, streamer, cancel)
    return out, rec.finish(out[0], int(input_ids.shape[1]))


def warm_up(lm: LoadedModel, method: str, input_ids: torch.Tensor, prompt: str = "") -> None:
    """One short untimed run per method and model, on the device that times it (inside the GPU task):
    first calls pay for allocations and kernels."""
    if method in lm.warmed:
        return
    plan = plan_for(lm, method, None, input_ids.shape[1], WARMUP_TOKENS, prompt)
    plan.generate_kwargs["max_new_tokens"] = WARMUP_TOKENS
    with torch.inference_mode():
        generate_once(lm, plan, input_ids, list(plan.logits_processors))
    lm.warmed.add(method)


def result_of(
    lm: LoadedModel,
    method: str,
    plan: GenerationPlan,
    input_ids: torch.Tensor,
    output: torch.Tensor,
    ttft: float,
    latency: float,
    mem: MemoryReading,
    seed: int | None,
    record: dict[str, Any] | None = None,
) -> MethodResult:
    """The timed run's `MethodResult`: its new tokens up to the first end-of-sequence, decoded."""
    new_ids = output[0, input_ids.shape[1] :].tolist()
    eos_ids = end_ids(lm.tokenizer)
    # Anything after the first end-of-sequence is padding, not generated text.
    cut = next((i for i, t in enumerate(new_ids) if t in eos_ids), None)
    if cut is not None:
        new_ids = new_ids[: cut + 1]
    finish = "eos" if new_ids and new_ids[-1] in eos_ids else "length"
    text, dropped = decode_whole(lm.tokenizer, new_ids)
    n = len(new_ids)
    return MethodResult(
        method=method,
        text=text,
        new_tokens=n,
        ttft_ms=round(ttft, 3),
        latency_ms=round(latency, 3),
        tokens_per_s=round(n / (latency / 1000), 3) if latency > 0 else 0.0,
        settings=with_trim(plan.effective, dropped),
        seed=seed,
        prompt_tokens=int(input_ids.shape[1]),
        peak_mem_mb=round(mem.peak_mb, 1) if mem.peak_mb is not None else None,
        finish_reason=finish,
        token_ids=[int(t) for t in new_ids],
        peak_mem_growth_mb=round(mem.growth_mb, 1) if mem.growth_mb is not None else None,
        dtype=lm.precision,
        record=record,
    )


def plain_result(result: MethodResult) -> dict[str, Any]:
    """A result as plain data, what may leave a GPU task (`MethodResult(**plain)` rebuilds it)."""
    out = asdict(result)
    out["token_ids"] = list(result.token_ids)
    if result.record is None:
        out.pop("record")  # older readers of a plain result (ZeroGPU workers) never see the key
    return out


def run_planned(
    lm: LoadedModel,
    method: str,
    input_ids: torch.Tensor,
    overrides: Mapping[str, Any] | None,
    max_new_tokens: int,
    seed: int | None,
    prompt: str = "",
    cancel: threading.Event | None = None,
    record: bool = False,
) -> tuple[MethodResult, GenerationPlan]:
    """Warm up (once), then one timed generation, in this process; the result and the plan that ran
    (the trace reads what its custom loop recorded). The caller holds `lm.lock`."""
    warm_up(lm, method, input_ids, prompt)
    plan = plan_for(lm, method, overrides, input_ids.shape[1], max_new_tokens, prompt)
    (output, ttft, latency, mem), recorded = recorded_generate(lm, plan, input_ids, seed, None, cancel, record)
    if cancel is not None and cancel.is_set():
        raise Cancelled(f"{method} was stopped")
    return result_of(lm, method, plan, input_ids, output, ttft, latency, mem, seed, recorded), plan


def run_one(
    lm: LoadedModel,
    method: str,
    input_ids: torch.Tensor,
    overrides: Mapping[str, Any] | None,
    max_new_tokens: int,
    seed: int | None,
    prompt: str = "",
    cancel: threading.Event | None = None,
    record: bool = False,
) -> MethodResult:
    """Warm up (once), then one timed generation, in this process. Caller holds `lm.lock`."""
    return run_planned(lm, method, input_ids, overrides, max_new_tokens, seed, prompt, cancel, record)[0]
