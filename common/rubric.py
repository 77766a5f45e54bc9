"""A study's rubric: the questions raters answer (1 to 8 dimensions), each on its own integer scale of
2 to 11 points (1-5, 1-7, 1-10, 0-10...), with a description and anchor texts. The store keeps one
per study, the rating page asks its questions, and the statistics analyse whatever it names: nothing
else in the project may assume the mission's three 1-5 dimensions (`DEFAULT_RUBRIC`).

Light on purpose (it imports nothing), so the store, the command lines and the statistics share it.

>>> rubric = Rubric.from_dict({"dimensions": [{"name": "quality", "low": 1, "high": 10}, {"name": "diversity"}]})
>>> rubric.names, rubric.dimension("quality").points, rubric.dimension("diversity").scale_words
(('quality', 'diversity'), 10, '1-5')
>>> Rubric.from_json(rubric.to_json()) == rubric
True
>>> parse_scale("0-10"), parse_scale(" -3 to 3 ")
((0, 10), (-3, 3))
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import UserError

MIN_DIMENSIONS, MAX_DIMENSIONS = 1, 8
MIN_POINTS, MAX_POINTS = 2, 11
MAX_NAME = 60
# Column names of a ratings file: a dimension may not take one of them (a wide file would be ambiguous).
RESERVED_NAMES = frozenset(
    {
        "study_id",
        "study_name",
        "study_methods",
        "item_id",
        "output_id",
        "method",
        "rater",
        "position",
        "dimension",
        "score",
        "scale_min",
        "scale_max",
        "attention_passed",
        "cant_judge",
        "row_kind",
        "created_at",
        "updated_at",
        "scenario",
        "language",
        "sample_index",
    }
)
_SCALE = re.compile(r"^\s*(-?\d+)\s*(?:-|–|\.\.|to)\s*(-?\d+)\s*$")


def parse_scale(text: str) -> tuple[int, int]:
    """(low, high) from "1-5", "0-10", "1–7", "-3 to 3" or "1..10"; UserError when it does not parse
    or is not a scale of 2 to 11 points."""
    m = _SCALE.match(str(text))
    if not m:
        raise UserError(f"scale {text!r} does not parse: write it as MIN-MAX, e.g. 1-10")
    low, high = int(m.group(1)), int(m.group(2))
    check_scale(low, high)
    return low, high


def check_scale(low: int, high: int, name: str = "") -> None:
    """UserError unless low < high and the scale has MIN_POINTS to MAX_POINTS points."""
    points = high - low + 1
    if not MIN_POINTS <= points <= MAX_POINTS:
        where = f" of {name!r}" if name else ""
        raise UserError(
            f"the scale{where} {low}-{high} has {points} point{'s' if points != 1 else ''}: "
            f"a scale has {MIN_POINTS} to {MAX_POINTS} points (1-5, 1-7, 1-10, 0-10...)"
        )


def check_name(name: str) -> str:
    """The dimension name stripped; UserError when it is empty, too long, holds a comma, a quote or a
    control character, or is one of the ratings file's own columns."""
    clean = str(name).strip()
    if not clean:
        raise UserError("a dimension needs a name")
    if len(clean) > MAX_NAME:
        raise UserError(f"the dimension name {clean[:20]!r}... is longer than {MAX_NAME} characters")
    if any(c in clean for c in ',"') or any(ord(c) < 32 or ord(c) == 127 for c in clean):
        raise UserError(f"the dimension name {clean!r} may not hold a comma, a quote or a control character")
    if clean.lower() in RESERVED_NAMES:
        raise UserError(f"{clean!r} is a column of the ratings file and cannot name a dimension")
    return clean


