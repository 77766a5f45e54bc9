"""Length-Aware (article 003, §5.3, the summary task): temperature falling from 0.75 to 0.45 as the
output nears its length limit, measured in characters by default."""

from ..base import DecodeContext, Decoder, GenerationPlan, Param
from ..processors import LengthAwareTemperatureLogitsWarper
from ..registry import register
from ..token_lengths import char_lengths


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    in_chars = s["unit"] == "characters"
    lengths = char_lengths(ctx.tokenizer, ctx.logits_size) if in_chars else None
    warper = LengthAwareTemperatureLogitsWarper(
        s["t_start"], s["t_end"], s["length_limit"], ctx.prompt_length, lengths, s["gamma"]
    )
    kwargs = {"do_sample": True, "temperature": 1.0, "top_p": s["top_p"], "top_k": s["top_k"]}
    limit = f"{s['length_limit']} {s['unit']}"
    effective = {
        "do_sample": True,
        "temperature": f"{s['t_end']} + ({s['t_start']} - {s['t_end']})·(1 - min(1, length/{limit}))^{s['gamma']}",
        "temperature_applied": "inside the length-aware processor, before top-k/top-p (generate temperature=1)",
        "t_start": s["t_start"],
        "t_end": s["t_end"],
        "length_limit": s["length_limit"],
        "unit": s["unit"],
        "gamma": s["gamma"],
        "top_k": s["top_k"],
        "top_p": s["top_p"],
        "limit_enforced": "no: only the temperature follows the length; max_new_tokens ends the output",
    }
    return GenerationPlan(generate_kwargs=kwargs, logits_processors=[warper], effective=effective)


register(
    Decoder(
        name="Length-Aware",
        description="Temperature 0.75 → 0.45 as the output nears its length limit (200 characters): the "
        "article's summary setting.",
        params=(
            Param("t_start", 0.75, "float", 0.05, 2.0, 0.05, label="T at the start"),
            Param("t_end", 0.45, "float", 0.05, 2.0, 0.05, label="T at the limit"),
            Param(
                "length_limit",
                200,
                "int",
                1,
                4096,
                1,
                label="length limit",
                help="the output length at which T reaches its end value (the task's 200 characters)",
            ),
            Param("unit", "characters", "choice", choices=("characters", "tokens"), label="limit in"),
            Param("gamma", 1.0, "float", 0.0, 5.0, 0.1, label="γ", help="1 = linear in the length; > 1 cools early"),
            Param("top_p", 1.0, "float", 0.05, 1.0, 0.01, label="top-p"),
            Param("top_k", 0, "int", 0, 1000, 1, label="top-k", help="0 = off (generate would default to 50)"),
        ),
        plan_fn=plan,
        family="article-003",
    )
)
