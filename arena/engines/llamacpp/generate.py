"""One timed generation on llama.cpp: sampling or greedy, one token at a time (beam search: beams.py).

The clock starts before the prompt is read and stops when the last token is chosen, on the thread
that runs llama.cpp; time to first token is when the first step's logits exist (prompt read, one
forward pass), as the in-process engine measures it. Building the samplers and sizing the context
happen before the clock. A set `cancel` ends the run at the next token.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from .runtime import Runtime
from .sampling import Sampler
from .translate import EnginePlan


@dataclass
class Timed:
    """What a run produced: its new tokens (up to and including an end token), its timing, why it
    ended ("eos" or "length"), and what the token view recorded (None unless asked)."""

    tokens: list[int]
    ttft_ms: float
    latency_ms: float
    finish: str
    record: dict[str, Any] | None = None


def sample_tokens(
    rt: Runtime,
    plan: EnginePlan,
    prompt: list[int],
    seed: int | None,
    max_new: int,
    stop_ids: frozenset[int],
    on_token: Callable[[int], None] | None = None,
    cancel: threading.Event | None = None,
    record: bool = False,
) -> Timed:
    """Generate up to `max_new` tokens after `prompt`; the caller holds `rt.lock` on the compute thread."""
    length = len(prompt)
    rt.reserve(length + max_new + 1)
    rt.clear()
    sampler = Sampler(rt, plan, seed, prompt, max_new, record)
    sequence = torch.zeros((1, length + max_new), dtype=torch.long)
    sequence[0, :length] = torch.tensor(prompt, dtype=torch.long)
    out: list[int] = []
    try:
        start = time.perf_counter()
        logits = rt.prefill(prompt)
        first = time.perf_counter()
        while True:
            token = sampler.choose(logits, sequence[:, : length + len(out)])
            sequence[0, length + len(out)] = token
            out.append(token)
            if on_token is not None:
                on_token(token)
            if token in stop_ids or len(out) >= max_new or (cancel is not None and cancel.is_set()):
                break
            logits = rt.step([token], length + len(out) - 1, [0])[0]
        end = time.perf_counter()
    finally:
        sampler.close()
    finish = "eos" if out and out[-1] in stop_ids else "length"
    recorded = sampler.record.finish(len(out)) if sampler.record is not None else None
    return Timed(out, (first - start) * 1000, (end - start) * 1000, finish, recorded)
