"""What the Organizer's "Create a study" form means: where the prompts come from (the content decides),
the study's design, and the blind question's choices. No Gradio: tests call these directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import decoders
from arena import guessing, studies
from common.errors import UserError

# The study's design, as the creation form names it -> arena's name (STUDY_DESIGNS).
DESIGNS: dict[str, str] = {"1–5 scores": "scores", "Pairwise A vs B": "pairwise"}
SOURCES = (
    "Built-in scenarios",
    "Pasted list (one prompt per line)",
    "Uploaded CSV / JSONL",
    "Article 003's tasks (math, code, summary; checked automatically)",
)
# "Measure the blind": which method raters are asked to pick out after each item (arena/guessing.py).
GUESS_CHOICES: list[tuple[str, str]] = [
    ("No question", "off"),
    *[(f"Ask which response came from {m}", m) for m in decoders.names()],
    ("Ask about each method in turn", guessing.EACH),
]
BOTH_SOURCES = (
    "there are pasted prompts and an uploaded file: clear the one you do not want (the pasted box, or the "
    "file with its ×) and press Create again; nothing was generated"
)


def file_path(upload: Any) -> str | None:
    if upload is None:
        return None
    if isinstance(upload, (str, Path)):
        return str(upload)
    return getattr(upload, "name", None) or (upload.get("path") if isinstance(upload, dict) else None)


def effective_source(source: str, pasted: Any, upload: Any) -> str:
    """Where the prompts come from: the content decides. A non-empty pasted box or an uploaded file
    wins over the radio (text put in by a script, or a paste the radio did not notice, is never
    silently replaced by the built-ins); both at once is a question for the organizer (UserError)."""
    has_pasted, has_file = bool(str(pasted or "").strip()), bool(file_path(upload))
    if has_pasted and has_file:
        raise UserError(BOTH_SOURCES)
    if has_pasted:
        return SOURCES[1]
    if has_file:
        return SOURCES[2]
    return source


def prompts_from(source: str, language: str, pasted: str, upload: Any) -> list[studies.PromptSpec]:
    source = effective_source(source, pasted, upload)
    if source == SOURCES[0]:
        return studies.builtin_prompts(None if language == "all" else language)
    if source == SOURCES[1]:
        specs = studies.parse_pasted(pasted)
        if not specs:
            raise UserError("paste at least one prompt, one per line")
        return specs
    if source == SOURCES[2]:
        path = file_path(upload)
        if not path:
            raise UserError("upload a .csv, .jsonl or .txt file of prompts")
        return studies.parse_prompt_file(path)
    if source == SOURCES[3]:
        return studies.task_prompts(None if language == "all" else language)
    raise UserError("choose where the prompts come from")
