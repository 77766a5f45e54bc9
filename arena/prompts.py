"""Prompts: the article's scenarios, validation, and turning text into input ids."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import torch

from .errors import UserError


@dataclass(frozen=True)
class Scenario:
    key: str
    language: str
    prompt: str
    raw: bool = False  # the long continuation is a text to continue, not a chat turn


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("short-qa", "zh", "解释一下量子计算的基本原理。"),
    Scenario("letter", "zh", "给一位帮助过你的同事写一封感谢信，要真诚、具体。"),
    Scenario(
        "sci-fi",
        "zh",
        "在那个被遗忘的星际港口，生锈的飞船骨架像巨兽的骨骸般林立。我穿着破旧的太空服，走在",
        raw=True,
    ),
    Scenario("short-qa", "en", "Explain the basic principles of quantum computing."),
    Scenario(
        "letter",
        "en",
        "Write a thank-you letter to a colleague who helped you. Make it sincere and specific.",
    ),
    Scenario(
        "sci-fi",
        "en",
        "In that forgotten interstellar port, the rusted skeletons of starships stood like the "
        "bones of giant beasts. In my worn-out spacesuit, I walked",
        raw=True,
    ),
)

MAX_PROMPT_CHARS = 100_000


def clean_prompt(prompt: object) -> str:
    """Validate a prompt: text, not blank, no control characters beyond tab and newline."""
    if not isinstance(prompt, str):
        raise UserError("the prompt must be text")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise UserError(f"the prompt has {len(prompt):,} characters; the limit is {MAX_PROMPT_CHARS:,}")
    # Control characters are invisible to the user and confuse tokenizers; drop them, keep layout.
    cleaned = "".join(
        ch for ch in prompt if ch in "\t\n" or unicodedata.category(ch) not in ("Cc", "Cs")
    )
    if not cleaned.strip():
        raise UserError("the prompt is empty; type a question or a text to continue")
    return cleaned


def encode_prompt(
    tokenizer, prompt: str, raw: bool, device: torch.device, context_length: int, max_new_tokens: int
) -> torch.Tensor:
    """Input ids of shape (1, n) on `device`, through the chat template unless `raw`."""
    prompt = clean_prompt(prompt)
    if not raw and getattr(tokenizer, "chat_template", None):
        ids = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=True
        )
        if hasattr(ids, "keys"):  # transformers 5 returns a BatchEncoding
            ids = ids["input_ids"]
    else:
        ids = tokenizer(prompt, add_special_tokens=True)["input_ids"]
    if ids and isinstance(ids[0], list):
        ids = ids[0]
    budget = context_length - max_new_tokens
    if len(ids) > budget:
        raise UserError(
            f"the prompt is {len(ids):,} tokens; with max_new_tokens={max_new_tokens} this model "
            f"(context {context_length:,}) allows at most {max(budget, 0):,} prompt tokens"
        )
    return torch.tensor([ids], dtype=torch.long, device=device)
