"""A study's rubric: the questions raters answer (1 to 8 dimensions), each of a registered type
(common/questions/: an integer scale of 2 to 11 points (1-5, 1-7, 1-10, 0-10...) with anchor texts,
the default; yes-no; a choice among labels; an optional text comment), with a description. The store keeps one
per study, the rating page asks its questions, and the statistics analyse whatever it names: nothing
else in the project may assume the mission's three 1-5 dimensions (`DEFAULT_RUBRIC`).

Light on purpose (it imports only common/), so the store, the command lines and the statistics share it.

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

from . import messages
from .errors import UserError
from .questions import DEFAULT_TYPE, QuestionType, Stored, question_type
from .questions.scale import SCALE

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
        raise UserError(messages.text("rubric_scale_parse", scale=repr(text)))
    low, high = int(m.group(1)), int(m.group(2))
    check_scale(low, high)
    return low, high


def check_scale(low: int, high: int, name: str = "") -> None:
    """UserError unless low < high and the scale has MIN_POINTS to MAX_POINTS points."""
    points = high - low + 1
    if not MIN_POINTS <= points <= MAX_POINTS:
        said: dict[str, Any] = dict(low=low, high=high, points=points, least=MIN_POINTS, most=MAX_POINTS)
        if name:
            raise UserError(messages.text("rubric_scale_points_of", name=repr(name), **said))
        raise UserError(messages.text("rubric_scale_points", **said))


def check_name(name: str) -> str:
    """The dimension name stripped; UserError when it is empty, too long, holds a comma, a quote or a
    control character, or is one of the ratings file's own columns."""
    clean = str(name).strip()
    if not clean:
        raise UserError(messages.english("rubric_needs_name"))
    if len(clean) > MAX_NAME:
        raise UserError(messages.text("rubric_name_too_long", name=repr(clean[:20]), n=MAX_NAME))
    if any(c in clean for c in ',"') or any(ord(c) < 32 or ord(c) == 127 for c in clean):
        raise UserError(messages.text("rubric_name_characters", name=repr(clean)))
    if clean.lower() in RESERVED_NAMES:
        raise UserError(messages.text("rubric_name_reserved", name=repr(clean)))
    return clean


# The JSON fields some type reads: on a question of another type they are a mistake worth saying.
TYPE_FIELDS = frozenset({"low", "high", "anchors", "labels"})


@dataclass(frozen=True)
class Dimension:
    """One question: its name (also its column in a wide ratings file), its type (`kind`, a name of
    common/questions/), what to judge, and what the type reads: a scale's low..high (higher =
    better) and anchor texts for some points ((point, text) pairs), a choice's labels. The types
    without a scale store low..high as their values' range (yes-no 0-1, a choice 0..labels-1)."""

    name: str
    low: int = 1
    high: int = 5
    description: str = ""
    anchors: tuple[tuple[int, str], ...] = ()
    kind: str = DEFAULT_TYPE
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", check_name(self.name))
        qtype = question_type(self.kind)
        object.__setattr__(self, "kind", qtype.name)
        if qtype is not SCALE:
            if self.anchors:
                raise UserError(messages.text("rubric_anchors_of_scale", name=repr(self.name), kind=qtype.name))
            if self.labels and "labels" not in qtype.allowed:
                raise UserError(messages.text("rubric_labels_of_choice", name=repr(self.name), kind=qtype.name))
            given = {"labels": list(self.labels)} if "labels" in qtype.allowed else {}
            for key, value in qtype.fields(given, self.name).items():
                object.__setattr__(self, key, value)
            return
        if self.labels:
            raise UserError(messages.text("rubric_scale_no_labels", name=repr(self.name)))
        check_scale(int(self.low), int(self.high), self.name)
        for point, _ in self.anchors:
            if not self.low <= point <= self.high:
                raise UserError(
                    messages.text("rubric_anchor_off_scale", name=repr(self.name), point=point, scale=self.scale_words)
                )

    @property
    def qtype(self) -> QuestionType:
        return question_type(self.kind)

    @property
    def points(self) -> int:
        return len(self.values)

    @property
    def values(self) -> tuple[int, ...]:
        """The whole numbers an answer is stored as (none for a text question)."""
        return self.qtype.values(self)

    @property
    def scale_words(self) -> str:
        """The question's kind in a legend: "1-10", "yes/no", "one of 3", "comment"."""
        return self.qtype.words(self)

    @property
    def required(self) -> bool:
        """Whether a rater must answer it (a text comment is optional)."""
        return self.qtype.required

    def options(self) -> list[tuple[str, int]]:
        """(label, stored value) in the order the page shows them (digit key k picks the k-th)."""
        return self.qtype.options(self)

    def check(self, value: object) -> Stored:
        """The stored value of an answer; UserError when it is not one of the type's values."""
        return self.qtype.check(self, value)

    def contains(self, score: float) -> bool:
        """Whether `score` is one of the stored values (a whole number on a scale)."""
        return float(score).is_integer() and int(score) in self.values

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, **self.qtype.to_dict(self)}
        if self.description:
            out["description"] = self.description
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Dimension:
        if not isinstance(data, Mapping) or "name" not in data:
            raise UserError(messages.english("rubric_dimension_object"))
        qtype = question_type(data.get("type", DEFAULT_TYPE))
        misplaced = sorted((set(data) & TYPE_FIELDS) - qtype.allowed)
        if misplaced:
            key = "rubric_misplaced_anchors" if "anchors" in misplaced else "rubric_misplaced"
            raise UserError(
                messages.text(key, name=repr(data.get("name")), kind=qtype.name, fields=", ".join(misplaced))
            )
        spec = qtype.fields(data, str(data.get("name")))
        return cls(str(data["name"]), description=str(data.get("description") or ""), kind=qtype.name, **spec)


