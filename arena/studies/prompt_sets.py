"""Prompt sets for studies: the article's scenarios, pasted text, prompt files."""

from __future__ import annotations

from ..errors import UserError
from ..prompts import SCENARIOS, PromptSpec, read_prompt_file
from ..prompts import parse_pasted as parse_pasted  # re-exported: the Organizer and tests call studies.parse_pasted

__all__ = ["PromptSpec", "builtin_prompts", "parse_pasted", "parse_prompt_file"]


def builtin_prompts(language: str | None = None) -> list[PromptSpec]:
    """The article's three scenarios; `language` "en" or "zh" keeps one language."""
    chosen = [s for s in SCENARIOS if language in (None, "", "all") or s.language == language]
    if not chosen:
        raise UserError(f"no built-in scenarios in language {language!r}; choose en, zh or all")
    return [PromptSpec(s.prompt, s.key, s.language, s.raw) for s in chosen]


# The one prompt-file parser (Organizer upload, studies CLI, benchmark); the name callers know.
parse_prompt_file = read_prompt_file
