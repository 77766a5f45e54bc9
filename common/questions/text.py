"""`text`: an optional comment on each response ("Why?"). Kept as text in its own store table
(arena/store/schema.py `rating_texts`), so no statistic can read it as a number; exported, and shown
to the organizer once the study is closed, never analysed. Not counted in "k of n answered"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common.errors import UserError

from .base import Dimension, QuestionType

MAX_TEXT = 5000


class Text(QuestionType):
    name = "text"
    required = False
    can_judge = False
    analysis = None
    control = "text"

    def fields(self, data: Mapping[str, Any], name: str) -> dict[str, Any]:
        return {"low": 0, "high": 0}

    def values(self, q: Dimension) -> tuple[int, ...]:
        return ()

    def options(self, q: Dimension) -> list[tuple[str, int]]:
        return []

    def check(self, q: Dimension, value: object) -> str:
        if not isinstance(value, str):
            raise UserError(f"{q.name} is a comment: it must be text, got {value!r}")
        clean = "".join(c for c in value if c in "\t\n" or (ord(c) >= 32 and ord(c) != 127)).strip()
        if len(clean) > MAX_TEXT:
            raise UserError(f"{q.name} is longer than {MAX_TEXT} characters")
        return clean

    def read(self, q: Dimension, cell: object) -> str | None:
        return None if cell in (None, "") else self.check(q, str(cell)) or None

    def words(self, q: Dimension) -> str:
        return "comment"


TEXT = Text()
