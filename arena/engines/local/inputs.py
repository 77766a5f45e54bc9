"""What goes into one in-process generation: the prompt's token ids and the method's plan."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

import decoders
from decoders import GenerationPlan

from ...llm import LoadedModel, decode_context
from ...prompts import encode_prompt
from ...requests import RunRequest


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


def encode_ids(lm: LoadedModel, req: RunRequest) -> list[int]:
    """The prompt's token ids as a plain list, encoded on the CPU (what crosses into a GPU task)."""
    ids = encode_prompt(lm.tokenizer, req.prompt, req.raw, torch.device("cpu"), lm.context_length, req.max_new_tokens)
    return [int(t) for t in ids[0].tolist()]


def device_ids(lm: LoadedModel, prompt_ids: list[int]) -> torch.Tensor:
    """Plain token ids (what a GPU task receives) as a batch of one on the model's device."""
    return torch.tensor([list(prompt_ids)], dtype=torch.long, device=lm.device)
