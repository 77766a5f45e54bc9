"""Creating a study: every setting checked, then the study and its items in one transaction."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import decoders
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Rubric

from .. import guessing, systems
from ..attention import AttentionPlan, instruction_of, with_attention_items
from ..numbers import whole_number
from ..prompts import PromptSpec, encode_prompt
from ..requests import MAX_NEW_TOKENS_RANGE
from ..store import Store
from ..store.schema import STUDY_DESIGNS
from ..store.store import clean_name
from .limits import MAX_ITEMS, MAX_RESPONSES, MAX_SAMPLES, expected_slots, method_names_in

# The exclusion rules a study may set at creation: evaluation.human.quality.RULES (a test keeps them equal).
EXCLUSION_RULES: tuple[str, ...] = ("attention", "straight-lining", "speeder", "against")


@dataclass(frozen=True)
class StudyPlan:
    """A study's settings, every one checked (`plan_study`); nothing stored yet."""

    name: str
    methods: list[str]
    settings: dict[str, Any]
    samples: int
    max_new_tokens: int
    seed: int
    guess_methods: Any
    scorer_model: str | None
    design: str
    prompts: list[PromptSpec]


def plan_study(
    name: str,
    prompts: Sequence[PromptSpec],
    *,
    methods: Sequence[str] | str | None = None,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    samples_per_method: int = 1,
    max_new_tokens: int = 128,
    base_seed: int | str | None = None,
    guess_methods: Any = None,
    models: Sequence[str] | None = None,
    scorer_model: str | None = None,
    design: str = "scores",
) -> StudyPlan:
    """Every setting of `create_study` checked, with no model and no store: a command line asks this
    before it spends minutes loading a model (the prompts' length is checked later, with the model)."""
    name = clean_name(name, "study name", 200) if isinstance(name, str) and name.strip() else ""
    if not name:
        raise UserError("give the study a name")
    named = method_names_in(name)
    if named:
        raise UserError(f"raters see the study's name; leave method names out of it ({', '.join(named)})")
    chosen = decoders.parse_methods(list(methods) if methods is not None and not isinstance(methods, str) else methods)
    if models:
        chosen = systems.cross(models, chosen)
        scorer_model = (scorer_model or "").strip() or systems.model_of(chosen[0])
    settings = dict(settings or {})
    unknown = set(settings) - set(chosen)
    if unknown:
        raise UserError(f"settings given for methods not in the study: {', '.join(sorted(unknown))}")
    resolved = {m: systems.decoder(m).resolve(settings.get(m)) for m in chosen}
    samples = whole_number(samples_per_method, "samples per stochastic method", 1, MAX_SAMPLES)
    max_new = whole_number(max_new_tokens, "max new tokens", *MAX_NEW_TOKENS_RANGE)
    typed = base_seed is not None and not (isinstance(base_seed, str) and not base_seed.strip())
    seed = whole_number(base_seed, "base seed", 0, 2**62) if typed else secrets.randbelow(2**62)
    slots = expected_slots(chosen, samples)
    targets = guessing.resolve_targets(guess_methods, slots)
    _check_design(design, chosen, samples, len(slots))
    prompts = list(prompts)
    if not prompts:
        raise UserError("the study has no prompts")
    if len(prompts) > MAX_ITEMS:
        raise UserError(f"{len(prompts)} prompts; the limit per study is {MAX_ITEMS}")
    return StudyPlan(name, chosen, resolved, samples, max_new, seed, targets, scorer_model, design, prompts)


def _check_design(design: str, chosen: list[str], samples: int, responses: int) -> None:
    if design not in STUDY_DESIGNS:
        raise UserError(f"a study is rated by {' or '.join(STUDY_DESIGNS)}, not {str(design)[:20]!r}")
    if design == "pairwise":
        # A pair compares two systems; two samples of one method would be a method against itself.
        if len(chosen) < 2:
            raise UserError("a pairwise study compares at least two methods")
        if samples != 1:
            raise UserError("a pairwise study compares methods: one sample per method")
    if responses > MAX_RESPONSES:
        raise UserError(
            f"{responses} responses per item is too many to rate side by side; "
            f"the limit is {MAX_RESPONSES} (fewer methods or samples)"
        )


