"""Which language a prompt is in, what a model was trained for, and how many tokens Chinese needs.

Two things Compare shows for a Chinese prompt come from here:

* `model_warning(prompt, lm)`: one line when a prompt is mostly Chinese and the loaded model was
  trained on English only (SmolLM2 answers "'光合作用' is a term coined by William Shakespeare…"),
  pointing at the multilingual Gemma 3 270M (`--model gemma-3-270m`, docs/models.md).
* `max_new_tokens_for(language, tokenizer)`: the max-new-tokens default of a built-in scenario.
  A byte-level BPE trained on English spends several tokens on one Chinese character, so the English
  default gives one clause in Chinese. The factor is measured on this model's own tokenizer, from
  the article's parallel zh/en scenarios: SmolLM2 needs 150 tokens where the English needs 58
  (x2.59), Gemma 3 63 for 57 (x1.11).

>>> chinese_share("解释一下量子计算的基本原理。")
1.0
>>> is_mostly_chinese("What does 量子 mean?")
False
"""

from __future__ import annotations

import math
import re
from typing import Any

from arena.inputs.prompts import SCENARIOS
from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS, MAX_NEW_TOKENS_RANGE
from common.messages import english

# Model names (lower case) of the families trained on English only. SmolLM2's card: "primarily
# understand and generate content in English".
ENGLISH_ONLY = ("smollm",)
CHINESE_SHARE = 0.5  # more than half of the letters are Han characters
# Chinese scenarios: at least the English default, at most this (three methods stay under the
# Compare cap of 2,048 tokens per run).
ZH_MAX_NEW_TOKENS = 512
ROUND_TO = 32

MODEL_WARNING = english("model_english_only")

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")


def chinese_share(text: str) -> float:
    """Han characters over (Han characters + Latin words) in `text`; 0.0 for a text with neither.

    A Latin word counts once, as a Han character does, since each is about one unit a reader reads;
    digits, punctuation and spaces count for neither, so "3cm" in a Chinese maths problem or
    "Python" in a Chinese coding task does not make it English."""
    text = str(text or "")
    han = len(_HAN.findall(text))
    latin_words = len(_LATIN_WORD.findall(_HAN.sub(" ", text)))
    total = han + latin_words
    return han / total if total else 0.0


def is_mostly_chinese(text: str) -> bool:
    """More Han characters than Latin words: a prompt a reader calls Chinese."""
    return chinese_share(text) > CHINESE_SHARE


def english_only(lm: Any) -> bool:
    """Whether the loaded model (a LoadedModel, or anything with `name`/`alias`) was trained on English only."""
    name = f"{getattr(lm, 'alias', '') or ''} {getattr(lm, 'name', '') or ''}".lower()
    return any(family in name for family in ENGLISH_ONLY)


def short_name(lm: Any) -> str:
    """The model's name without its packaging note: "SmolLM2-135M-Instruct"."""
    name = str(getattr(lm, "name", "") or getattr(lm, "alias", "") or "this model")
    return name.split(" (")[0].split(" · ")[0].rsplit("/", 1)[-1].strip() or "this model"


def model_warning(prompt: str, lm: Any) -> str:
    """One line for a mostly-Chinese prompt on an English-only model, else "".

    The fixed part is `MODEL_WARNING` (ui/i18n.py translates it); the model's name goes in front."""
    if not is_mostly_chinese(prompt) or not english_only(lm):
        return ""
    return f"{short_name(lm)} {MODEL_WARNING}"


def chinese_token_factor(tokenizer: Any) -> float:
    """Tokens for the article's Chinese scenarios over tokens for their English versions, with `tokenizer`."""
    counts = {"zh": 0, "en": 0}
    for s in SCENARIOS:
        if s.language in counts:
            counts[s.language] += len(tokenizer(s.prompt, add_special_tokens=False)["input_ids"])
    return counts["zh"] / counts["en"] if counts["en"] else 1.0


def max_new_tokens_for(language: str, tokenizer: Any = None) -> int:
    """The max-new-tokens default for a scenario in `language` on a model with `tokenizer`.

    English keeps the default (128). Chinese gets the default times this tokenizer's measured
    zh/en factor, rounded up to a multiple of 32, between 128 and `ZH_MAX_NEW_TOKENS`; with no
    tokenizer, twice the default. SmolLM2: 352, Gemma 3: 160."""
    if language != "zh":
        return DEFAULT_MAX_NEW_TOKENS
    try:
        factor = chinese_token_factor(tokenizer) if tokenizer is not None else 2.0
    except Exception:  # a tokenizer that cannot be called like transformers' one
        factor = 2.0
    wanted = math.ceil(DEFAULT_MAX_NEW_TOKENS * max(factor, 1.0) / ROUND_TO) * ROUND_TO
    return int(min(max(wanted, DEFAULT_MAX_NEW_TOKENS), ZH_MAX_NEW_TOKENS, MAX_NEW_TOKENS_RANGE[1]))
