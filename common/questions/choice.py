"""`choice`: one of 2 to 8 labels ("Which error: repetition / off-topic / factual?").

Stored as the label's index (0 = the first label): the scores table stays whole numbers with its
checks, a study's rubric never changes after creation so the index always means the same label, and
a label may hold any text. The export writes the label itself, so the file reads without the rubric,
and the import maps it back (a bare index is accepted too). Analysed as counts per method with a test
of independence (evaluation/human/choices.py), never as a mean: the labels are not ordered."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common import messages
from common.errors import UserError

from .base import Dimension, QuestionType

MIN_LABELS, MAX_LABELS = 2, 8
MAX_LABEL = 60


class Choice(QuestionType):
    name = "choice"
    analysis = "counts"
    allowed = frozenset({"labels"})

    def fields(self, data: Mapping[str, Any], name: str) -> dict[str, Any]:
        labels = data.get("labels")
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            raise UserError(messages.text("choice_needs_labels", name=repr(name), least=MIN_LABELS, most=MAX_LABELS))
        clean = tuple(" ".join(x.split()) for x in labels)
        if not MIN_LABELS <= len(clean) <= MAX_LABELS:
            raise UserError(
                messages.text("choice_label_count", name=repr(name), n=len(clean), least=MIN_LABELS, most=MAX_LABELS)
            )
        if any(not x or len(x) > MAX_LABEL for x in clean):
            raise UserError(messages.text("choice_label_length", name=repr(name), n=MAX_LABEL))
        if len({x.lower() for x in clean}) != len(clean):
            raise UserError(messages.text("choice_label_twice", name=repr(name)))
        return {"low": 0, "high": len(clean) - 1, "labels": clean}

    def to_dict(self, q: Dimension) -> dict[str, Any]:
        return {"type": self.name, "labels": list(q.labels)}

    def options(self, q: Dimension) -> list[tuple[str, int]]:
        return [(label, k) for k, label in enumerate(q.labels)]

    def cell(self, q: Dimension, stored: int | str | None) -> Any:
        return None if stored is None else q.labels[int(stored)]

    def read(self, q: Dimension, cell: object) -> int | None:
        if isinstance(cell, str) and cell.strip() in q.labels:
            return q.labels.index(cell.strip())
        found = super().read(q, cell)
        return None if found is None else int(found)

    def words(self, q: Dimension) -> str:
        return f"one of {len(q.labels)}"


CHOICE = Choice()
