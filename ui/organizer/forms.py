"""What the Organizer's "Create a study" form means: where the prompts come from (the content decides),
the study's design, the blind question's choices, and the whole form as the study's `StudySpec`. No
Gradio: tests call these directly."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import decoders
from arena import studies
from arena.inputs.numbers import whole_number
from arena.rating import guessing
from arena.rating.attention import MAX_ATTENTION_ITEMS, AttentionPlan
from arena.rating.study_spec import StudySpec
from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS
from common import messages
from common.errors import UserError
from common.messages import english
from common.rubric import Rubric

from .. import organizer_models
from ..safe import md_text

# The rubric box's example: what a study with its own questions writes (common/rubric.py).
RUBRIC_EXAMPLE = (
    '{"dimensions": [{"name": "quality", "low": 1, "high": 10, "description": "How good is the response?", '
    '"anchors": {"1": "unusable", "10": "as good as it gets"}}, {"name": "creativity", "low": 1, "high": 7}]}'
)
# The exclusion rules a study may set at creation (arena.studies.EXCLUSION_RULES), in plain words.
EXCLUSION_CHOICES: list[tuple[str, str]] = [
    (english(f"exclude_{rule.replace('-', '_')}"), rule)
    for rule in ("attention", "straight-lining", "speeder", "against", "unrelated")
]


def rubric_example() -> str:
    """The rubric box's example (its button), for the organizer to edit."""
    return RUBRIC_EXAMPLE


def rubric_of_text(text: Any) -> Rubric | None:
    """The rubric typed in the creation form: None when the box is empty (the default three 1-5
    questions), else the parsed rubric or UserError ("the rubric: ...")."""
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return Rubric.from_json(text)
    except UserError as exc:
        raise UserError(messages.text("organizer_rubric_error", error=str(exc))) from None


def rubric_preview(text: Any, lang: str = "en") -> str:
    """What raters will be asked, as a Markdown table, or the one line saying what is wrong, in `lang`
    (the organizer's own names, descriptions and labels as written)."""
    try:
        rubric = rubric_of_text(text)
    except UserError as exc:
        return messages.text("rubric_preview_error", lang, error=md_text(messages.translated(str(exc), lang)))
    if rubric is None:
        return messages.text("organizer_rubric_default", lang)
    rows = [
        f"| {md_text(d.name)} | {kind_words(d, lang)}"
        f"{messages.text('rubric_preview_points', lang, n=d.points) if d.kind == 'scale' else ''} | "
        f"{md_text(d.description) or '–'} | "
        # a choice's labels where a scale has its anchors: what the rater picks from
        + (" · ".join([f"{p} = {md_text(t)}" for p, t in d.anchors] + [md_text(x) for x in d.labels]) or "–")
        + " |"
        for d in rubric.dimensions
    ]
    head = messages.text("rubric_preview_head", lang) + "\n|---|---|---|---|\n"
    return head + "\n".join(" ".join(r.splitlines()) for r in rows)


def kind_words(question: Any, lang: str = "en") -> str:
    """A question's kind in the preview's legend, in `lang`: "1-10", "yes/no", "one of 3", "comment"."""
    if lang == "en" or question.kind == "scale":
        return str(question.scale_words)
    if question.kind == "yes-no":
        return messages.text("scale_yes_no", lang)
    if question.kind == "choice":
        return messages.text("rubric_kind_choice", lang, n=len(question.labels))
    return messages.text("rubric_kind_comment", lang)


# The study's design, as the creation form names it -> arena's name (STUDY_DESIGNS).
DESIGNS: dict[str, str] = {english("design_scores"): "scores", english("design_pairwise"): "pairwise"}
SOURCE_KEYS = ("builtin", "pasted", "uploaded", "tasks")
SOURCES = tuple(english(f"source_{k}") for k in SOURCE_KEYS)
# The form's radios send a key, not the English they show: a browser that shows the label in Chinese
# sends back the value, and Gradio refuses a value that is not one of the choices' (a translated label).
SOURCE_CHOICES = list(zip(SOURCES, SOURCE_KEYS))
DESIGN_CHOICES = list(DESIGNS.items())
# "Measure the blind": which method raters are asked to pick out after each item (arena/rating/guessing.py).
GUESS_CHOICES: list[tuple[str, str]] = [
    ("No question", "off"),
    *[(f"Ask which response came from {m}", m) for m in decoders.names()],
    ("Ask about each method in turn", guessing.EACH),
]
BOTH_SOURCES = english("organizer_both_sources")


