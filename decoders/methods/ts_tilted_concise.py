"""TS-Tilted-Concise (article 000, §5.1, second idea): TS-Tilted steered by the task instruction.

Two parts, each with its own switch, so that their effects can be told apart:

* the instruction "请使用简洁的语言。" / "Use concise language." in the prompt's language. The decoder
  only names the text (`instruction`); the arena core adds it to the system prompt (after the chat
  template's own default system prompt, if it has one), or before the prompt in raw mode.
* a penalty β on verbose phrases ("very", "in a sense", "非常", "从某种程度上说"…), token sequences
  biased with transformers' `SequenceBiasLogitsProcessor` (see `decoders.phrases` for the variants
  and where the bias lands, and why the stock processor needed no replacement).

Order of operations: generate runs the tilt's bias −λ·T·S and the phrase bias −β·T before its
own TemperatureLogitsWarper(T), so the sampled distribution is

    logits/T − λ·S(w) − β·[w completes a listed phrase]

before top-k/top-p: β, like λ, is in units of the tempered logits. With no phrases (or β = 0) and
the instruction off this is TS-Tilted's plan, token for token.
"""

from __future__ import annotations

import re
from typing import Any

from transformers import SequenceBiasLogitsProcessor

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..phrases import MAX_LIST_CHARS, default_phrases, normalize_phrases, parse_phrases, token_sequences
from ..registry import get, register
from .ts_tilted import plan as tilted_plan

INSTRUCTIONS = {"zh": "请使用简洁的语言。", "en": "Use concise language."}
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")


def prompt_language(prompt: str) -> str:
    """Chinese ("zh") when the prompt has at least as many Han characters as Latin words (and one
    Han character at all), else English ("en"). One Han character is roughly one word, so a Chinese question
    with an English term stays Chinese, an English request quoting 你好 stays English.

    >>> prompt_language("解释一下 quantum computing 的基本原理"), prompt_language("Translate 你好 into English")
    ('zh', 'en')
    """
    han = len(_HAN.findall(prompt))
    return "zh" if han and han >= len(_LATIN_WORD.findall(prompt)) else "en"


def instruction(s: dict[str, Any], prompt: str) -> str:
    choice = s["instruction"]
    if choice == "off":
        return ""
    return INSTRUCTIONS[prompt_language(prompt) if choice == "auto" else choice]


def plan(s: dict[str, Any], ctx: DecodeContext) -> GenerationPlan:
    tilted = tilted_plan(s, ctx)
    phrases = parse_phrases(s["phrases"])
    beta = s["phrase_penalty"]
    found = token_sequences(ctx.tokenizer, phrases) if phrases and beta > 0 else None
    if found is not None and found.sequences:
        bias = -beta * s["temperature"]  # generate divides by T afterwards: −β in the tempered logits
        tilted.logits_processors.append(SequenceBiasLogitsProcessor([[list(q), bias] for q in found.sequences]))
    tilted.effective.update(
        instruction=s["instruction"],
        instruction_text=instruction(s, ctx.prompt),
        phrases=s["phrases"],
        phrase_penalty=beta,
        phrase_sequences=0 if found is None else len(found.sequences),
    )
    if found is not None and found.sequences:
        tilted.effective["phrase_bias"] = (
            "−β·T on the token that starts a listed phrase's last character, when the phrase's earlier tokens "
            "end the context (transformers' SequenceBiasLogitsProcessor), before generate's temperature"
        )
    if found is not None and found.skipped:
        tilted.effective["phrases_not_penalised"] = ", ".join(found.skipped)
    return tilted


_tilted = {p.name: p for p in get("TS-Tilted").params}

register(
    Decoder(
        name="TS-Tilted-Concise",
        description="TS-Tilted (T=0.8, λ=0.15) with 'Use concise language.' in the prompt's language and a β=1 "
        "penalty on verbose phrases (very, in a sense, 非常, 实际上…).",
        params=(
            _tilted["temperature"],
            _tilted["alpha"],
            Param(
                "instruction",
                "auto",
                "choice",
                choices=("auto", "en", "zh", "off"),
                label="concise instruction",
                help="auto: 请使用简洁的语言。 for a Chinese prompt, Use concise language. otherwise; off: none",
            ),
            Param(
                "phrases",
                normalize_phrases(", ".join(default_phrases())),
                "text",
                maximum=MAX_LIST_CHARS,
                label="verbose phrases",
                help="separated by commas or new lines; empty = no phrase penalty",
                normalize=normalize_phrases,
            ),
            Param(
                "phrase_penalty",
                1.0,
                "float",
                0.0,
                10.0,
                0.1,
                label="phrase penalty β",
                help="subtracted from logit/T of a listed phrase's completing token; 0 = off",
            ),
            _tilted["prior"],
            _tilted["top_p"],
            _tilted["top_k"],
        ),
        plan_fn=plan,
        family="article-000",
        instruction_fn=instruction,
    )
)
