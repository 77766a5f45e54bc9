"""The generation runner: one prompt, the chosen methods one after another, honest timing.

Rules that make the numbers comparable:
  * methods run sequentially under the model's lock, never two on one device at once;
  * every method is warmed up once per loaded model before its first timed run;
  * `torch.inference_mode`, and CUDA is synchronised before each clock read;
  * seed S means `torch.manual_seed(S)` immediately before that method's `generate`.

Time to first token is the moment the first step's logits reach the processors, i.e. prefill
plus one forward pass, read by a pass-through processor. For beam search this is when the first
step's candidates exist (beam search commits to its text only at the end).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator, Mapping

import torch
from transformers import LogitsProcessor, LogitsProcessorList
from transformers.generation.streamers import BaseStreamer

import decoders
from decoders import DecodeContext, GenerationPlan

from .errors import UserError
from .gpu import gpu_task, streaming_supported
from .memory import MemoryReading, PeakMemory
from .models import LoadedModel
from .prompts import encode_prompt

MAX_NEW_TOKENS_RANGE = (1, 1024)
DEFAULT_MAX_NEW_TOKENS = 128
WARMUP_TOKENS = 4


@dataclass
class MethodResult:
    method: str
    text: str
    new_tokens: int
    ttft_ms: float
    latency_ms: float
    tokens_per_s: float
    settings: dict[str, Any]
    seed: int | None
    prompt_tokens: int
    peak_mem_mb: float | None = None  # highest memory during the run, see arena/memory.py; None = n/a
    finish_reason: str = "length"
    token_ids: list[int] = field(default_factory=list, repr=False)
    peak_mem_growth_mb: float | None = None  # peak_mem_mb minus the level just before the run

    def public(self) -> dict[str, Any]:
        """The fields the CLI prints and the store keeps."""
        out = asdict(self)
        out.pop("token_ids")
        return out


@dataclass
class RunRequest:
    prompt: str
    methods: list[str]
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS
    seed: int | None = 0
    raw: bool = False


def validate_request(req: RunRequest) -> RunRequest:
    """Check everything before any generation starts, so a bad field never costs a run."""
    methods = decoders.parse_methods(req.methods)
    try:
        max_new = int(req.max_new_tokens)
        if max_new != float(req.max_new_tokens):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise UserError(f"max_new_tokens must be a whole number, got {req.max_new_tokens!r}") from None
    lo, hi = MAX_NEW_TOKENS_RANGE
    if not lo <= max_new <= hi:
        raise UserError(f"max_new_tokens must be between {lo} and {hi}, got {max_new}")
    seed = req.seed
    if seed is not None:
        try:
            seed = int(seed)
            if seed != float(req.seed) or not 0 <= seed < 2**63:
                raise ValueError
        except (TypeError, ValueError, OverflowError):
            raise UserError(f"seed must be a whole number ≥ 0, got {req.seed!r}") from None
    settings = {} if req.settings is None else req.settings
    if not isinstance(settings, Mapping):
        raise UserError(f"settings must map method names to their parameters, got {req.settings!r}")
    unknown = set(settings) - set(methods)
    if unknown:
        raise UserError(f"settings given for methods not being run: {', '.join(sorted(unknown))}")
    for name in methods:
        decoders.get(name).resolve(settings.get(name))
    return RunRequest(req.prompt, methods, dict(settings), max_new, seed, bool(req.raw))


class _FirstStepClock(LogitsProcessor):
    """Pass-through processor that notes when the first step's logits exist."""

    def __init__(self, sync: Callable[[], None]):
        self.sync = sync
        self.first: float | None = None

    def __call__(self, input_ids, scores):
        if self.first is None:
            self.sync()
            self.first = time.perf_counter()
        return scores


class _TokenQueue(BaseStreamer):
    """Hands new token ids to another thread; decoding happens there, not in the timed loop."""

    def __init__(self) -> None:
        self.q: queue.Queue = queue.Queue()
        self._prompt_seen = False

    def put(self, value: torch.Tensor) -> None:
        if not self._prompt_seen:  # generate first pushes the prompt
            self._prompt_seen = True
            return
        self.q.put(value.reshape(-1).tolist())

    def end(self) -> None:
        self.q.put(None)


