"""Attention items: instructed responses the organizer adds to a study before it opens.

An attention item looks like every other item (a prompt of the study, one response per method, the
same form), but each of its responses says what to answer: "This response is an attention check. For
this response, choose 2 on every question." The app places them among the real items at creation
(spread over the study, at places drawn from the study's secret blind seed), stores them with
`items.attention` = {"instruction", "expect"}, and never counts their ratings: `Store.ratings_frame`
leaves them out, and a rater's submit of one records whether they followed the instruction
(`study_raters.attention_passed`, false once any is failed), which the exclusion rule "attention"
(evaluation/human/quality.py) reads.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from common import messages
from common.errors import UserError
from common.rubric import Rubric

MAX_ATTENTION_ITEMS = 10
DEFAULT_INSTRUCTION = "This response is an attention check. For this response, choose {value} on every question."


@dataclass(frozen=True)
class AttentionPlan:
    """How many attention items a study gets, the score they ask for, and the instruction's wording
    (`{value}` is replaced by the score)."""

    count: int = 0
    value: int = 2
    instruction: str = DEFAULT_INSTRUCTION

    @property
    def text(self) -> str:
        return self.instruction.replace("{value}", str(self.value))

    def check(self, rubric: Rubric, n_prompts: int) -> AttentionPlan:
        """This plan, or UserError: a count of 0 to MAX_ATTENTION_ITEMS (not more than the real items),
        a value on every dimension's scale, an instruction that names it."""
        if not 0 <= self.count <= MAX_ATTENTION_ITEMS:
            raise UserError(messages.text("attention_count_range", most=MAX_ATTENTION_ITEMS, n=self.count))
        if self.count > n_prompts:
            raise UserError(messages.text("attention_too_many", n=self.count, prompts=n_prompts))
        if self.count == 0:
            return self
        # An attention item asks for a value on the rubric's scales; its other questions are answered freely.
        scales = [d for d in rubric.dimensions if d.kind == "scale"]
        if not scales:
            raise UserError(messages.english("attention_needs_scale"))
        off = [d.name for d in scales if not d.low <= self.value <= d.high]
        if off:
            raise UserError(messages.text("attention_off_scale", value=self.value, questions=", ".join(off)))
        if str(self.value) not in self.text or not self.text.strip():
            raise UserError(messages.english("attention_instruction"))
        return self

    def as_json(self) -> str:
        return json.dumps({"instruction": self.text, "expect": self.value}, ensure_ascii=False, sort_keys=True)


def with_attention_items(items: Sequence[Mapping[str, Any]], plan: AttentionPlan, seed: int) -> list[dict[str, Any]]:
    """The study's items with the plan's attention items placed among them: each borrows the prompt of
    a real item (so that no prompt marks it) and goes into its own stretch of the study, at a place
    drawn from `seed` (never first: a rater's first item is a real one)."""
    real = [dict(i) for i in items]
    if plan.count == 0:
        return real
    rng = random.Random(seed)
    borrowed = rng.sample(range(len(real)), plan.count)
    stretch = len(real) / plan.count
    places = sorted(1 + int(k * stretch + rng.random() * stretch) for k in range(plan.count))
    out = list(real)
    for offset, (place, source) in enumerate(zip(places, borrowed, strict=True)):
        item = {k: v for k, v in real[source].items() if k in ("prompt", "scenario", "language", "raw")}
        out.insert(min(place + offset, len(out)), {**item, "attention": plan.as_json()})
    return out


def expected_score(attention: str | None) -> int | None:
    """The score an attention item asks for on every question (None: a real item)."""
    if not attention:
        return None
    return int(json.loads(attention)["expect"])


def instruction_of(attention: str) -> str:
    return str(json.loads(attention)["instruction"])


def followed(attention: str | None, scores: Sequence[Mapping[str, int | str | None]]) -> bool | None:
    """Whether every response of an attention item got the asked-for score on every question ("can't
    judge" included as not followed); None for a real item."""
    expect = expected_score(attention)
    if expect is None:
        return None
    return all(v == expect for given in scores for v in given.values())
