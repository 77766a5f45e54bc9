"""The generation runner: one prompt, the chosen methods one after another, honest timing.

Rules that make the numbers comparable:
  * methods run sequentially under the model's lock, never two on one device at once;
  * every method is warmed up once per loaded model before its first timed run;
  * `torch.inference_mode`, and CUDA is synchronised before each clock read;
  * seed S means `torch.manual_seed(S)` immediately before that method's `generate`.

GPU work goes through plain-data functions defined at import time (`gpu_run`, `gpu_stream`,
`gpu_trace`): a model key, method names, settings, token ids as a list, seed, max_new_tokens in;
dicts, lists and numbers out. On ZeroGPU each is a `spaces.GPU` task (a generator one for
streaming) that warms up and times inside the task; elsewhere they run in-process unchanged.

Cancelling (Stop, a client that leaves): a `threading.Event` checked by a stopping criterion ends
generation at the next token; the model's lock is released only after the generating thread ended.

Time to first token is the moment the first step's logits reach the processors, i.e. prefill
plus one forward pass, read by a pass-through processor. For beam search this is when the first
step's candidates exist (beam search commits to its text only at the end).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from transformers import LogitsProcessor, LogitsProcessorList, StoppingCriteria, StoppingCriteriaList
from transformers.generation.streamers import BaseStreamer

import decoders
from decoders import DecodeContext, GenerationPlan

from . import compute, reserved
from .engines import current_engine
from .errors import UserError
from .llm import LoadedModel, end_ids, lookup
from .memory import MemoryReading, PeakMemory
from .numbers import whole_number
from .prompts import encode_prompt
from .settings import current as current_settings
from .settings import env_of
from .zerogpu import duration_s, gpu_task, on_zero_gpu

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
    dtype: str = ""  # the model's dtype during this run (float32, bfloat16, float16)

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
    max_new = whole_number(req.max_new_tokens, "max_new_tokens", *MAX_NEW_TOKENS_RANGE)
    seed = None if req.seed is None else whole_number(req.seed, "seed", 0, 2**63 - 1)
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


def plan_for(
    lm: LoadedModel,
    method: str,
    overrides: Mapping[str, Any] | None,
    prompt_length: int,
    max_new_tokens: int,
    prompt: str = "",
) -> GenerationPlan:
    return decoders.get(method).plan(overrides, make_context(lm, prompt_length, max_new_tokens, prompt))


class Cancelled(Exception):
    """The run was stopped (Stop button, client gone) before it finished."""


class _CancelCriteria(StoppingCriteria):
    """Ends `generate` at the next token once the event is set (every row done)."""

    def __init__(self, event: threading.Event):
        self.event = event

    def __call__(self, input_ids, scores, **kwargs):
        return torch.full((input_ids.shape[0],), self.event.is_set(), dtype=torch.bool, device=input_ids.device)


class _CancelCheck(LogitsProcessor):
    """The same for decoders with their own step loop (custom_generate): raises at the next step."""

    def __init__(self, event: threading.Event):
        self.event = event

    def __call__(self, input_ids, scores):
        if self.event.is_set():
            raise Cancelled("stopped")
        return scores


COMPILE_ENV = env_of("compile")


def compile_enabled(value: str | None = None) -> bool:
    """`ARENA_COMPILE` (default off): 1/true/yes/on lets `generate` torch.compile the forward pass on CUDA."""
    raw = (current_settings().compile if value is None else value).strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    raise UserError(f"{COMPILE_ENV} must be 0 or 1 (or true/false, yes/no, on/off), not {raw!r}")


def device_generate_kwargs(device: torch.device) -> dict[str, Any]:
    """What `generate` gets on this device on top of a plan's settings (which win where both say).

    On CUDA a static KV cache: allocated once per call at its full length, so no decode step
    reallocates and grows the cache, and the step is a fixed-shape graph that can be compiled.
    transformers compiles the forward pass on its own whenever the cache is static on CUDA; a
    compile takes tens of seconds for each new shape, so it waits behind `ARENA_COMPILE` (default
    off, measured by benchmarks/gpu_check.sh). On CPU nothing changes: there is no compile, and the
    static cache spends its time on attention over the whole preallocated length."""
    if device.type != "cuda":
        return {}
    return {"cache_implementation": "static", "disable_compile": not compile_enabled()}


def _generate(
    lm: LoadedModel,
    plan: GenerationPlan,
    input_ids: torch.Tensor,
    processors: list,
    streamer=None,
    cancel: threading.Event | None = None,
) -> torch.Tensor:
    kwargs = dict(plan.generate_kwargs)
    kwargs.setdefault("pad_token_id", lm.tokenizer.pad_token_id)
    if plan.custom_generate is None:  # a custom loop (Multi-arm) manages its own cache
        kwargs = {**device_generate_kwargs(lm.device), **kwargs}
    generate = plan.custom_generate or lm.model.generate
    if cancel is not None:
        if plan.custom_generate is None:
            kwargs["stopping_criteria"] = StoppingCriteriaList([_CancelCriteria(cancel)])
        else:
            processors = list(processors) + [_CancelCheck(cancel)]
    return generate(
        input_ids=input_ids,
        attention_mask=torch.ones_like(input_ids),
        logits_processor=LogitsProcessorList(processors),
        streamer=streamer,
        **kwargs,
    )


def _timed_generate(
    lm: LoadedModel,
    plan: GenerationPlan,
    input_ids: torch.Tensor,
    seed: int | None,
    streamer=None,
    cancel: threading.Event | None = None,
) -> tuple[torch.Tensor, float, float, MemoryReading]:
    """Generate once and time it. Runs inside the GPU task (on ZeroGPU a `spaces.GPU` worker), so
    queueing for the GPU happens before the clock starts."""
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
        output = _generate(lm, plan, input_ids, processors, streamer, cancel)
        sync()
        end = time.perf_counter()
    mem = memory.stop()
    first = clock.first if clock.first is not None else end
    return output, (first - start) * 1000, (end - start) * 1000, mem


def warm_up(lm: LoadedModel, method: str, input_ids: torch.Tensor, prompt: str = "") -> None:
    """One short untimed run per method and model, on the device that times it (inside the GPU task):
    first calls pay for allocations and kernels."""
    if method in lm.warmed:
        return
    plan = plan_for(lm, method, None, input_ids.shape[1], WARMUP_TOKENS, prompt)
    plan.generate_kwargs["max_new_tokens"] = WARMUP_TOKENS
    with torch.inference_mode():
        _generate(lm, plan, input_ids, list(plan.logits_processors))
    lm.warmed.add(method)


def _result(
    lm: LoadedModel,
    method: str,
    plan: GenerationPlan,
    input_ids: torch.Tensor,
    output: torch.Tensor,
    ttft: float,
    latency: float,
    mem: MemoryReading,
    seed: int | None,
) -> MethodResult:
    new_ids = output[0, input_ids.shape[1] :].tolist()
    eos_ids = end_ids(lm.tokenizer)
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
        token_ids=[int(t) for t in new_ids],
        peak_mem_growth_mb=round(mem.growth_mb, 1) if mem.growth_mb is not None else None,
        dtype=lm.dtype_name,
    )


def run_one(
    lm: LoadedModel,
    method: str,
    input_ids: torch.Tensor,
    overrides: Mapping[str, Any] | None,
    max_new_tokens: int,
    seed: int | None,
    prompt: str = "",
    cancel: threading.Event | None = None,
) -> MethodResult:
    """Warm up (once), then one timed generation, in this process. Caller holds `lm.lock`."""
    return _run_planned(lm, method, input_ids, overrides, max_new_tokens, seed, prompt, cancel)[0]


def _run_planned(
    lm: LoadedModel,
    method: str,
    input_ids: torch.Tensor,
    overrides: Mapping[str, Any] | None,
    max_new_tokens: int,
    seed: int | None,
    prompt: str = "",
    cancel: threading.Event | None = None,
) -> tuple[MethodResult, GenerationPlan]:
    """`run_one`, and the plan that ran (the trace reads what its custom loop recorded)."""
    warm_up(lm, method, input_ids, prompt)
    plan = plan_for(lm, method, overrides, input_ids.shape[1], max_new_tokens, prompt)
    output, ttft, latency, mem = _timed_generate(lm, plan, input_ids, seed, cancel=cancel)
    if cancel is not None and cancel.is_set():
        raise Cancelled(f"{method} was stopped")
    return _result(lm, method, plan, input_ids, output, ttft, latency, mem, seed), plan


def encode(lm: LoadedModel, req: RunRequest) -> torch.Tensor:
    return encode_prompt(lm.tokenizer, req.prompt, req.raw, lm.device, lm.context_length, req.max_new_tokens)


def encode_ids(lm: LoadedModel, req: RunRequest) -> list[int]:
    """The prompt's token ids as a plain list, encoded on the CPU (what crosses into a GPU task)."""
    ids = encode_prompt(lm.tokenizer, req.prompt, req.raw, torch.device("cpu"), lm.context_length, req.max_new_tokens)
    return [int(t) for t in ids[0].tolist()]


