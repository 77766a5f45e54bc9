"""`yes-no`: "Is it factually correct?". Stored 0 (no) / 1 (yes), so the scales' analysis reads it
as a proportion of yes per method with the same item-and-rater intervals (calibrated by simulation:
the yes/no rows of the README's table). The page shows Yes then No (digit 1 = yes, 2 = no); the
export writes 1 / 0 and reads back 1/0, yes/no or true/false."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Dimension, QuestionType

YES, NO = 1, 0
_WORDS = {"yes": YES, "no": NO, "true": YES, "false": NO, "y": YES, "n": NO}


class YesNo(QuestionType):
    name = "yes-no"

    def fields(self, data: Mapping[str, Any], name: str) -> dict[str, Any]:
        return {"low": NO, "high": YES}

    def options(self, q: Dimension) -> list[tuple[str, int]]:
        return [("Yes", YES), ("No", NO)]

    def read(self, q: Dimension, cell: object) -> int | None:
        if isinstance(cell, str) and cell.strip().lower() in _WORDS:
            return _WORDS[cell.strip().lower()]
        found = super().read(q, cell)
        return None if found is None else int(found)

    def words(self, q: Dimension) -> str:
        return "yes/no"


YES_NO = YesNo()
