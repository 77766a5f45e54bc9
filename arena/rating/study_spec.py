"""A study's settings as one value: `StudySpec`, built by each door that makes a study (the Organizer's
form, `python -m arena.studies create`, the import of another team's ratings), checked once
(`StudySpec.checked`) and taken as it is by the one creation function (`arena.studies.create_study`)
down to the store. Adding a setting is adding a field here (and its column), not a keyword argument
to five signatures. Also what a study may hold (how many prompts, samples and side-by-side responses,
which slots an item gets, a name that gives no method away), which the checks read.

Light: the store and the import load this module, and neither may load torch, so the decoders are
imported where a check needs them.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena.inputs.numbers import whole_number
from arena.inputs.prompts import PromptSpec
from arena.inputs.text import folded
from arena.rating import guessing
from arena.rating.attention import AttentionPlan
from arena.store.schema import STUDY_DESIGNS
from arena.store.values import clean_name
from common import messages
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Rubric

MAX_ITEMS = 1000
MAX_SAMPLES = 10
MAX_RESPONSES = 8  # responses per item a rater sees at once (A..H)
# The exclusion rules a study may set at creation: evaluation.human.quality.RULES (a test keeps them equal).
EXCLUSION_RULES: tuple[str, ...] = ("attention", "straight-lining", "speeder", "against", "unrelated")


@dataclass(frozen=True)
class StudySpec:
    """Everything a study is made of, as a door gives it (a form's text, a command line's words) until
    `checked()` turns it into the study that is stored.

    `methods`: names or a comma-separated text (None: the default three); with `models` (two or
    more, or one other than the app's) every method runs on each model, and the checked spec's
    methods are the systems "model · method" (arena/rating/systems.py); `settings` and `guess_methods` then
    name systems. `scorer_model`: the one model whose perplexity Results shows (default: the first of
    `models`). `base_seed` None or blank: a secret random one. `guess_methods` (None: no question):
    the methods raters are asked to pick out after each item (arena/rating/guessing.py). `design`: "scores"
    or "pairwise". `rubric` None: the default three 1-5 questions. `exclusion_rules`: the raters the
    analysis drops, chosen now (EXCLUSION_RULES; a list or a comma-separated text). `attention`:
    attention items placed among the prompts (arena/rating/attention.py). `imported_from`: the file an
    imported study's ratings came from (its methods are then another team's names, never checked
    against the decoders)."""

    name: str
    prompts: tuple[PromptSpec, ...] = ()
    methods: Sequence[str] | str | None = None
    models: tuple[str, ...] = ()
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    samples_per_method: int | str = 1
    max_new_tokens: int | str = 128
    base_seed: int | str | None = None
    guidelines: str | None = None
    guess_methods: Any = None
    scorer_model: str | None = None
    design: str = "scores"
    rubric: Rubric | None = None
    exclusion_rules: Sequence[str] | str = ()
    attention: AttentionPlan = field(default_factory=AttentionPlan)
    imported_from: str | None = None
    is_checked: bool = field(default=False, compare=False, repr=False)

    def checked(self) -> StudySpec:
        """Every setting checked, with no model and no store (a command line asks this before it spends
        minutes loading a model; the prompts' length is checked with the model, by `create_study`):
        the spec as it will be stored, or `UserError` saying what to change. A checked spec is its own
        check, so its random seed stays the one drawn."""
        if self.is_checked:
            return self
        name = self._checked_name()
        methods, scorer = self._systems()
        settings = self._settings(methods)
        samples = whole_number(self.samples_per_method, messages.english("what_samples"), 1, MAX_SAMPLES)
        max_new = whole_number(
            self.max_new_tokens, messages.english("board_column_max_new_tokens"), *_max_new_tokens_range()
        )
        slots = expected_slots(methods, samples)
        targets = guessing.resolve_targets(self.guess_methods, slots)
        _check_design(self.design, methods, samples, len(slots))
        if not self.prompts:
            raise UserError(messages.english("study_no_prompts"))
        if len(self.prompts) > MAX_ITEMS:
            raise UserError(messages.text("study_too_many_prompts", n=len(self.prompts), limit=MAX_ITEMS))
        seed = self._seed()
        rules, attention = self._quality()
        return replace(
            self, name=name, prompts=tuple(self.prompts), methods=tuple(methods), models=tuple(self.models),
            settings=settings, samples_per_method=samples, max_new_tokens=max_new, base_seed=seed,
            guess_methods=tuple(targets), scorer_model=scorer, exclusion_rules=rules, attention=attention,
            is_checked=True,
        )  # fmt: skip

    def store_fields(self) -> dict[str, Any]:
        """The study's columns as `Store.create_study` takes them (what the store adds itself, the kind,
        model, blind seed, state and items, is the caller's)."""
        return dict(
            name=self.name,
            methods=_listed(self.methods),
            settings={m: dict(s) for m, s in self.settings.items()},
            samples_per_method=int(self.samples_per_method),
            max_new_tokens=int(self.max_new_tokens),
            base_seed=int(self.base_seed or 0),
            guidelines=self.guidelines,
            guess_methods=_listed(self.guess_methods),
            scorer_model=self.scorer_model,
            design=self.design,
            rubric=self.rubric,
            exclusion_rules=_listed(self.exclusion_rules),
            imported_from=self.imported_from,
        )

    def _checked_name(self) -> str:
        name = clean_name(self.name, "study name", 200) if isinstance(self.name, str) and self.name.strip() else ""
        if not name:
            raise UserError(messages.english("study_needs_name"))
        named = method_names_in(name)
        if named:
            raise UserError(messages.text("study_name_names_methods", methods=", ".join(named)))
        return name

    def _systems(self) -> tuple[list[str], str | None]:
        """The study's methods (systems, with `models`) and its perplexity scorer."""
        import decoders  # late: the store loads this module, and the decoders load torch
        from arena.rating import systems  # late: it loads the decoders

        given = self.methods
        chosen = decoders.parse_methods(list(given) if given is not None and not isinstance(given, str) else given)
        if not self.models:
            return chosen, self.scorer_model
        chosen = systems.cross(list(self.models), chosen)
        return chosen, (self.scorer_model or "").strip() or systems.model_of(chosen[0])

    def _settings(self, methods: list[str]) -> dict[str, dict[str, Any]]:
        """Each method's settings as it will run them, its defaults included (SEEDS-DIGEST: what is stored is
        what ran)."""
        from arena.rating import systems  # late: it loads the decoders (torch)

        unknown = set(self.settings) - set(methods)
        if unknown:
            raise UserError(messages.text("study_settings_unknown", methods=", ".join(sorted(unknown))))
        return {m: systems.decoder(m).resolve(self.settings.get(m)) for m in methods}

    def _seed(self) -> int:
        seed = self.base_seed
        typed = seed is not None and not (isinstance(seed, str) and not seed.strip())
        return whole_number(seed, messages.english("what_base_seed"), 0, 2**62) if typed else secrets.randbelow(2**62)

    def _quality(self) -> tuple[tuple[str, ...], AttentionPlan]:
        """The exclusion rules and the attention plan, checked against the design and the rubric."""
        rules = check_exclusion_rules(self.exclusion_rules)
        plan = self.attention.check(self.rubric or DEFAULT_RUBRIC, len(self.prompts))
        if self.design == "pairwise" and (
            plan.count or (self.rubric is not None and self.rubric.stored_json is not None)
        ):
            raise UserError(messages.english("study_pairwise_no_rubric"))
        if "attention" in rules and not plan.count:
            raise UserError(messages.english("study_attention_rule_needs_items"))
        return rules, plan


def _listed(names: Sequence[str] | str | None) -> list[str]:
    """Names as a list: a text is comma-separated (as a command line gives them)."""
    if isinstance(names, str):
        return [n.strip() for n in names.split(",") if n.strip()]
    return list(names or ())


def _max_new_tokens_range() -> tuple[int, int]:
    from arena.runs.requests import MAX_NEW_TOKENS_RANGE  # late: the engine seam's types load the decoders (torch)

    return MAX_NEW_TOKENS_RANGE


def _check_design(design: str, chosen: list[str], samples: int, responses: int) -> None:
    if design not in STUDY_DESIGNS:
        raise UserError(
            messages.text("study_design_unknown", designs=" or ".join(STUDY_DESIGNS), design=repr(str(design)[:20]))
        )
    if design == "pairwise":
        # A pair compares two systems; two samples of one method would be a method against itself.
        if len(chosen) < 2:
            raise UserError(messages.english("study_pairwise_two_methods"))
        if samples != 1:
            raise UserError(messages.english("study_pairwise_one_sample"))
    if responses > MAX_RESPONSES:
        raise UserError(messages.text("study_too_many_responses", n=responses, limit=MAX_RESPONSES))


def check_exclusion_rules(rules: Sequence[str] | str | None) -> tuple[str, ...]:
    """The exclusion rules chosen at creation, in EXCLUSION_RULES order (a comma-separated text or a
    list); UserError on an unknown one."""
    given = [r.strip() for r in (rules.split(",") if isinstance(rules, str) else rules or ()) if r.strip()]
    unknown = [r for r in given if r not in EXCLUSION_RULES]
    if unknown:
        raise UserError(messages.text("study_unknown_rule", rule=repr(unknown[0]), known=", ".join(EXCLUSION_RULES)))
    return tuple(r for r in EXCLUSION_RULES if r in given)


def expected_slots(methods: Sequence[str], samples_per_method: int) -> list[tuple[str, int]]:
    """(method, sample_index) every item gets: one output of a deterministic method, n of a stochastic one.
    One sample each needs no decoder: an imported study's methods are another team's names."""
    if samples_per_method <= 1:
        return [(m, 0) for m in methods]
    from arena.rating import systems  # late: it loads the decoders (torch), which one sample each never needs

    return [(m, s) for m in methods for s in range(samples_per_method if systems.decoder(m).stochastic else 1)]


def _letters(text: str) -> str:
    """Lower-case letters and digits only: "BS-4", "bs 4" and "Bs_4" all read "bs4"."""
    return "".join(ch for ch in folded(text) if ch.isalnum())


def method_names_in(name: str) -> list[str]:
    """Registered method names that a study name gives away, ignoring case, spaces and punctuation."""
    import decoders  # late: the store loads this module, and the decoders load torch

    letters = _letters(name)
    return [m for m in decoders.names() if _letters(m) and _letters(m) in letters]
