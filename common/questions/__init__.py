"""Question types as a registry: what a rubric's question asks and how its answer is kept, shown,
exported and analysed, one small module per type (in the spirit of Argilla's question classes and
Potato's schema registry).

A question of a rubric (common/rubric.py's `Dimension`) names its type in the rubric JSON ("type";
`scale` when absent, so every rubric written before types existed reads as it did). Its type module
says, for every layer at once:

    spec        `fields(data, name)`: the JSON fields beside name and description, checked (UserError)
    storage     `values(q)` the stored whole numbers (a text answer is stored as text), `check(q, v)`
    page        `options(q)`: (label, stored value) radios in digit-key order (1 = first), or a textbox
    export      `cell(q, stored)` the CSV cell of an answer, `read(q, cell)` back
    analysis    `analysis`: "mean" (the scales' item-and-rater intervals), "counts" or None (never)
    words       `words(q)`: the question's kind in a legend ("1-10", "yes/no", "one of 3")

Shipped: scale (integer 2-11 points), yes-no (stored 0/1), choice (one of 2-8 labels, stored as the
label's index) and text (an optional comment). A new type is one module here registered below, plus
at most its words in common/messages.py, its analysis in evaluation/human/ (only for a new kind of
analysis), and its test (docs/architecture.md).

Imports nothing outside common: every layer reads it.
"""

from __future__ import annotations

from common import messages
from common.errors import UserError

from .base import ANALYSES, QuestionType, Stored
from .choice import CHOICE
from .scale import SCALE
from .text import TEXT
from .yes_no import YES_NO

TYPES: dict[str, QuestionType] = {t.name: t for t in (SCALE, YES_NO, CHOICE, TEXT)}
DEFAULT_TYPE = SCALE.name


def question_type(name: object) -> QuestionType:
    """The registered type called `name`; UserError naming the known ones otherwise."""
    found = TYPES.get(str(name).strip().lower()) if isinstance(name, str) else None
    if found is None:
        raise UserError(messages.text("rubric_unknown_type", name=repr(name), types=", ".join(TYPES)))
    return found


__all__ = ["ANALYSES", "DEFAULT_TYPE", "TYPES", "QuestionType", "Stored", "question_type"]
