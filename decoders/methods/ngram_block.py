"""N-gram blocking on top of TS-Temp's sampling, via generate's `no_repeat_ngram_size`
(transformers' NoRepeatNGramLogitsProcessor)."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param, sampling_effective
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    kwargs = {
        "do_sample": True,
        "temperature": s["temperature"],
        "top_p": s["top_p"],
        "top_k": s["top_k"],
        "no_repeat_ngram_size": s["no_repeat_ngram_size"],
    }
    return GenerationPlan(
        generate_kwargs=kwargs,
        effective={**sampling_effective(kwargs), "no_repeat_ngram_size": s["no_repeat_ngram_size"]},
    )


register(
    Decoder(
        name="N-gram-Block",
        description="TS-Temp's sampling that never repeats a 3-gram (prompt included).",
        params=(
            Param("no_repeat_ngram_size", 3, "int", 1, 10, 1, label="no-repeat n-gram size"),
            Param("temperature", 0.9, "float", 0.05, 2.0, 0.05, label="temperature"),
            Param("top_p", 0.95, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param("top_k", 50, "int", 0, 1000, 1, label="top-k", help="generate's default 50, as TS-Temp; 0 = off"),
        ),
        plan_fn=plan,
        family="playground",
    )
)
