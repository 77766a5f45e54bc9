"""What Compare's form means: the presets, one control per decoder parameter (from the registry, so a
new decoder file shows up with no UI code), the request its values make, and the notes around the
prompt (examples of a study being rated, a Chinese prompt on an English-only model, a small model).
Pure functions: the tests call them."""

from __future__ import annotations

from typing import Any

import gradio as gr

import decoders
from arena.inputs import language
from arena.inputs.prompts import clean_prompt
from arena.runs.requests import RunRequest, validate_request
from arena.settings import current as current_settings
from arena.studies import reserved
from common.errors import UserError
from common.messages import english, text
from decoders import Param

from ..i18n import t
from ..safe import md_text

# The article's presets: (method, settings). Choosing one selects that method and sets its controls.
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "Creative": ("TS-Temp", {"temperature": 1.1}),
    "Balanced": ("TS-Tilted", {"temperature": 0.8, "alpha": 0.1}),
    "Precise": ("BS-4", {"length_penalty": 0.8}),
}

# Below this many parameters the Compare tab says what not to expect from the model.
SMALL_MODEL_PARAMS = 1_000_000_000


RESERVED_EXAMPLE = english("compare_reserved_example")
# The example tables' columns (ids in common/messages.py): the prompt, and whether it is continued raw.
EXAMPLE_HEADERS = ("prompt", "raw_continuation_no_chat_template")
RESERVED_PICKED = english("compare_reserved_picked")


def compare_token_cap() -> int:
    """The most max_new_tokens x methods one anonymous Compare run may ask for (ARENA_COMPARE_MAX_TOKENS)."""
    return current_settings().compare_max_tokens


def check_token_cap(req: RunRequest, cap: int | None = None, models: int = 1) -> None:
    cap = compare_token_cap() if cap is None else cap
    total = req.max_new_tokens * len(req.methods) * models
    if total > cap:
        times = f"{len(req.methods)} methods × {models} models" if models > 1 else f"{len(req.methods)} methods"
        raise UserError(
            f"{times} × {req.max_new_tokens} max_new_tokens = {total:,} tokens, over this "
            f"app's limit of {cap:,} per Compare run (ARENA_COMPARE_MAX_TOKENS); choose fewer methods"
            + (", fewer models" if models > 1 else "")
            + " or fewer tokens"
        )


def refusal(lm: Any, prompt: Any, selected: Any, raw: Any, seed: Any, max_new: Any, values: list[Any]) -> str:
    """Why Run would be refused (bad settings, over the token cap, a prompt reserved for a study), as
    one line for the page; "" when it would run. The run itself checks again (API callers get an error)."""
    try:
        clean_prompt(prompt or "")  # an empty prompt is one line by Run, not an error badge after the run started
        req = make_request(prompt, selected, raw, seed, max_new, values)
        reserved.admit(lm, req.prompt, req.raw)
    except UserError as exc:
        return f"⚠ {md_text(exc)}"
    return ""


def example_samples(lm: Any, scenarios: Any, lang: str = "en") -> list[list[Any]]:
    """The example list as Compare shows it now, in `lang`: a prompt of a study being rated is greyed
    out (its text replaced by a note; it would only be refused), every other one as it is, and "raw"
    in words. Same length and order as `scenarios`, so a click's index still names its scenario.
    `lm` None (the page as built, before its first load): nothing greyed out yet."""
    return [
        [text("compare_reserved_example", lang) if lm is not None and example_reserved(lm, sc) else sc.prompt,
         text("true" if sc.raw else "false", lang)]
        for sc in scenarios
    ]  # fmt: skip


def example_headers(lang: str = "en") -> list[str]:
    """The columns' names in `lang` (Gradio does not translate a Dataset's headers in the browser: they
    are written on load in the reader's language, as the time line is)."""
    return [text(key, lang) for key in EXAMPLE_HEADERS]


def language_note(lm: Any, prompt: Any) -> str:
    """The line under the prompt for a mostly-Chinese prompt on an English-only model (arena/inputs/language.py), else ""."""
    if not language.model_warning(str(prompt or ""), lm):
        return ""
    return f"⚠ {language.short_name(lm)} {t(language.MODEL_WARNING)}"


