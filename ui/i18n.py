"""English and Chinese for what raters and demo audiences read: tab names, the rating page, Compare.

Gradio translates in the browser (`gr.I18n`): the page follows the browser's language (zh, zh-CN,
zh-TW… get Chinese, anything else English) and the footer's Settings switch it. Only text marked
for translation is looked up, so after the page is built `translate(demo)` marks every label, info,
placeholder, Markdown and button text that has an entry in `ZH`; a handler that sends a fixed
sentence later (a status line, the default guidelines) marks it with `t()`. The words come from the one
table, common/messages.py, keyed by message id; what the browser gets is keyed by the English text
itself, so a missing entry (or a browser language with no table) shows the English, never an id. The
zh entries are plain text for Gradio's ICU message format: no braces (tests/test_i18n.py checks).
"""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from arena.model.llm import EMBEDDED
from arena.rating.dimensions import SCORE_COLUMNS as DIMENSIONS
from common import messages

from . import organizer_models

LETTERS = "ABCDEFGH"
LANGUAGES = messages.LANGUAGES


def _page_table() -> dict[str, str]:
    """English -> Chinese of every fixed text a page shows: common/messages.py's PAGE, the rating form's
    labels for each letter, and the Organizer's line for each embedded model."""
    zh = {en: chinese for en, chinese in messages.PAGE.values()}
    for dimension in DIMENSIONS:
        zh[messages.dimension_name(dimension)] = messages.dimension_name(dimension, "zh")  # a choice (power planner)
        en, chinese = messages.PAGE[f"dimension_label_{dimension}"]
        for letter in LETTERS:
            zh[f"{en} ({letter})"] = f"{chinese}（{letter}）"
    for letter in LETTERS:
        for key in ("rater_comment_on_label", "rater_response"):
            zh[messages.text(key, label=letter)] = messages.text(key, "zh", label=letter)
    for model in EMBEDDED.values():
        zh[organizer_models.model_note(model)] = organizer_models.model_note(model, "zh")
    return zh


ZH: dict[str, str] = _page_table()
# Gradio's own words that its zh-CN table lacks, under Gradio's keys: what its status tracker announces
# to a screen reader (read as page text) while a request waits in the queue ("In queue: 1 of 2", ICU
# placeholders filled by Gradio) and when it is done (a key no table of this Gradio has).
GRADIO_ZH: dict[str, str] = {
    "status.queue_position": "排队中：第 {position} 位，共 {size} 位",
    "common.complete": "完成",
}
I18N = gr.I18n(zh={**ZH, **GRADIO_ZH})
# Gradio strips a Markdown value's outer whitespace (the default guidelines end with a newline).
_STRIPPED = {english.strip(): english for english in ZH}
# What `translate` marks: these attributes of any component; `value` only where it is the text shown.
TEXT_ATTRS = ("label", "info", "placeholder")
VALUE_TYPES = (gr.Markdown, gr.Button)


def key_of(text: Any) -> str | None:
    """The table's key for `text` (itself, or the key it is with outer whitespace stripped), else None."""
    if not isinstance(text, str):
        return None
    return text if text in ZH else _STRIPPED.get(text.strip())


def t(text: Any) -> Any:
    """`text` marked for the browser to translate when the table has it, else `text` unchanged."""
    key = key_of(text)
    return text if key is None else str(I18N(key))


def plain(text: Any) -> Any:
    """The English of a marked text (what a test or a log wants), else `text` unchanged."""
    if isinstance(text, str) and text.startswith(MARK):
        try:
            return json.loads(text[len(MARK) :])["key"]
        except (ValueError, KeyError, TypeError):
            return text
    return text


MARK = "__i18n__"


def reads(value: Any, english: str) -> bool:
    """Whether a value the browser sent back (English, Chinese, or still marked) is the text `english`."""
    return value in (english, ZH.get(english), t(english))


def translate(demo: gr.Blocks) -> int:
    """Mark every static text of `demo` that has a Chinese entry; returns how many were marked.

    Choices are left as they are: Gradio looks a choice's plain text up in the table itself."""
    marked = 0
    for block in demo.blocks.values():
        attrs = TEXT_ATTRS + (("value",) if isinstance(block, VALUE_TYPES) else ())
        for attr in attrs:
            value = getattr(block, attr, None)
            if key_of(value) is not None:
                setattr(block, attr, t(value))
                marked += 1
    return marked


# ---- the reader's language, for what the server writes (the rating page's lines, /present, errors) ----


def language_of(query: str | None, accept_language: str | None) -> str:
    """ "zh" or "en": `?lang=` when it names one, else the browser's most preferred language (zh* → zh)."""
    if query in LANGUAGES:
        return query
    best, best_q = "", 0.0
    for part in (accept_language or "").split(","):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag and q > best_q:
            best, best_q = tag.lower(), q
    return "zh" if best == "zh" or best.startswith("zh-") else "en"


def language_of_request(request: Any) -> str:
    """ "zh" or "en" for a handler's request: the browser's most preferred language."""
    headers = getattr(request, "headers", None) or {}
    return language_of(None, headers.get("accept-language"))


def translated(sentence: str, lang: str) -> str:
    """A fixed sentence a lower layer wrote (a refusal, the line shown instead of an item) in `lang`,
    found in common/messages.py by its English, whole or filled in from one of its templates (the
    values kept); a sentence with no entry stays as it is."""
    return messages.translated(sentence, lang)
