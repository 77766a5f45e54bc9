"""The rating page's runtime lines in the rater's language: progress, "Rating as …", saved / skipped /
flagged, what is missing, and the refusals a rater meets (toasts).

Gradio translates fixed texts in the browser (ui/i18n.py), but these lines carry numbers, letters and
names, and a marked text is looked up whole, with no values put in. So they are written on the server,
in the language the browser asks for (`Accept-Language`, as /present does); English stays exactly as it
was. Chinese entries are Python format strings: `{name}` is filled in here, never by Gradio.
"""

from __future__ import annotations

from typing import Any

from arena.rating import blind
from arena.store.feedback import FLAG_REASONS, SKIP_REASONS
from common import messages

from ..i18n import ZH
from ..safe import md_text


def say(key: str, lang: str, **values: Any) -> str:
    """Message `key` of common/messages.py in `lang`, with `values` filled in."""
    return messages.text(key, lang, **values)


def progress(view: blind.RaterView, lang: str) -> str:
    """`view.progress` in `lang` (the same line in English)."""
    if lang != "zh":
        return view.progress
    rated = view.rated_items - view.skipped_items  # a skipped item is handled, not rated
    line = say("rater_progress", lang, index=view.index, total=view.total, rated=rated)
    return line + (say("rater_progress_skipped", lang, skipped=view.skipped_items) if view.skipped_items else "")


def skip_reason(reason: str, lang: str) -> str:
    english = SKIP_REASONS.get(reason, reason)
    return ZH.get(english, english) if lang == "zh" else english.lower()


def flag_reason(reason: str, lang: str) -> str:
    english = FLAG_REASONS.get(reason, reason)
    return ZH.get(english, english) if lang == "zh" else english.lower()


def dimension(index: int, lang: str) -> str:
    """The name of `blind.DIMENSIONS[index]` in `lang`."""
    return say(f"dimension_name_{blind.DIMENSIONS[index]}", lang)


def rater_line(rater: str, study: str, lang: str) -> str:
    return say("rater_rating_as", lang, rater=md_text(rater), study=md_text(study))
