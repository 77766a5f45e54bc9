"""What goes into one in-process generation: the prompt's token ids and the method's plan."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

import decoders
from arena.inputs.prompts import encode_prompt
from arena.model.llm import LoadedModel, decode_context
from arena.runs.requests import RunRequest, instruction_for
from decoders import GenerationPlan


def plan_for(
    lm: LoadedModel,
    method: str,
    overrides: Mapping[str, Any] | None,
    prompt_length: int,
    max_new_tokens: int,
    prompt: str = "",
) -> GenerationPlan:
    return decoders.get(method).plan(overrides, decode_context(lm, prompt_length, max_new_tokens, prompt))


def encode(lm: LoadedModel, req: RunRequest) -> torch.Tensor:
    return encode_prompt(lm.tokenizer, req.prompt, req.raw, lm.device, lm.context_length, req.max_new_tokens)


def encode_ids(lm: LoadedModel, req: RunRequest, method: str | None = None) -> list[int]:
    """The prompt's token ids as a plain list, encoded on the CPU (what crosses into a GPU task);
    with `method`, as that method reads it (its instruction included, `instruction_for`)."""
    instruction = instruction_for(req, method) if method is not None else ""
    ids = encode_prompt(
        lm.tokenizer, req.prompt, req.raw, torch.device("cpu"), lm.context_length, req.max_new_tokens, instruction
    )
    return [int(t) for t in ids[0].tolist()]


PromptIds = list[int] | Mapping[str, list[int]]  # one prompt for every method, or one per method


def method_ids(lm: LoadedModel, req: RunRequest) -> PromptIds:
    """What the GPU tasks get: the shared prompt ids, or, when a method adds an instruction to the
    prompt, each method's own ids. Perplexity is scored on the user's prompt, without the
    instruction (evaluation/perplexity.py), so every method's text is scored in the same context."""
    shared = encode_ids(lm, req)
    if not any(instruction_for(req, m) for m in req.methods):
        return shared
    return {m: encode_ids(lm, req, m) if instruction_for(req, m) else shared for m in req.methods}


def ids_for(prompt_ids: PromptIds, method: str) -> list[int]:
    """The prompt ids `method` reads, from what a GPU task received (`method_ids`)."""
    return list(prompt_ids[method]) if isinstance(prompt_ids, Mapping) else list(prompt_ids)


def device_ids(lm: LoadedModel, prompt_ids: list[int]) -> torch.Tensor:
    """Plain token ids (what a GPU task receives) as a batch of one on the model's device."""
    return torch.tensor([list(prompt_ids)], dtype=torch.long, device=lm.device)
