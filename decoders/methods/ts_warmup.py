"""TS-Warmup (article 003, §2.3): the first k tokens at a higher temperature."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..processors import WarmupTemperatureLogitsWarper
from ..registry import register


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    warm = WarmupTemperatureLogitsWarper(s["warm_temperature"], s["warm_tokens"], s["temperature"], ctx.prompt_length)
    kwargs = {"do_sample": True, "temperature": 1.0, "top_p": s["top_p"], "top_k": s["top_k"]}
    effective = {
        "do_sample": True,
        "temperature": f"{s['warm_temperature']} for the first {s['warm_tokens']} tokens, then {s['temperature']}",
        "temperature_applied": "inside the warm-up processor, before top-k/top-p (generate temperature=1)",
        "warm_temperature": s["warm_temperature"],
        "warm_tokens": s["warm_tokens"],
        "after_temperature": s["temperature"],
        "top_k": s["top_k"],
        "top_p": s["top_p"],
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=[warm], effective=effective)


register(
    Decoder(
        name="TS-Warmup",
        description="Sampling warm-up: the first 4 tokens at T=0.9, then T=0.7.",
        params=(
            Param("warm_temperature", 0.9, "float", 0.05, 2.0, 0.05, label="warm-up T"),
            Param("warm_tokens", 4, "int", 0, 64, 1, label="warm-up tokens", help="article: 3–5"),
            Param("temperature", 0.7, "float", 0.05, 2.0, 0.05, label="T after warm-up"),
            Param("top_p", 1.0, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param("top_k", 0, "int", 0, 1000, 1, label="top-k", help="0 = off (generate would default to 50)"),
        ),
        plan_fn=plan,
        family="article-003",
    )
)