def run_order(methods: list[str]) -> list[str]:
    """Compare's order: methods that stream first (something to read soon), beam search and other
    whole-output methods last; otherwise as chosen."""
    return sorted(methods, key=lambda m: 0 if decoders.get(m).streams else 1)


# -- the GPU functions: plain data in, plain data out ------------------------------------------------


def _beams(methods: list[str]) -> int:
    return sum(1 for m in methods if not decoders.get(m).streams)


def _run_duration(
    key: str,
    methods: list[str],
    settings: dict,
    prompt_ids: list[int],
    seed: int | None,
    max_new_tokens: int,
    prompt: str = "",
    cancel: Any = None,
) -> int:
    return duration_s(max_new_tokens, len(methods), _beams(methods))


def _device_ids(lm: LoadedModel, prompt_ids: list[int]) -> torch.Tensor:
    return torch.tensor([list(prompt_ids)], dtype=torch.long, device=lm.device)


def _events(
    lm: LoadedModel,
    methods: list[str],
    settings: Mapping[str, Any],
    prompt_ids: list[int],
    seed: int | None,
    max_new_tokens: int,
    prompt: str,
    cancel: threading.Event,
    interval_s: float = 0.05,
) -> Iterator[tuple]:
    """Run each method in a generating thread; yield ("start", method, i, n), ("tokens", method,
    [ids]) while it streams, ("tick",) while nothing arrives, ("done", method, result dict). The
    thread only queues token ids. Closing this generator sets `cancel` and waits for the thread."""
    input_ids = _device_ids(lm, prompt_ids)
    try:
        for i, method in enumerate(methods, start=1):
            yield ("start", method, i, len(methods))
            streamer = _TokenQueue() if decoders.get(method).streams else None
            box: dict[str, Any] = {}
            finished = threading.Event()

            def work() -> None:
                # warm-up and plan here too: all model work on one thread (arena/compute.py)
                try:
                    warm_up(lm, method, input_ids, prompt)
                    box["plan"] = plan_for(lm, method, settings.get(method), input_ids.shape[1], max_new_tokens, prompt)
                    box["out"] = _timed_generate(lm, box["plan"], input_ids, seed, streamer, cancel)
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
            result = _result(lm, method, box["plan"], input_ids, output, ttft, latency, mem, seed)
            yield ("done", method, _plain_result(result))
    finally:
        cancel.set()  # nothing may go on generating once the consumer has gone