def scenario_max_new(lm: Any, scenario: Any, selected: Any) -> int:
    """max_new_tokens for a picked scenario: its language's default on this model's tokenizer
    (a Chinese one needs more tokens for the same text), within the Compare cap for the chosen methods."""
    # On an English-only model a Chinese prompt gets an off-topic answer anyway (language_note says so):
    # its example keeps the English default rather than 352 tokens, over an hour for three methods on a CPU.
    lang = "en" if language.english_only(lm) else scenario.language
    wanted = language.max_new_tokens_for(lang, getattr(lm, "tokenizer", None))
    count = len(selected) if isinstance(selected, (list, tuple)) and selected else 1
    return max(1, min(wanted, compare_token_cap() // count))


def example_reserved(lm: Any, scenario: Any) -> bool:
    try:
        reserved.admit(lm, scenario.prompt, scenario.raw)
    except UserError:
        return True
    return False


def _group(family: str, lang: str) -> str:
    if family.startswith("article-"):
        return text("more_methods_group_article", lang, n=family.removeprefix("article-"))
    return text("more_methods_group_standard", lang)


def _hint(description: str, width: int = 64) -> str:
    """A description's first clause ("Min-p sampling (p=0.1, T=1)"), cut to `width` characters."""
    head = description.split(": ")[0].split(". ")[0].rstrip(".")
    return head if len(head) <= width else head[: width - 1].rstrip() + "…"


def more_choices(names: list[str], lang: str = "en") -> list[tuple[str, str]]:
    """ "More methods" as (label, method): the articles' other decoders first, then the standard
    samplers, each labelled with its group and, in English, the first clause of its description (the
    registry's descriptions are English; a Chinese reader gets the group)."""
    found = [decoders.get(n) for n in names]
    found.sort(key=lambda d: (not d.family.startswith("article-"), d.family, d.name.lower()))
    return [
        (f"{d.name} · {_group(d.family, lang)}" + (f": {_hint(d.description)}" if lang != "zh" else ""), d.name)
        for d in found
    ]


def param_keys() -> list[tuple[str, Param]]:
    """Every (decoder name, param) pair, in the order the controls are built."""
    return [(d.name, p) for d in decoders.all_decoders() for p in d.params]


def make_request(
    prompt: str,
    methods: list[str],
    raw: bool,
    seed: Any,
    max_new_tokens: Any,
    values: list[Any],
    record: bool = False,
) -> RunRequest:
    """A validated RunRequest from the raw control values (one per `param_keys()` entry)."""
    keys = param_keys()
    if len(values) != len(keys):
        raise UserError("the settings form is out of date; reload the page")
    settings: dict[str, dict[str, Any]] = {}
    for (method, param), value in zip(keys, values):
        if method in (methods or []) and value is not None and value != param.default:
            settings.setdefault(method, {})[param.name] = value
    seed_value = None if seed in (None, "") else seed
    req = validate_request(
        RunRequest(prompt or "", list(methods or []), settings, max_new_tokens, seed_value, bool(raw), bool(record))
    )
    check_token_cap(req)
    return req


def apply_preset(name: str) -> tuple[str, dict[str, Any]]:
    if name not in PRESETS:
        raise UserError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return PRESETS[name]


def preset_note(name: str) -> str:
    """What a preset set, in words, for the line under the presets (Markdown)."""
    method, values = apply_preset(name)
    d = decoders.get(method)
    set_ = ", ".join(f"{_label(d, k)} = {v}" for k, v in values.items())
    rest = ", ".join(f"{p.label or p.name} = {p.default}" for p in d.params if p.name not in values)
    return (
        f"**{name}** set **{method}**: {set_}"
        + (f"; its other settings are back to their defaults ({rest})" if rest else "")
        + f". See Settings › {method}; change any slider there and the run uses that instead."
    )


def _label(d, name: str) -> str:
    return next((p.label or p.name for p in d.params if p.name == name), name)


RAW_ONLY_NOTE = "This is a base model without a chat template: every prompt is continued as raw text."


def model_size_note(lm, lang: str = "en") -> str:
    """One line when the model is small: what it will do badly (a 135M model and a Chinese prompt)."""
    try:
        n = sum(p.numel() for p in lm.model.parameters())
    except Exception:
        return ""
    if not n or n >= SMALL_MODEL_PARAMS:
        return ""
    size = f"{n / 1e6:.0f}M" if n < 1e9 else f"{n / 1e9:.1f}B"
    return text("compare_small_model", lang, name=lm.name.split(" ")[0], size=size)


def control_for(param: Param) -> gr.components.Component:
    label = param.label or param.name
    if param.kind == "bool":
        return gr.Checkbox(value=param.default, label=label, info=param.help or None)
    if param.kind == "choice":
        return gr.Dropdown(choices=list(param.choices), value=param.default, label=label, info=param.help or None)
    if param.kind == "text":
        return gr.Textbox(value=param.default, label=label, info=param.help or None, lines=3, max_lines=8)
    if param.minimum is None or param.maximum is None:  # a slider needs both ends
        return gr.Number(value=param.default, label=label, info=param.help or None)
    return gr.Slider(
        minimum=param.minimum,
        maximum=param.maximum,
        value=param.default,
        step=param.step or (1 if param.kind == "int" else 0.01),
        label=label,
        info=param.help or None,
    )
