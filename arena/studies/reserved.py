"""Prompts reserved for blind studies: Compare must not show a study's prompt with method names."""

from __future__ import annotations

import unicodedata

from ..errors import UserError
from ..store import Store


def normalized_prompt(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def check_not_reserved(store: Store, prompt: object) -> None:
    """Refuse a prompt that belongs to a study not yet published (after whitespace, case and
    Unicode width are normalised): running it in Compare would show which method writes what.
    The message does not name the study."""
    if not isinstance(prompt, str) or not prompt.strip():
        return
    wanted = normalized_prompt(prompt)
    if any(normalized_prompt(p) == wanted for p in store.prompts_of_unpublished()):
        raise UserError("this prompt is reserved for a blind rating study that is still running; try another prompt")
