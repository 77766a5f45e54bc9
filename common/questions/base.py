"""What every question type provides (`QuestionType`); the types are the sibling modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

from common.errors import UserError


class Dimension(Protocol):
    """What a type reads of a question (common/rubric.py's `Dimension`, named here without importing
    it: the rubric imports the registry)."""

    @property
    def name(self) -> str: ...
    @property
    def low(self) -> int: ...
    @property
    def high(self) -> int: ...
    @property
    def labels(self) -> tuple[str, ...]: ...
    @property
    def anchors(self) -> tuple[tuple[int, str], ...]: ...


Stored = int | str  # what the store keeps for one answer: a whole number, or a text for a text question
Analysis = Literal["mean", "counts"] | None
ANALYSES: tuple[str, ...] = ("mean", "counts")


class QuestionType:
    """One kind of question. Subclasses set the class attributes and override what differs from an
    integer answer picked among `values`."""

    name: str = ""
    required: bool = True  # a rater must answer it (or say "can't judge"); counted in "k of n answered"
    can_judge: bool = True  # offers "can't judge" beside its values
    analysis: Analysis = "mean"
    control: Literal["radio", "text"] = "radio"
    # the JSON fields this type reads beside name, description and type; any other is refused
    allowed: frozenset[str] = frozenset()

    def fields(self, data: Mapping[str, Any], name: str) -> dict[str, Any]:
        """`Dimension`'s fields from the question's JSON (low, high, anchors, labels), checked."""
        return {}

    def to_dict(self, q: Dimension) -> dict[str, Any]:
        """The JSON fields beside name and description (the inverse of `fields`)."""
        return {"type": self.name}

    def values(self, q: Dimension) -> tuple[int, ...]:
        return tuple(range(q.low, q.high + 1))

    def options(self, q: Dimension) -> list[tuple[str, int]]:
        """(label, stored value) in the order the page shows them; digit key k picks the k-th."""
        return [(str(v), v) for v in self.values(q)]

    def check(self, q: Dimension, value: object) -> Stored:
        """The stored value of an answer (a whole number among `values`, as int, float or digits);
        UserError otherwise."""
        number = _whole(value)
        if number is None or number not in self.values(q):
            raise UserError(f"{q.name} must be one of {self.words_of_values(q)}, got {value!r}")
        return number

    def words_of_values(self, q: Dimension) -> str:
        return ", ".join(label for label, _ in self.options(q))

    def cell(self, q: Dimension, stored: Stored | None) -> Any:
        """The export's cell of a stored answer (None: can't judge or not answered)."""
        return stored

    def read(self, q: Dimension, cell: object) -> Stored | None:
        """An export's cell back to the stored answer (None for an empty cell)."""
        return None if cell in (None, "") else self.check(q, cell)

    def words(self, q: Dimension) -> str:
        """The question's kind in a legend: "1-10", "yes/no", "one of 3"."""
        return f"{q.low}-{q.high}"


def _whole(value: object) -> int | None:
    """A whole number from an int, an integral float or its digits; None otherwise (bools too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return int(number) if number.is_integer() else None
    return None