def create_study(
    store: Store,
    name: str,
    prompts: Sequence[PromptSpec],
    *,
    methods: Sequence[str] | str | None = None,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    samples_per_method: int = 1,
    max_new_tokens: int = 128,
    base_seed: int | str | None = None,
    model: str = "",
    lm: Any = None,
    guidelines: str | None = None,
    guess_methods: Any = None,
    models: Sequence[str] | None = None,
    scorer_model: str | None = None,
    design: str = "scores",
    rubric: Rubric | None = None,
    exclusion_rules: Sequence[str] = (),
    attention: AttentionPlan | None = None,
) -> int:
    """Validate everything, then store the study and its items in one transaction (no generation yet).

    The study starts as a draft; `generate_study` opens it once every output is stored. With no
    `base_seed` the study gets a secret random one. With `lm`, every prompt is checked against the
    model's context (prompt + max_new_tokens) before anything is written. `guess_methods` (None: no
    question) names the methods raters are asked to pick out after each item (arena/guessing.py).

    `models` (two or more, or one other than the app's): the study compares systems = (model, method),
    every method on each model (arena/systems.py); `settings` and `guess_methods` then name systems.
    `scorer_model` is the one model whose perplexity Results shows for every system (default: the
    first of `models`; for a one-model study, None: the app's model, as before).

    `design`: "scores" (every response 1-5) or "pairwise" (two responses per item, one vote; then
    one sample per method; a guess target is asked about on the pairs it is one of).

    `rubric`: the study's questions and scales (default: the three 1-5 ones); `exclusion_rules`: the
    raters the analysis drops, chosen now (EXCLUSION_RULES); `attention`: attention items placed
    among the prompts (arena/attention.py), their responses stored now, never generated."""
    plan = plan_study(
        name,
        prompts,
        methods=methods,
        settings=settings,
        samples_per_method=samples_per_method,
        max_new_tokens=max_new_tokens,
        base_seed=base_seed,
        guess_methods=guess_methods,
        models=models,
        scorer_model=scorer_model,
        design=design,
    )
    rules, asked = check_quality(plan.design, rubric, exclusion_rules, attention, len(plan.prompts))
    if lm is not None:
        check_prompt_lengths(plan, lm)
    blind_seed = secrets.randbelow(2**62)
    with store.transaction():  # the study, its items and its attention items' responses: all or nothing
        sid = store.create_study(
            plan.name,
            model=model,
            methods=plan.methods,
            settings=plan.settings,
            samples_per_method=plan.samples,
            max_new_tokens=plan.max_new_tokens,
            base_seed=plan.seed,
            blind_seed=blind_seed,
            state="draft",
            items_=with_attention_items([p.as_item() for p in plan.prompts], asked, blind_seed),
            guidelines=guidelines,
            guess_methods=plan.guess_methods,
            scorer_model=plan.scorer_model,
            design=plan.design,
            rubric=rubric,
            exclusion_rules=rules,
        )
        _store_attention_responses(store, sid, expected_slots(plan.methods, plan.samples), model)
    return sid


def check_prompt_lengths(plan: StudyPlan, lm: Any) -> None:
    """Every prompt fits `lm`'s context with `plan.max_new_tokens`, as each method will read it."""
    for k, p in enumerate(plan.prompts, start=1):
        try:  # an instruction makes it longer
            for instruction in {systems.decoder(m).instruction(plan.settings[m], p.prompt) for m in plan.methods}:
                encode_prompt(lm.tokenizer, p.prompt, p.raw, "cpu", lm.context_length, plan.max_new_tokens, instruction)
        except UserError as exc:
            raise UserError(f"prompt {k}: {exc}; nothing was created") from None


def check_quality(
    design: str,
    rubric: Rubric | None,
    rules: Sequence[str] | str | None,
    attention: AttentionPlan | None,
    n_prompts: int,
) -> tuple[tuple[str, ...], AttentionPlan]:
    """The exclusion rules and the attention plan, checked against the design and the rubric (the
    command line checks them before it loads a model)."""
    chosen = check_exclusion_rules(rules)
    plan = (attention or AttentionPlan()).check(rubric or DEFAULT_RUBRIC, n_prompts)
    if design == "pairwise" and (plan.count or (rubric is not None and not rubric.is_default)):
        raise UserError("a pairwise study asks for one vote per pair: a rubric and attention items are for scores")
    if "attention" in chosen and not plan.count:
        raise UserError('the exclusion rule "attention" needs attention items (add at least one)')
    return chosen, plan


def read_rubric(path: str | Path) -> Rubric:
    """A rubric from a JSON file (common/rubric.py); UserError naming the file when it is unreadable or wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the rubric {Path(path).name}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return Rubric.from_json(text)
    except UserError as exc:
        raise UserError(f"{Path(path).name}: {exc}") from None


def check_exclusion_rules(rules: Sequence[str] | str | None) -> tuple[str, ...]:
    """The exclusion rules chosen at creation, in EXCLUSION_RULES order (a comma-separated text or a
    list); UserError on an unknown one."""
    given = [r.strip() for r in (rules.split(",") if isinstance(rules, str) else rules or ()) if r.strip()]
    unknown = [r for r in given if r not in EXCLUSION_RULES]
    if unknown:
        raise UserError(f"unknown exclusion rule {unknown[0]!r} (known: {', '.join(EXCLUSION_RULES)})")
    return tuple(r for r in EXCLUSION_RULES if r in given)


def _store_attention_responses(store: Store, study_id: int, slots: Sequence[tuple[str, int]], model: str) -> None:
    """Each attention item's responses: the instruction, once per method and sample, as a real item has."""
    for item in store.items(study_id):
        if item.attention:
            for method, sample in slots:
                text = instruction_of(item.attention)
                store.add_output(item.id, method, sample, text=text, settings={}, seed=None, model=model, new_tokens=0)
