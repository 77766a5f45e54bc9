"""Code-Stabilizer (article 003, §5.2, the code task): no Explorer arm, the Stabilizer's sampling
alone (T=0.25, top-k=15), with the article's n-gram block ("禁止连续出现for i in range").

Everything here is transformers' own: `generate(temperature, top_k)` samples, and the block is
`bad_words_ids` (`NoBadWordsLogitsProcessor`), which forbids the last token of a listed sequence
whenever the tokens before it have just been written. The phrase is listed as it tokenizes alone
and after a space (" for" is its own token), so it is blocked at the start of a line, after an
indent and inside a comprehension; `for j in range` is a different sequence and stays allowed.
`no_repeat_ngram_size` (transformers' `NoRepeatNGramLogitsProcessor`) is there too, off by default:
code repeats short n-grams by nature (`lst[i]`, `return`), and blocking every repeat breaks it.
"""

from __future__ import annotations

from typing import Any

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register

ARTICLE_BLOCKED = "for i in range"


def phrase_token_ids(tokenizer, phrases: list[str]) -> list[list[int]]:
    """Each phrase's token ids alone and after a space, without duplicates."""
    out: list[list[int]] = []
    for phrase in phrases:
        for text in (phrase, " " + phrase):
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
            if ids and ids not in out:
                out.append(ids)
    return out


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    phrases = [ARTICLE_BLOCKED] if s["block_ngram"] else []
    kwargs: dict[str, Any] = {"do_sample": True, "temperature": s["temperature"], "top_k": s["top_k"], "top_p": 1.0}
    blocked = phrase_token_ids(ctx.tokenizer, phrases) if phrases else []
    if blocked:
        kwargs["bad_words_ids"] = blocked
    if s["no_repeat_ngram_size"]:
        kwargs["no_repeat_ngram_size"] = s["no_repeat_ngram_size"]
    effective = {
        **sampling_effective(kwargs),
        "arms": "Stabilizer only (the article disables the Explorer for code)",
        "blocked_phrases": phrases,
        "blocked_token_sequences": len(blocked),
        "no_repeat_ngram_size": s["no_repeat_ngram_size"],
    }
    return GenerationPlan(generate_kwargs=kwargs, effective=effective)


register(
    Decoder(
        name="Code-Stabilizer",
        description="The article's code setting: Stabilizer sampling only (T=0.25, top-k=15) and the phrase "
        "'for i in range' blocked.",
        params=(
            Param("temperature", 0.25, "float", 0.05, 2.0, 0.05, label="Stabilizer T"),
            Param("top_k", 15, "int", 1, 1000, 1, label="Stabilizer top-k"),
            Param(
                "block_ngram",
                True,
                "bool",
                label=f"block '{ARTICLE_BLOCKED}'",
                help="the article's n-gram block for code",
            ),
            Param(
                "no_repeat_ngram_size",
                0,
                "int",
                0,
                10,
                1,
                label="no-repeat n-gram size",
                help="0 = off: code repeats short n-grams by nature",
            ),
        ),
        plan_fn=plan,
        family="article-003",
    )
)