def _plain_result(result: MethodResult) -> dict[str, Any]:
    out = asdict(result)
    out["token_ids"] = list(result.token_ids)
    return out


@gpu_task(duration=_run_duration)
def gpu_run(
    key: str,
    methods: list[str],
    settings: dict,
    prompt_ids: list[int],
    seed: int | None,
    max_new_tokens: int,
    prompt: str = "",
    cancel: threading.Event | None = None,
) -> list[dict[str, Any]]:
    """Every method on one prompt, one after another, in one GPU task; one result dict each."""
    lm = lookup(key)
    input_ids = _device_ids(lm, prompt_ids)
    out = []
    for m in methods:
        out.append(_plain_result(run_one(lm, m, input_ids, settings.get(m), max_new_tokens, seed, prompt, cancel)))
    return out


@gpu_task(duration=_run_duration)
def gpu_stream(
    key: str,
    methods: list[str],
    settings: dict,
    prompt_ids: list[int],
    seed: int | None,
    max_new_tokens: int,
    prompt: str = "",
    cancel: threading.Event | None = None,
) -> Iterator[tuple]:
    """The streaming variant: a generator (on ZeroGPU a generator GPU task, whose values `spaces`
    sends out of the worker as they come; closing it stops the worker's generator)."""
    lm = lookup(key)
    yield from _events(
        lm,
        methods,
        settings,
        prompt_ids,
        seed,
        max_new_tokens,
        prompt,
        cancel if cancel is not None else threading.Event(),
    )


