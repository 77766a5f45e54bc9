"""Prompt sets for studies: the article's scenarios, pasted text, prompt files."""

from __future__ import annotations

from arena.inputs.prompts import SCENARIOS, TASK_SCENARIOS, PromptSpec, Scenario, read_prompt_file
from common import messages
from common.errors import UserError

__all__ = ["builtin_prompts", "parse_prompt_file", "task_prompts"]


def builtin_prompts(language: str | None = None) -> list[PromptSpec]:
    """The article's three scenarios; `language` "en" or "zh" keeps one language."""
    return _specs(SCENARIOS, language, messages.english("what_builtin_scenarios"))


def task_prompts(language: str | None = None) -> list[PromptSpec]:
    """Article 003's three checked tasks (math-cylinder, code-indices, summary-paper; `evaluation.tasks`
    scores them); `language` "en" or "zh" keeps one language. The scenario is the task's id, which is
    how Results finds the checker for a study's outputs."""
    return _specs(TASK_SCENARIOS, language, messages.english("what_task_prompts"))


def _specs(scenarios: tuple[Scenario, ...], language: str | None, what: str) -> list[PromptSpec]:
    chosen = [s for s in scenarios if language in (None, "", "all") or s.language == language]
    if not chosen:
        raise UserError(messages.text("prompts_no_language", what=what, language=repr(language)))
    return [PromptSpec(s.prompt, s.key, s.language, s.raw) for s in chosen]


# The one prompt-file parser (Organizer upload, studies CLI, benchmark); the name callers know.
parse_prompt_file = read_prompt_file
