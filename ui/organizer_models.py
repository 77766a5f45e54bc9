"""The Organizer's model choice for a new study (issues 25 and 27).

The app's model alone makes a study of methods, as before. With other models (or precision variants,
`gemma-3-270m@int8`) ticked, the study compares systems = (model, method), every method on each
model (arena/rating/systems.py), with one perplexity scorer for all of them: the same
`StudySpec(models=..., scorer_model=...)` that `python -m arena.studies create --models`
calls. The functions here turn the form's values into those arguments, so tests need no browser;
the choices are `arena.engines.model_choices`, as in Compare (not imported here: ui/i18n.py imports
this module for its labels, before the app has checked its settings).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from arena.inputs import language
from arena.model.llm import EMBEDDED, EmbeddedModel, embedded_model, split_variant
from arena.rating import guessing, systems
from common import messages
from common.errors import UserError
from common.messages import english, text

MODELS_LABEL = english("models")
MODELS_INFO = english("organizer_models_info")
SCORER_LABEL = english("organizer_scorer_label")
SCORER_FIRST = english("the_first_chosen_model")


def scorer_choices(names: Sequence[str]) -> list[str]:
    return [SCORER_FIRST, *names]


def model_notes(names: Sequence[str]) -> list[str]:
    """One Markdown line per embedded model offered (`model_note`), in the table's order."""
    offered = {_embedded_alias(n) for n in names}
    return [model_note(model) for alias, model in EMBEDDED.items() if alias in offered]


def model_note(model: EmbeddedModel, lang: str = "en") -> str:
    """Where the model is chosen: its alias, its licence (with the file its package ships) and, for a
    base model, that prompts are continued as raw text (ui/i18n.py gives each note its Chinese)."""
    where = model.licence_file.rsplit("/", 1)[-1]
    line = text("model_note", lang, alias=model.alias, licence=model.licence)
    line += text("model_note_where", lang, where=where) if where else ""
    return line + text("model_note_base" if model.base_model else "model_note_chat", lang)


def _embedded_alias(name: str) -> str:
    try:
        found = embedded_model(split_variant(name)[0])
    except UserError:
        return ""
    return found.alias if found is not None else ""


def study_models(chosen: Any, names: Sequence[str]) -> list[str] | None:
    """The `StudySpec`'s `models`: None for the app's model alone (a one-model study, as before; also
    when the form sent no models value, as an older API caller), else the chosen models in the
    picker's order. `UserError` for none ticked, or a name not offered."""
    if chosen is None:
        return None
    picked = [str(c) for c in (chosen if isinstance(chosen, (list, tuple)) else [chosen] if chosen else [])]
    unknown = [c for c in picked if c not in names]
    if unknown:
        raise UserError(messages.text("models_unknown", model=repr(unknown[0]), names=", ".join(names)))
    ordered = [n for n in names if n in picked]
    if not ordered:
        raise UserError(messages.english("models_choose_one"))
    return None if ordered == list(names[:1]) else ordered


def scorer_model(choice: Any, models: Sequence[str] | None, names: Sequence[str]) -> str | None:
    """The `StudySpec`'s `scorer_model`: None (the first chosen model; the app's for a one-model study)
    unless another offered model is chosen for a study over several."""
    choice = str(choice or "").strip()
    if models is None or choice in ("", SCORER_FIRST):
        return None
    if choice not in names:
        raise UserError(messages.text("models_unknown_scorer", model=repr(choice)))
    return choice


def guess_targets(guess: Any, models: Sequence[str] | None) -> Any:
    """The "which response came from METHOD?" choice over systems: a method asks about that method
    on each model in turn (each system is one response); "each" and "off" stay as they are."""
    if models is None or guess is None or not isinstance(guess, str):
        return guess
    if guess.strip().lower() in (*guessing.OFF, guessing.EACH):
        return guess
    return systems.cross(models, [guess.strip()])


def language_warning(
    prompts: Sequence[Any], chosen: Sequence[str] | None, app_model: str, names: Sequence[str], lang: str = "en"
) -> str:
    """One Markdown line when the study's Chinese prompts would go to an English-only model, else "" (in `lang`).

    Compare warns per prompt (arena/inputs/language.py); a study warns for all its prompts at once. The fix
    is on this page: the multilingual model's tick box in the models row, when the app offers one;
    a restart only when it does not."""
    count = sum(language.is_mostly_chinese(str(getattr(p, "prompt", p))) for p in prompts)
    models = list(chosen or []) or [app_model]
    english = [m for m in models if language.english_only(_named(m))]
    if not count or not english:
        return ""
    model = language.short_name(_named(embedded_name(english[0])))
    multilingual = [n for n in names if not language.english_only(_named(n))]
    chosen_multilingual = [m for m in models if m in multilingual]
    if chosen_multilingual:
        return "⚠ " + text("organizer_english_only_mixed", lang, model=model, count=count, gemma=chosen_multilingual[0])
    if multilingual:
        return "⚠ " + text("organizer_english_only_tick", lang, model=model, count=count, gemma=multilingual[0])
    return "⚠ " + text("organizer_english_only_restart", lang, model=model, count=count)


def embedded_name(name: str) -> str:
    """The embedded model's full name for an alias ("smollm2-135m" → "SmolLM2-135M-Instruct"), else `name`."""
    try:
        found = embedded_model(split_variant(name)[0])
    except UserError:
        return name
    return found.name if found is not None and found.name else name


def _named(name: str) -> Any:
    return SimpleNamespace(name=name, alias="")
