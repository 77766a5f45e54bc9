"""The Organizer's outputs in the reader's language.

Its handlers write English (the tests read it, the CLI and logs keep it); `auth.guarded` passes what they
return through `in_language` with the request's language, which finds every fixed sentence, column name
and word cell in common/messages.py by its English: whole, or filled in from one of its templates with
the values kept (`messages.translated`). A study's state inside a sentence ("Study #3 is now closed.") is
a `word_` message and is translated too. Names (a study's, a rater's, a method's, a model's), codes,
links, times and numbers stay as they are.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from common import messages

# Columns of names and codes: only a placeholder sentence ("no raters invited yet") or a fixed cell from
# these templates is translated there, never a name that happens to read like one.
NAME_COLUMNS = (
    "name", "rater", "methods", "model", "code", "link", "label", "method", "note", "studies", "target_method",
)  # fmt: skip
NAME_CELLS = ("organizer_all_raters", "rater_pseudonym")
# A short template the general search skips (too little fixed text to tell it apart): looked up by column.
CELL_TEMPLATES = {"items done": "organizer_items_done"}


def in_language(value: Any, lang: str) -> Any:
    """`value` (a handler's output: a line, a table, a gr.update, or a tuple of them) in `lang`."""
    if lang not in messages.LANGUAGES or lang == "en":
        return value
    if isinstance(value, tuple):
        parts = [in_language(v, lang) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)  # a NamedTuple stays one
    if isinstance(value, pd.DataFrame):
        return table_in(value, lang)
    if isinstance(value, dict) and "value" in value and value.get("__type__") == "update":
        return {**value, "value": in_language(value["value"], lang)}
    if isinstance(value, str):
        return sentence_in(value, lang)
    return value


# Longer text is data (an export's CSV on its way to the download, the invite links' HTML), not a line:
# it goes as it is, and a template is never matched against megabytes.
MAX_LINE = 2000


def sentence_in(text: str, lang: str) -> str:
    """A line from the table, whole or filled in, with a `word_` value (or another message where the
    template says so: `messages.NESTED`) translated as well."""
    if len(text) > MAX_LINE:
        return text
    return messages.translated(text, lang)


def table_in(table: pd.DataFrame, lang: str) -> pd.DataFrame:
    """A table's column names and fixed cells in `lang` (a yes/no cell as 是/否)."""

    def cell(column: str, value: Any) -> Any:
        if isinstance(value, bool):
            return messages.text("true" if value else "false", lang)
        if not isinstance(value, str):
            return value
        template = CELL_TEMPLATES.get(column)
        if template is not None:
            return template_in(template, value, lang)
        if column in NAME_COLUMNS:
            key = messages.key_of(value)
            placeholder = key is not None and key.startswith("organizer_")
            found = messages.parse(value, NAME_CELLS)
            if placeholder:
                return sentence_in(value, lang)
            return value if found is None else messages.text(found[0], lang, **found[1])
        return sentence_in(value, lang)

    out = table.copy()
    for column in out.columns:
        out[column] = [cell(str(column), v) for v in out[column]]
    return out.rename(columns=lambda c: sentence_in(c, lang) if isinstance(c, str) else c)


def template_in(key: str, value: str, lang: str) -> str:
    """`value`, written from template `key`, in `lang`; as it is when it was not."""
    found = messages.parse(value, (key,))
    return value if found is None else messages.text(key, lang, **found[1])