def _task_cancel(cancel: threading.Event | None) -> threading.Event | None:
    # A threading.Event cannot be pickled into a ZeroGPU worker: there, closing the generator stops it.
    return None if on_zero_gpu() else cancel


def run_methods(lm: LoadedModel, req: RunRequest, cancel: threading.Event | None = None) -> list[MethodResult]:
    """Run every requested method on the same prompt, one after another (in the order given)."""
    engine = current_engine()
    if engine is not None:  # ARENA_ENGINE=vllm: on the server (arena/engines)
        return engine.run_methods(lm, req, cancel)
    req = validate_request(req)
    prompt_ids = encode_ids(lm, req)
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
            _task_cancel(cancel),
        )
    return [MethodResult(**r) for r in results]


@dataclass
class StreamEvent:
    """`text` so far for `method`; `result` is set once that method has finished. `position` of
    `total` says which method is running (Compare's status line)."""

    method: str
    text: str
    result: MethodResult | None = None
    position: int = 0
    total: int = 0


def stream_methods(
    lm: LoadedModel,
    req: RunRequest,
    interval_s: float = 0.05,
    cancel: threading.Event | None = None,
    ticks: bool = False,
) -> Iterator[StreamEvent]:
    """Like `run_methods`, yielding partial texts while each method generates. Methods that stream
    run first, beam search last. Token ids come out of the GPU task; decoding for display happens
    here. Setting `cancel`, or closing this generator (Gradio does when a client leaves or presses
    Stop), ends generation at the next token; the lock is released after the generator stopped.
    `ticks`: also yield the current state every ~0.25 s while nothing new arrives (beam search), so
    a caller that must yield to notice it was abandoned (a Gradio handler) gets the chance."""
    reserved.admit(lm, req.prompt, req.raw)  # Compare's run: a study's prompt is refused here
    engine = current_engine()
    if engine is not None:  # ARENA_ENGINE=vllm: streamed from the server (arena/engines)
        yield from engine.stream_methods(lm, req, interval_s, cancel, ticks)
        return
    req = validate_request(req)
    prompt_ids = encode_ids(lm, req)
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
            _task_cancel(cancel),
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
                    text = lm.tokenizer.decode(ids, skip_special_tokens=True)
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


# -- the Multi-arm trace ---------------------------------------------------------------------------


def _trace_duration(
    key: str, prompt_ids: list[int], overrides: dict | None, seed: int | None, max_new_tokens: int, prompt: str = ""
) -> int:
    return duration_s(max_new_tokens * 3, 1)  # three arms per step


@gpu_task(duration=_trace_duration)
def gpu_trace(
    key: str,
    prompt_ids: list[int],
    overrides: dict | None,
    seed: int | None,
    max_new_tokens: int,
    prompt: str = "",
    method: str = "Multi-Arm",
) -> dict[str, Any]:
    """One Multi-Arm generation with its trace, in one GPU task, through the same warm-up, timed
    generation and result as Compare (`run_one`): the result as plain data, its answer token ids,
    the trace as a dict of plain values, and the effective settings."""
    lm = lookup(key)
    result, plan = _run_planned(lm, method, _device_ids(lm, prompt_ids), overrides, max_new_tokens, seed, prompt)
    loop: Any = plan.custom_generate  # Multi-Arm's own loop, which keeps the trace of its last call
    return {
        "result": _plain_result(result),
        "token_ids": list(result.token_ids),
        "trace": loop.last_trace.as_dict(),
        "settings": result.settings,
    }


def run_trace(lm: LoadedModel, req: RunRequest) -> dict[str, Any]:
    """The trace tab's Multi-Arm run: admitted as Compare's (a study's prompt is refused), then
    `gpu_trace` under the model's lock."""
    req = validate_request(req)
    reserved.admit(lm, req.prompt, req.raw)
    prompt_ids = encode_ids(lm, req)
    with lm.lock:
        return gpu_trace(lm.key, prompt_ids, req.settings.get("Multi-Arm"), req.seed, req.max_new_tokens, req.prompt)


def environment() -> dict[str, str]:
    return {"torch": torch.__version__, "threads": str(torch.get_num_threads()), "pid": str(os.getpid())}
