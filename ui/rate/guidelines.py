"""The raters' guidelines: a study's own (Markdown, as its organizer wrote it) or the default of its
design. The Organizer shows the defaults next to its guidelines box."""

from __future__ import annotations

from arena.store import Store
from common.messages import english
from common.rubric import Rubric

from ..safe import md_text

DEFAULT_GUIDELINES = english("rate_guidelines")
DEFAULT_PAIR_GUIDELINES = english("pair_guidelines")


def guidelines_for(store: Store, study_id: int, default: str = DEFAULT_GUIDELINES) -> str:
    """The study's guidelines as the organizer wrote them (sanitised by Gradio), else `default` (for a
    study with its own rubric: its questions, `rubric_guidelines`)."""
    study = store.get_study(study_id)
    own = ((study.guidelines if study is not None else None) or "").strip()
    if own:
        return own
    # the default guidelines describe the default rubric's questions: a rubric of the study's own gets its own
    if study is not None and study.rubric.stored_json is not None and default == DEFAULT_GUIDELINES:
        return rubric_guidelines(study.rubric)
    return default


def rubric_guidelines(rubric: Rubric) -> str:
    """The default guidelines for a study with its own questions: each question with its scale, what to
    judge and its anchors, between the default's notes on cut-off responses (first) and order (last)."""
    items = [
        f"- **{md_text(d.name)}** ({d.scale_words})"
        + (f": {md_text(d.description)}" if d.description else "")
        + "".join(f" · *{p}* {md_text(t)}" for p, t in d.anchors)
        + "".join(f" · *{k}* {md_text(label)}" for k, label in enumerate(d.labels, start=1))  # a choice's keys
        + (" (optional)" if not d.required else "")
        for d in rubric.dimensions
    ]
    paragraphs = DEFAULT_GUIDELINES.strip().split("\n\n")
    cut_off, order = paragraphs[0], paragraphs[-1]  # first, so a short box never hides it (issue 35)
    head = "**Rate each response on its own, on these questions:**"
    return f"{cut_off}\n\n{head}\n\n" + "\n".join(items) + f"\n\n{order}\n"