def _sync(device: torch.device) -> Callable[[], None]:
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: None


def make_context(lm: LoadedModel, prompt_length: int, max_new_tokens: int, prompt: str = "") -> DecodeContext:
    return DecodeContext(
        tokenizer=lm.tokenizer,
        device=lm.device,
        logits_size=lm.logits_size,
        prompt_length=prompt_length,
        max_new_tokens=max_new_tokens,
        cache_dir=lm.cache_dir,
        model=lm.model,
        prompt=prompt,
    )


def plan_for(lm: LoadedModel, method: str, overrides: Mapping[str, Any] | None, prompt_length: int, max_new_tokens: int,
             prompt: str = "") -> GenerationPlan:
    return decoders.get(method).plan(overrides, make_context(lm, prompt_length, max_new_tokens, prompt))


def _generate(lm: LoadedModel, plan: GenerationPlan, input_ids: torch.Tensor, processors: list, streamer=None) -> torch.Tensor:
    kwargs = dict(plan.generate_kwargs)
    kwargs.setdefault("pad_token_id", lm.tokenizer.pad_token_id)
    generate = plan.custom_generate or lm.model.generate
    return generate(
        input_ids=input_ids,
        attention_mask=torch.ones_like(input_ids),
        logits_processor=LogitsProcessorList(processors),
        streamer=streamer,
        **kwargs,
    )


@gpu_task
def _timed_generate(lm: LoadedModel, plan: GenerationPlan, input_ids: torch.Tensor, seed: int | None, streamer=None) -> tuple[torch.Tensor, float, float, MemoryReading]:
    """Generate once and time it; on ZeroGPU this whole function runs inside `spaces.GPU`,
    so queueing for the GPU happens before the clock starts."""
    sync = _sync(lm.device)
    clock = _FirstStepClock(sync)
    processors = list(plan.logits_processors) + [clock]
    # Memory is reset and read outside the clock: a kernel counter on CPU, allocator stats on CUDA.
    memory = PeakMemory(lm.device).start()
    with torch.inference_mode():
        if seed is not None:
            torch.manual_seed(seed)
        sync()
        start = time.perf_counter()
        output = _generate(lm, plan, input_ids, processors, streamer)
        sync()
        end = time.perf_counter()
    mem = memory.stop()
    first = clock.first if clock.first is not None else end
    return output, (first - start) * 1000, (end - start) * 1000, mem


def warm_up(lm: LoadedModel, method: str, input_ids: torch.Tensor, prompt: str = "") -> None:
    """One short untimed run per method and model: first calls pay for allocations and kernels."""
    if method in lm.warmed:
        return
    plan = plan_for(lm, method, None, input_ids.shape[1], WARMUP_TOKENS, prompt)
    plan.generate_kwargs["max_new_tokens"] = WARMUP_TOKENS
    with torch.inference_mode():
        _generate(lm, plan, input_ids, list(plan.logits_processors))
    lm.warmed.add(method)


def _result(lm: LoadedModel, method: str, plan: GenerationPlan, input_ids: torch.Tensor, output: torch.Tensor,
            ttft: float, latency: float, mem: MemoryReading, seed: int | None) -> MethodResult:
    new_ids = output[0, input_ids.shape[1]:].tolist()
    eos = lm.tokenizer.eos_token_id
    eos_ids = set(eos if isinstance(eos, list) else [eos]) | {lm.tokenizer.pad_token_id}
    # Anything after the first end-of-sequence is padding, not generated text.
    cut = next((i for i, t in enumerate(new_ids) if t in eos_ids), None)
    if cut is not None:
        new_ids = new_ids[: cut + 1]
    finish = "eos" if new_ids and new_ids[-1] in eos_ids else "length"
    text = lm.tokenizer.decode(new_ids, skip_special_tokens=True)
    n = len(new_ids)
    return MethodResult(
        method=method,
        text=text,
        new_tokens=n,
        ttft_ms=round(ttft, 3),
        latency_ms=round(latency, 3),
        tokens_per_s=round(n / (latency / 1000), 3) if latency > 0 else 0.0,
        settings=plan.effective,
        seed=seed,
        prompt_tokens=int(input_ids.shape[1]),
        peak_mem_mb=round(mem.peak_mb, 1) if mem.peak_mb is not None else None,
        finish_reason=finish,
        token_ids=new_ids,
        peak_mem_growth_mb=round(mem.growth_mb, 1) if mem.growth_mb is not None else None,
    )


