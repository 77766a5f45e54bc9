"""What the store accepts from people: names, scores and comments checked and cleaned, and the
canonical JSON of settings. Every write path checks with these."""

from __future__ import annotations

import json
from typing import Any

from arena.inputs.numbers import parse_whole
from arena.inputs.text import printable
from common import messages
from common.errors import UserError
from common.rubric import Dimension

MAX_RATER_NAME = 100
MAX_COMMENT = 5000


def dumps(value: Any) -> str:
    """Canonical JSON (sorted keys) so equal settings are equal strings."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def clean_name(text: object, what: str = "name", limit: int = 200) -> str:
    """A display name as people read it: NFKC (so a full-width "ａｌｉｃｅ" is "alice"), without control,
    format (zero-width, bidi overrides such as U+202E) or surrogate characters, spaces collapsed."""
    if isinstance(text, str):
        text = printable(text, nfkc=True, drop_format=True)
    if not isinstance(text, str) or not text.strip():
        raise UserError(messages.text("value_enter_first", what=what))
    text = " ".join(text.split())
    if len(text) > limit:
        raise UserError(messages.text("value_too_long", what=what, limit=limit))
    return text


def clean_rater_name(name: object) -> str:
    return clean_name(name, messages.english("what_rater_name"), MAX_RATER_NAME)


def check_score(name: str, value: object) -> int:
    """Scores are whole numbers 1..5; bools and 4.5 are refused, "4" and 4.0 accepted."""
    try:
        number = parse_whole(value)
    except ValueError:
        raise UserError(f"{name} must be a whole number from 1 to 5, got {value!r}") from None
    if not 1 <= number <= 5:
        raise UserError(f"{name} must be from 1 to 5, got {value!r}")
    return number


def check_dimension_score(dimension: Dimension, value: object) -> int | str:
    """An answer to `dimension` (a study's rubric) as stored: on a scale, a whole number low..high, as
    `check_score`; for another question type, what its type module accepts (common/questions/)."""
    if dimension.kind != "scale":
        return dimension.check(value)
    if dimension.low == 1 and dimension.high == 5:
        return check_score(dimension.name, value)
    try:
        number = parse_whole(value)
    except ValueError:
        raise UserError(
            f"{dimension.name} must be a whole number from {dimension.low} to {dimension.high}, got {value!r}"
        ) from None
    if not dimension.low <= number <= dimension.high:
        raise UserError(f"{dimension.name} must be from {dimension.low} to {dimension.high}, got {value!r}")
    return number


def clean_comment(comment: object) -> str | None:
    if comment is None:
        return None
    if not isinstance(comment, str):
        raise UserError("the comment must be text")
    comment = printable(comment, keep="\t\n").strip()
    if len(comment) > MAX_COMMENT:
        raise UserError(f"the comment is longer than {MAX_COMMENT} characters")
    return comment or None
