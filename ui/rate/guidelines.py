"""The raters' guidelines: a study's own (Markdown, as its organizer wrote it) or the default of its
design. The Organizer shows the defaults next to its guidelines box."""

from __future__ import annotations

from arena.store import Store
from common.messages import english

DEFAULT_GUIDELINES = english("rate_guidelines")
DEFAULT_PAIR_GUIDELINES = english("pair_guidelines")


def guidelines_for(store: Store, study_id: int, default: str = DEFAULT_GUIDELINES) -> str:
    """The study's guidelines as the organizer wrote them (sanitised by Gradio), else `default`."""
    study = store.get_study(study_id)
    return ((study.guidelines if study is not None else None) or "").strip() or default