def run_one(lm: LoadedModel, method: str, input_ids: torch.Tensor, overrides: Mapping[str, Any] | None,
            max_new_tokens: int, seed: int | None, prompt: str = "") -> MethodResult:
    """Warm up (once), then one timed generation. Caller holds `lm.lock`."""
    warm_up(lm, method, input_ids, prompt)
    plan = plan_for(lm, method, overrides, input_ids.shape[1], max_new_tokens, prompt)
    output, ttft, latency, mem = _timed_generate(lm, plan, input_ids, seed)
    return _result(lm, method, plan, input_ids, output, ttft, latency, mem, seed)


def encode(lm: LoadedModel, req: RunRequest) -> torch.Tensor:
    return encode_prompt(lm.tokenizer, req.prompt, req.raw, lm.device, lm.context_length, req.max_new_tokens)


def run_methods(lm: LoadedModel, req: RunRequest) -> list[MethodResult]:
    """Run every requested method on the same prompt, one after another."""
    req = validate_request(req)
    input_ids = encode(lm, req)
    with lm.lock:
        return [run_one(lm, m, input_ids, req.settings.get(m), req.max_new_tokens, req.seed, req.prompt) for m in req.methods]


@dataclass
class StreamEvent:
    """`text` so far for `method`; `result` is set once that method has finished."""

    method: str
    text: str
    result: MethodResult | None = None


def stream_methods(lm: LoadedModel, req: RunRequest, interval_s: float = 0.05) -> Iterator[StreamEvent]:
    """Like `run_methods`, yielding partial texts while each method generates.

    Methods that cannot stream (beam search), and every method on ZeroGPU, arrive whole.
    The generating thread only queues token ids; decoding for display happens here.
    """
    req = validate_request(req)
    input_ids = encode(lm, req)
    with lm.lock:
        for method in req.methods:
            if not (decoders.get(method).streams and streaming_supported()):
                result = run_one(lm, method, input_ids, req.settings.get(method), req.max_new_tokens, req.seed, req.prompt)
                yield StreamEvent(method, result.text, result)
                continue
            warm_up(lm, method, input_ids, req.prompt)
            plan = plan_for(lm, method, req.settings.get(method), input_ids.shape[1], req.max_new_tokens, req.prompt)
            streamer = _TokenQueue()
            box: dict[str, Any] = {}

            def work() -> None:
                try:
                    box["out"] = _timed_generate(lm, plan, input_ids, req.seed, streamer)
                except BaseException as exc:  # surfaced to the caller below
                    box["error"] = exc
                    streamer.end()

            worker = threading.Thread(target=work, daemon=True)
            worker.start()
            ids: list[int] = []
            done = False
            while not done:
                try:
                    chunk = streamer.q.get(timeout=interval_s)
                except queue.Empty:
                    continue
                while chunk is not None:
                    ids.extend(chunk)
                    try:
                        chunk = streamer.q.get_nowait()
                    except queue.Empty:
                        break
                done = chunk is None
                yield StreamEvent(method, lm.tokenizer.decode(ids, skip_special_tokens=True))
            worker.join()
            if "error" in box:
                raise box["error"]
            output, ttft, latency, mem = box["out"]
            result = _result(lm, method, plan, input_ids, output, ttft, latency, mem, req.seed)
            yield StreamEvent(method, result.text, result)


def environment() -> dict[str, str]:
    return {"torch": torch.__version__, "threads": str(torch.get_num_threads()), "pid": str(os.getpid())}
