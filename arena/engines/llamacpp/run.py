"""One method on one prompt on llama.cpp: its plan, a warm-up, the timed run, and its result.

Everything here runs on the thread that runs llama.cpp (the app's compute thread, or the caller
where none serves) and holds the runtime's lock. Rules that make the numbers comparable with the
in-process engine's (arena/engines/local/generate.py): every method is warmed up once per model
before its first timed run (a few untimed tokens); the prompt is encoded by the app's tokenizer,
exactly as for the other engines; the result is cut at the first end token.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

import torch

from arena.model.llm import LoadedModel, end_ids
from arena.model.memory import PeakMemory
from arena.runs.requests import MethodResult
from arena.runs.whole_text import decode_whole, with_trim

from .beams import beam_tokens
from .generate import Timed, sample_tokens
from .runtime import VERSION, Runtime
from .sampling import sampler_seed
from .translate import EnginePlan, model_defaults, plan_on_engine, translate
from .weights import info

WARMUP_TOKENS = 4


def eos_ids(lm: LoadedModel) -> tuple[int, ...]:
    """The end ids `generate` stops at: the model's generation_config's, else the tokenizer's."""
    config = getattr(getattr(lm, "model", None), "generation_config", None)
    eos = getattr(config, "eos_token_id", None)
    if eos is None:
        eos = lm.tokenizer.eos_token_id
    ids = eos if isinstance(eos, (list, tuple)) else [eos]
    return tuple(int(i) for i in ids if i is not None)


def method_plan(
    lm: LoadedModel,
    method: str,
    overrides: Mapping[str, Any] | None,
    prompt_length: int,
    max_new_tokens: int,
    prompt: str = "",
) -> EnginePlan:
    """The method's plan as llama.cpp runs it, or `UserError` (translate.py)."""
    plan = plan_on_engine(lm, method, overrides, prompt_length, max_new_tokens, prompt)
    return translate(method, plan, eos_ids(lm), model_defaults(lm))


def generate(
    rt: Runtime,
    lm: LoadedModel,
    plan: EnginePlan,
    prompt_ids: list[int],
    seed: int | None,
    max_new_tokens: int,
    on_token: Callable[[int], None] | None = None,
    cancel: threading.Event | None = None,
    record: bool = False,
) -> Timed:
    if plan.beams is not None:
        return beam_tokens(rt, plan, prompt_ids, max_new_tokens, cancel, record)
    if seed is not None:  # a hook that draws (torch's generator, as in process) replays with its seed too
        torch.manual_seed(seed)
    stops = frozenset(plan.eos_ids) | end_ids(lm.tokenizer)
    return sample_tokens(rt, plan, prompt_ids, seed, max_new_tokens, stops, on_token, cancel, record)


def warm_up(rt: Runtime, lm: LoadedModel, method: str, prompt_ids: list[int], prompt: str) -> None:
    """One short untimed run per method and model: the first decodes allocate llama.cpp's buffers."""
    if method in rt.warmed:
        return
    plan = method_plan(lm, method, None, len(prompt_ids), WARMUP_TOKENS, prompt)
    generate(rt, lm, plan, prompt_ids, 0, WARMUP_TOKENS)
    rt.warmed.add(method)


def engine_settings(rt: Runtime, plan: EnginePlan, seed: int | None) -> dict[str, Any]:
    """What the stored settings say about where and how the output was made."""
    gguf = info(rt.path)
    hooks = plan.stages[: len(plan.hooks)]
    natives = [s.name for s in plan.natives]
    out: dict[str, Any] = {
        "engine": {
            "name": "llamacpp",
            "library": f"llama-cpp-python {VERSION}",
            "gguf": gguf.path.name,
            "weights": f"GGUF {gguf.quant}",
            "threads": rt.threads,
        },
        "engine_stages": {"python (transformers processors)": hooks, "llama.cpp samplers": natives},
        "timing": {"measured": "on the llama.cpp thread: prompt read to last token chosen; warm-up untimed"},
    }
    if plan.sample:
        out["sampler_seed"] = f"llama.cpp dist seed {sampler_seed(seed)} (the run's seed mod 2^32-1)"
    if plan.beams is not None:
        out["engine_stages"]["beam search"] = (
            "this engine's own, transformers 5.24's rules (arena/engines/llamacpp/beams.py)"
        )
    return out


def run_method(
    rt: Runtime,
    lm: LoadedModel,
    method: str,
    prompt_ids: list[int],
    overrides: Mapping[str, Any] | None,
    max_new_tokens: int,
    seed: int | None,
    prompt: str = "",
    on_token: Callable[[int], None] | None = None,
    cancel: threading.Event | None = None,
    record: bool = False,
) -> MethodResult:
    """Warm up (once), then one timed run; the caller holds `rt.lock` on the llama.cpp thread."""
    warm_up(rt, lm, method, prompt_ids, prompt)
    plan = method_plan(lm, method, overrides, len(prompt_ids), max_new_tokens, prompt)
    memory = PeakMemory("cpu").start()
    timed = generate(rt, lm, plan, prompt_ids, seed, max_new_tokens, on_token, cancel, record)
    mem = memory.stop()
    ends = end_ids(lm.tokenizer)
    tokens = timed.tokens
    cut = next((i for i, t in enumerate(tokens) if t in ends), None)
    if cut is not None:
        tokens = tokens[: cut + 1]
    n = len(tokens)
    text, dropped = decode_whole(lm.tokenizer, tokens)
    weights = f"GGUF {info(rt.path).quant}"
    return MethodResult(
        method=method,
        text=text,
        new_tokens=n,
        ttft_ms=round(timed.ttft_ms, 3),
        latency_ms=round(timed.latency_ms, 3),
        tokens_per_s=round(n / (timed.latency_ms / 1000), 3) if timed.latency_ms > 0 else 0.0,
        settings=with_trim({**plan.effective, **engine_settings(rt, plan, seed)}, dropped),
        seed=seed,
        prompt_tokens=len(prompt_ids),
        peak_mem_mb=round(mem.peak_mb, 1) if mem.peak_mb is not None else None,
        finish_reason="eos" if tokens and tokens[-1] in ends else "length",
        token_ids=[int(t) for t in tokens],
        peak_mem_growth_mb=round(mem.growth_mb, 1) if mem.growth_mb is not None else None,
        dtype=weights,
        record=timed.record,
    )
