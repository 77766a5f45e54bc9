"""The one place this package asks the arena core for outputs.

It is the entry point `python -m decoders` uses (`arena.runs.runner.run_methods` on a validated
`RunRequest`): the same warm-up, timing, seeding and effective settings as Compare and the
benchmark. If the core's entry point moves, this is the only call to change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.inputs.prompts import clean_prompt
from arena.runs.requests import MethodResult, RunRequest, validate_request
from arena.runs.runner import run_methods


def generate(lm: Any, prompt: str, methods: Sequence[str], seed: int, max_new_tokens: int) -> list[MethodResult]:
    """Every method on `prompt` with `torch.manual_seed(seed)` before each, one after another."""
    request = RunRequest(
        prompt=clean_prompt(prompt), methods=list(methods), max_new_tokens=max_new_tokens, seed=seed, raw=False
    )
    return run_methods(lm, validate_request(request))
