"""Stand-in models for the dummy engine (it reads only the name): nothing loads."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import torch


def stand_in(name: str, tokenizer: Any = None) -> SimpleNamespace:
    """A model as Compare and the Organizer use it: its name (a variant's after the "@"), a parameter
    for Compare's notes, and `tokenizer` for a prompt-length check (None: no check is made)."""
    return SimpleNamespace(
        name=name,
        label=name,
        device=torch.device("cpu"),
        dtype_name="float32",
        context_length=2048,
        model=torch.nn.Linear(2, 2),
        has_chat_template=True,
        tokenizer=tokenizer,
        variant=name.partition("@")[2],
    )
