"""The rows the store hands out: frozen dataclasses, one per kind of row.

They are snapshots: changing a study goes through a `Store` method, never through a row. Each is
built from a result row by field name (`from_row`), so a column that newer code adds to a table does
not break a reader that does not know it yet.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, TypeVar

from common.rubric import DEFAULT_RUBRIC, Rubric, rubric_from

T = TypeVar("T")


def from_row(cls: type[T], row: Mapping[Any, Any], **overrides: Any) -> T:
    """`cls` filled from the row's columns of the same names (and `overrides`)."""
    return cls(**{f.name: overrides[f.name] if f.name in overrides else row[f.name] for f in fields(cls)})  # type: ignore[arg-type]


@dataclass(frozen=True)
class Study:
    id: int
    name: str
    kind: str  # "study" or "adhoc" (a quick rating from the Compare tab)
    model: str
    methods: tuple[str, ...]  # display order
    settings: dict[str, dict[str, Any]]  # {method: resolved settings}
    samples_per_method: int
    max_new_tokens: int
    base_seed: int
    blind_seed: int
    created_at: datetime
    state: str  # draft, open, closed or published (arena/lifecycle.py)
    guidelines: str | None  # for raters, Markdown; None = the app's default
    # Methods raters are asked to pick out after scoring an item, in order; () = no question.
    guess_methods: tuple[str, ...] = ()
    # The perplexity scorer named for the study (a model setting); None: the app's model (old studies).
    scorer_model: str | None = None
    design: str = "scores"  # "scores" (on the rubric's scales) or "pairwise" (A vs B votes)
    rubric: Rubric = DEFAULT_RUBRIC  # the questions raters answer; studies from before schema 8: the default
    exclusion_rules: tuple[str, ...] = ()  # evaluation.human.quality.RULES names chosen at creation
    # The file an imported study's ratings came from; None: rated in this app (its blind, its outputs).
    imported_from: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[Any, Any]) -> Study:
        return from_row(
            cls,
            row,
            design=row.get("design") or "scores",
            rubric=rubric_from(row.get("rubric")),
            exclusion_rules=tuple(json.loads(row.get("exclusion_rules") or "[]")),
            methods=tuple(json.loads(row["methods"] or "[]")),
            settings=json.loads(row["settings"] or "{}"),
            guess_methods=tuple(json.loads(row.get("guess_methods") or "[]")),
            scorer_model=row.get("scorer_model") or None,
            imported_from=row.get("imported_from") or None,
        )

    @property
    def generated(self) -> bool:
        """Whether the app generated this study's outputs from its methods (a study made here), rather
        than storing them as given (a quick rating from Compare, an imported study)."""
        return self.kind == "study" and self.imported_from is None


@dataclass(frozen=True)
class Item:
    id: int
    study_id: int
    ordinal: int  # order within the study, from 0
    public_id: str  # the only identifier a rater's browser sees
    scenario: str
    language: str
    prompt: str
    raw: bool  # the prompt goes to the model as is, without the chat template
    created_at: datetime
    attention: str | None = None  # JSON of an attention item (arena/rating/attention.py); None: a real item


@dataclass(frozen=True)
class Output:
    id: int
    item_id: int
    method: str
    sample_index: int
    settings: str  # canonical JSON of the complete effective settings, as stored and exported
    seed: int | None
    model: str
    text: str
    new_tokens: int
    prompt_tokens: int | None
    latency_ms: float | None
    ttft_ms: float | None
    tokens_per_s: float | None
    finish_reason: str | None
    created_at: datetime


@dataclass(frozen=True)
class Enrolment:
    """A rater's place in a study. The invite code itself is never stored, only whether one is live."""

    study_id: int
    rater_id: int
    rater: str  # display name
    rater_index: int  # row of the study's Latin square: 0-based arrival order
    has_code: bool
    revoked_at: datetime | None
    created_at: datetime


@dataclass(frozen=True)
class Rating:
    id: int
    rater_id: int
    output_id: int
    comment: str | None
    position: int | None  # 0 = shown as A
    created_at: datetime
    updated_at: datetime
    # {question: score, None for can't judge, or a text question's text}, on the study's rubric
    scores: Mapping[str, int | str | None] = field(default_factory=dict)

    def score(self, dimension: str) -> int | str | None:
        """The answer on `dimension` (None: can't judge, or an optional question left empty); a text
        question's answer is its text."""
        return self.scores.get(dimension)


__all__ = ["Enrolment", "Guess", "Item", "Output", "Rating", "Study", "from_row"]


@dataclass(frozen=True)
class Skip:
    """A rater's skip of an item, with the item's place in its study and the rater's name."""

    study_id: int
    item_id: int
    item_ordinal: int
    item_public_id: str
    rater: str
    reason: str
    note: str | None
    created_at: datetime


@dataclass(frozen=True)
class Flag:
    """A rater's flag on an item (output_id None) or on one response, as that rater saw it."""

    study_id: int
    item_id: int
    item_ordinal: int
    item_public_id: str
    rater: str
    output_id: int | None
    position: int | None  # 0 = shown as A to this rater
    reason: str
    note: str | None
    created_at: datetime


@dataclass(frozen=True)
class Guess:
    """A rater's answer to "Which response came from METHOD?" on one item, with the item's place."""

    study_id: int
    item_id: int
    item_ordinal: int
    item_public_id: str
    rater: str
    target_method: str
    n_responses: int
    guessed_position: int | None  # None = "don't know"
    true_position: int | None  # server-side only while the study is open; None: imported without it
    created_at: datetime