def file_path(upload: Any) -> str | None:
    if upload is None:
        return None
    if isinstance(upload, (str, Path)):
        return str(upload)
    return getattr(upload, "name", None) or (upload.get("path") if isinstance(upload, dict) else None)


def effective_source(source: str, pasted: Any, upload: Any) -> str:
    """Where the prompts come from: the content decides. A non-empty pasted box or an uploaded file
    wins over the radio (text put in by a script, or a paste the radio did not notice, is never
    silently replaced by the built-ins); both at once is a question for the organizer (UserError)."""
    source = dict(zip(SOURCE_KEYS, SOURCES)).get(source, source)  # the radio's key, or the label itself
    has_pasted, has_file = bool(str(pasted or "").strip()), bool(file_path(upload))
    if has_pasted and has_file:
        raise UserError(BOTH_SOURCES)
    if has_pasted:
        return SOURCES[1]
    if has_file:
        return SOURCES[2]
    return source


def prompts_from(source: str, language: str, pasted: str, upload: Any) -> list[studies.PromptSpec]:
    source = effective_source(source, pasted, upload)
    if source == SOURCES[0]:
        return studies.builtin_prompts(None if language == "all" else language)
    if source == SOURCES[1]:
        specs = studies.parse_pasted(pasted)
        if not specs:
            raise UserError(english("organizer_paste_prompts"))
        return specs
    if source == SOURCES[2]:
        path = file_path(upload)
        if not path:
            raise UserError(english("organizer_upload_prompts"))
        return studies.parse_prompt_file(path)
    if source == SOURCES[3]:
        return studies.task_prompts(None if language == "all" else language)
    raise UserError(english("organizer_choose_source"))


@dataclass(frozen=True)
class StudyForm:
    """The creation form's values, one field per control in the page's order (ui/organizer/__init__.py
    wires `FIELDS` to its controls by these names): the one value Create hands on. Unchecked, as typed."""

    study_name: Any
    source: Any = SOURCES[0]
    language: Any = "all"
    pasted: Any = ""
    upload: Any = None
    methods: Any = tuple(decoders.DEFAULT_METHODS)
    samples: Any = 1
    max_new_tokens: Any = DEFAULT_MAX_NEW_TOKENS
    base_seed: Any = ""
    guidelines: Any = ""
    guess: Any = None
    design: Any = None
    models: Any = None
    scorer: Any = None
    rubric: Any = None
    attention_items: Any = None
    exclusion: Any = None

    def spec(self, model_names: list[str]) -> StudySpec:
        """The study's settings: unchecked, except what only the form can say (its rubric box, its
        models row, where the prompts come from); `StudySpec.checked` checks the rest."""
        rubric = rubric_of_text(self.rubric)  # first: a typo in the rubric is one line, at once
        plan = AttentionPlan(
            whole_number(self.attention_items or 0, english("what_attention_items"), 0, MAX_ATTENTION_ITEMS)
        )
        chosen = organizer_models.study_models(self.models, model_names)
        return StudySpec(
            self.study_name,
            tuple(prompts_from(self.source, self.language, self.pasted, self.upload)),
            methods=list(self.methods or []),
            models=tuple(chosen or ()),
            samples_per_method=self.samples,
            max_new_tokens=self.max_new_tokens,
            base_seed=self.base_seed,
            guidelines=self.guidelines,
            guess_methods=organizer_models.guess_targets(self.guess, chosen),
            scorer_model=organizer_models.scorer_model(self.scorer, chosen, model_names),
            design=DESIGNS.get(self.design or "", self.design if self.design in DESIGNS.values() else "scores"),
            rubric=rubric,
            exclusion_rules=studies.check_exclusion_rules(list(self.exclusion or [])),
            attention=plan,
        )


# The form's fields in the page's order: the inputs of Create, one control each.
FIELDS: tuple[str, ...] = tuple(f.name for f in fields(StudyForm))