@dataclass(frozen=True)
class Dimension:
    """One question: its name (also its column in a wide ratings file), the integer scale low..high
    (higher = better), what to judge, and anchor texts for some points ((point, text) pairs)."""

    name: str
    low: int = 1
    high: int = 5
    description: str = ""
    anchors: tuple[tuple[int, str], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", check_name(self.name))
        check_scale(int(self.low), int(self.high), self.name)
        for point, _ in self.anchors:
            if not self.low <= point <= self.high:
                raise UserError(f"an anchor of {self.name!r} is for {point}, outside its scale {self.scale_words}")

    @property
    def points(self) -> int:
        return self.high - self.low + 1

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(range(self.low, self.high + 1))

    @property
    def scale_words(self) -> str:
        return f"{self.low}-{self.high}"

    def contains(self, score: float) -> bool:
        """Whether `score` is a whole number on this scale."""
        return float(score).is_integer() and self.low <= score <= self.high

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "low": self.low, "high": self.high}
        if self.description:
            out["description"] = self.description
        if self.anchors:
            out["anchors"] = {str(p): t for p, t in self.anchors}
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Dimension:
        if not isinstance(data, Mapping) or "name" not in data:
            raise UserError("a dimension is an object with at least a name")
        anchors = data.get("anchors") or {}
        if not isinstance(anchors, Mapping):
            raise UserError(f"the anchors of {data.get('name')!r} are an object: point -> text")
        try:
            low, high = int(data.get("low", 1)), int(data.get("high", 5))
            pairs = tuple(sorted((int(p), str(t)) for p, t in anchors.items()))
        except (TypeError, ValueError):
            raise UserError(f"the scale of {data.get('name')!r} is not made of whole numbers") from None
        return cls(str(data["name"]), low, high, str(data.get("description") or ""), pairs)


@dataclass(frozen=True)
class Rubric:
    """The dimensions of a study, in the order raters see them (MIN_DIMENSIONS to MAX_DIMENSIONS,
    names unique regardless of case)."""

    dimensions: tuple[Dimension, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        dims = tuple(self.dimensions)
        object.__setattr__(self, "dimensions", dims)
        if not MIN_DIMENSIONS <= len(dims) <= MAX_DIMENSIONS:
            raise UserError(
                f"a rubric has {MIN_DIMENSIONS} to {MAX_DIMENSIONS} dimensions, this one has {len(dims)}"
                + (": name at least one question" if not dims else "")
            )
        seen: set[str] = set()
        for d in dims:
            if d.name.lower() in seen:
                raise UserError(f"the dimension {d.name!r} is named twice")
            seen.add(d.name.lower())

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dimensions)

    def dimension(self, name: str) -> Dimension:
        for d in self.dimensions:
            if d.name == name:
                return d
        raise UserError(f"unknown dimension {name!r} (this rubric has {', '.join(self.names)})")

    def scales(self) -> dict[str, tuple[int, int]]:
        return {d.name: (d.low, d.high) for d in self.dimensions}

    @property
    def is_default(self) -> bool:
        return self == DEFAULT_RUBRIC

    def to_dict(self) -> dict[str, Any]:
        return {"dimensions": [d.to_dict() for d in self.dimensions]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rubric:
        dims = data.get("dimensions") if isinstance(data, Mapping) else None
        if not isinstance(dims, list):
            raise UserError('a rubric is an object with a list "dimensions"')
        return cls(tuple(Dimension.from_dict(d) for d in dims))

    @classmethod
    def from_json(cls, text: str) -> Rubric:
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise UserError(f"the rubric is not valid JSON ({exc.msg})") from None

    @classmethod
    def uniform(cls, names: Iterable[str], low: int = 1, high: int = 5) -> Rubric:
        """Every dimension on the same scale."""
        return cls(tuple(Dimension(n, low, high) for n in names))


def rubric_of(value: Rubric | Sequence[str] | None) -> Rubric:
    """A rubric from a Rubric, a list of dimension names (each 1-5), or None (the default)."""
    if value is None:
        return DEFAULT_RUBRIC
    if isinstance(value, Rubric):
        return value
    return Rubric.uniform(value)


def rubric_from(value: Any) -> Rubric:
    """A study's rubric as the store may hold it (a Rubric, its JSON text or dict), or the default
    rubric for a study without one (every study made before rubrics existed)."""
    if isinstance(value, Rubric):
        return value
    if isinstance(value, str) and value.strip():
        return Rubric.from_json(value)
    if isinstance(value, Mapping) and value:
        return Rubric.from_dict(value)
    return DEFAULT_RUBRIC


DEFAULT_RUBRIC = Rubric(
    (
        Dimension("coherence", 1, 5, "logical, consistent, on topic"),
        Dimension("informativeness", 1, 5, "says something useful or interesting"),
        Dimension("naturalness", 1, 5, "reads like fluent human writing"),
    )
)
