"""Batched generation for studies: several prompts of one method in one `generate` call.

Rows are left-padded to the longest prompt, with an attention mask, so every row's new tokens
start at the same position (which the processors that look at "generated tokens only" rely on);
each row stops at its own end-of-sequence (generate pads finished rows, and we cut there).

What a seed reproduces here: one seed drives the whole batch (`torch.manual_seed` before the call),
so a batched output comes back identically only when the same prompts are generated again in the
same batch, with the same batch size, dtype, device and library versions. A single output cannot be
regenerated alone from its stored seed; an output generated at batch size 1 can (as in Compare).

Batching is for throughput: a batch has one wall time, not one per output, so batched outputs carry
no latency, time to first token or tokens/s. `arena.studies` times one output per method at batch
size 1 (the study's speed figures come from those) and batches the rest (arena/engines/local/study.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from transformers import LogitsProcessorList

import decoders
from arena.model.llm import LoadedModel, end_ids, lookup
from arena.model.zerogpu import duration_s, gpu_task
from arena.runs.whole_text import decode_whole, with_trim

from .compiled import compiled_kwargs
from .device import device_generate_kwargs
from .inputs import plan_for


@dataclass(frozen=True)
class BatchRow:
    text: str
    token_ids: list[int]
    new_tokens: int
    finish_reason: str  # "eos" or "length"
    settings: dict[str, Any]


def plan_key(
    lm: LoadedModel, method: str, overrides: Mapping[str, Any] | None, prompt: str, max_new_tokens: int
) -> str | None:
    """Prompts with the same key may share a batch: their plans are the same (Routed plans from the
    prompt's text, so only prompts routed alike share one). None: the method has its own step loop
    (Multi-Arm) or `generate` takes one sequence at a time (Prompt-Lookup): one prompt at a time."""
    plan = plan_for(lm, method, overrides, 1, max_new_tokens, prompt)
    if plan.custom_generate is not None or not plan.batchable:
        return None
    return json.dumps(plan.effective, sort_keys=True, default=str)


def eos_ids(lm: LoadedModel) -> frozenset[int]:
    return end_ids(lm.tokenizer)


def left_pad(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(input_ids, attention_mask), both (len(rows), longest), padding on the left."""
    width = max(len(r) for r in rows)
    ids = [[pad_id] * (width - len(r)) + list(r) for r in rows]
    mask = [[0] * (width - len(r)) + [1] * len(r) for r in rows]
    return torch.tensor(ids, dtype=torch.long), torch.tensor(mask, dtype=torch.long)


def batch_duration(
    key: str,
    method: str,
    overrides: Mapping[str, Any] | None,
    prompts_ids: list[list[int]],
    max_new_tokens: int,
    seed: int,
    prompt: str = "",
) -> int:
    return duration_s(max_new_tokens, 1, 0 if decoders.get(method).streams else 1)


@gpu_task(duration=batch_duration)
def gpu_batch(
    key: str,
    method: str,
    overrides: Mapping[str, Any] | None,
    prompts_ids: list[list[int]],
    max_new_tokens: int,
    seed: int,
    prompt: str = "",
) -> list[dict[str, Any]]:
    """One method over several prompts in one call; plain data in and out (a ZeroGPU task on Spaces).
    `prompt` is the first prompt's text, for decoders that plan from it (Routed): the caller batches
    only prompts whose plans agree."""
    lm = lookup(key)
    pad_id = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else min(eos_ids(lm))
    input_ids, mask = left_pad(prompts_ids, pad_id)
    input_ids, mask = input_ids.to(lm.device), mask.to(lm.device)
    plan = plan_for(lm, method, overrides, input_ids.shape[1], max_new_tokens, prompt)
    # as one run alone: a batch of one matches it. A method with its own loop (Multi-Arm, Contrastive,
    # DoLa) comes here one prompt at a time (plan_key) and runs that loop, as generate_once does.
    generate = plan.custom_generate or lm.model.generate
    kwargs = dict(plan.generate_kwargs)
    if plan.custom_generate is None:
        length = int(input_ids.shape[1]) + int(kwargs.get("max_new_tokens") or 0)
        kwargs = {**device_generate_kwargs(lm.device), **compiled_kwargs(lm, length), **kwargs}
    kwargs.setdefault("pad_token_id", pad_id)
    with torch.inference_mode():
        torch.manual_seed(int(seed))
        output = generate(
            input_ids=input_ids,
            attention_mask=mask,
            logits_processor=LogitsProcessorList(plan.logits_processors),
            **kwargs,
        )
    stop = eos_ids(lm)
    rows = []
    for row in output[:, input_ids.shape[1] :].tolist():
        cut = next((i for i, t in enumerate(row) if t in stop), None)
        new = row if cut is None else row[: cut + 1]
        finish = "eos" if new and new[-1] in stop else "length"
        text, dropped = decode_whole(lm.tokenizer, new)
        rows.append(
            {
                "text": text,
                "token_ids": [int(t) for t in new],
                "new_tokens": len(new),
                "finish_reason": finish,
                "settings": with_trim(plan.effective, dropped),
            }
        )
    return rows


def generate_batch(
    lm: LoadedModel,
    method: str,
    overrides: Mapping[str, Any] | None,
    prompts_ids: Sequence[Sequence[int]],
    max_new_tokens: int,
    seed: int,
    prompt: str = "",
) -> list[BatchRow]:
    """Generate one output per prompt (token ids) with `method`, holding the model's lock."""
    with lm.lock:
        rows = gpu_batch(
            lm.key,
            method,
            dict(overrides or {}),
            [list(map(int, p)) for p in prompts_ids],
            int(max_new_tokens),
            int(seed),
            prompt,
        )
    return [BatchRow(**r) for r in rows]