@dataclass(frozen=True)
class Rubric:
    """The dimensions of a study, in the order raters see them (MIN_DIMENSIONS to MAX_DIMENSIONS,
    names unique regardless of case)."""

    dimensions: tuple[Dimension, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        dims = tuple(self.dimensions)
        object.__setattr__(self, "dimensions", dims)
        if not MIN_DIMENSIONS <= len(dims) <= MAX_DIMENSIONS:
            key = "rubric_no_dimensions" if not dims else "rubric_dimension_count"
            raise UserError(messages.text(key, least=MIN_DIMENSIONS, most=MAX_DIMENSIONS, n=len(dims)))
        if not any(d.required for d in dims):
            raise UserError(messages.english("rubric_needs_answer"))
        # The rating page asks a text question in each response's comment box: one per rubric.
        if sum(1 for d in dims if not d.values) > 1:
            raise UserError(messages.english("rubric_one_text_question"))
        seen: set[str] = set()
        for d in dims:
            if d.name.lower() in seen:
                raise UserError(messages.text("rubric_named_twice", name=repr(d.name)))
            seen.add(d.name.lower())

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dimensions)

    def dimension(self, name: str) -> Dimension:
        for d in self.dimensions:
            if d.name == name:
                return d
        raise UserError(messages.text("rubric_unknown_dimension", name=repr(name), names=", ".join(self.names)))

    def scales(self) -> dict[str, tuple[int, int]]:
        return {d.name: (d.low, d.high) for d in self.dimensions}

    @property
    def numeric(self) -> tuple[str, ...]:
        """The questions analysed as numbers (scales, yes/no as a proportion): the statistics' dimensions."""
        return tuple(d.name for d in self.dimensions if d.qtype.analysis == "mean")

    @property
    def required(self) -> tuple[str, ...]:
        """The questions a rater must answer (every one but an optional comment)."""
        return tuple(d.name for d in self.dimensions if d.required)

    def of_analysis(self, analysis: str | None) -> tuple[Dimension, ...]:
        """The questions a kind of analysis reads ("mean", "counts"; None: never analysed)."""
        return tuple(d for d in self.dimensions if d.qtype.analysis == analysis)

    @property
    def is_default(self) -> bool:
        return self == DEFAULT_RUBRIC

    # What the store and the files need to know of the default rubric, asked here (issue 46): every
    # other module asks a rubric what it needs, not whether it is the default.
    @property
    def stored_json(self) -> str | None:
        """What a study's row and its files keep of the rubric: its JSON, or None for the default
        (which a study without one means: every study made before rubrics existed)."""
        return None if self.is_default else self.to_json()

    @property
    def in_rating_columns(self) -> bool:
        """Whether a rating record in an export file (RATING_COLUMNS) carries the answers in its
        three score columns (the default rubric's questions, as every file did before rubrics existed);
        any other rubric's go to `scores` and a column per question (arena/files/export_columns.py). The
        store keeps every rubric's answers alike, in `rating_scores` and `rating_texts`."""
        return self.is_default

    @property
    def one_scale(self) -> tuple[int, int] | None:
        """(low, high) when every question is on the same scale (the words "on 1-5" are then true),
        else None."""
        if any(d.kind != "scale" for d in self.dimensions):
            return None  # a yes/no, a choice or a comment is on no scale of points
        scales = {(d.low, d.high) for d in self.dimensions}
        return next(iter(scales)) if len(scales) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        return {"dimensions": [d.to_dict() for d in self.dimensions]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rubric:
        dims = data.get("dimensions") if isinstance(data, Mapping) else None
        if not isinstance(dims, list):
            raise UserError(messages.english("rubric_object"))
        return cls(tuple(Dimension.from_dict(d) for d in dims))

    @classmethod
    def from_json(cls, text: str) -> Rubric:
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise UserError(messages.text("rubric_not_json", detail=exc.msg)) from None

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
