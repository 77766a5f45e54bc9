"""What the Organizer's "Create a study" form means: where the prompts come from (the content decides),
the study's design, and the blind question's choices. No Gradio: tests call these directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import decoders
from arena import guessing, studies
from common.errors import UserError
from common.messages import english
from common.rubric import Rubric

from ..safe import md_text

# The rubric box's example: what a study with its own questions writes (common/rubric.py).
RUBRIC_EXAMPLE = (
    '{"dimensions": [{"name": "quality", "low": 1, "high": 10, "description": "How good is the response?", '
    '"anchors": {"1": "unusable", "10": "as good as it gets"}}, {"name": "creativity", "low": 1, "high": 7}]}'
)
# The exclusion rules a study may set at creation (arena.studies.EXCLUSION_RULES), in plain words.
EXCLUSION_CHOICES: list[tuple[str, str]] = [
    ("Drop raters who fail any attention item", "attention"),
    ("Drop raters who give the same score everywhere (straight-lining)", "straight-lining"),
    ("Drop raters far faster than the others (speeders)", "speeder"),
    ("Drop raters who score against the others' consensus", "against"),
]


def rubric_example() -> str:
    """The rubric box's example (its button), for the organizer to edit."""
    return RUBRIC_EXAMPLE


def rubric_of_text(text: Any) -> Rubric | None:
    """The rubric typed in the creation form: None when the box is empty (the default three 1-5
    questions), else the parsed rubric or UserError ("the rubric: ...")."""
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return Rubric.from_json(text)
    except UserError as exc:
        raise UserError(f"the rubric: {exc}") from None


def rubric_preview(text: Any) -> str:
    """What raters will be asked, as a Markdown table, or the one line saying what is wrong."""
    try:
        rubric = rubric_of_text(text)
    except UserError as exc:
        return f"**error:** {md_text(exc)}"
    if rubric is None:
        return english("organizer_rubric_default")
    rows = [
        f"| {md_text(d.name)} | {d.scale_words} ({d.points} points) | {md_text(d.description) or '–'} | "
        + (" · ".join(f"{p} = {md_text(t)}" for p, t in d.anchors) or "–")
        + " |"
        for d in rubric.dimensions
    ]
    head = "| question | scale | what to judge | anchors |\n|---|---|---|---|\n"
    return head + "\n".join(" ".join(r.splitlines()) for r in rows)


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
